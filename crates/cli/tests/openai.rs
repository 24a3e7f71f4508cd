//! The `openai` policy end to end, over real HTTP: a scripted OpenAI-compatible server
//! (`guigym policy-server`, its own process) answers with the golden walkthrough in each
//! codec; misbehaving servers give invalid steps or infrastructure failures, counted apart;
//! several endpoints get sticky, spread trajectories.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;

use common::{guigym, temp, Served};

/// A scripted policy server that knows the smoke suite.
fn policy_server(args: &[&str]) -> Served {
    let mut all = vec!["policy-server", "--suite", "smoke"];
    all.extend_from_slice(args);
    Served::start(&all)
}

fn eval(dir: &Path, harness: &str, urls: &[&str], extra: &[&str]) -> (serde_json::Value, i64) {
    let h = dir.join(format!("harness-{}.json", urls.len()));
    std::fs::write(&h, harness).unwrap();
    let store = dir.join("store");
    let mut cmd = guigym();
    cmd.args(["eval", "--suite", "smoke", "--policy", "openai", "--json", "--parallel", "4", "--harness"]).arg(&h).arg("--store").arg(&store);
    for u in urls {
        cmd.args(["--base-url", u]);
    }
    let out = cmd.args(extra).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = guigym().args(["runs", "list", "--json", "--store"]).arg(&store).output().unwrap();
    let runs: serde_json::Value = serde_json::from_slice(&runs.stdout).unwrap();
    let id = runs.as_array().unwrap().last().unwrap()["id"].as_i64().unwrap();
    (report, id)
}

fn steps(dir: &Path, run: i64) -> Vec<serde_json::Value> {
    let out = guigym().args(["runs", "show", &run.to_string(), "--steps", "--store"]).arg(dir.join("store")).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["step_details"].as_array().unwrap().clone()
}

#[test]
#[ignore = "full tier: end to end, every codec"]
fn every_codec_solves_the_smoke_suite_through_the_wire() {
    let dir = temp("openai-codecs");
    for (server_codec, codec, observation, coordinates) in [
        ("canonical", "canonical", "ui_tree", "pixels"),
        ("qwen", "qwen", "ui_tree", "norm1000"),
        ("android-world", "android_world", "ui_tree", "pixels"),
        ("anthropic", "anthropic", "ui_tree", "pixels"),
        ("pyautogui", "pyautogui", "ui_tree", "pixels"),
        ("ui-tars", "ui_tars", "ui_tree", "pixels"),
        ("ui-tars", "ui_tars", "both", "norm1000"),
        // The model sees a resized screenshot; its pixel coordinates map back to the screen.
        ("qwen", "qwen", "both", "pixels"),
    ] {
        let server = policy_server(&["--codec", server_codec]);
        let harness = format!(r#"{{"codec": "{codec}", "observation": "{observation}", "coordinates": "{coordinates}"}}"#);
        let (report, run) = eval(&dir, &harness, &[&server.url], &[]);
        assert_eq!(report["success_rate"], 1.0, "{codec} {observation} {coordinates}: {report}");
        assert_eq!(report["infra_failures"], 0);
        // The server's usage is recorded per step, cached tokens included.
        let s = steps(&dir, run);
        assert!(s.iter().all(|st| st["usage"]["prompt_tokens"].as_u64().unwrap() > 0));
        assert!(s.iter().any(|st| st["usage"]["cached_tokens"].as_u64().unwrap() > 0));
    }
}

#[test]
fn garbage_is_invalid_steps_and_server_failures_are_infrastructure() {
    let dir = temp("openai-faults");
    let harness = r#"{"codec": "qwen"}"#;

    let garbage = policy_server(&["--codec", "qwen", "--mode", "garbage"]);
    let (report, run) = eval(&dir, harness, &[&garbage.url], &["--limit", "3"]);
    assert_eq!(report["success_rate"], 0.0);
    assert_eq!(report["infra_failures"], 0, "unparseable output is the agent's doing");
    assert_eq!(report["attempts"], 3);
    let s = steps(&dir, run);
    assert!(!s.is_empty() && s.iter().all(|st| st["invalid"] == true));
    assert!(s[0]["feedback"].as_str().unwrap().contains("invalid action"));

    let down = policy_server(&["--mode", "error"]);
    let (report, _) = eval(&dir, harness, &[&down.url], &["--limit", "3", "--max-retries", "1", "--backoff-ms", "5", "--allow-unscored", "3"]);
    assert_eq!(report["attempts"], 0, "nothing is scored against the agent");
    assert_eq!(report["unscored"], 3);
    assert_eq!(report["infra_failures"], 12, "each attempt tried 4 times");

    let slow = policy_server(&["--mode", "slow", "--delay-ms", "3000"]);
    let (report, _) = eval(&dir, harness, &[&slow.url], &["--limit", "2", "--timeout-ms", "150", "--max-retries", "0", "--allow-unscored", "2"]);
    assert_eq!(report["attempts"], 0);
    assert_eq!(report["unscored"], 2);

    // A flaky server (every third request fails) is absorbed by the policy's own retries.
    let flaky = policy_server(&["--codec", "qwen", "--mode", "flaky"]);
    let (report, _) = eval(&dir, harness, &[&flaky.url], &["--limit", "8", "--backoff-ms", "5"]);
    assert_eq!(report["success_rate"], 1.0);
    assert_eq!(report["infra_failures"], 0);
}

#[test]
fn trajectories_stick_to_one_endpoint_and_spread_over_all() {
    let dir = temp("openai-sticky");
    let servers: Vec<Served> = (0..3).map(|_| policy_server(&["--codec", "canonical"])).collect();
    let urls: Vec<&str> = servers.iter().map(|s| s.url.as_str()).collect();
    let (report, run) = eval(&dir, r#"{"codec": "canonical"}"#, &urls, &["--attempts", "2"]);
    assert_eq!(report["success_rate"], 1.0);
    let mut by_attempt: std::collections::BTreeMap<(String, u64), std::collections::BTreeSet<String>> = Default::default();
    for st in steps(&dir, run) {
        let key = (st["task_id"].as_str().unwrap().to_string(), st["attempt_index"].as_u64().unwrap());
        by_attempt.entry(key).or_default().insert(st["endpoint"].as_str().unwrap().to_string());
    }
    assert!(by_attempt.values().all(|e| e.len() == 1), "a trajectory changed endpoint");
    let used: std::collections::BTreeSet<&String> = by_attempt.values().flatten().collect();
    assert_eq!(used.len(), 3, "trajectories spread over every endpoint");
}
