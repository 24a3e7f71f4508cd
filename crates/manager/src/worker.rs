//! The data plane: a worker hosts instances and runs their operations under deadlines.
//!
//! Each instance sits behind its own async mutex, so operations on one instance are applied
//! one at a time (a duplicated step waits for the first and gets its recorded answer) while
//! different instances run in parallel. A missed deadline or a backend error quarantines the
//! instance: it is dropped, its lease ends, and the warm pool replaces it.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use guigym_core::{Action, Env, EnvError, EnvProvider, Observation, ObserveOptions, StepOutcome, TaskSpec, Verdict};

use crate::metrics::Metrics;
use crate::plan;
use crate::spec::{Backends, EnvSpec};

/// The largest task spec an instance accepts at reset (the catalogue's largest is a few KB).
pub const MAX_TASK_BYTES: usize = 256 << 10;

/// How much longer than a backend's `Env::stall_bound` an operation's deadline is at least.
pub const STALL_MARGIN: Duration = Duration::from_secs(5);

#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// Instances this worker may hold at once.
    pub capacity: usize,
    /// Episodes (resets) after which an instance is retired and replaced.
    pub max_episodes: u32,
    /// Deadline of observe, step, evaluate and state hash.
    pub op_deadline: Duration,
    /// Deadline of reset and of creating an instance.
    pub reset_deadline: Duration,
    /// Step request ids remembered per instance, for idempotent retries.
    pub idempotency_window: usize,
}

impl Default for WorkerConfig {
    fn default() -> WorkerConfig {
        WorkerConfig {
            capacity: 1024,
            max_episodes: 1000,
            op_deadline: Duration::from_secs(30),
            reset_deadline: Duration::from_secs(60),
            idempotency_window: 16,
        }
    }
}

/// Why a worker operation failed; each maps to one HTTP status.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkerError {
    #[error("no instance {0}")]
    UnknownInstance(u64),
    #[error("lease {0} does not hold this instance")]
    NotYourLease(String),
    /// The lease existed but ended (released, expired, instance failed).
    #[error("lease {lease} has ended: {reason}")]
    LeaseEnded { lease: String, reason: String },
    #[error("no capacity left: {0}")]
    Full(String),
    #[error("bad env spec: {0}")]
    BadSpec(String),
    #[error("{0}")]
    BadTask(String),
    #[error("malformed action: {0}")]
    BadAction(String),
    /// The backend missed its deadline or failed: an infrastructure failure.
    #[error("infrastructure failure: {0}")]
    Infra(String),
    /// The episode used its task's step budget: evaluate or reset.
    #[error("the episode's step budget of {0} steps is spent: evaluate or reset")]
    BudgetSpent(u32),
    #[error("the instance has no task yet: reset it first")]
    NotReset,
}

struct SlotInner {
    env: Box<dyn Env>,
    lease: Option<String>,
    episodes: u32,
    /// Steps taken in this episode, and the task's budget (set at reset).
    steps: u32,
    budget: u32,
    /// Recent (request id, outcome) pairs of steps.
    recent: VecDeque<(String, StepOutcome)>,
}

struct Slot {
    spec: EnvSpec,
    inner: tokio::sync::Mutex<SlotInner>,
}

/// Remembers how recent leases ended, so a late call gets 410 with the reason, not 404.
#[derive(Default)]
struct Ended {
    order: VecDeque<String>,
    reasons: HashMap<String, String>,
}

impl Ended {
    const KEEP: usize = 100_000;

    fn insert(&mut self, lease: String, reason: &str) {
        if self.reasons.insert(lease.clone(), reason.to_string()).is_none() {
            self.order.push_back(lease);
            if self.order.len() > Self::KEEP {
                if let Some(old) = self.order.pop_front() {
                    self.reasons.remove(&old);
                }
            }
        }
    }
}

