//! The HTTP API, versioned under `/v1`, JSON in and out: the manager's control routes, the
//! worker's control and data routes, `/metrics` (Prometheus text) and `/healthz`.
//! Routers are built by functions that tests call directly. Each handler names the role it
//! serves (`As<Client>`, `As<Fleet>`, `As<Operator>`; see `auth`); data-plane handlers take
//! none, their lease id is the capability.
//!
//! Errors are `{"error": {"code": …, "message": …}}` — every one, path and query errors
//! included — with a 4xx for the caller's mistakes (malformed JSON or unknown fields 400/422,
//! bad credentials 401/403, unknown lease 404, address taken 409, ended lease 410, spent step
//! budget 409, oversize body 413 at once, a body that stalls 408) and a 5xx for infrastructure
//! failures (502) and missing capacity (503).

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use guigym_core::{Action, ObserveOptions, TaskSpec};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::auth::{Credentials, Role};
use crate::control::{ControlError, LinkFactory, Manager};
use crate::spec::EnvSpec;
use crate::worker::{Worker, WorkerError, WorkerStatus};

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 4 << 20;
/// How long a request body may take to arrive.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError { status, code, message: message.into() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(json!({"error": {"code": self.code, "message": self.message}}));
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            // No capacity is a wait, not a failure: say how long to wait.
            return (self.status, [(header::RETRY_AFTER, "1")], body).into_response();
        }
        (self.status, body).into_response()
    }
}

impl From<WorkerError> for ApiError {
    fn from(e: WorkerError) -> ApiError {
        let (status, code) = match &e {
            WorkerError::UnknownInstance(_) => (StatusCode::NOT_FOUND, "unknown_instance"),
            WorkerError::NotYourLease(_) => (StatusCode::NOT_FOUND, "unknown_lease"),
            WorkerError::LeaseEnded { .. } => (StatusCode::GONE, "lease_ended"),
            WorkerError::Full(_) => (StatusCode::SERVICE_UNAVAILABLE, "no_capacity"),
            WorkerError::BadSpec(_) => (StatusCode::BAD_REQUEST, "bad_spec"),
            WorkerError::BadTask(_) => (StatusCode::BAD_REQUEST, "bad_task"),
            WorkerError::BadAction(_) => (StatusCode::UNPROCESSABLE_ENTITY, "bad_action"),
            WorkerError::Infra(_) => (StatusCode::BAD_GATEWAY, "infrastructure"),
            WorkerError::BudgetSpent(_) => (StatusCode::CONFLICT, "step_budget_spent"),
            WorkerError::NotReset => (StatusCode::CONFLICT, "reset_needed"),
        };
        ApiError::new(status, code, e.to_string())
    }
}

impl From<ControlError> for ApiError {
    fn from(e: ControlError) -> ApiError {
        match e {
            ControlError::Worker(w) => w.into(),
            other => {
                let (status, code) = match &other {
                    ControlError::UnknownLease(_) => (StatusCode::NOT_FOUND, "unknown_lease"),
                    ControlError::LeaseEnded { .. } => (StatusCode::GONE, "lease_ended"),
                    ControlError::UnknownWorker(_) => (StatusCode::NOT_FOUND, "unknown_worker"),
                    ControlError::NoCapacity(_) => (StatusCode::SERVICE_UNAVAILABLE, "no_capacity"),
                    ControlError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
                    ControlError::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
                    ControlError::BadRequest(_) | ControlError::Worker(_) => (StatusCode::BAD_REQUEST, "bad_request"),
                };
                ApiError::new(status, code, other.to_string())
            }
        }
    }
}

/// A JSON body whose rejections (syntax, unknown fields, size, content type) are our errors.
pub struct Body<T>(pub T);

impl<S, T> FromRequest<S> for Body<T>
where
    Json<T>: FromRequest<S, Rejection = JsonRejection>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(v)) => Ok(Body(v)),
            Err(r) => {
                let code = if r.status() == StatusCode::PAYLOAD_TOO_LARGE { "body_too_large" } else { "bad_json" };
                Err(ApiError::new(r.status(), code, r.body_text()))
            }
        }
    }
}

