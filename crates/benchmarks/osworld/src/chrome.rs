//! OSWorld's Chrome on a desktop instance. Chromium plays it (the desktop's `google-chrome`
//! stand-in, with its profile in `~/.config/google-chrome`). Tasks launch it with a DevTools
//! port and forward that to 9222 with socat, as on OSWorld's machine. The set-up steps that open
//! and close tabs and the getters that read the live browser speak CDP to that port on the
//! instance's own loopback, with the client the web backend uses (`guigym-cdp`). The getters
//! that read the profile (bookmarks, history, cookies, preferences) read its files, where
//! OSWorld reads them.

use std::time::{Duration, Instant};

use guigym_cdp::Cdp;
use guigym_desktop::session::Session;
use serde_json::{json, Value};

use crate::loopback;

/// Where OSWorld's tasks make Chrome's DevTools answer (`socat tcp-listen:9222,fork
/// tcp:localhost:1337`), and where its getters connect.
pub const DEVTOOLS_PORT: u16 = 9222;
/// The profile OSWorld's getters read (`~/.config/google-chrome/Default`), as the instance
/// sees its home.
pub const PROFILE: &str = "/home/user/.config/google-chrome/Default";
/// The link a running Chrome keeps in its folder (its profile is in use).
pub const LOCK: &str = "/home/user/.config/google-chrome/SingletonLock";
/// Chrome's state outside the profile (`Local State`: chrome://flags experiments).
pub const LOCAL_STATE: &str = "/home/user/.config/google-chrome/Local State";
/// The longest wait for a page to load (OSWorld's `goto` timeout).
const LOAD_WAIT: Duration = Duration::from_secs(60);
/// The longest wait for the DevTools endpoint to answer and take the WebSocket.
const ANSWER_WAIT: Duration = Duration::from_secs(10);

/// A connection to the browser of one instance. The helper that carries it into the instance's
/// network ends with it.
pub struct Browser {
    cdp: Cdp,
    _helper: Option<tokio::process::Child>,
}

/// One open tab.
#[derive(Debug, Clone, PartialEq)]
pub struct Tab {
    pub id: String,
    pub title: String,
    pub url: String,
}

fn parse_version(body: &[u8]) -> Result<String, String> {
    let v: Value = serde_json::from_slice(body).map_err(|e| format!("the DevTools answer is not JSON: {e}"))?;
    v.get("webSocketDebuggerUrl").and_then(Value::as_str).map(String::from).ok_or_else(|| "the DevTools answer names no webSocketDebuggerUrl".into())
}

impl Browser {
    /// Connects to the instance's browser, trying for up to `wait` (it may be starting).
    pub async fn connect(session: &Session, wait: Duration) -> Result<Browser, String> {
        let deadline = Instant::now() + wait;
        loop {
            match Self::try_connect(session).await {
                Ok(b) => return Ok(b),
                Err(e) if Instant::now() >= deadline => return Err(format!("Chrome's DevTools on port {DEVTOOLS_PORT}: {e}")),
                Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
            }
        }
    }

    async fn try_connect(session: &Session) -> Result<Browser, String> {
        // Whatever listens on the port may be the agent's, and answer slowly or never.
        tokio::time::timeout(ANSWER_WAIT, Self::handshake(session)).await.map_err(|_| format!("no answer within {} s", ANSWER_WAIT.as_secs()))?
    }

    async fn handshake(session: &Session) -> Result<Browser, String> {
        let answer = loopback::get(session, DEVTOOLS_PORT, "/json/version", &[], ANSWER_WAIT).await?;
        let address = parse_version(&answer.body)?;
        let (stream, helper) = loopback::open_stream(session, DEVTOOLS_PORT).await?;
        let cdp = Cdp::connect_over(stream, &address, ANSWER_WAIT).await.map_err(|e| e.to_string())?;
        Ok(Browser { cdp, _helper: helper })
    }

