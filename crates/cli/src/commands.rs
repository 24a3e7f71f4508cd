//! The eval, tasks and runs commands.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context};
use clap::{Args, Subcommand};
use guigym_benchmark_phone as tasks;
use guigym_core::Screen;
use guigym_core::{Attempt, EnvProvider, TaskSpec};
use guigym_harness::PolicyFactory;
use guigym_rollout::{eval as run_eval, validate_task, EvalConfig, Progress, Store};

use crate::progress::Meter;
use crate::registry::{self, Registry};
use crate::StoreArgs;

/// Settings of the `openai` policy.
#[derive(Args)]
pub struct OpenAiArgs {
    /// Base URL ending in /v1; repeat for several servers (each trajectory sticks to one)
    #[arg(long = "base-url")]
    base_urls: Vec<String>,
    #[arg(long, default_value = "default")]
    model: String,
    /// Environment variable holding the API key
    #[arg(long, default_value = "OPENAI_API_KEY")]
    api_key_env: String,
    #[arg(long, default_value_t = 0.0)]
    temperature: f32,
    #[arg(long, default_value_t = 512)]
    max_tokens: u32,
    /// Per-request timeout
    #[arg(long, default_value_t = 120_000)]
    timeout_ms: u64,
    /// Retries on 5xx, 429 and timeouts before the attempt counts as an infrastructure failure
    #[arg(long, default_value_t = 4)]
    max_retries: u32,
    #[arg(long, default_value_t = 500)]
    backoff_ms: u64,
    /// How long an endpoint that failed every retry is skipped by new trajectories
    #[arg(long, default_value_t = 30_000)]
    down_for_ms: u64,
    /// A JSON object merged into every request body (e.g. '{"chat_template_kwargs": {"enable_thinking": false}}');
    /// with server-side image resizing the harness's min/max pixels always win in mm_processor_kwargs
    #[arg(long, value_name = "JSON")]
    extra_body: Option<String>,
}

impl OpenAiArgs {
    /// The settings as the `openai` policy takes them; `None` without a base URL.
    fn config(&self) -> anyhow::Result<Option<guigym_harness::openai::OpenAiConfig>> {
        if self.base_urls.is_empty() {
            return Ok(None);
        }
        Ok(Some(guigym_harness::openai::OpenAiConfig {
            base_urls: self.base_urls.clone(),
            model: self.model.clone(),
            api_key_env: Some(self.api_key_env.clone()),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            timeout_ms: self.timeout_ms,
            max_retries: self.max_retries,
            backoff_ms: self.backoff_ms,
            down_for_ms: self.down_for_ms,
            extra_body: match &self.extra_body {
                None => serde_json::Value::Null,
                Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
                    Ok(v @ serde_json::Value::Object(_)) => v,
                    Ok(other) => bail!("--extra-body must be a JSON object, got {other}"),
                    Err(e) => bail!("--extra-body is not valid JSON: {e}"),
                },
            },
        }))
    }
}

pub fn harness_config(path: &Option<PathBuf>, screenshots: bool) -> anyhow::Result<guigym_harness::HarnessConfig> {
    let mut config = match path {
        Some(p) => guigym_harness::HarnessConfig::load(p)?,
        None => guigym_harness::HarnessConfig::default(),
    };
    if screenshots && !config.observation.screenshots() {
        config.observation = guigym_harness::ObservationMode::Both;
    }
    Ok(config)
}

/// Where instances come from: a manager (leasing the backend's instances from its workers),
/// or in-process.
pub fn env_provider(registry: &Registry, backend: &str, screen: Screen, manager: Option<&str>, token: Option<String>) -> anyhow::Result<Arc<dyn EnvProvider>> {
    match manager {
        Some(url) => {
            let token = token.or_else(|| std::env::var("GUIGYM_TOKEN").ok());
            let spec = registry.env_spec(backend, screen)?;
            Ok(Arc::new(guigym_manager::ManagerProvider::new(url, token, spec, std::time::Duration::from_secs(120))))
        }
        None => registry.provider(backend, screen),
    }
}

