//! OSWorld's task runner on a desktop instance: its set-up steps (and ours that write a
//! file, a workbook, a document or a deck from data), its getters, and its evaluator (post-config
//! steps, then each metric over its getters, combined by `conj` as OSWorld does). What a task's
//! steps and getters may do is only what the instance offers any benchmark (`Instance`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use guigym_core::{Check, Verdict};
use guigym_desktop::instance::{Failure, Files, Instance};
use guigym_desktop::session::{Output, VLC_HTTP_PORT};
use guigym_desktop::x11::WindowInfo;
use serde_json::Value;

use crate::chrome::{self, Browser};
use crate::loopback;
use crate::media;
use crate::metrics::{self, Got};
use crate::office;
use crate::pyautogui;
use crate::task::{ConfigStep, OsWorldTask};

/// Longest `execute` or getter command.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest file a getter takes out of the instance.
const MAX_FILE: u64 = 64 << 20;
/// The folder, among the getters' files, where steps keep what commands printed.
const OUTPUTS: &str = ".outputs";
/// How long a set-up step waits for Chrome's DevTools (the browser may be starting).
const CHROME_START: Duration = Duration::from_secs(30);
/// The longest a getter reads the live browser.
const CHROME_LIVE_LIMIT: Duration = Duration::from_secs(60);
/// How long a getter waits for it (a browser the agent closed never answers).
const CHROME_LOOK: Duration = Duration::from_secs(3);

/// How long after the agent's last input Chrome has written what it keeps in memory to its
/// profile: bookmarks within 2.5 s, preferences and history within 10 s. (OSWorld's runner
/// waits 20 s before every evaluation.)
const CHROME_WRITES: Duration = Duration::from_secs(11);

/// How long the `vlc_playing_info` getter waits for VLC's web interface.
const VLC_LOOK: Duration = Duration::from_secs(5);
/// VLC's settings, as the instance sees its home.
const VLC_CONFIG: &str = "/home/user/.config/vlc/vlcrc";

/// GIMP's settings folder, as the instance sees its home.
const GIMP_CONFIG: &str = "/home/user/.config/GIMP/2.10";

/// The video types OSWorld's `default_video_player` getter asks `xdg-mime` about, as it lists
/// them (most twice: each answer counts as often as its type is listed).
const VIDEO_TYPES: &[&str] = &[
    "3gp",
    "3gp",
    "3gpp",
    "3gpp",
    "3gpp2",
    "3gpp2",
    "avi",
    "avi",
    "divx",
    "divx",
    "dv",
    "dv",
    "fli",
    "fli",
    "flv",
    "flv",
    "mp2t",
    "mp2t",
    "mp4",
    "mp4",
    "mp4v-es",
    "mp4v-es",
    "mpeg",
    "mpeg",
    "mpeg-system",
    "mpeg-system",
    "msvideo",
    "msvideo",
    "ogg",
    "ogg",
    "quicktime",
    "quicktime",
    "vnd.divx",
    "vnd.divx",
    "vnd.mpegurl",
    "vnd.mpegurl",
    "vnd.rn-realvideo",
    "vnd.rn-realvideo",
    "webm",
    "webm",
    "x-anim",
    "x-anim",
    "x-avi",
    "x-avi",
    "x-flc",
    "x-flc",
    "x-fli",
    "x-fli",
    "x-flv",
    "x-flv",
    "x-m4v",
    "x-m4v",
    "x-matroska",
    "x-matroska",
    "x-mpeg",
    "x-mpeg",
    "x-mpeg-system",
    "x-mpeg-system",
    "x-mpeg2",
    "x-mpeg2",
    "x-ms-asf",
    "x-ms-asf",
    "x-ms-asf-plugin",
    "x-ms-asf-plugin",
    "x-ms-asx",
    "x-ms-asx",
    "x-ms-wm",
    "x-ms-wm",
    "x-ms-wmv",
    "x-ms-wmv",
    "x-ms-wmx",
    "x-ms-wmx",
    "x-ms-wvx",
    "x-ms-wvx",
    "x-msvideo",
    "x-msvideo",
    "x-nsv",
    "x-nsv",
    "x-ogm",
    "x-ogm",
    "x-ogm+ogg",
    "x-theora",
    "x-theora",
    "x-theora+ogg",
    "x-theora+ogg",
];

/// The answer given most often over `listed` (`answers[i]` is the answer for `unique[i]`),
/// the first given on a tie, as Python's `Counter.most_common` picks; `unknown` when every
/// answer is empty. Answers keep their line end, as OSWorld's command getter returns them.
fn most_common_app(listed: &[&str], unique: &[&str], answers: &[&str]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for t in listed {
        let Some(answer) = unique.iter().position(|u| u == t).and_then(|i| answers.get(i)).filter(|a| !a.is_empty()) else { continue };
        match counts.iter_mut().find(|(a, _)| a == answer) {
            Some((_, n)) => *n += 1,
            None => counts.push((answer, 1)),
        }
    }
    let best = counts.iter().map(|(_, n)| *n).max();
    counts.iter().find(|(_, n)| Some(*n) == best).map_or_else(|| "unknown".to_string(), |(a, _)| a.to_string())
}

/// Programs a `launch` step starts that open no window and keep running (OSWorld's tasks
/// forward Chrome's DevTools port with socat): not waited for. (One that ends, such as
/// `pkill`, is waited for until it ends.)
const WINDOWLESS: &[&str] = &["socat"];

/// Window names OSWorld's tasks use, and what the window is called here (Chromium plays
/// Chrome).
const WINDOW_NAMES: &[(&str, &str)] = &[("Google Chrome", "Chromium"), ("google-chrome", "chromium")];

fn bad(message: impl Into<String>) -> Failure {
    Failure::BadTask(message.into())
}

/// The runner of one task on one instance.
pub struct Runner<'a> {
    pub desktop: &'a mut Instance,
    /// The OSWorld task's id: assets are cached under it.
    pub task_id: &'a str,
    /// OSWorld's asset cache: `<cache>/<task id>/<file name>`.
    pub cache: Option<PathBuf>,
}

/// A step's or getter's command: a list is an argv (run by the shell when `shell`); a string
/// is run by the shell when `shell`, else split on whitespace (as OSWorld's controller does).
/// OSWorld's screen placeholders are filled in.
/// OSWorld's placeholders in a command, filled as its set-up controller fills them: the
/// screen's size and half-size, and the machine's password (OSWorld's default, `password`).
pub fn fill_placeholders(s: &str, screen: (u32, u32)) -> String {
    s.replace("{CLIENT_PASSWORD}", "password")
        .replace("{SCREEN_WIDTH_HALF}", &(screen.0 / 2).to_string())
        .replace("{SCREEN_HEIGHT_HALF}", &(screen.1 / 2).to_string())
        .replace("{SCREEN_WIDTH}", &screen.0.to_string())
        .replace("{SCREEN_HEIGHT}", &screen.1.to_string())
}

