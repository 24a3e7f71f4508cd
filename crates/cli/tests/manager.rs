//! The manager as deployed: `guigym serve` and `guigym worker` processes on loopback. An eval
//! through a manager gives the same report as an embedded one, and keeps giving it when a
//! worker is killed mid-run.

#![allow(clippy::unwrap_used)]

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{guigym, guigym_json, temp, Served};

fn get(url: &str) -> serde_json::Value {
    let out = Command::new("curl").args(["-s", "--max-time", "5", url]).output();
    match out {
        Ok(o) => serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Null),
        Err(_) => serde_json::Value::Null,
    }
}

fn eval_args(out: &std::path::Path, store: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = ["eval", "--suite", "smoke", "--attempts", "2", "--parallel", "4", "--out"].iter().map(|s| s.to_string()).collect();
    v.push(out.display().to_string());
    v.push("--store".into());
    v.push(store.display().to_string());
    v
}

fn report(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn eval_through_a_manager_equals_embedded_eval() {
    let dir = temp("manager-same");
    let server = Served::start(&["serve", "--port", "0"]);
    let embedded = dir.join("embedded.json");
    let remote = dir.join("remote.json");
    assert!(guigym().args(eval_args(&embedded, &dir.join("s1"))).output().unwrap().status.success());
    let out = guigym().args(eval_args(&remote, &dir.join("s2"))).args(["--manager", &server.url]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(report(&embedded), report(&remote));
}

#[test]
#[ignore = "full tier: end to end, processes killed"]
fn killing_a_worker_mid_eval_reruns_its_attempts_and_changes_no_score() {
    let dir = temp("manager-chaos");
    let manager = Served::start(&["serve", "--port", "0", "--capacity", "0", "--worker-timeout-ms", "2000"]);
    let mut victim = Served::start(&["worker", "--manager", &manager.url, "--capacity", "64", "--heartbeat-ms", "200"]);
    let _survivor = Served::start(&["worker", "--manager", &manager.url, "--capacity", "64", "--heartbeat-ms", "200"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while get(&format!("{}/v1/workers", manager.url)).as_array().map(|a| a.len()).unwrap_or(0) < 2 {
        assert!(Instant::now() < deadline, "workers did not register");
        std::thread::sleep(Duration::from_millis(50));
    }

    // 16 tasks × 2 attempts keep both workers busy past the kill; screenshots make the
    // attempts heavier (more in flight when it lands) and change no score, so only the chaos
    // run takes them.
    let reference = dir.join("reference.json");
    assert!(guigym().args(eval_args(&reference, &dir.join("s1"))).args(["--limit", "16"]).output().unwrap().status.success());

    let chaos = dir.join("chaos.json");
    let mut eval = guigym()
        .args(eval_args(&chaos, &dir.join("s2")))
        .args(["--limit", "16", "--screenshots", "--manager", &manager.url])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("eval.stderr")).unwrap())
        .spawn()
        .unwrap();
    // Kill the victim as soon as it holds leases: it has attempts in flight.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = get(&format!("{}/v1/worker/status", victim.url));
        if status["status"]["leased"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        if let Ok(Some(ended)) = eval.try_wait() {
            let stderr = std::fs::read_to_string(dir.join("eval.stderr")).unwrap_or_default();
            let workers = get(&format!("{}/v1/workers", manager.url));
            panic!("the eval ended ({ended}) before the victim held a lease; workers: {workers}; its stderr:\n{stderr}");
        }
        assert!(Instant::now() < deadline, "the victim never got a lease");
        std::thread::sleep(Duration::from_millis(20));
    }
    victim.child.kill().unwrap(); // SIGKILL
    let _ = victim.child.wait();
    assert!(eval.wait().unwrap().success(), "the eval finished");

    let (mut a, mut b) = (report(&reference), report(&chaos));
    assert!(b["infra_failures"].as_u64().unwrap() > 0, "the killed worker's attempts were infrastructure failures");
    assert_eq!(b["unscored"], 0, "and every one was re-run");
    assert_eq!(b["attempts"], a["attempts"], "every task was scored");
    assert_eq!(b["success_rate"], 1.0);
    for r in [&mut a, &mut b] {
        r["infra_failures"] = 0.into();
        for f in r["by_family"].as_object_mut().unwrap().values_mut() {
            f["infra_retries"] = 0.into();
        }
    }
    assert_eq!(a, b, "scores equal those of the fault-free run");
    let workers = get(&format!("{}/v1/workers", manager.url));
    assert!(workers.as_array().unwrap().iter().any(|w| w["alive"] == false), "the manager noticed the lost worker");
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn a_wrong_token_stops_the_run() {
    let dir = temp("manager-token");
    let server = Served::start(&["serve", "--port", "0", "--token", "s3cret"]);
    let started = Instant::now();
    let out = guigym().args(eval_args(&dir.join("r.json"), &dir.join("s"))).args(["--manager", &server.url, "--token", "wrong"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("refused") && stderr.contains("401"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(30), "it stopped at once instead of re-running every attempt");
    let ok = guigym().args(eval_args(&dir.join("r.json"), &dir.join("s"))).args(["--manager", &server.url, "--token", "s3cret"]).output().unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
}

#[test]
fn attempts_wait_for_capacity_instead_of_failing() {
    let dir = temp("manager-capacity");
    let server = Served::start(&["serve", "--port", "0", "--capacity", "2"]);
    let out = guigym()
        .args(["eval", "--suite", "smoke", "--parallel", "8", "--json", "--store"])
        .arg(dir.join("s"))
        .args(["--manager", &server.url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["attempts"], 85);
    assert_eq!(r["unscored"], 0);
    assert_eq!(r["infra_failures"], 0, "waiting for an instance is not a failure");
    assert_eq!(r["success_rate"], 1.0);
}

#[test]
#[ignore = "full tier: end to end, processes killed"]
fn a_two_second_outage_of_manager_and_worker_loses_no_attempt() {
    let dir = temp("manager-outage");
    let port = free_port().to_string();
    let mut server = Served::start(&["serve", "--port", &port]);
    let url = server.url.clone();
    let out = dir.join("r.json");
    let mut eval = guigym()
        .args(["eval", "--suite", "all", "--limit", "300", "--parallel", "4", "--out"])
        .arg(&out)
        .arg("--store")
        .arg(dir.join("s"))
        .args(["--manager", &url])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until attempts are in flight, then take manager and worker down for 2 s.
    let deadline = Instant::now() + Duration::from_secs(30);
    while get(&format!("{url}/v1/worker/status"))["status"]["leased"].as_u64().unwrap_or(0) == 0 {
        assert!(Instant::now() < deadline, "no lease was ever granted");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.child.kill().unwrap();
    let _ = server.child.wait();
    std::thread::sleep(Duration::from_secs(2));
    let _restarted = Served::start(&["serve", "--port", &port]);
    let status = eval.wait().unwrap();
    assert!(status.success(), "the eval waited out the outage and finished: {status:?}");
    let r = report(&out);
    assert_eq!(r["attempts"], 300, "every attempt scored");
    assert_eq!(r["unscored"], 0);
    assert!(r["infra_failures"].as_u64().unwrap() > 0, "the outage hit attempts in flight");
    assert_eq!(r["success_rate"], 1.0);
}

#[test]
#[ignore = "full tier: Chromium"]
fn web_and_miniwob_run_through_the_manager() {
    let dir = temp("manager-web");
    let server = Served::start(&["serve", "--port", "0"]);
    let store = dir.join("s");
    let through_manager = ["--json", "--store", store.to_str().unwrap(), "--manager", &server.url];
    let r = guigym_json(&[&["eval", "--suite", "smoke", "--limit", "3", "--backend", "web"][..], &through_manager].concat());
    assert_eq!(r["backend"], "web");
    assert_eq!(r["attempts"], 3);
    assert_eq!(r["success_rate"], 1.0);
    let r = guigym_json(&[&["eval", "--suite", "miniwob", "--limit", "2", "--policy", "random"][..], &through_manager].concat());
    assert_eq!((r["backend"].as_str(), r["attempts"].as_u64()), (Some("web"), Some(2)));
}
