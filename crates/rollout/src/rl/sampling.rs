//! Policy-adaptive task sampling: spend attempts where outcomes are mixed. A task solved in
//! more than η of its attempts is mastered and gets a small budget; a task never solved gets
//! a small budget too; the rest get the full group.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SamplingConfig {
    /// Success fraction above which a task counts as mastered.
    pub eta: f64,
    pub group_size: usize,
    pub mastered_budget: usize,
    pub unsolved_budget: usize,
    /// Attempts a task needs before it can be called mastered or never solved.
    pub min_attempts: u64,
}

impl Default for SamplingConfig {
    fn default() -> SamplingConfig {
        SamplingConfig { eta: 0.8, group_size: 8, mastered_budget: 2, unsolved_budget: 4, min_attempts: 4 }
    }
}

/// A task's running record.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskStats {
    pub attempts: u64,
    pub successes: u64,
}

impl TaskStats {
    pub fn success_rate(&self) -> f64 {
        if self.attempts == 0 {
            0.0
        } else {
            self.successes as f64 / self.attempts as f64
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AdaptiveSampler {
    pub config: SamplingConfig,
    pub stats: BTreeMap<String, TaskStats>,
}

impl AdaptiveSampler {
    pub fn new(config: SamplingConfig) -> AdaptiveSampler {
        AdaptiveSampler { config, stats: BTreeMap::new() }
    }

    /// Attempts to spend on a task this round.
    pub fn budget(&self, task: &str) -> usize {
        let s = self.stats.get(task).copied().unwrap_or_default();
        let c = &self.config;
        if s.attempts < c.min_attempts {
            c.group_size
        } else if s.success_rate() > c.eta {
            c.mastered_budget
        } else if s.successes == 0 {
            c.unsolved_budget
        } else {
            c.group_size
        }
    }

    pub fn record(&mut self, task: &str, success: bool) {
        let s = self.stats.entry(task.to_string()).or_default();
        s.attempts += 1;
        s.successes += success as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_follow_the_running_success_rate() {
        let mut s = AdaptiveSampler::new(SamplingConfig::default());
        assert_eq!(s.budget("new"), 8, "unknown tasks get the full group");
        for _ in 0..8 {
            s.record("easy", true);
            s.record("hard", false);
        }
        for i in 0..8 {
            s.record("mixed", i % 2 == 0);
        }
        assert_eq!(s.budget("easy"), 2);
        assert_eq!(s.budget("hard"), 4);
        assert_eq!(s.budget("mixed"), 8);
        // Exactly η is not mastered: "more than η".
        let mut t = AdaptiveSampler::new(SamplingConfig { eta: 0.5, ..SamplingConfig::default() });
        for i in 0..4 {
            t.record("half", i < 2);
        }
        assert_eq!(t.budget("half"), 8);
    }
}
