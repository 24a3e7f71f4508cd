//! The HTTP API, versioned under `/v1`, JSON in and out: the manager's control routes, the
//! worker's control and data routes, `/metrics` (Prometheus text) and `/healthz`.
//! Routers are built by functions that tests call directly.
//!
//! Errors are `{"error": {"code": …, "message": …}}` with a 4xx for the caller's mistakes
//! (malformed JSON or unknown fields 400/422, unknown lease 404, ended lease 410, oversize
//! body 413) and a 5xx for infrastructure failures (502) and missing capacity (503).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Path, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use guigym_core::{Action, ObserveOptions, TaskSpec};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::control::{ControlError, LinkFactory, Manager};
use crate::spec::EnvSpec;
use crate::worker::{Worker, WorkerError, WorkerStatus};

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 4 << 20;

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

async fn require_token(State(token): State<Option<Arc<str>>>, req: Request, next: Next) -> Response {
    if let Some(token) = token {
        let given = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
        if given != Some(&*token) {
            return ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", "a valid bearer token is required").into_response();
        }
    }
    next.run(req).await
}

/// Puts routes behind the bearer token, when one is set: a 401 with the error envelope otherwise.
pub fn behind_token(routes: Router, token: Option<String>) -> Router {
    let token: Option<Arc<str>> = token.filter(|t| !t.is_empty()).map(Arc::from);
    routes.layer(middleware::from_fn_with_state(token, require_token))
}

/// Puts `/v1` routes behind the bearer token (when one is set) and adds health and metrics.
fn finish(v1: Router, token: Option<String>, metrics: Arc<dyn Fn() -> String + Send + Sync>) -> Router {
    let v1 = behind_token(v1, token);
    Router::new()
        .merge(v1)
        .route("/healthz", get(|| async { "ok" }))
        .route("/metrics", get(move || async move { ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], metrics()) }))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such route") })
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
    pub data_url: String,
    pub status: WorkerStatus,
}

fn manager_routes(m: Arc<Manager>, link: LinkFactory) -> Router {
    Router::new()
        .route(
            "/v1/leases",
            post(|State(m): State<Arc<Manager>>, Body(r): Body<LeaseRequest>| async move {
                let leases = m.request(&r.spec, r.count, r.ttl_ms.map(Duration::from_millis)).await?;
                Ok::<_, ApiError>(Json(json!({ "leases": leases })))
            }),
        )
        .route(
            "/v1/leases/{id}/heartbeat",
            post(|State(m): State<Arc<Manager>>, Path(id): Path<String>| async move { Ok::<_, ApiError>(Json(m.heartbeat(&id)?)) }),
        )
        .route(
            "/v1/leases/{id}",
            delete(|State(m): State<Arc<Manager>>, Path(id): Path<String>| async move {
                m.release(&id).await?;
                Ok::<_, ApiError>(Json(json!({ "released": id })))
            }),
        )
        .route("/v1/workers", get(|State(m): State<Arc<Manager>>| async move { Json(m.workers()) }))
        .route(
            "/v1/pools",
            get(|State(m): State<Arc<Manager>>| async move {
                let gauges: serde_json::Map<String, serde_json::Value> = m.gauges().into_iter().map(|(k, v)| (k, json!(v))).collect();
                Json(json!({ "instances": gauges, "leases": m.active_leases(), "warm_targets": m.config.warm.iter().map(|(s, n)| json!({"spec": s, "target": n})).collect::<Vec<_>>() }))
            }),
        )
        .route(
            "/v1/workers",
            post({
                let link = link.clone();
                move |State(m): State<Arc<Manager>>, Body(r): Body<RegisterRequest>| async move {
                    if !(r.data_url.starts_with("http://") || r.data_url.starts_with("https://")) {
                        return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "data_url must be an http(s) URL"));
                    }
                    let id = m.register(&r.data_url, r.status, link(&r.data_url));
                    Ok(Json(json!({ "worker_id": id })))
                }
            }),
        )
        .route(
            "/v1/workers/{id}/heartbeat",
            post(|State(m): State<Arc<Manager>>, Path(id): Path<String>, Body(status): Body<WorkerStatus>| async move {
                m.worker_heartbeat(&id, status)?;
                Ok::<_, ApiError>(Json(json!({})))
            }),
        )
        .with_state(m)
}