/// The role a handler serves: `As<Client>` as its first argument admits only requests that
/// bear the clients' credential (see `auth::Credentials`, found in the request's extensions).
pub struct As<R>(PhantomData<R>);

pub trait RoleMarker {
    const ROLE: Role;
}
pub struct Client;
pub struct Fleet;
pub struct Operator;
impl RoleMarker for Client {
    const ROLE: Role = Role::Client;
}
impl RoleMarker for Fleet {
    const ROLE: Role = Role::Worker;
}
impl RoleMarker for Operator {
    const ROLE: Role = Role::Operator;
}

impl<S: Send + Sync, R: RoleMarker> FromRequestParts<S> for As<R> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, _state: &S) -> Result<Self, ApiError> {
        // A router built without credentials is a bug: closed, never open.
        let creds = parts
            .extensions
            .get::<Arc<Credentials>>()
            .ok_or_else(|| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "no_credentials", "this route was mounted without credentials"))?;
        creds.check(R::ROLE, crate::auth::bearer(&parts.headers))?;
        Ok(As(PhantomData))
    }
}

/// Reads the whole body before the handler runs: an announced length over the limit is a 413
/// at once, a body that stalls past `BODY_TIMEOUT` a 408, so no request holds a connection
/// and memory for long.
async fn bounded_body(req: Request, next: Next) -> Response {
    let announced = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > BODY_LIMIT as u64) {
        return ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", format!("the body may hold at most {BODY_LIMIT} bytes")).into_response();
    }
    let (parts, body) = req.into_parts();
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, BODY_LIMIT)).await {
        Ok(Ok(bytes)) => next.run(Request::from_parts(parts, axum::body::Body::from(bytes))).await,
        Ok(Err(_)) => ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "body_too_large", format!("the body may hold at most {BODY_LIMIT} bytes")).into_response(),
        Err(_) => {
            ApiError::new(StatusCode::REQUEST_TIMEOUT, "body_timeout", format!("the body did not arrive within {} s", BODY_TIMEOUT.as_secs())).into_response()
        }
    }
}

/// Any error response that is not yet in the JSON error shape (axum's own rejections of a
/// path or a query) is put into it.
async fn json_errors(req: Request, next: Next) -> Response {
    let response = next.run(req).await;
    let status = response.status();
    // JSON errors are ours already; HTML ones are pages for a browser (the dashboard).
    let typed =
        response.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json") || v.as_bytes().starts_with(b"text/html"));
    if !(status.is_client_error() || status.is_server_error()) || typed {
        return response;
    }
    let text = axum::body::to_bytes(response.into_body(), 64 << 10).await.map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let code = match status {
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        s if s.is_server_error() => "internal",
        _ => "bad_request",
    };
    ApiError::new(status, code, if text.is_empty() { status.to_string() } else { text }).into_response()
}

/// What every router shares: the credentials its handlers check, the bounded body, the JSON
/// error shape, health and metrics (both open: no secrets, for probes and scrapers).
pub fn finish(routes: Router, creds: Arc<Credentials>, metrics: Arc<dyn Fn() -> String + Send + Sync>) -> Router {
    Router::new()
        .merge(routes)
        .route("/healthz", get(|| async { "ok" }))
        .route("/metrics", get(move || async move { ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], metrics()) }))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such route") })
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn(bounded_body))
        .layer(middleware::from_fn(json_errors))
        .layer(axum::Extension(creds))
}

// ---- manager ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaseRequest {
    pub spec: EnvSpec,
    #[serde(default = "one")]
    pub count: usize,
    #[serde(default)]
    pub ttl_ms: Option<u64>,
}

