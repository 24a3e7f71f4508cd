//! Tidy: the few code rules that matter, as a failing test. Every Rust file opens with a
//! `//!` line that says what it does, and no line ends in whitespace.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && p.file_name().is_some_and(|n| n != "target" && !n.to_string_lossy().starts_with('.')) {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_file_says_what_it_does_and_has_no_trailing_whitespace() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    assert!(files.len() > 20);
    let mut problems = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        if !text.starts_with("//!") {
            problems.push(format!("{}: does not open with a //! line", f.display()));
        }
        for (i, line) in text.lines().enumerate() {
            if line.ends_with(' ') || line.ends_with('\t') {
                problems.push(format!("{}:{}: trailing whitespace", f.display(), i + 1));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A crate's direct dependencies, from its Cargo.toml's `[dependencies]` table.
fn dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            continue;
        }
        if inside && !line.is_empty() && !line.starts_with('#') {
            out.push(line.split(['.', ' ', '=']).next().unwrap().to_string());
        }
    }
    out
}

/// The layering ARCHITECTURE.md states, checked: which of our crates each crate may depend on,
/// and which may speak HTTP (or any network protocol).
#[test]
fn crates_depend_only_downward_and_only_some_speak_http() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // (crate folder, our crates it may use, whether it may speak HTTP)
    let rules: &[(&str, &[&str], bool)] = &[
        ("core", &[], false),
        ("ui", &["guigym-core"], false),
        ("phone", &["guigym-core", "guigym-ui"], false),
        ("benchmarks/phone", &["guigym-core", "guigym-ui", "guigym-phone"], false),
        ("benchmarks/miniwob", &["guigym-core", "guigym-web"], false),
        ("benchmarks/osworld", &["guigym-core", "guigym-desktop", "guigym-cdp"], true),
        ("benchmarks/desktop", &["guigym-core", "guigym-desktop", "guigym-benchmark-osworld"], false),
        ("backends/sim", &["guigym-core", "guigym-ui", "guigym-phone"], false),
        ("backends/web", &["guigym-core", "guigym-ui", "guigym-phone", "guigym-sim", "guigym-cdp"], true),
        ("backends/desktop", &["guigym-core"], false),
        ("backends/android", &["guigym-core", "guigym-adb"], true),
        ("harness", &["guigym-core"], true),
        ("rollout", &["guigym-core", "guigym-harness"], true),
        ("manager", &["guigym-core"], true),
        ("learner", &["guigym-core", "guigym-harness", "guigym-rollout"], false),
        ("adb", &["guigym-core"], false),
        // The DevTools client: a WebSocket, to a browser.
        ("cdp", &[], true),
        ("serve", &["guigym-core", "guigym-harness", "guigym-rollout", "guigym-manager"], true),
        // The measurements drive every layer, but nothing below the binary uses them.
        (
            "bench",
            &[
                "guigym-core",
                "guigym-benchmark-phone",
                "guigym-benchmark-miniwob",
                "guigym-benchmark-osworld",
                "guigym-benchmark-desktop",
                "guigym-sim",
                "guigym-web",
                "guigym-desktop",
                "guigym-adb",
                "guigym-android",
                "guigym-phone",
                "guigym-harness",
                "guigym-rollout",
                "guigym-manager",
                "guigym-serve",
            ],
            true,
        ),
    ];
    let network = ["reqwest", "axum", "hyper", "hyper-util", "tokio-tungstenite"];
    let mut problems = Vec::new();
    let mut seen = 0;
    for (dir, allowed, http) in rules {
        let deps = dependencies(&root.join("crates").join(dir).join("Cargo.toml"));
        seen += 1;
        for d in &deps {
            if d.starts_with("guigym") && !allowed.contains(&d.as_str()) {
                problems.push(format!("crates/{dir} depends on {d}, which ARCHITECTURE.md does not allow"));
            }
            if !http && network.contains(&d.as_str()) {
                problems.push(format!("crates/{dir} depends on {d}: it must not speak HTTP"));
            }
        }
    }
    // Every crate of the workspace is covered (the CLI may use them all).
    let mut crates = Vec::new();
    for dir in ["crates", "crates/backends", "crates/benchmarks"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
            if e.path().join("Cargo.toml").is_file() {
                crates.push(e.path());
            }
        }
    }
    assert_eq!(crates.len(), seen + 1, "a crate without a rule: add it here and to ARCHITECTURE.md");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
