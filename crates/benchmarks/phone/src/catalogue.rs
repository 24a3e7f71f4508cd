//! The catalogue as a phone benchmark (`phone`): its suites, its tasks by id, and how the
//! phone backends set up, complete and judge them.

use guigym_core::{Benchmark, TaskSpec, Verdict};
use guigym_phone::benchmark::{PhoneBenchmark, PhoneBenchmarks};
use guigym_phone::DeviceState;

use crate::EpisodeLog;

/// The catalogue alone, as a phone backend hosts it (tests and tools that need no registry).
pub fn hosted() -> PhoneBenchmarks {
    PhoneBenchmarks::new([&CATALOGUE as &'static dyn PhoneBenchmark])
}

/// The catalogue: 85 task families over 17 apps in generated worlds.
pub struct Catalogue;

pub static CATALOGUE: Catalogue = Catalogue;

impl Catalogue {
    fn family(task: &TaskSpec) -> Result<&'static dyn crate::Family, String> {
        crate::family(&task.family).ok_or_else(|| format!("unknown task family \"{}\"", task.family))
    }
}

impl Benchmark for Catalogue {
    fn name(&self) -> &str {
        "phone"
    }
    fn suites(&self) -> Vec<String> {
        crate::SUITES.iter().map(|s| s.to_string()).collect()
    }
    fn suite(&self, name: &str) -> Result<Vec<TaskSpec>, String> {
        crate::suite(name).ok_or_else(|| format!("the phone catalogue has no suite \"{name}\""))
    }
    fn task(&self, id: &str) -> Option<TaskSpec> {
        crate::find_task(id)
    }
    fn split(&self, task: &TaskSpec) -> Option<String> {
        serde_json::to_value(crate::split_of(task)).ok()?.as_str().map(str::to_string)
    }
    fn audit_cases(&self, task: &TaskSpec) -> Vec<guigym_core::AuditCase> {
        crate::audit::cases(task)
    }
}

impl PhoneBenchmark for Catalogue {
    fn initial_state(&self, task: &TaskSpec) -> Result<DeviceState, String> {
        crate::initial_state(task)
    }
    fn golden(&self, task: &TaskSpec, state: &mut DeviceState, log: &mut EpisodeLog) -> Result<(), String> {
        Self::family(task)?.golden(&task.params, state, log);
        Ok(())
    }
    fn verify(&self, task: &TaskSpec, initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict {
        match Self::family(task) {
            Ok(family) => crate::verify(family, &task.params, initial, last, log),
            Err(_) => Verdict::default(),
        }
    }
    /// Opening an email (marking it read) changes nothing a question could come too late for.
    fn changed(&self, initial: &DeviceState, now: &DeviceState) -> bool {
        !crate::data_changes(initial, now).is_empty()
    }
}
