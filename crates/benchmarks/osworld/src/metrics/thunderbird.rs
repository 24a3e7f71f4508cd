//! OSWorld's Thunderbird metrics (its `thunderbird.py`): the profile's `prefs.js` against rules
//! of a method and a reference (OSWorld's `_match_value_to_rule`), the filters of a
//! `msgFilterRules.dat` against records, and two folders' message files. Each reads its file
//! line by line as Python's text mode does (`\r\n` and `\r` end lines too) and slices the
//! lines as OSWorld does, so a file an agent left odd scores as there.
//!
//! Where OSWorld raises on the agent's file (no UTF-8, a value that is not JSON, a rule method
//! that cannot compare what the file holds) the result scores 0; where it raises on the rule
//! (no `method`, a method it does not know) the task is in error.

use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value};

use super::objects::py_eq;
use super::rules::{match_value_to_rule, Raise};
use super::{python_space, score, utf8_file};

/// A file's lines as Python's text mode gives them: each with its `\n`, CRs read as line ends.
pub(super) fn python_lines(text: &str) -> Vec<String> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    text.split_inclusive('\n').map(str::to_string).collect()
}

/// `check_thunderbird_prefs`: every `expect` preference present with a value its rule accepts
/// (the last line of a key decides), and no `unexpect` preference with a value its rule accepts.
pub fn check_thunderbird_prefs(prefs: Option<&Path>, rule: &Value) -> Result<f64, String> {
    if prefs.is_none() {
        return Ok(0.0);
    }
    let Some(text) = utf8_file(prefs) else { return Ok(0.0) };
    let empty = Value::Object(Map::new());
    let (expect, unexpect) = (rule.get("expect").unwrap_or(&empty), rule.get("unexpect").unwrap_or(&empty));
    let (Some(expect), Some(unexpect)) = (expect.as_object(), unexpect.as_object()) else {
        return Err(format!("check_thunderbird_prefs: expect and unexpect must be objects in {rule}"));
    };
    let pattern = pref_pattern();
    let mut expected: Vec<(&String, bool)> = expect.keys().map(|k| (k, false)).collect();
    let mut clean = true;
    for line in python_lines(&text) {
        let Some(found) = pattern.captures(line.trim_matches(python_space)) else { continue };
        let key = &found["key"];
        // `json.loads` of the value: one that is not JSON raises on the agent's file.
        let Ok(value) = serde_json::from_str::<Value>(&found["val"]) else { return Ok(0.0) };
        let judged = if let Some(rule) = expect.get(key) {
            match_value_to_rule(&value, rule).map(|ok| {
                if let Some(slot) = expected.iter_mut().find(|(k, _)| k.as_str() == key) {
                    slot.1 = ok;
                }
            })
        } else if let Some(rule) = unexpect.get(key) {
            match_value_to_rule(&value, rule).map(|hit| clean = clean && !hit)
        } else {
            Ok(())
        };
        match judged {
            Ok(()) => {}
            Err(Raise::Agent) => return Ok(0.0),
            Err(Raise::Task(why)) => return Err(format!("check_thunderbird_prefs: {why}")),
        }
    }
    Ok(score(expected.iter().all(|(_, ok)| *ok) && clean))
}

