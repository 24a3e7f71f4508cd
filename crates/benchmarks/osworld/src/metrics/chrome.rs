//! OSWorld's Chrome metrics: tabs, the active tab, bookmarks, history, cookies and settings,
//! over what the Chrome getters read (`crate::chrome`). URLs compare as OSWorld's
//! `compare_urls` compares them: scheme lowercased, the host reduced to its registrable
//! name without its public suffix (`www.airbnb.com.sg` is `airbnb`; only a lone `www` is
//! dropped), the port and user left out, a lone `/` path empty; params, query and fragment
//! kept.

use serde_json::Value;

use super::objects::truthy;
use super::{python_space, score};

fn field<'a>(rule: &'a Value, metric: &str, name: &str) -> Result<&'a Value, String> {
    rule.get(name).ok_or_else(|| format!("{metric}: the rule's \"{name}\" is missing"))
}

/// The rule's type; one that is not a string is a type no metric knows (OSWorld compares it
/// with its names and finds none).
fn rule_type<'a>(rule: &'a Value, metric: &str) -> Result<&'a str, String> {
    Ok(field(rule, metric, "type")?.as_str().unwrap_or("\u{0}not a string"))
}

fn strings(v: &Value, metric: &str, name: &str) -> Result<Vec<String>, String> {
    v.as_array()
        .and_then(|a| a.iter().map(|x| x.as_str().map(String::from)).collect::<Option<Vec<_>>>())
        .ok_or_else(|| format!("{metric}: the rule's \"{name}\" is not a list of strings"))
}

/// A URL from a tab's info (`{"url": …}`) or a URL itself.
fn url_of(info: &Value) -> Option<&str> {
    match info {
        Value::String(s) => Some(s),
        Value::Object(o) => o.get("url").and_then(Value::as_str),
        _ => None,
    }
}

