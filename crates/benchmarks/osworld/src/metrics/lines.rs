//! Metrics over text files and command output, as desktop-env 1.0.2 reads them: `compare_csv`
//! (a CSV file compared line by line with one or more expected files), `check_list` (patterns
//! that some line must match, or that no line may match), `file_contains`, `check_line_number`
//! (lines holding a time of day), `compare_python_pure_text` (two Python files alike once blank
//! lines, tabs and a leading shebang or coding line are set aside) and `is_in_vm_clickboard`
//! (what the clipboard holds, printed by a command).

use std::path::Path;

use serde_json::Value;

use super::chrome::python_line_regex;
use super::settings::python_int;
use super::table::python_splitlines;
use super::thunderbird::python_lines;
use super::{opt, python_space, score, utf8_file, Got};

/// A file's text as OSWorld's `_safe_read_file` decodes it: UTF-8, else Latin-1 (the first of
/// its fallbacks that reads any bytes).
pub(super) fn utf8_else_latin1(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| e.into_bytes().iter().map(|b| char::from(*b)).collect())
}

/// `compare_csv`: the result's lines equal those of an expected file (any, when several are
/// given); under `strict: false` each line is stripped first, under `ignore_case` lowered. An
/// expected file that cannot be read is passed over, as OSWorld does; no file at all (a getter
/// that gave nothing) is the task's error, where OSWorld raises.
pub fn compare_csv(result: Option<&Path>, expected: &Got, options: &Value) -> Result<f64, String> {
    let Some(result) = result else { return Ok(0.0) };
    let Ok(bytes) = std::fs::read(result) else { return Ok(0.0) };
    let (strict, ignore_case) = (opt(options, "strict", true), opt(options, "ignore_case", false));
    let lines = |bytes: Vec<u8>| -> Vec<String> {
        let text = utf8_else_latin1(bytes);
        python_splitlines(&text)
            .into_iter()
            .map(|l| if strict { l } else { l.trim_matches(python_space) })
            .map(|l| if ignore_case { l.to_lowercase() } else { l.to_string() })
            .collect()
    };
    let got = lines(bytes);
    let expected: Vec<&Got> = match expected {
        Got::Files(all) => all.iter().collect(),
        one => vec![one],
    };
    for want in expected {
        match want {
            Got::File(path) => {
                if std::fs::read(path).is_ok_and(|want| lines(want) == got) {
                    return Ok(1.0);
                }
            }
            Got::Missing => return Err("compare_csv: no expected file was given".into()),
            other => return Err(format!("compare_csv: the expected value must be a file or files, not {other:?}")),
        }
    }
    Ok(0.0)
}

/// `check_list`: each `expect` pattern found on some line of the result, and no `unexpect`
/// pattern on any line. Lines keep their `\n`, before which Python's `$` also matches.
pub fn check_list(result: Option<&Path>, rules: &Value) -> Result<f64, String> {
    const M: &str = "check_list";
    if result.is_none() {
        return Ok(0.0);
    }
    if !rules.is_object() {
        return Err(format!("{M}: the rules must be an object, not {rules}"));
    }
    // What Python's loop takes from each: a list's items, a string's characters, a dict's keys.
    let patterns = |key: &str| -> Result<Vec<regex::Regex>, String> {
        let items: Vec<Value> = match rules.get(key) {
            None => Vec::new(),
            Some(Value::Array(all)) => all.clone(),
            Some(Value::String(s)) => s.chars().map(|c| Value::String(c.to_string())).collect(),
            Some(Value::Object(o)) => o.keys().map(|k| Value::String(k.clone())).collect(),
            Some(other) => return Err(format!("{M}: {key} must be a list of patterns, not {other}")),
        };
        items.iter().map(|p| p.as_str().ok_or_else(|| format!("{M}: {key} holds {p}, not a pattern")).and_then(|p| python_line_regex(p, M))).collect()
    };
    let (expect, unexpect) = (patterns("expect")?, patterns("unexpect")?);
    // OSWorld reads the file as UTF-8 text and raises on anything else.
    let Some(text) = utf8_file(result) else { return Ok(0.0) };
    let lines = python_lines(&text);
    let found = expect.iter().all(|r| lines.iter().any(|l| r.is_match(l)));
    let clean = lines.iter().all(|l| unexpect.iter().all(|r| !r.is_match(l)));
    Ok(score(found && clean))
}

