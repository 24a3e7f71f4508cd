//! The client side of the API: `EnvClient` (the `Env` trait over HTTP, one lease),
//! `ManagerProvider` (an `EnvProvider` that leases from a manager), `RemoteLink` (the
//! manager's link to a worker process) and `run_agent` (a worker's registration and
//! heartbeats).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use guigym_core::{Action, Env, EnvError, EnvProvider, Observation, ObserveOptions, StepOutcome, TaskSpec, Verdict};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::control::{LeaseGrant, LinkError, WorkerLink};
use crate::spec::EnvSpec;
use crate::worker::{Worker, WorkerError};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    #[error("{0}")]
    Transport(String),
    #[error("HTTP {status} {code}: {message}")]
    Status {
        status: u16,
        code: String,
        message: String,
        /// The `Retry-After` the server sent, in milliseconds.
        retry_after_ms: Option<u64>,
    },
    #[error("unexpected response: {0}")]
    Decode(String),
}

impl ClientError {
    /// How the rollout path should see it, by type: refused credentials stop the run, no
    /// capacity is a wait, a request the service calls malformed is a bad task, and anything
    /// else (a lost lease or worker, a transport failure, a 5xx) is infrastructure.
    pub fn into_env_error(self) -> EnvError {
        match &self {
            ClientError::Status { status: 401 | 403, .. } => EnvError::Denied(self.to_string()),
            ClientError::Status { status: 503, retry_after_ms, .. } => EnvError::NoCapacity { message: self.to_string(), retry_after_ms: *retry_after_ms },
            ClientError::Status { status: 400 | 422, .. } => EnvError::BadTask(self.to_string()),
            _ => EnvError::Infra(self.to_string()),
        }
    }
}

/// JSON over HTTP to one base URL, with an optional bearer token.
#[derive(Clone)]
pub struct ApiClient {
    base: String,
    http: reqwest::Client,
    token: Option<String>,
    timeout: Duration,
}

impl ApiClient {
    pub fn new(base: &str, token: Option<String>, timeout: Duration) -> ApiClient {
        ApiClient::with_http(base, token, timeout, reqwest::Client::new())
    }

    pub fn with_http(base: &str, token: Option<String>, timeout: Duration, http: reqwest::Client) -> ApiClient {
        ApiClient { base: base.trim_end_matches('/').to_string(), http, token: token.filter(|t| !t.is_empty()), timeout }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub async fn call<T: DeserializeOwned>(&self, method: reqwest::Method, path: &str, body: Option<&Value>) -> Result<T, ClientError> {
        self.call_with(method, path, body, &[]).await
    }

    /// A call with extra headers.
    pub async fn call_with<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Result<T, ClientError> {
        let mut req = self.http.request(method, format!("{}{path}", self.base)).timeout(self.timeout);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        let resp = req.send().await.map_err(|e| ClientError::Transport(format!("{}{path}: {e}", self.base)))?;
        let status = resp.status().as_u16();
        let retry_after_ms = guigym_core::retry_after_ms(resp.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()));
        let bytes = resp.bytes().await.map_err(|e| ClientError::Transport(e.to_string()))?;
        if !(200..300).contains(&status) {
            let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            return Err(ClientError::Status {
                status,
                code: v.pointer("/error/code").and_then(Value::as_str).unwrap_or("http").to_string(),
                message: v
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| String::from_utf8_lossy(&bytes).chars().take(300).collect()),
                retry_after_ms,
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| ClientError::Decode(e.to_string()))
    }

    pub async fn post<T: DeserializeOwned>(&self, path: &str, body: &Value) -> Result<T, ClientError> {
        self.call(reqwest::Method::POST, path, Some(body)).await
    }
}

/// One leased instance, driven over HTTP. Heartbeats keep the lease alive while it lives;
/// `release` (or drop) gives it back.
pub struct EnvClient {
    data: ApiClient,
    manager: ApiClient,
    pub grant: LeaseGrant,
    heartbeat: Option<tokio::task::JoinHandle<()>>,
    released: bool,
    next_request: AtomicU64,
}

impl EnvClient {
    /// Wraps a granted lease; heartbeats every third of its TTL.
    pub fn new(grant: LeaseGrant, manager: ApiClient, data: ApiClient) -> EnvClient {
        let every = Duration::from_millis((grant.ttl_ms / 3).max(50));
        let (m, id) = (manager.clone(), grant.lease_id.clone());
        let heartbeat = tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let r: Result<Value, _> = m.post(&format!("/v1/leases/{id}/heartbeat"), &json!({})).await;
                if let Err(ClientError::Status { status: 404 | 410, .. }) = r {
                    return;
                }
            }
        });
        EnvClient { data, manager, grant, heartbeat: Some(heartbeat), released: false, next_request: AtomicU64::new(0) }
    }

    fn path(&self, op: &str) -> String {
        format!("/v1/instances/{}/{op}", self.grant.instance_id)
    }

    async fn op<T: DeserializeOwned>(&self, op: &str, body: Value) -> Result<T, EnvError> {
        self.op_raw(op, body).await.map_err(ClientError::into_env_error)
    }

    async fn op_raw<T: DeserializeOwned>(&self, op: &str, mut body: Value) -> Result<T, ClientError> {
        body["lease"] = json!(self.grant.lease_id);
        self.data.post(&self.path(op), &body).await
    }
}

