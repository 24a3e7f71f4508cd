//! `guigym bench`: figures for the platform's speed and size targets. Benchmarks print
//! figures; tests never assert on them.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, Context};
use clap::Subcommand;
use guigym_benchmark_phone as tasks;
use guigym_core::Screen;
use guigym_core::{Action, ObserveOptions};
use guigym_harness::accounting::{replay, Replay};
use guigym_harness::tokenizer::{locate, Tokenizer};
use guigym_harness::{GoldenPolicy, Harness, HarnessConfig, HistoryPolicy, ObservationMode};
use guigym_rollout::{new_trajectory_id, run_attempt, Recorder};
use guigym_sim::SimEnv;
use serde::Serialize;

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

#[derive(Serialize)]
struct SimFigures {
    screen: String,
    iterations: usize,
    reset_same_task_p50_ms: f64,
    reset_same_task_p99_ms: f64,
    reset_new_task_p50_ms: f64,
    reset_new_task_p99_ms: f64,
    step_p50_ms: f64,
    observe_p50_ms: f64,
    observe_screenshot_p50_ms: f64,
    screenshot_png_kib: f64,
    instances: usize,
    instances_up_ms: f64,
    memory_per_instance_kib: f64,
}

pub fn percentile(samples: &mut [f64], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank.min(samples.len() - 1)]
}

fn time_ms<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t = Instant::now();
    let out = f();
    (t.elapsed().as_secs_f64() * 1e3, out)
}

/// Resident memory of this process in bytes (Linux).
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

