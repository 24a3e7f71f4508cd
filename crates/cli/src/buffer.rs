//! `guigym buffer serve`: the trajectory buffer over HTTP, for trainers that run elsewhere.
//! A trainer takes batches (`GET /v1/batch?size=N&format=slime|verl`), announces new weights
//! (`POST /v1/weights {"version": N}`), and producers add groups (`POST /v1/groups`).
//! `guigym buffer export`: samples files in a trainer's layout, as JSON lines or Parquet.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use clap::{Args, Subcommand};
use guigym_harness::packing::Sample;
use guigym_rollout::buffer::{to_slime, to_verl, TrajectoryBuffer};
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
}

type Shared = Arc<Mutex<TrajectoryBuffer>>;

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
}

fn err(status: StatusCode, message: impl Into<String>) -> (StatusCode, Json<Value>) {
    (status, Json(json!({"error": {"message": message.into()}})))
}

pub fn router(buffer: Shared) -> Router {
    Router::new()
        .route(
            "/v1/batch",
            get(|State(b): State<Shared>, Query(q): Query<BatchQuery>| async move {
                let as_json: fn(&Sample, usize) -> Value = match q.format.as_str() {
                    "slime" => to_slime,
                    "verl" => |s, _| to_verl(s),
                    other => return Err(err(StatusCode::BAD_REQUEST, format!("unknown format {other:?}: use slime or verl"))),
                };
                let mut buf = b.lock().unwrap_or_else(|p| p.into_inner());
                let start = buf.served as usize;
                let samples: Vec<Value> = buf.take(q.size.clamp(1, 10_000)).iter().enumerate().map(|(i, s)| as_json(s, start + i)).collect();
                Ok(Json(json!({"format": q.format, "weight_version": buf.weight_version, "samples": samples})))
            }),
        )
        .route(
            "/v1/weights",
            post(|State(b): State<Shared>, Json(w): Json<Weights>| async move {
                let mut buf = b.lock().unwrap_or_else(|p| p.into_inner());
                buf.bump(w.version);
                Json(json!({"weight_version": buf.weight_version, "dropped_stale": buf.dropped_stale, "queued": buf.len()}))
            }),
        )
        .route(
            "/v1/groups",
            post(|State(b): State<Shared>, Json(group): Json<Vec<Sample>>| async move {
                let mut buf = b.lock().unwrap_or_else(|p| p.into_inner());
                buf.push_group(group);
                Json(json!({"queued": buf.len()}))
            }),
        )
        .route(
            "/v1/buffer",
            get(|State(b): State<Shared>| async move {
                let buf = b.lock().unwrap_or_else(|p| p.into_inner());
                Json(json!({"queued": buf.len(), "served": buf.served, "weight_version": buf.weight_version, "dropped_stale": buf.dropped_stale}))
            }),
        )
        .with_state(buffer)
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
    let layout = guigym_rollout::parquet::Layout::parse(&args.format)
        .ok_or_else(|| anyhow::anyhow!("unknown format {:?}: use slime or verl", args.format))?;
    let samples = read_samples(&args.samples)?;
    if args.out.extension().is_some_and(|e| e == "parquet") {
        guigym_rollout::parquet::write(&args.out, &samples, layout).map_err(|e| anyhow::anyhow!("writing {}: {e}", args.out.display()))?;
    } else {
        let mut text = String::new();
        for (i, s) in samples.iter().enumerate() {
            let v = match layout {
                guigym_rollout::parquet::Layout::Slime => to_slime(s, i),
                guigym_rollout::parquet::Layout::Verl => to_verl(s),
            };
            text.push_str(&v.to_string());
            text.push('\n');
        }
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
    if let Some(path) = &args.samples {
        buffer.push_group(read_samples(path)?);
    }
    let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port)).await?;
    println!("listening on http://{}", listener.local_addr()?);
    use std::io::Write;
    std::io::stdout().flush()?;
    axum::serve(listener, router(Arc::new(Mutex::new(buffer)))).await?;
    Ok(ExitCode::SUCCESS)
}