pub struct Worker {
    /// This worker's identity: random, kept for the life of the process (across manager
    /// restarts), so a manager can tell a restarted worker from the one it knew.
    pub id: String,
    pub config: WorkerConfig,
    backends: Backends,
    providers: Mutex<HashMap<EnvSpec, Arc<dyn EnvProvider>>>,
    slots: RwLock<HashMap<u64, Arc<Slot>>>,
    ready: Mutex<HashMap<EnvSpec, Vec<u64>>>,
    bound: Mutex<HashMap<String, u64>>,
    ended: Mutex<Ended>,
    warm: Mutex<HashMap<EnvSpec, usize>>,
    /// When each spec was last acquired: ready instances of the least recently used spec
    /// make room for a spec that finds the worker full.
    used: Mutex<HashMap<EnvSpec, Instant>>,
    next_id: AtomicU64,
    pub metrics: Arc<Metrics>,
}

/// A count of a worker's instances, reported to the manager.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorkerStatus {
    pub capacity: usize,
    pub instances: usize,
    pub leased: usize,
    /// Ready instances per spec key.
    pub ready: HashMap<String, usize>,
    /// The backends this worker hosts.
    #[serde(default)]
    pub backends: Vec<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Worker {
    pub fn new(config: WorkerConfig, backends: Backends) -> Arc<Worker> {
        Worker::with_metrics(config, backends, Arc::new(Metrics::default()))
    }

    /// A worker that counts into shared metrics (the embedded manager's).
    pub fn with_metrics(config: WorkerConfig, backends: Backends, metrics: Arc<Metrics>) -> Arc<Worker> {
        Arc::new(Worker {
            id: crate::auth::random_id("w"),
            config,
            backends,
            providers: Mutex::new(HashMap::new()),
            slots: RwLock::new(HashMap::new()),
            ready: Mutex::new(HashMap::new()),
            bound: Mutex::new(HashMap::new()),
            ended: Mutex::new(Ended::default()),
            warm: Mutex::new(HashMap::new()),
            used: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            metrics,
        })
    }

    pub fn status(&self) -> WorkerStatus {
        let ready = lock(&self.ready).iter().map(|(s, v)| (s.key(), v.len())).collect();
        WorkerStatus {
            capacity: self.config.capacity,
            instances: self.slots.read().map(|s| s.len()).unwrap_or(0),
            leased: lock(&self.bound).len(),
            ready,
            backends: self.backends.names(),
        }
    }

    /// Ready instances of a spec.
    pub fn ready_count(&self, spec: &EnvSpec) -> usize {
        lock(&self.ready).get(spec).map(Vec::len).unwrap_or(0)
    }

    /// A task named by id, from the benchmarks this worker hosts.
    pub fn task_by_id(&self, id: &str) -> Result<TaskSpec, WorkerError> {
        self.backends.task(id).ok_or_else(|| WorkerError::BadTask(format!("no task \"{id}\" in the benchmarks this worker hosts")))
    }

    fn provider(&self, spec: &EnvSpec) -> Result<Arc<dyn EnvProvider>, WorkerError> {
        if let Some(p) = lock(&self.providers).get(spec) {
            return Ok(p.clone());
        }
        let p = self.backends.provider(spec).map_err(WorkerError::BadSpec)?;
        lock(&self.providers).insert(spec.clone(), p.clone());
        Ok(p)
    }

    fn instances(&self) -> usize {
        self.slots.read().map(|s| s.len()).unwrap_or(0)
    }

    /// Creates one instance (counted against capacity) and returns its id. With `evict`, a
    /// full worker first retires a ready instance of the least recently used other spec.
    async fn create(&self, spec: &EnvSpec, evict: bool) -> Result<u64, WorkerError> {
        let provider = self.provider(spec)?;
        if evict && self.instances() >= self.config.capacity {
            if let Some(victim) = self.eviction_candidate(spec) {
                self.remove(victim).await;
                Metrics::inc(&self.metrics.evictions);
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        {
            // Reserve the place first, so concurrent creations cannot overshoot capacity.
            let mut slots = self.slots.write().map_err(|_| WorkerError::Infra("worker state poisoned".into()))?;
            if slots.len() >= self.config.capacity {
                return Err(WorkerError::Full(format!("{} of {} instances in use", slots.len(), self.config.capacity)));
            }
            slots.insert(id, Arc::new(Slot { spec: spec.clone(), inner: tokio::sync::Mutex::new(placeholder()) }));
        }
        let started = Instant::now();
        let mut retired = false;
        let env = loop {
            match tokio::time::timeout(self.config.reset_deadline, provider.create()).await {
                Ok(Ok(env)) => break env,
                // Every device of the backend is taken: an idle instance of the backend (ready in
                // the pool, of another spec) may hold the one wanted, and is retired for it once.
                Ok(Err(EnvError::NoCapacity { .. })) if !retired && self.retire_idle_of(&spec.backend, spec).await => retired = true,
                // Taken for good (leased here, or held by another process): capacity, not a
                // failure, so the lease is refused with 503 and may be asked again.
                Ok(Err(EnvError::NoCapacity { message, .. })) => {
                    self.drop_slot(id);
                    return Err(WorkerError::Full(message));
                }
                Ok(Err(e)) => return Err(self.failed_create(id, e.to_string())),
                Err(_) => return Err(self.failed_create(id, "creating an instance missed its deadline".into())),
            }
        };
        self.metrics.observe("create", started.elapsed());
        if let Some(slot) = self.slot(id) {
            slot.inner.lock().await.env = env;
        }
        Ok(id)
    }

    /// Ends one ready instance of `backend` of another spec than `wanted`; whether there was one.
    async fn retire_idle_of(&self, backend: &str, wanted: &EnvSpec) -> bool {
        let idle = {
            let mut ready = lock(&self.ready);
            ready.iter_mut().find(|(s, ids)| s.backend == backend && *s != wanted && !ids.is_empty()).and_then(|(_, ids)| ids.pop())
        };
        match idle {
            Some(id) => {
                self.remove(id).await;
                Metrics::inc(&self.metrics.evictions);
                true
            }
            None => false,
        }
    }

    /// A ready instance of the spec (other than `wanted`) acquired least recently, taken out of
    /// the ready pool.
    fn eviction_candidate(&self, wanted: &EnvSpec) -> Option<u64> {
        let used = lock(&self.used);
        let mut ready = lock(&self.ready);
        let spec = ready.iter().filter(|(s, ids)| *s != wanted && !ids.is_empty()).min_by_key(|(s, _)| used.get(*s).copied()).map(|(s, _)| s.clone())?;
        ready.get_mut(&spec).and_then(Vec::pop)
    }

    fn drop_slot(&self, id: u64) {
        if let Ok(mut slots) = self.slots.write() {
            slots.remove(&id);
        }
    }

    fn failed_create(&self, id: u64, why: String) -> WorkerError {
        self.drop_slot(id);
        Metrics::inc(&self.metrics.infra_failures);
        WorkerError::Infra(why)
    }

    fn slot(&self, id: u64) -> Option<Arc<Slot>> {
        self.slots.read().ok().and_then(|s| s.get(&id).cloned())
    }

    /// Binds each lease to an instance of the spec: ready ones first, new ones after.
    /// All or nothing: on failure every lease of the call is released again.
    pub async fn acquire(&self, spec: &EnvSpec, leases: &[String]) -> Result<Vec<u64>, WorkerError> {
        self.provider(spec)?;
        lock(&self.used).insert(spec.clone(), Instant::now());
        let mut distinct = leases.to_vec();
        distinct.sort();
        distinct.dedup();
        if distinct.len() != leases.len() {
            return Err(WorkerError::BadSpec("the same lease id appears twice".into()));
        }
        if let Some(taken) = leases.iter().find(|l| lock(&self.bound).contains_key(*l) || lock(&self.ended).reasons.contains_key(*l)) {
            return Err(WorkerError::BadSpec(format!("lease {taken} is already known to this worker")));
        }
        let mut got = Vec::with_capacity(leases.len());
        for lease in leases {
            let ready = lock(&self.ready).get_mut(spec).and_then(Vec::pop);
            let id = match ready {
                Some(id) => id,
                None => match self.create(spec, true).await {
                    Ok(id) => id,
                    Err(e) => {
                        self.release(&got.iter().map(|(l, _): &(String, u64)| l.clone()).collect::<Vec<_>>(), "request failed").await;
                        return Err(e);
                    }
                },
            };
            if let Some(slot) = self.slot(id) {
                slot.inner.lock().await.lease = Some(lease.clone());
            }
            lock(&self.bound).insert(lease.clone(), id);
            got.push((lease.clone(), id));
        }
        Ok(got.into_iter().map(|(_, id)| id).collect())
    }

    /// Ends leases: their instances go back to the ready pool, or are retired when used up.
    pub async fn release(&self, leases: &[String], reason: &str) {
        for lease in leases {
            let id = lock(&self.bound).remove(lease);
            lock(&self.ended).insert(lease.clone(), reason);
            let Some(id) = id else { continue };
            let Some(slot) = self.slot(id) else { continue };
            let mut inner = slot.inner.lock().await;
            inner.lease = None;
            inner.recent.clear();
            if inner.episodes >= self.config.max_episodes {
                drop(inner);
                self.remove(id).await;
                Metrics::inc(&self.metrics.recycles);
            } else {
                drop(inner);
                lock(&self.ready).entry(slot.spec.clone()).or_default().push(id);
            }
        }
    }

    /// Ends every lease this worker holds (after the manager declared it lost).
    pub async fn release_all(&self, reason: &str) {
        let leases: Vec<String> = lock(&self.bound).keys().cloned().collect();
        self.release(&leases, reason).await;
    }

    /// Ends every instance, leased or ready: the process is stopping (its applications and
    /// browsers must not outlive it).
    pub async fn shutdown(&self, reason: &str) {
        self.release_all(reason).await;
        let ids: Vec<u64> = self.slots.read().map(|s| s.keys().copied().collect()).unwrap_or_default();
        for id in ids {
            self.remove(id).await;
        }
    }

    /// Takes an instance out of service and releases it (a browser context, a process), on
    /// every path out: retirement, quarantine, scale-down. A release that hangs is given up
    /// after the reset deadline; the instance is gone from the worker either way.
    async fn remove(&self, id: u64) {
        let slot = self.slots.write().ok().and_then(|mut slots| slots.remove(&id));
        for v in lock(&self.ready).values_mut() {
            v.retain(|x| *x != id);
        }
        if let Some(slot) = slot {
            let mut inner = slot.inner.lock().await;
            match tokio::time::timeout(self.config.reset_deadline, inner.env.release()).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(instance = id, error = %e, "releasing a removed instance failed"),
                Err(_) => tracing::warn!(instance = id, "releasing a removed instance missed its deadline"),
            }
        }
    }

    /// Drops a failed instance (releasing what it holds); its lease ends with the reason.
    async fn quarantine(&self, id: u64, lease: &str, why: &str) {
        self.remove(id).await;
        lock(&self.bound).remove(lease);
        lock(&self.ended).insert(lease.to_string(), &format!("instance failed: {why}"));
        Metrics::inc(&self.metrics.quarantined);
        Metrics::inc(&self.metrics.infra_failures);
        tracing::warn!(instance = id, lease, error = why, "instance quarantined");
    }

    fn ended_or(&self, lease: &str, otherwise: WorkerError) -> WorkerError {
        match lock(&self.ended).reasons.get(lease) {
            Some(reason) => WorkerError::LeaseEnded { lease: lease.to_string(), reason: reason.clone() },
            None => otherwise,
        }
    }

    /// Runs one operation on a leased instance under a deadline.
    async fn with<T>(
        &self,
        id: u64,
        lease: &str,
        op: &'static str,
        deadline: Duration,
        f: impl for<'a> FnOnce(&'a mut SlotInner) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, EnvError>> + Send + 'a>>,
    ) -> Result<T, WorkerError> {
        let slot = self.slot(id).ok_or_else(|| self.ended_or(lease, WorkerError::UnknownInstance(id)))?;
        let mut inner = slot.inner.lock().await;
        if inner.lease.as_deref() != Some(lease) {
            return Err(self.ended_or(lease, WorkerError::NotYourLease(lease.to_string())));
        }
        // The backend's own detection of an agent that stalled its instance decides first (the
        // episode is then judged); this deadline is for the backend's own failures.
        let bound = inner.env.stall_bound();
        let deadline = if bound.is_zero() { deadline } else { deadline.max(bound + STALL_MARGIN) };
        let started = Instant::now();
        let result = tokio::time::timeout(deadline, CatchPanic(f(&mut inner))).await;
        self.metrics.observe(op, started.elapsed());
        // A backend that panicked (on what a device sent it, say) failed as the infrastructure:
        // its instance is quarantined, and the caller gets an answer.
        let result = result.map(|r| r.unwrap_or_else(|panic| Err(EnvError::Infra(format!("the backend panicked: {panic}")))));
        match result {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(EnvError::Infra(why))) => {
                drop(inner);
                self.quarantine(id, lease, &why).await;
                Err(WorkerError::Infra(format!("{op}: {why}")))
            }
            Ok(Err(other)) => Err(WorkerError::BadTask(other.to_string())),
            Err(_) => {
                drop(inner);
                let why = format!("{op} missed its deadline of {} ms", deadline.as_millis());
                self.quarantine(id, lease, &why).await;
                Err(WorkerError::Infra(why))
            }
        }
    }

    pub async fn reset(&self, id: u64, lease: &str, task: &TaskSpec) -> Result<Observation, WorkerError> {
        // The instance keeps its task for the episode: a client-made task is bounded in size.
        let size = serde_json::to_vec(task).map(|v| v.len()).unwrap_or(usize::MAX);
        if size > MAX_TASK_BYTES {
            return Err(WorkerError::BadTask(format!("the task spec has {size} bytes; at most {MAX_TASK_BYTES} are allowed")));
        }
        let task = task.clone();
        self.with(id, lease, "reset", self.config.reset_deadline, move |s| {
            Box::pin(async move {
                s.episodes += 1;
                s.recent.clear();
                s.steps = 0;
                s.budget = task.step_budget.max(1);
                s.env.reset(&task).await
            })
        })
        .await
    }

    pub async fn observe(&self, id: u64, lease: &str, options: ObserveOptions) -> Result<Observation, WorkerError> {
        self.with(id, lease, "observe", self.config.op_deadline, move |s| Box::pin(async move { s.env.observe(options).await })).await
    }

    /// Applies a step once per request id: a retry (even a concurrent one) gets the first
    /// answer back and changes nothing. A step past the task's budget is refused before the
    /// instance sees it (every backend itself turns an action outside `Action::check`'s limits
    /// into an invalid step, so no episode log grows without bound).
    pub async fn step(&self, id: u64, lease: &str, request_id: &str, action: &Action) -> Result<StepOutcome, WorkerError> {
        let (action, request_id) = (action.clone(), request_id.to_string());
        let window = self.config.idempotency_window.max(1);
        self.with(id, lease, "step", self.config.op_deadline, move |s| {
            Box::pin(async move {
                if let Some((_, done)) = s.recent.iter().find(|(r, _)| *r == request_id) {
                    return Ok(Ok(done.clone()));
                }
                if s.budget == 0 {
                    return Ok(Err(WorkerError::NotReset));
                }
                if s.steps >= s.budget {
                    return Ok(Err(WorkerError::BudgetSpent(s.budget)));
                }
                let outcome = s.env.step(&action).await?;
                s.steps += 1;
                s.recent.push_back((request_id, outcome.clone()));
                while s.recent.len() > window {
                    s.recent.pop_front();
                }
                Ok(Ok(outcome))
            })
        })
        .await?
    }

    pub async fn evaluate(&self, id: u64, lease: &str) -> Result<Verdict, WorkerError> {
        self.with(id, lease, "evaluate", self.config.op_deadline, |s| Box::pin(async move { s.env.evaluate().await })).await
    }

    pub async fn state_hash(&self, id: u64, lease: &str) -> Result<String, WorkerError> {
        self.with(id, lease, "state_hash", self.config.op_deadline, |s| Box::pin(async move { s.env.state_hash().await })).await
    }

    pub async fn apply_golden(&self, id: u64, lease: &str) -> Result<(), WorkerError> {
        self.with(id, lease, "golden", self.config.op_deadline, |s| Box::pin(async move { s.env.apply_golden().await })).await
    }

    /// Sets how many ready instances of a spec this worker keeps.
    pub fn set_warm(&self, spec: &EnvSpec, target: usize) -> Result<(), WorkerError> {
        self.provider(spec)?;
        lock(&self.warm).insert(spec.clone(), target);
        Ok(())
    }

    /// One pass of the warm-pool loop: create or retire ready instances to meet each target.
    pub async fn reconcile(&self) {
        let targets: Vec<(EnvSpec, usize)> = lock(&self.warm).iter().map(|(s, n)| (s.clone(), *n)).collect();
        for (spec, target) in targets {
            let delta = plan::reconcile(target, self.ready_count(&spec), self.instances(), self.config.capacity);
            for _ in 0..delta.max(0) {
                match self.create(&spec, false).await {
                    Ok(id) => lock(&self.ready).entry(spec.clone()).or_default().push(id),
                    Err(e) => {
                        tracing::warn!(spec = %spec.key(), error = %e, "warm pool could not provision");
                        break;
                    }
                }
            }
            for _ in 0..(-delta).max(0) {
                let id = lock(&self.ready).get_mut(&spec).and_then(Vec::pop);
                if let Some(id) = id {
                    self.remove(id).await;
                }
            }
        }
    }

    /// Runs the warm-pool loop forever.
    pub async fn run_pool_loop(self: Arc<Self>, every: Duration) {
        loop {
            self.reconcile().await;
            tokio::time::sleep(every).await;
        }
    }
}

