//! Eval figures from finished attempts: success rate, pass@n, pass^n, steps, false
//! completions, per family.

use std::collections::BTreeMap;

use guigym_core::{Attempt, TaskSpec};
use serde::{Deserialize, Serialize};

/// An attempt that never ran through and is not in any denominator, with why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unscored {
    pub task_id: String,
    pub family: String,
    pub attempt_index: u32,
    /// `policy_unavailable`, `environment`, `panic`, `not_run`.
    pub reason: String,
    /// The last error, as it was reported.
    pub detail: String,
}

impl Unscored {
    pub fn new(task: &TaskSpec, attempt_index: u32, reason: &str, detail: &str) -> Unscored {
        Unscored {
            task_id: task.id.clone(),
            family: task.family.clone(),
            attempt_index,
            reason: reason.to_string(),
            detail: detail.chars().take(500).collect(),
        }
    }
}

/// Token counts summed over steps, as the servers reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenTotals {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cached_tokens: u64,
    /// Steps whose server reported no usage at all.
    pub steps_without_usage: u64,
    /// Steps whose usage report was inconsistent (see `TokenUsage::anomaly`).
    pub usage_anomalies: u64,
}

impl TokenTotals {
    /// The totals of these steps.
    pub fn of<'a>(steps: impl IntoIterator<Item = &'a guigym_core::Step>) -> TokenTotals {
        let mut t = TokenTotals::default();
        for s in steps {
            t.add(s.usage.as_ref());
        }
        t
    }

    pub fn add(&mut self, usage: Option<&guigym_core::TokenUsage>) {
        match usage {
            Some(u) => {
                self.prompt_tokens = self.prompt_tokens.saturating_add(u.prompt_tokens);
                self.completion_tokens = self.completion_tokens.saturating_add(u.completion_tokens);
                self.cached_tokens = self.cached_tokens.saturating_add(u.cached_tokens.unwrap_or(0));
                self.usage_anomalies += u.anomaly.is_some() as u64;
            }
            None => self.steps_without_usage += 1,
        }
    }

    /// Adds another total (saturating, as `add` does, so every place that sums agrees).
    pub fn merge(&mut self, other: &TokenTotals) {
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self.completion_tokens.saturating_add(other.completion_tokens);
        self.cached_tokens = self.cached_tokens.saturating_add(other.cached_tokens);
        self.steps_without_usage = self.steps_without_usage.saturating_add(other.steps_without_usage);
        self.usage_anomalies = self.usage_anomalies.saturating_add(other.usage_anomalies);
    }
}

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
    /// Attempts left out of the figures above, because they never ran through.
    #[serde(default)]
    pub unscored: usize,
    /// Tries re-run after infrastructure failures.
    #[serde(default)]
    pub infra_retries: usize,
    /// Scored attempts that ended because the prompt outgrew the model's context.
    #[serde(default)]
    pub context_length: usize,
    /// Scored attempts that ended because the agent broke its instance (failures).
    #[serde(default)]
    pub broken: usize,
    #[serde(default)]
    pub tokens: TokenTotals,
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
    /// Unscored attempts per reason.
    #[serde(default)]
    pub unscored_reasons: BTreeMap<String, usize>,
    /// Every unscored attempt, with its reason and last error.
    #[serde(default)]
    pub unscored_attempts: Vec<Unscored>,
    /// Scored attempts that ended because the prompt outgrew the model's context.
    #[serde(default)]
    pub context_length: usize,
    /// Scored attempts that ended because the agent's doing broke its instance (a program
    /// holding the display, a page that never answers, memory past the budget): failures,
    /// never re-run.
    #[serde(default)]
    pub broken: usize,
    #[serde(default)]
    pub tokens: TokenTotals,
    /// What the policy says of its servers (endpoints marked down, failovers).
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub policy_health: serde_json::Value,
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
        unscored: 0,
        infra_retries: 0,
        context_length: attempts.iter().filter(|a| a.ended_by.as_deref() == Some(crate::attempt::CONTEXT_LENGTH)).count(),
        broken: attempts.iter().filter(|a| a.ended_by.as_deref() == Some(crate::attempt::BROKEN)).count(),
        tokens: TokenTotals::of(attempts.iter().flat_map(|a| &a.trajectory.steps)),
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
        infra_by_family: &BTreeMap<String, usize>,
        unscored: Vec<Unscored>,
    ) -> EvalReport {
        let all: Vec<&Attempt> = attempts.iter().collect();
        let overall = figures(&all);
        let mut families: BTreeMap<&str, Vec<&Attempt>> = BTreeMap::new();
        for a in attempts {
            families.entry(&a.family).or_default().push(a);
        }
        for u in &unscored {
            families.entry(&u.family).or_default();
        }
        for f in infra_by_family.keys() {
            families.entry(f).or_default();
        }
        let by_family: BTreeMap<String, FamilyReport> = families
            .into_iter()
            .map(|(f, a)| {
                let mut r = figures(&a);
                r.unscored = unscored.iter().filter(|u| u.family == f).count();
                r.infra_retries = infra_by_family.get(f).copied().unwrap_or(0);
                r.tasks = r.tasks.max(unscored.iter().filter(|u| u.family == f).map(|u| &u.task_id).collect::<std::collections::BTreeSet<_>>().len());
                (f.to_string(), r)
            })
            .collect();
        let mut unscored_reasons = BTreeMap::new();
        for u in &unscored {
            *unscored_reasons.entry(u.reason.clone()).or_default() += 1;
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
            infra_failures: infra_by_family.values().sum(),
            unscored: unscored.len(),
            unscored_reasons,
            unscored_attempts: unscored,
            context_length: overall.context_length,
            broken: overall.broken,
            tokens: overall.tokens,
            policy_health: serde_json::Value::Null,
            false_complete: overall.false_complete,
            by_family,
        }
    }

    /// A plain-text table, per family and overall.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<36} {:>5} {:>8} {:>8} {:>8} {:>8} {:>6} {:>8} {:>6}\n",
            "family", "tasks", "success", "pass@n", "pass^n", "steps", "false+", "unscored", "infra"
        );
        let row = |name: &str, f: &FamilyReport| {
            format!(
                "{:<36} {:>5} {:>7.1}% {:>7.1}% {:>7.1}% {:>8.1} {:>6} {:>8} {:>6}\n",
                name,
                f.tasks,
                f.success_rate * 100.0,
                f.pass_at_n * 100.0,
                f.pass_hat_n * 100.0,
                f.mean_steps,
                f.false_complete,
                f.unscored,
                f.infra_retries
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
            unscored: self.unscored,
            infra_retries: self.infra_failures,
            context_length: self.context_length,
            broken: self.broken,
            tokens: self.tokens,
        };
        out.push_str(&"-".repeat(102));
        out.push('\n');
        out.push_str(&row("overall", &overall));
        out.push_str(&format!(
            "suite {} · policy {} · backend {} · {} attempts per task · scored {} · unscored {} · infra failures {} (re-run)\n",
            self.suite, self.policy, self.backend, self.attempts_per_task, self.attempts, self.unscored, self.infra_failures
        ));
        if self.context_length > 0 {
            out.push_str(&format!("{} attempts ended at the model's context length (scored as failures)\n", self.context_length));
        }
        if self.broken > 0 {
            out.push_str(&format!("{} attempts ended because the agent broke its instance (scored as failures, not re-run)\n", self.broken));
        }
        let t = &self.tokens;
        out.push_str(&format!(
            "tokens: prompt {} (cached {}) · completion {}{}\n",
            t.prompt_tokens,
            t.cached_tokens,
            t.completion_tokens,
            if t.usage_anomalies > 0 { format!(" · {} usage reports inconsistent", t.usage_anomalies) } else { String::new() }
        ));
        if !self.unscored_attempts.is_empty() {
            out.push_str(&format!("UNSCORED ({}): not in the success rate above\n", self.unscored));
            for u in self.unscored_attempts.iter().take(10) {
                out.push_str(&format!("  {} #{} {}: {}\n", u.task_id, u.attempt_index, u.reason, u.detail));
            }
            if self.unscored_attempts.len() > 10 {
                out.push_str(&format!("  … and {} more (see the JSON report)\n", self.unscored_attempts.len() - 10));
            }
        }
        if let Some(down) = self.policy_health.get("endpoints_marked_down").and_then(|d| d.as_array()).filter(|d| !d.is_empty()) {
            out.push_str(&format!("endpoints marked down during the run: {}\n", down.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")));
        }
        out
    }
}
