//! Honest runs, tried from outside as a user would, against model servers of our own: nothing
//! about a task reaches the model server, configuration errors stop the run with the server's
//! message, context-length failures stay in the denominator, a dead endpoint loses nothing,
//! structured tool calls are read, and unscored attempts make the run fail.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::process::Output;

use common::{guigym, temp, Served};

fn policy_server(args: &[&str]) -> Served {
    let mut all = vec!["policy-server", "--suite", "smoke"];
    all.extend_from_slice(args);
    Served::start(&all)
}

/// `guigym eval` of smoke with the openai policy; the raw output.
fn eval(dir: &Path, harness: &str, urls: &[&str], extra: &[&str]) -> Output {
    let h = dir.join("harness.json");
    std::fs::write(&h, harness).unwrap();
    let mut cmd = guigym();
    cmd.args(["eval", "--suite", "smoke", "--policy", "openai", "--json", "--parallel", "4", "--harness"]).arg(&h);
    cmd.arg("--store").arg(dir.join("store"));
    for u in urls {
        cmd.args(["--base-url", u]);
    }
    cmd.args(extra).output().unwrap()
}

fn report(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn nothing_about_the_task_reaches_the_model_server() {
    let dir = temp("honest-leak");
    let record = dir.join("requests.jsonl");
    // A server that reads only the headers, and plays the walkthrough of any task id there.
    let cheat = policy_server(&["--mode", "cheat", "--record", record.to_str().unwrap()]);
    let r = report(&eval(&dir, r#"{"codec": "canonical"}"#, &[&cheat.url], &["--allow-unscored", "0"]));
    assert_eq!(r["attempts"], 85);
    assert!(r["success_rate"].as_f64().unwrap() <= 0.05, "a header-reading server beat chance: {}", r["success_rate"]);

    // Nothing sent (headers, body) names a task, a family or the suite.
    let smoke: serde_json::Value = serde_json::from_slice(&guigym().args(["tasks", "list", "--suite", "smoke", "--json"]).output().unwrap().stdout).unwrap();
    let requests: Vec<serde_json::Value> = std::fs::read_to_string(&record).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(requests.len() >= 85);
    let mut sessions = std::collections::BTreeSet::new();
    for req in &requests {
        let headers = req["headers"].to_string();
        let body = req["body"].to_string();
        for t in smoke.as_array().unwrap() {
            let (id, family) = (t["id"].as_str().unwrap(), t["family"].as_str().unwrap());
            assert!(!headers.contains(id) && !headers.contains(family), "{id} leaks in the headers: {headers}");
            assert!(!body.contains(id), "{id} leaks in the body");
        }
        assert!(!headers.contains("smoke"));
        let session = req["headers"]["x-session-id"].as_str().unwrap();
        assert_eq!(req["headers"]["x-smg-routing-key"], session);
        assert!(session.len() == 32 && session.chars().all(|c| c.is_ascii_hexdigit()), "{session}");
        sessions.insert(session.to_string());
    }
    assert_eq!(sessions.len(), 85, "one opaque id per attempt");

    // A second run, in a fresh store, shares no session key with the first.
    let again = temp("honest-leak-2");
    let _ = eval(&again, r#"{"codec": "canonical"}"#, &[&cheat.url], &["--limit", "5"]);
    let later: Vec<serde_json::Value> =
        std::fs::read_to_string(&record).unwrap().lines().skip(requests.len()).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(!later.is_empty());
    assert!(later.iter().all(|r| !sessions.contains(r["headers"]["x-session-id"].as_str().unwrap())));
}

#[test]
fn a_wrong_model_name_stops_the_run_with_the_servers_message() {
    let dir = temp("honest-model");
    let server = policy_server(&["--served-model", "qwen2.5-vl"]);
    let out = eval(&dir, r#"{"codec": "canonical"}"#, &[&server.url], &[]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("404") && stderr.contains("does not exist") && stderr.contains("--model"), "{stderr}");
    assert!(stderr.contains(&server.url), "the message names the endpoint: {stderr}");
    // With the right name the same server solves the suite.
    let r = report(&eval(&dir, r#"{"codec": "canonical"}"#, &[&server.url], &["--model", "qwen2.5-vl"]));
    assert_eq!(r["success_rate"], 1.0);
}

#[test]
fn context_length_failures_are_scored_not_dropped() {
    let dir = temp("honest-context");
    let server = policy_server(&["--context-limit", "1500"]);
    let r = report(&eval(&dir, r#"{"codec": "canonical"}"#, &[&server.url], &[]));
    assert_eq!(r["attempts"], 85, "the denominator is the whole suite");
    assert_eq!(r["unscored"], 0);
    let ended = r["context_length"].as_u64().unwrap();
    assert!(ended > 0 && ended < 85, "{ended} attempts ended at the context limit");
    assert!(r["success_rate"].as_f64().unwrap() < 1.0);
}

#[test]
fn unscored_attempts_fail_the_run_unless_allowed() {
    let dir = temp("honest-unscored");
    let down = policy_server(&["--mode", "error"]);
    let args = ["--limit", "3", "--max-retries", "0", "--backoff-ms", "1", "--max-infra-retries", "1"];
    let out = eval(&dir, r#"{"codec": "canonical"}"#, &[&down.url], &args);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["attempts"], 0);
    assert_eq!(r["unscored"], 3);
    assert_eq!(r["unscored_reasons"]["policy_unavailable"], 3);
    assert_eq!(r["unscored_attempts"].as_array().unwrap().len(), 3);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-unscored"));
    let mut allowed = args.to_vec();
    allowed.extend(["--allow-unscored", "3"]);
    assert!(eval(&dir, r#"{"codec": "canonical"}"#, &[&down.url], &allowed).status.success());
}

#[test]
fn a_dead_endpoint_loses_no_attempt() {
    let dir = temp("honest-failover");
    let healthy: Vec<Served> = (0..2).map(|_| policy_server(&["--codec", "canonical"])).collect();
    // A port nothing listens on.
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let urls = [healthy[0].url.as_str(), dead.as_str(), healthy[1].url.as_str()];
    let r = report(&eval(&dir, r#"{"codec": "canonical"}"#, &urls, &["--attempts", "2", "--backoff-ms", "5", "--max-retries", "1"]));
    assert_eq!(r["attempts"], 170);
    assert_eq!(r["unscored"], 0);
    assert_eq!(r["success_rate"], 1.0);
    assert_eq!(r["policy_health"]["endpoints_marked_down"], serde_json::json!([dead]));
    // Every step was answered by a healthy server.
    let runs: serde_json::Value =
        serde_json::from_slice(&guigym().args(["runs", "list", "--json", "--store"]).arg(dir.join("store")).output().unwrap().stdout).unwrap();
    let id = runs.as_array().unwrap().last().unwrap()["id"].as_i64().unwrap();
    let out = guigym().args(["runs", "show", &id.to_string(), "--steps", "--store"]).arg(dir.join("store")).output().unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let steps = shown["step_details"].as_array().unwrap();
    assert!(steps.iter().all(|s| s["endpoint"] != dead.as_str()));
    // Token totals per run and per family.
    assert!(shown["tokens"]["prompt_tokens"].as_u64().unwrap() > 0);
    assert!(shown["tokens_by_family"].as_object().unwrap().len() > 10);
}

#[test]
fn structured_tool_calls_solve_the_smoke_suite() {
    let dir = temp("honest-tools");
    for (server_codec, codec) in [("qwen", "qwen"), ("anthropic", "anthropic"), ("canonical", "canonical")] {
        let server = policy_server(&["--codec", server_codec, "--tool-calls"]);
        let r = report(&eval(&dir, &format!(r#"{{"codec": "{codec}"}}"#), &[&server.url], &[]));
        assert_eq!(r["success_rate"], 1.0, "{codec}: {r}");
    }
}

#[test]
fn request_fields_go_along_and_roles_alternate_on_the_wire() {
    let dir = temp("honest-body");
    let record = dir.join("requests.jsonl");
    let server = policy_server(&["--record", record.to_str().unwrap()]);
    let harness = r#"{"codec": "canonical", "observation": "both",
        "image": {"max_pixels": 1003520, "min_pixels": 3136, "factor": 28, "resize_at": "server"}}"#;
    let extra = r#"{"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}, "mm_processor_kwargs": {"max_pixels": 200000, "do_rescale": true}}"#;
    let r = report(&eval(&dir, harness, &[&server.url], &["--limit", "2", "--extra-body", extra]));
    assert_eq!(r["success_rate"], 1.0);
    let first: serde_json::Value = serde_json::from_str(std::fs::read_to_string(&record).unwrap().lines().next().unwrap()).unwrap();
    let body = &first["body"];
    assert_eq!(body["top_k"], 20);
    assert_eq!(body["chat_template_kwargs"]["enable_thinking"], false);
    assert_eq!(
        body["mm_processor_kwargs"],
        serde_json::json!({"min_pixels": 3136, "max_pixels": 1003520, "do_rescale": true}),
        "the server resizes as the prompt says, whatever --extra-body asked"
    );
    // Roles alternate on the wire.
    let roles: Vec<&str> = body["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert!(roles.windows(2).all(|w| w[0] != w[1]), "{roles:?}");
    // A malformed --extra-body is refused up front.
    let out = eval(&dir, harness, &[&server.url], &["--limit", "1", "--extra-body", "[1, 2]"]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--extra-body"));
}

#[test]
fn retry_after_is_honoured() {
    let dir = temp("honest-retry-after");
    // Every third request gets 429 with Retry-After: 1, and a retry sooner than that gets 429
    // again: a client that ignores the header runs out of retries.
    let server = policy_server(&["--mode", "flaky", "--retry-after", "1"]);
    let r = report(&eval(&dir, r#"{"codec": "canonical"}"#, &[&server.url], &["--limit", "3", "--max-retries", "1", "--backoff-ms", "1"]));
    assert_eq!(r["unscored"], 0);
    assert_eq!(r["success_rate"], 1.0);
}
