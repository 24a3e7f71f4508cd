//! Metrics over the desktop's settings, as OSWorld's Ubuntu tasks read them: GNOME's (the
//! output of `gsettings get …` and `timedatectl status`), LibreOffice's registry
//! (`registrymodifications.xcu`) and what the Impress window shows (its accessibility tree).
//!
//! Where OSWorld raises on what the agent left (a number that is not one, a tree or registry
//! that does not parse, no result at all), the exception escapes its evaluator; here such a
//! state scores 0, the agent's failure. An empty favourites list, which gsettings prints as
//! `@as []` and OSWorld's `eval` cannot read, is read as the empty list it is. What the task
//! itself must give (a rule's field) is still an error: the task is bad. Digits beyond ASCII,
//! which Python's `int()` and `float()` accept and no settings tool prints, are not read.

use serde_json::Value;

use super::etree;

/// OSWorld's `check_gnome_favorite_apps`: the favourites (`gsettings get org.gnome.shell
/// favorite-apps`) are `rules.expected` in any order, as many as there.
pub fn check_gnome_favorite_apps(printed: Option<String>, rules: &Value) -> Result<f64, String> {
    let expected = rules.get("expected").ok_or("check_gnome_favorite_apps: expected.rules.expected is missing")?;
    let expected: Vec<&str> = match expected.as_array() {
        Some(list) => list.iter().map(|v| v.as_str().ok_or("check_gnome_favorite_apps: rules.expected holds a non-string")).collect::<Result<_, _>>()?,
        None => return Err("check_gnome_favorite_apps: rules.expected is not a list".into()),
    };
    let Some(apps) = printed.as_deref().and_then(gvariant_strings) else { return Ok(0.0) };
    if apps.len() != expected.len() {
        return Ok(0.0);
    }
    let mut a: Vec<&str> = apps.iter().map(String::as_str).collect();
    let mut b = expected;
    a.sort_unstable();
    a.dedup();
    b.sort_unstable();
    b.dedup();
    Ok(super::score(a == b))
}

/// A list of strings as GVariant's text format (what `gsettings get` prints) writes one:
/// `['a', "b's"]`, read as Python reads it (its whitespace, its string escapes), or `@as []`,
/// what gsettings prints for an empty list (which OSWorld's `eval` cannot read: there it
/// raises). `None`: not such a list.
fn gvariant_strings(printed: &str) -> Option<Vec<String>> {
    // Python's whitespace between tokens; Unicode spaces are a syntax error there.
    let space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c');
    let body = printed.trim_matches(space);
    let body = match body.strip_prefix("@as") {
        Some(rest) if rest.trim_matches(space) == "[]" => return Some(Vec::new()),
        Some(_) => return None,
        None => body,
    };
    let inner = body.strip_prefix('[')?.strip_suffix(']')?;
    let mut chars = inner.chars().peekable();
    let mut out = Vec::new();
    loop {
        while chars.peek().is_some_and(|c| space(*c)) {
            chars.next();
        }
        let Some(quote) = chars.next() else { return Some(out) };
        if quote != '\'' && quote != '"' {
            return None;
        }
        let mut s = String::new();
        loop {
            match chars.next()? {
                '\\' => python_escape(&mut chars, &mut s)?,
                c if c == quote => break,
                '\n' => return None,
                c => s.push(c),
            }
        }
        out.push(s);
        while chars.peek().is_some_and(|c| space(*c)) {
            chars.next();
        }
        match chars.next() {
            None => return Some(out),
            Some(',') => {}
            Some(_) => return None,
        }
    }
}

