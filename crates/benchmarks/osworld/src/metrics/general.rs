//! OSWorld's file metrics of `general.py` that read text and JSON: `check_json` (rules on the
//! values at key paths of a JSON file) and `diff_text_file` (difflib's similarity of two files'
//! lines).

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::lines::python_text;
use super::rules::{match_value_to_rule, Raise};
use super::table::python_splitlines;
use super::{score, utf8_file};

/// `check_json`: every `expect` rule (`{"key": [path], "method", "ref"}`) matches the value at
/// its key path, and no `unexpect` rule does (a path that is not there gives `None` there).
/// A file that is missing or not JSON scores 0, as a path missing under `expect` does. YAML
/// (`is_yaml`) is refused at import (`import::metric_unsupported`).
pub fn check_json(file: Option<&Path>, rules: &Value) -> Result<f64, String> {
    let Some(text) = utf8_file(file) else { return Ok(0.0) };
    // Python's json.load takes NaN and Infinity too; serde_json does not (a 0 where OSWorld
    // would read on: such files are not what these tasks' applications write).
    let Ok(data) = serde_json::from_str::<Value>(&text) else { return Ok(0.0) };
    let list = |name: &str| -> Vec<Value> {
        match rules.get(name) {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        }
    };
    let mut metric = true;
    for rule in list("expect") {
        let value = match at_path(&data, rule.get("key"))? {
            Step::Found(v) => v,
            // OSWorld returns 0 at once, whatever the other rules say.
            Step::Missing | Step::Raised => return Ok(0.0),
        };
        // `metric and match(...)`: once false, later rules are not matched (nor raise).
        if metric {
            metric = match match_value_to_rule(&value, &rule) {
                Ok(hit) => hit,
                Err(Raise::Agent) => return Ok(0.0),
                Err(Raise::Task(e)) => return Err(e),
            };
        }
    }
    for rule in list("unexpect") {
        let value = match at_path(&data, rule.get("key"))? {
            Step::Found(v) => v,
            Step::Missing => Value::Null,
            Step::Raised => return Ok(0.0),
        };
        if metric {
            metric = match match_value_to_rule(&value, &rule) {
                Ok(hit) => !hit,
                Err(Raise::Agent) => return Ok(0.0),
                Err(Raise::Task(e)) => return Err(e),
            };
        }
    }
    Ok(score(metric))
}

/// Where a key path led: a value, a key Python's `value[k]` misses (`KeyError`, `TypeError`),
/// or another error it raises there (an index out of range).
enum Step {
    Found(Value),
    Missing,
    Raised,
}

/// `value[k]` for each `k` of the rule's `key` list, as Python indexes what `json.load` gave.
fn at_path(data: &Value, key: Option<&Value>) -> Result<Step, String> {
    let keys = match key {
        Some(Value::Array(keys)) => keys.as_slice(),
        // A text key is iterated by character in Python; such a rule is the task's mistake.
        _ => return Err(format!("check_json: a rule's key must be a list of keys, not {}", key.unwrap_or(&Value::Null))),
    };
    let mut value = data;
    for (n, k) in keys.iter().enumerate() {
        value = match (value, k) {
            (Value::Object(map), Value::String(k)) => match map.get(k) {
                Some(v) => v,
                None => return Ok(Step::Missing),
            },
            // JSON objects have text keys only: a number, a bool or null is not among them; a
            // list or an object is not hashable (TypeError).
            (Value::Object(_), _) => return Ok(Step::Missing),
            (Value::Array(items), Value::Number(_) | Value::Bool(_)) => {
                let Some(index) = python_index(k) else { return Ok(beyond_index(k)) };
                let len = items.len() as i64;
                let at = if index < 0 { index + len } else { index };
                match usize::try_from(at).ok().and_then(|i| items.get(i)) {
                    Some(v) => v,
                    None => return Ok(Step::Raised),
                }
            }
            // Indexing a text gives one character (Python's str), which the next key or the
            // rule reads as a text.
            (Value::String(s), Value::Number(_) | Value::Bool(_)) => {
                let Some(index) = python_index(k) else { return Ok(beyond_index(k)) };
                let chars: Vec<char> = s.chars().collect();
                let len = chars.len() as i64;
                let at = if index < 0 { index + len } else { index };
                match usize::try_from(at).ok().and_then(|i| chars.get(i)) {
                    Some(c) => return finish(Value::String(c.to_string()), &keys[n + 1..]),
                    None => return Ok(Step::Raised),
                }
            }
            _ => return Ok(Step::Missing),
        };
    }
    Ok(Step::Found(value.clone()))
}

/// The rest of a key path below a value made on the way (a character of a text).
fn finish(value: Value, rest: &[Value]) -> Result<Step, String> {
    if rest.is_empty() {
        return Ok(Step::Found(value));
    }
    at_path(&value, Some(&Value::Array(rest.to_vec())))
}

