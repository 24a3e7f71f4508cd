//! `guigym serve` (a manager, with an in-process worker unless `--capacity 0`) and
//! `guigym worker` (a worker process that registers with a manager).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use guigym_manager::api;
use guigym_manager::auth::Credentials;
use guigym_manager::client::{run_agent, ApiClient, RemoteLink};
use guigym_manager::net;
use guigym_manager::{Manager, ManagerConfig, Worker, WorkerConfig};

use crate::registry::Registry;

#[derive(Args, Clone)]
pub struct WorkerArgs {
    /// Instances this worker may hold at once
    #[arg(long, default_value_t = 4096)]
    pub capacity: usize,
    /// Episodes after which an instance is retired and replaced
    #[arg(long, default_value_t = 1000)]
    pub max_episodes: u32,
    /// Deadline of observe, step and evaluate
    #[arg(long, default_value_t = 30_000)]
    pub op_deadline_ms: u64,
    /// Deadline of reset and instance creation
    #[arg(long, default_value_t = 60_000)]
    pub reset_deadline_ms: u64,
}

impl WorkerArgs {
    fn config(&self) -> WorkerConfig {
        WorkerConfig {
            capacity: self.capacity,
            max_episodes: self.max_episodes.max(1),
            op_deadline: Duration::from_millis(self.op_deadline_ms),
            reset_deadline: Duration::from_millis(self.reset_deadline_ms),
            ..WorkerConfig::default()
        }
    }
}

#[derive(Args)]
pub struct ServeArgs {
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port (0 picks a free one; the address is printed)
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Clients' bearer token: leases and rollouts [env: GUIGYM_TOKEN]
    #[arg(long)]
    token: Option<String>,
    /// The fleet's bearer token: worker registration and heartbeats, and the manager's calls
    /// to workers [env: GUIGYM_WORKER_TOKEN]
    #[arg(long)]
    worker_token: Option<String>,
    /// Operators' bearer token: worker and pool listings, the golden route [env: GUIGYM_OPERATOR_TOKEN]
    #[arg(long)]
    operator_token: Option<String>,
    /// Exit when standard input closes: a parent that starts this server (the Python client's
    /// embedded default) takes it down with it, even when killed
    #[arg(long)]
    exit_with_stdin: bool,
    /// A store to show in the dashboard (`/dash`, for operators) beside the fleet page
    #[arg(long)]
    store: Option<std::path::PathBuf>,
    /// URL clients use to reach this server's data routes [default: http://HOST:PORT]
    #[arg(long)]
    advertise: Option<String>,
    /// Default lease TTL
    #[arg(long, default_value_t = 300_000)]
    ttl_ms: u64,
    /// Ready instances (of --warm-backend, at its default screen) kept ahead of demand,
    /// spread over workers
    #[arg(long, default_value_t = 0)]
    warm: usize,
    /// The backend whose instances are kept warm
    #[arg(long, default_value = "sim", value_parser = crate::registry::backend_names())]
    warm_backend: String,
    /// A remote worker silent this long is declared lost
    #[arg(long, default_value_t = 5_000)]
    worker_timeout_ms: u64,
    /// A model endpoint (a base URL ending in /v1) that callers of `POST /v1/rollouts` may
    /// name; repeat for more. With none listed, only hosts whose every address is public
    #[arg(long = "model-endpoint")]
    model_endpoints: Vec<String>,
    /// A file of such model endpoints, one per line (`#` starts a comment)
    #[arg(long)]
    model_endpoints_file: Option<std::path::PathBuf>,
    /// The in-process worker (capacity 0: manager only, workers register with `guigym worker`)
    #[command(flatten)]
    worker: WorkerArgs,
}

async fn bind(host: &str, port: u16) -> anyhow::Result<(tokio::net::TcpListener, String)> {
    let listener = tokio::net::TcpListener::bind((host, port)).await.with_context(|| format!("binding {host}:{port}"))?;
    let url = format!("http://{}", listener.local_addr()?);
    Ok((listener, url))
}

/// Raises the open-file limit and says so; the limits connections are held to.
pub fn limits() -> net::Limits {
    let (before, after) = net::raise_open_file_limit();
    let limits = net::Limits::for_process();
    tracing::info!(open_files_before = before, open_files = after, max_connections = limits.max_connections, "connection limits");
    limits
}

pub fn announce(url: &str) {
    use std::io::Write;
    println!("listening on {url}");
    let _ = std::io::stdout().flush();
}

