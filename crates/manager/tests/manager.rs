//! The manager and a worker over real HTTP on loopback: idempotent steps, lease expiry and
//! reuse, deadlines that quarantine and replace an instance, bad input answered with 4xx,
//! the bearer token.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use guigym_benchmark_phone as tasks;
use guigym_core::Screen;
use guigym_core::{Action, Env, EnvError, EnvProvider, Observation, ObserveOptions, StepOutcome, TaskSpec, Verdict};
use guigym_manager::api;
use guigym_manager::auth::Credentials;
use guigym_manager::client::{ApiClient, ClientError, RemoteLink};
use guigym_manager::{Backends, EnvSpec, Manager, ManagerConfig, ManagerProvider, Worker, WorkerConfig};
use guigym_sim::{SimEnv, SimProvider};
use serde_json::{json, Value};

/// A backend whose steps never finish.
struct Hanging;

#[async_trait]
impl Env for Hanging {
    async fn reset(&mut self, _t: &TaskSpec) -> Result<Observation, EnvError> {
        Ok(Observation::default())
    }
    async fn observe(&mut self, _o: ObserveOptions) -> Result<Observation, EnvError> {
        Ok(Observation::default())
    }
    async fn step(&mut self, _a: &Action) -> Result<StepOutcome, EnvError> {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Err(EnvError::Infra("unreachable".into()))
    }
    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        Ok(Verdict::default())
    }
    async fn state_hash(&mut self) -> Result<String, EnvError> {
        Ok(String::new())
    }
}

/// A backend whose instance the agent stalled: each operation takes 700 ms, then says so,
/// within the bound the backend declares (longer than the worker's deadline).
struct Stalled;

const STALL: Duration = Duration::from_millis(700);

#[async_trait]
impl Env for Stalled {
    fn stall_bound(&self) -> Duration {
        STALL
    }
    async fn reset(&mut self, _t: &TaskSpec) -> Result<Observation, EnvError> {
        Ok(Observation::default())
    }
    async fn observe(&mut self, _o: ObserveOptions) -> Result<Observation, EnvError> {
        tokio::time::sleep(STALL).await;
        Ok(Observation { broken: Some("the agent's program holds the display".into()), ..Observation::default() })
    }
    async fn step(&mut self, _a: &Action) -> Result<StepOutcome, EnvError> {
        tokio::time::sleep(STALL).await;
        Ok(StepOutcome::broken("the agent's program holds the display"))
    }
    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        Ok(Verdict::default())
    }
    async fn state_hash(&mut self) -> Result<String, EnvError> {
        Ok(String::new())
    }
}

struct StalledProvider;

#[async_trait]
impl EnvProvider for StalledProvider {
    fn backend(&self) -> String {
        "stalled".into()
    }
    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        Ok(Box::new(Stalled))
    }
}

struct HangingProvider;

#[async_trait]
impl EnvProvider for HangingProvider {
    fn backend(&self) -> String {
        "hang".into()
    }
    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        Ok(Box::new(Hanging))
    }
}

/// A backend whose steps panic (as a backend might on what a device sent it).
struct Panicky;

#[async_trait]
impl Env for Panicky {
    async fn reset(&mut self, _t: &TaskSpec) -> Result<Observation, EnvError> {
        Ok(Observation::default())
    }
    async fn observe(&mut self, _o: ObserveOptions) -> Result<Observation, EnvError> {
        Ok(Observation::default())
    }
    async fn step(&mut self, _a: &Action) -> Result<StepOutcome, EnvError> {
        let bounds: Vec<i32> = vec![i32::MIN, i32::MAX];
        panic!("attempt to subtract with overflow: {bounds:?}");
    }
    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        Ok(Verdict::default())
    }
    async fn state_hash(&mut self) -> Result<String, EnvError> {
        Ok(String::new())
    }
}

/// One device, shared by every spec of the backend: an instance holds it until it is dropped.
struct OneDevice(Arc<std::sync::atomic::AtomicBool>);

