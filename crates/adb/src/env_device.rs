//! Any guigym instance (`core::Env`) answering as an Android device does: what agent
//! frameworks that speak ADB send (`input`, `screencap`, `uiautomator dump`, `dumpsys`, `am`,
//! `monkey`, `pm`, `getprop`, `wm`, a few file commands) becomes actions on the instance and
//! reads of its observation. Each `input` and app launch is one step of the episode; what is
//! only read (a screenshot, the tree) takes none. Apps are packages `com.guigym.<name>`, each
//! with one activity `.MainActivity`; the home screen is `com.android.launcher3/.Launcher`.
//! Unknown commands answer as the shell does (`not found`, status 127).
//!
//! The device also has what a real one has around its apps, for the checks a host makes before
//! trusting it: it boots (`reboot`: `sys.boot_completed` is empty and the system services do not
//! answer for `BOOT_TIME`, then it shows its lock screen), its screen sleeps and wakes
//! (`KEYCODE_POWER`, `KEYCODE_WAKEUP`; `dumpsys power`), and its lock screen (`dumpsys window`'s
//! `mShowingLockscreen`) keeps touches from the apps until `wm dismiss-keyguard` or
//! `KEYCODE_MENU`. ADB Keyboard's broadcasts (`am broadcast -a ADB_INPUT_B64 --es msg …`) type any
//! text, as that IME does on a stock image. Every command line heard is kept (`Heard`), for
//! whoever wants to know what a host sent.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::sync::Arc;

use async_trait::async_trait;
use guigym_core::{Action, Env, Observation, ObserveOptions, Point, UiNode};
use tokio::sync::Mutex;

use crate::device::{Device, FileStat, ShellOutput};
use crate::shell::{self, Join};

/// The launcher's package, for the home screen.
pub const LAUNCHER: &str = "com.android.launcher3";
/// Where `uiautomator dump` writes unless told otherwise.
pub const WINDOW_DUMP: &str = "/sdcard/window_dump.xml";
/// The folders that exist on every device (files may be pushed into them).
const FOLDERS: &[&str] = &["/", "/sdcard", "/storage/emulated/0", "/data/local/tmp"];
/// What the files written on a device may hold together (they live in memory).
const STORAGE_MAX: usize = 256 << 20;
/// How long a `reboot` keeps the system from answering.
pub const BOOT_TIME: std::time::Duration = std::time::Duration::from_secs(2);
/// ADB Keyboard's package: the IME that types any text from a broadcast.
pub const ADB_KEYBOARD: &str = "com.android.adbkeyboard";
/// How many command lines `Heard` keeps (the newest).
const HEARD_MAX: usize = 1000;

/// The command lines a device heard, newest last, shared with whoever reports them.
pub type Heard = Arc<std::sync::Mutex<VecDeque<String>>>;

/// Adds a line (its first 4096 characters) to what a device heard, forgetting the oldest
/// beyond `HEARD_MAX`.
pub fn hear(heard: &Heard, line: &str) {
    let mut heard = heard.lock().unwrap_or_else(|p| p.into_inner());
    if heard.len() == HEARD_MAX {
        heard.pop_front();
    }
    heard.push_back(line.chars().take(4096).collect());
}

/// Booting, asleep, locked: the device's state outside its apps.
#[derive(Debug, Clone, Copy)]
struct Power {
    booting_until: Option<std::time::Instant>,
    awake: bool,
    locked: bool,
}

impl Power {
    fn booting(&self) -> bool {
        self.booting_until.is_some_and(|t| std::time::Instant::now() < t)
    }

    /// Touches and keys reach the apps only on an awake, unlocked screen.
    fn reaches_apps(&self) -> bool {
        self.awake && !self.locked && !self.booting()
    }
}

/// An app's package name: `com.guigym.` and its name in lower case, letters and digits only.
pub fn package_of(app: &str) -> String {
    let name: String = app.chars().filter(char::is_ascii_alphanumeric).flat_map(char::to_lowercase).collect();
    format!("com.guigym.{name}")
}

/// The device's identity.
#[derive(Debug, Clone)]
pub struct Identity {
    pub serial: String,
    pub model: String,
    /// Dots per inch `wm density` reports.
    pub density: u32,
}

impl Default for Identity {
    fn default() -> Identity {
        Identity { serial: "guigym-0".into(), model: "guigym-phone".into(), density: 420 }
    }
}

/// A file pushed or written on the device.
struct File {
    bytes: Vec<u8>,
    mode: u32,
    mtime: u32,
}

