//! Benchmarks: named collections of tasks in suites. A backend declares which benchmarks it
//! hosts; how a benchmark's tasks are set up and judged is said through the interface of the
//! platform that hosts them (`guigym_phone::benchmark::PhoneBenchmark` for the simulated phone;
//! a web page's own reward for MiniWoB++).

use crate::TaskSpec;

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
}
