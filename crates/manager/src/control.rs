//! The control plane: leases, workers and warm-pool targets. It decides who holds which
//! instance, for how long, on which worker; it never sees observations or actions.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::metrics::Metrics;
use crate::plan::{self, WorkerLoad};
use crate::spec::EnvSpec;
use crate::worker::{Worker, WorkerError, WorkerStatus};

/// How the manager reaches a worker's control endpoints.
#[async_trait]
pub trait WorkerLink: Send + Sync {
    /// The id of the worker that answers at this link's address.
    async fn identity(&self) -> Result<String, LinkError>;
    async fn acquire(&self, spec: &EnvSpec, leases: &[String]) -> Result<Vec<u64>, LinkError>;
    async fn release(&self, leases: &[String], reason: &str) -> Result<(), LinkError>;
    async fn set_warm(&self, spec: &EnvSpec, target: usize) -> Result<(), LinkError>;
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LinkError {
    /// The worker did not answer: it is treated as lost.
    #[error("worker unreachable: {0}")]
    Unreachable(String),
    /// The worker answered with an error.
    #[error(transparent)]
    Worker(#[from] WorkerError),
}

/// Builds the link to a registering worker from its data URL and its id: every call on the
/// link names the worker it is meant for, so a different process at the same address refuses it.
pub type LinkFactory = Arc<dyn Fn(&str, &str) -> Arc<dyn WorkerLink> + Send + Sync>;

/// A worker in this process.
pub struct LocalLink(pub Arc<Worker>);

#[async_trait]
impl WorkerLink for LocalLink {
    async fn identity(&self) -> Result<String, LinkError> {
        Ok(self.0.id.clone())
    }
    async fn acquire(&self, spec: &EnvSpec, leases: &[String]) -> Result<Vec<u64>, LinkError> {
        Ok(self.0.acquire(spec, leases).await?)
    }
    async fn release(&self, leases: &[String], reason: &str) -> Result<(), LinkError> {
        self.0.release(leases, reason).await;
        Ok(())
    }
    async fn set_warm(&self, spec: &EnvSpec, target: usize) -> Result<(), LinkError> {
        Ok(self.0.set_warm(spec, target)?)
    }
}

#[derive(Clone)]
pub struct ManagerConfig {
    pub default_ttl: Duration,
    pub max_ttl: Duration,
    /// How often expired leases are reclaimed and lost workers noticed.
    pub reclaim_every: Duration,
    /// A remote worker silent this long is lost.
    pub worker_timeout: Duration,
    /// Warm-pool targets: ready instances kept ahead of demand, per spec.
    pub warm: Vec<(EnvSpec, usize)>,
    /// The backends this deployment serves: a spec outside them is a bad request even when
    /// no worker is there to ask. `None`: judged by the live workers' backends.
    pub backends: Option<crate::spec::Backends>,
}

impl Default for ManagerConfig {
    fn default() -> ManagerConfig {
        ManagerConfig {
            default_ttl: Duration::from_secs(300),
            max_ttl: Duration::from_secs(24 * 3600),
            reclaim_every: Duration::from_millis(250),
            worker_timeout: Duration::from_secs(5),
            warm: Vec::new(),
            backends: None,
        }
    }
}

/// A granted lease, as the client sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaseGrant {
    pub lease_id: String,
    pub instance_id: u64,
    pub worker_id: String,
    /// Where the data path goes: the worker's base URL (without `/v1`).
    pub data_url: String,
    pub ttl_ms: u64,
    /// Wall-clock expiry, milliseconds since the Unix epoch.
    pub expires_at_ms: u64,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ControlError {
    #[error("no lease {0}")]
    UnknownLease(String),
    #[error("lease {lease} has ended: {reason}")]
    LeaseEnded { lease: String, reason: String },
    #[error("no worker {0}")]
    UnknownWorker(String),
    #[error("no capacity: {0}")]
    NoCapacity(String),
    #[error("bad request: {0}")]
    BadRequest(String),
    /// A worker's heartbeat without its secret.
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// A registration that contradicts what is registered (another worker's address).
    #[error("conflict: {0}")]
    Conflict(String),
    #[error(transparent)]
    Worker(WorkerError),
}

struct WorkerEntry {
    id: String,
    /// What the worker presents on every heartbeat, issued at its registration.
    secret: String,
    data_url: String,
    link: Arc<dyn WorkerLink>,
    /// In-process workers never time out.
    local: Option<Arc<Worker>>,
    status: WorkerStatus,
    last_seen: Instant,
    alive: bool,
    /// Warm targets last sent to it.
    warm_sent: HashMap<EnvSpec, usize>,
}

impl WorkerEntry {
    fn status(&self) -> WorkerStatus {
        match &self.local {
            Some(w) => w.status(),
            None => self.status.clone(),
        }
    }
}

struct Lease {
    worker: String,
    instance: u64,
    spec: EnvSpec,
    ttl: Duration,
    expires: Instant,
}

/// The leases the manager holds, with a count per worker kept in step with them (placement
/// reads it on every request, so it is never recounted).
#[derive(Default)]
struct LeaseTable {
    by_id: HashMap<String, Lease>,
    per_worker: HashMap<String, usize>,
}

impl LeaseTable {
    fn insert(&mut self, id: String, lease: Lease) {
        *self.per_worker.entry(lease.worker.clone()).or_default() += 1;
        if let Some(old) = self.by_id.insert(id, lease) {
            self.uncount(&old.worker);
        }
    }

    fn remove(&mut self, id: &str) -> Option<Lease> {
        let lease = self.by_id.remove(id)?;
        self.uncount(&lease.worker);
        Some(lease)
    }

    fn uncount(&mut self, worker: &str) {
        if let Some(n) = self.per_worker.get_mut(worker) {
            *n -= 1;
            if *n == 0 {
                self.per_worker.remove(worker);
            }
        }
    }

    /// Takes out the leases `pick` chooses.
    fn take_where(&mut self, pick: impl Fn(&Lease) -> bool) -> Vec<(String, Lease)> {
        let ids: Vec<String> = self.by_id.iter().filter(|(_, l)| pick(l)).map(|(id, _)| id.clone()).collect();
        ids.into_iter().filter_map(|id| self.remove(&id).map(|l| (id, l))).collect()
    }
}

#[derive(Default)]
struct Ended {
    order: VecDeque<String>,
    reasons: HashMap<String, String>,
}

/// A worker as listed by the API.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkerInfo {
    pub id: String,
    pub data_url: String,
    pub alive: bool,
    pub local: bool,
    pub status: WorkerStatus,
    pub seconds_since_seen: f64,
}

pub struct Manager {
    pub config: ManagerConfig,
    workers: Mutex<Vec<WorkerEntry>>,
    leases: Mutex<LeaseTable>,
    /// Leases placed on each worker (by id) whose acquisition has not answered yet. Placement
    /// counts them: concurrent requests would otherwise all see the same free worker.
    placing: Mutex<HashMap<String, usize>>,
    ended: Mutex<Ended>,
    pub metrics: Arc<Metrics>,
}

/// Leases placed on one worker and not yet acquired there; dropping it (acquired, failed, or
/// the request abandoned) takes them out of the manager's in-flight count.
struct Placed<'a> {
    worker_id: String,
    data_url: String,
    link: Arc<dyn WorkerLink>,
    count: usize,
    placing: &'a Mutex<HashMap<String, usize>>,
}