    async fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        self.cdp.call(None, method, params).await.map_err(|e| e.to_string())
    }

    /// The open tabs (page targets), in the browser's order.
    pub async fn tabs(&self) -> Result<Vec<Tab>, String> {
        let targets = self.call("Target.getTargets", json!({})).await?;
        let infos = targets.get("targetInfos").and_then(Value::as_array).cloned().unwrap_or_default();
        let text = |t: &Value, k: &str| t.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
        let mut tabs: Vec<Tab> = infos
            .iter()
            .filter(|t| t.get("type").and_then(Value::as_str) == Some("page"))
            .map(|t| Tab { id: text(t, "targetId"), title: text(t, "title"), url: text(t, "url") })
            .collect();
        // The browser lists the newest first; tabs read left to right, oldest first.
        tabs.reverse();
        Ok(tabs)
    }

    /// Evaluates `expression` in a tab and gives its value.
    async fn evaluate(&self, tab: &str, expression: &str) -> Result<Value, String> {
        self.evaluate_awaiting(tab, expression, false).await
    }

    /// `evaluate`, awaiting the promise the expression gives when `awaiting`.
    async fn evaluate_awaiting(&self, tab: &str, expression: &str, awaiting: bool) -> Result<Value, String> {
        let attached = self.call("Target.attachToTarget", json!({"targetId": tab, "flatten": true})).await?;
        let session = attached.get("sessionId").and_then(Value::as_str).ok_or("no session for the tab")?.to_string();
        let value = self
            .cdp
            .call(Some(&session), "Runtime.evaluate", json!({"expression": expression, "returnByValue": true, "awaitPromise": awaiting}))
            .await
            .map_err(|e| e.to_string())
            .and_then(|v| match v.pointer("/exceptionDetails/exception/description").and_then(Value::as_str) {
                Some(thrown) => Err(thrown.to_string()),
                None => Ok(v.pointer("/result/value").cloned().unwrap_or(Value::Null)),
            });
        let _ = self.call("Target.detachFromTarget", json!({"sessionId": session})).await;
        value
    }

    /// Opens `url` in a new tab and waits (up to a minute) until it has loaded or failed to.
    pub async fn open(&self, url: &str) -> Result<String, String> {
        let made = self.call("Target.createTarget", json!({"url": url})).await?;
        let id = made.get("targetId").and_then(Value::as_str).ok_or("the new tab has no id")?.to_string();
        let deadline = Instant::now() + LOAD_WAIT;
        while Instant::now() < deadline {
            let state = self.evaluate(&id, "[document.readyState, location.href]").await.unwrap_or(Value::Null);
            let ready = state.get(0).and_then(Value::as_str) == Some("complete");
            let href = state.get(1).and_then(Value::as_str).unwrap_or("about:blank");
            if ready && (href != "about:blank" || url == "about:blank") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(id)
    }

    /// Adds a bookmark to the bookmarks bar, as the browser's own bookmark manager does (its
    /// page holds the bookmarks API).
    pub async fn bookmark(&self, url: &str, title: &str) -> Result<(), String> {
        let manager = self.open("chrome://bookmarks/").await?;
        // The bookmark bar is the model's node 1.
        let add = format!("new Promise((done, fail) => chrome.bookmarks.create({{parentId: '1', title: {}, url: {}}}, (node) => node ? done(node.id) : fail(new Error('not added'))))", json!(title), json!(url));
        let added = self.evaluate_awaiting(&manager, &add, true).await;
        let _ = self.close(&manager).await;
        added.map(|_| ())
    }

    pub async fn close(&self, tab: &str) -> Result<(), String> {
        self.call("Target.closeTarget", json!({"targetId": tab})).await.map(|_| ())
    }

    /// Every cookie the browser holds, as rows in the column order of Chrome's `cookies` table
    /// (creation_utc, host_key, top_frame_site_key, name, value, encrypted_value, path,
    /// expires_utc, is_secure, is_httponly).
    pub async fn cookies(&self) -> Result<Value, String> {
        let got = self.call("Storage.getCookies", json!({})).await?;
        let cookies = got.get("cookies").and_then(Value::as_array).cloned().unwrap_or_default();
        let text = |c: &Value, k: &str| c.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
        let flag = |c: &Value, k: &str| i64::from(c.get(k).and_then(Value::as_bool).unwrap_or(false));
        Ok(Value::Array(
            cookies
                .iter()
                .map(|c| {
                    json!([
                        0,
                        text(c, "domain"),
                        "",
                        text(c, "name"),
                        text(c, "value"),
                        "",
                        text(c, "path"),
                        c.get("expires").cloned().unwrap_or(json!(0)),
                        flag(c, "secure"),
                        flag(c, "httpOnly")
                    ])
                })
                .collect(),
        ))
    }

    /// The active tab: the one shown in the focused window (its document visible and
    /// focused), else the first one shown. Its title, URL and HTML.
    pub async fn active_tab(&self) -> Result<Option<Value>, String> {
        let mut shown = None;
        for tab in self.tabs().await? {
            let look = self.evaluate(&tab.id, "[document.visibilityState, document.hasFocus()]").await.unwrap_or(Value::Null);
            if look.get(0).and_then(Value::as_str) != Some("visible") {
                continue;
            }
            let focused = look.get(1).and_then(Value::as_bool) == Some(true);
            if focused || shown.is_none() {
                shown = Some(tab);
            }
            if focused {
                break;
            }
        }
        let Some(tab) = shown else { return Ok(None) };
        let page = self
            .evaluate(&tab.id, "[document.title, location.href, (document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '') + document.documentElement.outerHTML]")
            .await?;
        let text = |i: usize| page.get(i).and_then(Value::as_str).unwrap_or_default().to_string();
        Ok(Some(json!({"title": text(0), "url": text(1), "content": text(2)})))
    }
}

