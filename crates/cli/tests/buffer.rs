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

    // The same samples as files in each trainer's layout: Parquet and JSON lines.
    for (format, file) in [("slime", "slime.parquet"), ("verl", "verl.parquet"), ("verl", "verl.jsonl")] {
        let path = dir.join(file);
        let out = guigym().args(["buffer", "export", "--format", format, "--samples"]).arg(&samples).arg("--out").arg(&path).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let bytes = std::fs::read(&path).unwrap();
        if file.ends_with(".parquet") {
            assert_eq!(&bytes[..4], b"PAR1", "{file} starts as Parquet");
            assert_eq!(&bytes[bytes.len() - 4..], b"PAR1", "{file} ends as Parquet");
        } else {
            let first: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&bytes).lines().next().unwrap()).unwrap();
            assert!(first["response_mask"].is_array() && first["reward_score"].is_number());
        }
    }
    let out = guigym().args(["buffer", "export", "--format", "megatron", "--out", "x.parquet", "--samples"]).arg(&samples).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown format"));

    // Demonstrations for screen-reading learners: every step with what it showed and what was done.
    let steps = std::fs::read_to_string(dir.join("data/steps.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(steps.lines().next().unwrap()).unwrap();
    assert!(first["observation"]["ui_tree"].as_array().is_some_and(|t| !t.is_empty()));
    assert!(first["observation"].get("screenshot").is_none(), "no pixels in step records");
    assert!(first["action"]["action"].is_string() && first["instruction"].is_string());
    let _ = std::fs::remove_dir_all(dir);
}