/// A step's command, its placeholders filled for `screen`: the instance's for a command run,
/// OSWorld's own for a pyautogui program (whose points are read in OSWorld's 1920×1080 and
/// scaled to the instance).
fn command_of(parameters: &Value, field: &str, screen: (u32, u32)) -> Result<(Vec<String>, bool), Failure> {
    let shell = parameters.get("shell").and_then(Value::as_bool).unwrap_or(false);
    let raw: Option<Vec<String>> = parameters.get("command").and_then(Value::as_array).and_then(|a| a.iter().map(|v| v.as_str().map(String::from)).collect());
    let screen = if !shell && raw.as_deref().and_then(pyautogui::program_of).is_some() { pyautogui::SCREEN_PIXELS } else { screen };
    let fill = |s: &str| fill_placeholders(s, screen);
    match parameters.get("command") {
        Some(Value::String(s)) if shell => Ok((vec![fill(s)], true)),
        Some(Value::String(s)) => Ok((s.split_whitespace().map(fill).collect(), false)),
        Some(Value::Array(a)) => {
            let argv: Option<Vec<String>> = a.iter().map(|v| v.as_str().map(fill)).collect();
            argv.filter(|a| !a.is_empty()).map(|a| (a, shell)).ok_or_else(|| bad(format!("{field}.command: a list of strings is needed")))
        }
        _ => Err(bad(format!("{field}.command is missing"))),
    }
}

/// Python's `uuid.uuid5(uuid.NAMESPACE_URL, name)`: how OSWorld names a downloaded asset.
pub fn uuid5_url(name: &str) -> String {
    use sha1::Digest;
    const NAMESPACE_URL: [u8; 16] = [0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8];
    let mut h = sha1::Sha1::new();
    h.update(NAMESPACE_URL);
    h.update(name.as_bytes());
    let d = h.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

fn str_param<'a>(parameters: &'a Value, field: &str, name: &str) -> Result<&'a str, Failure> {
    parameters.get(name).and_then(Value::as_str).ok_or_else(|| bad(format!("{field}.{name} is missing")))
}

/// Whether a file getter names several files: its `multi` by Python's truth, as OSWorld's
/// getters read it (some task files write `"true"`).
pub fn is_multi(getter: &Value) -> bool {
    getter.get("multi").is_some_and(crate::metrics::python_truthy)
}

/// A file getter's `(path, dest)` pairs: one, or with `multi` a list of each (OSWorld's
/// `vm_file` and `cloud_file`). A `vm_file`'s single `dest` defaults to the path's file name; a
/// `cloud_file` must name it (its path is a URL).
pub fn files_of(getter: &Value, field: &str) -> Result<Vec<(String, String)>, Failure> {
    if !is_multi(getter) {
        let path = str_param(getter, field, "path")?.to_string();
        let dest = match getter.get("dest").and_then(Value::as_str) {
            Some(dest) => dest.to_string(),
            None if getter.get("type").and_then(Value::as_str) == Some("cloud_file") => return Err(bad(format!("{field}.dest is missing"))),
            None => Path::new(&path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "result".into()),
        };
        return Ok(vec![(path, dest)]);
    }
    let paths = str_list(getter, field, "path")?;
    let dests = str_list(getter, field, "dest")?;
    if paths.len() != dests.len() {
        return Err(bad(format!("{field}: {} paths and {} dests", paths.len(), dests.len())));
    }
    Ok(paths.into_iter().zip(dests).collect())
}

/// What a file getter gives of the files it fetched: those its `gives` indices name (the
/// first by default), one as itself, several as a list.
fn given(getter: &Value, field: &str, mut got: Vec<Got>) -> Result<Got, Failure> {
    let gives: Vec<usize> = match getter.get("gives") {
        None => vec![0],
        Some(v) => serde_json::from_value(v.clone()).map_err(|_| bad(format!("{field}.gives: a list of indices is needed")))?,
    };
    let mut picked: Vec<Got> = (0..got.len()).filter(|i| gives.contains(i)).map(|i| std::mem::replace(&mut got[i], Got::Missing)).collect();
    Ok(if picked.len() == 1 { picked.remove(0) } else { Got::Files(picked) })
}

fn str_list(parameters: &Value, field: &str, name: &str) -> Result<Vec<String>, Failure> {
    parameters
        .get(name)
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(|v| v.as_str().map(String::from)).collect::<Option<Vec<_>>>())
        .ok_or_else(|| bad(format!("{field}.{name}: a list of strings is needed")))
}

/// What OSWorld's getter of a Chrome preference gives, from the profile's `Preferences` (its
/// defaults included, where the file or the value is missing or unreadable).
fn chrome_preference(kind: &str, file: Option<&[u8]>) -> Value {
    use serde_json::json;
    let yes_no = |b: bool| json!(if b { "true" } else { "false" });
    let truthy = |v: &Value| !matches!(v, Value::Null | Value::Bool(false)) && v != &json!(0) && v != &json!("") && v != &json!([]) && v != &json!({});
    let readable = file.and_then(|b| serde_json::from_slice::<Value>(b).ok()).is_some();
    match kind {
        "default_search_engine" => chrome::preference(file, &["default_search_provider_data", "template_url_data", "short_name"], json!("Google")),
        "chrome_font_size" => {
            let defaults = json!({"default_fixed_font_size": 13, "default_font_size": 16, "minimum_font_size": 13});
            if readable {
                chrome::preference(file, &["webkit", "webprefs"], defaults)
            } else {
                json!({"default_fixed_font_size": 13, "default_font_size": 16})
            }
        }
        "chrome_language" => chrome::preference(file, &["intl", "app_locale"], json!("en-US")),
        "profile_name" => chrome::preference(file, &["profile", "name"], Value::Null),
        "enable_do_not_track" => yes_no(truthy(&chrome::preference(file, &["enable_do_not_track"], json!({})))),
        "enable_enhanced_safety_browsing" if readable => yes_no(truthy(&chrome::preference(file, &["safebrowsing", "enhanced"], json!({})))),
        "enable_safe_browsing" => {
            let on = |k: &str| truthy(&chrome::preference(file, &["safebrowsing", k], json!(false)));
            yes_no(on("enhanced") || on("enabled"))
        }
        "data_delete_automacally" if readable => match chrome::preference(file, &["profile"], Value::Null) {
            Value::Object(p) => yes_no(p.get("default_content_setting_values").is_some_and(|v| !v.is_null())),
            // OSWorld's getter fails on a profile entry it cannot index, and answers "Google".
            _ => json!("Google"),
        },
        // OSWorld's getter answers "Google" when it cannot read the file.
        _ => json!("Google"),
    }
}

