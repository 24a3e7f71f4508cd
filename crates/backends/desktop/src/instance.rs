//! A running desktop instance (its processes and its display) and what tasks do with it:
//! set-up steps, getters, the evaluator, a reset. Blocking; the env calls it off the async
//! threads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use guigym_core::{Check, Verdict};
use serde_json::Value;

use crate::a11y;
use crate::metrics::{self, Got};
use crate::office;
use crate::session::{OfficeToolkit, Output, Session};
use crate::task::{ConfigStep, OsWorldTask};
use crate::x11::{Display, WindowInfo};

/// Why a step or getter failed: the instance broke (retry elsewhere), or the task is wrong.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    Infra(String),
    BadTask(String),
}

fn bad(message: impl Into<String>) -> Failure {
    Failure::BadTask(message.into())
}

/// How long set-up waits for an application's first window.
const WINDOW_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the window manager may take to start: on a machine's first start (caches cold,
/// two instances starting at once) 10 s was once too short.
const WM_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a new window may stay untitled before it is taken as ready anyway.
const UNTITLED_WAIT: Duration = Duration::from_secs(5);
/// How long a new window may stay one flat colour before it is taken as it is.
const BLANK_WAIT: Duration = Duration::from_secs(10);
/// A window showing this many colours or fewer may be drawn in part only.
const FEW_COLOURS: usize = 16;
/// How long the screen stays still before a window counts as drawn, and how long when it
/// shows few colours.
const QUIET: Duration = Duration::from_millis(100);
const LONG_QUIET: Duration = Duration::from_millis(600);
/// Longest `execute` or getter command.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest file a getter takes out of the instance.
const MAX_FILE: u64 = 64 << 20;

pub struct Instance {
    pub session: Session,
    pub display: Display,
    /// The home every reset starts from (skeleton folders, shell and application settings).
    template: PathBuf,
    /// OSWorld's asset cache: `<cache>/<task id>/<file name>`.
    pub cache: Option<PathBuf>,
    /// The cache the current task was imported against, which comes first.
    pub task_cache: Option<PathBuf>,
    /// When the agent's last input reached the X server.
    pub last_input: Instant,
    /// The user's files as the last reset left them (`files`), which the evaluator compares
    /// with what the agent left to find changes outside the task.
    at_reset: Files,
}

/// The user's files: path relative to the home (a folder ends with `/`) → what it holds (see
/// `content_id`; empty for folders, the target for links). Hidden folders and files at the top
/// of the home (application settings, profiles, caches), LibreOffice's lock files and GIO's
/// files being saved are left out.
pub type Files = BTreeMap<String, String>;

/// How long after the agent's last input the evaluator first looks: applications (a shell
/// running a command, an editor saving) finish what the input started.
const QUIET_AFTER_INPUT: Duration = Duration::from_millis(500);

/// Extensions and the application that opens them (as `open` does).
fn opener(path: &Path) -> Vec<String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_lowercase();
    let office = |module: &str| vec!["soffice".to_string(), format!("--{module}"), "--norestore".into(), "--nologo".into()];
    let mut argv = match ext.as_str() {
        "xlsx" | "xls" | "ods" | "csv" => office("calc"),
        "docx" | "doc" | "odt" | "rtf" => office("writer"),
        "pptx" | "ppt" | "odp" => office("impress"),
        _ if path.is_dir() => vec!["pcmanfm".to_string()],
        _ => vec!["mousepad".to_string()],
    };
    argv.push(path.display().to_string());
    argv
}

