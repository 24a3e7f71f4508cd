//! The control plane: leases, workers and warm-pool targets. It decides who holds which
//! instance, for how long, on which worker; it never sees observations or actions.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
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

/// Builds the link to a worker that registers from a URL.
pub type LinkFactory = Arc<dyn Fn(&str) -> Arc<dyn WorkerLink> + Send + Sync>;

/// A worker in this process.
pub struct LocalLink(pub Arc<Worker>);

#[async_trait]
impl WorkerLink for LocalLink {
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

#[derive(Debug, Clone)]
pub struct ManagerConfig {
    pub default_ttl: Duration,
    pub max_ttl: Duration,
    /// How often expired leases are reclaimed and lost workers noticed.
    pub reclaim_every: Duration,
    /// A remote worker silent this long is lost.
    pub worker_timeout: Duration,
    /// Warm-pool targets: ready instances kept ahead of demand, per spec.
    pub warm: Vec<(EnvSpec, usize)>,
}

impl Default for ManagerConfig {
    fn default() -> ManagerConfig {
        ManagerConfig {
            default_ttl: Duration::from_secs(300),
            max_ttl: Duration::from_secs(24 * 3600),
            reclaim_every: Duration::from_millis(250),
            worker_timeout: Duration::from_secs(5),
            warm: Vec::new(),
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
    #[error(transparent)]
    Worker(WorkerError),
}

struct WorkerEntry {
    id: String,
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
    leases: Mutex<HashMap<String, Lease>>,
    ended: Mutex<Ended>,
    next: AtomicU64,
    /// Distinguishes lease ids across manager restarts.
    epoch: u64,
    pub metrics: Arc<Metrics>,
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
            leases: Mutex::new(HashMap::new()),
            ended: Mutex::new(Ended::default()),
            next: AtomicU64::new(1),
            epoch: now_ms() % 1_000_000,
            metrics: Arc::new(Metrics::default()),
        })
    }