/// An instance served as an Android device.
pub struct EnvDevice {
    env: Arc<Mutex<Box<dyn Env>>>,
    apps: Vec<String>,
    identity: Identity,
    files: std::sync::Mutex<BTreeMap<String, File>>,
    power: std::sync::Mutex<Power>,
    heard: Heard,
}

impl EnvDevice {
    /// `env` answers; `apps` are the apps it has (what `pm list packages` lists and `am start`
    /// opens). The instance is shared: whoever resets and evaluates it (guigym's control side)
    /// holds the same lock.
    pub fn new(env: Arc<Mutex<Box<dyn Env>>>, apps: Vec<String>, identity: Identity) -> EnvDevice {
        EnvDevice {
            env,
            apps,
            identity,
            files: std::sync::Mutex::new(BTreeMap::new()),
            // Up, awake and unlocked, as an emulator started without a lock screen.
            power: std::sync::Mutex::new(Power { booting_until: None, awake: true, locked: false }),
            heard: Heard::default(),
        }
    }

    /// The command lines this device heard, shared.
    pub fn heard(&self) -> Heard {
        self.heard.clone()
    }

    /// Forgets the files written on the device: a task's initial state holds none of an
    /// earlier episode's.
    pub fn forget_files(&self) {
        self.files.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    fn power(&self) -> std::sync::MutexGuard<'_, Power> {
        self.power.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn app_of_package(&self, package: &str) -> Option<&str> {
        self.apps.iter().find(|a| package_of(a) == package).map(String::as_str)
    }

    async fn observe(&self, screenshot: bool) -> Result<Observation, String> {
        self.env.lock().await.observe(ObserveOptions { screenshot }).await.map_err(|e| e.to_string())
    }

    /// One action on the instance. The shell prints nothing, as `input` does; an action the
    /// instance could not apply (a tap on nothing) still succeeds, as on Android, with the
    /// reason on stderr. Only a failing instance is an error.
    async fn act(&self, action: Action) -> ShellOutput {
        if !self.power().reaches_apps() {
            // The lock screen (or a dark one) takes the touch; the apps never see it.
            return ShellOutput::default();
        }
        match self.env.lock().await.step(&action).await {
            Ok(outcome) if !outcome.invalid => ShellOutput::default(),
            Ok(outcome) => ShellOutput { stdout: Vec::new(), stderr: format!("{}\n", outcome.feedback).into_bytes(), exit: 0 },
            Err(e) => ShellOutput::fail(1, format!("device error: {e}\n")),
        }
    }

    fn props(&self) -> Vec<(&'static str, String)> {
        vec![
            ("ro.build.characteristics", "phone".into()),
            ("ro.build.version.release", "14".into()),
            ("ro.build.version.sdk", "34".into()),
            ("ro.product.brand", "guigym".into()),
            ("ro.product.cpu.abi", "x86_64".into()),
            ("ro.product.device", self.identity.model.clone()),
            ("ro.product.manufacturer", "guigym".into()),
            ("ro.product.model", self.identity.model.clone()),
            ("ro.product.name", self.identity.model.clone()),
            ("ro.serialno", self.identity.serial.clone()),
            // Empty until the device has booted, as Android leaves it unset.
            ("sys.boot_completed", if self.power().booting() { String::new() } else { "1".into() }),
        ]
    }

    /// The focused activity, as `dumpsys` names it.
    async fn focus(&self) -> Result<String, String> {
        let obs = self.observe(false).await?;
        Ok(match &obs.app {
            Some(app) => {
                let package = package_of(app);
                format!("{package}/{package}.MainActivity")
            }
            None => format!("{LAUNCHER}/{LAUNCHER}.Launcher"),
        })
    }

    /// Runs one command (its words), before any filter.
    async fn command(&self, words: &[String]) -> ShellOutput {
        let Some((name, args)) = words.split_first() else { return ShellOutput::default() };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let services = ["input", "screencap", "uiautomator", "dumpsys", "am", "monkey", "pm", "wm", "ime"];
        if self.power().booting() && services.contains(&name.as_str()) {
            // The system server is not up yet: its services are not there to answer.
            return ShellOutput::fail(1, format!("{name}: Can't find service: the system is still booting\n"));
        }
        match name.as_str() {
            "reboot" => {
                *self.power() = Power { booting_until: Some(std::time::Instant::now() + BOOT_TIME), awake: true, locked: true };
                ShellOutput::default()
            }
            "ime" => match args.first().copied() {
                Some("list") => ShellOutput::ok(format!("{ADB_KEYBOARD}/.AdbIME\ncom.android.inputmethod.latin/.LatinIME\n")),
                Some("enable" | "set")
                    if args.get(1).is_some_and(|id| id.starts_with(&format!("{ADB_KEYBOARD}/")) || id.starts_with("com.android.inputmethod.latin/")) =>
                {
                    ShellOutput::ok(format!("Input method {} selected\n", args[1]))
                }
                _ => ShellOutput::fail(1, "usage: ime list | ime enable ID | ime set ID\n"),
            },
            "input" => self.input(&args).await,
            "screencap" => self.screencap(&args).await,
            "uiautomator" => self.uiautomator(&args).await,
            "dumpsys" => self.dumpsys(&args).await,
            "am" => self.am(&args).await,
            "monkey" => self.monkey(&args).await,
            "pm" => self.pm(&args).await,
            "getprop" => match args.first() {
                Some(key) => ShellOutput::ok(format!("{}\n", self.props().into_iter().find(|(k, _)| k == key).map(|(_, v)| v).unwrap_or_default())),
                None => ShellOutput::ok(self.props().into_iter().map(|(k, v)| format!("[{k}]: [{v}]\n")).collect::<String>()),
            },
            "wm" => match args.first().copied() {
                Some("size") => match self.observe(false).await {
                    Ok(obs) => ShellOutput::ok(format!("Physical size: {}x{}\n", obs.width, obs.height)),
                    Err(e) => ShellOutput::fail(1, format!("{e}\n")),
                },
                Some("density") => ShellOutput::ok(format!("Physical density: {}\n", self.identity.density)),
                Some("dismiss-keyguard") => {
                    // As without a secure lock: an awake lock screen goes away.
                    let mut power = self.power();
                    power.locked &= !power.awake;
                    ShellOutput::default()
                }
                _ => ShellOutput::fail(1, "usage: wm size | wm density | wm dismiss-keyguard\n"),
            },
            "echo" => ShellOutput::ok(format!("{}\n", args.join(" "))),
            "true" => ShellOutput::default(),
            "false" => ShellOutput::fail(1, ""),
            "sleep" => {
                // Real time, at most 10 s: the instance's own clock moves only with actions.
                let seconds = args.first().and_then(|s| s.parse::<f64>().ok()).filter(|s| s.is_finite()).unwrap_or(0.0).clamp(0.0, 10.0);
                tokio::time::sleep(std::time::Duration::from_secs_f64(seconds)).await;
                ShellOutput::default()
            }
            "cat" => {
                let mut out = Vec::new();
                for path in &args {
                    match self.read_file(path).await {
                        Ok(bytes) => out.extend(bytes),
                        Err(e) => return ShellOutput { stdout: out, stderr: format!("cat: {path}: {e}\n").into_bytes(), exit: 1 },
                    }
                }
                ShellOutput::ok(out)
            }
            "rm" => {
                let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
                for path in args.iter().filter(|a| !a.starts_with('-')) {
                    if files.remove(*path).is_none() && !args.contains(&"-f") {
                        return ShellOutput::fail(1, format!("rm: {path}: No such file or directory\n"));
                    }
                }
                ShellOutput::default()
            }
            "ls" => {
                let dir = args.iter().find(|a| !a.starts_with('-')).copied().unwrap_or("/sdcard");
                ShellOutput::ok(self.list(dir).await.into_iter().map(|(n, _)| format!("{n}\n")).collect::<String>())
            }
            other => ShellOutput::fail(127, format!("/system/bin/sh: {other}: inaccessible or not found\n")),
        }
    }

    async fn input(&self, args: &[&str]) -> ShellOutput {
        // An input source (`input touchscreen tap …`) changes nothing here.
        let sources = ["touchscreen", "touchpad", "touchnavigation", "mouse", "keyboard", "dpad", "gamepad", "stylus", "trackball", "joystick"];
        let args: Vec<&str> = args.iter().copied().skip_while(|a| sources.contains(a)).collect();
        let number = |i: usize| args.get(i).and_then(|s| s.parse::<f32>().ok()).filter(|v| v.is_finite());
        let usage = || ShellOutput::fail(1, "usage: input [tap X Y | swipe X1 Y1 X2 Y2 [MS] | text TEXT | keyevent KEY…]\n");
        match args.first().copied() {
            Some("tap") => match (number(1), number(2)) {
                (Some(x), Some(y)) => self.act(Action::Click { at: Some(Point(x, y)), element: None }).await,
                _ => usage(),
            },
            Some("swipe" | "draganddrop") => match (number(1), number(2), number(3), number(4)) {
                (Some(x1), Some(y1), Some(x2), Some(y2)) => {
                    let ms = number(5).unwrap_or(300.0);
                    let still = (x2 - x1).hypot(y2 - y1) < 10.0;
                    // A swipe that does not move is a press; held long, a long press.
                    let action = match (still, ms >= 500.0) {
                        (true, true) => Action::LongPress { at: Some(Point(x1, y1)), element: None },
                        (true, false) => Action::Click { at: Some(Point(x1, y1)), element: None },
                        (false, _) if args[0] == "draganddrop" => Action::Drag { from: Point(x1, y1), to: Point(x2, y2) },
                        (false, _) => Action::Swipe { from: Point(x1, y1), to: Point(x2, y2) },
                    };
                    self.act(action).await
                }
                _ => usage(),
            },
            Some("text") if args.len() > 1 => {
                // `input text` spells spaces `%s`.
                let text = args[1..].join(" ").replace("%s", " ");
                self.act(Action::Type { text, element: None, clear: false }).await
            }
            Some("keyevent" | "press") if args.len() > 1 => {
                let long = args.contains(&"--longpress");
                let keys: Vec<&str> = args[1..].iter().copied().filter(|a| !a.starts_with("--")).collect();
                if let Some(out) = self.power_keys(&keys) {
                    return out;
                }
                // Deleting from a focused field: the field's text, shortened, typed over it
                // (the instance's own `type` with `clear`), one step for a run of deletes.
                let deletes = keys.iter().take_while(|k| matches!(k.trim_start_matches("KEYCODE_"), "DEL" | "67")).count();
                if deletes > 0 && deletes == keys.len() {
                    if let Some(out) = self.delete_back(deletes).await {
                        return out;
                    }
                }
                for key in keys {
                    let Some(action) = key_action(key) else {
                        return ShellOutput::fail(1, format!("input keyevent: unknown key {key}\n"));
                    };
                    let out = self.act(action).await;
                    if out.exit != 0 || long {
                        return out;
                    }
                }
                ShellOutput::default()
            }
            _ => usage(),
        }
    }

    /// The keys that work the screen rather than an app (power, wake, menu to unlock), when
    /// every key given is one.
    fn power_keys(&self, keys: &[&str]) -> Option<ShellOutput> {
        let names: Vec<String> = keys.iter().map(|k| k.trim_start_matches("KEYCODE_").to_uppercase()).collect();
        if names.is_empty() || !names.iter().all(|n| matches!(n.as_str(), "POWER" | "26" | "WAKEUP" | "224" | "SLEEP" | "223" | "MENU" | "82")) {
            return None;
        }
        let mut power = self.power();
        for name in names {
            match name.as_str() {
                "POWER" | "26" if power.awake => *power = Power { awake: false, locked: true, ..*power },
                "POWER" | "26" | "WAKEUP" | "224" => power.awake = true,
                "SLEEP" | "223" => *power = Power { awake: false, locked: true, ..*power },
                // Menu on an awake lock screen without a secure lock opens it.
                _ if power.awake => power.locked = false,
                _ => {}
            }
        }
        Some(ShellOutput::default())
    }

    /// `n` characters deleted before the cursor (at the end) of the focused field; `None` when
    /// no field is focused.
    async fn delete_back(&self, n: usize) -> Option<ShellOutput> {
        let obs = self.observe(false).await.ok()?;
        let field = obs.ui_tree.iter().find(|node| node.focused && node.editable)?;
        let kept: String = field.text.chars().take(field.text.chars().count().saturating_sub(n)).collect();
        Some(self.act(Action::Type { text: kept, element: None, clear: true }).await)
    }

    async fn screencap(&self, args: &[&str]) -> ShellOutput {
        let png = args.contains(&"-p");
        let obs = match self.observe(true).await {
            Ok(obs) => obs,
            Err(e) => return ShellOutput::fail(1, format!("screencap: {e}\n")),
        };
        let Some(shot) = obs.screenshot else { return ShellOutput::fail(1, "screencap: the instance gave no screenshot\n") };
        let bytes = if png {
            shot.png().to_vec()
        } else {
            match raw_framebuffer(&shot) {
                Ok(raw) => raw,
                Err(e) => return ShellOutput::fail(1, format!("screencap: {e}\n")),
            }
        };
        match args.iter().find(|a| !a.starts_with('-')) {
            Some(path) => self.store(path, bytes),
            None => ShellOutput::ok(bytes),
        }
    }

    async fn uiautomator(&self, args: &[&str]) -> ShellOutput {
        if args.first() != Some(&"dump") {
            return ShellOutput::fail(1, "usage: uiautomator dump [--compressed] [FILE]\n");
        }
        let obs = match self.observe(false).await {
            Ok(obs) => obs,
            Err(e) => return ShellOutput::fail(1, format!("ERROR: {e}\n")),
        };
        let xml = hierarchy_xml(&obs);
        let path = args[1..].iter().find(|a| !a.starts_with("--")).copied().unwrap_or(WINDOW_DUMP);
        // Android's own message, spelling and all, which scripts wait for.
        let said = format!("UI hierchary dumped to: {path}\n");
        if path == "/dev/tty" || path == "/dev/stdout" {
            return ShellOutput::ok(format!("{xml}{said}"));
        }
        let stored = self.store(path, xml.into_bytes());
        if stored.exit != 0 {
            return stored;
        }
        ShellOutput::ok(said)
    }

    async fn dumpsys(&self, args: &[&str]) -> ShellOutput {
        let power = *self.power();
        if args.first() == Some(&"power") {
            // The screen's state needs no app in front (a device not yet in a task has none).
            return ShellOutput::ok(format!(
                "POWER MANAGER (dumpsys power)\n  mWakefulness={}\n  mBootCompleted=true\n  mSystemReady=true\n",
                if power.awake { "Awake" } else { "Asleep" }
            ));
        }
        let focus = match self.focus().await {
            Ok(f) => f,
            Err(e) => return ShellOutput::fail(1, format!("{e}\n")),
        };
        let short = focus.replacen(&format!("{}.", focus.split('/').next().unwrap_or("")), ".", 1);
        match args.first().copied() {
            Some("window") => ShellOutput::ok(format!(
                "WINDOW MANAGER WINDOWS (dumpsys window windows)\n  mCurrentFocus=Window{{42 u0 {focus}}}\n  mFocusedApp=ActivityRecord{{7 u0 {short} t1}}\n  mShowingLockscreen={0} mShowingDream=false mDreamingLockscreen={0}\n  mScreenOnFully={1}\n",
                power.locked, power.awake
            )),
            Some("activity") => ShellOutput::ok(format!(
                "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n  mResumedActivity: ActivityRecord{{7 u0 {short} t1}}\n  topResumedActivity=ActivityRecord{{7 u0 {short} t1}}\n"
            )),
            Some(other) => ShellOutput::fail(1, format!("Can't find service: {other}\n")),
            None => ShellOutput::fail(1, "usage: dumpsys window | dumpsys activity\n"),
        }
    }

    /// Opens an app by package; what `am start` and `monkey` share.
    async fn launch(&self, package: &str) -> Result<(), ShellOutput> {
        if package == LAUNCHER {
            let out = self.act(Action::Home).await;
            return if out.exit == 0 { Ok(()) } else { Err(out) };
        }
        let Some(app) = self.app_of_package(package) else {
            return Err(ShellOutput::fail(1, format!("Error: Activity not started, unable to resolve package {package}\n")));
        };
        let out = self.act(Action::OpenApp { name: app.to_string() }).await;
        if out.exit == 0 {
            Ok(())
        } else {
            Err(out)
        }
    }

    async fn am(&self, args: &[&str]) -> ShellOutput {
        match args.first().copied() {
            Some("start" | "start-activity") => {
                let component = args.windows(2).find(|w| w[0] == "-n").map(|w| w[1]).or_else(|| args[1..].iter().copied().find(|a| a.contains('/')));
                let Some(component) = component else {
                    return ShellOutput::fail(1, "Error: am start needs a component (-n PACKAGE/ACTIVITY) here\n");
                };
                let package = component.split('/').next().unwrap_or("");
                match self.launch(package).await {
                    Ok(()) => ShellOutput::ok(format!("Starting: Intent {{ cmp={component} }}\n")),
                    Err(out) => out,
                }
            }
            Some("broadcast") => {
                let action = args.windows(2).find(|w| w[0] == "-a").map(|w| w[1]).unwrap_or("");
                let message = args.windows(3).find(|w| w[0] == "--es" && w[1] == "msg").map(|w| w[2]);
                let text = match (action, message) {
                    ("ADB_INPUT_TEXT", Some(m)) => m.to_string(),
                    ("ADB_INPUT_B64", Some(m)) => {
                        use base64::Engine;
                        match base64::engine::general_purpose::STANDARD.decode(m).ok().and_then(|b| String::from_utf8(b).ok()) {
                            Some(t) => t,
                            None => return ShellOutput::ok("Broadcasting: Intent { act=ADB_INPUT_B64 }\nBroadcast completed: result=0\n"),
                        }
                    }
                    _ => return ShellOutput::ok(format!("Broadcasting: Intent {{ act={action} }}\nBroadcast completed: result=0\n")),
                };
                let out = self.act(Action::Type { text, element: None, clear: false }).await;
                ShellOutput { stdout: format!("Broadcasting: Intent {{ act={action} }}\nBroadcast completed: result=0\n").into_bytes(), ..out }
            }
            Some("force-stop") => {
                let Some(package) = args.get(1) else { return ShellOutput::fail(1, "usage: am force-stop PACKAGE\n") };
                self.stop(package).await
            }
            _ => ShellOutput::fail(1, "usage: am start -n PACKAGE/ACTIVITY | am force-stop PACKAGE | am broadcast -a ACTION [--es msg TEXT]\n"),
        }
    }

    async fn monkey(&self, args: &[&str]) -> ShellOutput {
        let Some(package) = args.windows(2).find(|w| w[0] == "-p").map(|w| w[1]) else {
            return ShellOutput::fail(1, "usage: monkey -p PACKAGE 1\n");
        };
        match self.launch(package).await {
            Ok(()) => ShellOutput::ok("Events injected: 1\n"),
            Err(_) => ShellOutput::fail(252, "** No activities found to run, monkey aborted.\n"),
        }
    }

    async fn pm(&self, args: &[&str]) -> ShellOutput {
        match args {
            ["list", "packages", rest @ ..] => {
                let wanted = rest.iter().find(|a| !a.starts_with('-')).copied().unwrap_or("");
                let mut packages: Vec<String> = self.apps.iter().map(|a| package_of(a)).collect();
                packages.extend([LAUNCHER.to_string(), ADB_KEYBOARD.to_string()]);
                packages.sort();
                ShellOutput::ok(packages.into_iter().filter(|p| p.contains(wanted)).map(|p| format!("package:{p}\n")).collect::<String>())
            }
            ["path", package] if self.app_of_package(package).is_some() || *package == ADB_KEYBOARD => {
                ShellOutput::ok(format!("package:/data/app/{package}/base.apk\n"))
            }
            ["path", "android"] => ShellOutput::ok("package:/system/framework/framework-res.apk\n"),
            ["clear", package] if self.app_of_package(package).is_some() => {
                // The app's data is its task's: what clearing can do here is stop the app.
                self.stop(package).await;
                ShellOutput::ok("Success\n")
            }
            ["clear", _] => ShellOutput::fail(1, "Failed\n"),
            _ => ShellOutput::fail(1, "usage: pm list packages [FILTER] | pm path PACKAGE | pm clear PACKAGE\n"),
        }
    }

    /// Stops an app: home, when it is in front.
    async fn stop(&self, package: &str) -> ShellOutput {
        match self.focus().await {
            Ok(focus) if focus.starts_with(&format!("{package}/")) => self.act(Action::Home).await,
            Ok(_) => ShellOutput::default(),
            Err(e) => ShellOutput::fail(1, format!("{e}\n")),
        }
    }

    /// Writes a file the device makes (a screenshot, a window dump).
    fn store(&self, path: &str, bytes: Vec<u8>) -> ShellOutput {
        match self.put(path, bytes, 0o100644) {
            Ok(()) => ShellOutput::default(),
            Err(e) => ShellOutput::fail(1, format!("{e}\n")),
        }
    }

    /// A file written, in one of the writable folders, within the device's storage.
    fn put(&self, path: &str, bytes: Vec<u8>, mode: u32) -> Result<(), String> {
        if !within_folders(path) || path.contains('\0') || path.split('/').any(|part| part == ".." || part == ".") {
            return Err(format!("{path}: Read-only file system"));
        }
        let mtime = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as u32).unwrap_or(0);
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        let others: usize = files.iter().filter(|(p, _)| p.as_str() != path).map(|(_, f)| f.bytes.len()).sum();
        if others + bytes.len() > STORAGE_MAX {
            return Err(format!("{path}: No space left on device"));
        }
        files.insert(path.to_string(), File { bytes, mode, mtime });
        Ok(())
    }
}