/// `is_expected_tabs`: the open tabs' URLs are the rule's, as a multiset by `compare_urls`
/// (same count; each expected URL matches one of the tabs).
pub fn is_expected_tabs(tabs: &Value, rule: &Value) -> Result<f64, String> {
    const M: &str = "is_expected_tabs";
    if !truthy(tabs) {
        return Ok(0.0);
    }
    if rule_type(rule, M)? != "url" {
        return Ok(0.0);
    }
    let want = strings(field(rule, M, "urls")?, M, "urls")?;
    let got: Vec<Option<&str>> = tabs.as_array().map(|a| a.iter().map(url_of).collect()).unwrap_or_default();
    if want.len() != got.len() {
        return Ok(0.0);
    }
    for w in &want {
        let mut found = false;
        for g in got.iter().flatten() {
            if compare_rule_url(w, g)? {
                found = true;
                break;
            }
        }
        if !found {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// `is_expected_active_tab`: the active tab's URL is the rule's (by `compare_urls`);
/// `approximate` compares them without their query.
pub fn is_expected_active_tab(active: &Value, rule: &Value, approximate: bool) -> Result<f64, String> {
    const M: &str = "is_expected_active_tab";
    if !truthy(active) {
        return Ok(0.0);
    }
    if rule_type(rule, M)? != "url" {
        return Ok(0.0);
    }
    let want = field(rule, M, "url")?.as_str().ok_or(format!("{M}: the rule's \"url\" is not a string"))?;
    let Some(got) = url_of(active) else { return Ok(0.0) };
    if approximate {
        let want = without_query(want).map_err(|e| format!("{M}: the rule's url {want:?}: {e}"))?;
        return Ok(score(without_query(got).is_ok_and(|g| g == want)));
    }
    Ok(score(compare_rule_url(want, got)?))
}

/// `is_expected_url_pattern_match`: every pattern of `rules.expected` is found in the URL.
pub fn is_expected_url_pattern_match(active: &Value, rules: &Value) -> Result<f64, String> {
    const M: &str = "is_expected_url_pattern_match";
    if !truthy(active) {
        return Ok(0.0);
    }
    let Some(url) = url_of(active) else { return Ok(0.0) };
    let patterns = strings(field(rules, M, "expected")?, M, "expected")?;
    for p in patterns {
        if !python_regex(&p, M)?.is_match(url) {
            return Ok(0.0);
        }
    }
    Ok(1.0)
}

/// `is_expected_search_query`: `rules.expect.pattern` is found in the active tab's URL.
pub fn is_expected_search_query(active: &Value, rules: &Value) -> Result<f64, String> {
    const M: &str = "is_expected_search_query";
    if !truthy(active) {
        return Ok(0.0);
    }
    let pattern = field(field(rules, M, "expect")?, M, "pattern")?.as_str().ok_or(format!("{M}: expect.pattern is not a string"))?;
    let Some(url) = active.get("url").and_then(Value::as_str) else { return Ok(0.0) };
    Ok(score(python_regex(pattern, M)?.is_match(url)))
}

/// A Python `re` pattern, where the `regex` crate reads it the same way (lookaround and
/// backreferences it does not read are the task's error, said as such). Python's end of text,
/// `\Z`, is the crate's `\z`; the crate's own `\z` is an error in Python, and here.
pub(super) fn python_regex(pattern: &str, metric: &str) -> Result<regex::Regex, String> {
    translated_regex(pattern, metric, false)
}

/// `python_regex` for a text of one line that may end in its newline: there Python's `$` also
/// matches before that newline, as the crate's multi-line `$` does.
pub(super) fn python_line_regex(pattern: &str, metric: &str) -> Result<regex::Regex, String> {
    translated_regex(pattern, metric, true)
}

fn translated_regex(pattern: &str, metric: &str, one_line: bool) -> Result<regex::Regex, String> {
    let cannot = |why: String| format!("{metric}: the pattern {pattern:?} cannot be read here: {why}");
    let mut translated = String::with_capacity(pattern.len());
    let (mut chars, mut in_class) = (pattern.chars(), false);
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('Z') if !in_class => translated.push_str("\\z"),
                Some('z') => return Err(cannot("bad escape \\z (Python)".into())),
                Some(next) => {
                    translated.push('\\');
                    translated.push(next);
                }
                None => translated.push('\\'),
            },
            '$' if one_line && !in_class => translated.push_str("(?m:$)"),
            '[' => {
                in_class = true;
                translated.push(c);
            }
            ']' => {
                in_class = false;
                translated.push(c);
            }
            _ => translated.push(c),
        }
    }
    regex::Regex::new(&translated).map_err(|e| cannot(e.to_string()))
}

/// `is_expected_bookmarks` over the profile's bookmark roots.
pub fn is_expected_bookmarks(roots: &Value, rule: &Value) -> Result<f64, String> {
    const M: &str = "is_expected_bookmarks";
    if !truthy(roots) {
        return Ok(0.0);
    }
    let bar: Vec<&Value> = roots.pointer("/bookmark_bar/children").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();
    let of_type = |items: &[&Value], kind: &str, key: &str| -> Vec<String> {
        items
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some(kind))
            .map(|b| b.get(key).and_then(Value::as_str).unwrap_or_default().to_string())
            .collect()
    };
    let same_set = |a: Vec<String>, b: Vec<String>| {
        let (a, b): (std::collections::BTreeSet<_>, std::collections::BTreeSet<_>) = (a.into_iter().collect(), b.into_iter().collect());
        a == b
    };
    match rule_type(rule, M)? {
        "bookmark_bar_folders_names" => Ok(score(same_set(of_type(&bar, "folder", "name"), strings(field(rule, M, "names")?, M, "names")?))),
        "bookmark_bar_websites_urls" => Ok(score(same_set(of_type(&bar, "url", "url"), strings(field(rule, M, "urls")?, M, "urls")?))),
        "liked_authors_websites_urls" => {
            let folder =
                bar.iter().find(|b| b.get("type").and_then(Value::as_str) == Some("folder") && b.get("name").and_then(Value::as_str) == Some("Liked Authors"));
            let Some(folder) = folder else { return Ok(0.0) };
            let children: Vec<&Value> = folder.get("children").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();
            let liked: std::collections::BTreeSet<String> = of_type(&children, "url", "url").into_iter().collect();
            // Each expected entry is a URL or a list of acceptable URLs: some choice of one
            // from each must be exactly the folder's set.
            let choices: Vec<Vec<String>> = field(rule, M, "urls")?
                .as_array()
                .ok_or(format!("{M}: the rule's \"urls\" is not a list"))?
                .iter()
                .map(|u| match u {
                    Value::String(s) => Ok(vec![s.clone()]),
                    other => strings(other, M, "urls"),
                })
                .collect::<Result<_, _>>()?;
            Ok(score(some_choice_is(&choices, &liked)))
        }
        other => Err(format!("{M}: the rule type \"{other}\" is not one OSWorld knows")),
    }
}

