//! `train`: rounds of policy-adaptive task sampling, groups of attempts through the one
//! rollout path (the eval scheduler), group advantages, and window-packed samples for a
//! learner. Every round is written to the store as it ends, with the sampler's statistics,
//! so a run can be inspected and resumed after a crash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use guigym_core::{Attempt, EnvProvider, Rng, TaskSpec};
use guigym_harness::packing::{pack, RecordedStep, Sample, TrajectoryInfo};
use guigym_harness::tokenizer::Tokenizer;
use guigym_harness::{HarnessConfig, HistoryPolicy, PolicyFactory, Prompt};
use serde::{Deserialize, Serialize};

use crate::buffer::client::BufferClient;
use crate::eval::{eval, EvalConfig, Progress};
use crate::rl::{dapo_keep, dr_grpo, grpo, AdaptiveSampler, KlEstimator, SamplingConfig, TaskStats};
use crate::store::Store;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    Grpo,
    DrGrpo,
    /// GRPO advantages, groups without reward spread dropped, asymmetric clipping.
    Dapo,
    /// GRPO advantages with a sequence-level ratio in the loss.
    Gspo,
    /// REINFORCE++: outcomes as returns (γ = 1; the trainer adds its −β·KL per token),
    /// whitened over every trained token of the round.
    ReinforcePp,
    /// REINFORCE++ with a group baseline: outcomes centred in their group, then whitened.
    ReinforcePpBaseline,
}

/// How per-token losses become one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossAggregation {
    /// Every trained token of the batch weighs the same.
    TokenMean,
    /// Each sequence's tokens are averaged, then the sequences.
    SequenceMean,
    /// Dr.GRPO: the sum of token losses divided by a constant (`constant_normalizer`), so
    /// long and short answers are not weighted by their length.
    Constant,
}

/// The optimisation settings a trainer applies to the samples: read from the config,
/// validated, stored with the run and exported with every sample (`Sample::algorithm`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AlgorithmConfig {
    pub name: Algorithm,
    /// The KL estimator and its coefficient (0 turns the penalty off).
    pub kl: KlEstimator,
    pub kl_coef: f64,
    /// The clip range of the importance ratio: [1 − eps_low, 1 + eps_high].
    pub eps_low: f64,
    pub eps_high: f64,
    /// Dual clip for negative advantages (c > 1), or none.
    pub dual_clip: Option<f64>,
    pub aggregation: LossAggregation,
    /// The constant of `aggregation: constant` (tokens); the harness's max reply length
    /// when unset.
    pub constant_normalizer: Option<u32>,
    pub learning_rate: f64,
}

impl Default for AlgorithmConfig {
    fn default() -> AlgorithmConfig {
        AlgorithmConfig {
            name: Algorithm::Grpo,
            kl: KlEstimator::K3,
            kl_coef: 1e-3,
            eps_low: 0.2,
            eps_high: 0.28,
            dual_clip: Some(3.0),
            aggregation: LossAggregation::TokenMean,
            constant_normalizer: None,
            learning_rate: 1e-6,
        }
    }
}

impl AlgorithmConfig {
    /// Settings that cannot train are refused with the field's name.
    pub fn check(&self) -> Result<(), String> {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if !positive(self.eps_low) || self.eps_low >= 1.0 {
            return Err(format!("algorithm.eps_low: {} is not in (0, 1)", self.eps_low));
        }
        if !positive(self.eps_high) {
            return Err(format!("algorithm.eps_high: {} is not above 0", self.eps_high));
        }
        if !self.kl_coef.is_finite() || self.kl_coef < 0.0 {
            return Err(format!("algorithm.kl_coef: {} is not 0 or more", self.kl_coef));
        }
        if !positive(self.learning_rate) {
            return Err(format!("algorithm.learning_rate: {} is not above 0", self.learning_rate));
        }
        if self.dual_clip.is_some_and(|c| !c.is_finite() || c <= 1.0) {
            return Err("algorithm.dual_clip: the dual clip must be above 1".into());
        }
        if self.constant_normalizer == Some(0) {
            return Err("algorithm.constant_normalizer: must be at least 1".into());
        }
        if self.name == Algorithm::DrGrpo && self.aggregation != LossAggregation::Constant {
            return Err("algorithm: Dr.GRPO normalizes by a constant: set aggregation: constant".into());
        }
        Ok(())
    }

