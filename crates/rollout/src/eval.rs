//! Eval: every task of a suite, n attempts each, J in flight, each worker owning one
//! instance. Every queued attempt ends in exactly one of two places: scored (in the report's
//! denominator) or unscored with its reason. Failures are sorted by type, never by text:
//!
//! | failure | what happens |
//! |---|---|
//! | model server 4xx (not 408/429/context length) | configuration error: the run stops with the server's message |
//! | prompt over the model's context | the attempt ends there and is scored (`ended_by: context_length`) |
//! | model server 5xx/408/429/timeout, after the policy's retries and failover | infrastructure: the attempt re-runs, then is left unscored |
//! | environment service 401/403 | the run stops |
//! | environment service 503 (no capacity) | the worker waits (honouring `Retry-After`); no try is used up |
//! | environment service unreachable | the worker backs off exponentially; past `outage_limit_ms` the run fails |
//! | backend failure inside an attempt, a panic | infrastructure: fresh instance, re-run, then unscored |
//! | the agent broke its instance (a program holding the display, a page script that never returns, memory past the budget) | the attempt ends there and is scored, failed (`ended_by: instance_broken`) |
//! | bad task | the run stops |

use std::collections::{BTreeMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use guigym_core::{Attempt, Env, EnvError, EnvProvider, TaskSpec};
use guigym_harness::{Harness, HarnessConfig, PolicyError, PolicyFactory, Prompt};
use serde::{Deserialize, Serialize};

use crate::attempt::{new_trajectory_id, run_attempt, AttemptError, Recorder};
use crate::report::{EvalReport, Unscored};
use crate::store::{Store, StoreError, StoreRecorder};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EvalConfig {
    pub suite: String,
    pub attempts: u32,
    pub parallel: usize,
    /// Re-runs of one attempt after infrastructure failures before it is left unscored.
    pub max_infra_retries: u32,
    /// How long the environment service may stay unreachable (or the run make no progress
    /// while waiting for capacity) before the run fails.
    pub outage_limit_ms: u64,
    pub harness: HarnessConfig,
    /// Attempts per task when they differ (adaptive sampling); empty: `attempts` for all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub task_attempts: Vec<u32>,
}

impl Default for EvalConfig {
    fn default() -> EvalConfig {
        EvalConfig {
            suite: "smoke".into(),
            attempts: 1,
            parallel: 4,
            max_infra_retries: 3,
            outage_limit_ms: 120_000,
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
    /// An attempt given up after its infrastructure retries: it ends without a verdict.
    fn attempt_unscored(&self, _task_id: &str) {}
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
    /// The policy or the environment service refused our configuration (a wrong model
    /// name, a wrong token): no attempt can succeed, so the run stops.
    #[error("{0}")]
    Config(String),
    /// The environment service stayed unreachable past the outage limit.
    #[error("{0}")]
    Outage(String),
}

/// One queued attempt: task, attempt index, and the tries it has used up.
#[derive(Debug, Clone, Copy)]
struct Job {
    task: usize,
    attempt: u32,
    tries: u32,
}

/// The job a worker that last ran task `last` takes next: another attempt of that task where
/// one is queued, else the first in the queue. An instance that keeps a spare made for the
/// task it last ran (the desktop's `GUIGYM_DESKTOP_SPARE`) then starts the attempt at once.
fn next_job(jobs: &mut VecDeque<Job>, last: Option<usize>) -> Option<Job> {
    let at = last.and_then(|t| jobs.iter().position(|j| j.task == t)).unwrap_or(0);
    jobs.remove(at)
}

struct Shared {
    jobs: Mutex<VecDeque<Job>>,
    done: Mutex<Vec<(usize, Attempt)>>,
    unscored: Mutex<Vec<Unscored>>,
    /// Infrastructure failures (re-runs) per family.
    infra: Mutex<BTreeMap<String, usize>>,
    fatal: Mutex<Option<EvalError>>,
    /// When an attempt last finished or an instance was last obtained: the outage clock.
    last_progress: Mutex<Instant>,
}

impl Shared {
    fn stop(&self, e: EvalError) {
        lock(&self.fatal).get_or_insert(e);
        lock(&self.jobs).clear();
    }
    fn stopped(&self) -> bool {
        lock(&self.fatal).is_some()
    }
    fn progressed(&self) {
        *lock(&self.last_progress) = Instant::now();
    }
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
    let jobs: VecDeque<Job> = (0..tasks.len()).flat_map(|t| (0..attempts_of(t)).map(move |a| Job { task: t, attempt: a, tries: 0 })).collect();
    let queued = jobs.len();
    let shared = Arc::new(Shared {
        jobs: Mutex::new(jobs),
        done: Mutex::new(Vec::new()),
        unscored: Mutex::new(Vec::new()),
        infra: Mutex::new(BTreeMap::new()),
        fatal: Mutex::new(None),
        last_progress: Mutex::new(Instant::now()),
    });
    let harness = Arc::new(Harness::new(config.harness.clone()));
    let mut workers = Vec::new();
    for _ in 0..config.parallel.max(1) {
        let ctx = Worker {
            tasks: tasks.clone(),
            shared: shared.clone(),
            provider: provider.clone(),
            policy: policy.clone(),
            store: store.clone(),
            progress: progress.clone(),
            harness: harness.clone(),
            run_id,
            max_retries: config.max_infra_retries,
            outage_limit: Duration::from_millis(config.outage_limit_ms.max(1)),
        };
        workers.push(tokio::spawn(ctx.run()));
    }
    let mut lost_workers = 0;
    for w in workers {
        if w.await.is_err() {
            lost_workers += 1;
        }
    }
    if let Some(e) = lock(&shared.fatal).take() {
        return Err(e);
    }
    // Whatever is still queued was never run (every worker died): it is reported, not lost.
    let left: Vec<Job> = lock(&shared.jobs).drain(..).collect();
    if !left.is_empty() && lost_workers > 0 && lost_workers == config.parallel.max(1) {
        return Err(EvalError::Outage(format!("every eval worker died; {} of {queued} attempts never ran", left.len())));
    }
    for j in left {
        let t = &tasks[j.task];
        lock(&shared.unscored).push(Unscored::new(t, j.attempt, "not_run", "the attempt was never run"));
    }
    let mut done = std::mem::take(&mut *lock(&shared.done));
    done.sort_by_key(|(t, a)| (*t, a.attempt_index));
    let attempts: Vec<Attempt> = done.into_iter().map(|(_, a)| a).collect();
    let mut unscored = std::mem::take(&mut *lock(&shared.unscored));
    unscored.sort_by(|a, b| (&a.task_id, a.attempt_index).cmp(&(&b.task_id, b.attempt_index)));
    let infra = std::mem::take(&mut *lock(&shared.infra));
    let mut report = EvalReport::build(&config.suite, &policy.name(), &provider.backend(), tasks.len(), config.attempts, &attempts, &infra, unscored);
    report.policy_health = policy.health();
    if let Some(s) = &store {
        s.finish_run(run_id, &serde_json::to_value(&report).unwrap_or_default())?;
    }
    Ok((run_id, report))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Exponential backoff: 100 ms doubling per step, at most 5 s.
fn backoff(step: u32) -> Duration {
    Duration::from_millis((100u64 << step.min(6)).min(5_000))
}

struct Worker {
    tasks: Arc<Vec<TaskSpec>>,
    shared: Arc<Shared>,
    provider: Arc<dyn EnvProvider>,
    policy: Arc<dyn PolicyFactory>,
    store: Option<Arc<Store>>,
    progress: Arc<dyn Progress>,
    harness: Arc<Harness>,
    run_id: i64,
    max_retries: u32,
    outage_limit: Duration,
}

/// How one try of a job ended.
enum TryEnd {
    Done,
    /// Infrastructure failure: re-run on a fresh instance if tries are left.
    Retry {
        reason: &'static str,
        detail: String,
    },
    Stop(EvalError),
}

impl Worker {
    async fn run(self) {
        let mut env: Option<Box<dyn Env>> = None;
        let mut last_task = None;
        loop {
            if self.shared.stopped() {
                break;
            }
            let Some(mut job) = next_job(&mut lock(&self.shared.jobs), last_task) else { break };
            last_task = Some(job.task);
            loop {
                if env.is_none() {
                    match self.obtain_instance().await {
                        Some(e) => env = Some(e),
                        None => return, // the run stopped
                    }
                }
                let Some(instance) = env.as_mut() else { continue };
                // A panic anywhere in the attempt (backend, policy, verifier) loses only
                // this try: the job is re-run like any infrastructure failure.
                let outcome = AssertUnwindSafe(self.try_job(instance.as_mut(), job)).catch_unwind().await;
                let end = outcome.unwrap_or_else(|panic| TryEnd::Retry { reason: "panic", detail: panic_message(&panic) });
                match end {
                    TryEnd::Done => break,
                    TryEnd::Stop(e) => {
                        self.shared.stop(e);
                        break;
                    }
                    TryEnd::Retry { reason, detail } => {
                        // The instance may be broken: give it back and take a fresh one.
                        if let Some(mut broken) = env.take() {
                            let _ = AssertUnwindSafe(broken.release()).catch_unwind().await;
                        }
                        let task = &self.tasks[job.task];
                        self.progress.infra_failure(&task.id, &detail);
                        *lock(&self.shared.infra).entry(task.family.clone()).or_default() += 1;
                        job.tries += 1;
                        if job.tries > self.max_retries {
                            tracing::warn!(task = %task.id, reason, error = %detail, "infrastructure failure; the attempt is left unscored (no retries left)");
                            lock(&self.shared.unscored).push(Unscored::new(task, job.attempt, reason, &detail));
                            self.progress.attempt_unscored(&task.id);
                            break;
                        }
                        tracing::warn!(task = %task.id, reason, error = %detail, "infrastructure failure, re-running the attempt");
                        tokio::time::sleep(backoff(job.tries)).await;
                    }
                }
            }
        }
        if let Some(mut e) = env.take() {
            let _ = e.release().await;
        }
    }

    /// An instance from the provider. Waits out "no capacity" and outages (backing off);
    /// `None` when the run stops (refused credentials, a bad task, an outage past the limit).
    async fn obtain_instance(&self) -> Option<Box<dyn Env>> {
        let mut step = 0;
        loop {
            if self.shared.stopped() {
                return None;
            }
            let created = AssertUnwindSafe(self.provider.create()).catch_unwind().await;
            let error = match created {
                Ok(Ok(env)) => {
                    self.shared.progressed();
                    return Some(env);
                }
                Ok(Err(e)) => e,
                Err(panic) => EnvError::Infra(format!("creating an instance panicked: {}", panic_message(&panic))),
            };
            let wait = match &error {
                EnvError::Denied(why) => {
                    self.shared.stop(EvalError::Config(format!("the environment service refused us: {why}")));
                    return None;
                }
                EnvError::BadTask(_) | EnvError::ResetNeeded(_) => {
                    self.shared.stop(EvalError::Config(format!("cannot create an instance: {error}")));
                    return None;
                }
                EnvError::NoCapacity { retry_after_ms, .. } => {
                    retry_after_ms.map(|ms| Duration::from_millis(ms.clamp(10, 30_000))).unwrap_or_else(|| backoff(step))
                }
                _ => backoff(step),
            };
            let stalled = lock(&self.shared.last_progress).elapsed();
            if stalled > self.outage_limit {
                self.shared.stop(EvalError::Outage(format!(
                    "no instance could be had for {:.0} s (the limit is {:.0} s): {error}",
                    stalled.as_secs_f64(),
                    self.outage_limit.as_secs_f64()
                )));
                return None;
            }
            tracing::debug!(error = %error, wait_ms = wait.as_millis() as u64, "waiting for an instance");
            tokio::time::sleep(wait).await;
            step += 1;
        }
    }

    async fn try_job(&self, instance: &mut dyn Env, job: Job) -> TryEnd {
        let task = &self.tasks[job.task];
        let trajectory_id = new_trajectory_id();
        let attempt_id = match &self.store {
            Some(s) => match s.begin_attempt(self.run_id, &trajectory_id, &task.id, &task.family, job.attempt, job.tries) {
                Ok(id) => Some(id),
                Err(e) => return TryEnd::Stop(e.into()),
            },
            None => None,
        };
        let mut policy_instance = self.policy.for_attempt(task, job.attempt);
        let mut recorder = AttemptRecorder {
            store: self.store.as_deref().zip(attempt_id).map(|(s, id)| StoreRecorder { store: s, attempt_id: id, error: None }),
            prompts: self.progress.wants_prompts().then(Vec::new),
        };
        let result = run_attempt(instance, task, policy_instance.as_mut(), &self.harness, job.attempt, &trajectory_id, &mut recorder).await;
        let prompts = recorder.prompts.take().unwrap_or_default();
        if let Some(e) = recorder.store.and_then(|r| r.error) {
            return TryEnd::Stop(e.into());
        }
        let fail = |reason: &'static str, detail: String| {
            if let (Some(s), Some(id)) = (&self.store, attempt_id) {
                let _ = s.fail_attempt(self.run_id, id, &format!("{reason}: {detail}"));
            }
            TryEnd::Retry { reason, detail }
        };
        match result {
            Ok(mut attempt) => {
                attempt.infra_retries = job.tries;
                if let (Some(s), Some(id)) = (&self.store, attempt_id) {
                    if let Err(e) = s.finish_attempt(id, &attempt) {
                        return TryEnd::Stop(e.into());
                    }
                }
                self.shared.progressed();
                self.progress.attempt_done(&attempt, &prompts);
                lock(&self.shared.done).push((job.task, attempt));
                TryEnd::Done
            }
            Err(AttemptError::Policy(PolicyError::Config(why))) => {
                if let (Some(s), Some(id)) = (&self.store, attempt_id) {
                    let _ = s.fail_attempt(self.run_id, id, &why);
                }
                TryEnd::Stop(EvalError::Config(why))
            }
            Err(AttemptError::Policy(e)) => fail("policy_unavailable", e.to_string()),
            Err(AttemptError::Env(EnvError::Denied(why))) => TryEnd::Stop(EvalError::Config(format!("the environment service refused us: {why}"))),
            Err(AttemptError::Env(e @ (EnvError::BadTask(_) | EnvError::ResetNeeded(_)))) => TryEnd::Stop(EvalError::BadTask(format!("task {}: {e}", task.id))),
            Err(AttemptError::Env(e)) => fail("environment", e.to_string()),
        }
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    let text = panic.downcast_ref::<String>().cloned().or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
    format!("panic: {}", text.unwrap_or_else(|| "(no message)".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_takes_another_attempt_of_its_last_task_first() {
        let job = |task, attempt| Job { task, attempt, tries: 0 };
        let mut jobs: VecDeque<Job> = [job(0, 1), job(1, 0), job(1, 1), job(2, 0)].into();
        let order = |j: Option<Job>| j.map(|j| (j.task, j.attempt));
        assert_eq!(order(next_job(&mut jobs, Some(1))), Some((1, 0)));
        assert_eq!(order(next_job(&mut jobs, Some(1))), Some((1, 1)));
        // None of its task left: the front of the queue.
        assert_eq!(order(next_job(&mut jobs, Some(1))), Some((0, 1)));
        assert_eq!(order(next_job(&mut jobs, None)), Some((2, 0)));
        assert_eq!(order(next_job(&mut jobs, Some(2))), None);
    }
}