#[async_trait]
impl Env for EnvClient {
    async fn reset(&mut self, task: &TaskSpec) -> Result<Observation, EnvError> {
        self.op("reset", json!({ "task": task })).await
    }

    async fn observe(&mut self, options: ObserveOptions) -> Result<Observation, EnvError> {
        self.op("observe", json!({ "screenshot": options.screenshot })).await
    }

    async fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        let request_id = format!("{}:{}", self.grant.lease_id, self.next_request.fetch_add(1, Ordering::Relaxed));
        let body = json!({ "action": action, "request_id": request_id });
        match self.op_raw("step", body.clone()).await {
            // A lost answer is retried once with the same request id: the worker applies a
            // request id at most once and answers a repeat with the recorded outcome.
            Err(ClientError::Transport(_)) => self.op("step", body).await,
            other => other.map_err(ClientError::into_env_error),
        }
    }

    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        self.op("evaluate", json!({})).await
    }

    async fn state_hash(&mut self) -> Result<String, EnvError> {
        let v: Value = self.op("state_hash", json!({})).await?;
        v.get("hash").and_then(Value::as_str).map(str::to_string).ok_or_else(|| EnvError::Infra("state hash missing".into()))
    }

    async fn apply_golden(&mut self) -> Result<(), EnvError> {
        let _: Value = self.op("golden", json!({})).await?;
        Ok(())
    }

    async fn release(&mut self) -> Result<(), EnvError> {
        if let Some(h) = self.heartbeat.take() {
            h.abort();
        }
        if self.released {
            return Ok(());
        }
        self.released = true;
        let r: Result<Value, _> = self.manager.call(reqwest::Method::DELETE, &format!("/v1/leases/{}", self.grant.lease_id), None).await;
        match r {
            Ok(_) | Err(ClientError::Status { status: 404 | 410, .. }) => Ok(()),
            Err(e) => Err(e.into_env_error()),
        }
    }
}

impl Drop for EnvClient {
    fn drop(&mut self) {
        if let Some(h) = self.heartbeat.take() {
            h.abort();
        }
        if !self.released {
            // Best effort; the TTL reclaims it otherwise.
            let (m, id) = (self.manager.clone(), self.grant.lease_id.clone());
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    let _: Result<Value, _> = m.call(reqwest::Method::DELETE, &format!("/v1/leases/{id}"), None).await;
                });
            }
        }
    }
}

/// Leases instances of one spec from a manager. The clients' token goes to the manager only;
/// the data plane is authorized by each lease's id (and the golden route by the operators'
/// token, when one is given).
pub struct ManagerProvider {
    manager: ApiClient,
    spec: EnvSpec,
    ttl: Duration,
    operator_token: Option<String>,
    http: reqwest::Client,
    op_timeout: Duration,
}

impl ManagerProvider {
    pub fn new(manager_url: &str, token: Option<String>, spec: EnvSpec, ttl: Duration) -> ManagerProvider {
        let http = reqwest::Client::builder().pool_max_idle_per_host(256).build().unwrap_or_default();
        let op_timeout = Duration::from_secs(120);
        ManagerProvider {
            manager: ApiClient::with_http(manager_url, token, Duration::from_secs(60), http.clone()),
            spec,
            ttl,
            operator_token: None,
            http,
            op_timeout,
        }
    }

    /// Sends the operators' token with data-plane calls, for the golden route (validation).
    pub fn with_operator_token(mut self, token: Option<String>) -> ManagerProvider {
        self.operator_token = token.filter(|t| !t.is_empty());
        self
    }

    /// Leases `count` instances in one request.
    pub async fn lease_many(&self, count: usize) -> Result<Vec<EnvClient>, EnvError> {
        let v: Value = self
            .manager
            .post("/v1/leases", &json!({ "spec": self.spec, "count": count, "ttl_ms": self.ttl.as_millis() as u64 }))
            .await
            .map_err(ClientError::into_env_error)?;
        let grants: Vec<LeaseGrant> =
            serde_json::from_value(v.get("leases").cloned().unwrap_or(Value::Null)).map_err(|e| EnvError::Infra(format!("lease response: {e}")))?;
        Ok(grants
            .into_iter()
            .map(|g| {
                let data = ApiClient::with_http(&g.data_url, self.operator_token.clone(), self.op_timeout, self.http.clone());
                EnvClient::new(g, self.manager.clone(), data)
            })
            .collect())
    }
}