    /// The settings as a trainer reads them with each sample: how advantages were computed,
    /// whether the ratio is per token or per sequence (GSPO), the clip, the KL and the loss
    /// aggregation.
    pub fn for_trainer(&self, max_reply_tokens: u32) -> serde_json::Value {
        let name = serde_json::to_value(self.name).unwrap_or_default();
        let advantage = match self.name {
            Algorithm::Grpo | Algorithm::Dapo | Algorithm::Gspo => "group_normalized",
            Algorithm::DrGrpo => "group_centred",
            Algorithm::ReinforcePp => "whitened_returns",
            Algorithm::ReinforcePpBaseline => "group_centred_whitened_returns",
        };
        serde_json::json!({
            "name": name,
            "advantage": advantage,
            "ratio": if self.name == Algorithm::Gspo { "sequence" } else { "token" },
            "clip": { "eps_low": self.eps_low, "eps_high": self.eps_high, "dual_clip": self.dual_clip },
            "kl": { "estimator": self.kl, "coef": self.kl_coef },
            "aggregation": self.aggregation,
            "constant_normalizer": (self.aggregation == LossAggregation::Constant).then(|| self.constant_normalizer.unwrap_or(max_reply_tokens)),
            "learning_rate": self.learning_rate,
        })
    }
}

/// The built-in learner's recipe (crate `guigym-learner`): warm-up by behaviour cloning, then
/// GRPO rounds with a k3 KL penalty, success measured on held-out tasks before and after each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LearnerConfig {
    /// Training tasks whose walkthroughs are collected (golden policy, same rollout path as
    /// `guigym collect`) and cloned.
    pub warmup_tasks: usize,
    /// Clone demonstrations from a `guigym collect` output folder (its `steps.jsonl`) instead.
    pub warmup_from: Option<String>,
    pub warmup_epochs: usize,
    pub warmup_lr: f32,
    pub rl_rounds: u32,
    pub rl_tasks_per_round: usize,
    pub group_size: u32,
    pub rl_lr: f32,
    /// Weight of the k3 KL penalty to the warm-up policy.
    pub kl_coef: f32,
    /// How a trajectory's steps share its advantage: `token-mean` (each step gets it whole) or
    /// `sequence-mean` (divided by the trajectory's length).
    pub aggregation: String,
    /// Per-step credit: a step the environment rejected as invalid gets at most zero
    /// advantage, minus this.
    pub invalid_penalty: f32,
    /// Partial credit for a failed attempt without side effects: this weight times the share
    /// of the verifier's checks it passed (0 = reward is success only).
    pub progress_weight: f32,
    /// Held-out test tasks evaluated (all when 0).
    pub eval_tasks: usize,
    pub parallel: usize,
    pub seed: u64,
}

impl Default for LearnerConfig {
    fn default() -> LearnerConfig {
        LearnerConfig {
            warmup_tasks: 12,
            warmup_from: None,
            warmup_epochs: 3,
            warmup_lr: 0.1,
            rl_rounds: 120,
            rl_tasks_per_round: 16,
            group_size: 8,
            rl_lr: 0.003,
            kl_coef: 0.2,
            progress_weight: 0.0,
            aggregation: "token-mean".into(),
            invalid_penalty: 0.5,
            eval_tasks: 0,
            parallel: 4,
            seed: 0,
        }
    }
}

