//! The manager as deployed: `guigym serve` and `guigym worker` processes on loopback. An eval
//! through a manager gives the same report as an embedded one, and keeps giving it when a
//! worker is killed mid-run.

#![allow(clippy::unwrap_used)]

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{guigym, temp, Served};

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
fn killing_a_worker_mid_eval_reruns_its_attempts_and_changes_no_score() {
    let dir = temp("manager-chaos");
    let manager = Served::start(&["serve", "--port", "0", "--capacity", "0", "--worker-timeout-ms", "1000"]);
    let mut victim = Served::start(&["worker", "--manager", &manager.url, "--capacity", "64", "--heartbeat-ms", "200"]);
    let _survivor = Served::start(&["worker", "--manager", &manager.url, "--capacity", "64", "--heartbeat-ms", "200"]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while get(&format!("{}/v1/workers", manager.url)).as_array().map(|a| a.len()).unwrap_or(0) < 2 {
        assert!(Instant::now() < deadline, "workers did not register");
        std::thread::sleep(Duration::from_millis(50));
    }

    let reference = dir.join("reference.json");
    assert!(guigym().args(eval_args(&reference, &dir.join("s1"))).args(["--screenshots"]).output().unwrap().status.success());

    let chaos = dir.join("chaos.json");
    let mut eval = guigym()
        .args(eval_args(&chaos, &dir.join("s2")))
        .args(["--screenshots", "--manager", &manager.url])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill the victim as soon as it holds leases: it has attempts in flight.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = get(&format!("{}/v1/worker/status", victim.url));
        if status["leased"].as_u64().unwrap_or(0) > 0 {
            break;
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