/// Whether picking one item from each list can give exactly `set`.
fn some_choice_is(choices: &[Vec<String>], set: &std::collections::BTreeSet<String>) -> bool {
    fn pick(rest: &[Vec<String>], chosen: &mut Vec<String>, set: &std::collections::BTreeSet<String>) -> bool {
        let Some((first, rest)) = rest.split_first() else {
            return chosen.iter().cloned().collect::<std::collections::BTreeSet<_>>() == *set;
        };
        first.iter().any(|c| {
            // Only members of the set can be part of a choice that equals it.
            if !set.contains(c) {
                return false;
            }
            chosen.push(c.clone());
            let found = pick(rest, chosen, set);
            chosen.pop();
            found
        })
    }
    pick(choices, &mut Vec::new(), set)
}

/// `check_history_deleted`: no visited URL contains any of the rule's keywords.
pub fn check_history_deleted(history: &Value, rule: &Value) -> Result<f64, String> {
    const M: &str = "check_history_deleted";
    match rule_type(rule, M)? {
        "keywords" => {
            let keywords = strings(field(rule, M, "keywords")?, M, "keywords")?;
            let Some(rows) = history.as_array() else { return Ok(0.0) };
            let urls: Vec<&str> = rows.iter().filter_map(|r| r.get(0).and_then(Value::as_str)).collect();
            Ok(score(!keywords.iter().any(|k| urls.iter().any(|u| u.contains(k.as_str())))))
        }
        other => Err(format!("{M}: the rule type \"{other}\" is not one OSWorld knows")),
    }
}

/// `is_cookie_deleted`: no cookie's host matches any of the rule's domains (by
/// `compare_urls`).
pub fn is_cookie_deleted(cookies: &Value, rule: &Value) -> Result<f64, String> {
    const M: &str = "is_cookie_deleted";
    match rule_type(rule, M)? {
        "domains" => {
            let domains = strings(field(rule, M, "domains")?, M, "domains")?;
            let Some(rows) = cookies.as_array() else { return Ok(0.0) };
            let hosts: Vec<&str> = rows.iter().filter_map(|r| r.get(1).and_then(Value::as_str)).collect();
            for d in &domains {
                for h in &hosts {
                    if compare_rule_url(d, h)? {
                        return Ok(0.0);
                    }
                }
            }
            Ok(1.0)
        }
        other => Err(format!("{M}: the rule type \"{other}\" is not one OSWorld knows")),
    }
}

/// `check_font_size`: the default font size is the rule's value, or strictly inside its range
/// (Python's `==` and `<`: integers exactly, a bool as a number).
pub fn check_font_size(sizes: &Value, rule: &Value) -> Result<f64, String> {
    use std::cmp::Ordering::Less;
    const M: &str = "check_font_size";
    // No size to read: OSWorld raises on the agent's state; here it is a 0.
    let Some(size) = sizes.get("default_font_size") else { return Ok(0.0) };
    match rule_type(rule, M)? {
        "value" => Ok(score(super::objects::py_eq(size, field(rule, M, "value")?))),
        "range" => {
            let (min, max) = (field(rule, M, "min")?, field(rule, M, "max")?);
            match (super::objects::py_cmp(min, size), super::objects::py_cmp(size, max)) {
                (Some(a), Some(b)) => Ok(score(a == Less && b == Less)),
                // Python compares `min < size` first and stops there when it is false.
                (Some(a), None) if a != Less => Ok(0.0),
                _ if min.is_number() && max.is_number() => Ok(0.0),
                _ => Err(format!("{M}: the rule's range {min} to {max} is not numbers")),
            }
        }
        other => Err(format!("{M}: the rule type \"{other}\" is not one OSWorld knows")),
    }
}