/// Chrome's address bar in the accessibility tree's XML (Chromium's application name).
pub const ADDRESS_BAR: &str = r"application[name=Chromium] entry[name=Address\ and\ search\ bar]";

/// OSWorld's `active_tab_url_parse`: the first value of each of `parse_keys` in the URL's
/// query ("" when absent), keys renamed by `replace`, values split at commas under
/// `split_list`.
pub fn url_query_values(url: &str, getter: &Value, field: &str) -> Result<Option<Value>, String> {
    let keys = getter.get("parse_keys").and_then(Value::as_array).ok_or_else(|| format!("{field}.parse_keys: a list of keys is needed"))?;
    let query = url.split_once('?').map(|(_, q)| q.split('#').next().unwrap_or("")).unwrap_or("");
    // Python's parse_qs: pairs split at &, blank values dropped, + and %XX decoded.
    let mut pairs: Vec<(String, String)> = Vec::new();
    for part in query.split('&') {
        let Some((k, v)) = part.split_once('=') else { continue };
        if !v.is_empty() {
            pairs.push((percent_decode(k), percent_decode(v)));
        }
    }
    let mut out = serde_json::Map::new();
    for key in keys {
        let key = key.as_str().ok_or_else(|| format!("{field}.parse_keys: keys are strings"))?;
        let value = pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).unwrap_or_default();
        out.insert(key.to_string(), Value::String(value));
    }
    if let Some(Value::Object(replace)) = getter.get("replace") {
        for (from, to) in replace {
            let to = to.as_str().ok_or_else(|| format!("{field}.replace: new names are strings"))?;
            let value = out.remove(from).ok_or_else(|| format!("{field}.replace: \"{from}\" is not one of parse_keys"))?;
            out.insert(to.to_string(), value);
        }
    }
    if getter.get("split_list").and_then(Value::as_bool).unwrap_or(false) {
        for v in out.values_mut() {
            let parts: Vec<Value> = v.as_str().unwrap_or_default().split(',').map(|p| Value::String(p.to_string())).collect();
            *v = Value::Array(parts);
        }
    }
    Ok(Some(Value::Object(out)))
}

