//! Benchmarks: named collections of tasks in suites. How a benchmark's tasks are set up and
//! judged is said through the interface of the platform that plays them
//! (`guigym_phone::benchmark::PhoneBenchmark`, `guigym_web::PageBenchmark`,
//! `guigym_desktop::DesktopBenchmark`); a backend is given the benchmarks it hosts as one
//! `Hosted` value of its platform's interface.

use std::sync::Arc;

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

/// The benchmarks of one platform a backend hosts (`Hosted<dyn PhoneBenchmark>`, …): a value the
/// binary builds in one place (its registry) and hands to each backend of that platform.
pub struct Hosted<B: ?Sized + 'static>(Arc<[&'static B]>);

impl<B: ?Sized + Benchmark + 'static> Hosted<B> {
    pub fn new(benchmarks: impl IntoIterator<Item = &'static B>) -> Hosted<B> {
        Hosted(benchmarks.into_iter().collect())
    }

    /// The benchmark of that name.
    pub fn find(&self, name: &str) -> Option<&'static B> {
        self.0.iter().copied().find(|b| b.name() == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &'static B> + '_ {
        self.0.iter().copied()
    }

    /// The names, for a message that says what is hosted.
    pub fn names(&self) -> Vec<&str> {
        self.0.iter().map(|b| b.name()).collect()
    }
}

// By hand: a derive would ask `B: Clone` / `B: Default`, which a trait object is not.
impl<B: ?Sized> Clone for Hosted<B> {
    fn clone(&self) -> Self {
        Hosted(self.0.clone())
    }
}

impl<B: ?Sized> Default for Hosted<B> {
    fn default() -> Self {
        Hosted(Arc::from(Vec::new()))
    }
}

impl<B: ?Sized + Benchmark> std::fmt::Debug for Hosted<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().map(|b| b.name())).finish()
    }
}
