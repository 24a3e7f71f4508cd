//! `guigym buffer serve`: the trajectory buffer over HTTP, for trainers that run elsewhere.
//! Producers post whole groups (`POST /v1/groups`) and their screenshots
//! (`PUT /v1/images/{hash}`); a trainer leases batches of whole groups
//! (`GET /v1/batch?size=N&format=slime|verl`), acknowledges each
//! (`POST /v1/batch/{id}/ack`; an unacknowledged batch is served again after
//! `--lease-timeout-s`), fetches images (`GET /v1/images/{hash}`) and announces new weights
//! (`POST /v1/weights {"version": N, "figures": {"kl": …}}`: the figures, optional, are what
//! `train` records with its rounds). Every error is a JSON envelope
//! `{"error": {"message": …}}`.
//! `guigym buffer export`: samples files in a trainer's layout, as JSON lines or Parquet.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use clap::{Args, Subcommand};
use guigym_harness::packing::Sample;
use guigym_rollout::buffer::{export as export_layout, Accepted, TrajectoryBuffer};
use guigym_rollout::parquet::Layout;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Subcommand)]
pub enum BufferCommand {
    /// Serve a buffer on loopback, optionally filled from a samples.jsonl (`guigym collect`)
    Serve(ServeArgs),
    /// Write samples (`guigym collect`'s samples.jsonl, `guigym train`'s round files) in
    /// slime's or verl's layout: Parquet when OUT ends in .parquet, JSON lines otherwise
    Export(ExportArgs),
}

#[derive(Args)]
pub struct ExportArgs {
    /// Samples, JSON lines
    #[arg(long)]
    samples: PathBuf,
    /// slime or verl
    #[arg(long)]
    format: String,
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args)]
pub struct ServeArgs {
    /// Samples to start with (JSON lines, as `guigym collect` writes them)
    #[arg(long)]
    samples: Option<PathBuf>,
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Samples more than this many weight versions old are dropped
    #[arg(long, default_value_t = 1)]
    max_staleness: u64,
    /// A leased batch not acknowledged within this many seconds is served again
    #[arg(long, default_value_t = 300)]
    lease_timeout_s: u64,
    /// The largest request body accepted (a posted group, an uploaded image), in MiB
    #[arg(long, default_value_t = 512)]
    max_body_mb: usize,
    /// Where uploaded screenshots are kept (default: `images/` beside --samples, else a
    /// temporary folder)
    #[arg(long)]
    images: Option<PathBuf>,
}

struct Service {
    buffer: Mutex<TrajectoryBuffer>,
    images: PathBuf,
    max_body: usize,
}

type Shared = Arc<Service>;

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

/// A posted group: its id, how many trajectories (attempts) it holds, and their samples.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupPost {
    group_id: String,
    trajectories: usize,
    samples: Vec<Sample>,
}

fn err(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({"error": {"message": message.into()}}))).into_response()
}

/// A refused request: its status and message, sent as the JSON envelope.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        err(self.0, self.1)
    }
}

/// Reads a body up to the configured limit; a larger one is a 413 naming the setting.
async fn read_body(service: &Service, body: Body) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, service.max_body).await.map_err(|_| {
        ApiError(StatusCode::PAYLOAD_TOO_LARGE, format!("request body over {} MiB: raise `guigym buffer serve --max-body-mb`", service.max_body >> 20))
    })
}

/// Reads and parses a JSON body; malformed JSON or a wrong shape is a 422 with the parser's
/// message.
async fn json_body<T: serde::de::DeserializeOwned>(service: &Service, body: Body) -> Result<T, ApiError> {
    let bytes = read_body(service, body).await?;
    serde_json::from_slice(&bytes).map_err(|e| ApiError(StatusCode::UNPROCESSABLE_ENTITY, format!("bad request body: {e}")))
}

fn is_hash(h: &str) -> bool {
    h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())
}

fn router(service: Shared) -> Router {
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

fn lock(s: &Service) -> std::sync::MutexGuard<'_, TrajectoryBuffer> {
    s.buffer.lock().unwrap_or_else(|p| p.into_inner())
}