/// `check_enabled_experiments`: the enabled chrome://flags experiments, without their
/// `@choice`, are the rule's names, in order.
pub fn check_enabled_experiments(experiments: &Value, rule: &Value) -> Result<f64, String> {
    const M: &str = "check_enabled_experiments";
    let names: Vec<&str> =
        experiments.as_array().map(|a| a.iter().filter_map(Value::as_str).map(|e| e.split('@').next().unwrap_or(e)).collect()).unwrap_or_default();
    match rule_type(rule, M)? {
        "names" => Ok(score(names == strings(field(rule, M, "names")?, M, "names")?)),
        other => Err(format!("{M}: the rule type \"{other}\" is not one OSWorld knows")),
    }
}

/// `is_shortcut_on_desktop`: a desktop launcher whose `Name=` (or `Exec=`) line is the
/// rule's.
pub fn is_shortcut_on_desktop(shortcuts: &Value, rule: &Value) -> Result<f64, String> {
    const M: &str = "is_shortcut_on_desktop";
    let (key, name) = match rule_type(rule, M)? {
        "name" => ("Name=", "name"),
        "exec" => ("Exec=", "exec"),
        other => return Err(format!("{M}: the rule type \"{other}\" is not supported (OSWorld raises on it)")),
    };
    let want = format!("{key}{}\n", field(rule, M, name)?.as_str().ok_or(format!("{M}: the rule's \"{name}\" is not a string"))?);
    let texts = shortcuts.as_object().map(|o| o.values().filter_map(Value::as_str).collect::<Vec<_>>()).unwrap_or_default();
    Ok(score(texts.iter().any(|t| t.contains(&want))))
}

/// Python's `urllib.parse.urlparse`, as far as `compare_urls` uses it.
pub(crate) struct Parsed {
    scheme: String,
    pub(crate) netloc: String,
    pub(crate) path: String,
    params: String,
    query: String,
    fragment: String,
}

/// Python 3.11's `urllib.parse` scheme lists.
const USES_PARAMS: &[&str] = &["", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtsps", "rtspu", "sip", "sips", "mms", "sftp", "tel"];
const USES_NETLOC: &[&str] = &[
    "", "ftp", "http", "gopher", "nntp", "telnet", "imap", "wais", "file", "mms", "https", "shttp", "snews", "prospero", "rtsp", "rtsps", "rtspu", "rsync",
    "svn", "svn+ssh", "sftp", "nfs", "git", "git+ssh", "ws", "wss",
];

/// Python's ValueError of `urlsplit` on a netloc: brackets unmatched, or around something
/// that is neither an IPv6 address nor an IPvFuture one. (Its check of non-ASCII hosts whose
/// NFKC form holds `/?#@:` is not made here.)
fn check_netloc(netloc: &str) -> Result<(), String> {
    if netloc.contains('[') != netloc.contains(']') {
        return Err("Invalid IPv6 URL".into());
    }
    if let Some((_, rest)) = netloc.split_once('[') {
        let host = rest.split(']').next().unwrap_or("");
        if let Some(future) = host.strip_prefix('v') {
            let (hex, tail) = future.split_once('.').unwrap_or(("", ""));
            if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) || tail.is_empty() || tail.contains('\n') {
                return Err("IPvFuture address is invalid".into());
            }
        } else {
            // Python's ip_address takes a zone after `%`.
            let address = host.split('%').next().unwrap_or("");
            if address.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(format!("{host:?} does not appear to be an IPv6 address"));
            }
        }
    }
    Ok(())
}

