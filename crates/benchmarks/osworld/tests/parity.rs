//! Parity with OSWorld's own metrics: each case of `parity/cases.json` is a pair of files and
//! options; `parity/expected.json` holds the verdict desktop-env 1.0.2's Python metric gave
//! on it (a score, or `"error: …"` where OSWorld raises). Our metrics must agree on every
//! case. `scripts/osworld_parity.py` re-derives the verdicts from OSWorld's code (the full
//! test command runs it in the test venv); see `parity/README.md`.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use guigym_benchmark_osworld::metrics::{run, Got};
use serde_json::Value;

/// The fixture folders: `parity/` (hand-made pairs) and each folder under it holding a
/// `cases.json` (the adversarial pairs: files saved by LibreOffice, odd headers, dates,
/// python-pptx's side effects; accessibility trees with selector rules; formatting).
/// `GUIGYM_PARITY_DIR` points the test at another folder of the same layout instead (for
/// probing the metrics with new pairs before they join the fixture).
fn fixtures() -> Vec<PathBuf> {
    match std::env::var_os("GUIGYM_PARITY_DIR") {
        Some(dir) => vec![PathBuf::from(dir)],
        None => {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parity");
            let mut folders: Vec<PathBuf> =
                std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.join("cases.json").is_file()).collect();
            folders.sort();
            std::iter::once(dir).chain(folders).collect()
        }
    }
}

#[test]
fn metrics_agree_with_osworld_on_every_fixture_pair() {
    let mut total = 0;
    for dir in fixtures() {
        total += agree_on(&dir);
    }
    assert!(total >= 40 || std::env::var_os("GUIGYM_PARITY_DIR").is_some(), "the fixture holds at least 40 pairs");
}

/// Checks one fixture folder; the number of cases.
fn agree_on(dir: &Path) -> usize {
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(dir.join("cases.json")).unwrap()).unwrap();
    let verdicts: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    // A name is a file of `files/`, a list a multi getter's several files, null nothing.
    let file = |v: &Value| match v {
        Value::String(name) => Got::File(dir.join("files").join(name)),
        Value::Array(names) => Got::Files(names.iter().map(|n| n.as_str().map_or(Got::Missing, |n| Got::File(dir.join("files").join(n)))).collect()),
        _ => Got::Missing,
    };
    let mut disagreements = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let func = case["func"].as_str().unwrap();
        // As the getters give them: a command's output or a tree as text, a rule as JSON.
        let result = match (case["result_as"].as_str(), file(&case["result"])) {
            (Some("text"), Got::File(path)) => Got::Text(std::fs::read_to_string(path).unwrap()),
            (Some("json"), Got::File(path)) => Got::Json(serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()),
            (_, got) => got,
        };
        let expected = match (case["expected_as"].as_str(), file(&case["expected"])) {
            (Some("json"), Got::File(path)) => Got::Json(serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()),
            (Some("text"), Got::File(path)) => Got::Text(std::fs::read_to_string(path).unwrap()),
            (Some("absent"), _) => Got::Missing,
            (_, got) => got,
        };
        let ours = run(func, &result, &expected, &case["options"]);
        let theirs = &verdicts[name];
        let agree = match (theirs, &ours) {
            (Value::Number(n), Ok(score)) => (n.as_f64().unwrap() - score).abs() < 1e-9,
            (Value::String(s), Err(_)) => s.starts_with("error:"),
            _ => false,
        };
        if !agree {
            disagreements.push(format!("{name} ({func}): OSWorld {theirs}, ours {ours:?}"));
        }
    }
    assert!(disagreements.is_empty(), "{}: {} of {} cases disagree:\n{}", dir.display(), disagreements.len(), cases.len(), disagreements.join("\n"));
    cases.len()
}
