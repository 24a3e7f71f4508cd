//! The phone catalogue: task families and suites over the simulated phone's apps and worlds.
//! A family turns a world and a seed into a task (instruction, hidden parameters, walkthrough)
//! and knows how to set it up, how to complete it directly (the golden) and how to judge it
//! (the verifier); `catalogue::CATALOGUE` is the whole of it as a phone benchmark.

use guigym_core::{Action, Rng, TaskSpec, TerminateStatus, Verdict};
use serde::{Deserialize, Serialize};

use guigym_phone::state::DeviceState;
use guigym_phone::world::World;

pub mod answer;
pub mod audit;
pub mod catalogue;
pub mod crossapp;
pub mod everyday;
pub mod families;
pub mod judge;
pub mod reasoning;
pub mod spec;

pub use catalogue::{hosted, CATALOGUE};

pub use guigym_phone::benchmark::EpisodeLog;

/// The app data paths that changed between two states, reading (emails marked read) aside:
/// what "the agent changed something" means for asking first and for infeasible tasks.
pub fn data_changes(initial: &DeviceState, now: &DeviceState) -> Vec<String> {
    judge::diff(&initial.data, &now.data).into_iter().filter(|p| !judge::is_reading(p)).collect()
}

/// A task before it is numbered.
#[derive(Debug, Clone)]
pub struct Draft {
    pub instruction: String,
    pub params: serde_json::Value,
    pub walkthrough: Vec<Action>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FamilyKind {
    /// Change state in one app.
    Action,
    /// Combine facts from one app with an action in another.
    CrossApp,
    /// Find a fact and report it with `answer`.
    Retrieval,
    /// Cannot be done: the right move is `terminate` with `infeasible`.
    Infeasible,
    /// Needs reasoning about dates relative to today ("the Friday after next").
    RelativeDate,
    /// Leaves out a detail only the user knows: the agent must `ask_user`.
    Interactive,
    /// A long walkthrough (20 steps or more).
    Long,
}

pub trait Family: Send + Sync {
    fn name(&self) -> &'static str;
    fn kind(&self) -> FamilyKind;
    /// Apps the task involves, in the order they are used.
    fn apps(&self) -> &'static [&'static str];
    /// A task in this world, or `None` when the world has nothing that fits.
    fn generate(&self, world: &World, state: &DeviceState, rng: &mut Rng) -> Option<Draft>;
    /// Extra setup on top of the world's state (most families need none).
    fn setup(&self, _params: &serde_json::Value, _state: &mut DeviceState) {}
    /// Puts the state (and the log) straight into the completed state.
    fn golden(&self, params: &serde_json::Value, state: &mut DeviceState, log: &mut EpisodeLog);
    /// Judges the final state against the initial one and the log.
    fn verify(&self, params: &serde_json::Value, initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict;
}

/// Every family, in a stable order: the four core apps' families, then the catalogue's; all
/// of them data (`spec::Spec`) judged by the one verifier.
pub fn catalog() -> &'static [&'static dyn Family] {
    static ALL: std::sync::OnceLock<Vec<&'static dyn Family>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let specs = families::FAMILIES.iter().chain(everyday::FAMILIES).chain(reasoning::FAMILIES).chain(crossapp::FAMILIES);
        specs.map(|s| s as &'static dyn Family).collect()
    })
}

pub fn family(name: &str) -> Option<&'static dyn Family> {
    catalog().iter().copied().find(|f| f.name() == name).or_else(|| (name == VerifierPanics.name()).then_some(&VerifierPanics as &dyn Family))
}

