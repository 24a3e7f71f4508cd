//! A new benchmark is one module and one registry line: a toy benchmark ("open the app")
//! defined here, in the phone benchmarks a phone backend is given (`PhoneBenchmarks`), runs
//! through the one rollout path on the simulated phone in-process and through a manager, and
//! is judged by its own verifier.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use guigym_benchmark_phone::EpisodeLog;
use guigym_core::{Action, Benchmark, Check, EnvProvider, TaskSpec, TerminateStatus, Verdict};
use guigym_harness::PolicyKind;
use guigym_manager::auth::Credentials;
use guigym_manager::client::RemoteLink;
use guigym_manager::{api, net, Backends, EnvSpec, Manager, ManagerConfig, ManagerProvider, Worker, WorkerConfig};
use guigym_phone::benchmark::{PhoneBenchmark, PhoneBenchmarks};
use guigym_phone::{DeviceState, World};
use guigym_rollout::{eval, EvalConfig};

/// Tasks: open one of the phone's apps. Judged by which app is in front at the end.
struct OpenTheApp;

impl OpenTheApp {
    fn app(task: &TaskSpec) -> String {
        task.params["app"].as_str().unwrap_or_default().to_string()
    }
}

impl Benchmark for OpenTheApp {
    fn name(&self) -> &str {
        "open-the-app"
    }
    fn suites(&self) -> Vec<String> {
        vec!["open-the-app".into()]
    }
    fn suite(&self, _name: &str) -> Result<Vec<TaskSpec>, String> {
        Ok(["Clock", "Notes", "Maps"].iter().enumerate().map(|(i, app)| self.task(&format!("open.{app}/{i}")).unwrap()).collect())
    }
    fn task(&self, id: &str) -> Option<TaskSpec> {
        let (family, seed) = id.rsplit_once('/')?;
        let app = family.strip_prefix("open.")?;
        Some(TaskSpec {
            id: id.into(),
            benchmark: self.name().into(),
            family: family.into(),
            instruction: format!("Open the {app} app."),
            apps: vec![app.into()],
            world_seed: seed.parse().ok()?,
            step_budget: 5,
            difficulty: 2,
            params: serde_json::json!({ "app": app }),
            walkthrough: vec![Action::OpenApp { name: app.into() }, Action::Terminate { status: TerminateStatus::Success }],
        })
    }
}

impl PhoneBenchmark for OpenTheApp {
    fn initial_state(&self, task: &TaskSpec) -> Result<DeviceState, String> {
        Ok(DeviceState::from_world(&World::generate(task.world_seed)))
    }
    fn golden(&self, task: &TaskSpec, state: &mut DeviceState, _log: &mut EpisodeLog) -> Result<(), String> {
        state.ui.foreground = Some(Self::app(task));
        Ok(())
    }
    fn verify(&self, task: &TaskSpec, _initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let front = last.ui.foreground.clone().unwrap_or_default();
        Verdict::from_checks(vec![Check::new("app_in_front", front == Self::app(task), front)], vec![])
    }
}

static OPEN_THE_APP: OpenTheApp = OpenTheApp;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_toy_benchmark_runs_embedded_and_through_a_manager() {
    let hosted = PhoneBenchmarks::new([&OPEN_THE_APP as &'static dyn PhoneBenchmark]); // the one registry line
    let tasks = Arc::new(OPEN_THE_APP.suite("open-the-app").unwrap());
    let config = EvalConfig { suite: "open-the-app".into(), attempts: 2, parallel: 2, ..EvalConfig::default() };

    // Embedded: the simulated phone in-process.
    let embedded: Arc<dyn EnvProvider> = Arc::new(guigym_sim::SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: hosted.clone() });
    let (_, golden) = eval(tasks.clone(), &config, embedded.clone(), Arc::new(PolicyKind::Golden), None, Arc::new(())).await.unwrap();
    assert_eq!((golden.attempts, golden.success_rate), (6, 1.0), "the walkthrough opens the app");
    let (_, random) = eval(tasks.clone(), &config, embedded, Arc::new(PolicyKind::Random), None, Arc::new(())).await.unwrap();
    assert!(random.success_rate < 1.0, "the benchmark's own verifier judges: random taps do not all pass");

    // Through a manager and a worker over HTTP.
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let manager = Manager::new(ManagerConfig::default());
    let backends = Backends::new().with(
        "sim",
        &[guigym_core::Platform::Mobile],
        Arc::new(move |s: &EnvSpec| {
            let screen = guigym_core::Screen { width: s.width, height: s.height };
            Ok(Arc::new(guigym_sim::SimProvider { screen, benchmarks: hosted.clone() }) as Arc<dyn EnvProvider>)
        }),
    );
    let worker = Worker::new(WorkerConfig { capacity: 4, ..WorkerConfig::default() }, backends);
    manager.add_local_worker(worker.clone(), &url);
    let router = api::embedded_router(manager.clone(), worker, Arc::new(Credentials::open()), RemoteLink::factory(None), axum::Router::new());
    tokio::spawn(net::serve(listener, router, net::Limits::for_process()));
    let remote: Arc<dyn EnvProvider> = Arc::new(ManagerProvider::new(&url, None, EnvSpec::sim(), Duration::from_secs(60)));
    let (_, through) = eval(tasks, &config, remote, Arc::new(PolicyKind::Golden), None, Arc::new(())).await.unwrap();
    assert_eq!((through.attempts, through.success_rate, through.infra_failures), (6, 1.0, 0));
}