pub(crate) fn urlparse(url: &str) -> Result<Parsed, String> {
    // urlsplit: leading C0 controls and spaces go, and tabs and line breaks anywhere.
    let mut url: String = url.trim_start_matches(|c: char| c <= ' ').chars().filter(|c| !matches!(c, '\t' | '\r' | '\n')).collect();
    let mut scheme = String::new();
    if let Some(i) = url.find(':') {
        let head = &url[..i];
        if i > 0 && head.starts_with(|c: char| c.is_ascii_alphabetic()) && head.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) {
            scheme = head.to_ascii_lowercase();
            url = url[i + 1..].to_string();
        }
    }
    let mut netloc = String::new();
    if let Some(rest) = url.strip_prefix("//") {
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        netloc = rest[..end].to_string();
        url = rest[end..].to_string();
        check_netloc(&netloc)?;
    }
    let mut fragment = String::new();
    if let Some(i) = url.find('#') {
        fragment = url[i + 1..].to_string();
        url.truncate(i);
    }
    let mut query = String::new();
    if let Some(i) = url.find('?') {
        query = url[i + 1..].to_string();
        url.truncate(i);
    }
    let mut params = String::new();
    if USES_PARAMS.contains(&scheme.as_str()) && url.contains(';') {
        let from = url.rfind('/').unwrap_or(0);
        if let Some(i) = url[from..].find(';').map(|i| i + from) {
            params = url[i + 1..].to_string();
            url.truncate(i);
        }
    }
    Ok(Parsed { scheme, netloc, path: url, params, query, fragment })
}

/// Python's `urlunparse`.
fn urlunparse(p: &Parsed) -> String {
    let mut url = p.path.clone();
    if !p.params.is_empty() {
        url = format!("{url};{}", p.params);
    }
    if !p.netloc.is_empty() || (!p.scheme.is_empty() && USES_NETLOC.contains(&p.scheme.as_str()) && !url.starts_with("//")) {
        if !url.is_empty() && !url.starts_with('/') {
            url = format!("/{url}");
        }
        url = format!("//{}{url}", p.netloc);
    }
    if !p.scheme.is_empty() {
        url = format!("{}:{url}", p.scheme);
    }
    if !p.query.is_empty() {
        url = format!("{url}?{}", p.query);
    }
    if !p.fragment.is_empty() {
        url = format!("{url}#{}", p.fragment);
    }
    url
}

/// The URL without its query, as `is_expected_active_tab_approximate` strips it.
fn without_query(url: &str) -> Result<String, String> {
    let mut p = urlparse(url)?;
    p.query.clear();
    Ok(urlunparse(&p))
}

/// tldextract's subdomain and domain of a host (the public suffix left out; ICANN's part of
/// the list only, as tldextract reads it by default).
fn subdomain_and_domain(netloc: &str) -> (String, String) {
    let host = lenient_host(netloc);
    let dotted = host.replace(['\u{3002}', '\u{ff0e}', '\u{ff61}'], ".");
    if dotted.len() >= 4 && dotted.starts_with('[') && dotted.ends_with(']') && dotted[1..dotted.len() - 1].parse::<std::net::Ipv6Addr>().is_ok() {
        return (String::new(), dotted);
    }
    let labels: Vec<&str> = dotted.split('.').collect();
    let suffix_index = icann_suffix_index(&labels);
    if suffix_index == labels.len() && labels.len() == 4 && dotted.parse::<std::net::Ipv4Addr>().is_ok() {
        return (String::new(), dotted);
    }
    let subdomain = if suffix_index >= 2 { labels[..suffix_index - 1].join(".") } else { String::new() };
    let domain = if suffix_index > 0 { labels[suffix_index - 1].to_string() } else { String::new() };
    (subdomain, domain)
}

/// tldextract's `lenient_netloc`: the host of a netloc, without user, port or root dot.
fn lenient_host(netloc: &str) -> String {
    let after_user = netloc.rsplit('@').next().unwrap_or("");
    if let Some(inner) = after_user.strip_prefix('[') {
        if let Some(end) = inner.find(']') {
            return format!("[{}]", &inner[..end]);
        }
    }
    let host = after_user.split(':').next().unwrap_or("").trim_matches(python_space);
    host.trim_end_matches(['.', '\u{3002}', '\u{ff0e}', '\u{ff61}']).to_string()
}

