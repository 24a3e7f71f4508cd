//! The one rollout path end to end on the sim backend: validation of every shipped task,
//! eval figures, the store, infrastructure failures and malformed policy output.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use guigym_benchmark_phone as tasks;
use guigym_core::Screen;
use guigym_core::{Action, Attempt, Env, EnvError, EnvProvider, Observation, ObserveOptions, StepOutcome, TaskSpec, Verdict};
use guigym_harness::{GoldenPolicy, Policy, PolicyError, PolicyFactory, PolicyInput, PolicyKind, PolicyOutput};
use guigym_rollout::{eval, validate_task, EvalConfig, Progress, Store};
use guigym_sim::{SimEnv, SimProvider};

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime").block_on(f)
}

fn temp_store(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guigym-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[derive(Default)]
struct Collect(Mutex<Vec<Attempt>>);

impl Progress for Collect {
    fn attempt_done(&self, a: &Attempt, _prompts: &[guigym_harness::Prompt]) {
        self.0.lock().unwrap().push(a.clone());
    }
}

#[test]
fn every_shipped_task_validates() {
    block_on(async {
        let all = tasks::suite("all").unwrap();
        let families: std::collections::BTreeSet<&str> = all.iter().map(|t| t.family.as_str()).collect();
        assert!(families.len() >= 8);
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        for task in &all {
            let v = validate_task(&mut env, task).await.unwrap();
            assert!(v.passed, "{} failed: {:?}", task.id, v.failure);
        }
    });
}

#[test]
fn smoke_suite_is_big_enough_and_stable() {
    let smoke = tasks::suite("smoke").unwrap();
    assert!(smoke.len() >= 40);
    let families: std::collections::BTreeSet<&str> = smoke.iter().map(|t| t.family.as_str()).collect();
    assert!(families.len() >= 8);
    for kind in ["cross.", "info.", "infeasible."] {
        assert!(families.iter().filter(|f| f.starts_with(kind)).count() >= 1, "{kind}");
    }
    assert!(families.iter().filter(|f| f.starts_with("cross.")).count() >= 2);
    assert_eq!(smoke, tasks::suite("smoke").unwrap(), "suites are generated deterministically");
    // Ids are unique.
    let ids: std::collections::BTreeSet<&str> = smoke.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), smoke.len());
}

#[test]
fn golden_eval_succeeds_and_the_store_holds_every_step() {
    block_on(async {
        let dir = temp_store("golden");
        let store = Arc::new(Store::open(&dir).unwrap());
        let tasks = Arc::new(tasks::suite("smoke").unwrap());
        let config = EvalConfig { suite: "smoke".into(), attempts: 2, parallel: 4, ..Default::default() };
        let collect = Arc::new(Collect::default());
        let (run_id, report) = eval(
            tasks.clone(),
            &config,
            Arc::new(SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: guigym_benchmark_phone::hosted() }),
            Arc::new(PolicyKind::Golden),
            Some(store.clone()),
            collect.clone(),
        )
        .await
        .unwrap();
        assert_eq!(report.success_rate, 1.0);
        assert_eq!(report.pass_hat_n, 1.0);
        assert_eq!(report.infra_failures, 0);
        assert_eq!(report.attempts, tasks.len() * 2);
        assert_eq!(report.false_complete, 0);

        let attempts = collect.0.lock().unwrap().clone();
        let total: usize = attempts.iter().map(|a| a.trajectory.steps.len()).sum();
        let detail = store.show_run(run_id).unwrap();
        assert_eq!(detail.steps as usize, total);
        assert_eq!(detail.run.attempts as usize, attempts.len());
        assert!(detail.run.finished_at.is_some());
        let stored = store.steps_of_run(run_id).unwrap();
        for a in &attempts {
            let mine: Vec<_> = stored.iter().filter(|s| s.task_id == a.task_id && s.attempt_index == a.attempt_index).collect();
            assert_eq!(mine.len(), a.trajectory.steps.len(), "{}", a.task_id);
            for (s, step) in mine.iter().zip(&a.trajectory.steps) {
                assert_eq!(s.index, step.index);
                assert_eq!(s.action, step.action.as_ref().map(|x| x.to_json()));
            }
        }
        // The report is stored with the run and names its harness config.
        assert_eq!(detail.report.unwrap()["success_rate"], 1.0);
        assert!(detail.config["harness"]["codec"].is_string());
        let _ = std::fs::remove_dir_all(dir);
    });
}

