//! `guigym train --config FILE.yaml`: rounds of adaptive sampling, groups through the one
//! rollout path, advantages and packed samples per round, all recorded for resumption.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{anyhow, bail};
use clap::Args;
use guigym_core::EnvProvider;
use guigym_harness::tokenizer::{locate, Tokenizer};
use guigym_harness::PolicyFactory;
use guigym_rollout::train::{RoundStats, TrainConfig, Trainer};

use crate::commands::{env_provider, open_store, ScreenArgs};
use crate::registry::{self, Registry};
use crate::StoreArgs;

#[derive(Args)]
pub struct TrainArgs {
    /// The training config (YAML)
    #[arg(long)]
    config: PathBuf,
    /// Continue the run of the config's name from its last finished round
    #[arg(long)]
    resume: bool,
    /// Qwen tokenizer.json [default: the one scripts/setup.sh fetched]
    #[arg(long)]
    tokenizer: Option<PathBuf>,
    #[command(flatten)]
    store: StoreArgs,
    /// Where instances run: sim (the simulated phone, in-process) or web (Chromium)
    #[arg(long, default_value = "sim", value_parser = registry::backend_names())]
    backend: String,
    #[command(flatten)]
    screen: ScreenArgs,
    /// Lease instances from this manager instead of running them in-process
    #[arg(long)]
    manager: Option<String>,
    /// Bearer token for the manager [env: GUIGYM_TOKEN]
    #[arg(long)]
    token: Option<String>,
}

pub async fn run(registry: &Registry, args: TrainArgs) -> anyhow::Result<ExitCode> {
    let config = TrainConfig::load(&args.config)?;
    let mut pool = Vec::new();
    for s in &config.suites {
        pool.extend(registry.suite_tasks(s)?);
    }
    if let Some(n) = config.max_tasks {
        pool.truncate(n.max(1));
    }
    // The same env path as eval: any backend, in-process or leased from a manager.
    let provider: Arc<dyn EnvProvider> =
        env_provider(registry, &args.backend, args.screen.screen(registry.backend(&args.backend)?)?, args.manager.as_deref(), args.token.clone())?;
    if let Some(learner) = &config.learner {
        return recipe(registry, &config, learner, pool, provider, &args).await;
    }
    if config.policy.kind == "learned" {
        bail!("{}: policy.kind learned trains the built-in policy and needs a learner section", args.config.display());
    }
    let policy: Arc<dyn PolicyFactory> = registry
        .policy(&config.policy.kind, registry::PolicySettings { openai: config.policy.openai.clone(), weights: None })
        .map_err(|e| anyhow!("{}: policy: {e}", args.config.display()))?;
    let tokenizer = Tokenizer::load(&locate(args.tokenizer.as_deref())?)?;
    let trainer = Trainer { config: &config, pool, provider, policy, store: Arc::new(open_store(&args.store)?), tokenizer: &tokenizer };
    println!("{:>5} {:>6} {:>8} {:>8} {:>8} {:>6} {:>8} {:>9} {:>8}", "round", "tasks", "attempts", "reward", "kept", "drop", "samples", "tokens", "seconds");
    let started = std::time::Instant::now();
    let this_session = std::sync::atomic::AtomicU32::new(0);
    let print = |s: &RoundStats| {
        println!(
            "{:>5} {:>6} {:>8} {:>8.3} {:>8} {:>6} {:>8} {:>9} {:>8.1}",
            s.round, s.tasks, s.attempts, s.mean_reward, s.groups_kept, s.groups_dropped, s.samples, s.tokens, s.seconds
        );
        // Progress on standard error: the rounds left and, at this session's pace, their time.
        let done = this_session.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let left = config.rounds.saturating_sub(s.round + 1);
        let per_round = started.elapsed().as_secs_f64() / done as f64;
        eprintln!("train: round {}/{} done · {:.1} s per round · ETA {:.0} s", s.round + 1, config.rounds, per_round, per_round * left as f64);
    };
    let rounds = trainer.run(args.resume, &print).await?;
    // Where the samples went: to the trainer's buffer as each group finished, and to files.
    let to = match &config.buffer {
        Some(url) => format!("each group went to the buffer at {url} as it finished; the samples are also in"),
        None => "samples in".into(),
    };
    println!("{} rounds run; {to} {}/round-N.jsonl (`guigym buffer serve --samples FILE` serves a file to a trainer)", rounds.len(), config.output.display());
    Ok(ExitCode::SUCCESS)
}

/// The built-in learner's recipe: held-out success before warm-up, after warm-up, after RL.
async fn recipe(
    registry: &Registry,
    config: &TrainConfig,
    learner: &guigym_rollout::train::LearnerConfig,
    train: Vec<guigym_core::TaskSpec>,
    provider: Arc<dyn EnvProvider>,
    args: &TrainArgs,
) -> anyhow::Result<ExitCode> {
    if config.policy.kind != "learned" {
        bail!("{}: a learner section trains the built-in policy; set policy.kind: learned", args.config.display());
    }
    let test = registry.suite_tasks(&config.test_suite)?;
    let validation = match &config.validation_suite {
        Some(name) => registry.suite_tasks(name)?,
        None => Vec::new(),
    };
    let store = Arc::new(open_store(&args.store)?);
    // State after the warm-up and every round, so `--resume` continues a crashed run.
    let checkpoint = config.output.join("checkpoint");
    let report = guigym_learner::recipe::run(learner, &train, &validation, &test, provider, Some(store.clone()), Some(&checkpoint), args.resume, &|line| {
        println!("{line}")
    })
    .await
    .map_err(|e| anyhow!(e))?;
    for point in &report.curve {
        store.finish_train_round(&config.name, point.round, &serde_json::to_value(point)?, &[])?;
    }
    std::fs::create_dir_all(&config.output)?;
    let path = config.output.join("recipe.json");
    std::fs::write(&path, serde_json::to_string_pretty(&report)?)?;
    println!(
        "held-out success: {:.1} % before warm-up, {:.1} % after warm-up, {:.1} % after RL ({:+.1} points from RL) in {:.1} s; report in {}",
        report.before_warmup * 100.0,
        report.after_warmup * 100.0,
        report.after_rl * 100.0,
        (report.after_rl - report.after_warmup) * 100.0,
        report.seconds,
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