/// An instance being created: replaced by the real one before anyone can lease it.
fn placeholder() -> SlotInner {
    SlotInner { env: Box::new(Unready), lease: None, episodes: 0, steps: 0, budget: 0, recent: VecDeque::new() }
}

struct Unready;

#[async_trait::async_trait]
impl Env for Unready {
    async fn reset(&mut self, _task: &TaskSpec) -> Result<Observation, EnvError> {
        Err(EnvError::Infra("instance is still being created".into()))
    }
    async fn observe(&mut self, _o: ObserveOptions) -> Result<Observation, EnvError> {
        Err(EnvError::Infra("instance is still being created".into()))
    }
    async fn step(&mut self, _a: &Action) -> Result<StepOutcome, EnvError> {
        Err(EnvError::Infra("instance is still being created".into()))
    }
    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        Err(EnvError::Infra("instance is still being created".into()))
    }
    async fn state_hash(&mut self) -> Result<String, EnvError> {
        Err(EnvError::Infra("instance is still being created".into()))
    }
}

/// A future whose panic is caught and turned into its message.
struct CatchPanic<F>(F);

impl<F: std::future::Future + Unpin> std::future::Future for CatchPanic<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        let inner = &mut self.0;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| std::pin::Pin::new(inner).poll(cx))) {
            Ok(std::task::Poll::Ready(v)) => std::task::Poll::Ready(Ok(v)),
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Err(payload) => {
                let said = payload.downcast_ref::<String>().cloned().or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()));
                std::task::Poll::Ready(Err(said.unwrap_or_else(|| "no message".into())))
            }
        }
    }
}
