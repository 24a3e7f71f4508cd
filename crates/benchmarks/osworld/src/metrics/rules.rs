//! OSWorld's `_match_value_to_rule` (its `utils.py`): a value read from the agent's state
//! against a rule of a method and a reference (`eq`, `lt`, `re.I`, `approx:0.01`, `range.te`,
//! `str_set_eq`, …). The Thunderbird preferences and `compare_table`'s `check_cell` use it.

use std::cmp::Ordering;

use serde_json::Value;

use super::objects::{py_cmp, py_eq};
use super::python_space;

/// Why a rule could not be answered: the agent's file (a 0) or the task's rule (an error).
pub(super) enum Raise {
    Agent,
    Task(String),
}

/// OSWorld's `_match_value_to_rule`: `value` (from the agent's file) against `{"method", "ref"}`.
pub(super) fn match_value_to_rule(value: &Value, rule: &Value) -> Result<bool, Raise> {
    let task = |why: &str| Raise::Task(format!("the rule {rule}: {why}"));
    let method = rule.get("method").and_then(Value::as_str).ok_or_else(|| task("no method"))?;
    let reference = || rule.get("ref").ok_or_else(|| task("no ref"));
    let ordered = |a: &Value, b: &Value, wanted: &[Ordering]| py_cmp(a, b).map(|o| wanted.contains(&o)).ok_or(Raise::Agent);
    let order = |op: &str| match op {
        "lt" | "t" => Some(&[Ordering::Less][..]),
        "le" | "e" => Some(&[Ordering::Less, Ordering::Equal][..]),
        "gt" => Some(&[Ordering::Greater][..]),
        "ge" => Some(&[Ordering::Greater, Ordering::Equal][..]),
        _ => None,
    };
    if let Some(flags) = method.strip_prefix("re") {
        let source = reference()?.as_str().ok_or_else(|| task("ref is not a pattern"))?;
        let mut inline = String::new();
        for flag in flags.split('.').skip(1) {
            match flag {
                "I" | "IGNORECASE" => inline.push('i'),
                "M" | "MULTILINE" => inline.push('m'),
                "S" | "DOTALL" => inline.push('s'),
                "X" | "VERBOSE" => inline.push('x'),
                "U" | "UNICODE" => {}
                other => return Err(task(&format!("re flag {other} is not supported"))),
            };
        }
        // Read as Python reads it (`\Z`), the flags given inline.
        let flagged = if inline.is_empty() { source.to_string() } else { format!("(?{inline}){source}") };
        let pattern = super::chrome::python_regex(&flagged, "_match_value_to_rule").map_err(|e| task(&e))?;
        // `re.search` on anything but text raises.
        let text = value.as_str().ok_or(Raise::Agent)?;
        // Python's `$` also matches before a final line end (a cell's text ending in a line
        // break); Rust's matches at the very end only, so the text is tried without it too.
        let before_final_newline = source.contains('$') && text.strip_suffix('\n').is_some_and(|t| pattern.is_match(t));
        return Ok(pattern.is_match(text) || before_final_newline);
    }
    match method {
        "eq" => Ok(py_eq(value, reference()?)),
        "ne" => Ok(!py_eq(value, reference()?)),
        "lt" | "le" | "gt" | "ge" => ordered(value, reference()?, order(method).unwrap_or_default()),
        m if m.starts_with("approx") => {
            let threshold: f64 = m.split(':').nth(1).and_then(python_float).ok_or_else(|| task("no threshold after approx:"))?;
            // `abs(value - ref)`: a bool is a number to Python.
            let reference = match reference()? {
                Value::Bool(b) => f64::from(u8::from(*b)),
                other => other.as_f64().ok_or_else(|| task("ref is not a number"))?,
            };
            // `float(value)`, and False where Python cannot make one.
            let number = match value {
                Value::Bool(b) => Some(f64::from(u8::from(*b))),
                Value::Number(n) => n.as_f64(),
                Value::String(s) => python_float(s),
                _ => None,
            };
            Ok(number.is_some_and(|v| (v - reference).abs() <= threshold))
        }
        // `range.te`: ref[0] < value <= ref[1], one letter a side (t: <, e: <=).
        m if m.starts_with("range.") => {
            let sides: Vec<char> = m.chars().skip(6).take(2).collect();
            let (Some(left), Some(right)) = (sides.first().and_then(|c| order(&c.to_string())), sides.get(1).and_then(|c| order(&c.to_string()))) else {
                return Err(task("a range method is range. and two of t, e"));
            };
            let bounds = reference()?.as_array().filter(|b| b.len() >= 2).ok_or_else(|| task("ref is not two bounds"))?;
            Ok(ordered(&bounds[0], value, left)? && ordered(value, &bounds[1], right)?)
        }
        "str_list_eq" | "str_set_eq" => {
            let text = value.as_str().ok_or(Raise::Agent)?;
            let got: Vec<Value> = text.trim_matches(['"', '\'']).split(',').map(|s| Value::String(s.into())).collect();
            // `list(ref)` / `set(ref)`: a text's characters, an object's keys, a list's items;
            // anything else raises, as does a set of lists or objects.
            let want: Vec<Value> = match reference()? {
                Value::String(s) => s.chars().map(|c| Value::String(c.to_string())).collect(),
                Value::Object(o) => o.keys().map(|k| Value::String(k.clone())).collect(),
                Value::Array(a) => a.clone(),
                _ => return Err(task("ref is not a list, a text or an object")),
            };
            if method == "str_list_eq" {
                return Ok(got.len() == want.len() && got.iter().zip(&want).all(|(a, b)| py_eq(a, b)));
            }
            if want.iter().any(|v| v.is_array() || v.is_object()) {
                return Err(task("a set of lists or objects"));
            }
            Ok(got.iter().all(|g| want.iter().any(|w| py_eq(g, w))) && want.iter().all(|w| got.iter().any(|g| py_eq(g, w))))
        }
        other => Err(task(&format!("method {other} is not supported"))),
    }
}