impl Runner<'_> {
    /// A file of Chrome's profile as the instance's account reads it (`None` when missing),
    /// once a running Chrome has written what the agent last did.
    fn profile_file(&mut self, name: &str) -> Result<Option<Vec<u8>>, Failure> {
        self.wait_for_chrome_writes();
        let path = self.desktop.session.path(&format!("{}/{name}", chrome::PROFILE));
        self.desktop.session.read_file(&path, MAX_FILE).map_err(Failure::Infra)
    }

    /// Waits, while Chrome runs (its profile is locked), until `CHROME_WRITES` has passed since
    /// the agent's last input.
    fn wait_for_chrome_writes(&self) {
        let lock = self.desktop.session.path(chrome::LOCK);
        if std::fs::symlink_metadata(lock).is_ok() {
            if let Some(rest) = CHROME_WRITES.checked_sub(self.desktop.last_input.elapsed()) {
                std::thread::sleep(rest);
            }
        }
    }

    /// The browser's cookies as rows of Chrome's `cookies` table (creation_utc, host_key,
    /// top_frame_site_key, name, value, encrypted_value, path, expires_utc, is_secure,
    /// is_httponly); `None` when no browser answers.
    fn live_cookies(&self) -> Result<Option<Value>, Failure> {
        let session = &self.desktop.session;
        chrome::block_on(async {
            let Ok(browser) = Browser::connect(session, CHROME_LOOK).await else { return Ok(None) };
            browser.cookies().await.map(Some)
        })
        .map_err(Failure::Infra)
    }

    /// What Chrome's address bar shows, after the getter's `goto_prefix`; `None` where the tree
    /// or the bar cannot be read.
    fn address_bar(&mut self, getter: &Value) -> Result<Option<String>, Failure> {
        let Some(nodes) = self.desktop.accessibility_tree()? else { return Ok(None) };
        let tree = guigym_desktop::a11y::osworld_xml(&nodes);
        let texts = metrics::accessibility_texts(&tree, chrome::ADDRESS_BAR).map_err(Failure::Infra)?;
        // OSWorld checks the last bar's text and reads the first's (Python writes a missing one
        // as "None").
        if texts.last().is_none_or(|t| t.as_deref().unwrap_or_default().is_empty()) {
            return Ok(None);
        }
        let prefix = getter.get("goto_prefix").and_then(Value::as_str).unwrap_or("https://");
        Ok(Some(format!("{prefix}{}", texts[0].as_deref().unwrap_or("None"))))
    }

    fn find_window(&self, parameters: &Value, field: &str) -> Result<Option<WindowInfo>, Failure> {
        let name = str_param(parameters, field, "window_name")?;
        let name = WINDOW_NAMES.iter().find(|(theirs, _)| *theirs == name).map_or(name, |(_, ours)| ours);
        let strict = parameters.get("strict").and_then(Value::as_bool).unwrap_or(false);
        let by_class = parameters.get("by_class").and_then(Value::as_bool).unwrap_or(false);
        Ok(self.desktop.windows().into_iter().find(|w| {
            let text = if by_class { &w.class } else { &w.title };
            if strict {
                text == name || by_class && w.instance == name
            } else {
                text.to_lowercase().contains(&name.to_lowercase()) || by_class && w.instance.to_lowercase().contains(&name.to_lowercase())
            }
        }))
    }

    /// One set-up step; what it wrote in the home becomes the applications' own.
    pub fn run_step(&mut self, step: &ConfigStep, field: &str) -> Result<(), Failure> {
        let done = self.apply_step(step, field);
        self.desktop.session.give_home();
        done
    }

    /// One set-up step (OSWorld's step types, and `write_file` of ours).
    fn apply_step(&mut self, step: &ConfigStep, field: &str) -> Result<(), Failure> {
        let p = &step.parameters;
        match step.kind.as_str() {
            "launch" => {
                let (command, shell) = command_of(p, field, self.desktop.screen())?;
                let program = command.first().map(|c| c.rsplit('/').next().unwrap_or(c)).unwrap_or_default();
                if !shell && WINDOWLESS.contains(&program) {
                    return self.desktop.session.launch(&command, false).map_err(Failure::BadTask);
                }
                self.desktop.launch(&command, shell)
            }
            // Opens each URL in a new tab, then closes the tab the browser started with (as
            // OSWorld's step does after the first).
            "chrome_open_tabs" => {
                let urls = str_list(p, field, "urls_to_open")?;
                let session = &self.desktop.session;
                chrome::block_on(async {
                    let browser = Browser::connect(session, CHROME_START).await?;
                    let first = browser.tabs().await?.into_iter().next();
                    for (i, url) in urls.iter().enumerate() {
                        browser.open(url).await?;
                        if let (0, Some(first)) = (i, &first) {
                            browser.close(&first.id).await?;
                        }
                    }
                    Ok(())
                })
                .map_err(Failure::Infra)?;
                // What the new tabs draw settles before the agent's first look.
                self.desktop.settle();
                Ok(())
            }
            // Ours: a bookmark on the bar, added through the browser's bookmark manager (a
            // catalogue task's golden); done once the profile's file holds it.
            "chrome_bookmark" => {
                let (url, title) = (str_param(p, field, "url")?, str_param(p, field, "title")?);
                let session = &self.desktop.session;
                chrome::block_on(async {
                    let browser = Browser::connect(session, CHROME_START).await?;
                    browser.bookmark(url, title).await
                })
                .map_err(Failure::Infra)?;
                let path = self.desktop.session.path(&format!("{}/Bookmarks", chrome::PROFILE));
                let deadline = std::time::Instant::now() + CHROME_WRITES;
                let needle = serde_json::to_string(url).unwrap_or_default();
                while std::time::Instant::now() < deadline {
                    let file = self.desktop.session.read_file(&path, MAX_FILE).map_err(Failure::Infra)?;
                    if file.is_some_and(|f| String::from_utf8_lossy(&f).contains(&needle)) {
                        return Ok(());
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(Failure::Infra(format!("Chrome did not write the bookmark of {url} within {} s", CHROME_WRITES.as_secs())))
            }
            // Visits added to Chrome's history, each so many seconds ago (as OSWorld's step
            // writes them into its empty history file; here the profile's own, made by Chromium
            // once if the profile has none yet).
            "update_browse_history" => {
                let items = p.get("history").and_then(Value::as_array).ok_or_else(|| bad(format!("{field}.history: a list of visits is needed")))?;
                let mut visits = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let at = format!("{field}.history[{i}]");
                    let seconds = item
                        .get("visit_time_from_now_in_seconds")
                        .and_then(Value::as_f64)
                        .ok_or_else(|| bad(format!("{at}.visit_time_from_now_in_seconds is missing")))?;
                    visits.push((str_param(item, &at, "url")?.to_string(), str_param(item, &at, "title")?.to_string(), seconds));
                }
                let path = self.desktop.session.path(&format!("{}/History", chrome::PROFILE));
                let mut history = self.desktop.session.read_file(&path, MAX_FILE).map_err(Failure::Infra)?;
                if history.is_none() {
                    let make = ["google-chrome", "--headless", "--dump-dom", "about:blank"].map(String::from);
                    self.desktop.session.run(&make, false, COMMAND_TIMEOUT).map_err(Failure::Infra)?;
                    history = self.desktop.session.read_file(&path, MAX_FILE).map_err(Failure::Infra)?;
                }
                let history = history.ok_or_else(|| Failure::Infra("Chromium made no history file in the profile".into()))?;
                let local = self.desktop.fetched("History.setup")?;
                std::fs::write(&local, history).map_err(|e| Failure::Infra(format!("{}: {e}", local.display())))?;
                chrome::add_visits(&local, &visits).map_err(|e| Failure::Infra(format!("adding visits to Chrome's history: {e}")))?;
                let bytes = std::fs::read(&local).map_err(|e| Failure::Infra(format!("{}: {e}", local.display())))?;
                let _ = std::fs::remove_file(&local);
                self.desktop.session.write_file(&path, bytes).map_err(Failure::Infra)
            }
            // Closes, for each URL, the first tab showing it (by OSWorld's `compare_urls`).
            "chrome_close_tabs" => {
                let urls = str_list(p, field, "urls_to_close")?;
                let session = &self.desktop.session;
                chrome::block_on(async {
                    let browser = Browser::connect(session, CHROME_START).await?;
                    for url in &urls {
                        if let Some(tab) = browser.tabs().await?.into_iter().find(|t| metrics::compare_urls(&t.url, url)) {
                            browser.close(&tab.id).await?;
                        }
                    }
                    Ok(())
                })
                .map_err(Failure::Infra)
            }
            "execute" | "command" => {
                let (command, shell) = command_of(p, field, self.desktop.screen())?;
                // A pyautogui program is read, not run: its inputs are made on the display.
                if let Some(code) = pyautogui::program_of(&command).filter(|_| !shell) {
                    let inputs = pyautogui::read(code).map_err(|e| bad(format!("{field}.command: a pyautogui program: {e}")))?;
                    return self.make_inputs(&inputs);
                }
                let Output { stdout, stderr, .. } = self.desktop.session.run(&command, shell, COMMAND_TIMEOUT).map_err(Failure::BadTask)?;
                // OSWorld keeps what the command printed in the task's cache, where a
                // `cache_file` getter reads it; here in this episode's own folder.
                for (name, text) in [("stdout", stdout), ("stderr", stderr)] {
                    if let Some(file) = p.get(name).and_then(Value::as_str).filter(|f| !f.is_empty()) {
                        let path = self.output_path(file, &format!("{field}.{name}"))?;
                        std::fs::write(&path, text).map_err(|e| Failure::Infra(format!("{}: {e}", path.display())))?;
                    }
                }
                Ok(())
            }
            "open" => {
                let path = self.desktop.session.path(str_param(p, field, "path")?);
                if !path.exists() {
                    return Err(bad(format!("{field}.path: {} does not exist", path.display())));
                }
                self.desktop.launch(&guigym_desktop::home::opener(&path), false)
            }
            "sleep" => {
                let seconds = p.get("seconds").and_then(Value::as_f64).ok_or_else(|| bad(format!("{field}.seconds is missing")))?;
                std::thread::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 60.0)));
                Ok(())
            }
            "activate_window" | "close_window" => {
                let Some(w) = self.find_window(p, field)? else {
                    // OSWorld's controller logs and goes on when no window matches.
                    return Ok(());
                };
                let done = if step.kind == "activate_window" { self.desktop.display.activate(w.id) } else { self.desktop.display.close(w.id) };
                done.map_err(|e| Failure::Infra(e.to_string()))
            }
            "download" | "upload_file" => {
                let files = p.get("files").and_then(Value::as_array).ok_or_else(|| bad(format!("{field}.files is missing")))?;
                for (i, f) in files.iter().enumerate() {
                    let dest = self.desktop.session.path(str_param(f, &format!("{field}.files[{i}]"), "path")?);
                    let source = if step.kind == "download" {
                        let url = str_param(f, &format!("{field}.files[{i}]"), "url")?;
                        let base = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                        self.cached(&format!("{}_{base}", uuid5_url(url)), url)?
                    } else {
                        PathBuf::from(str_param(f, &format!("{field}.files[{i}]"), "local_path")?)
                    };
                    let bytes = std::fs::read(&source).map_err(|e| bad(format!("{field}.files[{i}]: reading {}: {e}", source.display())))?;
                    self.desktop.session.write_file(&dest, bytes).map_err(Failure::Infra)?;
                }
                Ok(())
            }
            // Ours: a text file the task starts from.
            "write_file" => {
                let path = self.desktop.session.path(str_param(p, field, "path")?);
                let text = str_param(p, field, "text")?;
                self.desktop.session.write_file(&path, text.as_bytes().to_vec()).map_err(Failure::Infra)
            }
            // Ours: a sound (a tone) or a video (a moving gradient) the task starts from, made
            // from data: VLC plays both.
            "write_media" => {
                let path = self.desktop.session.path(str_param(p, field, "path")?);
                let seconds = || {
                    let seconds = p.get("seconds").and_then(Value::as_f64).filter(|s| *s > 0.0 && *s <= 600.0);
                    seconds.ok_or_else(|| bad(format!("{field}.seconds: a length of up to 600 s is needed")))
                };
                let bytes = match str_param(p, field, "kind")? {
                    "tone" => {
                        let hz = p.get("hz").and_then(Value::as_f64).filter(|h| (20.0..=3000.0).contains(h));
                        media::tone_wav(hz.ok_or_else(|| bad(format!("{field}.hz: a pitch from 20 to 3000 Hz is needed")))?, seconds()?)
                    }
                    "clip" => {
                        let shade = p.get("shade").and_then(Value::as_u64).unwrap_or(128).min(255) as u8;
                        media::clip_y4m(seconds()?, shade)
                    }
                    "picture" => picture(p, field).map_err(bad)?,
                    other => return Err(bad(format!("{field}.kind: \"{other}\" is not a medium (tone, clip, picture)"))),
                };
                self.desktop.session.write_file(&path, bytes).map_err(Failure::Infra)
            }
            // Ours: a workbook, a document or a deck the task starts from, written from data.
            "write_table" | "write_document" | "write_presentation" => {
                let path = self.desktop.session.path(str_param(p, field, "path")?);
                // Made in guigym's own folder, then written into the home as the account.
                let made = self.desktop.fetched(".made")?;
                write_office_file(&step.kind, p, field, &made)?;
                let bytes = std::fs::read(&made).map_err(|e| Failure::Infra(format!("{}: {e}", made.display())))?;
                let _ = std::fs::remove_file(&made);
                self.desktop.session.write_file(&path, bytes).map_err(Failure::Infra)
            }
            other => Err(bad(format!("{field}.type: step \"{other}\" is not supported; steps: {}", STEPS.join(", ")))),
        }
    }

    /// Makes a pyautogui program's inputs on the display, its points scaled from the screen
    /// OSWorld's programs are written for to the instance's. A click without a point is where
    /// the last one was, the screen's centre before any.
    fn make_inputs(&mut self, inputs: &[pyautogui::Input]) -> Result<(), Failure> {
        let (width, height) = self.desktop.screen();
        let scale = |(x, y): (f64, f64)| {
            let x = (x * f64::from(width) / pyautogui::SCREEN.0).round().clamp(0.0, f64::from(width) - 1.0);
            let y = (y * f64::from(height) / pyautogui::SCREEN.1).round().clamp(0.0, f64::from(height) - 1.0);
            (x as i32, y as i32)
        };
        let mut pointer = ((width / 2) as i32, (height / 2) as i32);
        for input in inputs {
            let display = &mut self.desktop.display;
            let done = match input {
                pyautogui::Input::Keys(keys) => display.chord(keys),
                pyautogui::Input::Text(text) => display.type_text(text).map_err(|e| e.to_string()),
                pyautogui::Input::Button { at, button, times } => {
                    pointer = at.map_or(pointer, scale);
                    display.click(pointer.0, pointer.1, *button, *times).map_err(|e| e.to_string())
                }
                pyautogui::Input::Hold { at, button, down } => {
                    pointer = at.map_or(pointer, scale);
                    display.move_to(pointer.0, pointer.1).and_then(|()| display.button(*button, *down)).map_err(|e| e.to_string())
                }
                pyautogui::Input::Move(at) => {
                    pointer = scale(*at);
                    display.move_to(pointer.0, pointer.1).map_err(|e| e.to_string())
                }
                pyautogui::Input::Sleep(pause) => {
                    std::thread::sleep(*pause);
                    Ok(())
                }
            };
            done.map_err(Failure::Infra)?;
            self.desktop.last_input = std::time::Instant::now();
        }
        Ok(())
    }

    /// OSWorld's asset cache for a task: `<cache>/<task id>/`. `download` steps keep a file as
    /// `<uuid5(url)>_<file name>`, `cloud_file` getters as their `dest`.
    pub fn cached(&self, name: &str, url: &str) -> Result<PathBuf, Failure> {
        let cache = self.cache.as_ref().ok_or_else(|| bad(format!("{url}: no asset cache is configured (GUIGYM_OSWORLD_CACHE)")))?;
        let path = cache.join(self.task_id).join(name);
        path.exists().then_some(path.clone()).ok_or_else(|| bad(format!("{url}: not in the asset cache ({})", path.display())))
    }

    /// Where a command's output named `name` (a step's `stdout` or `stderr`) is kept for this
    /// episode: a folder emptied at each reset.
    fn output_path(&self, name: &str, field: &str) -> Result<PathBuf, Failure> {
        if !crate::assets::plain_name(name) {
            return Err(bad(format!("{field}: \"{name}\" is not a plain file name")));
        }
        let dir = self.desktop.fetched(OUTPUTS)?;
        std::fs::create_dir_all(&dir).map_err(|e| Failure::Infra(format!("{}: {e}", dir.display())))?;
        Ok(dir.join(name))
    }

    /// A getter's value: a file copied out of the instance, a command's output, a rule.
    pub fn get(&mut self, getter: &Value, field: &str) -> Result<Got, Failure> {
        let kind = str_param(getter, field, "type")?;
        match kind {
            "vm_file" => {
                let mut got = Vec::new();
                for (path, dest) in files_of(getter, field)? {
                    let path = self.desktop.session.path(&path);
                    let local = self.desktop.fetched(&dest)?;
                    got.push(match self.desktop.session.read_file(&path, MAX_FILE).map_err(Failure::Infra)? {
                        Some(bytes) => {
                            std::fs::write(&local, bytes).map_err(|e| Failure::Infra(format!("{}: {e}", local.display())))?;
                            Got::File(local)
                        }
                        None => Got::Missing,
                    });
                }
                given(getter, field, got)
            }
            "vm_command_line" | "vm_command_error" => {
                let (command, shell) = command_of(getter, field, self.desktop.screen())?;
                let Output { stdout, stderr, .. } = self.desktop.session.run(&command, shell, COMMAND_TIMEOUT).map_err(Failure::BadTask)?;
                Ok(Got::Text(if kind == "vm_command_line" { stdout } else { stderr }))
            }
            "rule" => Ok(Got::Json(getter.get("rules").cloned().unwrap_or(Value::Null))),
            // A file of OSWorld's task cache: a command's output kept by a step, else an asset.
            "cache_file" => {
                let name = str_param(getter, field, "path")?;
                let output = self.output_path(name, &format!("{field}.path"))?;
                if output.is_file() {
                    return Ok(Got::File(output));
                }
                self.cached(name, &format!("the cache file {name}")).map(Got::File)
            }
            "cloud_file" => {
                let got = files_of(getter, field)?.into_iter().map(|(url, dest)| self.cached(&dest, &url).map(Got::File)).collect::<Result<_, _>>()?;
                given(getter, field, got)
            }
            // Ours: a picture's expected form, drawn again from its data.
            "picture_file" => {
                let local = self.desktop.fetched(str_param(getter, field, "dest")?)?;
                std::fs::write(&local, picture(getter, field).map_err(bad)?).map_err(|e| Failure::Infra(format!("{}: {e}", local.display())))?;
                Ok(Got::File(local))
            }
            // Ours: the expected file, made from data at evaluation time.
            "table_file" | "document_file" | "presentation_file" => {
                let local = self.desktop.fetched(str_param(getter, field, "dest")?)?;
                write_office_file(kind, getter, field, &local)?;
                Ok(Got::File(local))
            }
            // The accessibility tree as OSWorld's server gives it (XML), read afresh.
            "accessibility_tree" => match self.desktop.accessibility_tree()? {
                Some(nodes) => Ok(Got::Text(guigym_desktop::a11y::osworld_xml(&nodes))),
                // A tree the agent made unreadable: none, which OSWorld's metrics judge a failure.
                None => Ok(Got::Missing),
            },
            // The address bar's text, read from the accessibility tree as OSWorld reads it
            // (Chromium names its application itself, as on OSWorld's ARM machines), after
            // `goto_prefix` ("https://" unless the task says).
            "active_url_from_accessTree" | "active_tab_url_parse" | "url_dashPart" => {
                let Some(url) = self.address_bar(getter)? else { return Ok(Got::Missing) };
                Ok(match kind {
                    "active_url_from_accessTree" => Got::Text(url),
                    "active_tab_url_parse" => chrome::url_query_values(&url, getter, field).map_err(bad)?.map_or(Got::Missing, Got::Json),
                    _ => chrome::url_dash_part(&url, getter, field).map_err(bad)?.map_or(Got::Missing, Got::Json),
                })
            }
            "open_tabs_info" | "active_tab_info" => {
                let session = &self.desktop.session;
                let look = async {
                    let nothing: Result<Option<Value>, String> = Ok(None);
                    // A browser the agent closed answers nothing: no tabs (OSWorld's getter
                    // gives none either once it cannot connect).
                    let Ok(browser) = Browser::connect(session, CHROME_LOOK).await else { return nothing };
                    if kind == "open_tabs_info" {
                        let tabs = browser.tabs().await?;
                        return Ok(Some(Value::Array(tabs.into_iter().map(|t| serde_json::json!({"title": t.title, "url": t.url})).collect())));
                    }
                    browser.active_tab().await
                };
                // Pages the agent left busy (a script that never yields) answer nothing: past
                // the bound, nothing was read.
                let looked = chrome::block_on(async { tokio::time::timeout(CHROME_LIVE_LIMIT, look).await.unwrap_or(Ok(None)) }).map_err(Failure::Infra)?;
                Ok(looked.map_or(Got::Missing, Got::Json))
            }
            // The profile's files, where OSWorld's getters read them.
            "bookmarks" => {
                let file = self.profile_file("Bookmarks")?;
                let roots = chrome::preference(file.as_deref(), &["roots"], serde_json::json!({}));
                Ok(Got::Json(if file.is_some() { roots } else { serde_json::json!([]) }))
            }
            // Cookies as the running browser holds them (it writes them to its file up to 30 s
            // later), in the columns of Chrome's `cookies` table that OSWorld's metric reads;
            // else the file.
            "history" | "cookie_data" => {
                if kind == "cookie_data" {
                    if let Some(rows) = self.live_cookies()? {
                        return Ok(Got::Json(rows));
                    }
                }
                let (name, query) =
                    if kind == "history" { ("History", "SELECT url, title, last_visit_time FROM urls") } else { ("Cookies", "SELECT * FROM cookies") };
                let Some(bytes) = self.profile_file(name)? else { return Ok(Got::Missing) };
                let local = self.desktop.fetched(str_param(getter, field, "dest").unwrap_or(name))?;
                std::fs::write(&local, bytes).map_err(|e| Failure::Infra(format!("{}: {e}", local.display())))?;
                Ok(chrome::sqlite_rows(&local, query).map_or(Got::Missing, Got::Json))
            }
            "default_search_engine"
            | "chrome_font_size"
            | "chrome_language"
            | "profile_name"
            | "enable_do_not_track"
            | "enable_enhanced_safety_browsing"
            | "enable_safe_browsing"
            | "data_delete_automacally" => {
                let file = self.profile_file("Preferences")?;
                Ok(Got::Json(chrome_preference(kind, file.as_deref())))
            }
            "enabled_experiments" => {
                self.wait_for_chrome_writes();
                let path = self.desktop.session.path(chrome::LOCAL_STATE);
                let file = self.desktop.session.read_file(&path, MAX_FILE).map_err(Failure::Infra)?;
                Ok(Got::Json(chrome::preference(file.as_deref(), &["browser", "enabled_labs_experiments"], serde_json::json!([]))))
            }
            // What the focused terminal shows, trailing blanks and line ends cut (as OSWorld's
            // server gives the focused terminal's text); nothing when no terminal is in front.
            "vm_terminal_output" => Ok(match self.desktop.terminal_text()? {
                Some(text) => Got::Text(text.trim_end_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)).to_string()),
                None => Got::Missing,
            }),
            // The launchers on the desktop (`~/Desktop/*.desktop`), by name, with their text.
            "shortcuts_on_desktop" => {
                let mut shortcuts = serde_json::Map::new();
                let names: Vec<String> = self
                    .desktop
                    .files()
                    .keys()
                    .filter_map(|p| p.strip_prefix("Desktop/"))
                    .filter(|n| !n.contains('/') && n.ends_with(".desktop"))
                    .map(String::from)
                    .collect();
                for name in names {
                    let path = self.desktop.session.path(&format!("/home/user/Desktop/{name}"));
                    if let Some(bytes) = self.desktop.session.read_file(&path, MAX_FILE).map_err(Failure::Infra)? {
                        shortcuts.insert(name, Value::String(String::from_utf8_lossy(&bytes).into_owned()));
                    }
                }
                Ok(Got::Json(Value::Object(shortcuts)))
            }
            // What VLC plays, as its web interface tells (`status.xml`). A VLC the agent closed,
            // or one that does not answer, plays nothing; so does a server of the agent's own
            // on VLC's port (it would say whatever the agent liked).
            "vlc_playing_info" => {
                let vlc = self.desktop.session.listener(VLC_HTTP_PORT).is_some_and(|exe| exe.file_name().is_some_and(|n| n == "vlc"));
                if !vlc {
                    return Ok(Got::Missing);
                }
                let auth = ("Authorization", "Basic OnBhc3N3b3Jk"); // user "", password "password"
                let asked = chrome::block_on(loopback::get(&self.desktop.session, VLC_HTTP_PORT, "/requests/status.xml", &[auth], VLC_LOOK));
                let Ok(answer) = asked else { return Ok(Got::Missing) };
                if answer.status != 200 {
                    return Ok(Got::Missing);
                }
                let local = self.desktop.fetched(str_param(getter, field, "dest").unwrap_or("status.xml"))?;
                std::fs::write(&local, answer.body).map_err(|e| Failure::Infra(format!("{}: {e}", local.display())))?;
                Ok(Got::File(local))
            }
            // VLC's settings file, where it saves its preferences.
            "vlc_config" => {
                let path = self.desktop.session.path(VLC_CONFIG);
                let Some(bytes) = self.desktop.session.read_file(&path, MAX_FILE).map_err(Failure::Infra)? else { return Ok(Got::Missing) };
                let local = self.desktop.fetched(str_param(getter, field, "dest").unwrap_or("vlcrc"))?;
                std::fs::write(&local, bytes).map_err(|e| Failure::Infra(format!("{}: {e}", local.display())))?;
                Ok(Got::File(local))
            }
            // One of GIMP's settings files (`file_name`: `gimprc`, `sessionrc`, …), as GIMP
            // writes them when it quits; an empty file is none, as OSWorld's getter has it.
            "gimp_config_file" => {
                let name = str_param(getter, field, "file_name")?;
                if !crate::assets::plain_name(name) {
                    return Err(bad(format!("{field}.file_name: \"{name}\" is not a plain file name")));
                }
                let dest = str_param(getter, field, "dest")?;
                let path = self.desktop.session.path(&format!("{GIMP_CONFIG}/{name}"));
                let Some(bytes) = self.desktop.session.read_file(&path, MAX_FILE).map_err(Failure::Infra)?.filter(|b| !b.is_empty()) else {
                    return Ok(Got::Missing);
                };
                let local = self.desktop.fetched(dest)?;
                std::fs::write(&local, bytes).map_err(|e| Failure::Infra(format!("{}: {e}", local.display())))?;
                Ok(Got::File(local))
            }
            // The application most video types open with (`xdg-mime query default`), counted
            // over OSWorld's list of types as its getter counts them (`unknown` when none).
            "default_video_player" => {
                let mut unique: Vec<&str> = VIDEO_TYPES.to_vec();
                unique.dedup();
                let script = format!("for t in {}; do xdg-mime query default video/$t 2>/dev/null; printf '\\036'; done", unique.join(" "));
                let Output { stdout, .. } = self.desktop.session.run(&[script], true, COMMAND_TIMEOUT).map_err(Failure::Infra)?;
                let answers: Vec<&str> = stdout.split('\u{1e}').collect();
                Ok(Got::Text(most_common_app(VIDEO_TYPES, &unique, &answers)))
            }
            // Sizes as OSWorld's server gives them: the screen's, and that of the first window
            // whose `WM_CLASS` names `app_class_name` (nothing when none does).
            "vm_screen_size" => {
                let (width, height) = self.desktop.screen();
                Ok(Got::Json(serde_json::json!({"width": width, "height": height})))
            }
            "vm_window_size" => {
                let class = str_param(getter, field, "app_class_name")?.to_lowercase();
                let window = self.desktop.windows().into_iter().find(|w| w.instance.to_lowercase() == class || w.class.to_lowercase() == class);
                Ok(window.map_or(Got::Missing, |w| Got::Json(serde_json::json!({"width": w.width, "height": w.height}))))
            }
            other => Err(bad(format!("{field}.type: getter \"{other}\" is not supported; getters: {}", GETTERS.join(", ")))),
        }
    }

    /// Runs the evaluator: post-config steps, then each metric over its getters, combined by
    /// `conj` as OSWorld does (`and`: 0 as soon as one metric is 0, else their mean; `or`: 1
    /// as soon as one is 1, else the best). `declared_fail`: the agent's last action was
    /// OSWorld's FAIL (terminate with infeasible or failure): it passes an infeasible task
    /// and fails a feasible one, whatever the state.
    ///
    /// Where the task names the changes it allows (`guigym_allowed_changes`, our extension),
    /// any other change to the user's files since the reset fails it, whatever the metrics say.
    pub fn evaluate(&mut self, task: &OsWorldTask, declared_fail: bool) -> Result<Verdict, Failure> {
        self.desktop.check_health()?;
        // Looked at before the post-config steps, which are the evaluator's doing.
        let elsewhere = task.allowed_changes.as_ref().map(|allowed| {
            self.desktop.settle();
            changes_outside(self.desktop.files_at_start(), &self.desktop.files(), allowed)
        });
        let mut verdict = self.judge(task, declared_fail, elsewhere.is_some())?;
        if let Some(changes) = elsewhere.filter(|c| !c.is_empty()) {
            verdict.unexpected_side_effects = changes;
            verdict.score = 0.0;
            verdict.success = false;
        }
        Ok(verdict)
    }

    /// The verdict of OSWorld's evaluator, as OSWorld gives it.
    fn judge(&mut self, task: &OsWorldTask, declared_fail: bool, settled: bool) -> Result<Verdict, Failure> {
        if task.is_infeasible() {
            let check = Check { name: "infeasible".into(), passed: declared_fail, detail: "the task cannot be done; the agent must say so".into() };
            return Ok(Verdict::from_checks(vec![check], Vec::new()));
        }
        if declared_fail {
            let check = Check { name: "feasible".into(), passed: false, detail: "the agent ended a feasible task saying it failed or cannot be done".into() };
            return Ok(Verdict::from_checks(vec![check], Vec::new()));
        }
        if !settled {
            self.desktop.settle();
        }
        for (i, step) in task.evaluator.postconfig.iter().enumerate() {
            // After the agent, a step may fail on what it left (a file it removed, a folder where
            // a file is written, a window it closed): as OSWorld's controller does, the evaluation
            // goes on and the metrics judge what is there. (Such a failure must not be
            // infrastructure's: the agent could make its failing attempts run again. Steps that
            // cannot work in any state are refused on import.)
            let _ = self.run_step(step, &format!("evaluator.postconfig[{i}]"));
        }
        // What the steps set going (a save, an application quitting) is done before it is read.
        if !task.evaluator.postconfig.is_empty() {
            self.desktop.settle();
        }
        // Only the display's death is checked: an application may have been ended by a step of
        // the task's own.
        self.desktop.check_display()?;
        let metrics = task.metrics().map_err(Failure::BadTask)?;
        let or = task.evaluator.conj.as_deref() == Some("or");
        let mut checks = Vec::new();
        let mut scores = Vec::new();
        for (i, m) in metrics.iter().enumerate() {
            let result = match &m.result {
                Some(g) => self.get(g, &format!("evaluator.result[{i}]"))?,
                None => Got::Missing,
            };
            let expected = match &m.expected {
                Some(g) => self.get(g, &format!("evaluator.expected[{i}]"))?,
                None => Got::Missing,
            };
            let s = metrics::run(&m.func, &result, &expected, &m.options).map_err(Failure::BadTask)?;
            checks.push(Check { name: m.func.clone(), passed: s >= 1.0, detail: format!("{} = {s}", m.func) });
            scores.push(s);
            if !or && s == 0.0 || or && s >= 1.0 {
                break;
            }
        }
        let mut verdict = Verdict::from_checks(checks, Vec::new());
        verdict.score = combine(&scores, or);
        verdict.success = verdict.score >= 1.0;
        Ok(verdict)
    }
}