/// Which policy plays the rollouts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// `golden`, `random` or `openai`.
    pub kind: String,
    #[serde(default)]
    pub openai: Option<guigym_harness::openai::OpenAiConfig>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    pub version: u32,
    /// The run's name in the store; `--resume` continues it.
    pub name: String,
    pub suites: Vec<String>,
    /// Cap on the task pool (the first tasks of the suites).
    #[serde(default)]
    pub max_tasks: Option<usize>,
    pub policy: PolicyConfig,
    #[serde(default)]
    pub harness: HarnessConfig,
    #[serde(default = "eight")]
    pub group_size: usize,
    pub rounds: u32,
    #[serde(default = "eight")]
    pub tasks_per_round: usize,
    #[serde(default)]
    pub algorithm: AlgorithmConfig,
    #[serde(default)]
    pub sampling: SamplingConfig,
    #[serde(default = "four")]
    pub parallel: usize,
    #[serde(default)]
    pub seed: u64,
    /// Where round-N.jsonl sample files (or the learner's report) go.
    pub output: PathBuf,
    /// Train the built-in learned policy instead of collecting samples for an external one
    /// (`policy.kind: learned`).
    #[serde(default)]
    pub learner: Option<LearnerConfig>,
    /// Held-out suite the learner is measured on.
    #[serde(default = "test_suite")]
    pub test_suite: String,
    /// A suite for tuning the learner's settings, apart from the test suite.
    #[serde(default)]
    pub validation_suite: Option<String>,
    /// A trajectory buffer (`guigym buffer serve`) that an external trainer reads: each
    /// round's finished groups are posted to it, and samples carry the weight version the
    /// trainer last announced there (instead of the round number).
    #[serde(default)]
    pub buffer: Option<String>,
    /// With a buffer: new rounds wait while the buffer holds at least this many samples not
    /// yet consumed (queued or leased), so rollouts never run further ahead of the trainer.
    #[serde(default)]
    pub buffer_max_pending: Option<usize>,
}

fn test_suite() -> String {
    "test".into()
}

fn eight() -> usize {
    8
}
fn four() -> usize {
    4
}

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error("train config {path}: {message}")]
    Config { path: String, message: String },
    #[error("{0}")]
    Run(String),
}

impl TrainConfig {
    /// Reads a YAML config; errors name the file, the line and column, and the field.
    pub fn load(path: &Path) -> Result<TrainConfig, TrainError> {
        let shown = path.display().to_string();
        let bad = |message: String| TrainError::Config { path: shown.clone(), message };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let config: TrainConfig = serde_saphyr::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if config.version != 1 {
            return Err(bad(format!("version: {} is not supported (this build reads version 1)", config.version)));
        }
        if config.group_size < 2 {
            return Err(bad("group_size: a group needs at least 2 attempts".into()));
        }
        if config.suites.is_empty() || config.tasks_per_round == 0 {
            return Err(bad("suites and tasks_per_round must name at least one task".into()));
        }
        config.harness.check().map_err(|m| bad(format!("harness: {m}")))?;
        config.algorithm.check().map_err(bad)?;
        Ok(config)
    }
}

/// What one round did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundStats {
    pub round: u32,
    pub eval_run: i64,
    pub tasks: usize,
    pub attempts: usize,
    pub mean_reward: f64,
    pub success_rate: f64,
    pub groups_kept: usize,
    pub groups_dropped: usize,
    pub samples: usize,
    pub tokens: usize,
    pub trained_tokens: usize,
    pub infra_failures: usize,
    pub seconds: f64,
    /// Mean |advantage| over the round's samples (how much signal the groups carried).
    #[serde(default)]
    pub advantage_abs_mean: f64,
    /// The adaptive sampler's attempts per task this round: fewest, mean, most.
    #[serde(default)]
    pub budget_min: u32,
    #[serde(default)]
    pub budget_mean: f64,
    #[serde(default)]
    pub budget_max: u32,
    /// Weight versions between the trainer's current one and the oldest that sampled a reply
    /// of this round (0 without a buffer or when all are current).
    #[serde(default)]
    pub staleness_max: u64,
    /// The figures the external trainer last reported to the buffer by the round's end (its
    /// KL, loss, …), each named `trainer_<name>`, with `trainer_version`, the weights they
    /// belong to; none without a buffer or a report.
    #[serde(flatten, default)]
    pub trainer: BTreeMap<String, f64>,
}