pub async fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Sim { json, iterations, instances } => {
            let figures = bench_sim(iterations.max(10), instances.max(1))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&figures)?);
            } else {
                println!("sim backend, screen {}, {} iterations", figures.screen, figures.iterations);
                println!("  reset (same task)     p50 {:>8.4} ms   p99 {:>8.4} ms", figures.reset_same_task_p50_ms, figures.reset_same_task_p99_ms);
                println!("  reset (new task)      p50 {:>8.4} ms   p99 {:>8.4} ms", figures.reset_new_task_p50_ms, figures.reset_new_task_p99_ms);
                println!("  step (tap)            p50 {:>8.4} ms", figures.step_p50_ms);
                println!("  observe (UI tree)     p50 {:>8.4} ms", figures.observe_p50_ms);
                println!("  observe + screenshot  p50 {:>8.2} ms   ({:.0} KiB PNG)", figures.observe_screenshot_p50_ms, figures.screenshot_png_kib);
                println!("  {} instances up       {:>8.1} ms", figures.instances, figures.instances_up_ms);
                println!("  memory per instance   {:>8.1} KiB", figures.memory_per_instance_kib);
            }
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Web { json, iterations, seconds, no_python } => {
            let settings = crate::bench_web::Settings { iterations: iterations.max(3), seconds: seconds.max(0.5), python: !no_python };
            let figures = crate::bench_web::run(settings).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&figures)?);
            } else {
                print!("{}", figures.text());
            }
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Desktop { json, resets, iterations, instances } => {
            let figures = crate::bench_desktop::bench_desktop(&crate::bench_desktop::Settings { resets, iterations, instances }).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&figures)?);
            } else {
                print!("{}", figures.text());
            }
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Buffer { json, groups, samples_per_group, prompt_tokens, response_tokens, producers, batch_samples } => {
            let settings = crate::bench_buffer::Settings {
                groups: groups.max(1),
                samples_per_group: samples_per_group.max(1),
                prompt_tokens: prompt_tokens.max(1),
                response_tokens: response_tokens.max(1),
                producers: producers.max(1),
                batch_samples: batch_samples.max(1),
            };
            let figures = crate::bench_buffer::run(settings).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&figures)?);
            } else {
                print!("{}", figures.text());
            }
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Manager(args) => {
            let json = args.json;
            let figures = crate::bench_manager::run(args.into()).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&figures)?);
            } else {
                print!("{}", figures.text());
            }
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Harness { json, trajectories, observation, tokenizer } => {
            let figures = bench_harness(trajectories.max(1), observation.into(), tokenizer.as_deref()).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&figures)?);
            } else {
                println!(
                    "{} trajectories, {} steps ({:.1} per trajectory), observation {:?}, tokenizer {}",
                    figures.trajectories,
                    figures.steps,
                    figures.steps as f64 / figures.trajectories as f64,
                    figures.observation,
                    figures.tokenizer
                );
                for p in &figures.policies {
                    println!("  {}", p.history);
                    println!("    prefix-cache hit rate        {:>7.1} %", p.prefix_cache_hit_rate * 100.0);
                    println!("    prompt tokens per step       {:>9.0}", p.mean_prompt_tokens_per_step);
                    println!(
                        "    training tokens / trajectory {:>9.0} packed   {:>9.0} one sequence per step",
                        p.packed_training_tokens_per_trajectory, p.per_step_training_tokens_per_trajectory
                    );
                    println!(
                        "    harness overhead per step    p50 {:.3} ms  p99 {:.3} ms  mean {:.3} ms",
                        p.overhead_p50_ms, p.overhead_p99_ms, p.overhead_mean_ms
                    );
                }
                println!(
                    "  window vs last_k: training tokens {:+.1} %, hit rate {:.1} % vs {:.1} % (paper: -84.7 %, 85.9 % vs 42.5 %)",
                    figures.training_token_change * 100.0,
                    figures.policies[0].prefix_cache_hit_rate * 100.0,
                    figures.policies[1].prefix_cache_hit_rate * 100.0
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Each step's observation and action, as `run_attempt` reports them.
#[derive(Default)]
struct ObservedSteps(Vec<(guigym_core::Observation, String)>);

impl Recorder for ObservedSteps {
    fn step(&mut self, step: &guigym_core::Step, _png: Option<&[u8]>) {
        let action = step.action.as_ref().map(Action::to_json).unwrap_or_default();
        self.0.push((guigym_core::Observation::default(), action));
    }

    fn prompt(&mut self, _prompt: &guigym_harness::Prompt, observation: &guigym_core::Observation) {
        if let Some(last) = self.0.last_mut() {
            last.0 = observation.clone();
        }
    }
}

#[derive(Serialize)]
struct HistoryFigures {
    history: String,
    prefix_cache_hit_rate: f64,
    mean_prompt_tokens_per_step: f64,
    packed_training_tokens_per_trajectory: f64,
    per_step_training_tokens_per_trajectory: f64,
    overhead_p50_ms: f64,
    overhead_p99_ms: f64,
    overhead_mean_ms: f64,
}

#[derive(Serialize)]
struct HarnessFigures {
    trajectories: usize,
    steps: usize,
    observation: String,
    tokenizer: String,
    policies: Vec<HistoryFigures>,
    /// Window-packed training tokens against last-k's one sequence per step.
    training_token_change: f64,
}

async fn bench_harness(n: usize, observation: ObservationMode, tokenizer: Option<&std::path::Path>) -> anyhow::Result<HarnessFigures> {
    let path = locate(tokenizer)?;
    let tok = Tokenizer::load(&path)?;
    let mut tasks = tasks::suite("all").ok_or_else(|| anyhow!("the all suite is missing"))?;
    // The longest walkthroughs first: history policies differ on long trajectories.
    tasks.sort_by_key(|t| std::cmp::Reverse(t.difficulty));
    tasks.truncate(n);
    // The golden policy plays each task through the one rollout path; the recorder keeps what
    // the harness is then replayed on: each step's observation and action.
    let harness = Harness::new(HarnessConfig { observation, ..HarnessConfig::default() });
    let mut recorded: Vec<(String, Vec<(guigym_core::Observation, String)>)> = Vec::new();
    for task in &tasks {
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        let mut policy = GoldenPolicy::new(task.walkthrough.clone());
        let mut steps = ObservedSteps::default();
        run_attempt(&mut env, task, &mut policy, &harness, 0, &new_trajectory_id(), &mut steps).await.map_err(|e| anyhow!("{}: {e}", task.id))?;
        recorded.push((task.instruction.clone(), steps.0));
    }
    let total_steps: usize = recorded.iter().map(|r| r.1.len()).sum();
    let mut policies = Vec::new();
    for (name, history) in [("window (k=10, o=2)", HistoryPolicy::Window { k: 10, o: 2 }), ("last_k (k=5)", HistoryPolicy::LastK { k: 5 })] {
        let config = HarnessConfig { history, observation, ..HarnessConfig::default() };
        let replays: Vec<Replay> = recorded.iter().map(|(instr, steps)| replay(&config, instr, steps, &tok)).collect();
        let prompt: usize = replays.iter().flat_map(|r| &r.prompt_tokens).sum();
        let cached: usize = replays.iter().flat_map(|r| &r.cached_tokens).sum();
        let mut overhead: Vec<f64> = replays.iter().flat_map(|r| r.overhead_ms.iter().copied()).collect();
        let mean = overhead.iter().sum::<f64>() / overhead.len().max(1) as f64;
        policies.push(HistoryFigures {
            history: name.to_string(),
            prefix_cache_hit_rate: cached as f64 / prompt.max(1) as f64,
            mean_prompt_tokens_per_step: prompt as f64 / total_steps.max(1) as f64,
            packed_training_tokens_per_trajectory: replays.iter().map(|r| r.packed_training_tokens).sum::<usize>() as f64 / replays.len() as f64,
            per_step_training_tokens_per_trajectory: replays.iter().map(|r| r.per_step_training_tokens).sum::<usize>() as f64 / replays.len() as f64,
            overhead_p50_ms: percentile(&mut overhead, 50.0),
            overhead_p99_ms: percentile(&mut overhead, 99.0),
            overhead_mean_ms: mean,
        });
    }
    let training_token_change = policies[0].packed_training_tokens_per_trajectory / policies[1].per_step_training_tokens_per_trajectory.max(1.0) - 1.0;
    Ok(HarnessFigures {
        trajectories: recorded.len(),
        steps: total_steps,
        observation: format!("{observation:?}"),
        tokenizer: path.display().to_string(),
        policies,
        training_token_change,
    })
}

impl From<ManagerBenchArgs> for crate::bench_manager::Settings {
    fn from(a: ManagerBenchArgs) -> Self {
        crate::bench_manager::Settings { instances: a.instances, workers: a.workers.max(1), clients: a.clients.max(1), seconds: a.seconds.max(1) }
    }
}

fn bench_sim(iterations: usize, instances: usize) -> anyhow::Result<SimFigures> {
    let screen = Screen::PHONE;
    let suite = tasks::suite("smoke").ok_or_else(|| anyhow!("the smoke suite is missing"))?;
    let task = suite.first().ok_or_else(|| anyhow!("the smoke suite is empty"))?.clone();
    let mut env = SimEnv::new(screen, guigym_benchmark_phone::hosted());
    env.reset_sync(&task).context("first reset")?;

    let mut same = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let (ms, r) = time_ms(|| env.reset_sync(&task));
        r?;
        same.push(ms);
    }
    let mut fresh = Vec::with_capacity(iterations);
    for i in 0..iterations {
        let t = &suite[i % suite.len()];
        // A new instance each time, so nothing is cached.
        let mut e = SimEnv::new(screen, guigym_benchmark_phone::hosted());
        let (ms, r) = time_ms(|| e.reset_sync(t));
        r?;
        fresh.push(ms);
    }
    // Step: a tap on the home screen's Contacts icon (hit test, app launch), from a fresh
    // reset each time.
    let home = env.observe_sync(ObserveOptions::default())?;
    let icon = home.node("app:Contacts").ok_or_else(|| anyhow!("the home screen has no Contacts icon"))?;
    let (x, y) = icon.bounds.center();
    let first = Action::click_at(x, y);
    let mut steps = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        env.reset_sync(&task)?;
        let (ms, r) = time_ms(|| futures_step(&mut env, &first));
        r?;
        steps.push(ms);
    }
    let mut observe = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let (ms, r) = time_ms(|| env_observe(&mut env, false));
        r?;
        observe.push(ms);
    }
    let shots = (iterations / 20).clamp(5, 50);
    let mut observe_png = Vec::with_capacity(shots);
    let mut png_bytes = 0;
    for _ in 0..shots {
        let (ms, r) = time_ms(|| env_observe(&mut env, true));
        png_bytes = r?.screenshot.map(|s| s.png.len()).unwrap_or(0);
        observe_png.push(ms);
    }

    // Instances up: created and reset to a task, ready to serve.
    let before = rss_bytes().unwrap_or(0);
    let (up_ms, envs) = time_ms(|| -> anyhow::Result<Vec<SimEnv>> {
        let mut v = Vec::with_capacity(instances);
        for i in 0..instances {
            let mut e = SimEnv::new(screen, guigym_benchmark_phone::hosted());
            e.reset_sync(&suite[i % suite.len()])?;
            v.push(e);
        }
        Ok(v)
    });
    let envs = envs?;
    let after = rss_bytes().unwrap_or(0);
    let per_instance = after.saturating_sub(before) as f64 / envs.len() as f64 / 1024.0;
    drop(envs);

    Ok(SimFigures {
        screen: format!("{}x{}", screen.width, screen.height),
        iterations,
        reset_same_task_p50_ms: percentile(&mut same, 50.0),
        reset_same_task_p99_ms: percentile(&mut same, 99.0),
        reset_new_task_p50_ms: percentile(&mut fresh, 50.0),
        reset_new_task_p99_ms: percentile(&mut fresh, 99.0),
        step_p50_ms: percentile(&mut steps, 50.0),
        observe_p50_ms: percentile(&mut observe, 50.0),
        observe_screenshot_p50_ms: percentile(&mut observe_png, 50.0),
        screenshot_png_kib: png_bytes as f64 / 1024.0,
        instances,
        instances_up_ms: up_ms,
        memory_per_instance_kib: per_instance,
    })
}

fn futures_step(env: &mut SimEnv, action: &Action) -> anyhow::Result<()> {
    env.step_sync(action)?;
    Ok(())
}

fn env_observe(env: &mut SimEnv, screenshot: bool) -> anyhow::Result<guigym_core::Observation> {
    Ok(env.observe_sync(ObserveOptions { screenshot })?)
}