/// The paths created, deleted or changed between `before` and `after` that no pattern of
/// `allowed` covers, each with what happened (`/home/user/Documents/a.txt (created)`). A pattern is a
/// path under `/home/user` (or `~`); `*` stands for any part of one name, and a pattern
/// ending in `/**` covers everything under that folder.
pub fn changes_outside(before: &Files, after: &Files, allowed: &[String]) -> Vec<String> {
    let patterns: Vec<&str> = allowed.iter().filter_map(|p| home_relative(p)).collect();
    let covered = |path: &str| {
        let path = path.trim_end_matches('/');
        patterns.iter().map(|p| p.trim_end_matches('/')).any(|p| match p.strip_suffix("/**") {
            // The folder (a pattern itself) and everything under what it matches.
            Some(folder) => {
                let depth = folder.split('/').count();
                let head: Vec<&str> = path.splitn(depth + 1, '/').collect();
                head.len() >= depth && glob_path(folder, &head[..depth].join("/"))
            }
            None => glob_path(p, path),
        })
    };
    let mut out = Vec::new();
    for (path, hash) in after {
        let what = match before.get(path) {
            None => "created",
            Some(old) if old != hash => "changed",
            Some(_) => continue,
        };
        if !covered(path) {
            out.push(format!("{}/{path} ({what})", guigym_desktop::session::TASK_HOME));
        }
    }
    for path in before.keys().filter(|p| !after.contains_key(*p) && !covered(p)) {
        out.push(format!("{}/{path} (deleted)", guigym_desktop::session::TASK_HOME));
    }
    out
}