#[derive(Args)]
pub struct ScreenArgs {
    /// Screen width in pixels [default: the backend's: 1080 for the phone, 1920 for the desktop]
    #[arg(long)]
    pub width: Option<u32>,
    /// Screen height in pixels [default: the backend's: 2400 for the phone, 1080 for the desktop]
    #[arg(long)]
    pub height: Option<u32>,
}

impl ScreenArgs {
    /// The screen asked for, else the backend's own size.
    pub fn screen(&self, backend: &registry::Backend) -> anyhow::Result<Screen> {
        let default = backend.screen;
        let (width, height) = (self.width.unwrap_or(default.width), self.height.unwrap_or(default.height));
        if !(200..=8000).contains(&width) || !(200..=8000).contains(&height) {
            bail!("screen {width}×{height} is out of range: width and height must be within 200..=8000");
        }
        Ok(Screen { width, height })
    }
}

/// What every rollout command (eval, collect) takes: which tasks, which policy, which
/// harness, where instances run, and where results go.
#[derive(Args)]
pub struct RunArgs {
    /// Suite to run (see `guigym tasks list`)
    #[arg(long, default_value = "smoke")]
    pub suite: String,
    /// golden (plays each task's walkthrough), random (seeded taps and typing), learned (the
    /// built-in learner's weights, --weights), openai (an OpenAI-compatible chat server: vLLM,
    /// SGLang, hosted APIs)
    #[arg(long, default_value = "golden", value_parser = registry::policy_names())]
    pub policy: String,
    #[command(flatten)]
    pub openai: OpenAiArgs,
    /// The learned policy's weights: a `guigym train` run's OUTPUT/checkpoint/model.f32
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Harness config (JSON or YAML): prompt, observation mode, history, codec, coordinates
    #[arg(long)]
    pub harness: Option<PathBuf>,
    /// Run only the first N tasks of the suite
    #[arg(long)]
    pub limit: Option<usize>,
    /// Where instances run: sim (the simulated phone, in-process) or web (Chromium) [default:
    /// the first that hosts the suite's benchmark]
    #[arg(long, value_parser = registry::backend_names())]
    pub backend: Option<String>,
    /// Attempts per task (n of pass@n)
    #[arg(long, default_value_t = 1)]
    pub attempts: u32,
    /// Attempts in flight
    #[arg(long, default_value_t = 4)]
    pub parallel: usize,
    /// Show the policy a screenshot at every step; same as observation `both`
    #[arg(long)]
    pub screenshots: bool,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub screen: ScreenArgs,
    /// Lease instances from this manager instead of running them in-process
    #[arg(long)]
    pub manager: Option<String>,
    /// Bearer token for the manager [env: GUIGYM_TOKEN]
    #[arg(long)]
    pub token: Option<String>,
    /// Re-runs of an attempt after infrastructure failures before it is left unscored
    #[arg(long, default_value_t = 3)]
    pub max_infra_retries: u32,
    /// Seconds the environment service may stay unreachable (or give no instance) before the run fails
    #[arg(long, default_value_t = 120)]
    pub outage_limit_s: u64,
    /// Exit 0 even when up to N attempts are left unscored (by default any unscored attempt
    /// makes the run exit 3: its figures cover fewer attempts than were asked for)
    #[arg(long, default_value_t = 0)]
    pub allow_unscored: usize,
}

/// A rollout command made ready: the tasks, the eval settings, where instances come from,
/// who plays, and the store.
pub struct Prepared {
    pub tasks: Arc<Vec<TaskSpec>>,
    pub config: EvalConfig,
    pub provider: Arc<dyn EnvProvider>,
    pub policy: Arc<dyn PolicyFactory>,
    pub store: Arc<Store>,
}

impl RunArgs {
    pub fn prepare(&self, registry: &Registry) -> anyhow::Result<Prepared> {
        let (benchmark, tasks) = registry.suite(&self.suite)?;
        self.prepare_tasks(registry, benchmark.name(), &self.suite, tasks)
    }

