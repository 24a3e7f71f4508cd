//! Eval figures from finished attempts: success rate, pass@n, pass^n, steps, false
//! completions, per family.

use std::collections::BTreeMap;

use guigym_core::Attempt;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FamilyReport {
    pub tasks: usize,
    pub attempts: usize,
    pub success_rate: f64,
    pub pass_at_n: f64,
    pub pass_hat_n: f64,
    pub mean_steps: f64,
    pub mean_progress: f64,
    pub false_complete: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    pub suite: String,
    pub policy: String,
    pub backend: String,
    pub tasks: usize,
    pub attempts_per_task: u32,
    /// Scored attempts (infrastructure failures that never ran through are left out).
    pub attempts: usize,
    pub success_rate: f64,
    /// Fraction of tasks with at least one success among their n attempts.
    pub pass_at_n: f64,
    /// Fraction of tasks whose n attempts all succeeded.
    pub pass_hat_n: f64,
    pub mean_steps: f64,
    pub mean_progress: f64,
    /// Attempts re-run because the infrastructure failed; never scored.
    pub infra_failures: usize,
    /// Attempts still failing for infrastructure reasons after every retry: not scored.
    pub unscored: usize,
    /// Terminated with success although the verifier says no.
    pub false_complete: usize,
    pub by_family: BTreeMap<String, FamilyReport>,
}

fn figures(attempts: &[&Attempt]) -> FamilyReport {
    let n = attempts.len().max(1) as f64;
    let mut by_task: BTreeMap<&str, Vec<bool>> = BTreeMap::new();
    for a in attempts {
        by_task.entry(&a.task_id).or_default().push(a.verdict.success);
    }
    let tasks = by_task.len().max(1) as f64;
    FamilyReport {
        tasks: by_task.len(),
        attempts: attempts.len(),
        success_rate: attempts.iter().filter(|a| a.verdict.success).count() as f64 / n,
        pass_at_n: by_task.values().filter(|v| v.iter().any(|s| *s)).count() as f64 / tasks,
        pass_hat_n: by_task.values().filter(|v| v.iter().all(|s| *s)).count() as f64 / tasks,
        mean_steps: attempts.iter().map(|a| a.trajectory.steps.len()).sum::<usize>() as f64 / n,
        mean_progress: attempts.iter().map(|a| a.verdict.progress as f64).sum::<f64>() / n,
        false_complete: attempts.iter().filter(|a| a.false_complete()).count(),
    }
}

impl EvalReport {
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        suite: &str,
        policy: &str,
        backend: &str,
        tasks: usize,
        attempts_per_task: u32,
        attempts: &[Attempt],
        infra_failures: usize,
        unscored: usize,
    ) -> EvalReport {
        let all: Vec<&Attempt> = attempts.iter().collect();
        let overall = figures(&all);
        let mut families: BTreeMap<&str, Vec<&Attempt>> = BTreeMap::new();
        for a in attempts {
            families.entry(&a.family).or_default().push(a);
        }
        EvalReport {
            suite: suite.to_string(),
            policy: policy.to_string(),
            backend: backend.to_string(),
            tasks,
            attempts_per_task,
            attempts: attempts.len(),
            success_rate: overall.success_rate,
            pass_at_n: overall.pass_at_n,
            pass_hat_n: overall.pass_hat_n,
            mean_steps: overall.mean_steps,
            mean_progress: overall.mean_progress,
            infra_failures,
            unscored,
            false_complete: overall.false_complete,
            by_family: families.into_iter().map(|(f, a)| (f.to_string(), figures(&a))).collect(),
        }
    }

    /// A plain-text table, per family and overall.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<36} {:>5} {:>8} {:>8} {:>8} {:>8} {:>6}\n",
            "family", "tasks", "success", "pass@n", "pass^n", "steps", "false+"
        );
        let row = |name: &str, f: &FamilyReport| {
            format!(
                "{:<36} {:>5} {:>7.1}% {:>7.1}% {:>7.1}% {:>8.1} {:>6}\n",
                name,
                f.tasks,
                f.success_rate * 100.0,
                f.pass_at_n * 100.0,
                f.pass_hat_n * 100.0,
                f.mean_steps,
                f.false_complete
            )
        };
        for (name, f) in &self.by_family {
            out.push_str(&row(name, f));
        }
        let overall = FamilyReport {
            tasks: self.tasks,
            attempts: self.attempts,
            success_rate: self.success_rate,
            pass_at_n: self.pass_at_n,
            pass_hat_n: self.pass_hat_n,
            mean_steps: self.mean_steps,
            mean_progress: self.mean_progress,
            false_complete: self.false_complete,
        };
        out.push_str(&"-".repeat(86));
        out.push('\n');
        out.push_str(&row("overall", &overall));
        out.push_str(&format!(
            "suite {} · policy {} · backend {} · {} attempts per task · infra failures {} (re-run) · unscored {}\n",
            self.suite, self.policy, self.backend, self.attempts_per_task, self.infra_failures, self.unscored
        ));
        out
    }
}