type Group = Vec<(Attempt, Vec<Prompt>)>;

/// Collects each attempt with the prompts it saw, and hands a task's group on as soon as its
/// last attempt is in (so it reaches the buffer while the round goes on).
struct Collected {
    /// Attempts expected per task.
    expected: BTreeMap<String, usize>,
    state: Mutex<CollectedState>,
}

#[derive(Default)]
struct CollectedState {
    pending: BTreeMap<String, Group>,
    /// Every attempt: its task, success and score.
    all: Vec<(String, bool, f64)>,
    finished: Option<tokio::sync::mpsc::UnboundedSender<(String, Group)>>,
}

impl Collected {
    fn new(expected: BTreeMap<String, usize>, finished: tokio::sync::mpsc::UnboundedSender<(String, Group)>) -> Collected {
        Collected { expected, state: Mutex::new(CollectedState { finished: Some(finished), ..CollectedState::default() }) }
    }

    /// The round is over: groups still short of attempts (some went unscored) are handed on
    /// as they are, and the channel closes.
    fn close(&self) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let rest = std::mem::take(&mut st.pending);
        if let Some(tx) = st.finished.take() {
            for (task, group) in rest {
                let _ = tx.send((task, group));
            }
        }
    }
}

impl Progress for Collected {
    fn attempt_done(&self, a: &Attempt, prompts: &[Prompt]) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.all.push((a.task_id.clone(), a.verdict.success, a.verdict.score as f64));
        let group = st.pending.entry(a.task_id.clone()).or_default();
        group.push((a.clone(), prompts.to_vec()));
        if group.len() >= self.expected.get(&a.task_id).copied().unwrap_or(usize::MAX) {
            let group = st.pending.remove(&a.task_id).unwrap_or_default();
            if let Some(tx) = &st.finished {
                let _ = tx.send((a.task_id.clone(), group));
            }
        }
    }
    fn wants_prompts(&self) -> bool {
        true
    }
}

/// The advantages of a group under the algorithm; `None` when the group is dropped.
pub fn group_advantages(algorithm: Algorithm, rewards: &[f64]) -> Option<Vec<f64>> {
    match algorithm {
        Algorithm::Dapo if !dapo_keep(rewards) => None,
        Algorithm::Grpo | Algorithm::Dapo | Algorithm::Gspo => Some(grpo(rewards)),
        Algorithm::DrGrpo | Algorithm::ReinforcePpBaseline => Some(dr_grpo(rewards)),
        // Whitened over the round afterwards (`whiten_round`).
        Algorithm::ReinforcePp => Some(rewards.to_vec()),
    }
}

/// REINFORCE++'s whitening: the round's per-sample returns become zero-mean, unit-variance
/// over every trained token (a sample weighs as many tokens as it trains).
pub fn whiten_round(samples: &mut [Sample]) {
    let weights: Vec<f64> = samples.iter().map(|s| s.loss_mask.iter().filter(|m| **m == 1).count() as f64).collect();
    let total: f64 = weights.iter().sum();
    if total == 0.0 {
        return;
    }
    let mean = samples.iter().zip(&weights).map(|(s, w)| s.advantage * w).sum::<f64>() / total;
    let var = samples.iter().zip(&weights).map(|(s, w)| (s.advantage - mean).powi(2) * w).sum::<f64>() / total;
    for s in samples {
        s.advantage = (s.advantage - mean) / (var.sqrt() + 1e-8);
    }
}