#[async_trait]
impl EnvProvider for ManagerProvider {
    fn backend(&self) -> String {
        self.spec.backend.clone()
    }

    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        let mut clients = self.lease_many(1).await?;
        clients.pop().map(|c| Box::new(c) as Box<dyn Env>).ok_or_else(|| EnvError::Infra("the manager granted no lease".into()))
    }
}

/// The manager's link to a worker process, for one worker id.
pub struct RemoteLink {
    api: ApiClient,
    worker_id: String,
}

impl RemoteLink {
    pub fn new(data_url: &str, worker_id: &str, token: Option<String>) -> RemoteLink {
        RemoteLink { api: ApiClient::new(data_url, token, Duration::from_secs(60)), worker_id: worker_id.to_string() }
    }

    /// Links to registering workers, with the fleet's token (the workers' credential).
    pub fn factory(token: Option<String>) -> crate::control::LinkFactory {
        Arc::new(move |url: &str, id: &str| Arc::new(RemoteLink::new(url, id, token.clone())) as Arc<dyn WorkerLink>)
    }

    /// A control call that names the worker it is meant for.
    async fn post(&self, path: &str, body: &Value) -> Result<Value, LinkError> {
        self.api.call_with(reqwest::Method::POST, path, Some(body), &[(crate::api::WORKER_HEADER, &self.worker_id)]).await.map_err(Self::map)
    }

    fn map(e: ClientError) -> LinkError {
        match e {
            ClientError::Transport(why) | ClientError::Decode(why) => LinkError::Unreachable(why),
            // Another process answers at the address: the worker we knew is gone.
            ClientError::Status { code, message, .. } if code == "wrong_worker" => LinkError::Unreachable(message),
            ClientError::Status { code, message, status, .. } => LinkError::Worker(match code.as_str() {
                "no_capacity" => WorkerError::Full(message),
                "bad_spec" => WorkerError::BadSpec(message),
                _ if status >= 500 => WorkerError::Infra(message),
                _ => WorkerError::BadSpec(message),
            }),
        }
    }
}

#[async_trait]
impl WorkerLink for RemoteLink {
    async fn identity(&self) -> Result<String, LinkError> {
        let v: Value = self.api.call(reqwest::Method::GET, "/v1/worker/status", None).await.map_err(Self::map)?;
        v.get("worker_id").and_then(Value::as_str).map(str::to_string).ok_or_else(|| LinkError::Unreachable("no worker_id in /v1/worker/status".into()))
    }

    async fn acquire(&self, spec: &EnvSpec, leases: &[String]) -> Result<Vec<u64>, LinkError> {
        let v = self.post("/v1/worker/acquire", &json!({ "spec": spec, "leases": leases })).await?;
        serde_json::from_value(v.get("instances").cloned().unwrap_or(Value::Null)).map_err(|e| LinkError::Unreachable(e.to_string()))
    }

    async fn release(&self, leases: &[String], reason: &str) -> Result<(), LinkError> {
        self.post("/v1/worker/release", &json!({ "leases": leases, "reason": reason })).await?;
        Ok(())
    }

    async fn set_warm(&self, spec: &EnvSpec, target: usize) -> Result<(), LinkError> {
        self.post("/v1/worker/warm", &json!({ "spec": spec, "target": target })).await?;
        Ok(())
    }
}

/// A worker process's life with its manager: register under its own id (the manager answers
/// with a secret), then heartbeat its status with that secret. When the manager no longer
/// knows it (restarted, or declared it lost) or refuses its secret, it drops every lease and
/// registers again, under the same id.
pub async fn run_agent(manager: ApiClient, data_url: String, worker: Arc<Worker>, every: Duration) {
    let mut secret: Option<String> = None;
    loop {
        match &secret {
            None => {
                let body = json!({ "worker_id": worker.id, "data_url": data_url, "status": worker.status() });
                let r: Result<Value, _> = manager.post("/v1/workers", &body).await;
                match r {
                    Ok(v) => {
                        secret = v.get("secret").and_then(Value::as_str).map(str::to_string);
                        tracing::info!(worker = %worker.id, "registered with the manager");
                        continue; // heartbeat at once: the manager learns the status without waiting
                    }
                    Err(e) => tracing::warn!(error = %e, "cannot register with the manager yet"),
                }
            }
            Some(s) => {
                let body = json!({ "secret": s, "status": worker.status() });
                let r: Result<Value, _> = manager.post(&format!("/v1/workers/{}/heartbeat", worker.id), &body).await;
                if let Err(ClientError::Status { status: 403 | 404, .. }) = r {
                    worker.release_all("the manager no longer knows this worker (it restarted or declared the worker lost)").await;
                    secret = None;
                    continue;
                }
            }
        }
        tokio::time::sleep(every).await;
    }
}
