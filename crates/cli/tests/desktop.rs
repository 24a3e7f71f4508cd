//! The desktop backend from the command line: `eval --backend desktop` through a manager
//! equals the embedded run, and an application killed mid-episode is an infrastructure
//! failure, re-run and scored once.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use common::{guigym, temp, Served};

/// The tests here each run desktops at full size: one at a time, so neither starves the
/// other's applications of the machine's two cores.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn report(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn eval_args(out: &std::path::Path, store: &std::path::Path, limit: usize, parallel: usize) -> Vec<String> {
    let mut v: Vec<String> = ["eval", "--suite", "desktop-smoke", "--backend", "desktop", "--attempts", "1"].iter().map(|s| s.to_string()).collect();
    v.extend([
        "--parallel".into(),
        parallel.to_string(),
        "--limit".into(),
        limit.to_string(),
        "--out".into(),
        out.display().to_string(),
        "--store".into(),
        store.display().to_string(),
    ]);
    v
}

#[test]
#[ignore = "full tier: real X server and applications"]
fn desktop_eval_through_a_manager_equals_the_embedded_one() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    assert!(guigym_desktop::missing().is_none(), "run ./scripts/setup.sh");
    let dir = temp("desktop-manager");
    // Two desktops kept warm, ready before the first lease.
    let server = Served::start(&["serve", "--port", "0", "--warm", "2", "--warm-backend", "desktop"]);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (_, pools) = common::http("GET", &format!("{}/v1/pools", server.url), None, None);
        if pools["instances"]["ready"].as_f64() >= Some(2.0) {
            assert_eq!(pools["warm_targets"][0]["spec"]["backend"], "desktop", "{pools:#}");
            break;
        }
        assert!(Instant::now() < deadline, "no warm desktops: {pools:#}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let (embedded, remote) = (dir.join("embedded.json"), dir.join("remote.json"));
    let out = guigym().args(eval_args(&embedded, &dir.join("s1"), 24, 2)).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = guigym().args(eval_args(&remote, &dir.join("s2"), 24, 2)).args(["--manager", &server.url]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (a, b) = (report(&embedded), report(&remote));
    assert_eq!(a["success_rate"], 1.0, "{a:#}");
    assert_eq!(a, b);
}

/// Processes whose parent chain leads to `ancestor`, named `name`.
fn descendants_named(ancestor: u32, name: &str) -> Vec<u32> {
    let parent = |pid: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()
    };
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        if std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default().trim() != name {
            continue;
        }
        let mut p = pid;
        while let Some(up) = parent(p).filter(|u| *u > 1) {
            if up == ancestor {
                found.push(pid);
                break;
            }
            p = up;
        }
    }
    found
}

#[test]
#[ignore = "full tier: real X server and applications, a process killed"]
fn an_application_killed_mid_episode_is_rerun_and_scored_once() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    assert!(guigym_desktop::missing().is_none(), "run ./scripts/setup.sh");
    let dir = temp("desktop-kill");
    let out = dir.join("r.json");
    // The first tasks of the smoke suite play in the terminal (xterm): kill the first one seen.
    let mut eval = guigym().args(eval_args(&out, &dir.join("s"), 4, 1)).stderr(std::process::Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut killed = false;
    while !killed && Instant::now() < deadline && eval.try_wait().unwrap().is_none() {
        if let Some(pid) = descendants_named(eval.id(), "xterm").first() {
            killed = std::process::Command::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap().success();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(killed, "no xterm was seen to kill");
    assert!(eval.wait().unwrap().success());
    let r = report(&out);
    assert_eq!(r["infra_failures"], 1, "{r:#}");
    assert_eq!(r["unscored"], 0, "{r:#}");
    assert_eq!(r["attempts"], 4, "every task scored once: {r:#}");
    assert_eq!(r["success_rate"], 1.0, "the re-run is judged as if nothing happened: {r:#}");
}

fn osworld_fixture() -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../benchmarks/osworld/tests/osworld");
    (dir.join("examples"), dir.join("cache"))
}

/// `tasks import osworld` writes the kept tasks where the `osworld` suite reads them.
fn import_fixture(tasks: &std::path::Path) -> serde_json::Value {
    let (examples, cache) = osworld_fixture();
    let out = guigym().args(["tasks", "import", "osworld"]).arg(&examples).arg("--cache").arg(&cache).arg("--to").arg(tasks).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn imported_osworld_tasks_become_a_suite() {
    let dir = temp("osworld-import");
    let tasks = dir.join("osworld-tasks.json");
    let report = import_fixture(&tasks);
    assert_eq!(report["kept"].as_array().unwrap().len(), 40, "{report:#}");
    assert_eq!(report["skipped"].as_array().unwrap().len(), 6, "{report:#}");
    assert!(report["skipped"].as_array().unwrap().iter().all(|s| !s["reason"].as_str().unwrap().is_empty()));
    let listed = guigym().args(["tasks", "list", "--suite", "osworld", "--json"]).env("GUIGYM_OSWORLD_TASKS", &tasks).output().unwrap();
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(rows.len(), 40);
    let calc = guigym().args(["tasks", "list", "--suite", "osworld.libreoffice_calc", "--json"]).env("GUIGYM_OSWORLD_TASKS", &tasks).output().unwrap();
    assert_eq!(serde_json::from_slice::<Vec<serde_json::Value>>(&calc.stdout).unwrap().len(), 2);
    // Before any import, the suite says what to do.
    let none = guigym().args(["tasks", "list", "--suite", "osworld"]).env("GUIGYM_OSWORLD_TASKS", dir.join("absent.json")).output().unwrap();
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("tasks import osworld"), "{}", String::from_utf8_lossy(&none.stderr));
}

#[test]
#[ignore = "full tier: real X server and applications"]
fn imported_osworld_tasks_run_through_eval() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    assert!(guigym_desktop::missing().is_none(), "run ./scripts/setup.sh");
    let dir = temp("osworld-eval");
    let tasks = dir.join("osworld-tasks.json");
    import_fixture(&tasks);
    let out = dir.join("report.json");
    let status = guigym()
        .args(["eval", "--suite", "osworld", "--backend", "desktop", "--policy", "random", "--attempts", "1", "--out"])
        .arg(&out)
        .arg("--store")
        .arg(dir.join("store"))
        .env("GUIGYM_OSWORLD_TASKS", &tasks)
        .status()
        .unwrap();
    assert!(status.success());
    let r = report(&out);
    assert_eq!(r["attempts"], 40, "{r:#}");
    assert_eq!(r["infra_failures"], 0, "{r:#}");
}