struct OnDevice(Arc<std::sync::atomic::AtomicBool>);

impl Drop for OnDevice {
    fn drop(&mut self) {
        self.0.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

#[async_trait]
impl Env for OnDevice {
    async fn reset(&mut self, _t: &TaskSpec) -> Result<Observation, EnvError> {
        Ok(Observation::default())
    }
    async fn observe(&mut self, _o: ObserveOptions) -> Result<Observation, EnvError> {
        Ok(Observation::default())
    }
    async fn step(&mut self, _a: &Action) -> Result<StepOutcome, EnvError> {
        Ok(StepOutcome::ok("done"))
    }
    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        Ok(Verdict::default())
    }
    async fn state_hash(&mut self) -> Result<String, EnvError> {
        Ok(String::new())
    }
}

#[async_trait]
impl EnvProvider for OneDevice {
    fn backend(&self) -> String {
        "device".into()
    }
    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        if self.0.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return Err(EnvError::NoCapacity { message: "the device is in use".into(), retry_after_ms: Some(100) });
        }
        Ok(Box::new(OnDevice(self.0.clone())))
    }
}

struct PanickyProvider;

#[async_trait]
impl EnvProvider for PanickyProvider {
    fn backend(&self) -> String {
        "panicky".into()
    }
    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        Ok(Box::new(Panicky))
    }
}

fn backends() -> Backends {
    Backends::new()
        .with(
            "sim",
            &[guigym_core::Platform::Mobile],
            Arc::new(|s: &EnvSpec| {
                Ok(Arc::new(SimProvider { screen: Screen { width: s.width, height: s.height }, benchmarks: guigym_benchmark_phone::hosted() })
                    as Arc<dyn EnvProvider>)
            }),
        )
        .with("hang", &[guigym_core::Platform::Mobile], Arc::new(|_s: &EnvSpec| Ok(Arc::new(HangingProvider) as Arc<dyn EnvProvider>)))
        .with("stalled", &[guigym_core::Platform::Mobile], Arc::new(|_s: &EnvSpec| Ok(Arc::new(StalledProvider) as Arc<dyn EnvProvider>)))
        .with("panicky", &[guigym_core::Platform::Mobile], Arc::new(|_s: &EnvSpec| Ok(Arc::new(PanickyProvider) as Arc<dyn EnvProvider>)))
        .with("device", &[guigym_core::Platform::Mobile], {
            let taken = Arc::new(std::sync::atomic::AtomicBool::new(false));
            Arc::new(move |_s: &EnvSpec| Ok(Arc::new(OneDevice(taken.clone())) as Arc<dyn EnvProvider>))
        })
}

/// An embedded manager + worker on a free loopback port.
async fn start(capacity: usize, token: Option<&str>) -> (String, Arc<Manager>, Arc<Worker>) {
    start_with(capacity, token, ManagerConfig { reclaim_every: Duration::from_millis(50), ..ManagerConfig::default() }).await
}

async fn start_with(capacity: usize, token: Option<&str>, config: ManagerConfig) -> (String, Arc<Manager>, Arc<Worker>) {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let manager = Manager::new(config);
    let worker = Worker::with_metrics(
        WorkerConfig { capacity, op_deadline: Duration::from_millis(300), ..WorkerConfig::default() },
        backends(),
        manager.metrics.clone(),
    );
    manager.add_local_worker(worker.clone(), &url);
    let link = RemoteLink::factory(None);
    let creds = Arc::new(Credentials { client: token.map(str::to_string), ..Credentials::open() });
    let router = api::embedded_router(manager.clone(), worker.clone(), creds, link, axum::Router::new());
    tokio::spawn(async move { axum::serve(listener, router).await });
    tokio::spawn(manager.clone().run_control_loop());
    tokio::spawn(worker.clone().run_pool_loop(Duration::from_millis(20)));
    (url, manager, worker)
}

fn client(url: &str, token: Option<&str>) -> ApiClient {
    ApiClient::new(url, token.map(str::to_string), Duration::from_secs(10))
}

