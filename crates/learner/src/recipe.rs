//! The recipe: held-out success before warm-up, behaviour cloning of walkthroughs, held-out
//! success after warm-up, rounds of GRPO with a k3 KL penalty to the warm-up policy, and
//! held-out success after RL. Every rollout goes through `guigym_rollout::eval`, the same
//! path and harness as any eval.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use guigym_core::{EnvProvider, Rng, TaskSpec};
use guigym_harness::{HarnessConfig, PolicyKind};
use guigym_rollout::demos::{self, StepRecord};
use guigym_rollout::rl::grpo;
use guigym_rollout::{eval, EvalConfig, Progress, Store};
use serde::{Deserialize, Serialize};

pub use guigym_rollout::train::LearnerConfig;

use crate::{candidates, matching, Decision, LearnedFactory, Memory, Model};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundPoint {
    pub round: u32,
    /// Success of the sampled rollouts on training tasks this round.
    pub train_success: f64,
    pub groups_with_signal: usize,
    /// KL(π ‖ π_ref) to the warm-up policy, estimated with k3 over the round's sampled
    /// decisions before the round's update.
    #[serde(default)]
    pub kl: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecipeReport {
    pub test_tasks: usize,
    pub before_warmup: f64,
    pub after_warmup: f64,
    pub after_rl: f64,
    pub warmup_decisions: usize,
    pub curve: Vec<RoundPoint>,
    /// Held-out success per family: before warm-up, after warm-up, after RL.
    #[serde(default)]
    pub by_family: BTreeMap<String, [f64; 3]>,
    /// Success on the validation suite after RL (the figure to tune on), and its size.
    #[serde(default)]
    pub validation_tasks: usize,
    #[serde(default)]
    pub validation_after_rl: f64,
    /// Constant baselines on the same held-out tasks: seeded random actions, and
    /// `terminate(infeasible)` at the first step — overall and per family.
    #[serde(default)]
    pub random: f64,
    #[serde(default)]
    pub always_infeasible: f64,
    #[serde(default)]
    pub baselines_by_family: BTreeMap<String, [f64; 2]>,
    /// The headline: held-out success after RL minus before warm-up, over the tasks of the
    /// families no constant baseline solves at all (a family `always_infeasible` solves says
    /// nothing about learning).
    #[serde(default)]
    pub gain_where_constants_fail: f64,
    /// The same, after RL minus after warm-up: what RL itself added there.
    #[serde(default)]
    pub rl_gain_where_constants_fail: f64,
    #[serde(default)]
    pub families_where_constants_fail: usize,
    pub seconds: f64,
}

/// A constant policy: `terminate(infeasible)` at once, whatever the screen (its own factory).
struct AlwaysInfeasible;

#[async_trait::async_trait]
impl guigym_harness::Policy for AlwaysInfeasible {
    async fn act(&mut self, input: &guigym_harness::PolicyInput<'_>) -> Result<guigym_harness::PolicyOutput, guigym_harness::PolicyError> {
        let action = guigym_core::Action::Terminate { status: guigym_core::TerminateStatus::Infeasible };
        Ok(guigym_harness::PolicyOutput { raw: input.prompt.encode(&action, input.observation), ..Default::default() })
    }
}

impl guigym_harness::PolicyFactory for AlwaysInfeasible {
    fn name(&self) -> String {
        "always-infeasible".into()
    }
    fn for_attempt(&self, _task: &TaskSpec, _attempt: u32) -> Box<dyn guigym_harness::Policy> {
        Box::new(AlwaysInfeasible)
    }
}

/// Held-out success of the greedy policy, overall and per family.
async fn success(
    model: &Model,
    tasks: &[TaskSpec],
    provider: &Arc<dyn EnvProvider>,
    c: &LearnerConfig,
    store: &Option<Arc<Store>>,
) -> Result<(f64, BTreeMap<String, f64>), String> {
    held_out("test", Arc::new(LearnedFactory::new(model.clone(), true, c.seed)), tasks, provider, c, store).await
}

/// Success of one attempt per task under `factory`, overall and per family.
async fn held_out(
    suite: &str,
    factory: Arc<dyn guigym_harness::PolicyFactory>,
    tasks: &[TaskSpec],
    provider: &Arc<dyn EnvProvider>,
    c: &LearnerConfig,
    store: &Option<Arc<Store>>,
) -> Result<(f64, BTreeMap<String, f64>), String> {
    let config = EvalConfig { suite: suite.into(), attempts: 1, parallel: c.parallel.max(1), harness: HarnessConfig::default(), ..EvalConfig::default() };
    let (_, report) = eval(Arc::new(tasks.to_vec()), &config, provider.clone(), factory, store.clone(), Arc::new(())).await.map_err(|e| e.to_string())?;
    Ok((report.success_rate, report.by_family.iter().map(|(f, r)| (f.clone(), r.success_rate)).collect()))
}

/// Turns collected steps into decisions: per trajectory, in order, the candidates of each
/// screen and the one the demonstration took (steps no candidate matches are skipped).
pub fn decisions(records: &[StepRecord]) -> Vec<Decision> {
    let mut out = Vec::new();
    let mut memory = Memory::default();
    let mut current: Option<&str> = None;
    for r in records {
        if current != Some(r.trajectory_id.as_str()) {
            memory = Memory::default();
            current = Some(&r.trajectory_id);
        }
        memory.read(&r.instruction, &r.observation);
        let cands = candidates(&r.instruction, &r.observation, &memory);
        if let Some(i) = matching(&cands, &r.action, &r.observation) {
            out.push(Decision { candidates: cands, chosen: i });
        }
        memory.update(&r.action, &r.observation);
    }
    out
}

/// Collects walkthrough demonstrations the way `guigym collect` does: the golden policy plays
/// each task through `eval` and the harness, and the steps of successful attempts are kept.
async fn collect(tasks: &[TaskSpec], provider: &Arc<dyn EnvProvider>, c: &LearnerConfig, store: &Option<Arc<Store>>) -> Result<Vec<StepRecord>, String> {
    let config = EvalConfig { suite: "warm-up".into(), attempts: 1, parallel: c.parallel.max(1), ..EvalConfig::default() };
    let sink = Arc::new(Steps { instructions: tasks.iter().map(|t| (t.id.clone(), t.instruction.clone())).collect(), records: Default::default() });
    eval(Arc::new(tasks.to_vec()), &config, provider.clone(), Arc::new(PolicyKind::Golden), store.clone(), sink.clone()).await.map_err(|e| e.to_string())?;
    let mut records = std::mem::take(&mut *sink.records.lock().unwrap_or_else(|p| p.into_inner()));
    // Attempts finish in any order; a fixed order keeps a seed's result fixed.
    records.sort_by(|a, b| (&a.trajectory_id, a.step).cmp(&(&b.trajectory_id, b.step)));
    Ok(records)
}

/// Keeps the steps of successful attempts.
struct Steps {
    instructions: std::collections::HashMap<String, String>,
    records: std::sync::Mutex<Vec<StepRecord>>,
}

impl Progress for Steps {
    fn attempt_done(&self, a: &guigym_core::Attempt, prompts: &[guigym_harness::Prompt]) {
        if a.verdict.success {
            let instruction = self.instructions.get(&a.task_id).map(String::as_str).unwrap_or("");
            self.records.lock().unwrap_or_else(|p| p.into_inner()).extend(demos::records(a, instruction, prompts));
        }
    }
    fn wants_prompts(&self) -> bool {
        true
    }
}

/// Where a recipe run keeps its state between rounds, so `--resume` continues after a crash:
/// `checkpoint.json` (figures so far and the next round) beside the policy's and the warm-up
/// reference's weights (`model.f32`, `reference.f32`, little-endian).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Checkpoint {
    next_round: u32,
    before: f64,
    after_warmup: f64,
    families_before: BTreeMap<String, f64>,
    families_warm: BTreeMap<String, f64>,
    warmup_decisions: usize,
    curve: Vec<RoundPoint>,
}

