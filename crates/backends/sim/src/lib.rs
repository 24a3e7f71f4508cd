//! The `sim` backend: a simulated phone in-process. Apps run as pure state machines, time
//! and randomness are virtual, so reset is exact and costs a clone.
//!
//! Reset builds a task's initial state once per process: every instance reset to that task
//! shares it (`initial_state`), and a reset clones it, which copies pointers (the app data is
//! copied table by table on first write, `guigym_phone::state::Shared`). Evaluate runs the
//! verifier behind `catch_unwind`: a verifier that panics is an infrastructure failure, never a
//! crashed worker.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, Weak};

use async_trait::async_trait;
use guigym_core::Screen;
use guigym_core::{sha256_hex, Action, Env, EnvError, EnvProvider, Episode, Observation, ObserveOptions, StepOutcome, TaskSpec, Verdict};
use guigym_phone::benchmark::{PhoneBenchmark, PhoneBenchmarks};
use guigym_phone::{shell, DeviceState};

/// A task made ready: its benchmark and initial state.
#[derive(Clone)]
struct Prepared {
    spec: Arc<TaskSpec>,
    benchmark: &'static dyn PhoneBenchmark,
    initial: Arc<DeviceState>,
    /// Edited by a test after setup: never reused for a plain reset.
    staged: bool,
}

/// The initial states of the tasks that instances of this process are reset to, by task (its
/// benchmark named in it; one process hosts one benchmark of a name): a group of instances on
/// one task (a GRPO group) holds one copy. An entry lives as long as an instance holds it; dead
/// ones are swept when the map has doubled since the last sweep.
struct Initials {
    by_task: BTreeMap<String, Weak<DeviceState>>,
    sweep_at: usize,
}

static INITIALS: Mutex<Initials> = Mutex::new(Initials { by_task: BTreeMap::new(), sweep_at: 0 });

fn initial_state(benchmark: &'static dyn PhoneBenchmark, task: &TaskSpec) -> Result<Arc<DeviceState>, String> {
    let lock = || INITIALS.lock().unwrap_or_else(|p| p.into_inner());
    let key = serde_json::to_string(task).map_err(|e| e.to_string())?;
    if let Some(live) = lock().by_task.get(&key).and_then(Weak::upgrade) {
        return Ok(live);
    }
    // Built outside the lock: two instances may build one task at once; both states are equal.
    let initial = Arc::new(benchmark.initial_state(task)?);
    let mut initials = lock();
    if initials.by_task.len() >= initials.sweep_at {
        initials.by_task.retain(|_, w| w.strong_count() > 0);
        initials.sweep_at = (2 * initials.by_task.len()).max(64);
    }
    initials.by_task.insert(key, Arc::downgrade(&initial));
    Ok(initial)
}

/// One simulated phone.
pub struct SimEnv {
    screen: Screen,
    benchmarks: PhoneBenchmarks,
    prepared: Option<Prepared>,
    state: Option<DeviceState>,
    episode: Episode,
}

impl SimEnv {
    /// A phone hosting `benchmarks` (the binary's registry gives them).
    pub fn new(screen: Screen, benchmarks: PhoneBenchmarks) -> SimEnv {
        SimEnv { screen, benchmarks, prepared: None, state: None, episode: Episode::default() }
    }

    pub fn screen(&self) -> Screen {
        self.screen
    }

    /// The task this instance was last reset to.
    pub fn task(&self) -> Option<&TaskSpec> {
        self.prepared.as_ref().map(|p| &*p.spec)
    }

    /// The current device state (for tests and tools).
    pub fn state(&self) -> Option<&DeviceState> {
        self.state.as_ref()
    }

    /// Replaces the device state (for tests that stage a situation, and for the golden).
    pub fn state_mut(&mut self) -> Option<&mut DeviceState> {
        self.state.as_mut()
    }

    /// Puts the instance straight into the task's completed state.
    pub fn apply_golden_sync(&mut self) -> Result<(), EnvError> {
        let (Some(p), Some(state)) = (&self.prepared, &mut self.state) else { return Err(EnvError::ResetNeeded("golden".into())) };
        p.benchmark.golden(&p.spec, state, &mut self.episode.log).map_err(EnvError::BadTask)
    }

    fn prepare(&mut self, task: &TaskSpec) -> Result<Prepared, EnvError> {
        if let Some(p) = &self.prepared {
            if !p.staged && *p.spec == *task {
                return Ok(p.clone());
            }
        }
        let benchmark = self.benchmarks.find(&task.benchmark).ok_or_else(|| {
            EnvError::BadTask(format!("the simulated phone hosts no benchmark \"{}\" (it hosts {})", task.benchmark, self.benchmarks.names().join(", ")))
        })?;
        let initial = initial_state(benchmark, task).map_err(EnvError::BadTask)?;
        Ok(Prepared { spec: Arc::new(task.clone()), benchmark, initial, staged: false })
    }

    pub fn observe_sync(&self, options: ObserveOptions) -> Result<Observation, EnvError> {
        let state = self.state.as_ref().ok_or_else(|| EnvError::ResetNeeded("observe".into()))?;
        let root = shell::view(state);
        let layout = shell::layout(&root, state, self.screen);
        let screenshot = if options.screenshot {
            Some(guigym_ui::render_screenshot(&layout, &shell::theme(state)).map_err(|e| EnvError::Infra(e.to_string()))?)
        } else {
            None
        };
        Ok(Observation {
            step: self.episode.steps,
            screenshot,
            ui_tree: layout.ui_tree(),
            app: state.ui.foreground.clone(),
            screen: shell::screen_name(state),
            feedback: self.episode.feedback.clone(),
            width: self.screen.width,
            height: self.screen.height,
            time: format!("{}T{}", guigym_phone::time::date_iso(state.now()), guigym_phone::time::time_hm(state.now())),
            broken: None,
        })
    }

