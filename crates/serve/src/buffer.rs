//! The trajectory buffer over HTTP, for trainers that run elsewhere. Producers (`guigym train`,
//! rollout workers) post whole groups (`POST /v1/groups`) and their screenshots
//! (`PUT /v1/images/{sha256}`); a trainer leases batches of whole groups
//! (`GET /v1/batch?size=N&format=slime|verl`), acknowledges each (`POST /v1/batch/{id}/ack`;
//! an unacknowledged batch is served again once its lease runs out), fetches images
//! (`GET /v1/images/{sha256}`) and announces new weights
//! (`POST /v1/weights {"version": N, "figures": {"kl": …}}`). `GET /v1/buffer` says what the
//! buffer holds.
//!
//! Who may do what: producers hold one bearer credential (groups, image uploads), trainers
//! another (batches, acknowledgements, weights); either may read images and the status. With
//! neither set the buffer is open (loopback, one user); once one is set, a role without its
//! own is closed. Errors are `{"error": {"code": …, "message": …}}`, bodies that are not what
//! a route takes are a 422 naming the field.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::rejection::QueryRejection;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use guigym_harness::packing::Sample;
use guigym_manager::api::ApiError;
use guigym_manager::auth::{bearer, same};
use guigym_rollout::buffer::{export, is_image_hash, AckError, Acked, Buffer, BufferError};
use guigym_rollout::parquet::Layout;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::images;

/// The two roles of the buffer, each with its own credential.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    /// What `guigym train` and rollout workers present to post groups and images.
    pub producer: Option<String>,
    /// What a trainer presents to lease, acknowledge and announce weights.
    pub trainer: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Producer,
    Trainer,
    /// Either credential (reading images and the status).
    Either,
}

impl Tokens {
    /// The tokens from the flags, with `GUIGYM_BUFFER_PRODUCER_TOKEN` and
    /// `GUIGYM_BUFFER_TRAINER_TOKEN` as fallback; empty strings count as unset.
    pub fn from_env(producer: Option<String>, trainer: Option<String>) -> Tokens {
        let pick = |flag: Option<String>, var: &str| flag.or_else(|| std::env::var(var).ok()).filter(|t| !t.is_empty());
        Tokens { producer: pick(producer, "GUIGYM_BUFFER_PRODUCER_TOKEN"), trainer: pick(trainer, "GUIGYM_BUFFER_TRAINER_TOKEN") }
    }

    pub fn is_open(&self) -> bool {
        self.producer.is_none() && self.trainer.is_none()
    }

    fn check(&self, role: Role, headers: &HeaderMap) -> Result<(), ApiError> {
        if self.is_open() {
            return Ok(());
        }
        let given = bearer(headers).map(str::as_bytes);
        let matches = |token: &Option<String>| matches!((token, given), (Some(t), Some(g)) if same(t.as_bytes(), g));
        let (ok, configured) = match role {
            Role::Producer => (matches(&self.producer), self.producer.is_some()),
            Role::Trainer => (matches(&self.trainer), self.trainer.is_some()),
            // Both compared, whatever the first gives: the time says nothing of which matched.
            Role::Either => (matches(&self.producer) | matches(&self.trainer), true),
        };
        if ok {
            return Ok(());
        }
        if !configured {
            let flag = if role == Role::Producer { "--producer-token" } else { "--trainer-token" };
            return Err(ApiError::new(StatusCode::FORBIDDEN, "forbidden", format!("this buffer has no credential for this route: start it with {flag}")));
        }
        Err(ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", "a valid bearer token is required"))
    }
}

pub struct BufferService {
    pub buffer: Buffer,
    /// Where screenshots are kept, as `<sha256>.png`.
    pub images: PathBuf,
    /// The largest request body accepted, in bytes.
    pub max_body: usize,
    pub tokens: Tokens,
}

type Shared = Arc<BufferService>;

pub fn router(service: Shared) -> Router {
    Router::new()
        .route("/v1/batch", get(lease_batch))
        .route("/v1/batch/{id}/ack", post(ack_batch))
        .route("/v1/weights", post(weights))
        .route("/v1/groups", post(post_group))
        .route("/v1/images/{hash}", get(get_image).put(put_image))
        .route("/v1/buffer", get(status))
        .layer(DefaultBodyLimit::disable())
        .with_state(service)
}

fn journal_failed(e: BufferError) -> ApiError {
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "journal_failed", e.to_string())
}