pub struct Trainer<'a> {
    pub config: &'a TrainConfig,
    pub pool: Vec<TaskSpec>,
    pub provider: Arc<dyn EnvProvider>,
    pub policy: Arc<dyn PolicyFactory>,
    pub store: Arc<Store>,
    pub tokenizer: &'a Tokenizer,
}

/// Copies a round's screenshots into `out/images/` (named `<hash>.png`), so the round's
/// sample files resolve their images from the output folder alone.
fn copy_images(store: &Store, out: &Path, samples: &[Sample]) -> Result<(), TrainError> {
    let dir = out.join("images");
    std::fs::create_dir_all(&dir).map_err(|e| TrainError::Run(format!("{}: {e}", dir.display())))?;
    for hash in samples.iter().flat_map(|s| &s.images) {
        let to = dir.join(format!("{hash}.png"));
        if !to.exists() {
            std::fs::copy(store.blob_path(hash), &to).map_err(|e| TrainError::Run(format!("copying screenshot {hash}: {e}")))?;
        }
    }
    Ok(())
}

/// One attempt as samples, packed under the history policy its prompts were built with. A
/// sample is dated by the oldest weights that sampled its trained replies when the policy
/// server reported them (they, not the trainer's announcement, decide staleness), else by
/// `weight_version`.
pub fn pack_attempt(
    tokenizer: &Tokenizer,
    history: HistoryPolicy,
    attempt: &Attempt,
    prompts: &[Prompt],
    group_id: &str,
    advantage: f64,
    weight_version: u64,
) -> Vec<Sample> {
    let steps = RecordedStep::zip(prompts, &attempt.trajectory.steps);
    let terminated = attempt.trajectory.steps.last().is_some_and(|s| s.action.as_ref().is_some_and(|x| x.name() == "terminate"));
    // The attempt's opaque id: the same one the store maps back to the task.
    let info = TrajectoryInfo {
        trajectory_id: &attempt.trajectory_id,
        task_id: &attempt.task_id,
        group_id,
        reward: attempt.verdict.score as f64,
        advantage,
        weight_version,
        status: if terminated { "completed" } else { "truncated" },
    };
    let mut samples = pack(tokenizer, history, &steps, &info);
    for sample in &mut samples {
        let mut served: Vec<String> =
            sample.trained_steps.iter().filter_map(|t| attempt.trajectory.steps.get(t.step as usize)?.weight_version.clone()).collect();
        served.sort();
        served.dedup();
        if let Some(oldest) = served.iter().filter_map(|v| v.parse::<u64>().ok()).min() {
            sample.weight_version = oldest;
        }
        sample.served_versions = served;
    }
    samples
}

