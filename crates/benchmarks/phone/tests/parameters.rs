//! Every value a task sets is checked: for every family, take the golden's final state and
//! change any one value the task wrote (a field of a new or edited item, a deleted item put
//! back), or the answer, and the verdict must flip to failure. A verifier that let one of these
//! through would accept the task done with another contact, amount, date, text or option.

#![allow(clippy::unwrap_used)]

use guigym_benchmark_phone::{self as tasks, judge, spec, EpisodeLog, Family, FamilyKind};
use guigym_phone::state::{AppData, DeviceState};
use serde_json::{json, Value};

/// Tasks per family: enough to meet every parameter shape a family produces.
const TASKS_PER_FAMILY: usize = 4;

/// Keys no task states (when a message was sent, the next free id, an issued order number,
/// read marks).
const UNSTATED: &[&str] = &["time", "next_id", "number", "read"];

struct Case {
    initial: DeviceState,
    golden: DeviceState,
    log: EpisodeLog,
    params: Value,
}

fn case(f: &dyn Family, index: usize) -> Option<(String, Case)> {
    let t = tasks::task(f, index)?;
    let initial = tasks::initial_state(&t).expect("a catalogue task has a state");
    let mut golden = initial.clone();
    let mut log = EpisodeLog::default();
    f.golden(&t.params, &mut golden, &mut log);
    log.terminated.get_or_insert(guigym_core::TerminateStatus::Success);
    Some((t.id, Case { initial, golden, log, params: t.params }))
}

fn passes(f: &dyn Family, c: &Case, last: &DeviceState, log: &EpisodeLog) -> bool {
    tasks::verify(f, &c.params, &c.initial, last, log).success
}

/// Every string value found under `key` anywhere in the data: the other values a field of
/// that name takes in this world (other titles, phones, folders, places…).
fn values_of_key(v: &Value, key: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match v {
                    Value::String(s) if k == key => out.push(s.clone()),
                    _ => values_of_key(v, key, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| values_of_key(v, key, out)),
        _ => {}
    }
}

/// Pointers to every leaf under `pointer` (the leaf itself when it is one), with its key.
fn leaves(v: &Value, pointer: String, key: String, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| leaves(x, format!("{pointer}/{k}"), k.clone(), out)),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| leaves(x, format!("{pointer}/{i}"), key.clone(), out)),
        _ => out.push((pointer, key)),
    }
}

/// Other values for one leaf: a flipped switch, a number one off, another string of the same
/// field (or the same string with a digit changed).
fn other_values(leaf: &Value, key: &str, world: &Value) -> Vec<Value> {
    match leaf {
        Value::Bool(b) => vec![json!(!b)],
        Value::Number(n) => match n.as_i64() {
            Some(i) => vec![json!(i + 1), json!(i - 1)],
            None => vec![json!(n.as_f64().unwrap_or(0.0) + 1.0)],
        },
        Value::String(s) => {
            // A text that still holds the value (a sentence around it) is not another value.
            let same = |x: &str| guigym_phone::normalize(x).contains(&guigym_phone::normalize(s));
            let mut others = Vec::new();
            values_of_key(world, key, &mut others);
            let mut out: Vec<Value> = others.into_iter().filter(|o| !same(o)).take(3).map(Value::String).collect();
            if let Some(t) = bump_last_digit(s) {
                out.push(Value::String(t));
            }
            if out.is_empty() {
                out.push(Value::String(format!("{s} (changed)")));
            }
            out
        }
        _ => vec![],
    }
}