/// Whether a path lies in one of the writable folders.
fn within_folders(path: &str) -> bool {
    FOLDERS.iter().filter(|f| **f != "/").any(|f| path.strip_prefix(f).is_some_and(|rest| rest.starts_with('/') && rest.len() > 1))
}

/// An Android key (`KEYCODE_BACK`, `BACK` or its number) as an action.
fn key_action(key: &str) -> Option<Action> {
    let name = key.trim_start_matches("KEYCODE_").to_uppercase();
    let named = |k: &str| Some(Action::Key { keys: vec![k.to_string()] });
    match name.as_str() {
        "BACK" | "4" => Some(Action::Back),
        "HOME" | "3" => Some(Action::Home),
        "ENTER" | "66" => named("enter"),
        "DEL" | "67" => named("backspace"),
        "FORWARD_DEL" | "112" => named("delete"),
        "TAB" | "61" => named("tab"),
        "SPACE" | "62" => named("space"),
        "ESCAPE" | "111" => named("escape"),
        "DPAD_UP" | "19" => named("up"),
        "DPAD_DOWN" | "20" => named("down"),
        "DPAD_LEFT" | "21" => named("left"),
        "DPAD_RIGHT" | "22" => named("right"),
        "MOVE_HOME" | "122" => named("home"),
        "MOVE_END" | "123" => named("end"),
        "PAGE_UP" | "92" => named("pageup"),
        "PAGE_DOWN" | "93" => named("pagedown"),
        _ => None,
    }
}