impl Trainer<'_> {
    /// A finished group as samples: its advantages under the algorithm, each attempt packed
    /// as its prompts were built. `None` when the algorithm drops the group (DAPO: no spread).
    fn pack_group(&self, round: u32, task_id: &str, group: &Group, weight_version: u64) -> Option<Vec<Sample>> {
        let c = self.config;
        let rewards: Vec<f64> = group.iter().map(|(a, _)| a.verdict.score as f64).collect();
        let advantages = group_advantages(c.algorithm.name, &rewards)?;
        let group_id = format!("{round}:{task_id}");
        let samples = group
            .iter()
            .zip(advantages)
            .flat_map(|((a, prompts), adv)| pack_attempt(self.tokenizer, c.harness.history, a, prompts, &group_id, adv, weight_version))
            .collect();
        Some(samples)
    }

    /// Runs the rounds not yet in the store; `on_round` is told of each as it ends.
    pub async fn run(&self, resume: bool, on_round: &dyn Fn(&RoundStats)) -> Result<Vec<RoundStats>, TrainError> {
        let c = self.config;
        let run = |e: crate::store::StoreError| TrainError::Run(e.to_string());
        let fresh = self.store.create_train_run(&c.name, &serde_json::to_value(c).unwrap_or_default()).map_err(run)?;
        if !fresh && !resume {
            return Err(TrainError::Run(format!("a training run named \"{}\" exists; pass --resume to continue it", c.name)));
        }
        let done = self.store.train_rounds(&c.name).map_err(run)?;
        let mut sampler = AdaptiveSampler::new(SamplingConfig { group_size: c.group_size, ..c.sampling.clone() });
        for (task, attempts, successes) in self.store.task_stats(&c.name).map_err(run)? {
            sampler.stats.insert(task, TaskStats { attempts, successes });
        }
        std::fs::create_dir_all(&c.output).map_err(|e| TrainError::Run(format!("{}: {e}", c.output.display())))?;
        let mut order: Vec<usize> = (0..self.pool.len()).collect();
        Rng::derive(c.seed, &c.name).shuffle(&mut order);
        let mut out = Vec::new();
        // One connection pool for the run's buffer requests.
        let buffer = c.buffer.as_deref().map(BufferClient::new);
        let mut reported: Option<serde_json::Value> = None;
        for round in (done.len() as u32)..c.rounds {
            let started = Instant::now();
            // The next tasks of the seeded order, cycling over the pool.
            let picked: Vec<TaskSpec> =
                (0..c.tasks_per_round.min(self.pool.len())).map(|i| self.pool[order[(round as usize * c.tasks_per_round + i) % order.len()]].clone()).collect();
            let budgets: Vec<u32> = picked.iter().map(|t| sampler.budget(&t.id) as u32).collect();
            let eval_config = EvalConfig {
                suite: format!("train:{}:round{round}", c.name),
                attempts: c.group_size as u32,
                parallel: c.parallel.max(1),
                harness: c.harness.clone(),
                task_attempts: budgets,
                ..EvalConfig::default()
            };
            if let (Some(b), Some(max)) = (&buffer, c.buffer_max_pending) {
                b.wait_for_trainer(max).await.map_err(TrainError::Run)?;
            }
            // The trainer's current weights, as it announced them to the buffer.
            let weight_version = match &buffer {
                Some(b) => b.version().await.map_err(TrainError::Run)?,
                None => round as u64,
            };
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let expected: BTreeMap<String, usize> = picked.iter().zip(&eval_config.task_attempts).map(|(t, n)| (t.id.clone(), *n as usize)).collect();
            let collected = Arc::new(Collected::new(expected, tx));
            // REINFORCE++ whitens over the whole round: its groups wait for the round's end.
            let whole_round = matches!(c.algorithm.name, Algorithm::ReinforcePp | Algorithm::ReinforcePpBaseline);
            let settings = c.algorithm.for_trainer(c.policy.openai.as_ref().map_or(512, |o| o.max_tokens));
            let rollouts = async {
                let r =
                    eval(Arc::new(picked.clone()), &eval_config, self.provider.clone(), self.policy.clone(), Some(self.store.clone()), collected.clone()).await;
                collected.close();
                r
            };
            // Each group is packed as its last attempt finishes and, unless the algorithm needs
            // the whole round, posted to the buffer at once.
            let packing = async {
                let mut packed: Vec<(String, usize, Vec<Sample>)> = Vec::new();
                let mut dropped = 0;
                while let Some((task_id, group)) = rx.recv().await {
                    let Some(mut samples) = self.pack_group(round, &task_id, &group, weight_version) else {
                        dropped += 1;
                        continue;
                    };
                    for s in &mut samples {
                        s.algorithm = Some(settings.clone());
                    }
                    copy_images(&self.store, &c.output, &samples)?;
                    if let (Some(b), false) = (&buffer, whole_round) {
                        b.post_group(&self.store, &format!("{round}:{task_id}"), group.len(), &samples).await.map_err(TrainError::Run)?;
                    }
                    packed.push((task_id, group.len(), samples));
                }
                Ok::<_, TrainError>((packed, dropped))
            };
            let (eval_result, packed) = tokio::join!(rollouts, packing);
            let (eval_run, report) = eval_result.map_err(|e| TrainError::Run(e.to_string()))?;
            let (mut packed, dropped) = packed?;
            // Groups finish in any order; the round file lists them by task.
            packed.sort_by(|a, b| a.0.cmp(&b.0));
            let kept = packed.len();
            let all = std::mem::take(&mut collected.state.lock().unwrap_or_else(|p| p.into_inner()).all);
            for (task, success, _) in &all {
                sampler.record(task, *success);
            }
            let mut samples: Vec<Sample> = packed.iter().flat_map(|(_, _, s)| s.iter().cloned()).collect();
            let mean_reward = all.iter().map(|(_, _, score)| score).sum::<f64>() / all.len().max(1) as f64;
            if whole_round {
                whiten_round(&mut samples);
            }
            if let (Some(b), true) = (&buffer, whole_round) {
                let mut at = 0;
                for (task_id, attempts, group) in &packed {
                    b.post_group(&self.store, &format!("{round}:{task_id}"), *attempts, &samples[at..at + group.len()]).await.map_err(TrainError::Run)?;
                    at += group.len();
                }
            }
            let path = c.output.join(format!("round-{round}.jsonl"));
            let lines: Vec<String> = samples.iter().filter_map(|s| serde_json::to_string(s).ok()).collect();
            std::fs::write(&path, lines.join("\n") + if lines.is_empty() { "" } else { "\n" })
                .map_err(|e| TrainError::Run(format!("{}: {e}", path.display())))?;
            // What the trainer reported with its newest weights, once per report.
            let mut trainer = BTreeMap::new();
            if let Some(b) = &buffer {
                if let Some(report) = b.state().await.map_err(TrainError::Run)?.get("trainer_figures").filter(|r| !r.is_null()) {
                    // A report not recorded yet (a new version, or new figures for the same one).
                    if reported.as_ref() != Some(report) {
                        reported = Some(report.clone());
                        for (name, value) in report["figures"].as_object().into_iter().flatten() {
                            if let Some(v) = value.as_f64() {
                                trainer.insert(format!("trainer_{name}"), v);
                            }
                        }
                        // Last, so that no figure can stand in for it.
                        trainer.insert("trainer_version".to_string(), report["version"].as_u64().unwrap_or(0) as f64);
                    }
                }
            }
            let stats = RoundStats {
                round,
                eval_run,
                tasks: picked.len(),
                attempts: report.attempts,
                mean_reward,
                success_rate: report.success_rate,
                groups_kept: kept,
                groups_dropped: dropped,
                samples: samples.len(),
                tokens: samples.iter().map(|s| s.prompt_ids.len() + s.response_ids.len()).sum(),
                trained_tokens: samples.iter().map(|s| s.loss_mask.iter().filter(|m| **m == 1).count()).sum(),
                infra_failures: report.infra_failures,
                seconds: started.elapsed().as_secs_f64(),
                advantage_abs_mean: samples.iter().map(|s| s.advantage.abs()).sum::<f64>() / samples.len().max(1) as f64,
                budget_min: eval_config.task_attempts.iter().copied().min().unwrap_or(0),
                budget_mean: eval_config.task_attempts.iter().map(|b| *b as f64).sum::<f64>() / eval_config.task_attempts.len().max(1) as f64,
                budget_max: eval_config.task_attempts.iter().copied().max().unwrap_or(0),
                staleness_max: samples.iter().map(|s| weight_version.saturating_sub(s.weight_version)).max().unwrap_or(0),
                trainer,
            };
            let task_rows: Vec<(String, u64, u64)> = sampler.stats.iter().map(|(t, s)| (t.clone(), s.attempts, s.successes)).collect();
            self.store.finish_train_round(&c.name, round, &serde_json::to_value(&stats).unwrap_or_default(), &task_rows).map_err(run)?;
            on_round(&stats);
            out.push(stats);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_that_cannot_train_are_refused_by_name() {
        assert!(AlgorithmConfig::default().check().is_ok());
        let bad = |edit: fn(&mut AlgorithmConfig)| {
            let mut c = AlgorithmConfig::default();
            edit(&mut c);
            c.check().unwrap_err()
        };
        assert!(bad(|c| c.eps_low = 1.5).contains("eps_low"));
        assert!(bad(|c| c.eps_high = 0.0).contains("eps_high"));
        assert!(bad(|c| c.kl_coef = -1.0).contains("kl_coef"));
        assert!(bad(|c| c.learning_rate = 0.0).contains("learning_rate"));
        assert!(bad(|c| c.dual_clip = Some(0.5)).contains("dual_clip"));
        assert!(bad(|c| c.name = Algorithm::DrGrpo).contains("constant"));
    }

    #[test]
    fn each_algorithm_tells_the_trainer_what_it_needs() {
        let gspo = AlgorithmConfig { name: Algorithm::Gspo, eps_low: 3e-4, eps_high: 4e-4, ..AlgorithmConfig::default() }.for_trainer(512);
        let grpo = AlgorithmConfig::default().for_trainer(512);
        assert_eq!((grpo["ratio"].as_str(), gspo["ratio"].as_str()), (Some("token"), Some("sequence")));
        assert_ne!(grpo["clip"], gspo["clip"]);
        assert_eq!(grpo["kl"], serde_json::json!({ "estimator": "k3", "coef": 1e-3 }));
        let dr = AlgorithmConfig { name: Algorithm::DrGrpo, aggregation: LossAggregation::Constant, ..AlgorithmConfig::default() }.for_trainer(512);
        assert_eq!((dr["aggregation"].as_str(), dr["constant_normalizer"].as_u64()), (Some("constant"), Some(512)));
        assert!(grpo["constant_normalizer"].is_null());
    }

    fn sample(advantage: f64, trained: usize) -> Sample {
        Sample {
            trajectory_id: "t".into(),
            task_id: "x/0".into(),
            window: 0,
            first_step: 0,
            last_step: 0,
            prompt_ids: vec![1],
            response_ids: vec![2; trained + 1],
            loss_mask: std::iter::repeat_n(1, trained).chain([0]).collect(),
            rollout_logprobs: None,
            images: vec![],
            image_positions: vec![],
            reward: advantage,
            advantage,
            group_id: "g".into(),
            weight_version: 0,
            status: "completed".into(),
            token_source: "tokenizer".into(),
            trained_steps: vec![],
            served_versions: vec![],
            algorithm: None,
        }
    }

    #[test]
    fn reinforce_pp_whitens_over_every_trained_token_of_the_round() {
        // REINFORCE++ keeps raw outcomes per group, then whitens them token-weighted.
        assert_eq!(group_advantages(Algorithm::ReinforcePp, &[1.0, 0.0]), Some(vec![1.0, 0.0]));
        assert_eq!(group_advantages(Algorithm::ReinforcePpBaseline, &[1.0, 0.0]), Some(vec![0.5, -0.5]));
        let mut s = vec![sample(1.0, 3), sample(0.0, 1)];
        whiten_round(&mut s);
        let weights = [3.0, 1.0];
        let mean: f64 = s.iter().zip(weights).map(|(x, w)| x.advantage * w).sum::<f64>() / 4.0;
        let var: f64 = s.iter().zip(weights).map(|(x, w)| (x.advantage - mean).powi(2) * w).sum::<f64>() / 4.0;
        assert!(mean.abs() < 1e-9 && (var - 1.0).abs() < 1e-6, "mean {mean}, var {var}");
        assert!(s[0].advantage > 0.0 && s[1].advantage < 0.0);
    }
}