fn pref_pattern() -> Regex {
    // OSWorld's pattern: a key of anything but quotes (or escaped ones), then the value.
    Regex::new(r#"^user_pref\("(?P<key>(?:[^"]|\\")+)", (?P<val>.+)\);$"#).unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"))
}

/// OSWorld's `_value_processor`: `\"` and `\\` unescaped, in that order.
fn unescape(value: &str) -> String {
    value.replace("\\\"", "\"").replace("\\\\", "\\")
}

/// Python's `line[start:-2]` on a line's characters.
fn slice(line: &str, start: usize) -> String {
    let chars: Vec<char> = line.chars().collect();
    let end = chars.len().saturating_sub(2);
    if start >= end {
        return String::new();
    }
    chars[start..end].iter().collect()
}

/// `check_thunderbird_filter`: every `expect` record matches some filter and no `unexpect`
/// record matches any. A filter counts once its `condition=` line is read (OSWorld appends it
/// then; later lines of the same filter still change it).
pub fn check_thunderbird_filter(rules_file: Option<&Path>, rules: &Value) -> Result<f64, String> {
    if rules_file.is_none() {
        return Ok(0.0);
    }
    let Some(text) = utf8_file(rules_file) else { return Ok(0.0) };
    let conditions = Regex::new(r#"\b(?:AND|OR) \((?:[\w ]+),(?:[\w ']+),(?:"(?:(?:[^"]|")+)"|(?:[^)]+))\)|\bALL\b"#)
        .unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"));
    let mut made: Vec<Map<String, Value>> = Vec::new();
    let mut listed: Vec<usize> = Vec::new();
    for line in python_lines(&text) {
        let field = [("name=", "name", 6), ("enabled=", "enabled", 9), ("type=", "type", 6), ("action=", "action", 8), ("actionValue=", "actionValue", 13)]
            .into_iter()
            .find(|(prefix, _, _)| line.starts_with(prefix));
        if let Some((prefix, key, start)) = field {
            if prefix == "name=" {
                made.push(Map::new());
            }
            // A field before any `name=` line: OSWorld's filter is not yet defined (it raises).
            let Some(current) = made.last_mut() else { return Ok(0.0) };
            current.insert(key.into(), Value::String(unescape(&slice(&line, start))));
        } else if line.starts_with("condition=") {
            let Some(current) = made.last_mut() else { return Ok(0.0) };
            let condition = unescape(&slice(&line, 11));
            let found: Vec<Value> = conditions.find_iter(&condition).map(|m| Value::String(m.as_str().to_string())).collect();
            current.insert("condition".into(), Value::Array(found));
            listed.push(made.len() - 1);
        }
    }
    let records = |name: &str| -> Result<Vec<Map<String, Value>>, String> {
        match rules.get(name) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => {
                items.iter().map(|r| r.as_object().cloned().ok_or_else(|| format!("check_thunderbird_filter: {name} holds {r}, not a record"))).collect()
            }
            Some(other) => Err(format!("check_thunderbird_filter: {name} is {other}, not a list of records")),
        }
    };
    if !rules.is_object() {
        return Err(format!("check_thunderbird_filter: the rules {rules} are not an object"));
    }
    let (expect, unexpect) = (records("expect")?, records("unexpect")?);
    let matches = |record: &Map<String, Value>, filter: &Map<String, Value>| record.iter().all(|(k, v)| filter.get(k).is_some_and(|f| py_eq(f, v)));
    let filters: Vec<&Map<String, Value>> = listed.iter().map(|i| &made[*i]).collect();
    let all_expected = expect.iter().all(|r| filters.iter().any(|f| matches(r, f)));
    let none_unexpected = !filters.iter().any(|f| unexpect.iter().any(|r| matches(r, f)));
    Ok(score(all_expected && none_unexpected))
}

/// `check_thunderbird_folder` of one file each. OSWorld splits a folder's text on `FROM - `
/// (upper case, where mbox files write `From - `) and keeps only the pieces that are blank,
/// so two folders compare equal unless one of them has such a piece (an empty file, say) and
/// the other has not; this reproduces that.
pub fn check_thunderbird_folder(result: Option<&Path>, reference: Option<&Path>, options: &Value) -> Result<f64, String> {
    let Some(result) = result else { return Ok(0.0) };
    let read = |path: &Path| -> Option<String> {
        let text = utf8_file(Some(path))?;
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let blanks = text.trim_matches(python_space).split("FROM - ").filter(|piece| piece.trim_matches(python_space).is_empty()).count();
        let dedupe = super::opt(options, "remove_duplicate", true);
        let kept = if dedupe { blanks.min(1) } else { blanks };
        Some(vec!["FROM - "; kept].join("\n"))
    };
    let Some(mine) = read(result) else { return Ok(0.0) };
    let Some(theirs) = reference.and_then(read) else {
        return Err("check_thunderbird_folder: the task's reference folder is missing or not UTF-8".into());
    };
    Ok(score(mine == theirs))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn file(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("guigym-thunderbird-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn preferences_are_judged_by_method_and_the_last_line_of_a_key() {
        let prefs = file(
            "prefs.js",
            "// Mozilla User Preferences\nuser_pref(\"mail.spam.manualMark\", true);\nuser_pref(\"mailnews.default_sort_order\", 2);\n\
             user_pref(\"mail.identity.id1.fullName\", \"Ann \\\"A\\\" Lee\");\nuser_pref(\"mailnews.default_sort_order\", 1);\n",
        );
        let rule = |r: Value| check_thunderbird_prefs(Some(&prefs), &r);
        assert_eq!(rule(json!({"expect": {"mail.spam.manualMark": {"method": "eq", "ref": true}}})), Ok(1.0));
        assert_eq!(rule(json!({"expect": {"mail.spam.manualMark": {"method": "eq", "ref": 1}}})), Ok(1.0), "True == 1 in Python");
        assert_eq!(rule(json!({"expect": {"mailnews.default_sort_order": {"method": "eq", "ref": 2}}})), Ok(0.0), "the last line wins");
        assert_eq!(rule(json!({"expect": {"mail.identity.id1.fullName": {"method": "re.I", "ref": "^ann \"a\""}}})), Ok(1.0));
        assert_eq!(rule(json!({"expect": {"absent.pref": {"method": "eq", "ref": 1}}})), Ok(0.0));
        assert_eq!(rule(json!({"unexpect": {"mail.spam.manualMark": {"method": "eq", "ref": true}}})), Ok(0.0));
        assert_eq!(rule(json!({"expect": {"mailnews.default_sort_order": {"method": "approx:0.5", "ref": 1.2}}})), Ok(1.0));
        assert_eq!(rule(json!({"expect": {"mailnews.default_sort_order": {"method": "lt", "ref": "x"}}})), Ok(0.0), "int < str raises");
        assert!(rule(json!({"expect": {"mailnews.default_sort_order": {"ref": 1}}})).is_err(), "no method: the task's error");
        assert!(rule(json!({"expect": {"mailnews.default_sort_order": {"method": "spin", "ref": 1}}})).is_err());
        assert_eq!(check_thunderbird_prefs(None, &json!({})), Ok(0.0));
    }

    #[test]
    fn filters_are_read_as_osworld_slices_their_lines() {
        let rules = file(
            "msgFilterRules.dat",
            "version=\"9\"\nlogging=\"no\"\nname=\"Work\"\nenabled=\"yes\"\ntype=\"17\"\naction=\"Move to folder\"\n\
             actionValue=\"mailbox://nobody@Local%20Folders/Work\"\ncondition=\"AND (subject,contains,work) AND (from,is,\\\"boss@x.org\\\")\"\n\
             name=\"Draft\"\nenabled=\"no\"\ntype=\"17\"\naction=\"Mark read\"\n",
        );
        let check = |r: Value| check_thunderbird_filter(Some(&rules), &r);
        assert_eq!(check(json!({"expect": [{"name": "Work", "enabled": "yes", "action": "Move to folder"}]})), Ok(1.0));
        assert_eq!(check(json!({"expect": [{"condition": ["AND (subject,contains,work)", "AND (from,is,\"boss@x.org\")"]}]})), Ok(1.0));
        // A filter without a condition line is never listed.
        assert_eq!(check(json!({"expect": [{"name": "Draft"}]})), Ok(0.0));
        assert_eq!(check(json!({"unexpect": [{"name": "Work"}]})), Ok(0.0));
        assert_eq!(check(json!({"expect": []})), Ok(1.0));
        assert!(check(json!({"expect": "x"})).is_err());
        assert_eq!(check_thunderbird_filter(Some(&file("early.dat", "enabled=\"yes\"\n")), &json!({})), Ok(0.0));
    }

    #[test]
    fn folders_compare_as_osworld_reads_them() {
        let mail = file("Inbox", "From - Mon Jan 1 00:00:00 2024\nSubject: hi\n\nbody\n");
        let other = file("Other", "From - Tue Jan 2 00:00:00 2024\nSubject: other\n\nbody\n");
        let empty = file("Empty", "\n");
        assert_eq!(check_thunderbird_folder(Some(&mail), Some(&other), &json!({})), Ok(1.0), "no blank piece in either");
        assert_eq!(check_thunderbird_folder(Some(&mail), Some(&empty), &json!({})), Ok(0.0));
        assert_eq!(check_thunderbird_folder(Some(&empty), Some(&empty), &json!({})), Ok(1.0));
        assert_eq!(check_thunderbird_folder(None, Some(&empty), &json!({})), Ok(0.0));
    }
}
