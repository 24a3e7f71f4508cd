//! `check_direct_json_object`: a getter's object (or its text, read as JSON the way OSWorld
//! reads it: single quotes made double) against the rule's expected keys, compared with
//! Python's equality (`1 == 1.0 == True`) and, under `ignore_list_order`, Python's ordering.
//! OSWorld's metric swallows its own errors as 0, so a rule of the wrong shape scores 0 too.

use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::score;

/// Two numbers in order, exactly where both are integers (Python's ints have no rounding).
fn number_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    let int = |v: &Value| match v {
        Value::Bool(b) => Some(i128::from(*b)),
        Value::Number(n) => n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from)),
        _ => None,
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => number(a)?.partial_cmp(&number(b)?),
    }
}

/// Python's `==` on JSON values.
pub(super) fn py_eq(a: &Value, b: &Value) -> bool {
    match (number(a), number(b)) {
        (Some(_), Some(_)) => return number_cmp(a, b) == Some(Ordering::Equal),
        (Some(_), None) | (None, Some(_)) => return false,
        _ => {}
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w))),
        _ => false,
    }
}

/// A number as Python compares it (a bool is 0 or 1).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

/// Python's `<` ordering where it is defined (numbers, strings, lists of such); `None` where
/// Python raises TypeError.
pub(super) fn py_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    if number(a).is_some() && number(b).is_some() {
        return number_cmp(a, b);
    }
    match (a, b) {
        // Python compares strings by code points, as Rust compares `str`s.
        (Value::String(x), Value::String(y)) => Some(x.as_str().cmp(y.as_str())),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                if !py_eq(p, q) {
                    return py_cmp(p, q);
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => None,
    }
}

/// Python's `sorted`; `None` where it raises (a value that is no list, items that do not
/// compare).
fn py_sorted(v: &Value) -> Option<Vec<Value>> {
    let mut items = match v {
        Value::Array(a) => a.clone(),
        Value::String(s) => s.chars().map(|c| Value::String(c.to_string())).collect(),
        Value::Object(o) => o.keys().map(|k| Value::String(k.clone())).collect(),
        _ => return None,
    };
    for w in items.windows(2) {
        py_cmp(&w[0], &w[1])?;
    }
    if items.iter().any(|x| items.iter().any(|y| py_cmp(x, y).is_none())) {
        return None;
    }
    items.sort_by(|x, y| py_cmp(x, y).unwrap_or(Ordering::Equal));
    Some(items)
}

/// Python's truth of a value (`if not x`).
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Python's `x in container`; `None` where it raises.
fn py_in(x: &Value, container: &Value) -> Option<bool> {
    match container {
        Value::Array(a) => Some(a.iter().any(|y| py_eq(x, y))),
        Value::String(s) => x.as_str().map(|x| s.contains(x)),
        Value::Object(o) => match x {
            Value::String(k) => Some(o.contains_key(k)),
            Value::Array(_) | Value::Object(_) => None,
            _ => Some(false),
        },
        _ => None,
    }
}

/// The result as OSWorld's metric reads it: a text is stripped, its single quotes made double,
/// and parsed as JSON (`None`: it is no JSON, where OSWorld raises; ours scores 0).
fn result_object(result: Option<Value>) -> Option<Value> {
    match result? {
        Value::String(s) => serde_json::from_str(&s.trim_matches(|c: char| c.is_whitespace()).replace('\'', "\"")).ok(),
        other => Some(other),
    }
}

pub fn check_direct_json_object(result: Option<Value>, rules: &Value) -> f64 {
    let Some(result) = result_object(result).filter(|r| !r.is_null()) else { return 0.0 };
    let Value::Object(rules) = rules else { return 0.0 };
    let expected = rules.get("expected");
    if let Some(e) = expected.filter(|e| truthy(e)) {
        let Value::Object(e) = e else { return 0.0 };
        if e.values().any(|v| v.as_str() == Some("__EVALUATION_FAILED__")) {
            return 0.0;
        }
    }
    let Some(Value::Object(expected)) = expected else { return 0.0 };
    // Nothing expected passes any result; otherwise the result must be an object to look in.
    let empty = Map::new();
    let result = match &result {
        Value::Object(r) => r,
        _ if expected.is_empty() => &empty,
        _ => return 0.0,
    };
    let in_result = rules.get("expect_in_result").is_some_and(truthy);
    score(if in_result { expected_in_result(expected, result) } else { expected_equal(expected, result) }.unwrap_or(false))
}

/// Every expected key's value equals the result's (as sorted lists under `ignore_list_order`,
/// which is itself one of the keys compared, as in OSWorld).
fn expected_equal(expected: &Map<String, Value>, result: &Map<String, Value>) -> Option<bool> {
    let unordered = expected.get("ignore_list_order").is_some_and(truthy);
    for (key, want) in expected {
        let got = result.get(key).unwrap_or(&Value::Null);
        let same = if unordered {
            let (w, g) = (py_sorted(want)?, py_sorted(got)?);
            w.len() == g.len() && w.iter().zip(&g).all(|(a, b)| py_eq(a, b))
        } else {
            py_eq(want, got)
        };
        if !same {
            return Some(false);
        }
    }
    Some(true)
}

/// For each expected key: one of its listed values is in (or equals) the result's, or its
/// string is in the result's.
fn expected_in_result(expected: &Map<String, Value>, result: &Map<String, Value>) -> Option<bool> {
    for (key, want) in expected {
        let got = result.get(key).unwrap_or(&Value::Null);
        let found = match want {
            Value::Array(choices) => choices.iter().any(|c| match got {
                Value::Array(items) => items.iter().any(|i| py_eq(c, i)),
                Value::String(s) => c.as_str() == Some(s.as_str()),
                _ => false,
            }),
            Value::String(_) => py_in(want, got)?,
            _ => false,
        };
        if !found {
            return Some(false);
        }
    }
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_compare_as_python_compares_them() {
        let rules = json!({"expected": {"a": 1, "b": ["x", "y"]}});
        assert_eq!(check_direct_json_object(Some(json!({"a": 1.0, "b": ["x", "y"], "c": 0})), &rules), 1.0);
        assert_eq!(check_direct_json_object(Some(json!({"a": true, "b": ["x", "y"]})), &rules), 1.0);
        assert_eq!(check_direct_json_object(Some(json!({"a": 1, "b": ["y", "x"]})), &rules), 0.0);
        assert_eq!(check_direct_json_object(Some(json!(" {'a': 1, 'b': ['x', 'y']}\n")), &rules), 1.0);
        assert_eq!(check_direct_json_object(Some(json!("not json")), &rules), 0.0);
        assert_eq!(check_direct_json_object(None, &rules), 0.0);
        let contains = json!({"expect_in_result": true, "expected": {"title": "Cat", "tags": ["a", "z"]}});
        assert_eq!(check_direct_json_object(Some(json!({"title": "Cats & dogs", "tags": ["z"]})), &contains), 1.0);
        assert_eq!(check_direct_json_object(Some(json!({"title": "Dogs", "tags": ["z"]})), &contains), 0.0);
        assert_eq!(check_direct_json_object(Some(json!({"a": 1})), &json!({"expected": {"a": "__EVALUATION_FAILED__"}})), 0.0);
        // `ignore_list_order` is a key of its own, and sorted(True) raises in OSWorld: 0.
        assert_eq!(check_direct_json_object(Some(json!({"b": [2, 1]})), &json!({"expected": {"b": [1, 2], "ignore_list_order": true}})), 0.0);
    }
}
