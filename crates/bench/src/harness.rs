//! The harness: prefix-cache hits, prompt and training tokens and overhead per step, for
//! window-wise against last-k history on the same trajectories.

use anyhow::anyhow;
use guigym_benchmark_phone as tasks;
use guigym_core::{Action, Screen};
use guigym_harness::accounting::{replay, Replay};
use guigym_harness::tokenizer::{locate, Tokenizer};
use guigym_harness::{GoldenPolicy, Harness, HarnessConfig, HistoryPolicy, ObservationMode};
use guigym_rollout::{new_trajectory_id, run_attempt, Recorder};
use guigym_sim::SimEnv;
use serde::Serialize;

use crate::percentile;

pub struct Settings {
    /// Trajectories to replay (the longest tasks, played by the golden policy).
    pub trajectories: usize,
    /// What the model is shown.
    pub observation: ObservationMode,
    /// Qwen tokenizer.json; `None` finds the one scripts/setup.sh fetched.
    pub tokenizer: Option<std::path::PathBuf>,
}

/// Each step's observation and action, as `run_attempt` reports them.
#[derive(Default)]
struct ObservedSteps(Vec<(guigym_core::Observation, String)>);

impl Recorder for ObservedSteps {
    fn step(&mut self, step: &guigym_core::Step, _png: Option<&[u8]>) {
        let action = step.action.as_ref().map(Action::to_json).unwrap_or_default();
        self.0.push((guigym_core::Observation::default(), action));
    }

    fn prompt(&mut self, _prompt: &guigym_harness::Prompt, observation: &guigym_core::Observation) {
        if let Some(last) = self.0.last_mut() {
            last.0 = observation.clone();
        }
    }
}

#[derive(Serialize)]
struct HistoryFigures {
    history: String,
    prefix_cache_hit_rate: f64,
    mean_prompt_tokens_per_step: f64,
    packed_training_tokens_per_trajectory: f64,
    per_step_training_tokens_per_trajectory: f64,
    overhead_p50_ms: f64,
    overhead_p99_ms: f64,
    overhead_mean_ms: f64,
}

#[derive(Serialize)]
pub struct HarnessFigures {
    trajectories: usize,
    steps: usize,
    observation: String,
    tokenizer: String,
    policies: Vec<HistoryFigures>,
    /// Window-packed training tokens against last-k's one sequence per step.
    training_token_change: f64,
}

pub async fn run(s: &Settings) -> anyhow::Result<HarnessFigures> {
    let (n, observation) = (s.trajectories.max(1), s.observation);
    let path = locate(s.tokenizer.as_deref())?;
    let tok = Tokenizer::load(&path)?;
    let mut tasks = tasks::suite("all").ok_or_else(|| anyhow!("the all suite is missing"))?;
    // The longest walkthroughs first: history policies differ on long trajectories.
    tasks.sort_by_key(|t| std::cmp::Reverse(t.difficulty));
    tasks.truncate(n);
    // The golden policy plays each task through the one rollout path; the recorder keeps what
    // the harness is then replayed on: each step's observation and action.
    let harness = Harness::new(HarnessConfig { observation, ..HarnessConfig::default() });
    let mut recorded: Vec<(String, Vec<(guigym_core::Observation, String)>)> = Vec::new();
    for task in &tasks {
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        let mut policy = GoldenPolicy::new(task.walkthrough.clone());
        let mut steps = ObservedSteps::default();
        run_attempt(&mut env, task, &mut policy, &harness, 0, &new_trajectory_id(), &mut steps).await.map_err(|e| anyhow!("{}: {e}", task.id))?;
        recorded.push((task.instruction.clone(), steps.0));
    }
    let total_steps: usize = recorded.iter().map(|r| r.1.len()).sum();
    let mut policies = Vec::new();
    for (name, history) in [("window (k=10, o=2)", HistoryPolicy::Window { k: 10, o: 2 }), ("last_k (k=5)", HistoryPolicy::LastK { k: 5 })] {
        let config = HarnessConfig { history, observation, ..HarnessConfig::default() };
        let replays: Vec<Replay> = recorded.iter().map(|(instr, steps)| replay(&config, instr, steps, &tok)).collect();
        let prompt: usize = replays.iter().flat_map(|r| &r.prompt_tokens).sum();
        let cached: usize = replays.iter().flat_map(|r| &r.cached_tokens).sum();
        let mut overhead: Vec<f64> = replays.iter().flat_map(|r| r.overhead_ms.iter().copied()).collect();
        let mean = overhead.iter().sum::<f64>() / overhead.len().max(1) as f64;
        policies.push(HistoryFigures {
            history: name.to_string(),
            prefix_cache_hit_rate: cached as f64 / prompt.max(1) as f64,
            mean_prompt_tokens_per_step: prompt as f64 / total_steps.max(1) as f64,
            packed_training_tokens_per_trajectory: replays.iter().map(|r| r.packed_training_tokens).sum::<usize>() as f64 / replays.len() as f64,
            per_step_training_tokens_per_trajectory: replays.iter().map(|r| r.per_step_training_tokens).sum::<usize>() as f64 / replays.len() as f64,
            overhead_p50_ms: percentile(&mut overhead, 50.0),
            overhead_p99_ms: percentile(&mut overhead, 99.0),
            overhead_mean_ms: mean,
        });
    }
    let training_token_change = policies[0].packed_training_tokens_per_trajectory / policies[1].per_step_training_tokens_per_trajectory.max(1.0) - 1.0;
    Ok(HarnessFigures {
        trajectories: recorded.len(),
        steps: total_steps,
        observation: format!("{observation:?}"),
        tokenizer: path.display().to_string(),
        policies,
        training_token_change,
    })
}

impl crate::Figures for HarnessFigures {
    fn text(&self) -> String {
        let mut out = format!(
            "{} trajectories, {} steps ({:.1} per trajectory), observation {}, tokenizer {}\n",
            self.trajectories,
            self.steps,
            self.steps as f64 / self.trajectories.max(1) as f64,
            self.observation,
            self.tokenizer
        );
        for p in &self.policies {
            out += &format!("  {}\n", p.history);
            out += &format!("    prefix-cache hit rate        {:>7.1} %\n", p.prefix_cache_hit_rate * 100.0);
            out += &format!("    prompt tokens per step       {:>9.0}\n", p.mean_prompt_tokens_per_step);
            out += &format!(
                "    training tokens / trajectory {:>9.0} packed   {:>9.0} one sequence per step\n",
                p.packed_training_tokens_per_trajectory, p.per_step_training_tokens_per_trajectory
            );
            out += &format!(
                "    harness overhead per step    p50 {:.3} ms  p99 {:.3} ms  mean {:.3} ms\n",
                p.overhead_p50_ms, p.overhead_p99_ms, p.overhead_mean_ms
            );
        }
        if let [window, last_k] = &self.policies[..] {
            out += &format!(
                "  window vs last_k: training tokens {:+.1} %, hit rate {:.1} % vs {:.1} % (paper: -84.7 %, 85.9 % vs 42.5 %)\n",
                self.training_token_change * 100.0,
                window.prefix_cache_hit_rate * 100.0,
                last_k.prefix_cache_hit_rate * 100.0
            );
        }
        out
    }
}