#[test]
fn random_policy_rarely_succeeds() {
    block_on(async {
        let tasks = Arc::new(tasks::suite("smoke").unwrap());
        let config = EvalConfig { suite: "smoke".into(), attempts: 2, parallel: 2, ..Default::default() };
        let (_, report) = eval(
            tasks,
            &config,
            Arc::new(SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: guigym_benchmark_phone::hosted() }),
            Arc::new(PolicyKind::Random),
            None,
            Arc::new(()),
        )
        .await
        .unwrap();
        assert!(report.success_rate <= 0.2, "random succeeded {}", report.success_rate);
        assert!(report.mean_steps > 5.0);
    });
}

/// An instance that dies (as a crashed worker would) after a few steps, the first
/// `failures` times an instance is created.
struct Flaky {
    created: AtomicUsize,
    failures: usize,
}

struct FlakyEnv {
    inner: SimEnv,
    steps_left: Option<u32>,
}

#[async_trait]
impl Env for FlakyEnv {
    async fn reset(&mut self, task: &TaskSpec) -> Result<Observation, EnvError> {
        self.inner.reset(task).await
    }
    async fn observe(&mut self, o: ObserveOptions) -> Result<Observation, EnvError> {
        self.inner.observe(o).await
    }
    async fn step(&mut self, a: &Action) -> Result<StepOutcome, EnvError> {
        if let Some(n) = self.steps_left.as_mut() {
            if *n == 0 {
                return Err(EnvError::Infra("instance lost".into()));
            }
            *n -= 1;
        }
        self.inner.step(a).await
    }
    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        self.inner.evaluate().await
    }
    async fn state_hash(&mut self) -> Result<String, EnvError> {
        self.inner.state_hash().await
    }
}

#[async_trait]
impl EnvProvider for Flaky {
    fn backend(&self) -> String {
        "flaky-sim".into()
    }
    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        let n = self.created.fetch_add(1, Ordering::SeqCst);
        let steps_left = (n < self.failures).then_some(2);
        Ok(Box::new(FlakyEnv { inner: SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted()), steps_left }))
    }
}

#[test]
fn infrastructure_failures_are_rerun_and_never_scored() {
    block_on(async {
        let tasks = Arc::new(tasks::suite("smoke").unwrap());
        let config = EvalConfig { suite: "smoke".into(), attempts: 1, parallel: 2, ..Default::default() };
        let dir = temp_store("flaky");
        let store = Arc::new(Store::open(&dir).unwrap());
        let provider = Arc::new(Flaky { created: AtomicUsize::new(0), failures: 3 });
        let (run_id, report) = eval(tasks.clone(), &config, provider, Arc::new(PolicyKind::Golden), Some(store.clone()), Arc::new(())).await.unwrap();
        assert_eq!(report.infra_failures, 3);
        assert_eq!(report.unscored, 0);
        assert_eq!(report.attempts, tasks.len());
        assert_eq!(report.success_rate, 1.0, "re-run attempts score as a fault-free run");
        assert_eq!(store.show_run(run_id).unwrap().infra_failures, 3);
        let _ = std::fs::remove_dir_all(dir);
    });
}

/// A policy whose server is down: every try is an infrastructure failure, nothing is scored,
/// nothing crashes.
struct Down;

#[async_trait]
impl Policy for Down {
    async fn act(&mut self, _input: &PolicyInput<'_>) -> Result<PolicyOutput, PolicyError> {
        Err(PolicyError::Unavailable("connection refused".into()))
    }
}

struct DownFactory;

impl PolicyFactory for DownFactory {
    fn name(&self) -> String {
        "down".into()
    }
    fn for_attempt(&self, _task: &TaskSpec, _attempt: u32) -> Box<dyn Policy> {
        Box::new(Down)
    }
}

#[test]
fn a_policy_that_stays_down_leaves_attempts_unscored() {
    block_on(async {
        let tasks = Arc::new(tasks::suite("smoke").unwrap()[..3].to_vec());
        let config = EvalConfig { suite: "smoke".into(), attempts: 1, parallel: 2, max_infra_retries: 2, ..Default::default() };
        let (_, report) = eval(
            tasks,
            &config,
            Arc::new(SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: guigym_benchmark_phone::hosted() }),
            Arc::new(DownFactory),
            None,
            Arc::new(()),
        )
        .await
        .unwrap();
        assert_eq!(report.attempts, 0);
        assert_eq!(report.unscored, 3);
        assert_eq!(report.infra_failures, 9);
    });
}