/// `+` and `%XX` decoded, as Python's `unquote_plus` (bytes that are no UTF-8 replaced).
fn percent_decode(s: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'+', _, _) => out.push(b' '),
            (b'%', Some(high), Some(low)) => {
                out.push(high * 16 + low);
                i += 2;
            }
            (b, _, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// OSWorld's `url_dashPart`: the `partIndex`-th part of the URL split at `/` (without what
/// follows `?` under `needDeleteId`), as a string or `{key: part}`.
pub fn url_dash_part(url: &str, getter: &Value, field: &str) -> Result<Option<Value>, String> {
    let index = match getter.get("partIndex") {
        Some(Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().map(|f| f.trunc() as i64)),
        Some(Value::String(s)) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    let Some(index) = index else { return Ok(None) };
    let parts: Vec<&str> = url.split('/').collect();
    // Python indexes from the end for a negative index.
    let at = if index < 0 { parts.len() as i64 + index } else { index };
    let Some(part) = usize::try_from(at).ok().and_then(|i| parts.get(i)) else { return Ok(None) };
    let part = if getter.get("needDeleteId").and_then(Value::as_bool).unwrap_or(false) { part.split('?').next().unwrap_or("") } else { part };
    match getter.get("returnType").and_then(Value::as_str) {
        Some("string") => Ok(Some(Value::String(part.to_string()))),
        Some("json") => {
            let key = getter.get("key").and_then(Value::as_str).ok_or_else(|| format!("{field}.key is missing"))?;
            Ok(Some(json!({ key: part })))
        }
        Some(_) => Ok(None),
        None => Err(format!("{field}.returnType is missing")),
    }
}

/// Runs a browser operation to its end, on the caller's runtime or one of its own.
pub fn block_on<T>(future: impl std::future::Future<Output = Result<T, String>>) -> Result<T, String> {
    guigym_desktop::instance::block_on(future)
}

/// OSWorld's reading of a Chrome preference file's JSON, for the getters that read one: the
/// value at `path` of the file's JSON, or `default` when the file or the value is not there.
pub fn preference(file: Option<&[u8]>, path: &[&str], default: Value) -> Value {
    let Some(data) = file.and_then(|b| serde_json::from_slice::<Value>(b).ok()) else { return default };
    let mut at = &data;
    for key in path {
        match at.get(key) {
            Some(v) => at = v,
            None => return default,
        }
    }
    at.clone()
}

/// Microseconds since 1601-01-01 UTC (Chrome's clock), `seconds_ago` before now.
fn chrome_time(seconds_ago: f64) -> i64 {
    const FROM_1601_TO_1970: f64 = 11_644_473_600.0;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0);
    ((now + FROM_1601_TO_1970 - seconds_ago) * 1e6) as i64
}

/// Adds visits (URL, title, seconds ago) to a Chrome history file, one URL row and one typed-
/// link visit each, as OSWorld's `update_browse_history` step does.
pub fn add_visits(history: &std::path::Path, visits: &[(String, String, f64)]) -> Result<(), String> {
    let mut db = rusqlite::Connection::open(history).map_err(|e| e.to_string())?;
    let tx = db.transaction().map_err(|e| e.to_string())?;
    for (url, title, seconds_ago) in visits {
        let at = chrome_time(*seconds_ago);
        tx.execute(
            "INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) VALUES (?1, ?2, 1, 0, ?3, 0)",
            rusqlite::params![url, title, at],
        )
        .map_err(|e| e.to_string())?;
        let id = tx.last_insert_rowid();
        // 805306368: a link, the chain's start and end (Chrome's page transition bits).
        tx.execute(
            "INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, visit_duration) VALUES (?1, ?2, 0, 805306368, 0, 0)",
            rusqlite::params![id, at],
        )
        .map_err(|e| e.to_string())?;
    }
    tx.commit().map_err(|e| e.to_string())
}

/// The rows of a query on a SQLite file of the profile (history, cookies), as JSON arrays;
/// `None` when it cannot be read (OSWorld's getters give None then). BLOBs are given as
/// lowercase hex.
pub fn sqlite_rows(path: &std::path::Path, query: &str) -> Option<Value> {
    let db = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
    let mut statement = db.prepare(query).ok()?;
    let columns = statement.column_count();
    let rows = statement
        .query_map([], |row| {
            let mut values = Vec::with_capacity(columns);
            for i in 0..columns {
                use rusqlite::types::ValueRef;
                values.push(match row.get_ref(i)? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(n) => json!(n),
                    ValueRef::Real(x) => json!(x),
                    ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
                    ValueRef::Blob(b) => Value::String(b.iter().map(|x| format!("{x:02x}")).collect()),
                });
            }
            Ok(Value::Array(values))
        })
        .ok()?;
    rows.collect::<Result<Vec<_>, _>>().ok().map(Value::Array)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browser_is_found_by_its_version_answer() {
        assert_eq!(parse_version(br#"{"webSocketDebuggerUrl": "ws://127.0.0.1:9222/devtools/browser/x"}"#).unwrap(), "ws://127.0.0.1:9222/devtools/browser/x");
        assert!(parse_version(b"{}").is_err());
    }

    #[test]
    fn urls_are_taken_apart_as_osworld_does() {
        let url = "https://www.google.com/search?q=red+shoes&hl=en&x=&tbm=isch%2Cnews#top";
        let got = url_query_values(url, &json!({"parse_keys": ["q", "tbm", "x", "nope"], "replace": {"q": "query"}}), "g").unwrap().unwrap();
        assert_eq!(got, json!({"query": "red shoes", "tbm": "isch,news", "x": "", "nope": ""}));
        let split = url_query_values(url, &json!({"parse_keys": ["tbm"], "split_list": true}), "g").unwrap().unwrap();
        assert_eq!(split, json!({"tbm": ["isch", "news"]}));
        assert_eq!(percent_decode("%E6%97%A5%zz%"), "日%zz%");
        let dash = |v: Value| url_dash_part("https://a.com/p/item-name?id=7", &v, "g").unwrap();
        assert_eq!(dash(json!({"partIndex": 4, "needDeleteId": true, "returnType": "string"})), Some(json!("item-name")));
        assert_eq!(dash(json!({"partIndex": "-1", "returnType": "json", "key": "k"})), Some(json!({"k": "item-name?id=7"})));
        assert_eq!(dash(json!({"partIndex": 9, "returnType": "string"})), None);
    }

    #[test]
    fn preferences_fall_back_as_osworld_does() {
        let file = br#"{"webkit": {"webprefs": {"default_font_size": 20}}}"#;
        assert_eq!(preference(Some(file), &["webkit", "webprefs"], json!({})), json!({"default_font_size": 20}));
        assert_eq!(preference(Some(file), &["intl", "app_locale"], json!("en-US")), json!("en-US"));
        assert_eq!(preference(Some(b"not json"), &["x"], json!(1)), json!(1));
        assert_eq!(preference(None, &["x"], json!(1)), json!(1));
    }
}
