//! Families as data: a name, a kind, its apps, a generator and a golden. The verifier is
//! the same for every such family: the golden applied to the initial state says what the
//! final state must be (`judge::expected_checks`), and the task's parameters say what the
//! episode log must hold:
//!
//! - `answer: {kind, value}` — the last `answer` must state the value, compared by type
//!   (`money` in cents, `number`, `date` as a day's minute, `duration` in minutes, `time`,
//!   `phone`, `place`, `name`, `text`);
//! - `free_text: {field, kind}` — the text the golden writes into `field` (a message's
//!   `text`) is the bare fact, and the agent's text there may say it in a sentence or another
//!   format: it is judged like an answer of `kind` (`time`, `place`, …) against the golden's;
//! - `infeasible: true` — the episode must end with `terminate(infeasible)`, nothing changed;
//! - `user_reply` with `must_ask: true` — the agent must have asked (the reply is what the
//!   environment answers to `ask_user`, and holds a fact the instruction leaves out).

use guigym_core::{Check, Rng, TerminateStatus, Verdict};
use serde_json::{json, Value};

use super::answer;
use super::judge::expected_checks;
use super::{Draft, EpisodeLog, Family, FamilyKind};
use guigym_phone::state::DeviceState;
use guigym_phone::world::World;

pub struct Spec {
    pub name: &'static str,
    pub kind: FamilyKind,
    pub apps: &'static [&'static str],
    pub generate: fn(&World, &DeviceState, &mut Rng) -> Option<Draft>,
    /// The task's change to the app data (nothing for retrieval and infeasible tasks).
    pub golden: fn(&Value, &mut DeviceState),
}

/// A golden for tasks that change nothing.
pub fn no_change(_: &Value, _: &mut DeviceState) {}

impl Family for Spec {
    fn name(&self) -> &'static str {
        self.name
    }
    fn kind(&self) -> FamilyKind {
        self.kind
    }
    fn apps(&self) -> &'static [&'static str] {
        self.apps
    }
    fn generate(&self, world: &World, state: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        (self.generate)(world, state, rng)
    }
    fn golden(&self, params: &Value, state: &mut DeviceState, log: &mut EpisodeLog) {
        (self.golden)(params, state);
        if params.get("must_ask").and_then(Value::as_bool) == Some(true) {
            log.questions.push("asked".into());
        }
        if let Some(a) = params.get("answer") {
            log.answers.push(answer_text(a));
        }
        if params.get("infeasible").and_then(Value::as_bool) == Some(true) {
            log.terminated = Some(TerminateStatus::Infeasible);
        }
    }
    fn verify(&self, params: &Value, initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict {
        let mut expected = initial.clone();
        (self.golden)(params, &mut expected);
        let ordered = params.get("ordered").and_then(Value::as_bool) == Some(true);
        let json = |s: &DeviceState| serde_json::to_value(&s.data).unwrap_or(Value::Null);
        let (initial_data, expected_data, mut last_data) = (json(initial), json(&expected), json(last));
        if let Some(rule) = params.get("free_text") {
            accept_free_text(rule, &initial_data, &expected_data, &mut last_data, initial);
        }
        let (mut checks, side_effects) = expected_checks(&initial_data, &expected_data, &last_data, ordered);
        if params.get("must_ask").and_then(Value::as_bool) == Some(true) {
            checks.push(Check::new("asked_user", !log.questions.is_empty(), "the task leaves out a detail only the user knows: ask_user"));
        }
        if let Some(a) = params.get("answer") {
            let got = log.answers.last().map(String::as_str);
            let ok = got.is_some_and(|g| answer_matches(a, g, &rivals(a, initial), initial.now()));
            checks.push(Check::new("answer", ok, format!("expected {}, answered {:?}", answer_text(a), got.unwrap_or("nothing"))));
        }
        if params.get("infeasible").and_then(Value::as_bool) == Some(true) {
            let ok = log.terminated == Some(TerminateStatus::Infeasible);
            checks.push(Check::new("reported_infeasible", ok, format!("ended with {:?}", log.terminated)));
        }
        if checks.is_empty() {
            checks.push(Check::new("params", false, "task parameters ask for nothing"));
        }
        Verdict::from_checks(checks, side_effects)
    }
}