/// One escape of a Python string literal, after its backslash: `\n`, `\x41`, `\101`,
/// `\u00e9`, `\U0001F600`…; an unknown one keeps its backslash, as Python does.
fn python_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, s: &mut String) -> Option<()> {
    let c = match chars.peek().copied()? {
        'x' | 'u' | 'U' => {
            let n = match chars.next()? {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let digits: String = (0..n).map(|_| chars.next()).collect::<Option<String>>()?;
            char::from_u32(u32::from_str_radix(&digits, 16).ok()?)?
        }
        '0'..='7' => {
            let mut value = 0u32;
            for _ in 0..3 {
                match chars.peek().and_then(|c| c.to_digit(8)) {
                    Some(d) => {
                        value = value * 8 + d;
                        chars.next();
                    }
                    None => break,
                }
            }
            char::from_u32(value)?
        }
        other => {
            chars.next();
            match other {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                'a' => '\x07',
                'b' => '\x08',
                'f' => '\x0c',
                'v' => '\x0b',
                '\\' | '\'' | '"' => other,
                // A line continuation inside the literal.
                '\n' => return Some(()),
                _ => {
                    s.push('\\');
                    other
                }
            }
        }
    };
    s.push(c);
    Some(())
}

/// OSWorld's `is_utc_0`: the fourth line of `timedatectl status` (its time zone) ends with
/// `+0000)`, as it is, nothing trimmed.
pub fn is_utc_0(printed: Option<String>) -> f64 {
    let line = printed.as_deref().and_then(|p| p.split('\n').nth(3).map(str::to_string));
    super::score(line.is_some_and(|l| l.ends_with("+0000)")))
}

/// OSWorld's `check_text_enlarged`: the text scaling factor (`gsettings get
/// org.gnome.desktop.interface text-scaling-factor`) is above 1.
pub fn check_text_enlarged(printed: Option<String>) -> f64 {
    super::score(printed.as_deref().and_then(python_float).is_some_and(|f| f > 1.0))
}

/// A number as Python's `float()` reads text: surrounding whitespace, a sign, `_` between
/// digits, `inf` and `nan`.
fn python_float(text: &str) -> Option<f64> {
    let t = text.trim();
    let chars: Vec<char> = t.chars().collect();
    let digit_around = |i: usize| i > 0 && i + 1 < chars.len() && chars[i - 1].is_ascii_digit() && chars[i + 1].is_ascii_digit();
    if chars.iter().enumerate().any(|(i, c)| *c == '_' && !digit_around(i)) {
        return None;
    }
    let t: String = chars.into_iter().filter(|c| *c != '_').collect();
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(&t).to_ascii_lowercase();
    // Rust reads "infinity" and "nan" as Python does; other words it would not are refused.
    if unsigned.chars().any(|c| c.is_ascii_alphabetic() && c != 'e') && !matches!(unsigned.as_str(), "inf" | "infinity" | "nan") {
        return None;
    }
    t.parse().ok()
}

/// OSWorld's `check_left_panel`: the Impress window's slide pane is open, which its tree
/// shows as a `document-frame` named `Slides View` (anywhere, whatever its state).
pub fn check_left_panel(tree: Option<String>) -> f64 {
    let Some(root) = tree.as_deref().and_then(|t| etree::parse(t).ok()) else { return 0.0 };
    super::score(root.iter().into_iter().any(|e| e.tag == "document-frame" && e.get("name") == Some("Slides View")))
}

const REGISTRY: &str = "{http://openoffice.org/2001/registry}";

/// OSWorld's `check_auto_saving_time`: LibreOffice's registry sets the autosave interval
/// (`/org.openoffice.Office.Common/Save/Document`, `AutoSaveTimeIntervall`: the last such
/// item counts) to `rules.minutes`. Whether autosave is on is not looked at, as OSWorld does.
pub fn check_auto_saving_time(registry: Option<String>, rules: &Value) -> Result<f64, String> {
    let minutes = rules.get("minutes").ok_or("check_auto_saving_time: expected.rules.minutes is missing")?;
    let Some(root) = registry.as_deref().and_then(|r| etree::parse(r).ok()) else { return Ok(0.0) };
    let path_key = format!("{REGISTRY}path");
    let name_key = format!("{REGISTRY}name");
    let mut interval: Option<Option<String>> = None;
    for item in root.descendants("item").filter(|i| i.get(&path_key) == Some("/org.openoffice.Office.Common/Save/Document")) {
        if let Some(prop) = item.descendants("prop").find(|p| p.get(&name_key) == Some("AutoSaveTimeIntervall")) {
            match prop.descendants("value").next() {
                // A value without text: no interval (until a later item sets one).
                Some(value) => interval = Some(value.text.clone()),
                // A prop without a value: OSWorld raises, which is a 0 here.
                None => return Ok(0.0),
            }
        }
    }
    let Some(Some(text)) = interval else { return Ok(0.0) };
    let Some(set) = python_int(&text) else { return Ok(0.0) };
    // Python's `==` between an int and the rule's value, exact: a number compares by value (a
    // float only when it is that very integer), `true` is 1, a string is never equal.
    let equal = match minutes {
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(m), _, _) => i128::from(m) == set,
            (None, Some(m), _) => i128::from(m) == set,
            (None, None, Some(f)) => f.fract() == 0.0 && f.abs() < 1.7e38 && f as i128 == set,
            _ => false,
        },
        Value::Bool(b) => set == i128::from(*b),
        _ => false,
    };
    Ok(super::score(equal))
}

