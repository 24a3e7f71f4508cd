//! The audit's cases only the phone catalogue knows how to make (see `rollout::audit`): its
//! answers' kinds and formats, its apps for a side effect elsewhere, a contradicting message,
//! a question asked too late.

use guigym_core::{Action, AuditCase, TaskSpec, TerminateStatus};
use serde_json::Value;

/// Another value of the expected answer's kind, and the answer rewritten in another
/// accepted format.
fn answer_variants(param: &Value, golden: &str) -> (Option<String>, Option<String>) {
    let v = &param["value"];
    match param["kind"].as_str().unwrap_or("") {
        "money" => {
            let c = v.as_i64().unwrap_or(0).abs();
            (Some(format!("${}.{:02}", (c + 137) / 100, (c + 137) % 100)), Some(format!("{}.{:02} dollars", c / 100, c % 100)))
        }
        "time" => {
            let t = v.as_i64().unwrap_or(0).rem_euclid(24 * 60);
            let (h, m) = (t / 60, t % 60);
            let twelve = format!("{}:{m:02} {}", if h % 12 == 0 { 12 } else { h % 12 }, if h < 12 { "am" } else { "pm" });
            let other = (t + 90) % (24 * 60);
            (Some(format!("{:02}:{:02}", other / 60, other % 60)), Some(twelve))
        }
        "duration" => {
            let m = v.as_i64().unwrap_or(0);
            let format = if m >= 60 { format!("{} h {} min", m / 60, m % 60) } else { format!("{m} minutes") };
            (Some(format!("{} min", m + 7)), Some(format))
        }
        "number" => {
            let n = v.as_f64().unwrap_or(0.0);
            let format = if n.fract() == 0.0 { format!("{n:.1}") } else { format!("{n}") };
            (Some(format!("{}", n + 2.0)), Some(format))
        }
        "date" => (None, None),
        _ => match v.as_str() {
            Some(code) if !code.is_empty() && code.chars().all(|c| c.is_ascii_digit()) => {
                let other: String = code.chars().rev().collect();
                let other = if other == code { format!("{}", code.parse::<u64>().unwrap_or(0) + 1) } else { other };
                (Some(other), Some(format!("it is {code}")))
            }
            Some(_) => (None, Some(golden.to_uppercase())),
            None => (None, None),
        },
    }
}

/// The catalogue's own cases for one task.
pub fn cases(task: &TaskSpec) -> Vec<AuditCase> {
    let (body, status) = task.walkthrough_body();
    let end = status.unwrap_or(TerminateStatus::Success);
    let done = |mut a: Vec<Action>| {
        a.push(Action::Terminate { status: end });
        a
    };
    let mut out = Vec::new();
    let answer_at = body.iter().rposition(|a| matches!(a, Action::Answer { .. }));
    if let (Some(i), Some(param)) = (answer_at, task.params.get("answer")) {
        if let Action::Answer { text: golden } = &body[i] {
            let with = |text: String| {
                let mut a = body.clone();
                a[i] = Action::Answer { text };
                done(a)
            };
            out.push(AuditCase { rule: "answer_in_sentence", must_pass: true, actions: with(format!("The answer is {golden}.")) });
            let (other, format) = answer_variants(param, golden);
            if let Some(f) = format {
                out.push(AuditCase { rule: "answer_other_format", must_pass: true, actions: with(f) });
            }
            if let Some(o) = other {
                out.push(AuditCase { rule: "answer_wrong", must_pass: false, actions: with(o.clone()) });
                out.push(AuditCase { rule: "answer_hedged", must_pass: false, actions: with(format!("{golden} or {o}")) });
            }
        }
    }
    // A change in an app the task does not involve.
    let elsewhere: Vec<Action> = if task.apps.iter().any(|a| a == "Notes") {
        [
            vec![Action::Home, Action::OpenApp { name: "Clock".into() }, Action::click_element("new_alarm")],
            Action::fill_field("time", "05:55"),
            Action::fill_field("label", "audit"),
            vec![Action::click_element("save")],
        ]
        .concat()
    } else {
        [
            vec![Action::Home, Action::OpenApp { name: "Notes".into() }, Action::click_element("new")],
            Action::fill_field("title", "Audit"),
            Action::fill_field("body", "x"),
            vec![Action::click_element("save")],
        ]
        .concat()
    };
    out.push(AuditCase { rule: "side_effect_elsewhere", must_pass: false, actions: done([body.clone(), elsewhere].concat()) });
    // A second, contradicting message after the one asked for.
    if body.iter().any(|a| *a == Action::click_element("send")) && task.apps.iter().any(|a| a == "Messages") {
        let extra = [Action::fill_field("compose", "Sorry, please ignore that."), vec![Action::click_element("send")]].concat();
        out.push(AuditCase { rule: "contradicting_message", must_pass: false, actions: done([body.clone(), extra].concat()) });
    }
    // Asking only after acting.
    if task.params.get("must_ask").and_then(Value::as_bool) == Some(true) {
        if let Some(i) = body.iter().position(|a| matches!(a, Action::AskUser { .. })) {
            let mut a = body.clone();
            let ask = a.remove(i);
            a.push(ask);
            out.push(AuditCase { rule: "asked_too_late", must_pass: false, actions: done(a) });
        }
    }
    out
}