/// Where the public suffix of these labels begins, by ICANN's part of the list
/// (`labels.len()` when none is known). A private suffix (github.io) is looked past, to the
/// ICANN one it sits under; exception rules (`!city.kawasaki.jp`) give their parent.
fn icann_suffix_index(labels: &[&str]) -> usize {
    let host = labels.join(".").to_lowercase();
    let mut candidate = host.as_str();
    while !candidate.is_empty() {
        let Some(s) = psl::suffix(candidate.as_bytes()) else { break };
        if !s.is_known() {
            break;
        }
        let suffix = String::from_utf8_lossy(s.as_bytes()).into_owned();
        if s.typ() == Some(psl::Type::Icann) {
            return labels.len() - suffix.split('.').count();
        }
        // Private: the same question of what lies under it (`github.io` → `io`).
        candidate = match suffix.split_once('.') {
            Some((_, parent)) => &host[host.len() - parent.len()..],
            None => break,
        };
    }
    labels.len()
}

/// OSWorld's `compare_urls`: both normalized (see the module's comment), then equal. A URL
/// without a scheme is read as `http://`. One Python cannot parse equals nothing.
pub fn compare_urls(a: &str, b: &str) -> bool {
    matches!((normalize_url(a), normalize_url(b)), (Ok(a), Ok(b)) if a == b)
}

/// `compare_urls` of a rule's URL and a result's: a rule's URL that Python cannot parse is the
/// task's error (OSWorld raises), a result's the agent's (it equals nothing).
fn compare_rule_url(rule: &str, got: &str) -> Result<bool, String> {
    let rule = normalize_url(rule).map_err(|e| format!("the rule's URL {rule:?}: {e}"))?;
    Ok(normalize_url(got).is_ok_and(|g| g == rule))
}