fn save_weights(path: &Path, m: &Model) -> Result<(), String> {
    let bytes: Vec<u8> = m.w.iter().flat_map(|x| x.to_le_bytes()).collect();
    write_atomically(path, &bytes)
}

/// A crash mid-write leaves the previous file whole.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension("part");
    std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path)).map_err(|e| format!("{}: {e}", path.display()))
}

fn save(dir: &Path, cp: &Checkpoint, model: &Model, reference: &Model) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    save_weights(&dir.join("model.f32"), model)?;
    save_weights(&dir.join("reference.f32"), reference)?;
    // The figures last: a checkpoint.json always names weights that are on disk.
    write_atomically(&dir.join("checkpoint.json"), serde_json::to_string(cp).map_err(|e| e.to_string())?.as_bytes())
}

fn load(dir: &Path) -> Result<Option<(Checkpoint, Model, Model)>, String> {
    let path = dir.join("checkpoint.json");
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let cp: Checkpoint = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some((cp, Model::load(&dir.join("model.f32"))?, Model::load(&dir.join("reference.f32"))?)))
}

/// Runs the recipe. With a checkpoint folder, state is saved after the warm-up and after every
/// round; with `resume`, a saved run continues from its next round and ends as the
/// uninterrupted run would have.
#[allow(clippy::too_many_arguments)]
pub async fn run(
    c: &LearnerConfig,
    train: &[TaskSpec],
    validation: &[TaskSpec],
    test: &[TaskSpec],
    provider: Arc<dyn EnvProvider>,
    store: Option<Arc<Store>>,
    checkpoint: Option<&Path>,
    resume: bool,
    on_line: &dyn Fn(&str),
) -> Result<RecipeReport, String> {
    let started = Instant::now();
    let test: Vec<TaskSpec> = if c.eval_tasks == 0 { test.to_vec() } else { test.iter().take(c.eval_tasks).cloned().collect() };
    let mut order: Vec<usize> = (0..train.len()).collect();
    Rng::derive(c.seed, "warmup").shuffle(&mut order);
    let saved = match (checkpoint, resume) {
        (Some(dir), true) => load(dir)?,
        _ => None,
    };
    let (mut cp, model, reference) = match saved {
        Some((cp, model, reference)) => {
            on_line(&format!("resuming after {} of {} RL rounds", cp.next_round, c.rl_rounds));
            (cp, model, reference)
        }
        None => {
            let (cp, model) = warm_up(c, train, &order, &test, &provider, &store, on_line).await?;
            let reference = model.clone();
            if let Some(dir) = checkpoint {
                save(dir, &cp, &model, &reference)?;
            }
            (cp, model, reference)
        }
    };
    let factory = Arc::new(LearnedFactory::new(model, false, c.seed));
    for round in cp.next_round..c.rl_rounds {
        let tasks: Vec<TaskSpec> = (0..c.rl_tasks_per_round.min(train.len()))
            .map(|i| train[order[(round as usize * c.rl_tasks_per_round + i + c.warmup_tasks) % order.len()]].clone())
            .collect();
        let config = EvalConfig { suite: format!("rl-round-{round}"), attempts: c.group_size.max(2), parallel: c.parallel.max(1), ..EvalConfig::default() };
        let sink = Arc::new(Attempts::default());
        let (_, report) = eval(Arc::new(tasks), &config, provider.clone(), factory.clone(), store.clone(), sink.clone()).await.map_err(|e| e.to_string())?;
        let log = factory.take_log();
        let mut attempts = std::mem::take(&mut *sink.0.lock().unwrap_or_else(|p| p.into_inner()));
        // Attempts finish in any order; updates are applied in a fixed one, so a seed gives one result.
        attempts.sort_by(|a, b| (&a.task_id, a.attempt_index).cmp(&(&b.task_id, b.attempt_index)));
        let mut groups: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
        // Which steps of each trajectory the environment rejected as invalid.
        let mut invalid: BTreeMap<String, Vec<bool>> = BTreeMap::new();
        for a in attempts {
            // The decision log is keyed by the attempt's own (opaque) trajectory id.
            let tid = a.trajectory_id.clone();
            invalid.insert(tid.clone(), a.trajectory.steps.iter().map(|s| s.invalid).collect());
            groups.entry(a.task_id.clone()).or_default().push((tid, reward(&a.verdict, c.progress_weight)));
        }
        let mut with_signal = 0;
        let mut model = factory.model.write().map_err(|_| "model lock poisoned".to_string())?;
        // k3 = r − 1 − ln r with r = π_ref/π of each sampled decision (its mean estimates the KL
        // without bias), measured before this round's update changes π.
        let (mut kl_sum, mut kl_n) = (0.0f64, 0usize);
        // In the groups' fixed order (trajectory ids are random), so a seed gives one figure.
        for d in groups.values().flatten().filter_map(|(tid, _)| log.get(tid)).flatten() {
            let p = model.probs(&d.candidates)[d.chosen].max(1e-6) as f64;
            let r = reference.probs(&d.candidates)[d.chosen].max(1e-6) as f64 / p;
            kl_sum += r - 1.0 - r.ln();
            kl_n += 1;
        }
        for group in groups.values() {
            let rewards: Vec<f64> = group.iter().map(|g| g.1).collect();
            let adv = grpo(&rewards);
            // A group without reward spread has no policy-gradient signal, but the KL penalty
            // to the reference applies to every group.
            if adv.iter().any(|a| a.abs() >= 1e-9) {
                with_signal += 1;
            }
            for ((tid, _), a) in group.iter().zip(adv) {
                let decisions = log.get(tid).map(Vec::len).unwrap_or(0).max(1);
                // Sequence-mean: each trajectory weighs the same however many steps it took.
                let weight = if c.aggregation == "sequence-mean" { 1.0 / decisions as f32 } else { 1.0 };
                let rejected = invalid.get(tid);
                for (i, d) in log.get(tid).into_iter().flatten().enumerate() {
                    // Per-step credit: a step the environment rejected never shares a good
                    // outcome, and costs `invalid_penalty` on top.
                    let a = if rejected.and_then(|r| r.get(i)).copied().unwrap_or(false) { a.min(0.0) - c.invalid_penalty as f64 } else { a };
                    // ∇ of −A·log π + β·k3(π, π_ref): k3's gradient in log π is 1 − π_ref/π.
                    let p = model.probs(&d.candidates)[d.chosen].max(1e-6);
                    let p_ref = reference.probs(&d.candidates)[d.chosen];
                    let scale = weight * c.rl_lr * (a as f32 - c.kl_coef * (1.0 - p_ref / p));
                    model.step_logprob(&d.candidates, d.chosen, scale);
                }
            }
        }
        let kl = kl_sum / kl_n.max(1) as f64;
        let point = RoundPoint { round, train_success: report.success_rate, groups_with_signal: with_signal, kl };
        on_line(&format!(
            "round {round}: sampled success on training tasks {:.1} %, groups with signal {with_signal}, KL to the warm-up policy {kl:.2e}",
            point.train_success * 100.0
        ));
        cp.curve.push(point);
        cp.next_round = round + 1;
        if let Some(dir) = checkpoint {
            save(dir, &cp, &model, &reference)?;
        }
    }
    let model = factory.model.read().map_err(|_| "model lock poisoned".to_string())?.clone();
    let (after_rl, families_rl) = success(&model, &test, &provider, c, &store).await?;
    on_line(&format!("held-out success after RL: {:.1} %", after_rl * 100.0));
    let by_family: BTreeMap<String, [f64; 3]> = families_rl
        .iter()
        .map(|(f, rl)| {
            let get = |m: &BTreeMap<String, f64>| m.get(f).copied().unwrap_or(0.0);
            (f.clone(), [get(&cp.families_before), get(&cp.families_warm), *rl])
        })
        .collect();
    // Validation figures (for tuning), apart from the test figures.
    let (validation_after_rl, _) = if validation.is_empty() { (0.0, BTreeMap::new()) } else { success(&model, validation, &provider, c, &store).await? };
    if !validation.is_empty() {
        on_line(&format!("validation success after RL: {:.1} % ({} tasks)", validation_after_rl * 100.0, validation.len()));
    }
    let (random, random_by) = held_out("baseline", Arc::new(PolicyKind::Random), &test, &provider, c, &store).await?;
    let (infeasible, infeasible_by) = held_out("baseline", Arc::new(AlwaysInfeasible), &test, &provider, c, &store).await?;
    let get = |m: &BTreeMap<String, f64>, f: &str| m.get(f).copied().unwrap_or(0.0);
    let baselines_by_family: BTreeMap<String, [f64; 2]> = by_family.keys().map(|f| (f.clone(), [get(&random_by, f), get(&infeasible_by, f)])).collect();
    on_line(&format!("held-out baselines: random {:.1} %, always terminate(infeasible) {:.1} %", random * 100.0, infeasible * 100.0));
    on_line(&format!("  {:<34} {:>8} {:>8} {:>8} {:>8} {:>8}", "family", "before", "warm-up", "RL", "random", "infeas."));
    for (f, [b, w, r]) in &by_family {
        let [rb, ib] = baselines_by_family.get(f).copied().unwrap_or_default();
        on_line(&format!("  {f:<34} {:>6.1} % {:>6.1} % {:>6.1} % {:>6.1} % {:>6.1} %", b * 100.0, w * 100.0, r * 100.0, rb * 100.0, ib * 100.0));
    }
    // The headline counts only families no constant policy solves at all, weighted by their
    // held-out tasks.
    let tasks_of = |f: &str| test.iter().filter(|t| t.family == f).count() as f64;
    let fair: Vec<String> = by_family.keys().filter(|f| baselines_by_family.get(*f).is_some_and(|[r, i]| *r == 0.0 && *i == 0.0)).cloned().collect();
    let weight: f64 = fair.iter().map(|f| tasks_of(f)).sum();
    let gain_from = |k: usize| if weight == 0.0 { 0.0 } else { fair.iter().map(|f| (by_family[f][2] - by_family[f][k]) * tasks_of(f)).sum::<f64>() / weight };
    let (gain, rl_gain) = (gain_from(0), gain_from(1));
    on_line(&format!(
        "gain where constant policies fail ({} families, {} tasks): {:+.1} points in all, {:+.1} from RL",
        fair.len(),
        weight as usize,
        gain * 100.0,
        rl_gain * 100.0
    ));
    Ok(RecipeReport {
        test_tasks: test.len(),
        before_warmup: cp.before,
        after_warmup: cp.after_warmup,
        after_rl,
        warmup_decisions: cp.warmup_decisions,
        curve: cp.curve,
        by_family,
        validation_tasks: validation.len(),
        validation_after_rl,
        random,
        always_infeasible: infeasible,
        baselines_by_family,
        gain_where_constants_fail: gain,
        rl_gain_where_constants_fail: rl_gain,
        families_where_constants_fail: fair.len(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Held-out success before the warm-up, the warm-up itself (behaviour cloning of collected
/// demonstrations), and held-out success after it.
#[allow(clippy::too_many_arguments)]
async fn warm_up(
    c: &LearnerConfig,
    train: &[TaskSpec],
    order: &[usize],
    test: &[TaskSpec],
    provider: &Arc<dyn EnvProvider>,
    store: &Option<Arc<Store>>,
    on_line: &dyn Fn(&str),
) -> Result<(Checkpoint, Model), String> {
    let mut model = Model::default();
    let (before, families_before) = success(&model, test, provider, c, store).await?;
    on_line(&format!("held-out success before warm-up: {:.1} % ({} tasks)", before * 100.0, test.len()));
    let warm: Vec<TaskSpec> = order.iter().take(c.warmup_tasks).map(|i| train[*i].clone()).collect();
    // Demonstrations from a `guigym collect` folder when one is named, else collected here
    // the same way from the warm-up tasks' walkthroughs.
    let records = match &c.warmup_from {
        Some(dir) => {
            let path = std::path::Path::new(dir);
            demos::read(&if path.is_dir() { path.join("steps.jsonl") } else { path.to_path_buf() })?
        }
        None => collect(&warm, provider, c, store).await?,
    };
    let demos = decisions(&records);
    let demonstrated: std::collections::BTreeSet<&str> = records.iter().map(|r| r.trajectory_id.as_str()).collect();
    for _ in 0..c.warmup_epochs {
        for d in &demos {
            model.step_logprob(&d.candidates, d.chosen, c.warmup_lr);
        }
    }
    let (after_warmup, families_warm) = success(&model, test, provider, c, store).await?;
    on_line(&format!(
        "held-out success after warm-up: {:.1} % ({} demonstrated steps from {} trajectories)",
        after_warmup * 100.0,
        demos.len(),
        demonstrated.len()
    ));
    let cp = Checkpoint { next_round: 0, before, after_warmup, families_before, families_warm, warmup_decisions: demos.len(), curve: Vec::new() };
    Ok((cp, model))
}

/// Success, or partial credit for the checks a clean attempt passed.
fn reward(v: &guigym_core::Verdict, progress_weight: f32) -> f64 {
    if v.success {
        1.0
    } else if v.unexpected_side_effects.is_empty() {
        (progress_weight * v.progress) as f64
    } else {
        0.0
    }
}

#[derive(Default)]
struct Attempts(std::sync::Mutex<Vec<guigym_core::Attempt>>);

impl Progress for Attempts {
    fn attempt_done(&self, a: &guigym_core::Attempt, _prompts: &[guigym_harness::Prompt]) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(a.clone());
    }
}
