//! OSWorld's VLC metrics: what VLC plays (its web interface's `status.xml`), whether its
//! window fills the screen, and its settings as its `vlcrc` holds them. They read the settings
//! file as OSWorld reads it, line by line and by substring: a commented default
//! (`#qt-bgcone=1`, as VLC writes every setting left at its default) counts as a value, and
//! the last matching line wins.
//!
//! Where OSWorld's metric raises on what the agent left (no VLC answering, a file that is no
//! UTF-8 or no XML), the result scores 0 here; where it raises on the task's rule (a field
//! missing), it is an error of the task, as there. The status is read as ElementTree reads it
//! (`etree`: namespaced names, well-formedness), except a DTD's entities and defaults, which
//! VLC never writes. Deliberately apart: Python's `int()` of other scripts' digits (the slider
//! colours), and rule numbers beyond 64 bits (read as JSON floats here).

use serde_json::Value;

use super::etree::{self, Tree};
use super::objects::py_eq;
use super::{chrome, score, utf8_file};

/// Python's `str.strip()`: its whitespace includes the separators U+001C..U+001F.
fn py_strip(s: &str) -> &str {
    s.trim_matches(super::python_space)
}

/// A rule's field, or the task's error naming it.
fn field<'a>(metric: &str, rule: &'a Value, name: &str) -> Result<&'a Value, String> {
    rule.get(name).ok_or_else(|| format!("{metric}: the rule has no \"{name}\""))
}