/// A task path (`/home/user/Documents/a.txt`, `~/Documents/a.txt`) relative to the home.
pub fn home_relative(path: &str) -> Option<&str> {
    path.strip_prefix(guigym_desktop::session::TASK_HOME).and_then(|p| p.strip_prefix('/')).or_else(|| path.strip_prefix("~/")).filter(|p| !p.is_empty())
}

/// Whether `path` matches `pattern` name by name, `*` matching any run of characters
/// within one name.
fn glob_path(pattern: &str, path: &str) -> bool {
    let (p, t): (Vec<&str>, Vec<&str>) = (pattern.split('/').collect(), path.split('/').collect());
    p.len() == t.len() && p.iter().zip(&t).all(|(p, t)| glob_name(p.as_bytes(), t.as_bytes()))
}

fn glob_name(p: &[u8], t: &[u8]) -> bool {
    match p.split_first() {
        None => t.is_empty(),
        Some((b'*', rest)) => (0..=t.len()).any(|i| glob_name(rest, &t[i..])),
        Some((c, rest)) => t.first() == Some(c) && glob_name(rest, &t[1..]),
    }
}

/// The evaluator's score from its metrics' scores (those it computed before stopping), as
/// OSWorld combines them: `and` is 0 as soon as one metric is 0, else the mean (which can lie
/// between 0 and 1 with partial scores); `or` is the best.
fn combine(scores: &[f64], or: bool) -> f32 {
    if scores.is_empty() {
        0.0
    } else if or {
        scores.iter().cloned().fold(0.0, f64::max) as f32
    } else if scores.contains(&0.0) {
        0.0
    } else if scores.iter().all(|s| *s >= 1.0) {
        1.0
    } else {
        (scores.iter().sum::<f64>() / scores.len().max(1) as f64) as f32
    }
}

