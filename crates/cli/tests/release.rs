//! A worker releases what its instances hold on every path out (retirement after its
//! episodes, quarantine after a missed deadline, warm-pool scale-down): counted as Chromium
//! browser contexts before and after.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use guigym_benchmark_phone as tasks;
use guigym_core::EnvProvider;
use guigym_core::Screen;
use guigym_manager::{Backends, EnvSpec, Worker, WorkerConfig};
use guigym_web::WebProvider;

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(f)
}

fn worker(provider: Arc<WebProvider>, config: WorkerConfig) -> Arc<Worker> {
    let backends = Backends::new().with("web", &[guigym_core::Platform::Mobile], Arc::new(move |_: &EnvSpec| Ok(provider.clone() as Arc<dyn EnvProvider>)));
    Worker::new(config, backends)
}

/// Web instances that claim no time of their own to notice a stall, so that a deadline of a
/// millisecond is missed (a web page's own bound is seconds long).
struct Unbounded(Arc<WebProvider>);
struct UnboundedEnv(Box<dyn guigym_core::Env>);

#[async_trait::async_trait]
impl EnvProvider for Unbounded {
    fn backend(&self) -> String {
        self.0.backend()
    }
    async fn create(&self) -> Result<Box<dyn guigym_core::Env>, guigym_core::EnvError> {
        Ok(Box::new(UnboundedEnv(self.0.create().await?)))
    }
}

#[async_trait::async_trait]
impl guigym_core::Env for UnboundedEnv {
    async fn reset(&mut self, t: &guigym_core::TaskSpec) -> Result<guigym_core::Observation, guigym_core::EnvError> {
        self.0.reset(t).await
    }
    async fn observe(&mut self, o: guigym_core::ObserveOptions) -> Result<guigym_core::Observation, guigym_core::EnvError> {
        self.0.observe(o).await
    }
    async fn step(&mut self, a: &guigym_core::Action) -> Result<guigym_core::StepOutcome, guigym_core::EnvError> {
        self.0.step(a).await
    }
    async fn evaluate(&mut self) -> Result<guigym_core::Verdict, guigym_core::EnvError> {
        self.0.evaluate().await
    }
    async fn state_hash(&mut self) -> Result<String, guigym_core::EnvError> {
        self.0.state_hash().await
    }
    async fn release(&mut self) -> Result<(), guigym_core::EnvError> {
        self.0.release().await
    }
}

#[test]
fn instances_leave_no_browser_context_behind() {
    if guigym_web::find_chromium().is_none() {
        panic!("Chromium is missing: run ./scripts/setup.sh");
    }
    block_on(async {
        let provider = Arc::new(WebProvider::new(Screen::PHONE, guigym_benchmark_phone::hosted(), guigym_benchmark_miniwob::hosted()));
        let contexts = || async { provider.browser().await.unwrap().context_count().await.unwrap() };
        let spec = EnvSpec { backend: "web".into(), ..EnvSpec::sim() };
        let task = tasks::suite("smoke").unwrap()[0].clone();
        let baseline = contexts().await;

        // Retirement: one episode per instance, then it is replaced.
        let w = worker(provider.clone(), WorkerConfig { max_episodes: 1, ..WorkerConfig::default() });
        for round in 0..3 {
            let lease = format!("retire-{round}");
            let ids = w.acquire(&spec, std::slice::from_ref(&lease)).await.unwrap();
            w.reset(ids[0], &lease, &task).await.unwrap();
            assert_eq!(contexts().await, baseline + 1);
            w.release(std::slice::from_ref(&lease), "done").await;
            assert_eq!(contexts().await, baseline, "a retired instance left its context behind");
        }

        // Quarantine: an operation that misses its deadline drops the instance, and its page.
        let unbounded = Arc::new(Unbounded(provider.clone()));
        let backends =
            Backends::new().with("web", &[guigym_core::Platform::Mobile], Arc::new(move |_: &EnvSpec| Ok(unbounded.clone() as Arc<dyn EnvProvider>)));
        let w = Worker::new(WorkerConfig { op_deadline: Duration::from_millis(1), ..WorkerConfig::default() }, backends);
        let lease = "quarantined".to_string();
        let ids = w.acquire(&spec, std::slice::from_ref(&lease)).await.unwrap();
        w.reset(ids[0], &lease, &task).await.unwrap();
        assert_eq!(contexts().await, baseline + 1);
        let shot = guigym_core::ObserveOptions { screenshot: true };
        assert!(w.observe(ids[0], &lease, shot).await.is_err(), "a screenshot in 1 ms");
        assert_eq!(w.status().instances, 0, "the quarantined instance is gone");
        assert_eq!(contexts().await, baseline, "quarantine left the instance's context behind");

        // Scale-down: warm instances that are retired release their pages.
        let w = worker(provider.clone(), WorkerConfig::default());
        let before = contexts().await;
        let leases: Vec<String> = (0..3).map(|i| format!("warm-{i}")).collect();
        let ids = w.acquire(&spec, &leases).await.unwrap();
        for (id, lease) in ids.iter().zip(&leases) {
            w.reset(*id, lease, &task).await.unwrap();
        }
        assert_eq!(contexts().await, before + 3);
        w.release(&leases, "done").await;
        w.set_warm(&spec, 0).unwrap();
        w.reconcile().await;
        assert_eq!(w.status().instances, 0);
        assert_eq!(contexts().await, before, "scaled-down instances left contexts behind");
    });
}