/// An agent that stalls its desktop (a program of its own holds the X server, which any client
/// may ask for) through a worker whose deadline is shorter than the X server's answer timeout:
/// the backend's own detection decides first, and the attempt ends judged (it fails, the
/// reason recorded), not as an infrastructure failure the run would take out of its count.
#[test]
#[ignore = "full tier: real X server and applications"]
fn a_display_the_agent_holds_ends_its_attempt_judged_through_a_worker() {
    use guigym_core::{Action, EnvProvider};
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    assert!(guigym_desktop::missing().is_none(), "run ./scripts/setup.sh");
    let server = Served::start(&["serve", "--port", "0", "--op-deadline-ms", "15000"]);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let task = guigym_benchmark_desktop::find_task("text.write/0").unwrap();
    let grab = "python3 -c 'import ctypes,time; x=ctypes.CDLL(\"libX11.so.6\"); x.XOpenDisplay.restype=ctypes.c_void_p; d=ctypes.c_void_p(x.XOpenDisplay(None)); x.XGrabServer(d); x.XSync(d,0); time.sleep(100000)'\n";
    let actions = vec![
        Action::Key { keys: vec!["ctrl".into(), "alt".into(), "t".into()] },
        Action::Wait { ms: 2000 },
        Action::Type { text: grab.into(), element: None, clear: false },
        Action::Wait { ms: 500 },
        Action::Wait { ms: 500 },
        Action::Wait { ms: 500 },
    ];
    let attempt = runtime.block_on(async {
        let spec = guigym_manager::EnvSpec { backend: "desktop".into(), platform: guigym_core::Platform::Desktop, width: 1280, height: 800, device: None };
        let provider = guigym_manager::ManagerProvider::new(&server.url, None, spec, Duration::from_secs(600));
        let mut env = provider.create().await.expect("a desktop is leased");
        let mut policy = guigym_harness::GoldenPolicy::new(actions);
        let harness = guigym_harness::Harness::default();
        let attempt = guigym_rollout::run_attempt(env.as_mut(), &task, &mut policy, &harness, 0, "t-grab", &mut guigym_rollout::NullRecorder).await;
        let _ = env.release().await;
        attempt
    });
    let attempt = attempt.expect("judged, not an infrastructure failure");
    assert_eq!(attempt.ended_by.as_deref(), Some(guigym_rollout::attempt::BROKEN), "{:?}", attempt.trajectory.steps.last());
    assert!(!attempt.verdict.success && attempt.verdict.score == 0.0);
    let check = attempt.verdict.checks.iter().find(|c| c.name == guigym_rollout::attempt::INTACT).expect("the reason is recorded");
    assert!(!check.passed && check.detail.contains("answer"), "{check:?}");
}