/// A picture from a step's or getter's `width`, `height` (8 to 4096 pixels), `seed`,
/// `mirrored`, `brightness` (a factor, 1 unless given) and `quarter_turns` (clockwise, 0 unless
/// given; our `write_media` picture and `picture_file` getter draw the same one).
fn picture(params: &Value, field: &str) -> Result<Vec<u8>, String> {
    let side = |name: &str| {
        let v = params.get(name).and_then(Value::as_u64).filter(|v| (8..=4096).contains(v));
        v.map(|v| v as u32).ok_or_else(|| format!("{field}.{name}: a picture's {name} of 8 to 4096 pixels is needed"))
    };
    let seed = params.get("seed").and_then(Value::as_u64).ok_or_else(|| format!("{field}.seed: a picture's seed (a whole number) is needed"))?;
    let brightness = match params.get("brightness") {
        None => 1.0,
        Some(v) => v.as_f64().filter(|b| (0.0..=4.0).contains(b)).ok_or_else(|| format!("{field}.brightness: a factor from 0 to 4 is needed"))?,
    };
    let turns = match params.get("quarter_turns") {
        None => 0,
        Some(v) => v.as_u64().filter(|t| *t < 4).ok_or_else(|| format!("{field}.quarter_turns: 0 to 3 is needed"))? as u8,
    };
    let mirrored = params.get("mirrored").and_then(Value::as_bool).unwrap_or(false);
    Ok(media::picture_png(side("width")?, side("height")?, seed, mirrored, brightness, turns))
}

