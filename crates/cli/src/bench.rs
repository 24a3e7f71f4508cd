//! `guigym bench`: the command line of `guigym_bench`'s measurements, which print figures
//! for the platform's speed and size targets (tests never assert on them).

use std::process::ExitCode;

use clap::Subcommand;
use guigym_bench::Figures;
use guigym_harness::ObservationMode;

#[derive(Subcommand)]
pub enum BenchCommand {
    /// The simulated phone: reset, step, observe, instance creation and memory
    Sim {
        /// Print the figures as JSON
        #[arg(long)]
        json: bool,
        /// Iterations per timed operation
        #[arg(long, default_value_t = 2000)]
        iterations: usize,
        /// Instances created for the creation and memory figures
        #[arg(long, default_value_t = 1000)]
        instances: usize,
    },
    /// The web backend in headless Chromium, side by side with the Farama miniwob environment
    Web {
        #[arg(long)]
        json: bool,
        /// Resets timed per task
        #[arg(long, default_value_t = 30)]
        iterations: usize,
        /// Seconds of each throughput run
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Skip the Python (Selenium) side
        #[arg(long)]
        no_python: bool,
    },
    /// The manager over HTTP: thousands of leased sim instances across worker processes
    Manager(ManagerBenchArgs),
    /// The desktop backend (Xvfb, real applications): reset per application, step, observe,
    /// memory per instance, concurrent LibreOffice instances
    Desktop {
        #[arg(long)]
        json: bool,
        /// Timed resets per application
        #[arg(long, default_value_t = 10)]
        resets: usize,
        /// Timed steps and observations
        #[arg(long, default_value_t = 50)]
        iterations: usize,
        /// Instances started at once, each with LibreOffice Calc open
        #[arg(long, default_value_t = 8)]
        instances: usize,
        /// Only these applications' resets (names as the table prints them, comma-separated)
        #[arg(long, value_delimiter = ',')]
        apps: Vec<String>,
    },
    /// The phone's two renderers side by side: SSIM of the native raster against Chromium's
    /// page, per app's main screen, on the same device state
    Render {
        #[arg(long)]
        json: bool,
        /// Write each screen's two screenshots here (`<screen>.native.png`, `<screen>.chromium.png`)
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Write the first world's screens here for the documentation, native and Chromium side
        /// by side (`<screen>.png`), with a README.md (the repository keeps them in docs/phone)
        #[arg(long)]
        docs: Option<std::path::PathBuf>,
    },
    /// The trajectory buffer over HTTP: groups per second in and out, durable and in memory
    Buffer {
        #[arg(long)]
        json: bool,
        /// Groups posted
        #[arg(long, default_value_t = 20_000)]
        groups: usize,
        #[arg(long, default_value_t = 8)]
        samples_per_group: usize,
        #[arg(long, default_value_t = 512)]
        prompt_tokens: usize,
        #[arg(long, default_value_t = 64)]
        response_tokens: usize,
        /// Concurrent producers
        #[arg(long, default_value_t = 16)]
        producers: usize,
        /// Samples a trainer leases per batch
        #[arg(long, default_value_t = 256)]
        batch_samples: usize,
    },
    /// The android backend through Debian's adb server against `guigym adb-device`'s phone,
    /// beside the simulated phone itself: reset, step, observe (tree, screenshot)
    Android {
        #[arg(long)]
        json: bool,
        /// Timed repetitions of each operation
        #[arg(long, default_value_t = 20)]
        iterations: usize,
    },
    /// The harness: prefix-cache hits, prompt and training tokens, overhead per step, for
    /// window-wise against last-k history on the same trajectories
    Harness {
        #[arg(long)]
        json: bool,
        /// Trajectories to replay (the longest tasks, played by the golden policy)
        #[arg(long, default_value_t = 24)]
        trajectories: usize,
        /// What the model is shown
        #[arg(long, value_enum, default_value = "screenshot")]
        observation: ObservationArg,
        /// Qwen tokenizer.json [default: the one scripts/setup.sh fetched]
        #[arg(long)]
        tokenizer: Option<std::path::PathBuf>,
    },
}

#[derive(clap::Args)]
pub struct ManagerBenchArgs {
    #[arg(long)]
    json: bool,
    /// Instances leased and held at once
    #[arg(long, default_value_t = 20_000)]
    instances: usize,
    /// Worker processes (the manager runs in a process of its own)
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Concurrent clients driving steps
    #[arg(long, default_value_t = 64)]
    clients: usize,
    /// How long the step load runs
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// The phone suite whose tasks the instances are reset to, in turn (`all`: 2,125 tasks, so
    /// fewer instances share each task's initial state)
    #[arg(long, default_value = "smoke")]
    suite: String,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ObservationArg {
    Screenshot,
    UiTree,
    Both,
}

impl From<ObservationArg> for ObservationMode {
    fn from(o: ObservationArg) -> ObservationMode {
        match o {
            ObservationArg::Screenshot => ObservationMode::Screenshot,
            ObservationArg::UiTree => ObservationMode::UiTree,
            ObservationArg::Both => ObservationMode::Both,
        }
    }
}

/// Figures as JSON, or as text.
fn print(figures: &impl Figures, json: bool) -> anyhow::Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string_pretty(figures)?);
    } else {
        print!("{}", figures.text());
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    use guigym_bench::{android, buffer, desktop, harness, manager, render, sim, web};
    match command {
        BenchCommand::Sim { json, iterations, instances } => print(&sim::run(&sim::Settings { iterations, instances })?, json),
        BenchCommand::Web { json, iterations, seconds, no_python } => {
            let settings = web::Settings { iterations: iterations.max(3), seconds: seconds.max(0.5), python: !no_python };
            print(&web::run(settings).await?, json)
        }
        BenchCommand::Desktop { json, resets, iterations, instances, apps } => {
            print(&desktop::run(&desktop::Settings { resets, iterations, instances, apps }).await?, json)
        }
        BenchCommand::Buffer { json, groups, samples_per_group, prompt_tokens, response_tokens, producers, batch_samples } => {
            let settings = buffer::Settings {
                groups: groups.max(1),
                samples_per_group: samples_per_group.max(1),
                prompt_tokens: prompt_tokens.max(1),
                response_tokens: response_tokens.max(1),
                producers: producers.max(1),
                batch_samples: batch_samples.max(1),
            };
            print(&buffer::run(settings).await?, json)
        }
        BenchCommand::Manager(a) => {
            let settings =
                manager::Settings { instances: a.instances, workers: a.workers.max(1), clients: a.clients.max(1), seconds: a.seconds.max(1), suite: a.suite };
            print(&manager::run(settings).await?, a.json)
        }
        BenchCommand::Render { json, out, docs } => print(&render::run(&render::Settings { out, docs }).await?, json),
        BenchCommand::Android { json, iterations } => print(&android::run(&android::Settings { iterations }).await?, json),
        BenchCommand::Harness { json, trajectories, observation, tokenizer } => {
            print(&harness::run(&harness::Settings { trajectories, observation: observation.into(), tokenizer }).await?, json)
        }
    }
}
