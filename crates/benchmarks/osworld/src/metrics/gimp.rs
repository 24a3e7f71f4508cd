//! OSWorld's GIMP metrics. `check_config_status` reads one of GIMP's settings files (`gimprc`,
//! `sessionrc`: one `(key value)` a line, nested lists continued on further lines) as OSWorld
//! reads it, line by line: a line's first word is its key, its last its value, with the
//! brackets at its ends taken off.
//!
//! Where OSWorld's metric raises on what the agent left (a file that is no UTF-8, a line of
//! nothing but blanks and brackets, a two-word key against a one-word line), the result scores
//! 0 here; where it raises on the task's rule (no `key`, or no `value` once a key matches), it
//! is an error of the task, as there.

use serde_json::Value;

use super::{python_space, score, utf8_file};

/// `check_config_status`: some line of the settings file has the rule's key (a word, or two
/// words as a list of two) and ends in the rule's value (compared as text: a value that is not
/// a string matches nothing).
pub fn check_config_status(config: Option<&std::path::Path>, rule: &Value) -> Result<f64, String> {
    let Some(text) = utf8_file(config) else { return Ok(0.0) };
    // Python's text mode: `\r\n` and a lone `\r` end lines as `\n` does.
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    for line in text.split_inclusive('\n') {
        if line.starts_with('#') || line == "\n" {
            continue;
        }
        let key = rule.get("key").ok_or("check_config_status: the rule has no \"key\"")?;
        let items: Vec<&str> =
            line.trim_matches(python_space).trim_start_matches('(').trim_end_matches([')', '\n']).split(python_space).filter(|w| !w.is_empty()).collect();
        // OSWorld indexes the line's words: none raises.
        let Some(first) = items.first() else { return Ok(0.0) };
        let matches_key = match key {
            Value::String(k) => first == k,
            Value::Array(words) if words.len() == 2 => {
                if words[0].as_str() != Some(first) {
                    false
                } else {
                    let Some(second) = items.get(1) else { return Ok(0.0) };
                    words[1].as_str() == Some(second)
                }
            }
            _ => false,
        };
        if matches_key {
            let value = rule.get("value").ok_or("check_config_status: the rule has no \"value\"")?;
            if value.as_str() == items.last().copied() {
                return Ok(1.0);
            }
        }
    }
    Ok(score(false))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(text: &[u8], rule: Value) -> Result<f64, String> {
        let dir = std::env::temp_dir().join(format!("guigym-gimp-metric-{}-{:?}", std::process::id(), std::thread::current().id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("gimprc");
        std::fs::write(&path, text).unwrap();
        let got = check_config_status(Some(&path), &rule);
        let _ = std::fs::remove_dir_all(&dir);
        got
    }

    #[test]
    fn a_setting_is_its_lines_first_and_last_word() {
        let gimprc = b"# GIMP gimprc\n\n(undo-levels 100)\n(theme \"Dark\")\n(default-image\n    (width 640))\n";
        assert_eq!(check(gimprc, json!({"key": "undo-levels", "value": "100"})), Ok(1.0));
        assert_eq!(check(gimprc, json!({"key": "undo-levels", "value": "10"})), Ok(0.0));
        // Compared as text: a number matches nothing.
        assert_eq!(check(gimprc, json!({"key": "undo-levels", "value": 100})), Ok(0.0));
        // The quotes are part of the word; only the brackets at the ends go.
        assert_eq!(check(gimprc, json!({"key": "theme", "value": "\"Dark\""})), Ok(1.0));
        assert_eq!(check(gimprc, json!({"key": ["default-image", "x"], "value": "x"})), Ok(0.0));
        assert_eq!(check(b"(session-info toolbox\n    (hide-docks yes))\n", json!({"key": ["session-info", "toolbox"], "value": "toolbox"})), Ok(1.0));
        // A `#` only at the line's start makes a comment; CR ends lines.
        assert_eq!(check(b"  # (undo-levels 100)\r(hide-docks yes)\r", json!({"key": "hide-docks", "value": "yes"})), Ok(1.0));
        assert_eq!(check(b"(x \x1c100)\n", json!({"key": "x", "value": "100"})), Ok(1.0));
    }

    #[test]
    fn what_osworld_raises_on_scores_zero_or_is_the_tasks_error() {
        // The agent's file: not UTF-8, a line of blanks or brackets, one word for a two-word key.
        assert_eq!(check(b"(undo-levels 100)\n\xff\n", json!({"key": "undo-levels", "value": "100"})), Ok(0.0));
        assert_eq!(check(b"   \n(undo-levels 100)\n", json!({"key": "undo-levels", "value": "100"})), Ok(0.0));
        assert_eq!(check(b"(undo-levels 100)\n()\n", json!({"key": "undo-levels", "value": "100"})), Ok(1.0));
        assert_eq!(check(b"(a)\n", json!({"key": ["a", "b"], "value": "c"})), Ok(0.0));
        assert_eq!(check_config_status(None, &json!({"key": "a", "value": "b"})), Ok(0.0));
        // The task's rule.
        assert!(check(b"(a b)\n", json!({"value": "b"})).is_err());
        assert!(check(b"(a b)\n", json!({"key": "a"})).is_err());
        assert_eq!(check(b"(a b)\n", json!({"key": "c"})), Ok(0.0));
        assert_eq!(check(b"# only comments\n", json!({})), Ok(0.0));
    }
}