async fn lease_batch(State(s): State<Shared>, Query(q): Query<BatchQuery>) -> Response {
    let Some(layout) = Layout::parse(&q.format) else {
        return err(StatusCode::BAD_REQUEST, format!("unknown format {:?}: use slime or verl", q.format));
    };
    let mut buf = lock(&s);
    let version = buf.weight_version;
    let Some((id, groups)) = buf.lease(q.size.clamp(1, 100_000), Instant::now()) else {
        return Json(json!({"batch_id": null, "format": q.format, "weight_version": version, "groups": [], "samples": []})).into_response();
    };
    let samples: Vec<Sample> = groups.iter().flat_map(|g| g.samples.iter().cloned()).collect();
    let listed: Vec<Value> = groups.iter().enumerate().map(|(i, g)| json!({"group_index": i, "group_id": g.id, "samples": g.samples.len()})).collect();
    Json(json!({"batch_id": id, "format": q.format, "weight_version": version, "groups": listed, "samples": export_layout(&samples, layout)})).into_response()
}

async fn ack_batch(State(s): State<Shared>, UrlPath(id): UrlPath<String>) -> Response {
    let mut buf = lock(&s);
    match buf.ack(&id, Instant::now()) {
        Ok(n) => Json(json!({"batch_id": id, "consumed": n, "queued": buf.len()})).into_response(),
        Err(_) => err(
            StatusCode::NOT_FOUND,
            format!("no leased batch {id:?}: it was acknowledged already, or its lease expired and its groups went back to the queue"),
        ),
    }
}

async fn weights(State(s): State<Shared>, body: Body) -> Response {
    let w: Value = match json_body(&s, body).await {
        Ok(w) => w,
        Err(e) => return e.into_response(),
    };
    // An object only (serde would also take a bare array `[N]` for the struct).
    if !w.is_object() {
        return err(StatusCode::UNPROCESSABLE_ENTITY, "the body is an object: {\"version\": N, \"figures\": {…}}");
    }
    let w: Weights = match serde_json::from_value(w) {
        Ok(w) => w,
        Err(e) => return err(StatusCode::UNPROCESSABLE_ENTITY, format!("the body: {e}")),
    };
    let mut buf = lock(&s);
    if let Some(figures) = w.figures {
        if let Err(e) = buf.report_figures(w.version, figures) {
            return err(StatusCode::UNPROCESSABLE_ENTITY, e);
        }
    }
    buf.bump(w.version);
    Json(json!({"weight_version": buf.weight_version, "dropped_stale": buf.dropped_stale, "queued": buf.len()})).into_response()
}

async fn post_group(State(s): State<Shared>, body: Body) -> Response {
    let group: GroupPost = match json_body(&s, body).await {
        Ok(g) => g,
        Err(e) => return e.into_response(),
    };
    // Every image a sample names must be here first, so a trainer can always fetch it.
    if let Some(missing) = group.samples.iter().flat_map(|x| &x.images).find(|h| !is_hash(h) || !s.images.join(format!("{h}.png")).is_file()) {
        return err(StatusCode::UNPROCESSABLE_ENTITY, format!("image {missing} is not in the buffer: PUT /v1/images/{missing} first"));
    }
    let mut buf = lock(&s);
    match buf.push_group(&group.group_id, Some(group.trajectories), group.samples) {
        Ok(a) => {
            let accepted = match a {
                Accepted::Queued => "queued",
                Accepted::Duplicate => "duplicate",
                Accepted::Stale => "stale",
            };
            Json(json!({"accepted": accepted, "queued": buf.len()})).into_response()
        }
        Err(e) => err(StatusCode::UNPROCESSABLE_ENTITY, e),
    }
}

async fn get_image(State(s): State<Shared>, UrlPath(hash): UrlPath<String>) -> Response {
    if !is_hash(&hash) {
        return err(StatusCode::BAD_REQUEST, "an image is named by the SHA-256 of its PNG bytes (64 hex digits)");
    }
    match tokio::fs::read(s.images.join(format!("{hash}.png"))).await {
        Ok(png) => ([(header::CONTENT_TYPE, "image/png")], png).into_response(),
        Err(_) => err(StatusCode::NOT_FOUND, format!("no image {hash}")),
    }
}