    /// The episode's record (for a backend that plays the phone's gestures itself and reports
    /// their outcome here: the web backend).
    pub fn episode_mut(&mut self) -> &mut Episode {
        &mut self.episode
    }

    /// Applies an event of the device's own (a tap or typing a page reported), which is not an
    /// agent's step: the episode's record is not touched. Nothing changes once it is over.
    pub fn apply_event(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        let state = self.state.as_mut().ok_or_else(|| EnvError::ResetNeeded("an event".into()))?;
        if self.episode.is_over() {
            return Ok(StepOutcome::invalid(guigym_core::episode::ENDED));
        }
        if let Err(e) = action.check() {
            return Ok(StepOutcome::invalid(e.message));
        }
        Ok(match shell::apply(state, action, self.screen) {
            Ok(feedback) => StepOutcome::ok(feedback),
            Err(e) => StepOutcome::invalid(e.message),
        })
    }

    /// Why the phone would refuse `action` on its screen now, if it would; nothing changes.
    /// The web backend refuses what the phone refuses, in its words, before the browser plays it.
    pub fn refusal(&self, action: &Action) -> Option<String> {
        let mut state = self.state.clone()?;
        shell::apply(&mut state, action, self.screen).err().map(|e| e.message)
    }

    /// Applies one action synchronously.
    pub fn step_sync(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        let (Some(p), Some(state)) = (&self.prepared, self.state.as_mut()) else { return Err(EnvError::ResetNeeded("step".into())) };
        if let Some(refused) = self.episode.refuse(action) {
            return Ok(refused);
        }
        let reply = p.spec.params.get("user_reply").and_then(|v| v.as_str());
        if let Some(recorded) = self.episode.record(action, reply, || p.benchmark.changed(&p.initial, state)) {
            return Ok(recorded);
        }
        let outcome = match shell::apply(state, action, self.screen) {
            Ok(feedback) => StepOutcome::ok(feedback),
            Err(e) => StepOutcome::invalid(e.message),
        };
        Ok(self.episode.finish(outcome))
    }

    pub fn reset_sync(&mut self, task: &TaskSpec) -> Result<(), EnvError> {
        let prepared = self.prepare(task)?;
        self.install(prepared);
        Ok(())
    }

    /// Resets to a task whose initial state is edited first: for tests that stage a
    /// situation (a fact changed in one app) and check that the verifier follows it.
    pub fn reset_staged(&mut self, task: &TaskSpec, stage: impl FnOnce(&mut DeviceState)) -> Result<(), EnvError> {
        let mut prepared = self.prepare(task)?;
        let mut initial = (*prepared.initial).clone();
        stage(&mut initial);
        prepared.initial = Arc::new(initial);
        prepared.staged = true;
        self.install(prepared);
        Ok(())
    }

    fn install(&mut self, prepared: Prepared) {
        self.state = Some((*prepared.initial).clone());
        self.prepared = Some(prepared);
        self.episode = Episode::default();
    }

    pub fn evaluate_sync(&self) -> Result<Verdict, EnvError> {
        let (Some(p), Some(state)) = (&self.prepared, &self.state) else { return Err(EnvError::ResetNeeded("evaluate".into())) };
        let log = &self.episode.log;
        catch_unwind(AssertUnwindSafe(|| p.benchmark.verify(&p.spec, &p.initial, state, log)))
            .map_err(|_| EnvError::Infra(format!("verifier of {} panicked", p.spec.family)))
    }

    /// Hash of the whole state: device, episode log and step counter.
    pub fn hash(&self) -> Result<String, EnvError> {
        let state = self.state.as_ref().ok_or_else(|| EnvError::ResetNeeded("state_hash".into()))?;
        let bytes = serde_json::to_vec(&(state, &self.episode.log, self.episode.steps)).map_err(|e| EnvError::Infra(e.to_string()))?;
        Ok(sha256_hex(&bytes))
    }
}

#[async_trait]
impl Env for SimEnv {
    async fn reset(&mut self, task: &TaskSpec) -> Result<Observation, EnvError> {
        self.reset_sync(task)?;
        self.observe_sync(ObserveOptions::default())
    }

    async fn observe(&mut self, options: ObserveOptions) -> Result<Observation, EnvError> {
        self.observe_sync(options)
    }

    async fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        self.step_sync(action)
    }

    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        self.evaluate_sync()
    }

    async fn state_hash(&mut self) -> Result<String, EnvError> {
        self.hash()
    }

    async fn apply_golden(&mut self) -> Result<(), EnvError> {
        self.apply_golden_sync()
    }
}

/// Makes simulated phones of one screen size, hosting the phone benchmarks given.
#[derive(Debug, Clone)]
pub struct SimProvider {
    pub screen: Screen,
    pub benchmarks: PhoneBenchmarks,
}

#[async_trait]
impl EnvProvider for SimProvider {
    fn backend(&self) -> String {
        "sim".into()
    }

    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        Ok(Box::new(SimEnv::new(self.screen, self.benchmarks.clone())))
    }
}