fn has_scheme(url: &str) -> bool {
    let Some(i) = url.find("://") else { return false };
    let head = &url[..i];
    head.starts_with(|c: char| c.is_ascii_alphabetic()) && head.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

fn normalize_url(url: &str) -> Result<String, String> {
    let url = if has_scheme(url) { url.to_string() } else { format!("http://{url}") };
    let mut p = urlparse(&url)?;
    p.scheme = p.scheme.to_lowercase();
    let (subdomain, domain) = subdomain_and_domain(&p.netloc.to_lowercase());
    let subdomain = if subdomain == "www" { String::new() } else { subdomain };
    p.netloc = if subdomain.is_empty() { domain } else { format!("{subdomain}.{domain}") };
    if p.path == "/" {
        p.path.clear();
    }
    Ok(urlunparse(&p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn urls_compare_as_osworld_compares_them() {
        assert!(compare_urls("https://www.airbnb.com/", "https://airbnb.com.sg"));
        assert!(compare_urls("www.google.com", "http://google.com/"));
        assert!(!compare_urls("https://google.com", "http://google.com"));
        assert!(compare_urls("http://localhost:8000/a", "http://localhost:9/a"));
        assert!(!compare_urls("https://maps.google.com", "https://google.com"));
        assert!(compare_urls("https://a.github.io/x", "https://a.github.com/x"));
        assert!(!compare_urls("https://x.com/?q=1", "https://x.com/?q=2"));
        assert!(compare_urls("http://127.0.0.1:5000/p", "127.0.0.1/p"));
        assert!(!compare_urls("http://127.0.0.1/p", "http://127.0.0.2/p"));
        assert_eq!(normalize_url("HTTPS://WWW.Example.co.uk/Path;p?q#f").unwrap(), "https://example/Path;p?q#f");
        // Exception rules give their parent as the suffix; a private suffix is looked past.
        assert!(compare_urls("http://city.kawasaki.jp/p", "http://city.com/p"));
        assert!(compare_urls("http://x.www.ck/", "http://x.www.com/"));
        assert!(compare_urls("https://a.x.blogspot.com/", "https://a.x.blogspot.de/"));
        // Python cannot parse these: a rule's is the task's error, a result's equals nothing.
        assert!(compare_rule_url("http://[::1/", "http://x/").is_err());
        assert!(compare_rule_url("http://[1.2.3.4]/", "http://x/").is_err());
        assert!(!compare_rule_url("http://x.com/", "http://[x.com/").unwrap());
        assert!(compare_urls("http://[::1%eth0]:80/a", "http://[::1%eth0]/a"));
        assert!(compare_urls("http://example.com\u{1f}/p", "http://example.com/p"));
    }

    #[test]
    fn tabs_and_bookmarks_are_judged() {
        let tabs = json!([{"title": "a", "url": "https://www.a.com/"}, {"title": "b", "url": "https://b.org/x"}]);
        let rule = json!({"type": "url", "urls": ["https://b.org/x", "https://a.com"]});
        assert_eq!(is_expected_tabs(&tabs, &rule).unwrap(), 1.0);
        assert_eq!(is_expected_tabs(&json!([]), &rule).unwrap(), 0.0);
        assert_eq!(is_expected_tabs(&json!([{"url": "https://b.org/x"}]), &rule).unwrap(), 0.0);
        let roots = json!({"bookmark_bar": {"children": [
            {"type": "folder", "name": "Liked Authors", "children": [{"type": "url", "url": "u1"}, {"type": "url", "url": "u3"}]},
            {"type": "url", "url": "https://x.org", "name": "x"}]}});
        assert_eq!(is_expected_bookmarks(&roots, &json!({"type": "bookmark_bar_folders_names", "names": ["Liked Authors"]})).unwrap(), 1.0);
        assert_eq!(is_expected_bookmarks(&roots, &json!({"type": "bookmark_bar_websites_urls", "urls": ["https://x.org"]})).unwrap(), 1.0);
        assert_eq!(is_expected_bookmarks(&roots, &json!({"type": "liked_authors_websites_urls", "urls": [["u1", "u2"], ["u3"]]})).unwrap(), 1.0);
        assert_eq!(is_expected_bookmarks(&roots, &json!({"type": "liked_authors_websites_urls", "urls": [["u2"], ["u3"]]})).unwrap(), 0.0);
        assert!(is_expected_bookmarks(&roots, &json!({"type": "nope"})).is_err());
    }

    #[test]
    fn history_cookies_and_settings_are_judged() {
        let history = json!([["https://www.amazon.com/x", "A", 1], ["https://b.org", "B", 2]]);
        assert_eq!(check_history_deleted(&history, &json!({"type": "keywords", "keywords": ["amazon"]})).unwrap(), 0.0);
        assert_eq!(check_history_deleted(&history, &json!({"type": "keywords", "keywords": ["ebay"]})).unwrap(), 1.0);
        let cookies = json!([[1, ".amazon.com", "k"]]);
        assert_eq!(is_cookie_deleted(&cookies, &json!({"type": "domains", "domains": [".amazon.com"]})).unwrap(), 0.0);
        assert_eq!(is_cookie_deleted(&json!([]), &json!({"type": "domains", "domains": [".amazon.com"]})).unwrap(), 1.0);
        assert_eq!(check_font_size(&json!({"default_font_size": 20}), &json!({"type": "range", "min": 16, "max": 99})).unwrap(), 1.0);
        assert_eq!(check_font_size(&json!({"default_font_size": 16}), &json!({"type": "range", "min": 16, "max": 99})).unwrap(), 0.0);
        assert_eq!(check_enabled_experiments(&json!(["a@1", "b"]), &json!({"type": "names", "names": ["a", "b"]})).unwrap(), 1.0);
        assert_eq!(is_expected_url_pattern_match(&json!({"url": "https://x.org/a/b"}), &json!({"expected": ["x\\.org", "/b$"]})).unwrap(), 1.0);
        assert_eq!(is_expected_url_pattern_match(&json!("https://x.org/a"), &json!({"expected": ["/b$"]})).unwrap(), 0.0);
    }
}