/// Writes, for a step or getter of kind `kind`, a workbook from `params.rows`, a deck from
/// `params.slides` or a document from `params.paragraphs`.
fn write_office_file(kind: &str, params: &Value, field: &str, path: &Path) -> Result<(), Failure> {
    let written = if kind.contains("table") {
        let rows = office::rows_param(&params["rows"]).ok_or_else(|| bad(format!("{field}.rows: a list of rows (lists) is needed")))?;
        let charts = office::charts_param(&params["charts"]).ok_or_else(|| {
            bad(format!("{field}.charts: a list of charts ({{\"kind\", \"title\", \"series\": [{{\"categories\", \"values\", \"name\"}}]}}) is needed"))
        })?;
        office::write_xlsx(path, &rows, &charts)
    } else if kind.contains("presentation") {
        let slides = office::slides_param(&params["slides"])
            .ok_or_else(|| bad(format!("{field}.slides: a list of slides ({{\"title\": text, \"body\": [lines]}}) is needed")))?;
        office::write_pptx(path, &slides)
    } else {
        let paragraphs = office::paragraphs_param(&params["paragraphs"])
            .ok_or_else(|| bad(format!("{field}.paragraphs: a list of paragraphs (a string, or {{\"text\", \"align\"}}) is needed")))?;
        office::write_docx(path, &paragraphs)
    };
    written.map_err(Failure::Infra)
}

