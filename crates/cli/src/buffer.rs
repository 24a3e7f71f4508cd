//! `guigym buffer serve`: the trajectory buffer (`guigym_serve::buffer`) on a port, durable
//! by default (a journal in `--dir`), with producers' and trainers' credentials.
//! `guigym buffer export`: samples files in a trainer's layout, as JSON lines or Parquet.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Subcommand};
use guigym_harness::packing::Sample;
use guigym_rollout::buffer::{export as export_layout, Buffer, Limits, TrajectoryBuffer};
use guigym_rollout::parquet::Layout;
use guigym_serve::buffer::{BufferService, Tokens};

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
    /// Samples to start with (JSON lines, as `guigym collect` writes them); groups the buffer
    /// already holds are not queued again
    #[arg(long)]
    samples: Option<PathBuf>,
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Where the buffer keeps its journal (`journal/`, every accepted group, lease and
    /// acknowledgement, written before it answers) and its images: a buffer started again on
    /// the same folder takes up where it was
    #[arg(long, default_value = ".guigym/buffer")]
    dir: PathBuf,
    /// Keep everything in memory only: faster, and lost with the process
    #[arg(long)]
    in_memory: bool,
    /// Producers' bearer token: posting groups and images [env: GUIGYM_BUFFER_PRODUCER_TOKEN]
    #[arg(long)]
    producer_token: Option<String>,
    /// Trainers' bearer token: leasing and acknowledging batches, announcing weights
    /// [env: GUIGYM_BUFFER_TRAINER_TOKEN]
    #[arg(long)]
    trainer_token: Option<String>,
    /// Samples more than this many weight versions old are dropped
    #[arg(long, default_value_t = 1)]
    max_staleness: u64,
    /// A leased batch not acknowledged within this many seconds is served again (ten years at most)
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=315_360_000))]
    lease_timeout_s: u64,
    /// The largest request body accepted (a posted group, an uploaded image), in MiB
    #[arg(long, default_value_t = 512)]
    max_body_mb: usize,
    /// Token ids must be below this: the trainer's vocabulary [default: Qwen's, 151669]
    #[arg(long, default_value_t = guigym_rollout::buffer::QWEN_VOCAB)]
    vocab_size: u32,
    /// The lowest reward a sample may carry
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    min_reward: f64,
    /// The highest reward a sample may carry
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    max_reward: f64,
    /// Where uploaded screenshots are kept (default: `images/` beside --samples, else
    /// `images/` in --dir)
    #[arg(long)]
    images: Option<PathBuf>,
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
    let tokens = Tokens::from_env(args.producer_token.clone(), args.trainer_token.clone());
    let loopback = args.host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback()) || args.host == "localhost";
    if tokens.is_open() && !loopback {
        anyhow::bail!(
            "a buffer on {} would take anyone's groups and acknowledgements: set --producer-token and --trainer-token (or their variables), or serve on loopback",
            args.host
        );
    }
    if !(args.min_reward.is_finite() && args.max_reward.is_finite() && args.min_reward <= args.max_reward) {
        anyhow::bail!("--min-reward {} and --max-reward {} are not a range", args.min_reward, args.max_reward);
    }
    let limits = Limits { vocab_size: args.vocab_size, min_reward: args.min_reward, max_reward: args.max_reward };
    let configure = |b: &mut TrajectoryBuffer| {
        b.lease_timeout = Duration::from_secs(args.lease_timeout_s);
        b.limits = limits;
    };
    let buffer = if args.in_memory {
        let mut b = TrajectoryBuffer::new(args.max_staleness);
        configure(&mut b);
        Buffer::in_memory(b)
    } else {
        Buffer::durable(&args.dir.join("journal"), args.max_staleness, configure)?
    };
    let images = match (&args.images, &args.samples) {
        (Some(dir), _) => dir.clone(),
        (None, Some(samples)) => samples.parent().unwrap_or(std::path::Path::new(".")).join("images"),
        (None, None) => args.dir.join("images"),
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
            buffer.apply(|b| b.push_group(&id, None, samples)).await?.map_err(|e| anyhow::anyhow!("{}: group {id}: {e}", path.display()))?;
        }
    }
    let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port)).await.with_context(|| format!("binding {}:{}", args.host, args.port))?;
    let url = format!("http://{}", listener.local_addr()?);
    let service = BufferService { buffer, images, max_body: args.max_body_mb.saturating_mul(1 << 20), tokens };
    let router = guigym_serve::buffer::router(Arc::new(service));
    crate::serve::announce(&url);
    tokio::select! {
        served = guigym_manager::net::serve(listener, router, crate::serve::limits()) => served?,
        _ = crate::serve::stop_requested() => {}
    }
    Ok(ExitCode::SUCCESS)
}
