//! Verifier building blocks: a state diff, the `Judge` that turns checks and allowed changes
//! into a verdict, and typed answer comparison.

use guigym_core::{Check, Verdict};
use serde_json::Value;

use crate::state::AppData;

/// Paths that change by merely looking (opening an email marks it read): never a side effect.
const BENIGN: &[&str] = &["emails/items/*/read"];

/// Every leaf path whose value differs between two app data snapshots. Maps compare by key,
/// arrays by index, so an appended message is one added path.
pub fn diff(before: &AppData, after: &AppData) -> Vec<String> {
    let a = serde_json::to_value(before).unwrap_or(Value::Null);
    let b = serde_json::to_value(after).unwrap_or(Value::Null);
    let mut out = Vec::new();
    diff_values(&a, &b, String::new(), &mut out);
    out
}

fn diff_values(a: &Value, b: &Value, path: String, out: &mut Vec<String>) {
    let join = |k: &str| if path.is_empty() { k.to_string() } else { format!("{path}/{k}") };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(va), Some(vb)) => diff_values(va, vb, join(k), out),
                    _ => out.push(join(k)),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                match (x.get(i), y.get(i)) {
                    (Some(va), Some(vb)) => diff_values(va, vb, join(&i.to_string()), out),
                    _ => out.push(join(&i.to_string())),
                }
            }
        }
        _ if a != b => out.push(path),
        _ => {}
    }
}

/// Whether `path` lies under `pattern` (segments, `*` matches one segment).
fn under(path: &str, pattern: &str) -> bool {
    let mut p = path.split('/');
    for want in pattern.split('/') {
        match p.next() {
            Some(seg) if want == "*" || want == seg => {}
            _ => return false,
        }
    }
    true
}

/// Collects named checks and the changes a task allows, then judges.
pub struct Judge<'a> {
    pub initial: &'a AppData,
    pub last: &'a AppData,
    checks: Vec<Check>,
    allowed: Vec<String>,
}

impl<'a> Judge<'a> {
    pub fn new(initial: &'a AppData, last: &'a AppData) -> Judge<'a> {
        Judge { initial, last, checks: Vec::new(), allowed: Vec::new() }
    }

    pub fn check(&mut self, name: &str, passed: bool, detail: impl Into<String>) -> bool {
        self.checks.push(Check::new(name, passed, if passed { String::new() } else { detail.into() }));
        passed
    }

    /// Changes at or under this path are part of the task.
    pub fn allow(&mut self, prefix: impl Into<String>) {
        self.allowed.push(prefix.into());
    }

    pub fn finish(self) -> Verdict {
        let side_effects = diff(self.initial, self.last)
            .into_iter()
            .filter(|p| !self.allowed.iter().chain(BENIGN.iter().map(|s| s.to_string()).collect::<Vec<_>>().iter()).any(|a| under(p, a)))
            .collect();
        Verdict::from_checks(self.checks, side_effects)
    }
}

/// Ids present after but not before.
pub fn new_ids<T>(before: &crate::state::Table<T>, after: &crate::state::Table<T>) -> Vec<u32> {
    after.items.keys().filter(|k| !before.items.contains_key(k)).copied().collect()
}

/// Whether an answer names the time of day `minutes` (after midnight), in any spelling.
pub fn answer_is_time(answer: &str, minutes: i64) -> bool {
    let found = crate::time::times_in_text(answer);
    !found.is_empty() && found.iter().all(|t| *t == minutes)
}

/// Whether an answer is the phone number: same digits, a missing country code allowed.
pub fn answer_is_phone(answer: &str, phone: &str) -> bool {
    let (a, p) = (crate::digits(answer), crate::digits(phone));
    a.len() >= 7 && (a == p || p.ends_with(&a) && p.len() - a.len() <= 3)
}

/// Whether an answer is the name (case and spacing ignored; the first name alone is not enough).
pub fn answer_is_name(answer: &str, name: &str) -> bool {
    crate::normalize(answer) == crate::normalize(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_segments() {
        assert!(under("contacts/items/3/phone", "contacts/items/3"));
        assert!(!under("contacts/items/31/phone", "contacts/items/3"));
        assert!(under("emails/items/7/read", "emails/items/*/read"));
        assert!(!under("emails/items/7/folder", "emails/items/*/read"));
    }

    #[test]
    fn typed_answers() {
        assert!(answer_is_time("It starts at 2:30 PM.", 870));
        assert!(answer_is_time("14:30", 870));
        assert!(!answer_is_time("14:00", 870));
        assert!(!answer_is_time("either 14:30 or 15:00", 870), "hedging is not an answer");
        assert!(!answer_is_time("half past two", 870));
        assert!(answer_is_phone("555 123 4567", "+1 555 123 4567"));
        assert!(answer_is_phone("+1-555-123-4567", "+1 555 123 4567"));
        assert!(!answer_is_phone("555 123 4568", "+1 555 123 4567"));
        assert!(!answer_is_phone("4567", "+1 555 123 4567"));
        assert!(answer_is_name(" ana  RUIZ", "Ana Ruiz"));
        assert!(!answer_is_name("Ana", "Ana Ruiz"));
    }
}