/// `screencap` without `-p`: width, height, pixel format (1, RGBA 8888) and colour space
/// (0) as 32-bit little-endian words, then the pixels.
fn raw_framebuffer(shot: &guigym_core::Screenshot) -> Result<Vec<u8>, String> {
    let (width, height, rgba) = shot.to_rgba()?;
    let mut out = Vec::with_capacity(16 + rgba.len());
    for word in [width, height, 1, 0] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(&rgba);
    Ok(out)
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // As references: a parser turns a literal tab, line end or CR in an attribute into
            // a space. Other control characters cannot be in XML 1.0 at all.
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}

/// The Android widget class a role reads as.
fn class_of(node: &UiNode) -> &'static str {
    match node.role.as_str() {
        _ if node.editable => "android.widget.EditText",
        "button" | "tab" | "link" | "menuitem" => "android.widget.Button",
        "checkbox" => "android.widget.CheckBox",
        "switch" | "toggle" => "android.widget.Switch",
        "image" | "icon" => "android.widget.ImageView",
        "list" => "androidx.recyclerview.widget.RecyclerView",
        "text" | "label" | "heading" | "title" => "android.widget.TextView",
        "screen" | "root" | "window" => "android.widget.FrameLayout",
        _ => "android.view.ViewGroup",
    }
}

