//! Benchmarks whose tasks are web pages that judge themselves (MiniWoB++): the web backend
//! serves each benchmark's files on its loopback server (`/bench/<name>/…`), opens a task's
//! page at the benchmark's viewport, resets the page's episode in place with the benchmark's
//! script, and reads the page's reward with another. Another such benchmark is one module
//! implementing `PageBenchmark` and one line in the binary's registry.

use std::path::PathBuf;

use guigym_core::{Benchmark, TaskSpec};

pub trait PageBenchmark: Benchmark {
    /// The folder whose files make the benchmark's pages, where it is installed (`None`: not
    /// on this machine; its tasks are then bad tasks here, with `missing` as the reason).
    fn files(&self) -> Option<PathBuf>;
    /// Why the files are not there, and how to get them.
    fn missing(&self) -> String;
    /// The task's page, a path inside `files`.
    fn page(&self, task: &TaskSpec) -> Result<String, String>;
    /// The viewport its pages are shown at, in pixels (the screenshot's size).
    fn viewport(&self) -> (u32, u32);
    /// A script that resets the page's episode in place for the task; it evaluates to `false`
    /// while the page is still getting ready.
    fn reset_script(&self, task: &TaskSpec) -> String;
    /// A script that evaluates to `[raw reward, done, reason]`: success is a positive reward.
    fn reward_script(&self) -> String;
    /// A script whose value is the page's whole state (for the state hash).
    fn state_script(&self) -> String;
}

/// The page benchmarks a web backend hosts.
pub type PageBenchmarks = guigym_core::Hosted<dyn PageBenchmark>;