impl Placed<'_> {
    /// Takes the leases out of the in-flight count (`placing` is the manager's, locked).
    fn settle(&mut self, placing: &mut HashMap<String, usize>) {
        if let Some(n) = placing.get_mut(&self.worker_id) {
            *n = n.saturating_sub(self.count);
            if *n == 0 {
                placing.remove(&self.worker_id);
            }
        }
        self.count = 0;
    }
}

impl Drop for Placed<'_> {
    fn drop(&mut self) {
        if self.count > 0 {
            let placing = self.placing;
            self.settle(&mut lock(placing));
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

impl Manager {
    pub fn new(config: ManagerConfig) -> Arc<Manager> {
        Arc::new(Manager {
            config,
            workers: Mutex::new(Vec::new()),
            leases: Mutex::new(LeaseTable::default()),
            placing: Mutex::new(HashMap::new()),
            ended: Mutex::new(Ended::default()),
            metrics: Arc::new(Metrics::default()),
        })
    }

    /// Adds the worker that lives in this process.
    pub fn add_local_worker(&self, worker: Arc<Worker>, data_url: &str) -> String {
        let id = worker.id.clone();
        lock(&self.workers).push(WorkerEntry {
            id: id.clone(),
            secret: crate::auth::random_id(""),
            data_url: data_url.to_string(),
            link: Arc::new(LocalLink(worker.clone())),
            local: Some(worker),
            status: WorkerStatus::default(),
            last_seen: Instant::now(),
            alive: true,
            warm_sent: HashMap::new(),
        });
        id
    }

    /// Registers (or re-registers) a remote worker under the id it chose, once the worker that
    /// answers at `data_url` confirms that id (so no registration can take over another
    /// worker's address). The same id again resumes the entry; another id at the same address
    /// replaces the old process, whose leases end. Returns the secret its heartbeats must carry.
    pub async fn register(&self, worker_id: &str, data_url: &str, status: WorkerStatus, link: Arc<dyn WorkerLink>) -> Result<String, ControlError> {
        check_worker_id(worker_id)?;
        check_data_url(data_url)?;
        match link.identity().await {
            Ok(id) if id == worker_id => {}
            Ok(_) => return Err(ControlError::Conflict(format!("{data_url} is served by another worker"))),
            Err(e) => return Err(ControlError::BadRequest(format!("the manager cannot reach {data_url} as this worker: {e}"))),
        }
        let secret = crate::auth::random_id("");
        let (replaced, resumed) = {
            let mut workers = lock(&self.workers);
            if workers.iter().any(|w| w.id == worker_id && w.local.is_some()) {
                return Err(ControlError::Conflict(format!("worker id {worker_id} is taken")));
            }
            let replaced: Vec<String> =
                workers.iter().filter(|w| w.data_url == data_url && w.id != worker_id && w.local.is_none()).map(|w| w.id.clone()).collect();
            let resumed = match workers.iter_mut().find(|w| w.id == worker_id) {
                Some(w) => {
                    w.link = link;
                    w.data_url = data_url.to_string();
                    w.status = status;
                    w.secret = secret.clone();
                    w.last_seen = Instant::now();
                    w.alive = true;
                    w.warm_sent.clear();
                    true
                }
                None => {
                    workers.push(WorkerEntry {
                        id: worker_id.to_string(),
                        secret: secret.clone(),
                        data_url: data_url.to_string(),
                        link,
                        local: None,
                        status,
                        last_seen: Instant::now(),
                        alive: true,
                        warm_sent: HashMap::new(),
                    });
                    false
                }
            };
            (replaced, resumed)
        };
        // A worker registers again only after dropping its leases: end them here too.
        if resumed {
            self.end_leases_of(worker_id, "the worker registered again and dropped its leases");
        }
        for old in replaced {
            self.mark_lost(&old, &format!("replaced by worker {worker_id} at {data_url}"));
            lock(&self.workers).retain(|w| w.id != old);
        }
        tracing::info!(worker = %worker_id, url = data_url, resumed, "worker registered");
        Ok(secret)
    }

    pub fn worker_heartbeat(&self, id: &str, secret: &str, status: WorkerStatus) -> Result<(), ControlError> {
        let mut workers = lock(&self.workers);
        let w = workers.iter_mut().find(|w| w.id == id && w.local.is_none()).ok_or_else(|| ControlError::UnknownWorker(id.to_string()))?;
        if !crate::auth::same(secret.as_bytes(), w.secret.as_bytes()) {
            return Err(ControlError::Forbidden(format!("the heartbeat does not carry worker {id}'s secret")));
        }
        if !w.alive {
            // A worker that was declared lost must register again: its leases are gone.
            return Err(ControlError::UnknownWorker(id.to_string()));
        }
        w.status = status;
        w.last_seen = Instant::now();
        Ok(())
    }

    pub fn workers(&self) -> Vec<WorkerInfo> {
        lock(&self.workers)
            .iter()
            .map(|w| WorkerInfo {
                id: w.id.clone(),
                data_url: w.data_url.clone(),
                alive: w.alive,
                local: w.local.is_some(),
                status: w.status(),
                seconds_since_seen: w.last_seen.elapsed().as_secs_f64(),
            })
            .collect()
    }

    pub fn active_leases(&self) -> usize {
        lock(&self.leases).by_id.len()
    }

    fn end(&self, lease: &str, reason: &str) {
        let mut ended = lock(&self.ended);
        if ended.reasons.insert(lease.to_string(), reason.to_string()).is_none() {
            ended.order.push_back(lease.to_string());
            if ended.order.len() > 200_000 {
                if let Some(old) = ended.order.pop_front() {
                    ended.reasons.remove(&old);
                }
            }
        }
    }

    fn gone(&self, lease: &str) -> ControlError {
        match lock(&self.ended).reasons.get(lease) {
            Some(reason) => ControlError::LeaseEnded { lease: lease.to_string(), reason: reason.clone() },
            None => ControlError::UnknownLease(lease.to_string()),
        }
    }

    fn mark_lost(&self, worker_id: &str, why: &str) {
        {
            let mut workers = lock(&self.workers);
            if let Some(w) = workers.iter_mut().find(|w| w.id == worker_id && w.local.is_none()) {
                if w.alive {
                    tracing::warn!(worker = worker_id, error = why, "worker lost");
                }
                w.alive = false;
            }
        }
        for _ in 0..self.end_leases_of(worker_id, &format!("worker {worker_id} lost: {why}")) {
            Metrics::inc(&self.metrics.infra_failures);
        }
    }

    /// Ends every lease on a worker with a reason; returns how many there were.
    fn end_leases_of(&self, worker_id: &str, reason: &str) -> usize {
        let ended = lock(&self.leases).take_where(|l| l.worker == worker_id);
        for (id, _) in &ended {
            self.end(id, reason);
        }
        ended.len()
    }

    /// Grants `count` leases on instances of `spec`, all or nothing.
    pub async fn request(&self, spec: &EnvSpec, count: usize, ttl: Option<Duration>) -> Result<Vec<LeaseGrant>, ControlError> {
        if count == 0 || count > 100_000 {
            return Err(ControlError::BadRequest(format!("count must be within 1..=100000, got {count}")));
        }
        match &self.config.backends {
            Some(backends) => backends.check(spec).map_err(ControlError::BadRequest)?,
            None => {
                spec.check().map_err(ControlError::BadRequest)?;
                self.check_hosted(spec)?;
            }
        }
        let ttl = ttl.unwrap_or(self.config.default_ttl);
        if ttl.is_zero() || ttl > self.config.max_ttl {
            return Err(ControlError::BadRequest(format!("ttl must be within 1 ms..={} s", self.config.max_ttl.as_secs())));
        }
        let mut grants = Vec::with_capacity(count);
        let mut remaining = count;
        // Each round places what is left on live workers; a worker that fails is dropped.
        for _round in 0..8 {
            if remaining == 0 {
                break;
            }
            let plan = self.place(spec, remaining);
            if plan.is_empty() {
                break;
            }
            for mut placed in plan {
                let (worker_id, n) = (placed.worker_id.clone(), placed.count);
                let ids = crate::auth::random_ids("l", n);
                match placed.link.acquire(spec, &ids).await {
                    Ok(instances) => {
                        // In the table and out of the in-flight count at once (the lock order
                        // `place` takes), so that no placement counts them twice.
                        let mut placing = lock(&self.placing);
                        let mut leases = lock(&self.leases);
                        for (lease, instance) in ids.into_iter().zip(instances) {
                            leases.insert(lease.clone(), Lease { worker: worker_id.clone(), instance, spec: spec.clone(), ttl, expires: Instant::now() + ttl });
                            grants.push(LeaseGrant {
                                lease_id: lease,
                                instance_id: instance,
                                worker_id: worker_id.clone(),
                                data_url: placed.data_url.clone(),
                                ttl_ms: ttl.as_millis() as u64,
                                expires_at_ms: now_ms() + ttl.as_millis() as u64,
                            });
                            remaining -= 1;
                        }
                        placed.settle(&mut placing);
                        drop((leases, placing));
                        self.bump_remote(&worker_id, spec, n);
                    }
                    Err(LinkError::Unreachable(why)) => self.mark_lost(&worker_id, &why),
                    Err(LinkError::Worker(WorkerError::Full(_))) => self.mark_full(&worker_id),
                    Err(LinkError::Worker(e)) => {
                        self.rollback(&grants).await;
                        return Err(match e {
                            WorkerError::BadSpec(m) => ControlError::BadRequest(m),
                            other => ControlError::Worker(other),
                        });
                    }
                }
            }
        }
        if remaining > 0 {
            self.rollback(&grants).await;
            return Err(ControlError::NoCapacity(format!("{count} instances of {} asked for, {} could be placed", spec.key(), count - remaining)));
        }
        for _ in 0..count {
            Metrics::inc(&self.metrics.leases_granted);
        }
        Ok(grants)
    }

    /// A spec no live worker can host is a bad request, whatever the capacity: it must not
    /// wait as if for capacity.
    fn check_hosted(&self, spec: &EnvSpec) -> Result<(), ControlError> {
        let workers = lock(&self.workers);
        let hosted: Vec<String> = workers.iter().filter(|w| w.alive).flat_map(|w| w.status().backends).collect();
        if hosted.is_empty() || hosted.contains(&spec.backend) {
            return Ok(());
        }
        let mut names = hosted;
        names.sort();
        names.dedup();
        Err(ControlError::BadRequest(format!("no worker hosts backend \"{}\"; hosted: {}", spec.backend, names.join(", "))))
    }

    /// Accounts instances just placed on a remote worker until its next heartbeat reports them:
    /// ready instances of the spec first, new ones for the rest.
    fn bump_remote(&self, worker_id: &str, spec: &EnvSpec, n: usize) {
        if let Some(w) = lock(&self.workers).iter_mut().find(|w| w.id == worker_id && w.local.is_none()) {
            let ready = w.status.ready.entry(spec.key()).or_default();
            let taken = n.min(*ready);
            *ready -= taken;
            w.status.instances += n - taken;
        }
    }

    /// Accounts instances a remote worker gets back into its ready pool (a released lease)
    /// until its next heartbeat reports them.
    fn returned_remote(&self, worker_id: &str, spec: &EnvSpec, n: usize) {
        if let Some(w) = lock(&self.workers).iter_mut().find(|w| w.id == worker_id && w.local.is_none()) {
            *w.status.ready.entry(spec.key()).or_default() += n;
        }
    }

    /// Leases the manager holds on each worker (by id): the truth placement and gauges use.
    fn leased_by_worker(&self) -> HashMap<String, usize> {
        lock(&self.leases).per_worker.clone()
    }

    fn mark_full(&self, worker_id: &str) {
        if let Some(w) = lock(&self.workers).iter_mut().find(|w| w.id == worker_id) {
            w.status.instances = w.status.capacity;
        }
    }

    async fn rollback(&self, grants: &[LeaseGrant]) {
        let mut by_worker: HashMap<String, Vec<String>> = HashMap::new();
        {
            let mut leases = lock(&self.leases);
            for g in grants {
                leases.remove(&g.lease_id);
                by_worker.entry(g.worker_id.clone()).or_default().push(g.lease_id.clone());
            }
        }
        for (w, ids) in by_worker {
            if let Some(link) = self.link(&w) {
                let _ = link.release(&ids, "request could not be completed").await;
            }
        }
    }

    fn link(&self, worker_id: &str) -> Option<Arc<dyn WorkerLink>> {
        lock(&self.workers).iter().find(|w| w.id == worker_id).map(|w| w.link.clone())
    }

    /// Where `count` leases go: how many each live worker takes, reserved at once in the
    /// in-flight count so that a concurrent request places around them.
    fn place(&self, spec: &EnvSpec, count: usize) -> Vec<Placed<'_>> {
        let key = spec.key();
        // Held across planning and reserving: two requests never plan on the same picture.
        let mut placing = lock(&self.placing);
        let leased = self.leased_by_worker();
        let workers = lock(&self.workers);
        let mut loads: Vec<WorkerLoad> = workers
            .iter()
            .map(|w| {
                let s = w.status();
                let ready = s.ready.get(&key).copied().unwrap_or(0);
                // Leases being acquired count as held. Their instances may or may not show in
                // the worker's status yet (a worker counts an instance as it starts to provision
                // it; a remote one says so at its next heartbeat): the larger figure counts them
                // once either way.
                let held = leased.get(&w.id).copied().unwrap_or(0) + placing.get(&w.id).copied().unwrap_or(0);
                // Ready instances of other specs make room when needed (the worker evicts them).
                let evictable: usize = s.ready.iter().filter(|(k, _)| **k != key).map(|(_, n)| n).sum();
                let occupied = s.instances.saturating_sub(evictable).max(held + ready);
                WorkerLoad { alive: w.alive, capacity: s.capacity, instances: occupied, leased: held, ready }
            })
            .collect();
        let mut counts = vec![0usize; loads.len()];
        for _ in 0..count {
            let Some(i) = plan::place(&loads) else { break };
            counts[i] += 1;
            let load = &mut loads[i];
            load.leased += 1;
            if load.ready > 0 {
                load.ready -= 1;
            } else {
                load.instances += 1;
            }
        }
        let mut out = Vec::new();
        for (w, n) in workers.iter().zip(counts).filter(|(_, n)| *n > 0) {
            *placing.entry(w.id.clone()).or_default() += n;
            out.push(Placed { worker_id: w.id.clone(), data_url: w.data_url.clone(), link: w.link.clone(), count: n, placing: &self.placing });
        }
        out
    }

    pub fn heartbeat(&self, lease: &str) -> Result<LeaseGrant, ControlError> {
        let mut leases = lock(&self.leases);
        let l = leases.by_id.get_mut(lease).ok_or_else(|| self.gone(lease))?;
        l.expires = Instant::now() + l.ttl;
        let (worker, instance, ttl) = (l.worker.clone(), l.instance, l.ttl);
        drop(leases);
        let data_url = lock(&self.workers).iter().find(|w| w.id == worker).map(|w| w.data_url.clone()).unwrap_or_default();
        Ok(LeaseGrant {
            lease_id: lease.to_string(),
            instance_id: instance,
            worker_id: worker,
            data_url,
            ttl_ms: ttl.as_millis() as u64,
            expires_at_ms: now_ms() + ttl.as_millis() as u64,
        })
    }

    pub async fn release(&self, lease: &str) -> Result<(), ControlError> {
        let l = lock(&self.leases).remove(lease).ok_or_else(|| self.gone(lease))?;
        self.end(lease, "released");
        self.returned_remote(&l.worker, &l.spec, 1);
        if let Some(link) = self.link(&l.worker) {
            if let Err(LinkError::Unreachable(why)) = link.release(&[lease.to_string()], "released").await {
                self.mark_lost(&l.worker, &why);
            }
        }
        Ok(())
    }

    /// One pass of the control loop: reclaim expired leases, notice lost workers, spread warm
    /// targets.
    pub async fn tick(&self) {
        let now = Instant::now();
        self.metrics.sample_if_due(now);
        let mut expired: HashMap<String, Vec<String>> = HashMap::new();
        for (id, l) in lock(&self.leases).take_where(|l| l.expires <= now) {
            expired.entry(l.worker).or_default().push(id);
        }
        for (worker, ids) in expired {
            for id in &ids {
                self.end(id, "expired: no heartbeat within its ttl");
                Metrics::inc(&self.metrics.leases_expired);
            }
            tracing::info!(worker = %worker, count = ids.len(), "reclaimed expired leases");
            if let Some(link) = self.link(&worker) {
                if let Err(LinkError::Unreachable(why)) = link.release(&ids, "expired").await {
                    self.mark_lost(&worker, &why);
                }
            }
        }
        let silent: Vec<String> = lock(&self.workers)
            .iter()
            .filter(|w| w.alive && w.local.is_none() && w.last_seen.elapsed() > self.config.worker_timeout)
            .map(|w| w.id.clone())
            .collect();
        for id in silent {
            self.mark_lost(&id, "no heartbeat");
        }
        self.spread_warm().await;
    }

    async fn spread_warm(&self) {
        for (spec, target) in self.config.warm.clone() {
            let sends: Vec<(String, Arc<dyn WorkerLink>, usize)> = {
                let mut workers = lock(&self.workers);
                let loads: Vec<WorkerLoad> = workers
                    .iter()
                    .map(|w| {
                        let s = w.status();
                        WorkerLoad { alive: w.alive, capacity: s.capacity, instances: s.instances, leased: s.leased, ready: 0 }
                    })
                    .collect();
                let shares = plan::spread_warm(target, &loads);
                workers
                    .iter_mut()
                    .zip(shares)
                    .filter(|(w, n)| w.alive && w.warm_sent.get(&spec) != Some(n))
                    .map(|(w, n)| {
                        w.warm_sent.insert(spec.clone(), n);
                        (w.id.clone(), w.link.clone(), n)
                    })
                    .collect()
            };
            for (id, link, n) in sends {
                match link.set_warm(&spec, n).await {
                    Err(LinkError::Unreachable(why)) => self.mark_lost(&id, &why),
                    Err(e) => tracing::warn!(worker = %id, error = %e, "could not set warm target"),
                    Ok(()) => {}
                }
            }
        }
    }

    pub async fn run_control_loop(self: Arc<Self>) {
        loop {
            self.tick().await;
            tokio::time::sleep(self.config.reclaim_every).await;
        }
    }

    /// Instances by state, summed over live workers: leased is the manager's own count of
    /// the leases it holds (exact); ready and the rest are as the workers last reported.
    pub fn gauges(&self) -> Vec<(String, f64)> {
        let workers = self.workers();
        let alive: Vec<&WorkerInfo> = workers.iter().filter(|w| w.alive).collect();
        let leased = self.active_leases();
        let total: usize = alive.iter().map(|w| w.status.instances).sum();
        let ready: usize = alive.iter().map(|w| w.status.ready.values().sum::<usize>()).sum();
        vec![("leased".into(), leased as f64), ("ready".into(), ready as f64), ("other".into(), total.saturating_sub(leased + ready) as f64)]
    }
}

/// A worker id: 1 to 64 of `[A-Za-z0-9_-]`.
fn check_worker_id(id: &str) -> Result<(), ControlError> {
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return Err(ControlError::BadRequest("worker_id must be 1 to 64 characters of A-Z, a-z, 0-9, - and _".into()));
    }
    Ok(())
}