/// A step's or getter's command: a list is an argv (run by the shell when `shell`); a string
/// is run by the shell when `shell`, else split on whitespace (as OSWorld's controller does).
/// OSWorld's screen placeholders are filled in.
fn command_of(parameters: &Value, field: &str, screen: (u32, u32)) -> Result<(Vec<String>, bool), Failure> {
    let shell = parameters.get("shell").and_then(Value::as_bool).unwrap_or(false);
    let fill = |s: &str| {
        s.replace("{SCREEN_WIDTH}", &screen.0.to_string())
            .replace("{SCREEN_HEIGHT}", &screen.1.to_string())
            .replace("{SCREEN_WIDTH_HALF}", &(screen.0 / 2).to_string())
            .replace("{SCREEN_HEIGHT_HALF}", &(screen.1 / 2).to_string())
    };
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

impl Instance {
    pub fn start(width: u32, height: u32, template: PathBuf, cache: Option<PathBuf>, office: OfficeToolkit) -> Result<Instance, String> {
        let mut session = Session::start(width, height)?;
        session.office = office;
        let display = Display::connect(&session.display_name, session.x_auth()).map_err(|e| e.to_string())?;
        session.wait_for_wm(&display, WM_TIMEOUT)?;
        Ok(Instance { session, display, template, cache, task_cache: None, last_input: Instant::now(), at_reset: Files::new() })
    }

    fn screen(&self) -> (u32, u32) {
        (self.display.width as u32, self.display.height as u32)
    }

    /// Ends the applications, restores the home folder, runs the task's set-up and waits for
    /// the windows it opened.
    pub fn reset(&mut self, task: &OsWorldTask) -> Result<(), Failure> {
        // What the episode left broken (the window manager, even the X server) is started anew
        // below with the rest.
        let managed = self.session.display_alive() && self.session.wm_alive();
        self.session.end_apps();
        if managed {
            self.wait_for(|w| w.is_empty(), Duration::from_secs(10))
                .map_err(|_| Failure::Infra("windows stayed open after their applications ended".into()))?;
        }
        // The desktop goes too, the X server with it: a new one, with a new cookie, has none of
        // the episode's settings (`xhost`, `xset`, `xmodmap`, resources, keyboard locks) or
        // clients.
        self.session.end_desktop().map_err(Failure::Infra)?;
        self.session.restore(&self.template).map_err(Failure::Infra)?;
        self.reconnect()?;
        self.session.wait_for_wm(&self.display, WM_TIMEOUT).map_err(Failure::Infra)?;
        for (i, step) in task.config.iter().enumerate() {
            self.run_step(step, &format!("config[{i}]"), &task.id)?;
        }
        // The agent has done nothing yet: a budget passed here is the task's or the machine's.
        if let Some(why) = self.session.memory_ended() {
            return Err(Failure::Infra(format!("during the task's set-up, {why}")));
        }
        self.at_reset = self.files();
        Ok(())
    }

    /// Fails when the instance broke under the agent: an application crashed, or the X server
    /// died. A window manager that ended (the agent may end it: it is an X client like any,
    /// and the terminals it opens run beside it) is started again, and it manages the windows
    /// anew: the episode goes on. Where it cannot start (the agent's own client holds the
    /// screen's window management), the episode goes on without one: the agent's doing.
    pub fn check_health(&mut self) -> Result<(), Failure> {
        // Ended by the memory watch, the instance's processes were all ended: by the agent's doing
        // (what went with them, the window manager included, is the episode's end, not a fault).
        if self.session.memory_ended().is_some() {
            return Ok(());
        }
        self.check_display()?;
        // Any client may close another's connection (`XKillClient`), guigym's too: connect anew.
        // (A round trip that ran out is a held server, which the env ends the episode on.)
        if !self.display.answers() && !self.display.stalled() {
            self.reconnect()?;
        }
        if !self.session.wm_alive() {
            self.session.start_wm().map_err(Failure::Infra)?;
            let _ = self.session.wait_for_wm(&self.display, Duration::from_secs(2));
        }
        match self.session.crashed() {
            Some(why) => Err(Failure::Infra(why)),
            None => Ok(()),
        }
    }

    /// Why the episode ends by the agent's doing, if it must: a program of the agent's holds
    /// the X server to itself (no other does), or the memory watch ended the instance's
    /// processes (over its budget, or in a user namespace of their own). It is judged on what the agent left: an infrastructure failure
    /// would let an agent have its failing attempts run again.
    pub fn ended_by_agent(&self) -> Option<String> {
        if self.display.stalled() {
            return Some("the display stopped answering (a program holds the X server to itself); the episode ends".into());
        }
        let why = self.session.memory_ended()?;
        Some(format!("{why}: its programs were ended, and the episode ends"))
    }

    /// Fails when the X server died: never the agent's doing (it runs as root, outside the
    /// instance's namespaces).
    fn check_display(&mut self) -> Result<(), Failure> {
        match self.session.display_alive() {
            true => Ok(()),
            false => Err(Failure::Infra("the X server died".into())),
        }
    }

    /// A new connection to the display (the X server is new, or another client closed ours).
    fn reconnect(&mut self) -> Result<(), Failure> {
        self.display = Display::connect(&self.session.display_name, self.session.x_auth()).map_err(|e| Failure::Infra(e.to_string()))?;
        Ok(())
    }

    /// The windows, their titles naming paths as the task does (`/home/user/…`), so every
    /// instance shows the same.
    pub fn windows(&self) -> Vec<WindowInfo> {
        let home = self.session.home.display().to_string();
        let mut windows = self.display.windows();
        for w in &mut windows {
            w.title = w.title.replace(&home, crate::session::TASK_HOME);
        }
        windows
    }

    fn wait_for(&self, ready: impl Fn(&[WindowInfo]) -> bool, timeout: Duration) -> Result<Vec<WindowInfo>, Failure> {
        let deadline = Instant::now() + timeout;
        loop {
            let windows = self.display.windows();
            if ready(&windows) {
                return Ok(windows);
            }
            if Instant::now() >= deadline {
                return Err(Failure::Infra(format!("no window was ready within {} s", timeout.as_secs())));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Starts an application and waits until the window manager maps a new window of it.
    pub fn launch(&mut self, command: &[String], shell: bool) -> Result<(), Failure> {
        let before: Vec<u32> = self.display.windows().iter().map(|w| w.id).collect();
        self.session.launch(command, shell).map_err(Failure::BadTask)?;
        self.wait_for(|ws| ws.iter().any(|w| !before.contains(&w.id)), WINDOW_TIMEOUT)
            .map_err(|_| Failure::Infra(format!("{} opened no window within {} s", command.join(" "), WINDOW_TIMEOUT.as_secs())))?;
        // LibreOffice maps its window untitled and names it once the document is loaded; a
        // window that never gets a title is taken as it is after a while.
        let titled = |ws: &[WindowInfo]| ws.iter().filter(|w| !before.contains(&w.id)).all(|w| !w.title.is_empty());
        let _ = self.wait_for(titled, UNTITLED_WAIT);
        // A mapped window may still be drawing (LibreOffice loads the document into it and
        // only then takes keys): ready when the screen stops changing and the new windows
        // show more than one flat colour. LibreOffice pauses between naming its window and
        // drawing its toolbars and document, long enough to pass for still: an agent's first
        // screenshot would be an empty grey window.
        let deadline = Instant::now() + BLANK_WAIT;
        loop {
            self.wait_still_screen(QUIET, WINDOW_TIMEOUT)?;
            let fresh: Vec<WindowInfo> = self.display.windows().into_iter().filter(|w| !before.contains(&w.id)).collect();
            let colours = self.fewest_colours(&fresh)?;
            if Instant::now() >= deadline || colours > FEW_COLOURS {
                return Ok(());
            }
            if colours > 1 {
                // Drawn in part (LibreOffice's frame before its document, under load) or a
                // plain window (a terminal): a longer quiet moment tells them apart.
                return self.wait_still_screen(LONG_QUIET, WINDOW_TIMEOUT);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The fewest colours any of these windows shows, counted up to `FEW_COLOURS + 1` over
    /// every other pixel (1: one flat colour, mapped but not drawn yet).
    fn fewest_colours(&self, windows: &[WindowInfo]) -> Result<usize, Failure> {
        let screen = self.display.capture_rgb().map_err(|e| Failure::Infra(e.to_string()))?;
        let (sw, sh) = (self.display.width as i64, self.display.height as i64);
        let count = |w: &WindowInfo| {
            let (x0, y0) = (i64::from(w.x).clamp(0, sw), i64::from(w.y).clamp(0, sh));
            let (x1, y1) = ((i64::from(w.x) + i64::from(w.width)).clamp(0, sw), (i64::from(w.y) + i64::from(w.height)).clamp(0, sh));
            let mut seen: Vec<[u8; 3]> = Vec::new();
            for y in (y0..y1).step_by(2) {
                for x in (x0..x1).step_by(2) {
                    let at = ((y * sw + x) * 3) as usize;
                    let c = [screen[at], screen[at + 1], screen[at + 2]];
                    if !seen.contains(&c) {
                        seen.push(c);
                        if seen.len() > FEW_COLOURS {
                            return seen.len();
                        }
                    }
                }
            }
            seen.len().max(usize::from(x0 >= x1 || y0 >= y1) * (FEW_COLOURS + 1))
        };
        Ok(windows.iter().map(count).min().unwrap_or(FEW_COLOURS + 1))
    }

    /// Waits until nothing has been drawn for `quiet` (by the X server's DAMAGE reports, or
    /// else until two looks at the screen `quiet` apart are the same).
    fn wait_still_screen(&self, quiet: Duration, timeout: Duration) -> Result<(), Failure> {
        match self.display.wait_quiet(quiet, timeout) {
            Some(Ok(true)) => return Ok(()),
            Some(Ok(false)) => return Err(Failure::Infra(format!("the screen kept changing for {} s", timeout.as_secs()))),
            Some(Err(e)) => return Err(Failure::Infra(e.to_string())),
            None => {}
        }
        let deadline = Instant::now() + timeout;
        let look = || self.display.capture_rgb().map(|px| guigym_core::sha256_hex(&px)).map_err(|e| Failure::Infra(e.to_string()));
        let mut last = look()?;
        loop {
            std::thread::sleep(quiet);
            let now = look()?;
            if now == last {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Failure::Infra(format!("the screen kept changing for {} s", timeout.as_secs())));
            }
            last = now;
        }
    }

    fn find_window(&self, parameters: &Value, field: &str) -> Result<Option<WindowInfo>, Failure> {
        let name = str_param(parameters, field, "window_name")?;
        let strict = parameters.get("strict").and_then(Value::as_bool).unwrap_or(false);
        let by_class = parameters.get("by_class").and_then(Value::as_bool).unwrap_or(false);
        Ok(self.windows().into_iter().find(|w| {
            let text = if by_class { &w.class } else { &w.title };
            if strict {
                text == name || by_class && w.instance == name
            } else {
                text.to_lowercase().contains(&name.to_lowercase()) || by_class && w.instance.to_lowercase().contains(&name.to_lowercase())
            }
        }))
    }

    /// One set-up step; what it wrote in the home becomes the applications' own.
    pub fn run_step(&mut self, step: &ConfigStep, field: &str, task_id: &str) -> Result<(), Failure> {
        let done = self.apply_step(step, field, task_id);
        self.session.give_home();
        done
    }

    /// One set-up step (OSWorld's step types, and `write_file` of ours).
    fn apply_step(&mut self, step: &ConfigStep, field: &str, task_id: &str) -> Result<(), Failure> {
        let p = &step.parameters;
        match step.kind.as_str() {
            "launch" => {
                let (command, shell) = command_of(p, field, self.screen())?;
                self.launch(&command, shell)
            }
            "execute" | "command" => {
                let (command, shell) = command_of(p, field, self.screen())?;
                self.session.run(&command, shell, COMMAND_TIMEOUT).map_err(Failure::BadTask)?;
                Ok(())
            }
            "open" => {
                let path = self.session.path(str_param(p, field, "path")?);
                if !path.exists() {
                    return Err(bad(format!("{field}.path: {} does not exist", path.display())));
                }
                self.launch(&opener(&path), false)
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
                let done = if step.kind == "activate_window" { self.display.activate(w.id) } else { self.display.close(w.id) };
                done.map_err(|e| Failure::Infra(e.to_string()))
            }
            "download" | "upload_file" => {
                let files = p.get("files").and_then(Value::as_array).ok_or_else(|| bad(format!("{field}.files is missing")))?;
                for (i, f) in files.iter().enumerate() {
                    let dest = self.session.path(str_param(f, &format!("{field}.files[{i}]"), "path")?);
                    let source = if step.kind == "download" {
                        let url = str_param(f, &format!("{field}.files[{i}]"), "url")?;
                        let base = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                        self.cached(task_id, &format!("{}_{base}", uuid5_url(url)), url)?
                    } else {
                        PathBuf::from(str_param(f, &format!("{field}.files[{i}]"), "local_path")?)
                    };
                    let bytes = std::fs::read(&source).map_err(|e| bad(format!("{field}.files[{i}]: reading {}: {e}", source.display())))?;
                    self.session.write_file(&dest, bytes).map_err(Failure::Infra)?;
                }
                Ok(())
            }
            // Ours: a text file the task starts from.
            "write_file" => {
                let path = self.session.path(str_param(p, field, "path")?);
                let text = str_param(p, field, "text")?;
                self.session.write_file(&path, text.as_bytes().to_vec()).map_err(Failure::Infra)
            }
            // Ours: a workbook, a document or a deck the task starts from, written from data.
            "write_table" | "write_document" | "write_presentation" => {
                let path = self.session.path(str_param(p, field, "path")?);
                // Made in guigym's own folder, then written into the home as the account.
                let made = self.fetched(".made")?;
                write_office_file(&step.kind, p, field, &made)?;
                let bytes = std::fs::read(&made).map_err(|e| Failure::Infra(format!("{}: {e}", made.display())))?;
                let _ = std::fs::remove_file(&made);
                self.session.write_file(&path, bytes).map_err(Failure::Infra)
            }
            other => Err(bad(format!("{field}.type: step \"{other}\" is not supported; steps: {}", STEPS.join(", ")))),
        }
    }

    /// OSWorld's asset cache for a task: `<cache>/<task id>/`. `download` steps keep a file as
    /// `<uuid5(url)>_<file name>`, `cloud_file` getters as their `dest`.
    pub fn cached(&self, task_id: &str, name: &str, url: &str) -> Result<PathBuf, Failure> {
        let cache =
            self.task_cache.as_ref().or(self.cache.as_ref()).ok_or_else(|| bad(format!("{url}: no asset cache is configured (GUIGYM_OSWORLD_CACHE)")))?;
        let path = cache.join(task_id).join(name);
        path.exists().then_some(path.clone()).ok_or_else(|| bad(format!("{url}: not in the asset cache ({})", path.display())))
    }

    /// Where a getter keeps its copy of a file named `dest`: the instance's own folder, out of
    /// the agent's home.
    fn fetched(&self, dest: &str) -> Result<PathBuf, Failure> {
        let dir = self.session.fetched_dir().map_err(|e| Failure::Infra(format!("the getters' folder: {e}")))?;
        Ok(dir.join(Path::new(dest).file_name().unwrap_or_default()))
    }

    /// A getter's value: a file copied out of the instance, a command's output, a rule.
    pub fn get(&mut self, getter: &Value, field: &str, task_id: &str) -> Result<Got, Failure> {
        let kind = str_param(getter, field, "type")?;
        match kind {
            "vm_file" => {
                if getter.get("multi").and_then(Value::as_bool).unwrap_or(false) {
                    return Err(bad(format!("{field}: vm_file with multi is not supported")));
                }
                let path = self.session.path(str_param(getter, field, "path")?);
                let path_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "result".into());
                let dest = str_param(getter, field, "dest").unwrap_or(&path_name);
                let local = self.fetched(dest)?;
                match self.session.read_file(&path, MAX_FILE).map_err(Failure::Infra)? {
                    Some(bytes) => {
                        std::fs::write(&local, bytes).map_err(|e| Failure::Infra(format!("{}: {e}", local.display())))?;
                        Ok(Got::File(local))
                    }
                    None => Ok(Got::Missing),
                }
            }
            "vm_command_line" | "vm_command_error" => {
                let (command, shell) = command_of(getter, field, self.screen())?;
                let Output { stdout, stderr, .. } = self.session.run(&command, shell, COMMAND_TIMEOUT).map_err(Failure::BadTask)?;
                Ok(Got::Text(if kind == "vm_command_line" { stdout } else { stderr }))
            }
            "rule" => Ok(Got::Json(getter.get("rules").cloned().unwrap_or(Value::Null))),
            "cloud_file" => {
                let url = str_param(getter, field, "path")?;
                let dest = str_param(getter, field, "dest")?;
                Ok(Got::File(self.cached(task_id, dest, url)?))
            }
            // Ours: the expected file, made from data at evaluation time.
            "table_file" | "document_file" | "presentation_file" => {
                let local = self.fetched(str_param(getter, field, "dest")?)?;
                write_office_file(kind, getter, field, &local)?;
                Ok(Got::File(local))
            }
            // The accessibility tree as OSWorld's server gives it (XML), read afresh.
            "accessibility_tree" => {
                let address = self.session.bus_address.clone();
                let read = async move {
                    let client = a11y::Client::connect(&address).await?;
                    client.tree(&a11y::Limits::whole()).await
                };
                match block_on(read) {
                    Ok(nodes) => Ok(Got::Text(a11y::osworld_xml(&nodes))),
                    // The bus is out of the agent's reach, so its death is not the agent's doing;
                    // a bus that runs but cannot be read is (its socket sits in the runtime folder
                    // the account owns): no tree, which OSWorld's metrics judge a failure.
                    Err(e) if !self.session.bus_alive() && self.session.memory_ended().is_none() => {
                        Err(Failure::Infra(format!("reading the accessibility tree: {e}")))
                    }
                    Err(_) => Ok(Got::Missing),
                }
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
        self.check_health()?;
        // Looked at before the post-config steps, which are the evaluator's doing.
        let elsewhere = task.allowed_changes.as_ref().map(|allowed| {
            self.settle();
            changes_outside(&self.at_reset, &self.files(), allowed)
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
            self.settle();
        }
        for (i, step) in task.evaluator.postconfig.iter().enumerate() {
            // After the agent, a step may fail on what it left (a file it removed, a folder where
            // a file is written, a window it closed): as OSWorld's controller does, the evaluation
            // goes on and the metrics judge what is there. (Such a failure must not be
            // infrastructure's: the agent could make its failing attempts run again. Steps that
            // cannot work in any state are refused on import.)
            let _ = self.run_step(step, &format!("evaluator.postconfig[{i}]"), &task.id);
        }
        // Only the display's death is checked: an application may have been ended by a step of
        // the task's own.
        self.check_display()?;
        let metrics = task.metrics().map_err(Failure::BadTask)?;
        let or = task.evaluator.conj.as_deref() == Some("or");
        let mut checks = Vec::new();
        let mut scores = Vec::new();
        for (i, m) in metrics.iter().enumerate() {
            let result = match &m.result {
                Some(g) => self.get(g, &format!("evaluator.result[{i}]"), &task.id)?,
                None => Got::Missing,
            };
            let expected = match &m.expected {
                Some(g) => self.get(g, &format!("evaluator.expected[{i}]"), &task.id)?,
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

    /// Waits until a moment has passed since the agent's last input and the user's files have
    /// stopped changing (an application finishing a save, a shell finishing a command): two
    /// equal looks in a row, at most a few seconds.
    pub fn settle(&self) {
        if let Some(rest) = QUIET_AFTER_INPUT.checked_sub(self.last_input.elapsed()) {
            std::thread::sleep(rest);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut last = self.files_hash();
        let mut same = 0;
        while same < 2 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(150));
            let now = self.files_hash();
            same = if now == last { same + 1 } else { 0 };
            last = now;
        }
    }

    /// The user's files now (see `Files`).
    pub fn files(&self) -> Files {
        let mut files = Files::new();
        walk(&self.session.home, &self.session.home, &mut files);
        files
    }

    /// A hash of the user's files (names and contents).
    pub fn files_hash(&self) -> String {
        let entries: Vec<String> = self.files().into_iter().map(|(path, hash)| format!("{path} {hash}")).collect();
        guigym_core::sha256_hex(entries.join("\n").as_bytes())
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
            out.push(format!("{}/{path} ({what})", crate::session::TASK_HOME));
        }
    }
    for path in before.keys().filter(|p| !after.contains_key(*p) && !covered(p)) {
        out.push(format!("{}/{path} (deleted)", crate::session::TASK_HOME));
    }
    out
}

/// A task path (`/home/user/Documents/a.txt`, `~/Documents/a.txt`) relative to the home.
pub fn home_relative(path: &str) -> Option<&str> {
    path.strip_prefix(crate::session::TASK_HOME).and_then(|p| p.strip_prefix('/')).or_else(|| path.strip_prefix("~/")).filter(|p| !p.is_empty())
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

fn walk(root: &Path, dir: &Path, out: &mut Files) {
    walk_below(root, dir, out, 0);
}

fn walk_below(root: &Path, dir: &Path, out: &mut Files, depth: usize) {
    let Ok(read) = std::fs::read_dir(dir) else { return };
    for entry in read.flatten() {
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap_or(&path).display().to_string();
        if dir == root && rel.starts_with('.') {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        match entry.file_type() {
            Ok(t) if t.is_dir() => {
                out.insert(format!("{rel}/"), String::new());
                if depth < crate::session::MAX_DEPTH {
                    walk_below(root, &path, out, depth + 1);
                }
            }
            Ok(t) if t.is_symlink() => {
                let target = std::fs::read_link(&path).map(|t| t.display().to_string()).unwrap_or_default();
                out.insert(rel, format!("link to {target}"));
            }
            // Bookkeeping beside a document, not the user's data: LibreOffice's lock file
            // (`.~lock.name#`, the time it was opened) and GIO's file being saved.
            Ok(_) if name.starts_with(".~lock.") && name.ends_with('#') || name.starts_with(".goutputstream-") => {}
            Ok(_) => {
                out.insert(rel, content_id(&path));
            }
            Err(_) => {}
        }
    }
}

/// Files larger than this are told apart by size and time, not read.
const MAX_HASHED: u64 = 64 << 20;

/// What a file holds: the hash of a regular file's bytes, read without following a link or
/// waiting (a FIFO or a device an agent left in the home would hang or flood the evaluator,
/// which runs as root); anything else by its kind.
fn content_id(path: &Path) -> String {
    use rustix::fs::{FileType, Mode, OFlags};
    use std::io::Read;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let Ok(fd) = rustix::fs::open(path, flags, Mode::empty()) else { return "unreadable".into() };
    let Ok(stat) = rustix::fs::fstat(&fd) else { return "unreadable".into() };
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile if stat.st_size as u64 <= MAX_HASHED => {
            let mut bytes = Vec::new();
            let _ = std::fs::File::from(fd).take(MAX_HASHED).read_to_end(&mut bytes);
            guigym_core::sha256_hex(&bytes)
        }
        FileType::RegularFile => format!("{} bytes, modified at {}.{:09}", stat.st_size, stat.st_mtime, stat.st_mtime_nsec),
        other => format!("{other:?}"),
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

/// Runs a future to its end from the blocking code of an instance: on the runtime the env
/// runs on when there is one (instances run on its blocking threads), else on a small one.
fn block_on<T>(future: impl std::future::Future<Output = Result<T, String>>) -> Result<T, String> {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle.block_on(future),
        Err(_) => tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?.block_on(future),
    }
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
];
/// The getters this runner knows.
pub const GETTERS: &[&str] =
    &["vm_file", "vm_command_line", "vm_command_error", "rule", "cloud_file", "table_file", "document_file", "presentation_file", "accessibility_tree"];

#[cfg(test)]
mod tests {
    use super::{changes_outside, combine, Files};

    fn files(entries: &[(&str, &str)]) -> Files {
        entries.iter().map(|(p, h)| (p.to_string(), h.to_string())).collect()
    }

    #[test]
    fn odd_files_are_told_apart_without_being_read() {
        let home = std::env::temp_dir().join(format!("guigym-walk-{}", std::process::id()));
        std::fs::create_dir_all(home.join("Documents/deep")).unwrap();
        std::fs::write(home.join("Documents/a.txt"), "a").unwrap();
        std::fs::write(home.join("Documents/.~lock.a.txt#"), "lock").unwrap();
        std::fs::create_dir_all(home.join("Documents/.~lock.d")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", home.join("Documents/zero")).unwrap();
        let fifo = std::process::Command::new("mkfifo").arg(home.join("Documents/pipe")).status();
        let mut files = Files::new();
        // A FIFO read would block forever, /dev/zero never end: neither is read.
        super::walk(&home, &home, &mut files);
        std::fs::remove_dir_all(&home).unwrap();
        assert_eq!(files["Documents/a.txt"], guigym_core::sha256_hex(b"a"));
        assert_eq!(files["Documents/zero"], "link to /dev/zero");
        if fifo.is_ok_and(|s| s.success()) {
            assert_eq!(files["Documents/pipe"], "Fifo");
        }
        assert!(!files.contains_key("Documents/.~lock.a.txt#"), "LibreOffice's lock file is bookkeeping");
        assert!(files.contains_key("Documents/.~lock.d/"), "a folder is not a lock file");
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
