//! `guigym policy-server`: the scripted OpenAI-compatible policy of `guigym_serve::policy`, on
//! loopback, answering for the tasks of a suite.

use anyhow::{anyhow, Context};
use clap::Args;
use guigym_harness::tokenizer::{locate, Tokenizer};
use guigym_harness::Codec;
use guigym_serve::policy::{Config, Mode};

#[derive(Args)]
pub struct ServerArgs {
    /// The codec the answers are written in (canonical, qwen, android_world, anthropic,
    /// pyautogui, ui_tars)
    #[arg(long, value_parser = codec, default_value = "canonical")]
    codec: Codec,
    /// golden (the walkthrough's next action), garbage (text with no action), error (HTTP 500),
    /// flaky (the first try of every third distinct request fails), slow (waits --delay-ms),
    /// cheat (plays the walkthrough of a task id found in the headers, never reading the screen)
    #[arg(long, value_parser = mode, default_value = "golden")]
    mode: Mode,
    /// Port on 127.0.0.1 (0 picks a free one; the address is printed)
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Suite whose tasks the server knows
    #[arg(long, default_value = "all")]
    suite: String,
    #[arg(long, default_value_t = 2000)]
    delay_ms: u64,
    /// Answer with structured `tool_calls` (content null), as servers with a tool parser do
    #[arg(long)]
    tool_calls: bool,
    /// Refuse any request whose `model` is not this name with a 404, as vLLM does
    #[arg(long)]
    served_model: Option<String>,
    /// Refuse prompts over this many tokens (about 4 bytes of request a token) with vLLM's
    /// context-length 400
    #[arg(long)]
    context_limit: Option<usize>,
    /// Append every request (headers and body) to this file as JSON lines
    #[arg(long)]
    record: Option<std::path::PathBuf>,
    /// In flaky mode, answer 429 with this Retry-After (seconds) instead of 500, and refuse a
    /// retry that comes sooner
    #[arg(long)]
    retry_after: Option<u64>,
    /// Report this weight version with every answer (`X-Weight-Version`), as a server that
    /// knows which weights it holds does
    #[arg(long)]
    weight_version: Option<String>,
    /// Qwen tokenizer.json for `return_token_ids` and `logprobs` requests [default: the one
    /// scripts/setup.sh fetched]
    #[arg(long)]
    tokenizer: Option<std::path::PathBuf>,
}

/// A codec by its name, as configs spell it (`android_world`, `ui_tars`, …; `-` for `_` too).
fn codec(name: &str) -> Result<Codec, String> {
    Codec::named(&name.replace('-', "_")).ok_or_else(|| format!("unknown codec {name:?}; codecs: {}", Codec::names()))
}

fn mode(name: &str) -> Result<Mode, String> {
    Mode::named(name).ok_or_else(|| format!("unknown mode {name:?}; modes: {}", Mode::ALL.map(Mode::name).join(", ")))
}

pub async fn run(registry: &crate::registry::Registry, args: ServerArgs) -> anyhow::Result<std::process::ExitCode> {
    let tasks = registry.suite_tasks(&args.suite)?;
    let record = match &args.record {
        Some(p) => Some(std::fs::OpenOptions::new().create(true).append(true).open(p).with_context(|| format!("opening {}", p.display()))?),
        None => None,
    };
    let config = Config {
        codec: args.codec,
        mode: args.mode,
        delay: std::time::Duration::from_millis(args.delay_ms),
        tool_calls: args.tool_calls,
        served_model: args.served_model,
        context_limit: args.context_limit,
        record,
        retry_after: args.retry_after,
        weight_version: args.weight_version,
        tokenizer: locate(args.tokenizer.as_deref()).ok().and_then(|p| Tokenizer::load(&p).ok()),
    };
    let app = guigym_serve::policy::router(config, tasks);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await.context("binding the policy server")?;
    println!("listening on http://{}/v1", listener.local_addr()?);
    use std::io::Write;
    std::io::stdout().flush()?;
    axum::serve(listener, app).await.map_err(|e| anyhow!(e))?;
    Ok(std::process::ExitCode::SUCCESS)
}