/// How long a request's body may take to arrive: a group of screenshots' worth of samples is
/// a few hundred MiB at most, and a connection that trickles holds memory and a slot.
const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Reads a body up to the configured limit: a larger one, announced or sent, is a 413 naming
/// the setting (an announced one at once, before any of it is read); one that takes longer than
/// `BODY_TIMEOUT` is a 408.
async fn read_body(service: &BufferService, headers: &HeaderMap, body: Body) -> Result<Bytes, ApiError> {
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("request body over {} MiB: raise `guigym buffer serve --max-body-mb`", service.max_body >> 20),
        )
    };
    let announced = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > service.max_body as u64) {
        return Err(too_large());
    }
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, service.max_body)).await {
        Ok(read) => read.map_err(|_| too_large()),
        Err(_) => Err(ApiError::new(StatusCode::REQUEST_TIMEOUT, "body_timeout", format!("the body did not arrive within {} s", BODY_TIMEOUT.as_secs()))),
    }
}

/// Parses a JSON body; a malformed one or a wrong shape is a 422 that names the field
/// (`samples[2].first_step: invalid value: integer -1, expected u32`).
fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    parse_at(bytes, "")
}

/// `parse` of a part of a body found at `at` (`samples`), which the field's name starts with.
/// The body is parsed plainly first; only a body that fails is parsed again, tracking the
/// path, to name the field (tracking every value costs a good part of a parse).
fn parse_at<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8], at: &str) -> Result<T, ApiError> {
    let first = match serde_json::from_slice(bytes) {
        Ok(value) => return Ok(value),
        Err(e) => e,
    };
    let bad = |field: String, why: String| {
        let field = if field.is_empty() { "the body".to_string() } else { field };
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_body", format!("{field}: {why}"))
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Err(e) => {
            let path = e.path().to_string();
            let field = match path.as_str() {
                "." => at.to_string(),
                p if p.starts_with('[') || at.is_empty() => format!("{at}{p}"),
                p => format!("{at}.{p}"),
            };
            Err(bad(field, e.inner().to_string()))
        }
        // What the tracked parse took and the plain one refused: characters after the value.
        Ok(_) => Err(bad(at.to_string(), first.to_string())),
    }
}

#[derive(Deserialize)]
struct BatchQuery {
    #[serde(default = "default_size")]
    size: usize,
    #[serde(default = "default_format")]
    format: String,
}

fn default_size() -> usize {
    32
}
fn default_format() -> String {
    "slime".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Weights {
    version: u64,
    /// The trainer's figures for the update that made these weights (`{"kl": 0.01, …}`).
    #[serde(default)]
    figures: Option<std::collections::BTreeMap<String, f64>>,
}

/// A posted group: its id, how many trajectories (attempts) it holds, and their samples (kept
/// as posted too, for the journal).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupPost<'a> {
    group_id: String,
    trajectories: usize,
    #[serde(borrow)]
    samples: &'a serde_json::value::RawValue,
}

async fn lease_batch(State(s): State<Shared>, headers: HeaderMap, query: Result<Query<BatchQuery>, QueryRejection>) -> Result<Json<Value>, ApiError> {
    s.tokens.check(Role::Trainer, &headers)?;
    let Query(q) = query.map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_query", e.body_text()))?;
    let layout = Layout::parse(&q.format)
        .ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, "bad_format", format!("unknown format {:?}: use slime or verl", q.format)))?;
    let (version, leased) = s.buffer.apply(|b| (b.weight_version, b.lease(q.size.clamp(1, 100_000), Instant::now()))).await.map_err(journal_failed)?;
    let Some((id, groups)) = leased else {
        return Ok(Json(json!({"batch_id": null, "format": q.format, "weight_version": version, "groups": [], "samples": []})));
    };
    let listed: Vec<Value> = groups.iter().enumerate().map(|(i, g)| json!({"group_index": i, "group_id": g.id, "samples": g.samples.len()})).collect();
    let samples = export(groups.iter().flat_map(|g| g.samples.iter()), layout);
    Ok(Json(json!({"batch_id": id, "format": q.format, "weight_version": version, "groups": listed, "samples": samples})))
}

