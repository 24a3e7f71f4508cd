//! Eval: every task of a suite, n attempts each, J in flight, each worker owning one
//! instance. An infrastructure failure throws the instance away, takes a fresh one and
//! re-runs the attempt (bounded), counted apart and never scored.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use guigym_core::{Attempt, EnvProvider, TaskSpec};
use guigym_harness::{Harness, HarnessConfig, PolicyFactory, Prompt};
use serde::{Deserialize, Serialize};

use crate::attempt::{run_attempt, AttemptError, Recorder};
use crate::report::EvalReport;
use crate::store::{Store, StoreError, StoreRecorder};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalConfig {
    pub suite: String,
    pub attempts: u32,
    pub parallel: usize,
    /// Re-runs of one attempt after infrastructure failures before it is left unscored.
    pub max_infra_retries: u32,
    pub harness: HarnessConfig,
    /// Attempts per task when they differ (adaptive sampling); empty: `attempts` for all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub task_attempts: Vec<u32>,
}

impl Default for EvalConfig {
    fn default() -> EvalConfig {
        EvalConfig {
            suite: "smoke".into(),
            attempts: 1,
            parallel: 4,
            max_infra_retries: 3,
            harness: HarnessConfig::default(),
            task_attempts: Vec::new(),
        }
    }
}

/// Told of each finished attempt (a progress bar, a log, a data sink).
pub trait Progress: Send + Sync {
    /// `prompts` holds the prompt of every step when `wants_prompts` says so.
    fn attempt_done(&self, attempt: &Attempt, prompts: &[Prompt]);
    fn infra_failure(&self, _task_id: &str, _error: &str) {}
    fn wants_prompts(&self) -> bool {
        false
    }
}

impl Progress for () {
    fn attempt_done(&self, _attempt: &Attempt, _prompts: &[Prompt]) {}
}

/// Forwards steps to the store and keeps prompts when asked to.
struct AttemptRecorder<'a> {
    store: Option<StoreRecorder<'a>>,
    prompts: Option<Vec<Prompt>>,
}

