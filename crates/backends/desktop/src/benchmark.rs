//! Benchmarks on the desktop. The desktop backend is given the desktop benchmarks it hosts
//! (`DesktopBenchmarks`, built once by the binary's registry): at a reset it makes a clean
//! desktop and asks the task's benchmark to set it up; it asks for the golden, and for the
//! verdict on the episode, given the desktop as the agent left it and the episode's log.
//! Another benchmark is one module implementing `DesktopBenchmark` and one line in the
//! registry.

use guigym_core::{Benchmark, EpisodeLog, TaskSpec, TerminateStatus, Verdict};

use crate::instance::{Failure, Instance};

pub trait DesktopBenchmark: Benchmark {
    /// Puts a clean desktop (just reset) into the task's initial state: files, applications.
    fn set_up(&self, task: &TaskSpec, desktop: &mut Instance) -> Result<(), Failure>;
    /// Puts the desktop straight into the task's completed state. `Some(status)`: the task is
    /// completed by the agent's declaration alone (an infeasible one: `terminate(infeasible)`).
    fn golden(&self, task: &TaskSpec, desktop: &mut Instance) -> Result<Option<TerminateStatus>, Failure>;
    /// The verdict on the episode: the desktop as the agent left it, and the episode's log.
    fn evaluate(&self, task: &TaskSpec, desktop: &mut Instance, log: &EpisodeLog) -> Result<Verdict, Failure>;
}

/// The desktop benchmarks a desktop backend hosts.
pub type DesktopBenchmarks = guigym_core::Hosted<dyn DesktopBenchmark>;
