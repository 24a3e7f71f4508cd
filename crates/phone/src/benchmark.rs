//! Benchmarks on the simulated phone. Every backend that hosts the phone (the `sim` backend
//! in-process, the `web` backend in Chromium) is given the phone benchmarks it hosts
//! (`PhoneBenchmarks`, built once by the binary's registry): it asks the task's benchmark for
//! the device state to start from, for its golden, and for the verdict on the episode, given
//! the episode's log. Another benchmark is one module implementing `PhoneBenchmark` and one
//! line in the registry.

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
    /// Whether the agent changed the device's data since the reset (a question asked after a
    /// change comes too late): any change of app data, unless the benchmark says otherwise.
    fn changed(&self, initial: &DeviceState, now: &DeviceState) -> bool {
        initial.data != now.data
    }
}

/// The phone benchmarks a backend hosts.
pub type PhoneBenchmarks = guigym_core::Hosted<dyn PhoneBenchmark>;