/// A text file as Python's text mode reads it (UTF-8, newlines made `\n`); none where
/// Python raises (no file, not UTF-8).
pub(super) fn python_text(file: Option<&Path>) -> Option<String> {
    utf8_file(file).map(|t| t.replace("\r\n", "\n").replace('\r', "\n"))
}

/// `file_contains`: every string of `rules.expected` is in the file's text. OSWorld catches
/// every error here (a file it cannot read, rules it cannot use): each is a 0.
pub fn file_contains(file: Option<&Path>, rules: &Value) -> f64 {
    let Some(text) = python_text(file) else { return 0.0 };
    let wanted: Option<Vec<String>> = match rules.get("expected") {
        Some(Value::Array(items)) => items.iter().map(|v| v.as_str().map(str::to_string)).collect(),
        // A string is iterated as its characters.
        Some(Value::String(s)) => Some(s.chars().map(String::from).collect()),
        Some(Value::Object(keys)) => Some(keys.keys().cloned().collect()),
        _ => None,
    };
    // Stopping at the first string missing, as OSWorld's loop does, before a later item it
    // could not compare.
    let Some(wanted) = wanted else { return 0.0 };
    score(wanted.iter().all(|w| text.contains(w.as_str())))
}

/// `check_line_number`: as many lines hold a time of day (`hh:mm:ss`) as `rules.expected`
/// says (read as Python's `int()`). Every error is a 0, as OSWorld catches them.
pub fn check_line_number(file: Option<&Path>, rules: &Value) -> f64 {
    let Some(file) = file.filter(|f| f.is_file()) else { return 0.0 };
    let Some(text) = python_text(Some(file)) else { return 0.0 };
    let time = regex::Regex::new(r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)").unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"));
    let count = python_lines(&text).iter().filter(|l| time.is_match(l)).count();
    let expected = match rules.get("expected") {
        Some(Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Some(i128::from(i)),
            (None, Some(f)) if f.is_finite() => Some(f.trunc() as i128),
            _ => None,
        },
        Some(Value::Bool(b)) => Some(i128::from(*b)),
        Some(Value::String(s)) => python_int(s),
        _ => None,
    };
    score(expected == Some(count as i128))
}

/// Python's `str.expandtabs(4)` of one line.
fn expand_tabs(line: &str) -> String {
    let mut out = String::new();
    let mut column = 0;
    for c in line.chars() {
        if c == '\t' {
            let spaces = 4 - column % 4;
            out.extend(std::iter::repeat_n(' ', spaces));
            column += spaces;
        } else {
            out.push(c);
            column += 1;
        }
    }
    out
}