async fn lease(c: &ApiClient, spec: Value, ttl_ms: u64) -> Value {
    let v: Value = c.post("/v1/leases", &json!({ "spec": spec, "count": 1, "ttl_ms": ttl_ms })).await.unwrap();
    v["leases"][0].clone()
}

fn status_of(r: Result<Value, ClientError>) -> (u16, String) {
    match r {
        Err(ClientError::Status { status, message, .. }) => (status, message),
        Err(other) => panic!("transport error: {other}"),
        Ok(v) => panic!("expected an error, got {v}"),
    }
}

/// An operation that takes longer than the worker's deadline because the agent stalled its
/// instance, within the bound the backend declares, is answered (the episode is then judged)
/// rather than cut off as an infrastructure failure that would re-run the attempt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backends_own_stall_detection_decides_before_the_workers_deadline() {
    let (url, _m, _w) = start(8, None).await;
    let c = client(&url, None);
    let g = lease(&c, json!({"backend": "stalled"}), 60_000).await;
    let (iid, lid) = (g["instance_id"].as_u64().unwrap(), g["lease_id"].as_str().unwrap().to_string());
    let task = tasks::find_task("messages.send/0").unwrap();
    let _: Value = c.post(&format!("/v1/instances/{iid}/reset"), &json!({"lease": lid, "task": task})).await.unwrap();
    let obs: Value = c.post(&format!("/v1/instances/{iid}/observe"), &json!({"lease": lid})).await.unwrap();
    assert!(obs["broken"].as_str().is_some_and(|b| b.contains("display")), "{obs}");
    let step: Value =
        c.post(&format!("/v1/instances/{iid}/step"), &json!({"lease": lid, "request_id": "r-1", "action": {"action": "wait", "ms": 10}})).await.unwrap();
    assert_eq!((step["done"].clone(), step["broken"].is_string()), (json!(true), true), "{step}");
    let verdict: Value = c.post(&format!("/v1/instances/{iid}/evaluate"), &json!({"lease": lid})).await.unwrap();
    assert!(verdict.is_object(), "the instance was not quarantined: {verdict}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicated_step_changes_the_state_once() {
    let (url, _m, _w) = start(8, None).await;
    let c = client(&url, None);
    let task = tasks::find_task("messages.send/0").unwrap();
    let g = lease(&c, json!({"backend": "sim"}), 60_000).await;
    let (iid, lid) = (g["instance_id"].as_u64().unwrap(), g["lease_id"].as_str().unwrap().to_string());
    let _: Value = c.post(&format!("/v1/instances/{iid}/reset"), &json!({"lease": lid, "task": task})).await.unwrap();
    // The first walkthrough step opens Messages; a second application would tap on its screen.
    let tap = json!({"action": "open_app", "name": "Messages"});
    let first: Value = c.post(&format!("/v1/instances/{iid}/step"), &json!({"lease": lid, "request_id": "r-1", "action": tap})).await.unwrap();
    let again: Value = c.post(&format!("/v1/instances/{iid}/step"), &json!({"lease": lid, "request_id": "r-1", "action": tap})).await.unwrap();
    assert_eq!(first, again, "a retry gets the first answer");
    // Eight concurrent copies of a new request.
    let new_msg = json!({"action": "click", "element": "new"});
    let mut handles = Vec::new();
    for _ in 0..8 {
        let (c, lid) = (c.clone(), lid.clone());
        let body = json!({"lease": lid, "request_id": "r-2", "action": new_msg});
        handles.push(tokio::spawn(async move { c.post::<Value>(&format!("/v1/instances/{iid}/step"), &body).await.unwrap() }));
    }
    let answers: Vec<Value> = futures_all(handles).await;
    assert!(answers.windows(2).all(|w| w[0] == w[1]));
    let hash: Value = c.post(&format!("/v1/instances/{iid}/state_hash"), &json!({"lease": lid})).await.unwrap();

    // The same two actions applied once each, in-process.
    let mut reference = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
    reference.reset(&task).await.unwrap();
    reference.step(&Action::OpenApp { name: "Messages".into() }).await.unwrap();
    reference.step(&Action::click_element("new")).await.unwrap();
    assert_eq!(hash["hash"].as_str().unwrap(), reference.state_hash().await.unwrap());
}