/// A number that is no index: an integer past 64 bits is Python's IndexError (raised), a float
/// its TypeError (a key missed).
fn beyond_index(k: &Value) -> Step {
    match k.as_u64() {
        Some(_) => Step::Raised,
        None => Step::Missing,
    }
}

/// A key Python takes as a sequence index: an integer, or a bool (`True` is 1); a float is a
/// `TypeError`.
fn python_index(k: &Value) -> Option<i64> {
    match k {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}

/// `diff_text_file`: difflib's `SequenceMatcher(a=result_lines, b=expected_lines).ratio()`
/// over the two files' lines (Python's text mode and `splitlines`). A missing result scores 0;
/// a file Python cannot read as UTF-8 raises in OSWorld, a 0 here.
pub fn diff_text_file(result: Option<&Path>, expected: Option<&Path>) -> f64 {
    let read = |file: Option<&Path>| python_text(file).map(|t| python_splitlines(&t).into_iter().map(str::to_string).collect::<Vec<_>>());
    let (Some(a), Some(b)) = (read(result), read(expected)) else { return 0.0 };
    sequence_ratio(&a, &b)
}

/// difflib's `SequenceMatcher(None, a, b).ratio()`, autojunk on: 2·M / (|a| + |b|), M the
/// total size of the matching blocks difflib finds (the longest match first, then each side of
/// it); in a `b` of 200 items or more, an item found more than 1% + 1 times is "popular" and
/// starts no match, though matches extend over it.
pub fn sequence_ratio<T: Eq + std::hash::Hash>(a: &[T], b: &[T]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let mut b2j: HashMap<&T, Vec<usize>> = HashMap::new();
    for (j, item) in b.iter().enumerate() {
        b2j.entry(item).or_default().push(j);
    }
    if b.len() >= 200 {
        let most = b.len() / 100 + 1;
        b2j.retain(|_, places| places.len() <= most);
    }
    let mut matched = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest_match(a, b, &b2j, alo, ahi, blo, bhi);
        if k > 0 {
            matched += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    2.0 * matched as f64 / total as f64
}

/// difflib's `find_longest_match` without junk: the longest block of `a[alo..ahi]` equal to one
/// of `b[blo..bhi]` that starts on a non-popular item (earliest in `a`, then in `b`, on ties),
/// then extended on both sides over equal items.
fn longest_match<T: Eq + std::hash::Hash>(
    a: &[T],
    b: &[T],
    b2j: &HashMap<&T, Vec<usize>>,
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
) -> (usize, usize, usize) {
    let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0);
    // For the previous row of `a`: the length of the match ending at each `j`.
    let mut lengths: HashMap<usize, usize> = HashMap::new();
    for (i, item) in a.iter().enumerate().take(ahi).skip(alo) {
        let mut next = HashMap::new();
        for &j in b2j.get(item).map(Vec::as_slice).unwrap_or(&[]) {
            if j < blo {
                continue;
            }
            if j >= bhi {
                break;
            }
            let k = j.checked_sub(1).and_then(|p| lengths.get(&p)).copied().unwrap_or(0) + 1;
            next.insert(j, k);
            if k > bestsize {
                (besti, bestj, bestsize) = (i + 1 - k, j + 1 - k, k);
            }
        }
        lengths = next;
    }
    while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
        (besti, bestj, bestsize) = (besti - 1, bestj - 1, bestsize + 1);
    }
    while besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] == b[bestj + bestsize] {
        bestsize += 1;
    }
    (besti, bestj, bestsize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_ratio_is_difflibs() {
        let lines = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        // difflib.SequenceMatcher(a=..., b=...).ratio() in Python 3.11.
        assert_eq!(sequence_ratio(&lines("a b c d"), &lines("a b x d")), 0.75);
        assert_eq!(sequence_ratio::<String>(&[], &[]), 1.0);
        assert_eq!(sequence_ratio(&lines("a"), &lines("b")), 0.0);
        let a: Vec<char> = "abxcd".chars().collect();
        let b: Vec<char> = "abcd".chars().collect();
        assert!((sequence_ratio(&a, &b) - 8.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn key_paths_index_as_python_does() {
        let data: Value = serde_json::json!({"a": {"b": [10, "xyz"]}});
        let found = |path: Value| match at_path(&data, Some(&path)).unwrap() {
            Step::Found(v) => Some(v),
            _ => None,
        };
        assert_eq!(found(serde_json::json!(["a", "b", 0])), Some(serde_json::json!(10)));
        assert_eq!(found(serde_json::json!(["a", "b", -1, 1])), Some(serde_json::json!("y")));
        assert_eq!(found(serde_json::json!(["a", "b", true])), Some(serde_json::json!("xyz")));
        assert_eq!(found(serde_json::json!(["a", "c"])), None);
        assert!(matches!(at_path(&data, Some(&serde_json::json!(["a", "b", 5]))).unwrap(), Step::Raised));
        assert!(at_path(&data, Some(&serde_json::json!("a"))).is_err());
    }
}