/// `match_value_to_rule` where an agent's value that makes OSWorld raise matches nothing (a 0);
/// the task's broken rule stays an error.
pub(super) fn match_or_false(value: &Value, rule: &Value) -> Result<bool, String> {
    match match_value_to_rule(value, rule) {
        Ok(hit) => Ok(hit),
        Err(Raise::Agent) => Ok(false),
        Err(Raise::Task(e)) => Err(e),
    }
}

/// Python's `float(text)` for the forms a preference holds: blanks around a decimal number,
/// `inf`, `nan`.
pub(super) fn python_float(text: &str) -> Option<f64> {
    let trimmed = text.trim_matches(python_space);
    // Python takes `_` only between two digits.
    let chars: Vec<char> = trimmed.chars().collect();
    let between_digits = |i: usize| i > 0 && chars[i - 1].is_ascii_digit() && chars.get(i + 1).is_some_and(char::is_ascii_digit);
    if chars.iter().enumerate().any(|(i, c)| *c == '_' && !between_digits(i)) {
        return None;
    }
    let t = trimmed.replace('_', "");
    if t.is_empty() {
        return None;
    }
    let lower = t.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if ["inf", "infinity", "nan"].contains(&unsigned) {
        let v = if unsigned == "nan" { f64::NAN } else { f64::INFINITY };
        return Some(if lower.starts_with('-') { -v } else { v });
    }
    if !t.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c)) {
        return None;
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_floats() {
        assert_eq!(python_float(" 1.5 "), Some(1.5));
        assert_eq!(python_float("1_000"), Some(1000.0));
        // `_` only between two digits, as Python's float() takes it.
        assert_eq!(python_float("360_.0"), None);
        assert_eq!(python_float("_1"), None);
        assert_eq!(python_float("1__0"), None);
        assert_eq!(python_float("-inf"), Some(f64::NEG_INFINITY));
        assert_eq!(python_float("0x10"), None);
        assert_eq!(python_float(""), None);
    }

    #[test]
    fn a_dollar_matches_before_a_final_line_end_as_in_python() {
        let rule = serde_json::json!({"method": "re", "ref": "line$"});
        assert!(matches!(match_value_to_rule(&Value::String("line\n".into()), &rule), Ok(true)));
        assert!(matches!(match_value_to_rule(&Value::String("line\n\n".into()), &rule), Ok(false)));
        assert!(matches!(match_value_to_rule(&Value::String("lines".into()), &rule), Ok(false)));
    }
}