    /// As `prepare`, for these tasks of one benchmark instead of the suite's.
    pub fn prepare_tasks(&self, registry: &Registry, benchmark: &str, suite: &str, mut tasks: Vec<TaskSpec>) -> anyhow::Result<Prepared> {
        if self.attempts == 0 {
            bail!("--attempts must be at least 1");
        }
        if let Some(n) = self.limit {
            tasks.truncate(n);
        }
        let config = EvalConfig {
            suite: suite.to_string(),
            attempts: self.attempts,
            parallel: self.parallel.max(1),
            harness: harness_config(&self.harness, self.screenshots)?,
            max_infra_retries: self.max_infra_retries,
            outage_limit_ms: self.outage_limit_s.saturating_mul(1000),
            ..EvalConfig::default()
        };
        let backend = registry.backend_for(self.backend.as_deref(), benchmark)?;
        let screen = self.screen.screen(backend)?;
        let provider = env_provider(registry, backend.name, screen, self.manager.as_deref(), self.token.clone())?;
        let policy = registry.policy(&self.policy, registry::PolicySettings { openai: self.openai.config()?, weights: self.weights.clone() })?;
        Ok(Prepared { tasks: Arc::new(tasks), config, provider, policy, store: Arc::new(open_store(&self.store)?) })
    }
}

#[derive(Args)]
pub struct EvalArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Write the report as JSON to this file
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print the report as JSON instead of a table
    #[arg(long)]
    json: bool,
}

pub fn open_store(args: &StoreArgs) -> anyhow::Result<Store> {
    let dir = args.store.clone().or_else(|| std::env::var_os("GUIGYM_STORE").map(PathBuf::from)).unwrap_or_else(|| PathBuf::from(".guigym"));
    Store::open(&dir).with_context(|| format!("opening the store at {}", dir.display()))
}

struct Bar(Meter);

impl Progress for Bar {
    fn attempt_done(&self, a: &Attempt, _prompts: &[guigym_harness::Prompt]) {
        self.0.set_message(a.task_id.clone());
        self.0.inc(1);
    }
    fn infra_failure(&self, task_id: &str, error: &str) {
        self.0.println(format!("infrastructure failure in {task_id}: {error}"));
    }
    fn attempt_unscored(&self, task_id: &str) {
        self.0.set_message(task_id.to_string());
        self.0.inc(1);
    }
}

/// A suite's tasks, one instance to run them on in turn, and a progress meter named `what`
/// (silent for JSON output): what `tasks validate` and `tasks audit` share.
async fn one_instance_for<'r>(
    registry: &'r Registry,
    run: &SuiteRun,
    what: &str,
) -> anyhow::Result<(Vec<TaskSpec>, Box<dyn guigym_core::Env>, Meter, &'r registry::Backend)> {
    let (benchmark, mut tasks) = registry.suite(&run.suite)?;
    if !run.tasks.is_empty() {
        if let Some(missing) = run.tasks.iter().find(|id| !tasks.iter().any(|t| t.id == **id)) {
            bail!("suite {} has no task \"{missing}\"", run.suite);
        }
        tasks.retain(|t| run.tasks.contains(&t.id));
    }
    let backend = registry.backend_for(run.backend.as_deref(), benchmark.name())?;
    let env = registry.provider(backend.name, run.screen.screen(backend)?)?.create().await?;
    let progress = Meter::new(what, tasks.len() as u64, run.json);
    Ok((tasks, env, progress, backend))
}