async fn futures_all(handles: Vec<tokio::task::JoinHandle<Value>>) -> Vec<Value> {
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_lease_is_reclaimed_and_its_instance_serves_again() {
    let (url, manager, _w) = start(1, None).await;
    let c = client(&url, None);
    let g = lease(&c, json!({"backend": "sim"}), 200).await;
    let (iid, lid) = (g["instance_id"].as_u64().unwrap(), g["lease_id"].as_str().unwrap().to_string());
    // Capacity is one: while the lease lives, nothing else can be leased.
    let busy: Result<Value, _> = c.post("/v1/leases", &json!({"spec": {"backend": "sim"}})).await;
    assert_eq!(status_of(busy).0, 503);
    // Without heartbeats the lease ends once its TTL has passed (polled, with a deadline).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let (status, message) = loop {
        let r = c.post::<Value>(&format!("/v1/instances/{iid}/observe"), &json!({"lease": lid})).await;
        if matches!(r, Err(ClientError::Status { status: 410, .. })) || std::time::Instant::now() > deadline {
            break status_of(r);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(status, 410, "{message}");
    assert!(message.contains("expired"), "{message}");
    let (status, _) = status_of(c.post::<Value>(&format!("/v1/leases/{lid}/heartbeat"), &json!({})).await);
    assert_eq!(status, 410);
    let again = lease(&c, json!({"backend": "sim"}), 60_000).await;
    assert_eq!(again["instance_id"].as_u64().unwrap(), iid, "the same instance serves the new lease");
    assert!(manager.metrics.render(&[]).contains("guigym_leases_expired_total 1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_keep_a_lease_alive() {
    let (url, _m, _w) = start(2, None).await;
    let c = client(&url, None);
    // Heartbeats every 100 ms for three times the TTL: far inside the TTL each time.
    let g = lease(&c, json!({"backend": "sim"}), 1000).await;
    let lid = g["lease_id"].as_str().unwrap();
    for _ in 0..30 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let _: Value = c.post(&format!("/v1/leases/{lid}/heartbeat"), &json!({})).await.unwrap();
    }
    let iid = g["instance_id"].as_u64().unwrap();
    let task = tasks::find_task("contacts.add/0").unwrap();
    let _: Value = c.post(&format!("/v1/instances/{iid}/reset"), &json!({"lease": lid, "task": task})).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_operation_fails_as_infrastructure_and_the_instance_is_replaced() {
    let (url, _m, worker) = start(4, None).await;
    let c = client(&url, None);
    let g = lease(&c, json!({"backend": "hang"}), 60_000).await;
    let (iid, lid) = (g["instance_id"].as_u64().unwrap(), g["lease_id"].as_str().unwrap().to_string());
    let before = worker.status().instances;
    let task = tasks::find_task("contacts.add/0").unwrap();
    let _: Value = c.post(&format!("/v1/instances/{iid}/reset"), &json!({"lease": lid, "task": task})).await.unwrap();
    let (status, message) =
        status_of(c.post::<Value>(&format!("/v1/instances/{iid}/step"), &json!({"lease": lid, "request_id": "x", "action": {"action": "back"}})).await);
    assert_eq!(status, 502);
    assert!(message.contains("deadline"), "{message}");
    assert_eq!(worker.status().instances, before - 1, "the instance was quarantined");
    let (status, message) = status_of(c.post::<Value>(&format!("/v1/instances/{iid}/observe"), &json!({"lease": lid})).await);
    assert_eq!(status, 410);
    assert!(message.contains("instance failed"), "{message}");
    // A fresh lease gets a fresh instance.
    let g2 = lease(&c, json!({"backend": "hang"}), 60_000).await;
    assert_ne!(g2["instance_id"].as_u64().unwrap(), iid);
    // Through the Env client, the same failure is an infrastructure error, not a hang.
    let provider = ManagerProvider::new(&url, None, EnvSpec { backend: "hang".into(), ..EnvSpec::sim() }, Duration::from_secs(60));
    let mut env = provider.create().await.unwrap();
    env.reset(&task).await.unwrap();
    let err = env.step(&Action::Back).await.unwrap_err();
    assert!(err.is_infra(), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_a_4xx_and_loses_nothing() {
    let (url, _m, _w) = start(8, None).await;
    let c = client(&url, None);
    let task = tasks::find_task("contacts.add/0").unwrap();
    let g = lease(&c, json!({"backend": "sim"}), 60_000).await;
    let (iid, lid) = (g["instance_id"].as_u64().unwrap(), g["lease_id"].as_str().unwrap().to_string());
    let obs: Value = c.post(&format!("/v1/instances/{iid}/reset"), &json!({"lease": lid, "task": task})).await.unwrap();
    let http = reqwest::Client::new();
    let raw = |path: String, body: String| {
        let http = http.clone();
        let url = url.clone();
        async move {
            let r = http.post(format!("{url}{path}")).header("content-type", "application/json").body(body).send().await.unwrap();
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let step = format!("/v1/instances/{iid}/step");
    let cases: Vec<(String, String, u16, &str)> = vec![
        ("/v1/leases".into(), "{not json".into(), 400, "bad_json"),
        ("/v1/leases".into(), r#"{"spec": {"backend": "sim"}, "colour": 1}"#.into(), 422, "bad_json"),
        ("/v1/leases".into(), r#"{"spec": {"backend": "teleporter"}}"#.into(), 400, "bad_request"),
        ("/v1/leases".into(), r#"{"spec": {"backend": "sim", "width": 5}}"#.into(), 400, "bad_request"),
        ("/v1/leases".into(), r#"{"spec": {"backend": "sim"}, "count": 0}"#.into(), 400, "bad_request"),
        ("/v1/leases/nope/heartbeat".into(), "{}".into(), 404, "unknown_lease"),
        (step.clone(), r#"{"lease": "nope", "request_id": "a", "action": {"action": "back"}}"#.to_string(), 404, "unknown_lease"),
        (step.clone(), format!(r#"{{"lease": "{lid}", "request_id": "a", "action": {{"action": "fly"}}}}"#), 422, "bad_action"),
        ("/v1/instances/999999/observe".into(), format!(r#"{{"lease": "{lid}"}}"#), 404, "unknown_instance"),
        (format!("/v1/instances/{iid}/reset"), format!(r#"{{"lease": "{lid}", "task": {{"id": "x"}}}}"#), 422, "bad_json"),
    ];
    // (An oversize body is answered 413 as soon as its length is announced, before the client
    // has sent it: `crates/cli/tests/security.rs` checks it on a raw socket.)
    for (path, body, status, code) in cases {
        let (got, v) = raw(path.clone(), body).await;
        assert_eq!(got, status, "{path}: {v}");
        assert_eq!(v["error"]["code"], code, "{path}: {v}");
        assert!(!v["error"]["message"].as_str().unwrap().is_empty());
    }
    // An unknown task family is a bad task, not a crash.
    let mut bad = task.clone();
    bad.family = "no.such".into();
    let (status, message) = status_of(c.post::<Value>(&format!("/v1/instances/{iid}/reset"), &json!({"lease": lid, "task": bad})).await);
    assert_eq!(status, 400);
    assert!(message.contains("unknown task family"), "{message}");
    // An action that cannot be applied is feedback, not an error.
    let out: Value = c.post(&step, &json!({"lease": lid, "request_id": "off", "action": {"action": "click", "at": [99999, 1]}})).await.unwrap();
    assert_eq!(out["invalid"], true);
    // Nothing was lost: the lease still works and its state is where it was.
    let now: Value = c.post(&format!("/v1/instances/{iid}/observe"), &json!({"lease": lid})).await.unwrap();
    assert_eq!(now["screen"], obs["screen"]);
    // A released lease cannot act any more.
    let _: Value = c.call(reqwest::Method::DELETE, &format!("/v1/leases/{lid}"), None).await.unwrap();
    let (status, _) = status_of(c.post::<Value>(&format!("/v1/instances/{iid}/observe"), &json!({"lease": lid})).await);
    assert_eq!(status, 410);
    let (status, _) = status_of(c.call::<Value>(reqwest::Method::DELETE, &format!("/v1/leases/{lid}"), None).await);
    assert_eq!(status, 410);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_the_token_get_401() {
    let (url, _m, _w) = start(2, Some("s3cret")).await;
    let (status, _) = status_of(client(&url, None).post::<Value>("/v1/leases", &json!({"spec": {"backend": "sim"}})).await);
    assert_eq!(status, 401);
    let (status, _) = status_of(client(&url, Some("wrong")).post::<Value>("/v1/leases", &json!({"spec": {"backend": "sim"}})).await);
    assert_eq!(status, 401);
    let ok: Value = client(&url, Some("s3cret")).post("/v1/leases", &json!({"spec": {"backend": "sim"}})).await.unwrap();
    assert_eq!(ok["leases"].as_array().unwrap().len(), 1);
    // Probes stay open.
    let health = reqwest::get(format!("{url}/healthz")).await.unwrap();
    assert_eq!(health.status().as_u16(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_env_client_runs_the_five_operations() {
    let (url, _m, _w) = start(4, None).await;
    let provider = ManagerProvider::new(&url, None, EnvSpec::sim(), Duration::from_secs(60));
    let task = tasks::find_task("contacts.delete/0").unwrap();
    let mut remote = provider.create().await.unwrap();
    let mut local = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
    assert_eq!(remote.reset(&task).await.unwrap(), local.reset(&task).await.unwrap());
    for a in &task.walkthrough {
        assert_eq!(remote.step(a).await.unwrap(), local.step(a).await.unwrap());
    }
    assert_eq!(remote.state_hash().await.unwrap(), local.state_hash().await.unwrap());
    assert_eq!(remote.evaluate().await.unwrap(), local.evaluate().await.unwrap());
    let shot = remote.observe(ObserveOptions { screenshot: true }).await.unwrap();
    assert_eq!(&shot.screenshot.unwrap().png()[1..4], b"PNG");
    remote.release().await.unwrap();
    assert!(remote.observe(ObserveOptions::default()).await.unwrap_err().is_infra());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_warm_pool_is_kept_ready_ahead_of_demand() {
    let config = ManagerConfig { reclaim_every: Duration::from_millis(20), warm: vec![(EnvSpec::sim(), 5)], ..ManagerConfig::default() };
    let (url, _m, worker) = start_with(16, None, config).await;
    let ready = |w: &Worker| w.ready_count(&EnvSpec::sim());
    let wait_for = |n: usize| {
        let worker = worker.clone();
        async move {
            for _ in 0..200 {
                if ready(&worker) == n {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!("the pool never reached {n} ready instances (has {})", ready(&worker));
        }
    };
    wait_for(5).await;
    // Leases take ready instances: nothing is created on the request path.
    let c = client(&url, None);
    let v: Value = c.post("/v1/leases", &json!({"spec": {"backend": "sim"}, "count": 3})).await.unwrap();
    assert_eq!(v["leases"].as_array().unwrap().len(), 3);
    // The warm pool's five instances are the first made (ids 1 to 5); the pool may already be
    // refilling behind the leases, so the count of instances says nothing, their ids do.
    let ids: Vec<u64> = v["leases"].as_array().unwrap().iter().map(|g| g["instance_id"].as_u64().unwrap()).collect();
    assert!(ids.iter().all(|id| (1..=5).contains(id)), "served from the warm pool: {ids:?}");
    // The pool refills behind them.
    wait_for(5).await;
    let metrics = reqwest::get(format!("{url}/metrics")).await.unwrap().text().await.unwrap();
    assert!(metrics.contains("guigym_instances{state=\"ready\"} 5"), "{metrics}");
    assert!(metrics.contains("guigym_instances{state=\"leased\"} 3"), "{metrics}");
    assert!(metrics.contains("guigym_operation_seconds_count{op=\"create\"}"), "{metrics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_is_retired_after_its_episode_budget() {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let manager = Manager::new(ManagerConfig::default());
    let worker = Worker::with_metrics(WorkerConfig { capacity: 4, max_episodes: 2, ..WorkerConfig::default() }, backends(), manager.metrics.clone());
    manager.add_local_worker(worker.clone(), &url);
    let router = api::embedded_router(manager.clone(), worker.clone(), Arc::new(Credentials::open()), RemoteLink::factory(None), axum::Router::new());
    tokio::spawn(async move { axum::serve(listener, router).await });
    let c = client(&url, None);
    let task = tasks::find_task("contacts.add/0").unwrap();
    let mut seen = Vec::new();
    for _ in 0..3 {
        let g = lease(&c, json!({"backend": "sim"}), 60_000).await;
        let (iid, lid) = (g["instance_id"].as_u64().unwrap(), g["lease_id"].as_str().unwrap().to_string());
        for _ in 0..2 {
            let _: Value = c.post(&format!("/v1/instances/{iid}/reset"), &json!({"lease": lid, "task": task})).await.unwrap();
        }
        let _: Value = c.call(reqwest::Method::DELETE, &format!("/v1/leases/{lid}"), None).await.unwrap();
        seen.push(iid);
    }
    seen.dedup();
    assert_eq!(seen.len(), 3, "each used-up instance was replaced by a fresh one");
    assert!(manager.metrics.render(&[]).contains("guigym_recycles_total 3"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backend_that_panics_fails_as_infrastructure_with_an_answer() {
    let (url, _m, worker) = start(4, None).await;
    let c = client(&url, None);
    let g = lease(&c, json!({"backend": "panicky"}), 60_000).await;
    let (iid, lid) = (g["instance_id"].as_u64().unwrap(), g["lease_id"].as_str().unwrap().to_string());
    let task = tasks::find_task("contacts.add/0").unwrap();
    let _: Value = c.post(&format!("/v1/instances/{iid}/reset"), &json!({"lease": lid, "task": task})).await.unwrap();
    let before = worker.status().instances;
    let (status, message) =
        status_of(c.post::<Value>(&format!("/v1/instances/{iid}/step"), &json!({"lease": lid, "request_id": "x", "action": {"action": "back"}})).await);
    assert_eq!(status, 502);
    assert!(message.contains("panicked") && message.contains("overflow"), "{message}");
    assert_eq!(worker.status().instances, before - 1, "the instance was quarantined");
    let (status, _) = status_of(c.post::<Value>(&format!("/v1/instances/{iid}/observe"), &json!({"lease": lid})).await);
    assert_eq!(status, 410);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_instance_gives_up_the_device_another_spec_needs() {
    let (url, _m, _worker) = start(4, None).await;
    let c = client(&url, None);
    let (wide, narrow) = (json!({"backend": "device", "width": 1080}), json!({"backend": "device", "width": 720}));
    let g = lease(&c, wide.clone(), 60_000).await;
    let lid = g["lease_id"].as_str().unwrap().to_string();
    // Leased: the device is taken, and another spec waits (503), nothing counted as failed.
    let asked = c.post::<Value>("/v1/leases", &json!({"spec": narrow, "count": 1, "ttl_ms": 60_000})).await;
    let (status, message) = status_of(asked);
    assert_eq!(status, 503, "{message}");
    // Released, its instance waits in the pool, idle, holding the device: it is retired for the
    // other spec's lease.
    let _: Value = c.call(reqwest::Method::DELETE, &format!("/v1/leases/{lid}"), None).await.unwrap();
    let g = lease(&c, narrow, 60_000).await;
    assert!(g["instance_id"].as_u64().is_some(), "{g}");
}