async fn put_image(State(s): State<Shared>, UrlPath(hash): UrlPath<String>, body: Body) -> Response {
    if !is_hash(&hash) {
        return err(StatusCode::BAD_REQUEST, "an image is named by the SHA-256 of its PNG bytes (64 hex digits)");
    }
    let bytes = match read_body(&s, body).await {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    if guigym_core::sha256_hex(&bytes) != hash.to_ascii_lowercase() {
        return err(StatusCode::UNPROCESSABLE_ENTITY, "the body's SHA-256 is not the image's name");
    }
    let path = s.images.join(format!("{hash}.png"));
    let tmp = s.images.join(format!("{hash}.tmp{}", std::process::id()));
    let written = tokio::fs::write(&tmp, &bytes).await.and(tokio::fs::rename(&tmp, &path).await);
    match written {
        Ok(()) => (StatusCode::CREATED, Json(json!({"image": hash}))).into_response(),
        Err(e) => err(StatusCode::INTERNAL_SERVER_ERROR, format!("storing the image: {e}")),
    }
}

async fn status(State(s): State<Shared>) -> Response {
    let buf = lock(&s);
    Json(json!({
        "queued": buf.len(),
        "leased": buf.leased(),
        "consumed": buf.consumed,
        "expired_batches": buf.expired_batches,
        "weight_version": buf.weight_version,
        "dropped_stale": buf.dropped_stale,
        "trainer_figures": buf.trainer_figures.as_ref().map(|(version, figures)| json!({"version": version, "figures": figures})),
    }))
    .into_response()
}

/// Reads a samples file: one JSON sample per line; a bad line names the file and line.
fn read_samples(path: &std::path::Path) -> anyhow::Result<Vec<Sample>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut samples = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        samples.push(serde_json::from_str(line).with_context(|| format!("{}:{}: not a sample", path.display(), i + 1))?);
    }
    Ok(samples)
}

fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let layout = Layout::parse(&args.format).ok_or_else(|| anyhow::anyhow!("unknown format {:?}: use slime or verl", args.format))?;
    let samples = read_samples(&args.samples)?;
    if args.out.extension().is_some_and(|e| e == "parquet") {
        guigym_rollout::parquet::write(&args.out, &samples, layout).map_err(|e| anyhow::anyhow!("writing {}: {e}", args.out.display()))?;
    } else {
        let text: String = export_layout(&samples, layout).iter().map(|v| format!("{v}\n")).collect();
        std::fs::write(&args.out, text).with_context(|| format!("writing {}", args.out.display()))?;
    }
    println!("{} samples written to {} ({} layout)", samples.len(), args.out.display(), args.format);
    Ok(ExitCode::SUCCESS)
}

pub async fn run(command: BufferCommand) -> anyhow::Result<ExitCode> {
    let args = match command {
        BufferCommand::Serve(args) => args,
        BufferCommand::Export(args) => return export(args),
    };
    let mut buffer = TrajectoryBuffer::new(args.max_staleness);
    buffer.lease_timeout = Duration::from_secs(args.lease_timeout_s);
    let images = match (&args.images, &args.samples) {
        (Some(dir), _) => dir.clone(),
        (None, Some(samples)) => samples.parent().unwrap_or(std::path::Path::new(".")).join("images"),
        (None, None) => std::env::temp_dir().join(format!("guigym-buffer-images-{}", std::process::id())),
    };
    std::fs::create_dir_all(&images).with_context(|| format!("creating {}", images.display()))?;
    if let Some(path) = &args.samples {
        // A samples file holds whole groups (all attempts at a task): one group per id.
        let mut groups: Vec<(String, Vec<Sample>)> = Vec::new();
        for s in read_samples(path)? {
            match groups.iter_mut().find(|(id, _)| *id == s.group_id) {
                Some((_, g)) => g.push(s),
                None => groups.push((s.group_id.clone(), vec![s])),
            }
        }
        for (id, samples) in groups {
            buffer.push_group(&id, None, samples).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
    }
    let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port)).await?;
    println!("listening on http://{}", listener.local_addr()?);
    use std::io::Write;
    std::io::stdout().flush()?;
    let service = Service { buffer: Mutex::new(buffer), images, max_body: args.max_body_mb.saturating_mul(1 << 20) };
    axum::serve(listener, router(Arc::new(service))).await?;
    Ok(ExitCode::SUCCESS)
}
