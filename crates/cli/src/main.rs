//! The `guigym` binary: parses the command line and hands each command to its module.
//!
//! Exit codes: 0 success; 1 the command ran and found a failure (a task that does not
//! validate, a verifier the audit caught) or could not run (an error, printed); 2 the command
//! line is wrong; 3 an eval or collect left more attempts unscored (infrastructure failures
//! past their retries) than `--allow-unscored` allows: its figures cover fewer attempts.

mod adb_device;
mod bench;
mod buffer;
mod collect;
mod commands;
mod dash;
mod policy_server;
mod progress;
mod registry;
mod serve;
mod train;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use registry::Registry;

#[derive(Parser)]
#[command(name = "guigym", version, about = "Evaluate and train GUI agents on resettable simulated devices")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
pub struct StoreArgs {
    /// Store folder (SQLite file and screenshot blobs) [env: GUIGYM_STORE; default: .guigym]
    #[arg(long)]
    pub store: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a policy over a suite and report success rates
    Eval(commands::EvalArgs),
    /// Run a policy over a suite and export its successful trajectories as training data
    Collect(collect::CollectArgs),
    /// Online RL rounds: adaptive task sampling, groups, advantages, packed samples
    Train(train::TrainArgs),
    /// Serve the trajectory buffer that trainers (slime, verl) read batches from
    Buffer {
        #[command(subcommand)]
        command: buffer::BufferCommand,
    },
    /// List, show and validate tasks
    Tasks {
        #[command(subcommand)]
        command: commands::TasksCommand,
    },
    /// Print the world a seed generates: persona, scenario, people, events and facts
    Worlds {
        #[command(subcommand)]
        command: WorldsCommand,
    },
    /// The store in the browser: runs, trajectories with their screenshots, comparisons, training
    Dash(dash::DashArgs),
    /// Inspect stored runs
    Runs {
        #[command(subcommand)]
        command: commands::RunsCommand,
    },
    /// Run the environment manager's HTTP API (with an in-process worker by default)
    Serve(serve::ServeArgs),
    /// Run a worker process that registers with a manager and hosts instances
    Worker(serve::WorkerProcessArgs),
    /// Serve instances as Android devices over ADB (`adb connect HOST:PORT`), with a control API
    /// that resets them to tasks and judges them
    AdbDevice(adb_device::AdbDeviceArgs),
    /// Serve a scripted OpenAI-compatible policy on loopback (for testing a harness end to end)
    PolicyServer(policy_server::ServerArgs),
    /// Measure the platform's speed
    Bench {
        #[command(subcommand)]
        command: bench::BenchCommand,
    },
}

#[derive(Subcommand)]
enum WorldsCommand {
    /// One world, as text or JSON
    Show {
        seed: u64,
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")))
        .with_writer(std::io::stderr)
        // Colours on a terminal only: a log file or CI keeps plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    // What this binary can run, built once and handed to each command.
    let registry = Arc::new(Registry::builtin());
    match cli.command {
        Command::Eval(args) => runtime.block_on(commands::eval(&registry, args)),
        Command::Collect(args) => runtime.block_on(collect::run(&registry, args)),
        Command::Train(args) => runtime.block_on(train::run(&registry, args)),
        Command::Buffer { command } => runtime.block_on(buffer::run(command)),
        Command::Tasks { command } => runtime.block_on(commands::tasks(&registry, command)),
        Command::Runs { command } => commands::runs(command),
        Command::Dash(args) => runtime.block_on(dash::run(registry, args)),
        Command::Worlds { command: WorldsCommand::Show { seed, json } } => {
            let world = guigym_phone::World::generate(seed);
            if json {
                println!("{}", serde_json::to_string_pretty(&world)?);
            } else {
                print!("{}", world.describe());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve(args) => runtime.block_on(serve::serve(registry, args)),
        Command::Worker(args) => runtime.block_on(serve::worker(&registry, args)),
        Command::AdbDevice(args) => runtime.block_on(adb_device::run(&registry, args)),
        Command::PolicyServer(args) => runtime.block_on(policy_server::run(&registry, args)),
        Command::Bench { command } => runtime.block_on(bench::run(command)),
    }
}
