//! The trajectory buffer hand-off: samples collected by `guigym collect` are served by
//! `guigym buffer serve` and read by the slime and verl integration scripts with the plain
//! Python on the machine.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::process::Command;

use common::{guigym, Served};

#[test]
fn slime_and_verl_read_batches_from_the_buffer() {
    let dir = std::env::temp_dir().join(format!("guigym-buffer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = guigym().args(["collect", "--suite", "smoke", "--limit", "6", "--out"]).arg(dir.join("data")).arg("--store").arg(dir.join("store")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let samples = dir.join("data/samples.jsonl");
    let server = Served::start(&["buffer", "serve", "--samples", samples.to_str().unwrap()]);
    let url = server.url.clone();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../integrations");
    let run = |script: &str| {
        let out = Command::new("python3").arg(root.join(script)).args([&url, "3"]).output().unwrap();
        assert!(out.status.success(), "{script}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let slime = run("slime_reader.py");
    assert_eq!(slime["samples"], 3);
    assert!(slime["trained_tokens"].as_u64().unwrap() > 0);
    assert_eq!(slime["weight_version"], 1, "the trainer's weight bump reached the buffer");
    let verl = run("verl_reader.py");
    assert_eq!(verl["outputs"], 3, "the next three samples");
    assert!(verl["model_tokens"].as_u64().unwrap() > 0);
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}