/// An integer as Python's `int()` reads text: surrounding whitespace, a sign, `_` between
/// digits.
pub(super) fn python_int(text: &str) -> Option<i128> {
    let t = text.trim();
    let (sign, digits) = match t.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    let plain: String = digits.chars().filter(|c| *c != '_').collect();
    if !plain.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    plain.parse::<i128>().ok().map(|n| sign * n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn favourites_compare_as_a_set_of_the_same_length() {
        let rules = json!({"expected": ["google-chrome.desktop", "thunderbird.desktop"]});
        let got = |s: &str| check_gnome_favorite_apps(Some(s.into()), &rules).unwrap();
        assert_eq!(got("['thunderbird.desktop', 'google-chrome.desktop']\n"), 1.0);
        assert_eq!(got("['google-chrome.desktop', 'thunderbird.desktop', 'vim.desktop']\n"), 0.0);
        assert_eq!(got("['google-chrome.desktop', 'google-chrome.desktop']"), 0.0);
        assert_eq!(got("@as []\n"), 0.0);
        assert_eq!(got("not a list"), 0.0);
        assert_eq!(check_gnome_favorite_apps(None, &rules).unwrap(), 0.0);
        assert_eq!(check_gnome_favorite_apps(Some("@as []".into()), &json!({"expected": []})).unwrap(), 1.0);
        assert!(check_gnome_favorite_apps(Some("[]".into()), &json!({})).is_err(), "the task's rule is missing");
        assert_eq!(gvariant_strings(r#"['a\'b', "c's", 'd\u00e9']"#), Some(vec!["a'b".to_string(), "c's".to_string(), "dé".to_string()]));
        assert_eq!(gvariant_strings(r"['\a\U0001F600\x41\101\q']"), Some(vec!["\x07😀AA\\q".to_string()]));
        assert_eq!(gvariant_strings("['a',\u{a0}'b']"), None, "NBSP is no space to Python");
        assert_eq!(gvariant_strings("@as ['a']"), None);
    }

    #[test]
    fn the_time_zone_line_and_the_scaling_factor_are_read_as_osworld_reads_them() {
        let status = |zone: &str| {
            format!("               Local time: Fri 2024-01-05 10:00:00 UTC\n           Universal time: Fri 2024-01-05 10:00:00 UTC\n                 RTC time: n/a\n                Time zone: {zone}\nSystem clock synchronized: no\n")
        };
        assert_eq!(is_utc_0(Some(status("Etc/UTC (UTC, +0000)"))), 1.0);
        assert_eq!(is_utc_0(Some(status("Europe/Paris (CET, +0100)"))), 0.0);
        assert_eq!(is_utc_0(Some(status("Etc/UTC (UTC, +0000) "))), 0.0, "nothing is trimmed");
        assert_eq!(is_utc_0(Some("one line".into())), 0.0);
        assert_eq!(is_utc_0(None), 0.0);
        for (printed, want) in
            [("1.25\n", 1.0), ("1.0", 0.0), ("1.0000001", 1.0), (" 2 ", 1.0), ("1_5", 1.0), ("inf", 1.0), ("nan", 0.0), ("", 0.0), ("big", 0.0), ("1__5", 0.0)]
        {
            assert_eq!(check_text_enlarged(Some(printed.into())), want, "{printed:?}");
        }
    }

    #[test]
    fn the_slide_pane_and_the_autosave_interval_are_found_where_osworld_looks() {
        let tree = |name: &str| {
            format!(
                r#"<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state"><frame name="Impress"><document-frame st:showing="true" name="{name}"/></frame></desktop-frame>"#
            )
        };
        assert_eq!(check_left_panel(Some(tree("Slides View"))), 1.0);
        assert_eq!(check_left_panel(Some(tree("Slide"))), 0.0);
        assert_eq!(check_left_panel(Some("<broken".into())), 0.0);
        assert_eq!(check_left_panel(None), 0.0);

        let xcu = |items: &str| {
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema">{items}</oor:items>"#
            )
        };
        let item = |minutes: &str| {
            format!(
                r#"<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="AutoSaveTimeIntervall" oor:op="fuse"><value>{minutes}</value></prop></item>"#
            )
        };
        let rules = json!({"minutes": 3});
        let got = |x: String| check_auto_saving_time(Some(x), &rules).unwrap();
        assert_eq!(got(xcu(&item("3"))), 1.0);
        assert_eq!(got(xcu(&item("10"))), 0.0);
        assert_eq!(got(xcu(&format!("{}{}", item("3"), item("5")))), 0.0, "the last item counts");
        assert_eq!(got(xcu(&format!("{}{}", item("5"), item("3")))), 1.0);
        assert_eq!(got(xcu("")), 0.0);
        assert_eq!(got(xcu(&item("three"))), 0.0);
        let valueless = r#"<item oor:path="/org.openoffice.Office.Common/Save/Document"><prop oor:name="AutoSaveTimeIntervall"/></item>"#;
        assert_eq!(got(xcu(&format!("{valueless}{}", item("3")))), 0.0, "OSWorld raises on a prop without a value");
        assert_eq!(check_auto_saving_time(Some(xcu(&item("10000000000000000000"))), &json!({"minutes": 10000000000000000000u64})).unwrap(), 1.0);
        assert_eq!(check_auto_saving_time(Some(xcu(&item("3"))), &json!({"minutes": 3.0})).unwrap(), 1.0);
        assert_eq!(check_auto_saving_time(Some(xcu(&item("3"))), &json!({"minutes": 3.5})).unwrap(), 0.0);
        assert_eq!(got("<not xml".into()), 0.0);
        assert_eq!(check_auto_saving_time(None, &rules).unwrap(), 0.0);
        assert_eq!(check_auto_saving_time(Some(xcu(&item(" 3 "))), &json!({"minutes": "3"})).unwrap(), 0.0, "a string is never an int");
        assert!(check_auto_saving_time(Some(xcu(&item("3"))), &json!({})).is_err());
    }
}