async fn ack_batch(State(s): State<Shared>, headers: HeaderMap, UrlPath(id): UrlPath<String>) -> Result<Json<Value>, ApiError> {
    s.tokens.check(Role::Trainer, &headers)?;
    let (acked, queued) = s.buffer.apply(|b| (b.ack(&id, Instant::now()), b.len())).await.map_err(journal_failed)?;
    match acked {
        Ok(Acked::Consumed(n)) => Ok(Json(json!({"batch_id": id, "consumed": n, "queued": queued}))),
        Ok(Acked::Again) => Ok(Json(json!({"batch_id": id, "consumed": 0, "already_acknowledged": true, "queued": queued}))),
        Err(AckError::Expired) => Err(ApiError::new(
            StatusCode::CONFLICT,
            "lease_expired",
            format!("the lease on batch {id:?} expired before it was acknowledged: its groups went back to the queue and are served again (train on them then, not now)"),
        )),
        Err(AckError::Unknown) => Err(ApiError::new(StatusCode::NOT_FOUND, "unknown_batch", format!("no batch {id:?} was leased here"))),
    }
}

async fn weights(State(s): State<Shared>, headers: HeaderMap, body: Body) -> Result<Json<Value>, ApiError> {
    s.tokens.check(Role::Trainer, &headers)?;
    let bytes = read_body(&s, &headers, body).await?;
    let w: Value = parse(&bytes)?;
    // An object only (serde would also take a bare array `[N]` for the struct).
    if !w.is_object() {
        return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_body", "the body is an object: {\"version\": N, \"figures\": {…}}"));
    }
    let w: Weights = parse(&bytes)?;
    let answer = s
        .buffer
        .apply(|b| {
            if let Some(figures) = w.figures {
                b.report_figures(w.version, figures)?;
            }
            b.bump(w.version);
            Ok::<_, String>(json!({"weight_version": b.weight_version, "dropped_stale": b.dropped_stale, "queued": b.len()}))
        })
        .await
        .map_err(journal_failed)?
        .map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_figures", e))?;
    Ok(Json(answer))
}

async fn post_group(State(s): State<Shared>, headers: HeaderMap, body: Body) -> Result<Json<Value>, ApiError> {
    s.tokens.check(Role::Producer, &headers)?;
    let bytes = read_body(&s, &headers, body).await?;
    let group: GroupPost = parse_at(&bytes, "")?;
    let samples: Vec<Sample> = parse_at(group.samples.get().as_bytes(), "samples")?;
    // Every image a sample names must be here first, so a trainer can always fetch it.
    for (i, sample) in samples.iter().enumerate() {
        for (j, hash) in sample.images.iter().enumerate() {
            if is_image_hash(hash) && !s.images.join(format!("{hash}.png")).is_file() {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "missing_image",
                    format!("samples[{i}].images[{j}]: image {hash} is not in the buffer: PUT /v1/images/{hash} first"),
                ));
            }
        }
    }
    let json: Option<Arc<str>> = s.buffer.is_durable().then(|| group.samples.get().into());
    let (accepted, queued) =
        s.buffer.apply(|b| (b.push_group_json(&group.group_id, Some(group.trajectories), samples, json), b.len())).await.map_err(journal_failed)?;
    let accepted = accepted.map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_sample", e.to_string()))?;
    Ok(Json(json!({"accepted": accepted.name(), "queued": queued})))
}

fn image_path(s: &BufferService, hash: &str) -> Result<PathBuf, ApiError> {
    if !is_image_hash(hash) {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_hash", "an image is named by the SHA-256 of its bytes (64 lowercase hex digits)"));
    }
    Ok(s.images.join(format!("{hash}.png")))
}

async fn get_image(State(s): State<Shared>, headers: HeaderMap, UrlPath(hash): UrlPath<String>) -> Result<Response, ApiError> {
    s.tokens.check(Role::Either, &headers)?;
    let path = image_path(&s, &hash)?;
    let bytes = tokio::fs::read(path).await.map_err(|_| ApiError::new(StatusCode::NOT_FOUND, "unknown_image", format!("no image {hash}")))?;
    let kind = images::Format::sniff(&bytes).unwrap_or(images::Format::Png);
    Ok(([(header::CONTENT_TYPE, kind.content_type())], bytes).into_response())
}