/// An expected setting as OSWorld compares it: a number given as an integer becomes its text
/// (Python's `str`, so `true` is `True`); a string stays; anything else equals no text.
fn expected_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(if *b { "True" } else { "False" }.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

/// The value of the last line holding `key`, after its last `=` (or `default`).
fn last_value(config: &str, key: &str, default: &str) -> String {
    config.split('\n').rev().find(|l| l.contains(key)).map_or(default.to_string(), |l| py_strip(l.rsplit('=').next().unwrap_or(l)).to_string())
}

/// The settings OSWorld's `check_qt_*` family compares with an expected value: the metric,
/// the substring it looks for, the rule's field, and VLC's default.
const SETTINGS: &[(&str, &str, &str, &str)] = &[
    ("check_qt_bgcone", "qt-bgcone=", "expected_qt_bgcone", "1"),
    ("check_qt_max_volume", "qt-max-volume=", "expected_qt_max_volume", "125"),
    ("check_qt_minimal_view", "qt-minimal-view=", "expected_qt_minimal_view", "0"),
    ("check_one_instance_when_started_from_file", "one-instance-when-started-from-file=", "expected_one_instance_when_started_from_file", "1"),
];

/// Whether `metric` is one of the settings compared by `setting`.
pub fn is_setting(metric: &str) -> bool {
    SETTINGS.iter().any(|(m, ..)| *m == metric)
}

/// One setting of `vlcrc` against the rule's expected value.
pub fn setting(metric: &str, config: Option<&std::path::Path>, rule: &Value) -> Result<f64, String> {
    let (_, key, name, default) = SETTINGS.iter().find(|(m, ..)| *m == metric).ok_or_else(|| format!("{metric}: not a VLC setting"))?;
    let want = expected_text(field(metric, rule, name)?);
    let Some(config) = utf8_file(config) else { return Ok(0.0) };
    Ok(score(want.is_some_and(|w| last_value(&config, key, default) == w)))
}

/// `check_global_key_play_pause`: whether a global play/pause key is set ("1") or not ("0").
pub fn check_global_key_play_pause(config: Option<&std::path::Path>, rule: &Value) -> Result<f64, String> {
    let want = expected_text(field("check_global_key_play_pause", rule, "expected_global_key_play_pause")?);
    let Some(config) = utf8_file(config) else { return Ok(0.0) };
    // Unset when the last such line (or none) has nothing after its `=`.
    let got = if last_value(&config, "global-key-play-pause=", "").is_empty() { "0" } else { "1" };
    Ok(score(want.is_some_and(|w| w == got)))
}

/// `is_vlc_recordings_folder`: the first uncommented line naming `input-record-path` holds
/// the expected folder.
pub fn is_vlc_recordings_folder(config: Option<&std::path::Path>, rule: &Value) -> Result<f64, String> {
    let want = field("is_vlc_recordings_folder", rule, "recording_file_path")?;
    let Some(config) = utf8_file(config) else { return Ok(0.0) };
    let line = config.split('\n').filter(|l| !l.starts_with('#') && !py_strip(l).is_empty()).find(|l| l.contains("input-record-path"));
    Ok(score(line.is_some_and(|l| want.as_str() == Some(py_strip(l.rsplit('=').next().unwrap_or(l))))))
}

/// `check_qt_slider_colours`: the volume slider's colours equal the rule's (`match`), or are
/// all dark (`blackish`: every component under 100). OSWorld's metric turns its own errors
/// (a field missing, a number that does not parse) into 0.
pub fn check_qt_slider_colours(config: Option<&std::path::Path>, rule: &Value) -> Result<f64, String> {
    let Some(config) = utf8_file(config) else { return Ok(0.0) };
    let colours = last_value(&config, "qt-slider-colours", "153;210;153;20;210;20;255;199;15;245;39;29");
    match rule.get("type").map(|t| t.as_str().ok_or(t)) {
        None => Ok(0.0),
        Some(Ok("match")) => Ok(score(rule.get("expected_qt_slider_colours").and_then(Value::as_str) == Some(colours.as_str()))),
        Some(Ok("blackish")) => {
            let Some(values) = colours.split(';').map(py_int).collect::<Option<Vec<i64>>>() else { return Ok(0.0) };
            // Whole colours only, as Python's zip of the three strides stops at the shortest.
            Ok(score(values.chunks_exact(3).all(|rgb| rgb.iter().all(|v| *v < 100))))
        }
        // OSWorld's metric gives nothing (None) for another type.
        Some(other) => {
            Err(format!("check_qt_slider_colours: rule type {} is not known (match, blackish)", other.map_or_else(|v| v.to_string(), |s| format!("{s:?}"))))
        }
    }
}

/// Python's `int()` of a text: blanks around (not the separators U+001C..U+001F, which its
/// `strip` takes), a sign, ASCII digits with single underscores between them. (Python takes
/// other scripts' digits too; those are refused here.)
fn py_int(text: &str) -> Option<i64> {
    let t = text.trim_matches(char::is_whitespace);
    let (negative, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    let plain: String = digits.chars().filter(|c| *c != '_').collect();
    if !plain.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    // Beyond i64 a value is far from dark either way.
    let value = plain.parse::<i64>().unwrap_or(i64::MAX);
    Some(if negative { -value } else { value })
}

/// `is_vlc_fullscreen`: the window is as large as the screen (each `{width, height}`).
pub fn is_vlc_fullscreen(window: &Value, screen: &Value) -> Result<f64, String> {
    if window.is_null() || screen.is_null() {
        return Ok(0.0);
    }
    let size = |v: &Value, k: &str| v.get(k).cloned().ok_or_else(|| format!("is_vlc_fullscreen: a size without \"{k}\""));
    Ok(score(py_eq(&size(window, "width")?, &size(screen, "width")?) && py_eq(&size(window, "height")?, &size(screen, "height")?)))
}

/// Where `status.xml` names what plays, in the order OSWorld looks (a file, then a stream).
const FILE_INFO: &[(&str, &str)] = &[("meta", "filename"), ("meta", "title"), ("meta", "uri"), ("meta", "location"), ("meta", "name")];
const URL_INFO: &[(&str, &str)] = &[
    ("meta", "url"),
    ("meta", "URI"),
    ("meta", "location"),
    ("meta", "title"),
    ("meta", "filename"),
    ("Stream 0", "Codec"),
    ("Stream 0", "Type"),
    ("Stream 0", "Language"),
];

/// The first non-empty `information/category[@name=C]/info[@name=I]` text, trying each place
/// in turn (names as ElementTree reads them: an element in a namespace is not `info`).
fn first_info(root: &Tree, places: &[(&str, &str)]) -> Option<String> {
    fn children<'a>(t: &'a Tree, tag: &'static str) -> impl Iterator<Item = &'a Tree> {
        t.children.iter().filter(move |c| c.tag == tag)
    }
    places.iter().find_map(|(category, info)| {
        let found = children(root, "information")
            .flat_map(|i| children(i, "category"))
            .filter(|c| c.get("name") == Some(category))
            .flat_map(|c| children(c, "info"))
            .find(|e| e.get("name") == Some(info))?;
        found.text.clone().filter(|t| !t.is_empty())
    })
}

/// Python's `os.path.basename` (POSIX).
fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `is_vlc_playing`: VLC's state is `playing`, and what it plays is the rule's file (its name,
/// or a path ending so) or URL (the URL within what VLC shows, VLC showing the URL's file
/// name, or the same host with the path within).
pub fn is_vlc_playing(status: Option<&std::path::Path>, rule: &Value) -> Result<f64, String> {
    let Some(status) = utf8_file(status) else { return Ok(0.0) };
    let Ok(root) = etree::parse(&status) else { return Ok(0.0) };
    let playing = root.children.iter().find(|c| c.tag == "state").is_some_and(|s| s.text.as_deref() == Some("playing"));
    if !playing {
        return Ok(0.0);
    }
    const METRIC: &str = "is_vlc_playing";
    match field(METRIC, rule, "type")?.as_str() {
        Some("file_name") => {
            let Some(info) = first_info(&root, FILE_INFO) else { return Ok(0.0) };
            let want = field(METRIC, rule, "file_name")?;
            if basename(&info) == want.as_str().unwrap_or_default() && want.is_string() {
                return Ok(1.0);
            }
            let want = want.as_str().ok_or("is_vlc_playing: file_name must be a string")?;
            Ok(score(info.ends_with(want)))
        }
        Some("url") => {
            // OSWorld reads the rule's URL first (to log it).
            let want = field(METRIC, rule, "url")?;
            let Some(info) = first_info(&root, URL_INFO) else { return Ok(0.0) };
            let want = want.as_str().ok_or("is_vlc_playing: url must be a string")?;
            if info.contains(want) {
                return Ok(1.0);
            }
            // OSWorld passes over a URL it cannot parse.
            let Ok(expected) = chrome::urlparse(want) else { return Ok(0.0) };
            if info == basename(&expected.path) {
                return Ok(1.0);
            }
            if info.contains("://") {
                let Ok(actual) = chrome::urlparse(&info) else { return Ok(0.0) };
                return Ok(score(expected.netloc == actual.netloc && actual.path.contains(&expected.path)));
            }
            Ok(0.0)
        }
        // OSWorld's metric logs another type (or none that is text) and scores 0.
        _ => Ok(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_read_as_osworld_reads_them() {
        let config = "[qt]\n#qt-bgcone=1\nqt-bgcone=0\n# qt-max-volume=125\n";
        assert_eq!(last_value(config, "qt-bgcone=", "1"), "0");
        assert_eq!(last_value(config, "qt-max-volume=", "125"), "125", "a commented default counts");
        assert_eq!(last_value(config, "qt-minimal-view=", "0"), "0");
        assert_eq!(expected_text(&json!(1)), Some("1".into()));
        assert_eq!(expected_text(&json!(true)), Some("True".into()));
        assert_eq!(expected_text(&json!(1.0)), None);
        assert_eq!(py_int(" 1_0 "), Some(10));
        assert_eq!(py_int("1__0"), None);
        assert_eq!(py_int(""), None);
        assert_eq!(py_int("-5"), Some(-5));
    }

    #[test]
    fn playing_is_read_from_the_status() {
        let dir = std::env::temp_dir().join(format!("guigym-vlc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let status = dir.join("status.xml");
        std::fs::write(
            &status,
            "<root><state>playing</state><information><category name=\"meta\"><info name='filename'>a b.mp4</info></category></information></root>",
        )
        .unwrap();
        let rule = |name: &str| json!({"type": "file_name", "file_name": name});
        assert_eq!(is_vlc_playing(Some(&status), &rule("a b.mp4")), Ok(1.0));
        assert_eq!(is_vlc_playing(Some(&status), &rule("c.mp4")), Ok(0.0));
        assert_eq!(is_vlc_playing(None, &rule("a b.mp4")), Ok(0.0));
        assert!(is_vlc_playing(Some(&status), &json!({})).is_err(), "a rule without its type is the task's error");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