impl Recorder for AttemptRecorder<'_> {
    fn step(&mut self, step: &guigym_core::Step, png: Option<&[u8]>) {
        if let Some(s) = self.store.as_mut() {
            s.step(step, png);
        }
    }
    fn prompt(&mut self, prompt: &Prompt, observation: &guigym_core::Observation) {
        if let Some(p) = self.prompts.as_mut() {
            // Only recorded prompts carry their observation: no copy on the plain eval path.
            p.push(Prompt { observation: Some(observation.without_screenshot()), ..prompt.clone() });
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    BadTask(String),
}

struct Shared {
    jobs: Mutex<VecDeque<(usize, u32)>>,
    done: Mutex<Vec<(usize, Attempt)>>,
    infra_failures: Mutex<usize>,
    unscored: Mutex<usize>,
    fatal: Mutex<Option<EvalError>>,
}

/// Runs the eval and returns its report; with a store, every attempt and step is written as
/// it happens and the report is saved with the run. Returns the run id too (0 without a store).
pub async fn eval(
    tasks: Arc<Vec<TaskSpec>>,
    config: &EvalConfig,
    provider: Arc<dyn EnvProvider>,
    policy: Arc<dyn PolicyFactory>,
    store: Option<Arc<Store>>,
    progress: Arc<dyn Progress>,
) -> Result<(i64, EvalReport), EvalError> {
    let run_id = match &store {
        Some(s) => s.create_run(
            "eval",
            &config.suite,
            &policy.name(),
            &provider.backend(),
            &serde_json::json!({ "eval": config, "harness": config.harness, "policy": policy.describe() }),
        )?,
        None => 0,
    };
    let attempts_of = |t: usize| config.task_attempts.get(t).copied().unwrap_or(config.attempts);
    let jobs: VecDeque<(usize, u32)> = (0..tasks.len()).flat_map(|t| (0..attempts_of(t)).map(move |a| (t, a))).collect();
    let shared = Arc::new(Shared {
        jobs: Mutex::new(jobs),
        done: Mutex::new(Vec::new()),
        infra_failures: Mutex::new(0),
        unscored: Mutex::new(0),
        fatal: Mutex::new(None),
    });
    let harness = Arc::new(Harness::new(config.harness.clone()));
    let mut workers = Vec::new();
    for _ in 0..config.parallel.max(1) {
        let (tasks, shared, provider, policy, store, progress, harness) =
            (tasks.clone(), shared.clone(), provider.clone(), policy.clone(), store.clone(), progress.clone(), harness.clone());
        let max_retries = config.max_infra_retries;
        workers.push(tokio::spawn(async move {
            worker(tasks, shared, provider, policy, store, progress, harness, run_id, max_retries).await
        }));
    }
    for w in workers {
        // A worker that panicked lost at most its attempt in flight; it is not scored.
        if w.await.is_err() {
            *lock(&shared.unscored) += 1;
        }
    }
    if let Some(e) = lock(&shared.fatal).take() {
        return Err(e);
    }
    let mut done = std::mem::take(&mut *lock(&shared.done));
    done.sort_by_key(|(t, a)| (*t, a.attempt_index));
    let attempts: Vec<Attempt> = done.into_iter().map(|(_, a)| a).collect();
    let report = EvalReport::build(
        &config.suite,
        &policy.name(),
        &provider.backend(),
        tasks.len(),
        config.attempts,
        &attempts,
        *lock(&shared.infra_failures),
        *lock(&shared.unscored),
    );
    if let Some(s) = &store {
        s.finish_run(run_id, &serde_json::to_value(&report).unwrap_or_default())?;
    }
    Ok((run_id, report))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[allow(clippy::too_many_arguments)]
async fn worker(
    tasks: Arc<Vec<TaskSpec>>,
    shared: Arc<Shared>,
    provider: Arc<dyn EnvProvider>,
    policy: Arc<dyn PolicyFactory>,
    store: Option<Arc<Store>>,
    progress: Arc<dyn Progress>,
    harness: Arc<Harness>,
    run_id: i64,
    max_retries: u32,
) {
    let mut env: Option<Box<dyn guigym_core::Env>> = None;
    loop {
        let Some((task_index, attempt_index)) = lock(&shared.jobs).pop_front() else {
            if let Some(mut e) = env.take() {
                let _ = e.release().await;
            }
            return;
        };
        let task = &tasks[task_index];
        let mut tries = 0;
        loop {
            if env.is_none() {
                match provider.create().await {
                    Ok(e) => env = Some(e),
                    Err(e) => {
                        if !note_infra(&shared, &progress, task, &e.to_string(), &mut tries, max_retries) {
                            break;
                        }
                        continue;
                    }
                }
            }
            let Some(instance) = env.as_mut() else { continue };
            let attempt_id = match &store {
                Some(s) => match s.begin_attempt(run_id, &task.id, &task.family, attempt_index, tries) {
                    Ok(id) => Some(id),
                    Err(e) => {
                        lock(&shared.fatal).get_or_insert(e.into());
                        lock(&shared.jobs).clear();
                        return;
                    }
                },
                None => None,
            };
            let mut policy_instance = policy.for_attempt(task, attempt_index);
            let mut recorder = AttemptRecorder {
                store: store.as_deref().zip(attempt_id).map(|(s, id)| StoreRecorder { store: s, attempt_id: id, error: None }),
                prompts: progress.wants_prompts().then(Vec::new),
            };
            let trajectory_id = format!("{run_id}:{}:{attempt_index}:{tries}", task.id);
            let result =
                run_attempt(instance.as_mut(), task, policy_instance.as_mut(), &harness, attempt_index, &trajectory_id, &mut recorder).await;
            let prompts = recorder.prompts.take().unwrap_or_default();
            if let Some(e) = recorder.store.and_then(|r| r.error) {
                lock(&shared.fatal).get_or_insert(e.into());
                lock(&shared.jobs).clear();
                return;
            }
            match result {
                Ok(mut attempt) => {
                    attempt.infra_retries = tries;
                    if let (Some(s), Some(id)) = (&store, attempt_id) {
                        if let Err(e) = s.finish_attempt(id, &attempt) {
                            lock(&shared.fatal).get_or_insert(e.into());
                        }
                    }
                    progress.attempt_done(&attempt, &prompts);
                    lock(&shared.done).push((task_index, attempt));
                    break;
                }
                Err(e) if e.is_retryable() => {
                    // The instance may be broken: give it back and take a fresh one.
                    if let Some(mut broken) = env.take() {
                        let _ = broken.release().await;
                    }
                    if let (Some(s), Some(id)) = (&store, attempt_id) {
                        let _ = s.fail_attempt(run_id, id, &e.to_string());
                    }
                    if !note_infra(&shared, &progress, task, &e.to_string(), &mut tries, max_retries) {
                        break;
                    }
                }
                Err(AttemptError::Env(e)) => {
                    lock(&shared.fatal).get_or_insert(EvalError::BadTask(format!("task {}: {e}", task.id)));
                    lock(&shared.jobs).clear();
                    return;
                }
                Err(e) => {
                    lock(&shared.fatal).get_or_insert(EvalError::BadTask(format!("task {}: {e}", task.id)));
                    return;
                }
            }
        }
    }
}

/// Counts an infrastructure failure; false when the attempt has used up its retries.
fn note_infra(shared: &Shared, progress: &Arc<dyn Progress>, task: &TaskSpec, error: &str, tries: &mut u32, max: u32) -> bool {
    tracing::warn!(task = %task.id, error, "infrastructure failure, re-running the attempt");
    progress.infra_failure(&task.id, error);
    *lock(&shared.infra_failures) += 1;
    *tries += 1;
    if *tries > max {
        *lock(&shared.unscored) += 1;
        return false;
    }
    true
}