fn one() -> usize {
    1
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterRequest {
    /// The worker's own random identity, kept across manager restarts.
    pub worker_id: String,
    pub data_url: String,
    pub status: WorkerStatus,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkerHeartbeat {
    /// The secret the manager issued at registration.
    pub secret: String,
    pub status: WorkerStatus,
}

fn manager_routes(m: Arc<Manager>, link: LinkFactory) -> Router {
    Router::new()
        .route(
            "/v1/leases",
            post(|_: As<Client>, State(m): State<Arc<Manager>>, Body(r): Body<LeaseRequest>| async move {
                let leases = m.request(&r.spec, r.count, r.ttl_ms.map(Duration::from_millis)).await?;
                Ok::<_, ApiError>(Json(json!({ "leases": leases })))
            }),
        )
        .route(
            "/v1/leases/{id}/heartbeat",
            post(|_: As<Client>, State(m): State<Arc<Manager>>, Path(id): Path<String>| async move { Ok::<_, ApiError>(Json(m.heartbeat(&id)?)) }),
        )
        .route(
            "/v1/leases/{id}",
            delete(|_: As<Client>, State(m): State<Arc<Manager>>, Path(id): Path<String>| async move {
                m.release(&id).await?;
                Ok::<_, ApiError>(Json(json!({ "released": id })))
            }),
        )
        .route(
            "/v1/pools",
            get(|_: As<Operator>, State(m): State<Arc<Manager>>| async move {
                let gauges: serde_json::Map<String, serde_json::Value> = m.gauges().into_iter().map(|(k, v)| (k, json!(v))).collect();
                Json(json!({ "instances": gauges, "leases": m.active_leases(), "warm_targets": m.config.warm.iter().map(|(s, n)| json!({"spec": s, "target": n})).collect::<Vec<_>>() }))
            }),
        )
        .route(
            "/v1/workers",
            get(|_: As<Operator>, State(m): State<Arc<Manager>>| async move { Json(m.workers()) }).post({
                let link = link.clone();
                move |_: As<Fleet>, State(m): State<Arc<Manager>>, Body(r): Body<RegisterRequest>| async move {
                    let secret = m.register(&r.worker_id, &r.data_url, r.status, link(&r.data_url, &r.worker_id)).await?;
                    Ok::<_, ApiError>(Json(json!({ "worker_id": r.worker_id, "secret": secret })))
                }
            }),
        )
        .route(
            "/v1/workers/{id}/heartbeat",
            post(|_: As<Fleet>, State(m): State<Arc<Manager>>, Path(id): Path<String>, Body(h): Body<WorkerHeartbeat>| async move {
                m.worker_heartbeat(&id, &h.secret, h.status)?;
                Ok::<_, ApiError>(Json(json!({})))
            }),
        )
        .with_state(m)
}

/// The manager alone (workers elsewhere). `link` builds the HTTP link to a registering worker.
/// `extra` routes (the CLI's rollouts) are served with the same credentials and bounds.
pub fn manager_router(m: Arc<Manager>, creds: Arc<Credentials>, link: LinkFactory, extra: Router) -> Router {
    let metrics_m = m.clone();
    finish(manager_routes(m, link).merge(extra), creds, Arc::new(move || manager_metrics(&metrics_m)))
}

fn manager_metrics(m: &Manager) -> String {
    let mut gauges: Vec<(&str, String, f64)> = m.gauges().into_iter().map(|(state, v)| ("guigym_instances", format!("{{state=\"{state}\"}}"), v)).collect();
    gauges.push(("guigym_leases_active", String::new(), m.active_leases() as f64));
    let workers = m.workers();
    gauges.push(("guigym_workers_alive", String::new(), workers.iter().filter(|w| w.alive).count() as f64));
    gauges.push(("guigym_workers_lost", String::new(), workers.iter().filter(|w| !w.alive).count() as f64));
    let refs: Vec<(&str, &str, f64)> = gauges.iter().map(|(n, l, v)| (*n, l.as_str(), *v)).collect();
    m.metrics.render(&refs)
}

// ---- worker ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcquireRequest {
    pub spec: EnvSpec,
    pub leases: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseRequest {
    pub leases: Vec<String>,
    pub reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarmRequest {
    pub spec: EnvSpec,
    pub target: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaseOnly {
    pub lease: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResetRequest {
    pub lease: String,
    /// The full task spec, or
    #[serde(default)]
    pub task: Option<TaskSpec>,
    /// a task's id (`GET /v1/tasks` lists them).
    #[serde(default)]
    pub task_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObserveRequest {
    pub lease: String,
    #[serde(default)]
    pub screenshot: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepRequest {
    pub lease: String,
    /// Idempotency key: a retry with the same id is applied once.
    pub request_id: String,
    /// The action as JSON; a malformed one is refused with 422.
    pub action: serde_json::Value,
}

#[derive(Deserialize)]
pub struct LeaseQuery {
    pub lease: String,
}

/// The header naming the worker a manager's call is meant for.
pub const WORKER_HEADER: &str = "x-guigym-worker";

/// A manager's call must name this worker: a process that took over the address of the worker
/// the manager knew refuses calls meant for that one (the manager then counts it lost).
fn addressed_to(w: &Worker, headers: &HeaderMap) -> Result<(), ApiError> {
    match headers.get(WORKER_HEADER).and_then(|v| v.to_str().ok()) {
        Some(id) if id == w.id => Ok(()),
        other => Err(ApiError::new(StatusCode::CONFLICT, "wrong_worker", format!("this is worker {}, not {}", w.id, other.unwrap_or("(unnamed)")))),
    }
}

fn worker_routes(w: Arc<Worker>) -> Router {
    Router::new()
        .route(
            "/v1/worker/acquire",
            post(|_: As<Fleet>, State(w): State<Arc<Worker>>, h: HeaderMap, Body(r): Body<AcquireRequest>| async move {
                addressed_to(&w, &h)?;
                // Run to the end even if the manager hangs up: a half-done acquire would hold
                // instances bound to nothing.
                let instances = tokio::spawn(async move { w.acquire(&r.spec, &r.leases).await })
                    .await
                    .map_err(|e| ApiError::from(WorkerError::Infra(format!("acquire failed: {e}"))))??;
                Ok::<_, ApiError>(Json(json!({ "instances": instances })))
            }),
        )
        .route(
            "/v1/worker/release",
            post(|_: As<Fleet>, State(w): State<Arc<Worker>>, h: HeaderMap, Body(r): Body<ReleaseRequest>| async move {
                addressed_to(&w, &h)?;
                let _ = tokio::spawn(async move { w.release(&r.leases, &r.reason).await }).await;
                Ok::<_, ApiError>(Json(json!({})))
            }),
        )
        .route(
            "/v1/worker/warm",
            post(|_: As<Fleet>, State(w): State<Arc<Worker>>, h: HeaderMap, Body(r): Body<WarmRequest>| async move {
                addressed_to(&w, &h)?;
                w.set_warm(&r.spec, r.target)?;
                Ok::<_, ApiError>(Json(json!({})))
            }),
        )
        .route("/v1/worker/status", get(|_: As<Fleet>, State(w): State<Arc<Worker>>| async move { Json(json!({ "worker_id": w.id, "status": w.status() })) }))
        .route(
            "/v1/instances/{id}/reset",
            post(|State(w): State<Arc<Worker>>, Path(id): Path<u64>, Body(r): Body<ResetRequest>| async move {
                let task = match (r.task, r.task_id) {
                    (Some(task), None) => task,
                    (None, Some(task_id)) => w.task_by_id(&task_id)?,
                    _ => return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "give either task (a full task spec) or task_id")),
                };
                Ok::<_, ApiError>(Json(w.reset(id, &r.lease, &task).await?))
            }),
        )
        .route(
            "/v1/instances/{id}/observe",
            post(|State(w): State<Arc<Worker>>, Path(id): Path<u64>, Body(r): Body<ObserveRequest>| async move {
                Ok::<_, ApiError>(Json(w.observe(id, &r.lease, ObserveOptions { screenshot: r.screenshot }).await?))
            }),
        )
        .route(
            "/v1/instances/{id}/screenshot.png",
            get(|State(w): State<Arc<Worker>>, Path(id): Path<u64>, Query(q): Query<LeaseQuery>| async move {
                let obs = w.observe(id, &q.lease, ObserveOptions { screenshot: true }).await?;
                let png = obs.screenshot.map(|s| s.png().to_vec()).unwrap_or_default();
                Ok::<_, ApiError>(([(header::CONTENT_TYPE, "image/png")], png))
            }),
        )
        .route(
            "/v1/instances/{id}/step",
            post(|State(w): State<Arc<Worker>>, Path(id): Path<u64>, Body(r): Body<StepRequest>| async move {
                let action: Action = serde_json::from_value(r.action).map_err(|e| ApiError::from(WorkerError::BadAction(e.to_string())))?;
                if r.request_id.is_empty() || r.request_id.len() > 200 {
                    return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "request_id must be 1 to 200 characters"));
                }
                Ok(Json(w.step(id, &r.lease, &r.request_id, &action).await?))
            }),
        )
        .route(
            "/v1/instances/{id}/evaluate",
            post(|State(w): State<Arc<Worker>>, Path(id): Path<u64>, Body(r): Body<LeaseOnly>| async move {
                Ok::<_, ApiError>(Json(w.evaluate(id, &r.lease).await?))
            }),
        )
        .route(
            "/v1/instances/{id}/state_hash",
            post(|State(w): State<Arc<Worker>>, Path(id): Path<u64>, Body(r): Body<LeaseOnly>| async move {
                Ok::<_, ApiError>(Json(json!({ "hash": w.state_hash(id, &r.lease).await? })))
            }),
        )
        .route(
            "/v1/instances/{id}/golden",
            // Operators only (task validation): it puts the instance in its solved state.
            post(|_: As<Operator>, State(w): State<Arc<Worker>>, Path(id): Path<u64>, Body(r): Body<LeaseOnly>| async move {
                w.apply_golden(id, &r.lease).await?;
                Ok::<_, ApiError>(Json(json!({})))
            }),
        )
        .with_state(w)
}

fn worker_metrics(w: &Worker) -> String {
    let s = w.status();
    let ready: usize = s.ready.values().sum();
    let rss = crate::metrics::process_rss_bytes().unwrap_or(0) as f64;
    let gauges = [
        ("guigym_instances", "{state=\"leased\"}", s.leased as f64),
        ("guigym_instances", "{state=\"ready\"}", ready as f64),
        ("guigym_instances", "{state=\"other\"}", s.instances.saturating_sub(s.leased + ready) as f64),
        ("guigym_worker_capacity", "", s.capacity as f64),
        ("guigym_process_resident_bytes", "", rss),
        ("guigym_resident_bytes_per_instance", "", rss / s.instances.max(1) as f64),
    ];
    w.metrics.render(&gauges)
}

/// A worker alone.
pub fn worker_router(w: Arc<Worker>, creds: Arc<Credentials>) -> Router {
    let mw = w.clone();
    finish(worker_routes(w), creds, Arc::new(move || worker_metrics(&mw)))
}

/// Manager and worker in one process: the embedded default of `guigym serve`.
pub fn embedded_router(m: Arc<Manager>, w: Arc<Worker>, creds: Arc<Credentials>, link: LinkFactory, extra: Router) -> Router {
    // The worker counts into the manager's metrics (see `Worker::with_metrics`), so one
    // rendering covers both, with the worker's memory figures.
    let (mm, mw) = (m.clone(), w.clone());
    let v1 = manager_routes(m, link).merge(worker_routes(w)).merge(extra);
    finish(v1, creds, Arc::new(move || manager_metrics(&mm) + &memory_gauges(&mw)))
}

fn memory_gauges(w: &Worker) -> String {
    let rss = crate::metrics::process_rss_bytes().unwrap_or(0) as f64;
    let instances = w.status().instances.max(1) as f64;
    format!("# TYPE guigym_process_resident_bytes gauge\nguigym_process_resident_bytes {rss}\n# TYPE guigym_resident_bytes_per_instance gauge\nguigym_resident_bytes_per_instance {}\n", rss / instances)
}
