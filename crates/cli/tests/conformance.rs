//! One conformance suite (`guigym_rollout::check_env`) for every backend: the sim in-process,
//! the web backend in Chromium, the desktop backend on Xvfb, the android backend on guigym's
//! ADB devices through Debian's adb server, and an `EnvClient` leasing from a manager process.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use guigym_benchmark_phone as tasks;
use guigym_core::Screen;
use guigym_core::{EnvProvider, TaskSpec};
use guigym_rollout::check_env;

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(f)
}

/// A few tasks over different apps and kinds.
fn sample() -> Vec<TaskSpec> {
    tasks::suite("smoke").unwrap().into_iter().step_by(12).collect()
}

fn check(provider: Arc<dyn EnvProvider>) {
    let panicking = tasks::verifier_panic_task();
    let result = block_on(async { check_env(provider.as_ref(), &sample(), Some(&panicking)).await });
    if let Err(broken) = result {
        panic!("{} broke the contract:\n{}", provider.backend(), broken.join("\n"));
    }
}

#[test]
fn the_sim_backend_keeps_the_contract() {
    check(Arc::new(guigym_sim::SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: guigym_benchmark_phone::hosted() }));
}

#[test]
#[ignore = "full tier: Chromium"]
fn the_web_backend_keeps_the_contract() {
    assert!(guigym_web::find_chromium().is_some(), "Chromium is missing: run ./scripts/setup.sh");
    check(Arc::new(guigym_web::WebProvider::new(Screen::PHONE, guigym_benchmark_phone::hosted(), guigym_benchmark_miniwob::hosted())));
}

#[test]
#[ignore = "full tier: real X server and applications"]
fn the_desktop_backend_keeps_the_contract() {
    assert!(guigym_desktop::missing().is_none(), "the desktop applications are missing: run ./scripts/setup.sh");
    let tasks: Vec<TaskSpec> = guigym_benchmark_desktop::suite("desktop-smoke").unwrap().into_iter().step_by(5).collect();
    let provider = guigym_desktop::DesktopProvider::new(1280, 800, guigym_benchmark_desktop::hosted()).with_spare(false);
    let result = block_on(async { check_env(&provider, &tasks, None).await });
    if let Err(broken) = result {
        panic!("the desktop backend broke the contract:\n{}", broken.join("\n"));
    }
}

#[test]
#[ignore = "full tier: Debian's adb"]
fn the_android_backend_keeps_the_contract() {
    // Two simulated phones served over ADB, driven through Debian's adb server.
    let server = common::AdbServer::start("conformance");
    let devices = common::Served::start(&["adb-device", "--port", "0", "--devices", "2"]);
    let serials = common::device_serials(&devices.url).join(",");
    let config = guigym_android::AndroidConfig::from_serials(&serials, Some(devices.url.clone()), Some(format!("127.0.0.1:{}", server.port)));
    let apps = guigym_phone::apps::APPS.iter().map(|a| a.name.to_string()).collect();
    check(Arc::new(guigym_android::AndroidProvider::new(&config, apps).unwrap()));
}

#[test]
fn a_manager_client_keeps_the_contract() {
    let server = common::Served::start(&["serve", "--port", "0"]);
    let provider = guigym_manager::ManagerProvider::new(&server.url, None, guigym_manager::EnvSpec::sim(), Duration::from_secs(60));
    check(Arc::new(provider));
}

#[test]
fn the_checker_catches_a_backend_that_breaks_the_contract() {
    // A backend whose invalid actions advance its clock: the checker must say so.
    struct Leaky(guigym_sim::SimProvider);
    struct LeakyEnv(guigym_sim::SimEnv);
    #[async_trait::async_trait]
    impl guigym_core::Env for LeakyEnv {
        async fn reset(&mut self, t: &TaskSpec) -> Result<guigym_core::Observation, guigym_core::EnvError> {
            self.0.reset(t).await
        }
        async fn observe(&mut self, o: guigym_core::ObserveOptions) -> Result<guigym_core::Observation, guigym_core::EnvError> {
            self.0.observe(o).await
        }
        async fn step(&mut self, a: &guigym_core::Action) -> Result<guigym_core::StepOutcome, guigym_core::EnvError> {
            let out = self.0.step(a).await?;
            if out.invalid {
                if let Some(s) = self.0.state_mut() {
                    s.clock_ms += 1000;
                }
            }
            Ok(out)
        }
        async fn evaluate(&mut self) -> Result<guigym_core::Verdict, guigym_core::EnvError> {
            self.0.evaluate().await
        }
        async fn state_hash(&mut self) -> Result<String, guigym_core::EnvError> {
            self.0.state_hash().await
        }
        async fn apply_golden(&mut self) -> Result<(), guigym_core::EnvError> {
            self.0.apply_golden().await
        }
    }
    #[async_trait::async_trait]
    impl EnvProvider for Leaky {
        fn backend(&self) -> String {
            "leaky".into()
        }
        async fn create(&self) -> Result<Box<dyn guigym_core::Env>, guigym_core::EnvError> {
            Ok(Box::new(LeakyEnv(guigym_sim::SimEnv::new(self.0.screen, guigym_benchmark_phone::hosted()))))
        }
    }
    let broken = block_on(async {
        check_env(&Leaky(guigym_sim::SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: guigym_benchmark_phone::hosted() }), &sample(), None).await
    })
    .unwrap_err();
    assert!(broken.iter().any(|b| b.starts_with("invalid actions change nothing")), "{broken:?}");
}