/// Where the golden wrote the bare fact into a free-text field (`rule.field`), the agent's
/// text there stands for the golden's when it states that fact the way an answer of
/// `rule.kind` must (in a sentence, in another format, with no rival value). Only text the
/// episode changed is read; everything else is compared as usual.
fn accept_free_text(rule: &Value, initial: &Value, expected: &Value, last: &mut Value, state: &DeviceState) {
    let field = str_param(rule, "field");
    let kind = str_param(rule, "kind");
    let golden: Vec<String> = changed_fields(initial, expected, field).into_iter().filter_map(|p| expected.pointer(&p)?.as_str().map(String::from)).collect();
    for pointer in changed_fields(initial, last, field) {
        let Some(Value::String(text)) = last.pointer(&pointer) else { continue };
        if golden.iter().any(|g| guigym_phone::normalize(g) == guigym_phone::normalize(text)) {
            continue;
        }
        let fact = golden.iter().find(|g| {
            let want = json!({ "kind": kind, "value": fact_value(kind, g) });
            answer_matches(&want, text, &rivals(&want, state), state.now())
        });
        if let (Some(fact), Some(slot)) = (fact.cloned(), last.pointer_mut(&pointer)) {
            *slot = Value::String(fact);
        }
    }
}

/// The JSON pointers of the strings under key `field` that differ between `a` and `b`
/// (inside new items too).
fn changed_fields(a: &Value, b: &Value, field: &str) -> Vec<String> {
    fn strings(v: &Value, pointer: String, key: &str, field: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, v)| strings(v, format!("{pointer}/{k}"), k, field, out)),
            Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| strings(v, format!("{pointer}/{i}"), key, field, out)),
            Value::String(_) if key == field => out.push(pointer),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for path in super::judge::diff_json(a, b) {
        let pointer = format!("/{path}");
        let key = path.rsplit('/').next().unwrap_or("");
        if let Some(v) = b.pointer(&pointer) {
            strings(v, pointer, key, field, &mut out);
        }
    }
    out.dedup();
    out
}

/// A golden's bare fact as the value of an answer of `kind`.
fn fact_value(kind: &str, text: &str) -> Value {
    match kind {
        "time" => json!(guigym_phone::time::times_in_text(text).first()),
        "money" => json!(guigym_phone::parse_money(text)),
        "number" => json!(text.trim().parse::<f64>().ok()),
        _ => json!(text),
    }
}

/// The values an answer must not also name: for a place, the world's other places; for a
/// name or title, all the world's names and titles.
fn rivals(a: &Value, state: &DeviceState) -> Vec<String> {
    let all = match a["kind"].as_str() {
        Some("place") => entity_names(state, &PLACE_KEYS),
        _ => entity_names(state, &ENTITY_KEYS),
    };
    // What the question is about may be named in the answer without competing with it.
    let about: Vec<String> = a["about"].as_array().into_iter().flatten().filter_map(|v| v.as_str()).map(guigym_phone::normalize).collect();
    all.into_iter().filter(|n| !about.contains(&guigym_phone::normalize(n))).collect()
}

const ENTITY_KEYS: [&str; 10] = ["name", "title", "artist", "album", "author", "label", "location", "place", "subject", "restaurant"];
const PLACE_KEYS: [&str; 4] = ["location", "place", "destination", "restaurant"];

/// The expected answer, written the way the golden answers.
pub fn answer_text(a: &Value) -> String {
    let v = &a["value"];
    match a["kind"].as_str().unwrap_or("") {
        "money" => guigym_phone::money(v.as_i64().unwrap_or(0)),
        "date" => guigym_phone::time::date_iso(v.as_i64().unwrap_or(0)),
        "time" => guigym_phone::time::time_hm(v.as_i64().unwrap_or(0)),
        "duration" => format!("{} min", v.as_i64().unwrap_or(0)),
        _ => match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
    }
}