#[test]
fn changing_any_value_a_task_sets_fails_the_verdict() {
    let mut tried = 0;
    let mut missed = Vec::new();
    let mut families_with_values = 0;
    for f in tasks::catalog() {
        let mut family_tried = 0;
        for index in 0..TASKS_PER_FAMILY {
            let Some((id, c)) = case(*f, index) else { continue };
            assert!(passes(*f, &c, &c.golden, &c.log), "{id}: the golden itself fails");
            let before = serde_json::to_value(&c.initial.data).unwrap();
            let after = serde_json::to_value(&c.golden.data).unwrap();
            for path in judge::diff(&c.initial.data, &c.golden.data) {
                let pointer = format!("/{path}");
                let variants: Vec<Value> = match after.pointer(&pointer) {
                    // A deleted item put back: the task undone.
                    None => {
                        let mut v = after.clone();
                        let (parent, key) = pointer.rsplit_once('/').unwrap();
                        let restored = before.pointer(&pointer).cloned().unwrap();
                        v.pointer_mut(parent).and_then(Value::as_object_mut).unwrap().insert(key.to_string(), restored);
                        vec![v]
                    }
                    Some(node) => {
                        let mut found = Vec::new();
                        leaves(node, pointer.clone(), path.rsplit('/').next().unwrap_or("").to_string(), &mut found);
                        let mut out = Vec::new();
                        for (leaf, key) in found.into_iter().filter(|(_, k)| !UNSTATED.contains(&k.as_str())) {
                            for other in other_values(after.pointer(&leaf).unwrap(), &key, &before) {
                                let mut v = after.clone();
                                *v.pointer_mut(&leaf).unwrap() = other;
                                out.push(v);
                            }
                        }
                        out
                    }
                };
                for v in variants {
                    let shown = v.pointer(&pointer).map(|x| x.to_string()).unwrap_or_default();
                    // A value the app could never hold (an unknown enum name) is no state.
                    let Ok(data) = serde_json::from_value::<AppData>(v) else { continue };
                    let mut last = c.golden.clone();
                    last.data = data;
                    tried += 1;
                    family_tried += 1;
                    if passes(*f, &c, &last, &c.log) {
                        missed.push(format!("{id}: {path} changed to {shown} and still passed"));
                    }
                }
            }
            if let Some(a) = c.params.get("answer") {
                for wrong in wrong_answers(a, &c.initial) {
                    let mut log = c.log.clone();
                    log.answers = vec![wrong.clone()];
                    tried += 1;
                    family_tried += 1;
                    if passes(*f, &c, &c.golden, &log) {
                        missed.push(format!("{id}: the answer {wrong:?} passed"));
                    }
                }
            }
        }
        if f.kind() != FamilyKind::Infeasible {
            assert!(family_tried > 0, "{}: no value of its tasks was changed", f.name());
            families_with_values += 1;
        }
    }
    assert!(families_with_values > 70, "only {families_with_values} families tried");
    eprintln!("{tried} changed values over {families_with_values} families, all failed");
    assert!(missed.is_empty(), "{} of {tried} changed values passed:\n{}", missed.len(), missed.join("\n"));
}

/// Answers with the expected value changed: one off for amounts, counts, times and dates,
/// another of the world's names for a name.
fn wrong_answers(a: &Value, state: &DeviceState) -> Vec<String> {
    let v = &a["value"];
    let with = |value: Value| spec::answer_text(&json!({ "kind": a["kind"], "value": value }));
    match a["kind"].as_str().unwrap_or("") {
        "money" => vec![with(json!(v.as_i64().unwrap_or(0) + 100))],
        "number" => vec![with(json!(v.as_f64().unwrap_or(0.0) + 1.0))],
        "date" => vec![with(json!(v.as_i64().unwrap_or(0) + guigym_phone::time::DAY))],
        "time" => vec![with(json!(v.as_i64().unwrap_or(0) + 60))],
        "duration" => vec![with(json!(v.as_i64().unwrap_or(0) + 5))],
        _ => {
            let s = v.as_str().unwrap_or("");
            if let Some(t) = bump_last_digit(s) {
                vec![t]
            } else {
                let names = spec::entity_names(state, &["name", "title", "location"]);
                let norm = guigym_phone::normalize(s);
                names
                    .into_iter()
                    .filter(|n| {
                        let m = guigym_phone::normalize(n);
                        !m.contains(&norm) && !norm.contains(&m)
                    })
                    .take(2)
                    .collect()
            }
        }
    }
}

/// The text with its last digit one higher (9 wraps to 0), if it has a digit.
fn bump_last_digit(s: &str) -> Option<String> {
    let pos = s.rfind(|c: char| c.is_ascii_digit())?;
    let d = s.as_bytes()[pos] - b'0';
    let mut t = s.to_string();
    t.replace_range(pos..pos + 1, &((d + 1) % 10).to_string());
    Some(t)
}