pub async fn serve(registry: Arc<Registry>, args: ServeArgs) -> anyhow::Result<ExitCode> {
    if args.exit_with_stdin {
        std::thread::spawn(|| {
            use std::io::Read;
            let mut sink = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut sink);
            std::process::exit(0);
        });
    }
    registry.check_settings()?;
    let creds = Arc::new(Credentials::from_env(args.token.clone(), args.worker_token.clone(), args.operator_token.clone()));
    let (listener, url) = bind(&args.host, args.port).await?;
    let advertise = args.advertise.clone().unwrap_or_else(|| url.clone());
    let mut config = ManagerConfig {
        default_ttl: Duration::from_millis(args.ttl_ms.max(1)),
        worker_timeout: Duration::from_millis(args.worker_timeout_ms),
        backends: Some(registry.worker_backends()),
        ..ManagerConfig::default()
    };
    if args.warm > 0 {
        let screen = registry.backend(&args.warm_backend)?.screen;
        config.warm.push((registry.env_spec(&args.warm_backend, screen)?, args.warm));
    }
    let manager = Manager::new(config);
    let link = RemoteLink::factory(creds.worker.clone());
    // Rollouts lease through this same manager, as any client does.
    let mut endpoints = args.model_endpoints.clone();
    if let Some(file) = &args.model_endpoints_file {
        let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        endpoints.extend(text.lines().map(|l| l.split('#').next().unwrap_or("").trim()).filter(|l| !l.is_empty()).map(str::to_string));
    }
    let egress = guigym_harness::egress::Egress::new(&endpoints).map_err(|e| anyhow::anyhow!("--model-endpoint: {e}"))?;
    let catalogue = registry.catalogue.clone();
    let spec_of: guigym_serve::rollouts::SpecOf = Arc::new({
        let registry = registry.clone();
        move |backend: &str| {
            let screen = registry.backend(backend).map_err(|e| e.to_string())?.screen;
            registry.env_spec(backend, screen).map_err(|e| e.to_string())
        }
    });
    let rollouts = guigym_serve::rollouts::state(catalogue.clone(), spec_of, &url, creds.client.clone(), egress);
    let mut rollouts =
        guigym_serve::rollouts::router(rollouts).merge(guigym_serve::tasks::router(catalogue)).merge(guigym_serve::dash::fleet_routes(manager.clone()));
    if let Some(dir) = &args.store {
        let store = Arc::new(crate::commands::open_store(&crate::StoreArgs { store: Some(dir.clone()) })?);
        rollouts = rollouts.merge(guigym_serve::dash::guarded_store_routes(crate::dash::dash(&registry, store), creds.clone()));
    }
    let mut local = None;
    let router = if args.worker.capacity > 0 {
        let worker = Worker::with_metrics(args.worker.config(), registry.worker_backends(), manager.metrics.clone());
        manager.add_local_worker(worker.clone(), &advertise);
        tokio::spawn(worker.clone().run_pool_loop(Duration::from_millis(200)));
        local = Some(worker.clone());
        api::embedded_router(manager.clone(), worker, creds, link, rollouts)
    } else {
        api::manager_router(manager.clone(), creds, link, rollouts)
    };
    tokio::spawn(manager.clone().run_control_loop());
    let limits = limits();
    announce(&url);
    serve_until_stopped(listener, router, limits, local).await
}

/// Serves until Ctrl-C or SIGTERM, then ends the worker's instances (if this process hosts
/// one), so that no display, application or browser outlives the server.
async fn serve_until_stopped(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: net::Limits,
    worker: Option<Arc<Worker>>,
) -> anyhow::Result<ExitCode> {
    tokio::select! {
        served = net::serve(listener, router, limits) => served?,
        _ = stop_requested() => {
            if let Some(worker) = worker {
                worker.shutdown("the server stopped").await;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Ctrl-C or SIGTERM.
pub async fn stop_requested() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}

#[derive(Args)]
pub struct WorkerProcessArgs {
    /// The manager's base URL
    #[arg(long)]
    manager: String,
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// URL the manager and clients use to reach this worker [default: http://HOST:PORT]
    #[arg(long)]
    advertise: Option<String>,
    /// The fleet's bearer token: to register with the manager and to accept its calls
    /// [env: GUIGYM_WORKER_TOKEN]
    #[arg(long)]
    worker_token: Option<String>,
    /// Operators' bearer token, for the golden route [env: GUIGYM_OPERATOR_TOKEN]
    #[arg(long)]
    operator_token: Option<String>,
    #[arg(long, default_value_t = 1_000)]
    heartbeat_ms: u64,
    #[command(flatten)]
    worker: WorkerArgs,
}

pub async fn worker(registry: &Registry, args: WorkerProcessArgs) -> anyhow::Result<ExitCode> {
    registry.check_settings()?;
    // A worker serves no clients' routes: the clients' token has no power here.
    let creds = Arc::new(Credentials::from_env(None, args.worker_token.clone(), args.operator_token.clone()));
    let (listener, url) = bind(&args.host, args.port).await?;
    let advertise = args.advertise.clone().unwrap_or_else(|| url.clone());
    let worker = Worker::new(args.worker.config(), registry.worker_backends());
    let manager = ApiClient::new(&args.manager, creds.worker.clone(), Duration::from_secs(10));
    tokio::spawn(run_agent(manager, advertise, worker.clone(), Duration::from_millis(args.heartbeat_ms.max(50))));
    tokio::spawn(worker.clone().run_pool_loop(Duration::from_millis(200)));
    let limits = limits();
    announce(&url);
    serve_until_stopped(listener, api::worker_router(worker.clone(), creds), limits, Some(worker)).await
}
