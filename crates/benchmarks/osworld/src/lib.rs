//! OSWorld's task format on guigym's desktop: the format (`task`), its runner (`runner`: set-up
//! steps, getters, the evaluator), its metric functions reproduced with their exact semantics
//! (`metrics`, pinned by the parity fixture in `tests/parity/`), office files written from data
//! (`office`, for our own steps and getters), and the importer of OSWorld's own task files
//! (`import`), whose kept tasks are the `osworld` benchmark, with the files they download
//! fetched into OSWorld's cache layout (`assets`). Any benchmark whose tasks are in
//! this format (our desktop catalogue) is hosted through `set_up`, `golden` and `evaluate`.

pub mod assets;
pub mod audit;
pub mod chrome;
pub mod import;
pub mod loopback;
pub mod media;
pub mod metrics;
pub mod office;
pub mod pyautogui;
pub mod runner;
pub mod task;

use std::path::PathBuf;

use guigym_core::{EpisodeLog, TaskSpec, TerminateStatus, Verdict};
use guigym_desktop::instance::{Failure, Instance};
use serde_json::Value;

pub use import::{ImportedOsWorld, OSWORLD};
pub use runner::Runner;
pub use task::{ConfigStep, OsWorldTask};

/// What a task in this format carries in `TaskSpec::params`: the task as OSWorld writes it
/// (`task`), the asset cache it was imported against (`cache`), and for our catalogue a golden
/// (`golden`: steps that put the instance into the completed state).
pub fn task_of(spec: &TaskSpec) -> Result<(OsWorldTask, Vec<ConfigStep>), Failure> {
    let task: OsWorldTask = serde_json::from_value(spec.params.get("task").cloned().unwrap_or(Value::Null))
        .map_err(|e| Failure::BadTask(format!("{}: params.task: {e}", spec.id)))?;
    task.check().map_err(|e| Failure::BadTask(format!("{}: {e}", spec.id)))?;
    let golden = match spec.params.get("golden") {
        Some(g) => serde_json::from_value(g.clone()).map_err(|e| Failure::BadTask(format!("{}: params.golden: {e}", spec.id)))?,
        None => Vec::new(),
    };
    Ok((task, golden))
}

/// The asset cache for a task: the one it was imported against, else `GUIGYM_OSWORLD_CACHE`.
fn cache_of(spec: &TaskSpec) -> Option<PathBuf> {
    spec.params.get("cache").and_then(Value::as_str).map(PathBuf::from).or_else(|| std::env::var_os("GUIGYM_OSWORLD_CACHE").map(PathBuf::from))
}

fn runner<'a>(spec: &TaskSpec, task: &'a OsWorldTask, desktop: &'a mut Instance) -> Runner<'a> {
    Runner { desktop, task_id: &task.id, cache: cache_of(spec) }
}

/// Runs the task's set-up steps on a clean desktop.
pub fn set_up(spec: &TaskSpec, desktop: &mut Instance) -> Result<(), Failure> {
    let (task, _) = task_of(spec)?;
    let mut r = runner(spec, &task, desktop);
    for (i, step) in task.config.iter().enumerate() {
        r.run_step(step, &format!("config[{i}]"))?;
    }
    Ok(())
}

/// Plays the task's golden steps; an infeasible task is completed by declaring it so.
pub fn golden(spec: &TaskSpec, desktop: &mut Instance) -> Result<Option<TerminateStatus>, Failure> {
    let (task, golden) = task_of(spec)?;
    if task.is_infeasible() {
        return Ok(Some(TerminateStatus::Infeasible));
    }
    if golden.is_empty() {
        return Err(Failure::BadTask(format!("{}: no golden", spec.id)));
    }
    let mut r = runner(spec, &task, desktop);
    for (n, step) in golden.iter().enumerate() {
        r.run_step(step, &format!("golden[{n}]"))?;
    }
    Ok(None)
}

/// OSWorld's evaluator's verdict. OSWorld's FAIL is both "this cannot be done" and "I failed":
/// a `terminate` with either status counts. On an infeasible task an answer that reports it
/// done is a false claim, as on every platform.
pub fn evaluate(spec: &TaskSpec, desktop: &mut Instance, log: &EpisodeLog) -> Result<Verdict, Failure> {
    let (task, _) = task_of(spec)?;
    let declared_fail = matches!(log.terminated, Some(TerminateStatus::Infeasible | TerminateStatus::Failure));
    let mut verdict = runner(spec, &task, desktop).evaluate(&task, declared_fail)?;
    if task.is_infeasible() {
        if let Some(claim) = log.answers.iter().find(|a| !guigym_core::verdict::explains_impossibility(a)) {
            verdict = verdict.with_failed_check("no_false_claim", format!("the task cannot be done, yet the answer says {claim:?}"));
        }
    }
    Ok(verdict)
}