/// The manager alone (workers elsewhere). `link` builds the HTTP link to a registering worker.
pub fn manager_router(
    m: Arc<Manager>,
    token: Option<String>,
    link: LinkFactory,
) -> Router {
    let metrics_m = m.clone();
    finish(manager_routes(m, link), token, Arc::new(move || manager_metrics(&metrics_m)))
}

fn manager_metrics(m: &Manager) -> String {
    let mut gauges: Vec<(&str, String, f64)> =
        m.gauges().into_iter().map(|(state, v)| ("guigym_instances", format!("{{state=\"{state}\"}}"), v)).collect();
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
    pub task: TaskSpec,
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

fn worker_routes(w: Arc<Worker>) -> Router {
    Router::new()
        .route(
            "/v1/worker/acquire",
            post(|State(w): State<Arc<Worker>>, Body(r): Body<AcquireRequest>| async move {
                Ok::<_, ApiError>(Json(json!({ "instances": w.acquire(&r.spec, &r.leases).await? })))
            }),
        )
        .route(
            "/v1/worker/release",
            post(|State(w): State<Arc<Worker>>, Body(r): Body<ReleaseRequest>| async move {
                w.release(&r.leases, &r.reason).await;
                Json(json!({}))
            }),
        )
        .route(
            "/v1/worker/warm",
            post(|State(w): State<Arc<Worker>>, Body(r): Body<WarmRequest>| async move {
                w.set_warm(&r.spec, r.target)?;
                Ok::<_, ApiError>(Json(json!({})))
            }),
        )
        .route("/v1/worker/status", get(|State(w): State<Arc<Worker>>| async move { Json(w.status()) }))
        .route(
            "/v1/instances/{id}/reset",
            post(|State(w): State<Arc<Worker>>, Path(id): Path<u64>, Body(r): Body<ResetRequest>| async move {
                Ok::<_, ApiError>(Json(w.reset(id, &r.lease, &r.task).await?))
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
                let png = obs.screenshot.map(|s| s.png).unwrap_or_default();
                Ok::<_, ApiError>(([(header::CONTENT_TYPE, "image/png")], png))
            }),
        )
        .route(
            "/v1/instances/{id}/step",
            post(|State(w): State<Arc<Worker>>, Path(id): Path<u64>, Body(r): Body<StepRequest>| async move {
                let action: Action = serde_json::from_value(r.action)
                    .map_err(|e| ApiError::from(WorkerError::BadAction(e.to_string())))?;
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
            post(|State(w): State<Arc<Worker>>, Path(id): Path<u64>, Body(r): Body<LeaseOnly>| async move {
                w.apply_golden(id, &r.lease).await?;
                Ok::<_, ApiError>(Json(json!({})))
            }),
        )
        .with_state(w)
}

fn worker_metrics(w: &Worker) -> String {
    let s = w.status();
    let ready: usize = s.ready.values().sum();
    let gauges = [
        ("guigym_instances", "{state=\"leased\"}", s.leased as f64),
        ("guigym_instances", "{state=\"ready\"}", ready as f64),
        ("guigym_instances", "{state=\"other\"}", s.instances.saturating_sub(s.leased + ready) as f64),
        ("guigym_worker_capacity", "", s.capacity as f64),
    ];
    w.metrics.render(&gauges)
}

/// A worker alone.
pub fn worker_router(w: Arc<Worker>, token: Option<String>) -> Router {
    let mw = w.clone();
    finish(worker_routes(w), token, Arc::new(move || worker_metrics(&mw)))
}

/// Manager and worker in one process: the embedded default of `guigym serve`.
pub fn embedded_router(
    m: Arc<Manager>,
    w: Arc<Worker>,
    token: Option<String>,
    link: LinkFactory,
) -> Router {
    // The worker counts into the manager's metrics (see `Worker::with_metrics`), so one
    // rendering covers both.
    let mm = m.clone();
    let v1 = manager_routes(m, link).merge(worker_routes(w));
    finish(v1, token, Arc::new(move || manager_metrics(&mm)))
}