/// Garbage first, then the walkthrough: the garbage is an invalid step whose parse error the
/// policy sees next, and the attempt still succeeds.
struct GarbageFirst {
    golden: GoldenPolicy,
    sent_garbage: bool,
    seen_feedback: Arc<Mutex<Option<String>>>,
}

#[async_trait]
impl Policy for GarbageFirst {
    async fn act(&mut self, input: &PolicyInput<'_>) -> Result<PolicyOutput, PolicyError> {
        if !self.sent_garbage {
            self.sent_garbage = true;
            return Ok(PolicyOutput { raw: "I will click {\"action\": \"click\", \"at\": [1,".into(), ..Default::default() });
        }
        if input.history.len() == 1 {
            *self.seen_feedback.lock().unwrap() = input.observation.feedback.clone();
        }
        self.golden.act(input).await
    }
}

#[test]
fn malformed_output_is_an_invalid_step_not_a_crash() {
    block_on(async {
        let task = tasks::find_task("messages.send/0").unwrap();
        let seen = Arc::new(Mutex::new(None));
        let mut policy = GarbageFirst { golden: GoldenPolicy::new(task.walkthrough.clone()), sent_garbage: false, seen_feedback: seen.clone() };
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        let harness = guigym_harness::Harness::default();
        let attempt = guigym_rollout::run_attempt(&mut env, &task, &mut policy, &harness, 0, "t", &mut guigym_rollout::NullRecorder).await.unwrap();
        let first = &attempt.trajectory.steps[0];
        assert!(first.invalid);
        assert!(first.action.is_none());
        assert!(first.feedback.as_deref().unwrap().contains("no JSON action") || first.feedback.as_deref().unwrap().contains("malformed"));
        assert!(seen.lock().unwrap().as_deref().unwrap_or("").starts_with("invalid action"));
        assert!(attempt.verdict.success);
    });
}

#[test]
fn terminating_with_success_on_an_unsolved_task_is_a_false_complete() {
    block_on(async {
        let task = tasks::find_task("contacts.add/0").unwrap();
        let mut policy = GoldenPolicy::new(vec![Action::Terminate { status: guigym_core::TerminateStatus::Success }]);
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        let attempt = guigym_rollout::run_attempt(&mut env, &task, &mut policy, &Default::default(), 0, "t", &mut guigym_rollout::NullRecorder).await.unwrap();
        assert!(attempt.false_complete());
        assert_eq!(attempt.trajectory.steps.len(), 1);
    });
}

/// Regression: concurrent attempts storing the same screenshot raced on one temporary file
/// name and failed the eval ("No such file or directory").
#[test]
fn the_same_blob_stored_concurrently_is_written_once() {
    let dir = temp_store("blob-race");
    let store = Arc::new(Store::open(&dir).unwrap());
    let bytes = vec![7u8; 50_000];
    let hash = guigym_core::sha256_hex(&bytes);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (store, bytes, hash) = (store.clone(), bytes.clone(), hash.clone());
            std::thread::spawn(move || (0..20).map(|_| store.put_blob(&hash, &bytes)).collect::<Result<Vec<_>, _>>())
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap();
    }
    assert_eq!(std::fs::read(store.blob_path(&hash)).unwrap(), bytes);
    let leftovers = std::fs::read_dir(store.blob_path(&hash).parent().unwrap()).unwrap().count();
    assert_eq!(leftovers, 1, "no temporary files are left behind");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn splits_share_no_task_and_hold_out_whole_families_and_apps() {
    let ids = |name: &str| -> std::collections::BTreeSet<String> { tasks::suite(name).unwrap().into_iter().map(|t| t.id).collect() };
    let (train, test, families, apps) = (ids("train"), ids("test"), ids("test-families"), ids("novel-apps"));
    assert!(train.is_disjoint(&test) && train.is_disjoint(&families) && train.is_disjoint(&apps));
    assert!(test.is_disjoint(&families) && test.is_disjoint(&apps) && families.is_disjoint(&apps));
    assert_eq!(train.len() + test.len() + families.len() + apps.len(), ids("all").len(), "every task has one split");
    let train_tasks = tasks::suite("train").unwrap();
    for held in tasks::HELD_OUT_FAMILIES {
        assert!(train_tasks.iter().all(|t| t.family != *held));
    }
    for app in tasks::HELD_OUT_APPS {
        assert!(train_tasks.iter().all(|t| !t.apps.iter().any(|a| a == app)));
    }
    // Test holds the same families as train, other instances.
    let train_families: std::collections::BTreeSet<String> = train_tasks.iter().map(|t| t.family.clone()).collect();
    assert!(tasks::suite("test").unwrap().iter().all(|t| train_families.contains(&t.family)));
}