/// A worker's data URL: `http(s)://host[:port]`, nothing else (no user, path, query or
/// fragment), so that it names a server and nothing can be smuggled into the requests built on it.
fn check_data_url(url: &str) -> Result<(), ControlError> {
    let bad = |why: &str| Err(ControlError::BadRequest(format!("data_url {url:?}: {why}")));
    let Ok(parsed) = reqwest::Url::parse(url) else { return bad("not a URL") };
    if !matches!(parsed.scheme(), "http" | "https") {
        return bad("the scheme must be http or https");
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return bad("no host");
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return bad("no user or password");
    }
    if parsed.path() != "/" || parsed.query().is_some() || parsed.fragment().is_some() {
        return bad("no path, query or fragment");
    }
    if url.ends_with('/') {
        return bad("no trailing slash");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_urls_name_a_server_and_nothing_else() {
        assert!(check_data_url("http://127.0.0.1:8081").is_ok());
        assert!(check_data_url("https://worker-3.internal").is_ok());
        for bad in ["http://127.0.0.1:9/any/path?x=", "ftp://a", "http://u:p@h:1", "http://h:1/", "http://h:1?q", "http://h#f", "not a url", ""] {
            assert!(check_data_url(bad).is_err(), "{bad}");
        }
        assert!(check_worker_id("w-0f3a_9").is_ok());
        assert!(check_worker_id("../x").is_err() && check_worker_id("").is_err() && check_worker_id(&"a".repeat(65)).is_err());
    }

    /// A remote worker whose instances take a while to provision, as real ones do.
    struct SlowToProvision {
        id: String,
        next: std::sync::atomic::AtomicU64,
        capacity: usize,
        /// Where it heartbeats as it starts to provision (the manager and its secret), the way
        /// a worker's status counts an instance from then on.
        reports_to: Mutex<Option<(Arc<Manager>, String)>>,
        provisioning: std::sync::atomic::AtomicUsize,
    }

    impl SlowToProvision {
        fn new(id: &str, capacity: usize) -> Arc<SlowToProvision> {
            Arc::new(SlowToProvision { id: id.into(), next: 0.into(), capacity, reports_to: Mutex::new(None), provisioning: 0.into() })
        }

        fn status(&self, instances: usize) -> WorkerStatus {
            WorkerStatus { capacity: self.capacity, instances, backends: vec!["sim".into()], ..WorkerStatus::default() }
        }

        async fn register_with(self: &Arc<Self>, manager: &Arc<Manager>) {
            let url = format!("http://{}:1", self.id);
            let secret = manager.register(&self.id, &url, self.status(0), self.clone()).await.unwrap();
            *lock(&self.reports_to) = Some((manager.clone(), secret));
        }
    }

    #[async_trait]
    impl WorkerLink for SlowToProvision {
        async fn identity(&self) -> Result<String, LinkError> {
            Ok(self.id.clone())
        }
        async fn acquire(&self, _: &EnvSpec, leases: &[String]) -> Result<Vec<u64>, LinkError> {
            let instances = self.provisioning.fetch_add(leases.len(), std::sync::atomic::Ordering::SeqCst) + leases.len();
            if let Some((manager, secret)) = lock(&self.reports_to).clone() {
                manager.worker_heartbeat(&self.id, &secret, self.status(instances)).unwrap();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok(leases.iter().map(|_| self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)).collect())
        }
        async fn release(&self, _: &[String], _: &str) -> Result<(), LinkError> {
            Ok(())
        }
        async fn set_warm(&self, _: &EnvSpec, _: usize) -> Result<(), LinkError> {
            Ok(())
        }
    }

    /// Requests that arrive together (an eval's parallel slots each ask for one instance) see
    /// each other's placements while the workers are still provisioning: they spread instead of
    /// all landing on the first worker.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_requests_spread_over_workers_while_they_provision() {
        let manager = Manager::new(ManagerConfig::default());
        for id in ["w-first", "w-second"] {
            SlowToProvision::new(id, 64).register_with(&manager).await;
        }
        let spec = EnvSpec::sim();
        let requests: Vec<_> = (0..6)
            .map(|_| {
                let (manager, spec) = (manager.clone(), spec.clone());
                tokio::spawn(async move { manager.request(&spec, 1, None).await })
            })
            .collect();
        let mut per_worker: HashMap<String, usize> = HashMap::new();
        for r in requests {
            for grant in r.await.unwrap().unwrap() {
                *per_worker.entry(grant.worker_id).or_default() += 1;
            }
        }
        assert_eq!(per_worker.get("w-first"), Some(&3), "{per_worker:?}");
        assert_eq!(per_worker.get("w-second"), Some(&3), "{per_worker:?}");
        assert!(lock(&manager.placing).is_empty(), "nothing is left in flight");
    }

    /// A worker that already counts an instance it is provisioning is not charged for it a
    /// second time: at capacity 2, a second request while the first provisions still fits.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_instance_being_provisioned_is_counted_once() {
        let manager = Manager::new(ManagerConfig::default());
        let worker = SlowToProvision::new("w-tight", 2);
        worker.register_with(&manager).await;
        let spec = EnvSpec::sim();
        let first = {
            let (manager, spec) = (manager.clone(), spec.clone());
            tokio::spawn(async move { manager.request(&spec, 1, None).await })
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while worker.provisioning.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            assert!(Instant::now() < deadline && !first.is_finished(), "the first request never reached the worker");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let second = manager.request(&spec, 1, None).await;
        assert!(second.is_ok(), "{second:?}");
        assert!(first.await.unwrap().is_ok());
        let third = manager.request(&spec, 1, None).await;
        assert!(matches!(third, Err(ControlError::NoCapacity(_))), "{third:?}");
    }
}
