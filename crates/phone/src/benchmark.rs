//! Benchmarks on the simulated phone. Every backend that hosts the phone (the `sim` backend
//! in-process, the `web` backend in Chromium) hosts the catalogue (`guigym_tasks`) and every
//! benchmark registered here: the backend asks the task's benchmark for the device state to
//! start from, for its golden, and for the verdict on the episode, given the episode's log.
//! Another benchmark is one module implementing `PhoneBenchmark` and one call to `register`.

use std::sync::RwLock;

use guigym_core::{Benchmark, TaskSpec, Verdict};

pub use guigym_core::EpisodeLog;

use crate::DeviceState;

/// A benchmark whose tasks run on the simulated phone.
pub trait PhoneBenchmark: Benchmark {
    /// The device state the task starts from.
    fn initial_state(&self, task: &TaskSpec) -> Result<DeviceState, String>;
    /// Puts the state (and the log) straight into the task's completed state; an error where
    /// the benchmark has no golden.
    fn golden(&self, task: &TaskSpec, state: &mut DeviceState, log: &mut EpisodeLog) -> Result<(), String>;
    /// The verdict on an episode: the final state against the initial one, and the log of what
    /// the agent answered, asked and declared.
    fn verify(&self, task: &TaskSpec, initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict;
}

static REGISTRY: RwLock<Vec<&'static dyn PhoneBenchmark>> = RwLock::new(Vec::new());

/// Adds a benchmark (or replaces the one of the same name).
pub fn register(benchmark: &'static dyn PhoneBenchmark) {
    let mut all = REGISTRY.write().unwrap_or_else(|p| p.into_inner());
    all.retain(|b| b.name() != benchmark.name());
    all.push(benchmark);
}

/// The registered phone benchmarks, in order.
pub fn all() -> Vec<&'static dyn PhoneBenchmark> {
    REGISTRY.read().unwrap_or_else(|p| p.into_inner()).clone()
}

/// The phone benchmark of that name.
pub fn find(name: &str) -> Option<&'static dyn PhoneBenchmark> {
    all().into_iter().find(|b| b.name() == name)
}