/// A provider whose instances panic in `reset` on the first `panics` creations, then behave:
/// a panic loses only its try, the attempt re-runs and is scored.
struct Panicky {
    created: AtomicUsize,
    panics: usize,
}

struct PanicOnReset(SimEnv);

#[async_trait]
impl Env for PanicOnReset {
    async fn reset(&mut self, _task: &TaskSpec) -> Result<Observation, EnvError> {
        panic!("backend bug");
    }
    async fn observe(&mut self, o: ObserveOptions) -> Result<Observation, EnvError> {
        self.0.observe(o).await
    }
    async fn step(&mut self, a: &Action) -> Result<StepOutcome, EnvError> {
        self.0.step(a).await
    }
    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        self.0.evaluate().await
    }
    async fn state_hash(&mut self) -> Result<String, EnvError> {
        self.0.state_hash().await
    }
    async fn apply_golden(&mut self) -> Result<(), EnvError> {
        self.0.apply_golden().await
    }
    async fn release(&mut self) -> Result<(), EnvError> {
        Ok(())
    }
}

#[async_trait]
impl EnvProvider for Panicky {
    fn backend(&self) -> String {
        "panicky".into()
    }
    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        let n = self.created.fetch_add(1, Ordering::SeqCst);
        if n < self.panics {
            Ok(Box::new(PanicOnReset(SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted()))))
        } else {
            Ok(Box::new(SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted())))
        }
    }
}

#[test]
fn a_panicking_backend_loses_no_attempt() {
    block_on(async {
        let tasks = Arc::new(tasks::suite("smoke").unwrap()[..6].to_vec());
        let config = EvalConfig { suite: "smoke".into(), attempts: 1, parallel: 2, ..Default::default() };
        let provider = Arc::new(Panicky { created: AtomicUsize::new(0), panics: 2 });
        let (_, report) = eval(tasks.clone(), &config, provider, Arc::new(PolicyKind::Golden), None, Arc::new(())).await.unwrap();
        assert_eq!(report.attempts, 6, "every queued attempt is scored: {report:?}");
        assert_eq!(report.unscored, 0);
        assert_eq!(report.infra_failures, 2);
        assert_eq!(report.success_rate, 1.0);

        // Panics on every try: every attempt is reported unscored with its reason, none lost.
        let provider = Arc::new(Panicky { created: AtomicUsize::new(0), panics: usize::MAX });
        let (_, report) = eval(tasks.clone(), &config, provider, Arc::new(PolicyKind::Golden), None, Arc::new(())).await.unwrap();
        assert_eq!(report.attempts + report.unscored, 6);
        assert_eq!(report.unscored, 6);
        assert_eq!(report.unscored_reasons.get("panic"), Some(&6));
        assert!(report.unscored_attempts.iter().all(|u| u.detail.contains("backend bug")));
        assert_eq!(report.by_family.values().map(|f| f.unscored).sum::<usize>(), 6);
    });
}

/// A policy whose server refuses the configuration (a wrong model name): the run stops at
/// once with the server's message instead of re-running every attempt.
struct Refused;

#[async_trait]
impl Policy for Refused {
    async fn act(&mut self, _input: &PolicyInput<'_>) -> Result<PolicyOutput, PolicyError> {
        Err(PolicyError::Config("http://x/v1 answered HTTP 404: the model `default` does not exist".into()))
    }
}

/// A model whose context fills after `limit` steps.
struct SmallContext {
    golden: GoldenPolicy,
    limit: usize,
}