/// The observation's tree as `uiautomator dump` writes it: one `<node>` per element, nested as
/// the tree is, with its text, `resource-id` (`PACKAGE:id/ID`, our element id), `content-desc`
/// (a field's hint), widget class, states and `bounds="[x1,y1][x2,y2]"`.
pub fn hierarchy_xml(obs: &Observation) -> String {
    let package = obs.app.as_deref().map(package_of).unwrap_or_else(|| LAUNCHER.to_string());
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); obs.ui_tree.len()];
    let mut roots = Vec::new();
    for (i, n) in obs.ui_tree.iter().enumerate() {
        match n.parent.filter(|p| *p < i) {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    let mut out = String::from("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">");
    // Depth-first, without recursion: the tree's depth is whatever an app makes it.
    let mut stack: Vec<(usize, usize, bool)> = roots.iter().rev().enumerate().map(|(k, &i)| (i, roots.len() - 1 - k, false)).collect();
    while let Some((i, index, closing)) = stack.pop() {
        if closing {
            out.push_str("</node>");
            continue;
        }
        let n = &obs.ui_tree[i];
        let b = &n.bounds;
        let _ = write!(
            out,
            "<node index=\"{index}\" text=\"{}\" resource-id=\"{}:id/{}\" class=\"{}\" package=\"{package}\" content-desc=\"{}\" checkable=\"{}\" checked=\"{}\" clickable=\"{}\" enabled=\"true\" focusable=\"{}\" focused=\"{}\" scrollable=\"{}\" long-clickable=\"{}\" password=\"false\" selected=\"{}\" bounds=\"[{},{}][{},{}]\">",
            xml_escape(&n.text),
            package,
            xml_escape(&n.id),
            class_of(n),
            xml_escape(&n.hint),
            matches!(n.role.as_str(), "checkbox" | "switch" | "toggle"),
            n.checked,
            n.clickable,
            n.clickable || n.editable,
            n.focused,
            n.scrollable,
            n.clickable,
            n.selected,
            b.x,
            b.y,
            b.x + b.w,
            b.y + b.h,
        );
        stack.push((i, index, true));
        for (k, &c) in children[i].iter().enumerate().rev() {
            stack.push((c, k, false));
        }
    }
    out.push_str("</hierarchy>");
    out
}

#[async_trait]
impl Device for EnvDevice {
    fn banner(&self) -> String {
        let m = &self.identity.model;
        format!("device::ro.product.name={m};ro.product.model={m};ro.product.device={m};features=shell_v2,cmd")
    }

    async fn shell(&self, line: &str) -> ShellOutput {
        hear(&self.heard, line);
        let pipelines = match shell::parse(line) {
            Ok(p) => p,
            Err(e) => return ShellOutput::fail(2, format!("/system/bin/sh: {e}\n")),
        };
        let mut all = ShellOutput::default();
        let mut run_next = true;
        for p in pipelines {
            if run_next {
                let (first, filters) = p.commands.split_first().map(|(f, r)| (f.clone(), r.to_vec())).unwrap_or_default();
                let mut out = self.command(&first).await;
                for f in &filters {
                    let text = String::from_utf8_lossy(&out.stdout).into_owned();
                    match shell::filter(f, &text) {
                        Some(Ok(kept)) => {
                            // grep's status: 1 when nothing matched.
                            out.exit = u8::from(f.first().is_some_and(|n| n == "grep") && kept.is_empty());
                            out.stdout = kept.into_bytes();
                        }
                        Some(Err(e)) => out = ShellOutput::fail(2, format!("{e}\n")),
                        None => out = ShellOutput::fail(127, format!("/system/bin/sh: {}: inaccessible or not found\n", f.first().map_or("", String::as_str))),
                    }
                }
                all.stdout.extend(out.stdout);
                all.stderr.extend(out.stderr);
                all.exit = out.exit;
            }
            run_next = match p.then {
                Join::Always => true,
                Join::And => all.exit == 0,
                Join::Or => all.exit != 0,
            };
        }
        all
    }

    async fn stat(&self, path: &str) -> Option<FileStat> {
        let path = path.trim_end_matches('/');
        let path = if path.is_empty() { "/" } else { path };
        if FOLDERS.contains(&path) {
            return Some(FileStat { mode: 0o040771, size: 4096, mtime: 0 });
        }
        let files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        files.get(path).map(|f| FileStat { mode: f.mode, size: f.bytes.len() as u32, mtime: f.mtime })
    }

    async fn list(&self, path: &str) -> Vec<(String, FileStat)> {
        let dir = format!("{}/", path.trim_end_matches('/'));
        let files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        files
            .iter()
            .filter_map(|(p, f)| {
                p.strip_prefix(&dir)
                    .filter(|name| !name.contains('/'))
                    .map(|name| (name.to_string(), FileStat { mode: f.mode, size: f.bytes.len() as u32, mtime: f.mtime }))
            })
            .collect()
    }

    async fn read_file(&self, path: &str) -> Result<Vec<u8>, String> {
        let files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        files.get(path).map(|f| f.bytes.clone()).ok_or_else(|| "No such file or directory".to_string())
    }

    async fn write_file(&self, path: &str, bytes: Vec<u8>, mode: u32) -> Result<(), String> {
        // Only regular files: a mode that says otherwise is taken as a regular file's.
        self.put(path, bytes, 0o100000 | (mode & 0o7777))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_keys_and_paths() {
        assert_eq!(package_of("Food Delivery"), "com.guigym.fooddelivery");
        assert_eq!(key_action("KEYCODE_BACK"), Some(Action::Back));
        assert_eq!(key_action("3"), Some(Action::Home));
        assert_eq!(key_action("KEYCODE_ENTER"), Some(Action::Key { keys: vec!["enter".into()] }));
        assert_eq!(key_action("KEYCODE_VOLUME_UP"), None);
        assert!(within_folders("/sdcard/window_dump.xml"));
        assert!(!within_folders("/sdcard"));
        assert!(!within_folders("/system/bin/sh"));
        assert!(!within_folders("/sdcardx/a"));
    }

    #[test]
    fn texts_in_a_dump_keep_their_tabs_and_line_ends() {
        let escaped = xml_escape("a\tb\nc\rd<\u{1}");
        assert_eq!(escaped, "a&#9;b&#10;c&#13;d&lt;");
        let xml = format!(r#"<hierarchy><node text="{escaped}"/></hierarchy>"#);
        let mut reader = quick_xml::Reader::from_str(&xml);
        let mut read = String::new();
        while let Ok(event) = reader.read_event() {
            match event {
                quick_xml::events::Event::Empty(e) => {
                    let a = e.attributes().next().unwrap().unwrap();
                    read = a.normalized_value(quick_xml::XmlVersion::Implicit1_0).unwrap().into_owned();
                }
                quick_xml::events::Event::Eof => break,
                _ => {}
            }
        }
        assert_eq!(read, "a\tb\nc\rd<");
    }
}