async fn put_image(State(s): State<Shared>, headers: HeaderMap, UrlPath(hash): UrlPath<String>, body: Body) -> Result<Response, ApiError> {
    s.tokens.check(Role::Producer, &headers)?;
    let path = image_path(&s, &hash)?;
    let bytes = read_body(&s, &headers, body).await?;
    if guigym_core::sha256_hex(&bytes) != hash {
        return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_hash", "the body's SHA-256 is not the image's name"));
    }
    let checked = bytes.clone();
    let (format, width, height) = tokio::task::spawn_blocking(move || images::check(&checked))
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", format!("checking the image: {e}")))?
        .map_err(|e| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_image", e))?;
    // An image is named by its content, and only ever renamed into place whole: one already
    // there is this one (every attempt of a group uploads the same first screenshot).
    if !tokio::fs::try_exists(&path).await.unwrap_or(false) {
        // Written whole under a name of this upload's own first, so a reader never sees part of
        // an image, and uploads of the same image at once never write into each other's file.
        static UPLOADS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let upload = UPLOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = s.images.join(format!("{hash}.part{}-{upload}", std::process::id()));
        let written = async {
            tokio::fs::write(&tmp, &bytes).await?;
            tokio::fs::File::open(&tmp).await?.sync_all().await?;
            tokio::fs::rename(&tmp, &path).await?;
            // The name must survive a crash too: a group accepted after this answer names it.
            tokio::fs::File::open(&s.images).await?.sync_all().await
        };
        if let Err(e) = written.await {
            let _ = tokio::fs::remove_file(&tmp).await;
            return Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "storage", format!("storing the image: {e}")));
        }
    }
    let answer = json!({"image": hash, "format": format.content_type(), "width": width, "height": height});
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