/// OSWorld's normalisation of a Python file: a shebang or coding line among the first three
/// set aside, blank lines dropped, tabs expanded to 4 and trailing space cut.
fn python_source(text: &str) -> String {
    let lines = python_splitlines(text);
    let metadata = |l: &str| {
        let l = l.trim_matches(python_space);
        ["#!", "# -*- coding:", "# coding:", "# coding="].iter().any(|m| l.starts_with(m))
    };
    let skipped = lines.iter().take(3).take_while(|l| metadata(l)).count();
    lines[skipped..]
        .iter()
        .filter(|l| !l.trim_matches(python_space).is_empty())
        .map(|l| expand_tabs(l).trim_end_matches(python_space).to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `compare_python_pure_text`: the agent's Python file and the gold one are the same once
/// normalised (see `python_source`); a file missing or not UTF-8 is a 0.
pub fn compare_python_pure_text(result: Option<&Path>, expected: Option<&Path>) -> f64 {
    let (Some(got), Some(want)) = (utf8_file(result), utf8_file(expected)) else { return 0.0 };
    score(python_source(&got) == python_source(&want))
}

/// `is_in_vm_clickboard`: the text a command printed (the clipboard, by `xsel`) holds
/// `rules.expected`, a string or every string of a list.
pub fn is_in_vm_clickboard(rules: &Value, printed: Option<String>) -> Result<f64, String> {
    const M: &str = "is_in_vm_clickboard";
    let expected = rules.get("expected").ok_or_else(|| format!("{M}: rules.expected is missing"))?;
    let printed = printed.ok_or_else(|| format!("{M}: the command printed nothing to look in"))?;
    let wanted: Vec<&str> = match expected {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().map(|v| v.as_str().ok_or_else(|| format!("{M}: {v} is not a string"))).collect::<Result<_, _>>()?,
        other => return Err(format!("{M}: rules.expected must be a string or a list of strings, not {other}")),
    };
    Ok(score(wanted.iter().all(|w| printed.contains(w))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("guigym-lines-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn file(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn compare_csv_reads_lines_as_python_does() {
        let dir = scratch("csv");
        let got = file(dir.as_path(), "a.csv", b"Name,Age\r\nAnn,3\n");
        let same = file(dir.as_path(), "b.csv", b"Name,Age\nAnn,3");
        let spaced = file(dir.as_path(), "c.csv", b" name,age \nann,3\n");
        let latin = file(dir.as_path(), "d.csv", b"caf\xe9\n");
        let latin_too = file(dir.as_path(), "e.csv", "café\n".as_bytes());
        let none = json!({});
        assert_eq!(compare_csv(Some(&got), &Got::File(same.clone()), &none).unwrap(), 1.0);
        assert_eq!(compare_csv(Some(&got), &Got::File(spaced.clone()), &none).unwrap(), 0.0);
        assert_eq!(compare_csv(Some(&got), &Got::File(spaced.clone()), &json!({"strict": false, "ignore_case": true})).unwrap(), 1.0);
        // One of several expected files, one that is not there passed over.
        let several = Got::Files(vec![Got::File(dir.as_path().join("gone.csv")), Got::File(spaced), Got::File(same)]);
        assert_eq!(compare_csv(Some(&got), &several, &none).unwrap(), 1.0);
        assert!(compare_csv(Some(&got), &Got::Missing, &none).is_err());
        assert_eq!(compare_csv(None, &Got::File(got.clone()), &none).unwrap(), 0.0);
        // Bytes that are not UTF-8 are read as Latin-1.
        assert_eq!(compare_csv(Some(&latin), &Got::File(latin_too), &none).unwrap(), 1.0);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn check_list_finds_expected_lines_and_refuses_unexpected_ones() {
        let dir = scratch("list");
        let out = file(dir.as_path(), "apt.out", b"openjdk-17-jre/stable,now 17 amd64\nzip/stable 3.0\n");
        let empty = file(dir.as_path(), "diff.out", b"");
        assert_eq!(check_list(Some(&out), &json!({"expect": ["openjdk-\\d+-(jre|jdk)"]})).unwrap(), 1.0);
        assert_eq!(check_list(Some(&out), &json!({"expect": ["openjdk-\\d+-jdk"]})).unwrap(), 0.0);
        // `$` before the line's newline, as in Python.
        assert_eq!(check_list(Some(&out), &json!({"expect": ["3\\.0$"]})).unwrap(), 1.0);
        assert_eq!(check_list(Some(&out), &json!({"unexpect": [".+"]})).unwrap(), 0.0);
        assert_eq!(check_list(Some(&empty), &json!({"unexpect": [".+"]})).unwrap(), 1.0);
        assert_eq!(check_list(Some(&empty), &json!({"expect": ["x"]})).unwrap(), 0.0);
        assert_eq!(check_list(None, &json!({"expect": []})).unwrap(), 0.0);
        assert!(check_list(Some(&out), &json!({"expect": ["(?<=a)b"]})).is_err());
        assert!(check_list(Some(&out), &json!(["x"])).is_err());
        let _ = std::fs::remove_dir_all(dir);
    }
}