pub async fn eval(registry: &Registry, args: EvalArgs) -> anyhow::Result<ExitCode> {
    let Prepared { tasks, config, provider, policy, store } = args.run.prepare(registry)?;
    let progress = Meter::new("eval", tasks.len() as u64 * config.attempts as u64, args.json);
    let result = run_eval(tasks, &config, provider, policy, Some(store), Arc::new(Bar(progress.clone()))).await;
    progress.finish();
    let (run_id, report) = result.map_err(|e| anyhow!("the run stopped: {e}"))?;
    let json = serde_json::to_string_pretty(&report)?;
    if let Some(out) = &args.out {
        std::fs::write(out, &json).with_context(|| format!("writing {}", out.display()))?;
    }
    if args.json {
        println!("{json}");
    } else {
        print!("{}", report.table());
        println!("run {run_id} stored; `guigym runs show {run_id}` shows it");
    }
    Ok(unscored_exit(report.unscored, args.run.allow_unscored))
}

/// Exit 3 when more attempts went unscored than allowed: the figures are over fewer attempts
/// than were asked for, and a script must not take them for the whole suite's.
pub fn unscored_exit(unscored: usize, allowed: usize) -> ExitCode {
    if unscored > allowed {
        eprintln!(
            "error: {unscored} attempt(s) could not be scored (infrastructure failures, listed in the report); \
             the success rate covers only the scored ones. Pass --allow-unscored {unscored} to accept that."
        );
        return ExitCode::from(3);
    }
    ExitCode::SUCCESS
}