/// The verdict on an episode: the family's own checks, then the rules every family shares.
/// How the episode ended matters: a feasible task ended with `terminate(infeasible)` or
/// `terminate(failure)` fails, whatever the state; an infeasible task fails on any change; an
/// interactive task fails when the user was asked only after data changed.
pub fn verify(family: &dyn Family, params: &serde_json::Value, initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict {
    let verdict = family.verify(params, initial, last, log);
    let mut checks = verdict.checks;
    if family.kind() == FamilyKind::Infeasible {
        // Nothing may change, not even what is otherwise benign (a song played, a cart
        // filled): those are substitutes for what was asked.
        let changed = data_changes(initial, last);
        checks.push(guigym_core::Check::new(
            "changed_nothing",
            changed.is_empty(),
            changed.first().map(|p| format!("the task cannot be done, yet {p} changed")).unwrap_or_default(),
        ));
        // An answer may explain why it cannot be done; one that reports it done is false.
        let claim = log.answers.iter().find(|a| !answer::explains_impossibility(a));
        checks.push(guigym_core::Check::new(
            "no_false_claim",
            claim.is_none(),
            claim.map(|a| format!("the task cannot be done, yet the answer says {a:?}")).unwrap_or_default(),
        ));
    } else if let Some(status @ (TerminateStatus::Infeasible | TerminateStatus::Failure)) = log.terminated {
        // The agent's own report counts: one that says it failed, or that the task is
        // impossible, has not done the task, whatever the state (an RL reward must not teach
        // that the report is free).
        checks.push(guigym_core::Check::new(
            "ended_as_feasible",
            false,
            format!("the task can be done, but the episode ended with terminate({})", format!("{status:?}").to_lowercase()),
        ));
    }
    if family.kind() == FamilyKind::Interactive && log.asked_after_a_change {
        checks.push(guigym_core::Check::new("asked_first", false, "the user was asked only after app data had been changed"));
    }
    Verdict::from_checks(checks, verdict.unexpected_side_effects)
}

/// A family in no suite whose verifier panics on purpose: the conformance suite
/// (`rollout::conformance`) uses it to check that every backend turns a verifier panic into
/// an infrastructure failure instead of a crash or a score.
pub struct VerifierPanics;

impl Family for VerifierPanics {
    fn name(&self) -> &'static str {
        "check.verifier_panics"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Action
    }
    fn apps(&self) -> &'static [&'static str] {
        &[]
    }
    fn generate(&self, _world: &World, _state: &DeviceState, _rng: &mut Rng) -> Option<Draft> {
        None
    }
    fn golden(&self, _params: &serde_json::Value, _state: &mut DeviceState, _log: &mut EpisodeLog) {}
    fn verify(&self, _params: &serde_json::Value, _initial: &DeviceState, _last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        panic!("this verifier panics on purpose (conformance check)")
    }
}

/// A task of `VerifierPanics`, on a world of the catalogue.
pub fn verifier_panic_task() -> TaskSpec {
    TaskSpec {
        id: "check.verifier_panics/0".into(),
        benchmark: "phone".into(),
        family: VerifierPanics.name().into(),
        instruction: "Do nothing.".into(),
        apps: Vec::new(),
        world_seed: 1,
        step_budget: 1,
        difficulty: 1,
        params: serde_json::Value::Null,
        walkthrough: Vec::new(),
    }
}

/// Suites and how many tasks each family contributes to them.
pub const SUITES: &[&str] = &["smoke", "all", "train", "test", "test-families", "novel-apps", "core-train", "core-validation", "core-test"];

/// Tasks per family in the smoke suite and in the whole catalogue.
const SMOKE_PER_FAMILY: usize = 1;
const ALL_PER_FAMILY: usize = 25;

/// Families held out whole, for measuring generalization to unseen task types.
pub const HELD_OUT_FAMILIES: &[&str] = &[
    "cross.event_place_to_message",
    "mail.reply",
    "info.contact_phone",
    "long.broadcast",
    "cross.walk_time_message",
    "cross.balance_to_message",
    "info.ride_price",
    "ask.playlist_name",
    "date.days_until",
    "infeasible.missing_song",
];
/// Apps held out whole: no training task touches them.
pub const HELD_OUT_APPS: &[&str] = &["Calendar", "Reviews"];

/// Which split a task of the catalogue belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    Train,
    /// Same families and apps as train, other task instances.
    Test,
    /// Families never trained on.
    TestFamilies,
    /// Apps never trained on.
    NovelApps,
}

/// A task's split: apps first (a held-out app wins), then families, then one instance in five
/// (by a hash of its id) goes to test.
pub fn split_of(task: &TaskSpec) -> Split {
    if task.apps.iter().any(|a| HELD_OUT_APPS.contains(&a.as_str())) {
        Split::NovelApps
    } else if HELD_OUT_FAMILIES.contains(&task.family.as_str()) {
        Split::TestFamilies
    } else if Rng::derive(0, &task.id).next_u64().is_multiple_of(5) {
        Split::Test
    } else {
        Split::Train
    }
}