async fn status(State(s): State<Shared>, headers: HeaderMap) -> Result<Json<Value>, ApiError> {
    s.tokens.check(Role::Either, &headers)?;
    let b = s.buffer.read();
    Ok(Json(json!({
        "queued": b.len(),
        "leased": b.leased(),
        "consumed": b.consumed,
        "expired_batches": b.expired_batches,
        "weight_version": b.weight_version,
        "dropped_stale": b.dropped_stale,
        "durable": s.buffer.is_durable(),
        "trainer_figures": b.trainer_figures.as_ref().map(|(version, figures)| json!({"version": version, "figures": figures})),
    })))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use axum::http::Request;
    use guigym_rollout::buffer::TrajectoryBuffer;
    use tower::ServiceExt;

    use super::*;

    fn service(tokens: Tokens) -> (Router, PathBuf) {
        let images = std::env::temp_dir().join(format!("guigym-serve-buffer-{}-{}", std::process::id(), guigym_rollout::new_trajectory_id()));
        std::fs::create_dir_all(&images).unwrap();
        let s = BufferService { buffer: Buffer::in_memory(TrajectoryBuffer::new(1)), images: images.clone(), max_body: 1 << 20, tokens };
        (router(Arc::new(s)), images)
    }

    async fn call(router: &Router, method: &str, path: &str, token: Option<&str>, body: &[u8]) -> (StatusCode, Value) {
        crate::testing::send_json(router, crate::testing::request(method, path, token).body(Body::from(body.to_vec())).unwrap()).await
    }

    fn sample_json(group: &str, edit: impl FnOnce(&mut Value)) -> Value {
        let mut s = json!({
            "trajectory_id": "t0", "task_id": "x/0", "window": 0, "first_step": 0, "last_step": 1,
            "prompt_ids": [1, 2, 3], "response_ids": [4, 5], "loss_mask": [1, 1],
            "images": [], "image_positions": [], "reward": 1.0, "advantage": 0.5,
            "group_id": group, "weight_version": 0, "status": "completed", "token_source": "tokenizer",
        });
        edit(&mut s);
        json!({"group_id": group, "trajectories": 1, "samples": [s]})
    }

    #[tokio::test]
    async fn every_route_asks_for_its_own_credential() {
        let tokens = Tokens { producer: Some("p-secret".into()), trainer: Some("t-secret".into()) };
        let (r, _) = service(tokens);
        let group = sample_json("g", |_| {}).to_string();
        let hash = "a".repeat(64);
        let writes: [(&str, String, &[u8]); 5] = [
            ("POST", "/v1/groups".into(), group.as_bytes()),
            ("PUT", format!("/v1/images/{hash}"), b"x"),
            ("GET", "/v1/batch?size=1".into(), b""),
            ("POST", "/v1/batch/batch-x/ack".into(), b""),
            ("POST", "/v1/weights".into(), br#"{"version": 1000000000000000000}"#),
        ];
        for (method, path, body) in &writes {
            for token in [None, Some("wrong"), Some("p-secre")] {
                assert_eq!(call(&r, method, path, token, body).await.0, StatusCode::UNAUTHORIZED, "{method} {path} with {token:?}");
            }
        }
        // Each role's credential opens only its own routes.
        assert_eq!(call(&r, "POST", "/v1/weights", Some("p-secret"), br#"{"version": 5}"#).await.0, StatusCode::UNAUTHORIZED);
        assert_eq!(call(&r, "GET", "/v1/batch", Some("p-secret"), b"").await.0, StatusCode::UNAUTHORIZED);
        assert_eq!(call(&r, "POST", "/v1/groups", Some("t-secret"), group.as_bytes()).await.0, StatusCode::UNAUTHORIZED);
        let (code, state) = call(&r, "GET", "/v1/buffer", Some("t-secret"), b"").await;
        assert_eq!((code, &state["weight_version"]), (StatusCode::OK, &json!(0)), "the refused weights changed nothing");
        assert_eq!(call(&r, "GET", "/v1/buffer", None, b"").await.0, StatusCode::UNAUTHORIZED);
        assert_eq!(call(&r, "POST", "/v1/groups", Some("p-secret"), group.as_bytes()).await.0, StatusCode::OK);
        assert_eq!(call(&r, "POST", "/v1/weights", Some("t-secret"), br#"{"version": 1}"#).await.0, StatusCode::OK);

        // One role set closes the other.
        let (r, _) = service(Tokens { producer: Some("p".into()), trainer: None });
        let (code, e) = call(&r, "GET", "/v1/batch", Some("p"), b"").await;
        assert_eq!(code, StatusCode::FORBIDDEN);
        assert!(e["error"]["message"].as_str().unwrap().contains("--trainer-token"));
    }

    #[tokio::test]
    async fn poisoned_samples_are_refused_naming_the_field() {
        let (r, _) = service(Tokens::default());
        type Edit = Box<dyn Fn(&mut Value)>;
        let cases: Vec<(Edit, &str)> = vec![
            (Box::new(|s| s["response_ids"][1] = json!(999_999_999u64)), "samples[0].response_ids[1]"),
            (Box::new(|s| s["prompt_ids"][0] = json!(-4)), "samples[0].prompt_ids[0]"),
            (Box::new(|s| s["reward"] = json!(1e300)), "samples[0].reward"),
            (Box::new(|s| s["reward"] = json!("NaN")), "samples[0].reward"),
            (Box::new(|s| s["first_step"] = json!(-1)), "samples[0].first_step"),
            (Box::new(|s| s["first_step"] = json!(5)), "samples[0].first_step"),
            (Box::new(|s| s["window"] = json!(9)), "samples[0].window"),
            (Box::new(|s| s["rollout_logprobs"] = json!([-0.5])), "samples[0].rollout_logprobs"),
            (Box::new(|s| s["rollout_logprobs"] = json!([-0.5, 3.0])), "samples[0].rollout_logprobs[1]"),
            (Box::new(|s| s["loss_mask"] = json!([1, 2])), "samples[0].loss_mask"),
            (Box::new(|s| s["extra"] = json!(1)), "samples[0]"),
        ];
        for (edit, field) in cases {
            let body = sample_json("g", edit).to_string();
            let (code, e) = call(&r, "POST", "/v1/groups", None, body.as_bytes()).await;
            let message = e["error"]["message"].as_str().unwrap_or("").to_string();
            assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{field}: {message}");
            assert!(message.starts_with(field), "{field}: {message}");
        }
        let (_, state) = call(&r, "GET", "/v1/buffer", None, b"").await;
        assert_eq!(state["queued"], 0, "nothing refused was queued");
    }

    #[tokio::test]
    async fn images_are_checked_before_they_are_kept() {
        let (r, dir) = service(Tokens::default());
        let put = |bytes: Vec<u8>| {
            let r = r.clone();
            async move {
                let hash = guigym_core::sha256_hex(&bytes);
                (call(&r, "PUT", &format!("/v1/images/{hash}"), None, &bytes).await, hash)
            }
        };
        let ((code, e), hash) = put(b"<svg onload=alert(1)>".to_vec()).await;
        assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
        assert!(!dir.join(format!("{hash}.png")).exists(), "nothing is stored");
        let mut png = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut png, 2, 2);
            enc.set_color(png::ColorType::Grayscale);
            enc.write_header().unwrap().write_image_data(&[0, 255, 255, 0]).unwrap();
        }
        let ((code, _), hash) = put(png[..png.len() - 12].to_vec()).await;
        assert_eq!(code, StatusCode::UNPROCESSABLE_ENTITY, "a cut PNG");
        assert!(!dir.join(format!("{hash}.png")).exists());
        let ((code, e), hash) = put(png).await;
        assert_eq!(code, StatusCode::CREATED, "{e}");
        assert_eq!((e["width"].clone(), e["height"].clone()), (json!(2), json!(2)));
        let (code, _) = call(&r, "GET", &format!("/v1/images/{hash}"), None, b"").await;
        assert_eq!(code, StatusCode::OK);
        let (code, _) = call(&r, "GET", &format!("/v1/images/{}", hash.to_uppercase()), None, b"").await;
        assert_eq!(code, StatusCode::BAD_REQUEST);
    }

    /// Every attempt of a group uploads the same first screenshot, at about the same time.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_same_image_uploaded_at_once_is_stored_whole() {
        let (r, _dir) = service(Tokens::default());
        let (w, h) = (256u32, 256u32);
        let pixels: Vec<u8> = (0..w * h * 3).map(|i| (i.wrapping_mul(2654435761) >> 11) as u8).collect();
        let mut png = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut png, w, h);
            enc.set_color(png::ColorType::Rgb);
            enc.write_header().unwrap().write_image_data(&pixels).unwrap();
        }
        let hash = guigym_core::sha256_hex(&png);
        let uploads: Vec<_> = (0..16)
            .map(|_| {
                let (r, png, path) = (r.clone(), png.clone(), format!("/v1/images/{hash}"));
                tokio::spawn(async move { call(&r, "PUT", &path, None, &png).await.0 })
            })
            .collect();
        for upload in uploads {
            assert_eq!(upload.await.unwrap(), StatusCode::CREATED);
        }
        let resp = r.clone().oneshot(Request::builder().uri(format!("/v1/images/{hash}")).body(Body::empty()).unwrap()).await.unwrap();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX).await.unwrap();
        assert!(bytes[..] == png[..], "the stored image is the one uploaded");
    }

    /// A body announced over the limit is refused before it is read: the test sends none of it.
    #[tokio::test]
    async fn a_body_announced_over_the_limit_is_refused_at_once() {
        let (r, _dir) = service(Tokens::default());
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(1);
        // A body that never comes unless sent.
        let stream = futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx));
        let req =
            Request::builder().method("POST").uri("/v1/groups").header("content-length", (2u64 << 20).to_string()).body(Body::from_stream(stream)).unwrap();
        let resp = tokio::time::timeout(std::time::Duration::from_secs(10), r.oneshot(req)).await.expect("answered without the body").unwrap();
        assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);
        drop(tx);
    }

    #[tokio::test]
    async fn a_bad_query_gets_a_json_error() {
        let (r, _dir) = service(Tokens::default());
        let (code, e) = call(&r, "GET", "/v1/batch?size=-1", None, b"").await;
        assert_eq!(code, StatusCode::BAD_REQUEST);
        assert_eq!(e["error"]["code"], "bad_query", "{e}");
    }
}