#[derive(Subcommand)]
pub enum TasksCommand {
    /// List the tasks of a suite
    List {
        #[arg(long, default_value = "all")]
        suite: String,
        #[arg(long)]
        json: bool,
    },
    /// Show one task, with its hidden parameters and walkthrough
    Show { id: String },
    /// Save a screenshot of a task's screen after the first N steps of its walkthrough
    Screenshot {
        id: String,
        /// Walkthrough steps to play before the screenshot
        #[arg(long, default_value_t = 0)]
        steps: usize,
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        screen: ScreenArgs,
    },
    /// Mutation testing of verifiers: right solutions derived from each walkthrough must pass,
    /// wrong ones (mutants) must fail; prints false negatives and false positives per family
    /// and per rule, and exits 1 on any
    Audit(SuiteRun),
    /// Check that every task scores 0 after reset, 1 after its golden, 0 after reset again,
    /// and 1 after its walkthrough is played through the GUI
    Validate(SuiteRun),
    /// Import another benchmark's task files: `osworld DIR` keeps the OSWorld tasks the
    /// desktop backend can run (applications here, steps, getters and metrics implemented,
    /// assets in the cache) as suite `osworld`, and says for each other task why it was skipped
    Import {
        #[arg(value_parser = ["osworld"])]
        format: String,
        /// The folder of task files (searched recursively for *.json)
        dir: PathBuf,
        /// OSWorld's asset cache: `<cache>/<task id>/<file>`, as OSWorld's runner lays it out
        /// [default: $GUIGYM_OSWORLD_CACHE]
        #[arg(long)]
        cache: Option<PathBuf>,
        /// Where to keep the imported tasks [default: $GUIGYM_OSWORLD_TASKS, else
        /// ~/.local/share/guigym/osworld-tasks.json]
        #[arg(long)]
        to: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Download every file another benchmark's task files name into its asset cache: for
    /// `osworld DIR`, each `download` step's and `cloud_file` getter's file, in OSWorld's
    /// layout (`<cache>/<task id>/<file>`). Resumable; each file's SHA-256 is recorded in
    /// `<cache>/guigym-assets.json`; exits 1 if any file could not be fetched
    FetchAssets {
        #[arg(value_parser = ["osworld"])]
        format: String,
        /// The folder of task files (searched recursively for *.json)
        dir: PathBuf,
        /// The asset cache to fill [default: $GUIGYM_OSWORLD_CACHE]
        #[arg(long)]
        cache: Option<PathBuf>,
        /// Downloads at once
        #[arg(long, default_value_t = 4)]
        parallel: usize,
        #[arg(long)]
        json: bool,
    },
}

/// A suite played task by task on one instance (`tasks validate`, `tasks audit`).
#[derive(Args)]
pub struct SuiteRun {
    #[arg(long, default_value = "all")]
    suite: String,
    /// Only these tasks of the suite (repeatable)
    #[arg(long = "task")]
    tasks: Vec<String>,
    #[arg(long)]
    json: bool,
    /// Where the tasks run: sim (the simulated phone) or web (Chromium) [default: the first
    /// that hosts the suite's benchmark]
    #[arg(long, value_parser = registry::backend_names())]
    backend: Option<String>,
    #[command(flatten)]
    screen: ScreenArgs,
}

pub async fn tasks(registry: &Registry, command: TasksCommand) -> anyhow::Result<ExitCode> {
    match command {
        TasksCommand::List { suite, json } => {
            let tasks = registry.suite_tasks(&suite)?;
            if json {
                let rows: Vec<serde_json::Value> = tasks
                    .iter()
                    .map(|t| {
                        serde_json::json!({
                            "id": t.id, "family": t.family, "apps": t.apps, "instruction": t.instruction,
                            "split": tasks::split_of(t), "difficulty": t.difficulty, "step_budget": t.step_budget,
                            "world_seed": t.world_seed,
                        })
                    })
                    .collect();
                // A reader that stops early (`| head`) is not an error.
                if let Err(e) = writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(&rows)?) {
                    if e.kind() != std::io::ErrorKind::BrokenPipe {
                        return Err(e.into());
                    }
                }
            } else {
                let mut out = std::io::stdout().lock();
                for t in &tasks {
                    writeln!(out, "{:<40} {:>3} steps  {}", t.id, t.difficulty, t.instruction)?;
                }
                writeln!(out, "{} tasks in suite {suite}", tasks.len())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        TasksCommand::Show { id } => {
            let task = registry.find_task(&id).ok_or_else(|| anyhow!("no task \"{id}\"; ids look like messages.send/3"))?;
            println!("{}", serde_json::to_string_pretty(&task)?);
            Ok(ExitCode::SUCCESS)
        }
        TasksCommand::Screenshot { id, steps, out, screen } => {
            let task = registry.find_task(&id).ok_or_else(|| anyhow!("no task \"{id}\"; ids look like messages.send/3"))?;
            // The walkthrough's first steps, played by the golden policy through the one rollout
            // path (a step budget of `steps` stops it there).
            let played = TaskSpec { step_budget: u32::try_from(steps).unwrap_or(u32::MAX), ..task.clone() };
            let backend = registry.backend_for(None, &task.benchmark)?;
            let mut env = registry.provider(backend.name, screen.screen(backend)?)?.create().await?;
            let harness = guigym_harness::Harness::new(guigym_harness::HarnessConfig::default());
            let mut golden = guigym_harness::GoldenPolicy::new(task.walkthrough.clone());
            let id = guigym_rollout::new_trajectory_id();
            guigym_rollout::run_attempt(env.as_mut(), &played, &mut golden, &harness, 0, &id, &mut guigym_rollout::NullRecorder)
                .await
                .map_err(|e| anyhow!("playing {}: {e}", task.id))?;
            let obs = env.observe(guigym_core::ObserveOptions { screenshot: true }).await?;
            let png = obs.screenshot.map(|s| s.png().to_vec()).unwrap_or_default();
            std::fs::write(&out, png).with_context(|| format!("writing {}", out.display()))?;
            println!("{} after {steps} steps: {}", task.id, obs.screen);
            Ok(ExitCode::SUCCESS)
        }
        TasksCommand::Import { format: _, dir, cache, to, json } => {
            let cache = cache.or_else(|| std::env::var_os("GUIGYM_OSWORLD_CACHE").map(PathBuf::from)).map(|c| std::path::absolute(&c).unwrap_or(c));
            let imported = guigym_benchmark_osworld::import::import(&dir, cache.as_deref()).map_err(|e| anyhow!(e))?;
            let to = to.unwrap_or_else(guigym_benchmark_osworld::import::store_path);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
            }
            std::fs::write(&to, serde_json::to_string_pretty(&imported.kept)?).with_context(|| format!("writing {}", to.display()))?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &serde_json::json!({"kept": imported.kept.iter().map(|t| &t.id).collect::<Vec<_>>(), "skipped": imported.skipped, "to": to})
                    )?
                );
            } else {
                for t in &imported.kept {
                    println!("kept     {}", t.id);
                }
                for s in &imported.skipped {
                    println!("skipped  {} ({}): {}", s.id.as_deref().unwrap_or("?"), s.file.display(), s.reason);
                }
                println!();
                print!("{}", imported.table());
                println!("{} kept, {} skipped; kept tasks are suite \"osworld\" ({})", imported.kept.len(), imported.skipped.len(), to.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        TasksCommand::FetchAssets { format: _, dir, cache, parallel, json } => {
            use guigym_benchmark_osworld::assets::{self, Outcome};
            let cache = cache
                .or_else(|| std::env::var_os("GUIGYM_OSWORLD_CACHE").map(PathBuf::from))
                .ok_or_else(|| anyhow!("say where the cache is: --cache DIR (or GUIGYM_OSWORLD_CACHE)"))?;
            let cache = std::path::absolute(&cache).unwrap_or(cache);
            std::fs::create_dir_all(&cache).with_context(|| format!("creating {}", cache.display()))?;
            let (wanted, refused) = assets::list(&dir).map_err(|e| anyhow!(e))?;
            let how = assets::Fetch { parallel: parallel.clamp(1, 64), ..assets::Fetch::default() };
            let progress = Meter::new("assets", wanted.len() as u64, json);
            let ended = assets::fetch(&wanted, &cache, &how, |asset, outcome| {
                if let Outcome::Failed(why) = outcome {
                    progress.println(format!("failed   {}/{}: {why}", asset.task, asset.name));
                }
                progress.inc(1);
            })
            .await;
            progress.finish();
            let count = |f: fn(&Outcome) -> bool| ended.iter().filter(|(_, o)| f(o)).count();
            let (fetched, kept, failed) =
                (count(|o| matches!(o, Outcome::Fetched(_))), count(|o| matches!(o, Outcome::Kept(_))), count(|o| matches!(o, Outcome::Failed(_))));
            if json {
                let rows: Vec<serde_json::Value> = ended
                    .iter()
                    .map(|(a, o)| {
                        let mut row = serde_json::json!({"task": a.task, "name": a.name, "url": a.url});
                        match o {
                            Outcome::Fetched(r) | Outcome::Kept(r) => {
                                row["outcome"] = serde_json::json!(if matches!(o, Outcome::Fetched(_)) { "fetched" } else { "kept" });
                                row["sha256"] = serde_json::json!(r.sha256);
                                row["bytes"] = serde_json::json!(r.bytes);
                            }
                            Outcome::Failed(why) => {
                                row["outcome"] = serde_json::json!("failed");
                                row["error"] = serde_json::json!(why);
                            }
                        }
                        row
                    })
                    .collect();
                println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &serde_json::json!({"cache": cache, "assets": rows, "refused": refused, "fetched": fetched, "kept": kept, "failed": failed})
                    )?
                );
            } else {
                for why in &refused {
                    println!("refused  {why}");
                }
                println!("{fetched} fetched, {kept} already there, {failed} failed, {} refused; cache {}", refused.len(), cache.display());
            }
            Ok(if failed + refused.len() == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        TasksCommand::Audit(run) => {
            let (tasks, mut env, progress, backend) = one_instance_for(registry, &run, "audit").await?;
            let (suite, json) = (run.suite, run.json);
            let started = std::time::Instant::now();
            let mut report = guigym_rollout::audit::AuditReport::default();
            let platform = backend.platform();
            for task in &tasks {
                let benchmark = registry.catalogue.benchmark(&task.benchmark).ok_or_else(|| anyhow!("no benchmark \"{}\"", task.benchmark))?;
                guigym_rollout::audit::audit_task(env.as_mut(), task, benchmark, platform, &mut report)
                    .await
                    .with_context(|| format!("auditing {}", task.id))?;
                progress.inc(1);
            }
            progress.finish();
            let _ = env.release().await;
            let seconds = started.elapsed().as_secs_f64();
            if json {
                let mut v = serde_json::to_value(&report)?;
                v["suite"] = serde_json::json!(suite);
                v["seconds"] = serde_json::json!(seconds);
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                print!("{}", report.table());
                println!("{} tasks audited in {seconds:.1} s", report.tasks);
            }
            let wrong = report.overall.false_negatives + report.overall.false_positives;
            Ok(if wrong == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        TasksCommand::Validate(run) => {
            let (tasks, mut env, progress, _) = one_instance_for(registry, &run, "validate").await?;
            let (suite, json) = (run.suite, run.json);
            let mut results = Vec::new();
            for task in &tasks {
                let v = validate_task(env.as_mut(), task).await.with_context(|| format!("validating {}", task.id))?;
                if !v.passed {
                    progress.println(format!("FAIL {} — {}", v.task_id, v.failure.clone().unwrap_or_default()));
                }
                progress.inc(1);
                results.push(v);
            }
            progress.finish();
            let _ = env.release().await;
            let failed = results.iter().filter(|v| !v.passed).count();
            let families: std::collections::BTreeSet<&str> = results.iter().map(|v| v.family.as_str()).collect();
            let apps: std::collections::BTreeSet<&str> = tasks.iter().flat_map(|t| t.apps.iter().map(String::as_str)).collect();
            let mut kinds: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
            for f in families.iter().filter_map(|f| guigym_benchmark_phone::family(f)) {
                *kinds.entry(serde_json::to_value(f.kind())?.as_str().unwrap_or("").to_string()).or_default() += 1;
            }
            if json {
                let summary = serde_json::json!({
                    "suite": suite,
                    "tasks": results.len(),
                    "families": families.len(),
                    "apps": apps,
                    "families_by_kind": kinds,
                    "passed": results.len() - failed,
                    "failed": failed,
                    "results": results,
                });
                println!("{}", serde_json::to_string_pretty(&summary)?);
            } else {
                for v in results.iter().filter(|v| !v.passed) {
                    println!("FAIL {:<40} {}", v.task_id, v.failure.clone().unwrap_or_default());
                }
                println!("{} of {} tasks from {} families over {} apps pass validation", results.len() - failed, results.len(), families.len(), apps.len());
            }
            Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
    }
}

#[derive(Subcommand)]
pub enum RunsCommand {
    /// List stored runs
    List {
        #[command(flatten)]
        store: StoreArgs,
        #[arg(long)]
        json: bool,
    },
    /// Show one run: its config, its report and its counts
    Show {
        id: i64,
        /// Also list every step: output, action, feedback, usage, endpoint
        #[arg(long)]
        steps: bool,
        #[command(flatten)]
        store: StoreArgs,
    },
}

pub fn runs(command: RunsCommand) -> anyhow::Result<ExitCode> {
    match command {
        RunsCommand::List { store, json } => {
            let runs = open_store(&store)?.list_runs()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&runs)?);
            } else {
                println!("{:>5} {:<6} {:<10} {:<8} {:<6} {:>9} {:>9}", "id", "kind", "suite", "policy", "backend", "attempts", "success");
                for r in runs {
                    println!(
                        "{:>5} {:<6} {:<10} {:<8} {:<6} {:>9} {:>9}{}",
                        r.id,
                        r.kind,
                        r.suite,
                        r.policy,
                        r.backend,
                        r.attempts,
                        r.successes,
                        if r.finished_at.is_none() { "  (unfinished)" } else { "" }
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        RunsCommand::Show { id, store, steps } => {
            let store = open_store(&store)?;
            let mut detail = serde_json::to_value(store.show_run(id)?)?;
            if steps {
                detail["step_details"] = serde_json::Value::Array(store.step_details(id)?);
            }
            println!("{}", serde_json::to_string_pretty(&detail)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}