#[async_trait]
impl Policy for SmallContext {
    async fn act(&mut self, input: &PolicyInput<'_>) -> Result<PolicyOutput, PolicyError> {
        if input.history.len() >= self.limit {
            return Err(PolicyError::ContextLength("maximum context length is 100 tokens".into()));
        }
        self.golden.act(input).await
    }
}

struct Scripted(&'static str);

impl PolicyFactory for Scripted {
    fn name(&self) -> String {
        self.0.into()
    }
    fn for_attempt(&self, task: &TaskSpec, _attempt: u32) -> Box<dyn Policy> {
        match self.0 {
            "refused" => Box::new(Refused),
            _ => Box::new(SmallContext { golden: GoldenPolicy::new(task.walkthrough.clone()), limit: 3 }),
        }
    }
}

#[test]
fn a_refused_configuration_stops_the_run_and_context_length_is_scored() {
    block_on(async {
        let tasks = Arc::new(tasks::suite("smoke").unwrap());
        let config = EvalConfig { suite: "smoke".into(), attempts: 1, parallel: 2, ..Default::default() };
        let err = eval(
            tasks.clone(),
            &config,
            Arc::new(SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: guigym_benchmark_phone::hosted() }),
            Arc::new(Scripted("refused")),
            None,
            Arc::new(()),
        )
        .await
        .unwrap_err();
        assert!(matches!(err, guigym_rollout::EvalError::Config(_)), "{err}");
        assert!(err.to_string().contains("does not exist"));

        let (_, report) = eval(
            tasks.clone(),
            &config,
            Arc::new(SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: guigym_benchmark_phone::hosted() }),
            Arc::new(Scripted("small")),
            None,
            Arc::new(()),
        )
        .await
        .unwrap();
        assert_eq!(report.attempts, tasks.len(), "context-length attempts stay in the denominator");
        assert_eq!(report.unscored, 0);
        let long = tasks.iter().filter(|t| t.walkthrough.len() > 3).count();
        assert!(report.context_length >= long && long > 0, "every attempt past 3 steps ended at the context limit");
        assert!(report.success_rate < 1.0 && report.success_rate > 0.0);
    });
}

/// A provider with one instance: a second worker is told "no capacity" (with a Retry-After)
/// until the first gives its instance back. Waiting uses up no try.
struct OneInstance {
    busy: Arc<std::sync::atomic::AtomicBool>,
    refusals: AtomicUsize,
}

struct Returned {
    env: SimEnv,
    busy: Arc<std::sync::atomic::AtomicBool>,
}

#[async_trait]
impl Env for Returned {
    async fn reset(&mut self, t: &TaskSpec) -> Result<Observation, EnvError> {
        self.env.reset(t).await
    }
    async fn observe(&mut self, o: ObserveOptions) -> Result<Observation, EnvError> {
        self.env.observe(o).await
    }
    async fn step(&mut self, a: &Action) -> Result<StepOutcome, EnvError> {
        self.env.step(a).await
    }
    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        self.env.evaluate().await
    }
    async fn state_hash(&mut self) -> Result<String, EnvError> {
        self.env.state_hash().await
    }
    async fn apply_golden(&mut self) -> Result<(), EnvError> {
        self.env.apply_golden().await
    }
    async fn release(&mut self) -> Result<(), EnvError> {
        self.busy.store(false, Ordering::SeqCst);
        Ok(())
    }
}

#[async_trait]
impl EnvProvider for OneInstance {
    fn backend(&self) -> String {
        "one".into()
    }
    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        if self.busy.swap(true, Ordering::SeqCst) {
            self.refusals.fetch_add(1, Ordering::SeqCst);
            return Err(EnvError::NoCapacity { message: "all instances are leased".into(), retry_after_ms: Some(20) });
        }
        Ok(Box::new(Returned { env: SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted()), busy: self.busy.clone() }))
    }
}

#[test]
fn no_capacity_waits_and_burns_no_attempt() {
    block_on(async {
        let tasks = Arc::new(tasks::suite("smoke").unwrap()[..10].to_vec());
        let config = EvalConfig { suite: "smoke".into(), attempts: 1, parallel: 4, max_infra_retries: 0, ..Default::default() };
        let provider = Arc::new(OneInstance { busy: Default::default(), refusals: AtomicUsize::new(0) });
        let (_, report) = eval(tasks.clone(), &config, provider.clone(), Arc::new(PolicyKind::Golden), None, Arc::new(())).await.unwrap();
        assert!(provider.refusals.load(Ordering::SeqCst) > 0, "the other workers were refused");
        assert_eq!(report.attempts, 10);
        assert_eq!(report.unscored, 0);
        assert_eq!(report.infra_failures, 0, "waiting for capacity is not a failure");
    });
}