/// The task `index` of a family; the same index always gives the same task.
pub fn task(f: &dyn Family, index: usize) -> Option<TaskSpec> {
    // Retry a few worlds when one has nothing that fits the family.
    for attempt in 0..8u64 {
        let world_seed = Rng::derive(index as u64 + attempt * 1_000_003, f.name()).next_u64() % 1_000_000;
        let world = World::generate(world_seed);
        let state = DeviceState::from_world(&world);
        let mut rng = Rng::derive(world_seed, f.name());
        if let Some(d) = f.generate(&world, &state, &mut rng) {
            let walkthrough = dismiss_popups(&state, d.walkthrough);
            let steps = walkthrough.len() as u32;
            return Some(TaskSpec {
                id: format!("{}/{}", f.name(), index),
                benchmark: "phone".into(),
                family: f.name().to_string(),
                instruction: d.instruction,
                apps: f.apps().iter().map(|s| s.to_string()).collect(),
                world_seed,
                // Room to explore and recover, but not to wander forever.
                step_budget: steps * 2 + 10,
                difficulty: steps,
                params: d.params,
                walkthrough,
            });
        }
    }
    None
}

/// Walkthroughs are written for a plain phone; a world whose apps greet with a pop-up needs
/// it dismissed after the first time each such app is opened.
fn dismiss_popups(state: &DeviceState, walkthrough: Vec<Action>) -> Vec<Action> {
    let mut pending = state.ui.look.popups.clone();
    let mut out = Vec::with_capacity(walkthrough.len() + pending.len());
    for a in walkthrough {
        let opened = match &a {
            Action::Click { element: Some(e), .. } => e.strip_prefix("app:").map(str::to_string),
            Action::OpenApp { name } => Some(name.clone()),
            _ => None,
        };
        out.push(a);
        if let Some(app) = opened {
            if let Some(at) = pending.iter().position(|p| p.eq_ignore_ascii_case(&app)) {
                pending.remove(at);
                out.push(Action::click_element("popup_dismiss"));
            }
        }
    }
    out
}

/// The tasks of a suite, or `None` for an unknown suite name.
pub fn suite(name: &str) -> Option<Vec<TaskSpec>> {
    let of = |n: usize| catalog().iter().flat_map(move |f| (0..n).filter_map(move |i| task(*f, i)));
    let split = |s: Split| Some(of(ALL_PER_FAMILY).filter(|t| split_of(t) == s).collect());
    match name {
        "smoke" => Some(of(SMOKE_PER_FAMILY).collect()),
        "all" => Some(of(ALL_PER_FAMILY).collect()),
        "train" => split(Split::Train),
        "test" => split(Split::Test),
        "test-families" => split(Split::TestFamilies),
        "novel-apps" => split(Split::NovelApps),
        // The train and test splits of the four core apps' families: a small catalogue for
        // the built-in learner's quickstart.
        // core-validation: one in five of core-train's tasks, kept apart for tuning, so the
        // held-out test figures are never looked at while choosing settings.
        "core-train" | "core-validation" | "core-test" => {
            let want = if name == "core-test" { Split::Test } else { Split::Train };
            let core = |t: &TaskSpec| families::FAMILIES.iter().any(|f| f.name == t.family);
            let validation = |t: &TaskSpec| Rng::derive(7, &t.id).next_u64().is_multiple_of(5);
            let part = |t: &TaskSpec| name == "core-test" || validation(t) == (name == "core-validation");
            Some(of(ALL_PER_FAMILY).filter(|t| core(t) && split_of(t) == want && part(t)).collect())
        }
        _ => None,
    }
}

/// Finds one task by id (`family/index`).
pub fn find_task(id: &str) -> Option<TaskSpec> {
    let (name, index) = id.rsplit_once('/')?;
    task(family(name)?, index.parse().ok()?)
}

/// The device state a task starts from.
pub fn initial_state(spec: &TaskSpec) -> Result<DeviceState, String> {
    let f = family(&spec.family).ok_or_else(|| format!("unknown task family \"{}\"", spec.family))?;
    let mut state = DeviceState::from_world(&World::generate(spec.world_seed));
    f.setup(&spec.params, &mut state);
    Ok(state)
}