/// The set-up steps this runner knows.
pub const STEPS: &[&str] = &[
    "launch",
    "execute",
    "command",
    "open",
    "sleep",
    "activate_window",
    "close_window",
    "download",
    "upload_file",
    "write_file",
    "write_table",
    "write_document",
    "write_presentation",
    "chrome_open_tabs",
    "chrome_close_tabs",
    "update_browse_history",
    "chrome_bookmark",
    "write_media",
];
/// The getters this runner knows.
pub const GETTERS: &[&str] = &[
    "vm_file",
    "vm_command_line",
    "vm_command_error",
    "rule",
    "cloud_file",
    "cache_file",
    "table_file",
    "document_file",
    "presentation_file",
    "picture_file",
    "accessibility_tree",
    "open_tabs_info",
    "active_tab_info",
    "active_url_from_accessTree",
    "active_tab_url_parse",
    "url_dashPart",
    "bookmarks",
    "history",
    "cookie_data",
    "default_search_engine",
    "chrome_font_size",
    "chrome_language",
    "profile_name",
    "enable_do_not_track",
    "enable_enhanced_safety_browsing",
    "enable_safe_browsing",
    "data_delete_automacally",
    "enabled_experiments",
    "shortcuts_on_desktop",
    "vm_terminal_output",
    "vlc_playing_info",
    "vlc_config",
    "default_video_player",
    "vm_screen_size",
    "vm_window_size",
    "gimp_config_file",
];

#[cfg(test)]
mod tests {
    use super::{changes_outside, combine, command_of, files_of, given, is_multi, Files};
    use crate::metrics::Got;
    use serde_json::{json, Value};

    fn files(entries: &[(&str, &str)]) -> Files {
        entries.iter().map(|(p, h)| (p.to_string(), h.to_string())).collect()
    }

    #[test]
    fn file_getters_give_one_file_or_those_their_gives_name() {
        let one = json!({"type": "vm_file", "path": "/home/user/a.xlsx"});
        assert_eq!(files_of(&one, "result").ok().unwrap(), vec![("/home/user/a.xlsx".to_string(), "a.xlsx".to_string())]);
        let multi = json!({"type": "vm_file", "multi": true, "path": ["/home/user/a.xlsx", "/home/user/a-Sheet1.csv"], "dest": ["a.xlsx", "a-Sheet1.csv"]});
        assert_eq!(files_of(&multi, "result").ok().unwrap().len(), 2);
        let uneven = json!({"type": "vm_file", "multi": true, "path": ["/a", "/b"], "dest": ["a"]});
        // OSWorld reads `multi` by Python's truth: a string says yes, 0 no.
        let written = json!({"type": "cloud_file", "multi": "true", "path": ["https://x/a", "https://x/b"], "dest": ["a", "b"]});
        assert_eq!(files_of(&written, "expected").ok().unwrap().len(), 2);
        assert!(!is_multi(&json!({"multi": 0})) && !is_multi(&json!({})) && is_multi(&json!({"multi": "false"})));
        assert!(files_of(&uneven, "result").is_err());
        // A URL has no file name to fall back on: a cloud file names its dest.
        assert!(files_of(&json!({"type": "cloud_file", "path": "https://example.org/a.xlsx"}), "expected").is_err());
        let fetched = || vec![Got::File("a.xlsx".into()), Got::File("a-Sheet1.csv".into())];
        // OSWorld's default gives the first file alone; several indices give a list.
        assert_eq!(given(&multi, "result", fetched()).ok().unwrap(), Got::File("a.xlsx".into()));
        let both = json!({"gives": [0, 1]});
        assert_eq!(given(&both, "expected", fetched()).ok().unwrap(), Got::Files(fetched()));
        let second = json!({"gives": [1]});
        assert_eq!(given(&second, "expected", fetched()).ok().unwrap(), Got::File("a-Sheet1.csv".into()));
    }

    #[test]
    fn placeholders_are_filled_for_the_screen_a_command_runs_on() {
        let step = |command: Value| json!({ "command": command });
        let program = step(json!(["python3", "-c", "import pyautogui; pyautogui.click({SCREEN_WIDTH_HALF}, {SCREEN_HEIGHT_HALF})"]));
        // A pyautogui program is read in OSWorld's 1920×1080 (and scaled by the runner after).
        let (argv, _) = command_of(&program, "config[0]", (1280, 800)).unwrap();
        assert_eq!(argv[2], "import pyautogui; pyautogui.click(960, 540)");
        let shell = step(json!("echo {CLIENT_PASSWORD} {SCREEN_WIDTH}x{SCREEN_HEIGHT}"));
        let (argv, _) = command_of(&shell, "config[0]", (1280, 800)).unwrap();
        assert_eq!(argv, ["echo", "password", "1280x800"]);
    }

    #[test]
    fn only_the_allowed_changes_pass() {
        let before = files(&[("Documents/", ""), ("Documents/a.txt", "1"), ("Documents/b.log", "2"), ("Downloads/", "")]);
        let allow = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // The task's own file changed: nothing else.
        let after = files(&[("Documents/", ""), ("Documents/a.txt", "9"), ("Documents/b.log", "2"), ("Downloads/", "")]);
        assert!(changes_outside(&before, &after, &allow(&["/home/user/Documents/a.txt"])).is_empty());
        assert_eq!(changes_outside(&before, &after, &allow(&[])), ["/home/user/Documents/a.txt (changed)"]);
        // A file written elsewhere, one deleted, a folder made: each named.
        let after = files(&[("Documents/", ""), ("Documents/a.txt", "9"), ("Downloads/", ""), ("Downloads/new/", ""), ("Desktop/x", "3")]);
        assert_eq!(
            changes_outside(&before, &after, &allow(&["~/Documents/a.txt"])),
            ["/home/user/Desktop/x (created)", "/home/user/Downloads/new/ (created)", "/home/user/Documents/b.log (deleted)"]
        );
        // `*` within a name, `/**` for a folder's content (and the folder itself).
        assert_eq!(
            changes_outside(&before, &after, &allow(&["~/Documents/*", "/home/user/Downloads/new/**", "~/Desktop/?"])),
            ["/home/user/Desktop/x (created)"]
        );
        assert!(changes_outside(&before, &after, &allow(&["~/Documents/*", "~/Downloads/new/**", "~/Desktop/*"])).is_empty());
        // A folder pattern's head may hold `*`; a trailing `/` is the folder itself.
        assert!(changes_outside(&before, &after, &allow(&["~/*/**"])).is_empty());
        assert_eq!(
            changes_outside(&before, &after, &allow(&["~/Downloads/*/**", "~/Desktop/", "~/Documents/"])),
            ["/home/user/Desktop/x (created)", "/home/user/Documents/a.txt (changed)", "/home/user/Documents/b.log (deleted)"]
        );
        // `*` does not cross folders; a path outside the home allows nothing.
        assert_eq!(changes_outside(&before, &after, &allow(&["~/*", "/tmp/**", "/home/user2/Desktop/x"])).len(), 4);
    }

    #[test]
    fn metrics_combine_as_osworld_combines_them() {
        // `and`: the evaluator stops at the first 0, and the score is 0, not the mean so far.
        assert_eq!(combine(&[1.0, 0.0], false), 0.0);
        assert_eq!(combine(&[1.0, 1.0], false), 1.0);
        assert_eq!(combine(&[1.0, 0.5], false), 0.75);
        assert_eq!(combine(&[0.5, 1.0], true), 1.0);
        assert_eq!(combine(&[0.0, 0.25], true), 0.25);
        assert_eq!(combine(&[], false), 0.0, "nothing judged is no success");
    }
}
