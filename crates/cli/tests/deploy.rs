//! The Kubernetes manifests stay true to the binary: they parse, probe `/healthz`, and pass
//! only flags and credentials that `guigym serve` and `guigym worker` accept.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

fn documents(file: &str) -> Vec<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/k8s").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    text.split("\n---\n").map(|doc| serde_saphyr::from_str::<serde_json::Value>(doc).unwrap_or_else(|e| panic!("{file}: {e}"))).collect()
}

fn help(command: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_guigym")).args([command, "--help"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn manifests_match_the_binary() {
    for (file, command) in [("manager.yaml", "serve"), ("worker.yaml", "worker")] {
        let docs = documents(file);
        let deployment = docs.iter().find(|d| d["kind"] == "Deployment").unwrap();
        let container = &deployment["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["readinessProbe"]["httpGet"]["path"], "/healthz", "{file}");
        assert!(container["resources"]["requests"]["memory"].is_string(), "{file} requests memory");
        let args: Vec<&str> = container["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        assert_eq!(args[0], command, "{file}");
        let known = help(command);
        for flag in args.iter().filter(|a| a.starts_with("--")) {
            assert!(known.contains(flag), "{file}: `guigym {command}` has no flag {flag}");
        }
        // Every credential the manifest passes is one this command reads.
        for var in container["env"].as_array().unwrap().iter().filter_map(|e| e["name"].as_str()).filter(|n| n.starts_with("GUIGYM_")) {
            assert!(known.contains(&format!("env: {var}")), "{file}: `guigym {command}` reads no {var}");
        }
    }
    let service = documents("manager.yaml").into_iter().find(|d| d["kind"] == "Service").unwrap();
    assert_eq!(service["metadata"]["name"], "guigym-manager");
    let worker = documents("worker.yaml");
    let args = worker[0]["spec"]["template"]["spec"]["containers"][0]["args"].as_array().unwrap();
    assert!(args.iter().any(|a| a == "http://guigym-manager:8080"), "workers register with the manager's service");
    let env = worker[0]["spec"]["template"]["spec"]["containers"][0]["env"].as_array().unwrap();
    assert!(!env.iter().any(|e| e["name"] == "GUIGYM_TOKEN"), "the clients' token never goes to a worker");
}