/// Compares an answer by the expected value's type, by candidates (`tasks::answer`): the
/// expected value must be among the answer's values of that type, and no other may be.
/// `others` are the world's names and titles, the rivals of a name or title.
pub fn answer_matches(a: &Value, got: &str, others: &[String], now: guigym_phone::time::Minutes) -> bool {
    let v = &a["value"];
    match a["kind"].as_str().unwrap_or("") {
        "money" => {
            // A payment the user made, told as one received, is the wrong story.
            let direction_ok = a["direction"].as_str() != Some("out") || !answer::tells_incoming(got);
            direction_ok && v.as_i64().is_some_and(|c| answer::is_money(got, c))
        }
        "number" => v.as_f64().is_some_and(|n| answer::is_amount(got, n, a["unit"].as_str())),
        "date" => v.as_i64().is_some_and(|d| answer::is_date(got, d)),
        "time" => {
            // With the day it falls on, any day the answer mentions must be that one.
            let day_ok = a["day"].as_i64().is_none_or(|d| answer::days_agree(got, d, now));
            day_ok && v.as_i64().is_some_and(|t| answer::is_time(got, t.rem_euclid(guigym_phone::time::DAY)))
        }
        "duration" => v.as_i64().is_some_and(|m| answer::is_duration(got, m)),
        "phone" => v.as_str().is_some_and(|p| answer::is_phone(got, p)),
        _ => match v.as_str() {
            // A code (door codes, order numbers) is a run of digits.
            Some(code) if !code.is_empty() && code.chars().all(|c| c.is_ascii_digit()) => answer::is_code(got, code),
            Some(name) => answer::is_entity(got, name, others),
            None => false,
        },
    }
}

/// The names and titles in a world's app data under these keys (people, songs, artists,
/// events, places, notes…): what a name or title answer could be confused with.
pub fn entity_names(state: &DeviceState, keys: &[&str]) -> Vec<String> {
    fn walk(v: &Value, key: &str, keys: &[&str], out: &mut Vec<String>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, v)| walk(v, k, keys, out)),
            Value::Array(a) => a.iter().for_each(|v| walk(v, key, keys, out)),
            Value::String(s) if s.chars().count() <= 60 && keys.contains(&key) => out.push(s.clone()),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&serde_json::to_value(&state.data).unwrap_or(Value::Null), "", keys, &mut out);
    out.sort();
    out.dedup();
    out
}

/// Reads a task parameter, or the default of its type when the task lacks it (a verifier
/// then fails its checks instead of panicking).
pub fn str_param<'a>(p: &'a Value, key: &str) -> &'a str {
    p.get(key).and_then(Value::as_str).unwrap_or("")
}

pub fn int_param(p: &Value, key: &str) -> i64 {
    p.get(key).and_then(Value::as_i64).unwrap_or(0)
}

pub fn id_param(p: &Value, key: &str) -> u32 {
    p.get(key).and_then(Value::as_u64).unwrap_or(0) as u32
}

pub fn draft(instruction: String, params: Value, walkthrough: Vec<guigym_core::Action>) -> Option<Draft> {
    Some(Draft { instruction, params, walkthrough })
}

/// A walkthrough, written the way a person would describe it.
#[derive(Default)]
pub struct Walk(Vec<guigym_core::Action>);

impl Walk {
    pub fn new() -> Walk {
        Walk::default()
    }
    /// From anywhere: home, then the app's icon.
    pub fn open(mut self, app: &str) -> Walk {
        if !self.0.is_empty() {
            self.0.push(guigym_core::Action::Home);
        }
        self.tap(format!("app:{app}"))
    }
    pub fn tap(mut self, id: impl Into<String>) -> Walk {
        self.0.push(guigym_core::Action::click_element(id));
        self
    }
    /// Taps a field, then types (replacing what it held).
    pub fn fill(self, field: &str, text: &str) -> Walk {
        let mut w = self.tap(field);
        w.0.push(guigym_core::Action::Type { text: text.to_string(), element: None, clear: true });
        w
    }
    pub fn answer(mut self, text: impl Into<String>) -> Walk {
        self.0.push(guigym_core::Action::Answer { text: text.into() });
        self
    }
    pub fn ask(mut self, question: &str) -> Walk {
        self.0.push(guigym_core::Action::AskUser { text: question.to_string() });
        self
    }
    pub fn back(mut self) -> Walk {
        self.0.push(guigym_core::Action::Back);
        self
    }
    pub fn done(mut self) -> Vec<guigym_core::Action> {
        self.0.push(guigym_core::Action::Terminate { status: TerminateStatus::Success });
        self.0
    }
    pub fn infeasible(mut self) -> Vec<guigym_core::Action> {
        self.0.push(guigym_core::Action::Terminate { status: TerminateStatus::Infeasible });
        self.0
    }
}
