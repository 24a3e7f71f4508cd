//! Benchmarks: named collections of tasks in suites. A backend declares which benchmarks it
//! hosts; how a benchmark's tasks are set up and judged is said through the interface of the
//! platform that hosts them (`guigym_phone::benchmark::PhoneBenchmark` for the simulated phone;
//! a web page's own reward for MiniWoB++).

use crate::{Action, TaskSpec};

/// A solution derived from a task's walkthrough for the mutation audit of its verifier, and
/// what the verifier must say of it: right solutions (`must_pass`) must pass, wrong ones fail.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditCase {
    /// The rule it tests (`answer_hedged`, `side_effect_elsewhere`, …).
    pub rule: &'static str,
    pub must_pass: bool,
    pub actions: Vec<Action>,
}

/// A benchmark as every command sees it: its name, its suites and its tasks.
pub trait Benchmark: Send + Sync {
    /// The name tasks carry in `TaskSpec::benchmark`.
    fn name(&self) -> &str;
    fn suites(&self) -> Vec<String>;
    /// The tasks of a suite of this benchmark; the error says why they cannot be had here
    /// (an unknown suite, a benchmark whose files are not installed).
    fn suite(&self, name: &str) -> Result<Vec<TaskSpec>, String>;
    /// One task by id.
    fn task(&self, id: &str) -> Option<TaskSpec>;
    /// The split a task belongs to (`train`, `test`, …), where the benchmark has splits.
    fn split(&self, _task: &TaskSpec) -> Option<String> {
        None
    }
    /// The audit's cases that only the benchmark knows how to make (its tasks' parameters, its
    /// apps): a side effect elsewhere, a wrong or hedged answer, a question asked too late, …
    /// The audit adds the cases any walkthrough gives.
    fn audit_cases(&self, _task: &TaskSpec) -> Vec<AuditCase> {
        Vec::new()
    }
}