    /// Adds the worker that lives in this process.
    pub fn add_local_worker(&self, worker: Arc<Worker>, data_url: &str) -> String {
        let id = "local".to_string();
        lock(&self.workers).push(WorkerEntry {
            id: id.clone(),
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

    /// Registers (or re-registers) a remote worker.
    pub fn register(&self, data_url: &str, status: WorkerStatus, link: Arc<dyn WorkerLink>) -> String {
        let mut workers = lock(&self.workers);
        if let Some(w) = workers.iter_mut().find(|w| w.data_url == data_url) {
            // A restarted worker lost its instances: the old leases on it are over.
            w.link = link;
            w.status = status;
            w.last_seen = Instant::now();
            w.alive = true;
            w.warm_sent.clear();
            return w.id.clone();
        }
        let id = format!("w{}", workers.len());
        workers.push(WorkerEntry {
            id: id.clone(),
            data_url: data_url.to_string(),
            link,
            local: None,
            status,
            last_seen: Instant::now(),
            alive: true,
            warm_sent: HashMap::new(),
        });
        tracing::info!(worker = %id, url = data_url, "worker registered");
        id
    }

    pub fn worker_heartbeat(&self, id: &str, status: WorkerStatus) -> Result<(), ControlError> {
        let mut workers = lock(&self.workers);
        let w = workers.iter_mut().find(|w| w.id == id).ok_or_else(|| ControlError::UnknownWorker(id.to_string()))?;
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
        lock(&self.leases).len()
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
        let mut lost = Vec::new();
        {
            let mut workers = lock(&self.workers);
            if let Some(w) = workers.iter_mut().find(|w| w.id == worker_id && w.local.is_none()) {
                if w.alive {
                    tracing::warn!(worker = worker_id, error = why, "worker lost");
                }
                w.alive = false;
            }
        }
        lock(&self.leases).retain(|id, l| {
            let keep = l.worker != worker_id;
            if !keep {
                lost.push(id.clone());
            }
            keep
        });
        for id in lost {
            self.end(&id, &format!("worker {worker_id} lost: {why}"));
            Metrics::inc(&self.metrics.infra_failures);
        }
    }

    /// Grants `count` leases on instances of `spec`, all or nothing.
    pub async fn request(&self, spec: &EnvSpec, count: usize, ttl: Option<Duration>) -> Result<Vec<LeaseGrant>, ControlError> {
        if count == 0 || count > 100_000 {
            return Err(ControlError::BadRequest(format!("count must be within 1..=100000, got {count}")));
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
            if plan.iter().all(|(_, n)| *n == 0) {
                break;
            }
            for (index, n) in plan.into_iter().filter(|(_, n)| *n > 0) {
                let (worker_id, data_url, link) = {
                    let workers = lock(&self.workers);
                    let Some(w) = workers.get(index) else { continue };
                    (w.id.clone(), w.data_url.clone(), w.link.clone())
                };
                let ids: Vec<String> = (0..n).map(|_| self.new_lease_id()).collect();
                match link.acquire(spec, &ids).await {
                    Ok(instances) => {
                        let mut leases = lock(&self.leases);
                        for (lease, instance) in ids.into_iter().zip(instances) {
                            leases.insert(lease.clone(), Lease { worker: worker_id.clone(), instance, spec: spec.clone(), ttl, expires: Instant::now() + ttl });
                            grants.push(LeaseGrant {
                                lease_id: lease,
                                instance_id: instance,
                                worker_id: worker_id.clone(),
                                data_url: data_url.clone(),
                                ttl_ms: ttl.as_millis() as u64,
                                expires_at_ms: now_ms() + ttl.as_millis() as u64,
                            });
                            remaining -= 1;
                        }
                        drop(leases);
                        self.bump_remote(&worker_id, n);
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

    /// Account leases just placed on a remote worker until its next heartbeat says so itself.
    fn bump_remote(&self, worker_id: &str, n: usize) {
        if let Some(w) = lock(&self.workers).iter_mut().find(|w| w.id == worker_id && w.local.is_none()) {
            w.status.leased += n;
            w.status.instances = w.status.instances.max(w.status.leased);
        }
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

    /// How many of `count` leases each worker (by index) takes.
    fn place(&self, spec: &EnvSpec, count: usize) -> Vec<(usize, usize)> {
        let key = spec.key();
        let mut loads: Vec<WorkerLoad> = lock(&self.workers)
            .iter()
            .map(|w| {
                let s = w.status();
                WorkerLoad { alive: w.alive, capacity: s.capacity, instances: s.instances, ready: s.ready.get(&key).copied().unwrap_or(0) }
            })
            .collect();
        let mut out = vec![0usize; loads.len()];
        for _ in 0..count {
            let Some(i) = plan::place(&loads) else { break };
            out[i] += 1;
            if loads[i].ready > 0 {
                loads[i].ready -= 1;
            } else {
                loads[i].instances += 1;
            }
        }
        out.into_iter().enumerate().collect()
    }

    fn new_lease_id(&self) -> String {
        format!("l{}-{}", self.epoch, self.next.fetch_add(1, Ordering::Relaxed))
    }

    pub fn heartbeat(&self, lease: &str) -> Result<LeaseGrant, ControlError> {
        let mut leases = lock(&self.leases);
        let l = leases.get_mut(lease).ok_or_else(|| self.gone(lease))?;
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
        if let Some(link) = self.link(&l.worker) {
            if let Err(LinkError::Unreachable(why)) = link.release(&[lease.to_string()], "released").await {
                self.mark_lost(&l.worker, &why);
            }
        }
        let _ = l.spec;
        Ok(())
    }

    /// One pass of the control loop: reclaim expired leases, notice lost workers, spread warm
    /// targets.
    pub async fn tick(&self) {
        let now = Instant::now();
        let mut expired: HashMap<String, Vec<String>> = HashMap::new();
        lock(&self.leases).retain(|id, l| {
            let keep = l.expires > now;
            if !keep {
                expired.entry(l.worker.clone()).or_default().push(id.clone());
            }
            keep
        });
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
                        WorkerLoad { alive: w.alive, capacity: s.capacity, instances: s.instances, ready: 0 }
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

    /// Instances by state, summed over live workers.
    pub fn gauges(&self) -> Vec<(String, f64)> {
        let workers = self.workers();
        let alive: Vec<&WorkerInfo> = workers.iter().filter(|w| w.alive).collect();
        let leased: usize = alive.iter().map(|w| w.status.leased).sum();
        let total: usize = alive.iter().map(|w| w.status.instances).sum();
        let ready: usize = alive.iter().map(|w| w.status.ready.values().sum::<usize>()).sum();
        vec![
            ("leased".into(), leased as f64),
            ("ready".into(), ready as f64),
            ("other".into(), total.saturating_sub(leased + ready) as f64),
        ]
    }
}
