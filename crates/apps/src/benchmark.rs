//! Benchmarks on the simulated phone. Every backend that hosts the phone (the `sim` backend
//! in-process, the `web` backend in Chromium) hosts every benchmark registered here: the
//! backend asks the task's benchmark for the device state to start from, for its golden, and
//! for the verdict on the episode. The catalogue (`phone`: worlds, 85 families, their
//! verifiers) is registered from the start; another benchmark is one module implementing
//! `PhoneBenchmark` and one call to `register`.

use std::sync::RwLock;

use guigym_core::{Benchmark, TaskSpec, Verdict};

use crate::tasks::{self, EpisodeLog};
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

/// Every phone benchmark: the catalogue first, then the registered ones in order.
pub fn all() -> Vec<&'static dyn PhoneBenchmark> {
    let registered = REGISTRY.read().unwrap_or_else(|p| p.into_inner());
    std::iter::once(&CATALOGUE as &'static dyn PhoneBenchmark).chain(registered.iter().copied().filter(|b| b.name() != CATALOGUE.name())).collect()
}

/// The phone benchmark of that name.
pub fn find(name: &str) -> Option<&'static dyn PhoneBenchmark> {
    all().into_iter().find(|b| b.name() == name)
}

/// The catalogue: 85 task families over 17 apps in generated worlds.
pub struct Catalogue;

pub static CATALOGUE: Catalogue = Catalogue;

impl Catalogue {
    fn family(task: &TaskSpec) -> Result<&'static dyn tasks::Family, String> {
        tasks::family(&task.family).ok_or_else(|| format!("unknown task family \"{}\"", task.family))
    }
}

impl Benchmark for Catalogue {
    fn name(&self) -> &str {
        "phone"
    }
    fn suites(&self) -> Vec<String> {
        tasks::SUITES.iter().map(|s| s.to_string()).collect()
    }
    fn suite(&self, name: &str) -> Result<Vec<TaskSpec>, String> {
        tasks::suite(name).ok_or_else(|| format!("the phone catalogue has no suite \"{name}\""))
    }
    fn task(&self, id: &str) -> Option<TaskSpec> {
        tasks::find_task(id)
    }
    fn split(&self, task: &TaskSpec) -> Option<String> {
        serde_json::to_value(tasks::split_of(task)).ok()?.as_str().map(str::to_string)
    }
}

impl PhoneBenchmark for Catalogue {
    fn initial_state(&self, task: &TaskSpec) -> Result<DeviceState, String> {
        tasks::initial_state(task)
    }
    fn golden(&self, task: &TaskSpec, state: &mut DeviceState, log: &mut EpisodeLog) -> Result<(), String> {
        Self::family(task)?.golden(&task.params, state, log);
        Ok(())
    }
    fn verify(&self, task: &TaskSpec, initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict {
        match Self::family(task) {
            Ok(family) => tasks::verify(family, &task.params, initial, last, log),
            Err(_) => Verdict::default(),
        }
    }
}