#[test]
fn trajectory_ids_are_opaque_unique_and_map_back_through_the_store() {
    block_on(async {
        let tasks = Arc::new(tasks::suite("smoke").unwrap()[..4].to_vec());
        let config = EvalConfig { suite: "smoke".into(), attempts: 2, parallel: 2, ..Default::default() };
        let dir = temp_store("trajectory-ids");
        let store = Arc::new(Store::open(&dir).unwrap());
        let collect = Arc::new(Collect::default());
        let mut ids = std::collections::BTreeSet::new();
        for _ in 0..2 {
            eval(
                tasks.clone(),
                &config,
                Arc::new(SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: guigym_benchmark_phone::hosted() }),
                Arc::new(PolicyKind::Golden),
                Some(store.clone()),
                collect.clone(),
            )
            .await
            .unwrap();
        }
        for a in collect.0.lock().unwrap().iter() {
            assert_eq!(a.trajectory_id.len(), 32);
            assert!(a.trajectory_id.chars().all(|c| c.is_ascii_hexdigit()));
            for t in tasks.iter() {
                assert!(!a.trajectory_id.contains(&t.id) && !a.trajectory_id.contains(&t.family));
            }
            assert!(ids.insert(a.trajectory_id.clone()), "trajectory ids repeat across runs");
            let row = store.find_trajectory(&a.trajectory_id).unwrap().unwrap();
            assert_eq!((row.task_id.as_str(), row.attempt_index), (a.task_id.as_str(), a.attempt_index));
        }
        assert_eq!(ids.len(), 16);
        let _ = std::fs::remove_dir_all(dir);
    });
}

/// A backend whose verifier says yes to everything.
struct Credulous(SimEnv);

#[async_trait]
impl Env for Credulous {
    async fn reset(&mut self, t: &TaskSpec) -> Result<Observation, EnvError> {
        self.0.reset(t).await
    }
    async fn observe(&mut self, o: ObserveOptions) -> Result<Observation, EnvError> {
        self.0.observe(o).await
    }
    async fn step(&mut self, a: &Action) -> Result<StepOutcome, EnvError> {
        self.0.step(a).await
    }
    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        Ok(Verdict::from_checks(vec![guigym_core::Check::new("yes", true, "")], vec![]))
    }
    async fn state_hash(&mut self) -> Result<String, EnvError> {
        self.0.state_hash().await
    }
    async fn apply_golden(&mut self) -> Result<(), EnvError> {
        self.0.apply_golden().await
    }
}

#[test]
fn the_audit_passes_the_catalogue_and_catches_a_credulous_verifier() {
    block_on(async {
        let tasks = tasks::suite("smoke").unwrap();
        let mut honest = guigym_rollout::audit::AuditReport::default();
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        for t in &tasks {
            guigym_rollout::audit::audit_task(&mut env, t, &guigym_benchmark_phone::CATALOGUE, guigym_core::Platform::Mobile, &mut honest).await.unwrap();
        }
        let o = &honest.overall;
        assert_eq!((o.false_negatives, o.false_positives), (0, 0), "{:?}", honest.findings);
        assert!(o.alternatives > tasks.len() && o.mutants >= 4 * tasks.len(), "{o:?}");
        for rule in ["claim_without_acting", "done_then_infeasible", "answer_hedged", "side_effect_elsewhere", "completing_step_dropped", "typo_corrected"] {
            assert!(honest.by_rule.contains_key(rule), "{rule} never ran");
        }

        let mut credulous = guigym_rollout::audit::AuditReport::default();
        let mut env = Credulous(SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted()));
        for t in tasks.iter().take(10) {
            guigym_rollout::audit::audit_task(&mut env, t, &guigym_benchmark_phone::CATALOGUE, guigym_core::Platform::Mobile, &mut credulous).await.unwrap();
        }
        assert_eq!(credulous.overall.false_positives, credulous.overall.mutants, "every mutant passes a verifier that says yes");
        assert!(credulous.findings.iter().all(|f| f.kind == "false_positive"));
    });
}
