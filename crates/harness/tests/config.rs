//! Harness config files: the shipped ones load; mistakes name the file, the line and the field.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use guigym_harness::{Codec, HarnessConfig, HistoryPolicy};

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/harness").join(name)
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("guigym-harness-{}-{name}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn shipped_configs_load() {
    let q = HarnessConfig::load(&shipped("qwen-window.yaml")).unwrap();
    assert_eq!(q.codec, Codec::QWEN);
    assert_eq!(q.history, HistoryPolicy::Window { k: 10, o: 2 });
    let t = HarnessConfig::load(&shipped("text-last-k.json")).unwrap();
    assert_eq!(t.history, HistoryPolicy::LastK { k: 5 });
    // Fields left out take their defaults.
    assert!(t.system_prompt.contains("{action_space}"));
}

#[test]
fn unknown_fields_and_bad_values_are_named() {
    let p = write("typo.yaml", "version: 1\ncodec: qwen\nhistroy:\n  type: full\n");
    let e = HarnessConfig::load(&p).unwrap_err().to_string();
    assert!(e.contains("typo.yaml") && e.contains("histroy"), "{e}");
    assert!(e.contains('3'), "names the line: {e}");

    let p = write("codec.json", r#"{"codec": "morse"}"#);
    let e = HarnessConfig::load(&p).unwrap_err().to_string();
    assert!(e.contains("codec.json") && e.contains("morse"), "{e}");

    let p = write("window.json", r#"{"history": {"type": "window", "k": 4, "o": 4}}"#);
    let e = HarnessConfig::load(&p).unwrap_err().to_string();
    assert!(e.contains("o < k"), "{e}");

    let p = write("version.json", r#"{"version": 9}"#);
    assert!(HarnessConfig::load(&p).unwrap_err().to_string().contains("version"));
    assert!(HarnessConfig::load(Path::new("/no/such/harness.yaml")).unwrap_err().to_string().contains("/no/such/harness.yaml"));
}

#[test]
fn image_budgets_out_of_range_are_refused_at_load() {
    for (name, image, says) in [
        ("huge", r#"{"max_pixels": 4294967295, "min_pixels": 4294967295, "factor": 1, "resize_at": "client"}"#, "max_pixels"),
        ("inverted", r#"{"max_pixels": 1003520, "min_pixels": 2000000, "factor": 28, "resize_at": "client"}"#, "min_pixels"),
        ("factor", r#"{"max_pixels": 1003520, "min_pixels": 3136, "factor": 0, "resize_at": "client"}"#, "factor"),
    ] {
        let p = write(&format!("{name}.json"), &format!(r#"{{"observation": "both", "image": {image}}}"#));
        let e = HarnessConfig::load(&p).unwrap_err().to_string();
        assert!(e.contains(says), "{name}: {e}");
    }
}
