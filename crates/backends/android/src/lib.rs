//! The `android` backend: Android devices (phones, emulators, ReDroid containers, or guigym's
//! own `guigym adb-device`) driven over ADB, through an adb server or straight to a device's
//! transport. An observation is a screenshot (`screencap -p`) and the window dump
//! (`uiautomator dump`) read into guigym's tree; an action is `input tap/swipe/text/keyevent`,
//! `monkey -p` for an app, back and home as key events, text beyond ASCII through ADB
//! Keyboard. Every adb failure (a device gone, a server that does not answer) is an
//! infrastructure failure, never the agent's.
//!
//! Before every task a device is put back by its configured reset steps (`config`), waited
//! for until ready (booted, awake, unlocked); a guigym device is then set up for the task and
//! judged by its control API, to which the actions ADB cannot carry (answers, questions,
//! termination) go as well.

pub mod config;
pub mod uiautomator;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use guigym_adb::client::DirectLink;
use guigym_adb::host::AdbServer;
use guigym_adb::{package_of, Link};
use guigym_core::{Action, Env, EnvError, EnvProvider, Episode, Observation, ObserveOptions, Point, Screenshot, StepOutcome, TaskSpec, Verdict};
use serde_json::{json, Value};

pub use config::{AndroidConfig, DeviceConfig, ResetStep, Route, Screencap};

/// ADB Keyboard's input method: what types text `input text` cannot (anything not printable
/// ASCII) on a stock image, once the operator installed it.
const ADB_KEYBOARD_IME: &str = "com.android.adbkeyboard/.AdbIME";

/// One device this backend may drive: its settings and the way to it.
pub struct AndroidDevice {
    pub config: DeviceConfig,
    link: Arc<dyn Link>,
    /// The adb server it is reached through, which must `connect` a `HOST:PORT` device.
    server: Option<AdbServer>,
}

/// Whether `dumpsys window` shows a lock screen (its wording differs across Android versions).
fn locked(window: &str) -> bool {
    ["mShowingLockscreen=true", "mDreamingLockscreen=true", "isStatusBarKeyguard=true", "mKeyguardShowing=true"].iter().any(|s| window.contains(s))
}

fn infra(e: impl std::fmt::Display) -> EnvError {
    EnvError::Infra(e.to_string())
}

/// The devices free to be handed out, in turn: one that failed goes to the back of the queue,
/// so the others are tried before it again.
type Pool = Arc<Mutex<VecDeque<Arc<AndroidDevice>>>>;

/// Hands out the configured devices, each to one instance at a time.
pub struct AndroidProvider {
    free: Pool,
    serials: Arc<Vec<String>>,
    /// Only this device (an env spec that names one).
    only: Option<String>,
    apps: Arc<Vec<String>>,
    http: reqwest::Client,
}

impl AndroidProvider {
    /// The devices of `config`; `apps`: the apps agents open by name (`open_app`), each
    /// installed as `package_of(name)`. A `direct` device needs the host key, which is loaded
    /// (or made) here.
    pub fn new(config: &AndroidConfig, apps: Vec<String>) -> Result<AndroidProvider, String> {
        config.check()?;
        let timeout = Duration::from_secs_f64(config.timeout_s);
        let server = AdbServer { addr: config.adb_server.clone(), timeout };
        let mut key = None;
        let mut devices = VecDeque::new();
        for d in &config.devices {
            let (link, via): (Arc<dyn Link>, Option<AdbServer>) = match d.route {
                Route::Server => (Arc::new(server.device(&d.serial)), Some(server.clone())),
                Route::Direct => {
                    // One host key for every direct device, loaded (or made) once.
                    let key = match &key {
                        Some(key) => Arc::clone(key),
                        None => {
                            let path = config.adb_key.clone().unwrap_or_else(guigym_adb::client::default_key_path);
                            key.insert(Arc::new(guigym_adb::client::load_or_make_key(&path)?)).clone()
                        }
                    };
                    (Arc::new(DirectLink::new(d.serial.clone(), key, timeout)), None)
                }
            };
            devices.push_back(Arc::new(AndroidDevice { config: d.clone(), link, server: via }));
        }
        let http = reqwest::Client::builder().timeout(timeout).build().unwrap_or_default();
        let serials = config.devices.iter().map(|d| d.serial.clone()).collect();
        Ok(AndroidProvider { free: Arc::new(Mutex::new(devices)), serials: Arc::new(serials), only: None, apps: Arc::new(apps), http })
    }

    /// The same devices, handing out only `serial` (which must be one of them): what an env
    /// spec naming a device gets. A client cannot make a worker reach a device it was not given.
    pub fn only(&self, serial: &str) -> Result<AndroidProvider, String> {
        if !self.serials.iter().any(|s| s == serial) {
            // Not the list: whoever asks is a client, and may not learn what else is here.
            return Err(format!("no device {serial:?} among this worker's {} Android devices", self.serials.len()));
        }
        Ok(AndroidProvider {
            free: self.free.clone(),
            serials: self.serials.clone(),
            only: Some(serial.to_string()),
            apps: self.apps.clone(),
            http: self.http.clone(),
        })
    }
}

#[async_trait]
impl EnvProvider for AndroidProvider {
    fn backend(&self) -> String {
        "android".into()
    }

    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        let (device, held) = self.take()?;
        let env = AndroidEnv {
            device,
            _held: held,
            apps: self.apps.clone(),
            http: self.http.clone(),
            free: self.free.clone(),
            last: None,
            reset_done: false,
            control_index: None,
            size: None,
            keyboard: None,
            keyboard_on: false,
            episode: Episode::default(),
        };
        Ok(Box::new(env))
    }
}

impl AndroidProvider {
    /// A free device (the one asked for, if any) that no other process on this host holds,
    /// with its lock; the others go on waiting in the pool.
    fn take(&self) -> Result<(Arc<AndroidDevice>, std::fs::File), EnvError> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let mut elsewhere = Vec::new();
        for i in 0..free.len() {
            let device = &free[i];
            if self.only.as_ref().is_some_and(|serial| &device.config.serial != serial) {
                continue;
            }
            match lock_device(&device.config.serial)? {
                Some(held) => {
                    let device = free.remove(i).ok_or_else(|| infra("the device pool changed under its lock"))?;
                    return Ok((device, held));
                }
                None => elsewhere.push(device.config.serial.clone()),
            }
        }
        let message = match (&self.only, elsewhere.is_empty()) {
            (Some(serial), true) => format!("Android device {serial} is in use"),
            (Some(serial), false) => format!("Android device {serial} is in use by another process on this host"),
            (None, true) => "every listed Android device is in use".into(),
            (None, false) => format!("every listed Android device is in use ({} by other processes on this host)", elsewhere.len()),
        };
        Err(EnvError::NoCapacity { message, retry_after_ms: Some(1000) })
    }
}

/// Holds a device against the other guigym processes of this host (two drivers on one device
/// would each see the other's taps): an exclusive lock on a file named after its serial, let
/// go when the file is closed (the instance ends, or the process dies). `None`: another
/// process holds it.
fn lock_device(serial: &str) -> Result<Option<std::fs::File>, EnvError> {
    let folder = std::env::temp_dir().join("guigym-android-devices");
    std::fs::create_dir_all(&folder).map_err(|e| infra(format!("{}: {e}", folder.display())))?;
    // A serial may hold any character a file name cannot: the name is its hash, with a
    // readable prefix for whoever lists the folder.
    let readable: String = serial.chars().take(32).map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let path = folder.join(format!("{readable}-{}.lock", &guigym_core::sha256_hex(serial.as_bytes())[..16]));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .or_else(|_| std::fs::File::open(&path))
        .map_err(|e| infra(format!("{}: {e}", path.display())))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(infra(format!("locking {}: {e}", path.display()))),
    }
}

/// One device, driven.
pub struct AndroidEnv {
    device: Arc<AndroidDevice>,
    /// The device's lock against other processes, held while this instance lives.
    _held: std::fs::File,
    apps: Arc<Vec<String>>,
    http: reqwest::Client,
    /// Where the device goes back when this instance ends.
    free: Pool,
    /// The last observation: element targets are resolved against it.
    last: Option<Observation>,
    /// A task was set up: before that, nothing but a reset is meaningful.
    reset_done: bool,
    control_index: Option<usize>,
    /// The screen's size, once asked.
    size: Option<(u32, u32)>,
    /// Whether ADB Keyboard is installed (asked when first needed), and whether it is the
    /// input method now.
    keyboard: Option<bool>,
    keyboard_on: bool,
    /// Steps, feedback and how the episode ended, kept here as every backend keeps them.
    episode: Episode,
}

impl Drop for AndroidEnv {
    fn drop(&mut self) {
        self.free.lock().unwrap_or_else(|p| p.into_inner()).push_back(self.device.clone());
    }
}

/// A PNG of `screencap`'s raw output: width, height and pixel format as little-endian words
/// (and, from Android 8 on, a colour space word), then RGBA 8888 pixels.
fn png_of_raw(raw: &[u8]) -> Result<Vec<u8>, String> {
    let word = |i: usize| raw.get(i..i + 4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    let (Some(width), Some(height), Some(format)) = (word(0), word(4), word(8)) else {
        return Err(format!("{} bytes is no raw screen", raw.len()));
    };
    if format != 1 {
        return Err(format!("pixel format {format}: only RGBA 8888 (1) is read"));
    }
    let pixels = (width as u64) * (height as u64) * 4;
    if !(1..=8192).contains(&width) || !(1..=8192).contains(&height) {
        return Err(format!("a {width}x{height} screen"));
    }
    let header = match raw.len() as u64 {
        n if n == 16 + pixels => 16,
        n if n == 12 + pixels => 12,
        n => return Err(format!("{n} bytes for a {width}x{height} screen")),
    };
    let mut png = Vec::with_capacity(raw.len() / 8);
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(&raw[header..]).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(png)
}

/// Kills a reset command's process group when dropped while armed: a command cut off at its
/// deadline (or whose reset was abandoned) leaves nothing it started running.
struct GroupGuard(Option<u32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pid) = self.0.and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

/// What a process writes to a pipe, read until the pipe closes; its last 2 KiB are kept in
/// `kept`, where they can be taken while the pipe is still open.
async fn keep_tail(mut pipe: impl tokio::io::AsyncRead + Unpin, kept: Arc<Mutex<Vec<u8>>>) {
    use tokio::io::AsyncReadExt as _;
    let mut chunk = vec![0u8; 8192];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.extend_from_slice(&chunk[..n]);
        if kept.len() > 4096 {
            let extra = kept.len() - 2048;
            kept.drain(..extra);
        }
    }
}

/// The largest window dump read (a real screen's is well under 1 MiB).
const DUMP_MAX: usize = 4 << 20;

/// Text from elsewhere (a device, a control API, a host command) as an error shows it: its
/// first 500 characters.
fn brief(text: &str) -> String {
    match text.char_indices().nth(500) {
        Some((cut, _)) => format!("{}… ({} bytes)", &text[..cut], text.len()),
        None => text.to_string(),
    }
}

/// The largest answer read from a control API (its answers are a few KiB).
const CONTROL_MAX: usize = 8 << 20;

/// A control API's answer as JSON, read to `CONTROL_MAX` bytes at most.
async fn json_of(mut response: reqwest::Response) -> Result<Value, EnvError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(infra)? {
        if body.len() + chunk.len() > CONTROL_MAX {
            return Err(infra(format!("the control API's answer runs over {} MiB", CONTROL_MAX >> 20)));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| infra(format!("the control API's answer: {e}")))
}

/// Text `input text` types as it is: printable ASCII without `%s`, which it reads as a space
/// (spaces themselves are sent as `%s`), and which has no escape.
fn plain(text: &str) -> bool {
    text.chars().all(|c| (' '..='~').contains(&c)) && !text.contains("%s")
}

/// Text as one word of a device shell's command line.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl AndroidEnv {
    fn serial(&self) -> &str {
        &self.device.config.serial
    }

    async fn shell(&self, command: &str) -> Result<guigym_adb::ShellOutput, EnvError> {
        self.device.link.shell(command).await.map_err(infra)
    }

    /// A shell command that must succeed, its stdout.
    async fn must(&self, command: &str) -> Result<String, EnvError> {
        let out = self.shell(command).await?;
        if out.exit != 0 {
            return Err(infra(format!("{} on {}: exit {}: {}", brief(command), self.serial(), out.exit, brief(String::from_utf8_lossy(&out.stderr).trim()))));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// One of the device's reset steps.
    async fn reset_step(&self, step: &ResetStep) -> Result<(), EnvError> {
        let config = &self.device.config;
        match step {
            ResetStep::PmClear(packages) => {
                for package in packages {
                    let said = self.must(&format!("pm clear {package}")).await?;
                    if !said.contains("Success") {
                        return Err(infra(format!("pm clear {package} on {}: {}", self.serial(), said.trim())));
                    }
                }
            }
            ResetStep::Snapshot(name) => {
                let addr = config.console_addr().ok_or_else(|| infra("no emulator console"))?;
                let token = config.console_token.clone().or_else(guigym_adb::console::token_from_home);
                let wait = Duration::from_secs_f64(config.ready.timeout_s);
                guigym_adb::console::send(&addr, token.as_deref(), &format!("avd snapshot load {name}"), wait).await.map_err(infra)?;
            }
            ResetStep::Command(command) => {
                let wait = Duration::from_secs_f64(config.ready.timeout_s);
                let shown = brief(command);
                // In a process group of its own, so that what it started can be stopped with it.
                let mut child = tokio::process::Command::new("sh")
                    .arg("-c")
                    .arg(command)
                    .env("GUIGYM_ANDROID_SERIAL", self.serial())
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .process_group(0)
                    .kill_on_drop(true)
                    .spawn()
                    .map_err(|e| infra(format!("reset command {shown:?}: {e}")))?;
                let mut group = GroupGuard(child.id());
                // Its last words, read aside: what it leaves running in the background may hold
                // the pipe open long after the command itself has ended.
                let said = Arc::new(Mutex::new(Vec::new()));
                let reading = child.stderr.take().map(|e| tokio::spawn(keep_tail(e, said.clone())));
                let status = tokio::time::timeout(wait, child.wait())
                    .await
                    .map_err(|_| infra(format!("reset command {shown:?} for {} ran past {}s", self.serial(), config.ready.timeout_s)))?
                    .map_err(|e| infra(format!("reset command {shown:?}: {e}")))?;
                // It ended in time: what it started on purpose (in the background) may stay.
                group.0 = None;
                if !status.success() {
                    if let Some(reading) = reading {
                        // A moment for the last of it; a child holding the pipe is not waited for.
                        let _ = tokio::time::timeout(Duration::from_millis(300), reading).await;
                    }
                    let said = String::from_utf8_lossy(&said.lock().unwrap_or_else(|p| p.into_inner())).into_owned();
                    let tail: String = said.chars().rev().take(400).collect::<Vec<_>>().into_iter().rev().collect();
                    return Err(infra(format!("reset command {shown:?} for {}: {status}: {}", self.serial(), tail.trim())));
                }
            }
            ResetStep::Shell(command) => {
                self.must(command).await?;
            }
        }
        Ok(())
    }

    /// Waits until the device has booted and its package manager answers, then wakes it and
    /// takes its lock screen away: what a task needs of a device that was just restored. Where a
    /// reset step may have restarted it (a snapshot, a command), errors while it comes back (a
    /// device offline) are waited out until the deadline; otherwise a device that does not
    /// answer fails at once, so its attempt runs elsewhere without waiting.
    async fn make_ready(&mut self) -> Result<(), EnvError> {
        let ready = self.device.config.ready.clone();
        let deadline = tokio::time::Instant::now() + Duration::from_secs_f64(ready.timeout_s);
        let restarted = self.device.config.reset.iter().any(|s| !matches!(s, ResetStep::PmClear(_)));
        loop {
            let why = match self.booted().await {
                Ok(None) => break,
                Ok(Some(why)) => why,
                Err(e) if restarted => e.to_string(),
                Err(e) => return Err(e),
            };
            if tokio::time::Instant::now() >= deadline {
                return Err(infra(format!("{} is not ready after {}s: {why}", self.serial(), ready.timeout_s)));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        if ready.unlock {
            let power = self.must("dumpsys power").await?;
            if power.contains("mWakefulness=") && !power.contains("mWakefulness=Awake") {
                self.must("input keyevent KEYCODE_WAKEUP").await?;
            }
            // Dismissing works on Android 8 and later; the menu key on older lock screens.
            for unlock in ["wm dismiss-keyguard", "input keyevent KEYCODE_MENU"] {
                if !locked(&self.must("dumpsys window").await?) {
                    break;
                }
                self.must(unlock).await?;
            }
            if locked(&self.must("dumpsys window").await?) {
                return Err(infra(format!("{}: the lock screen stays (a PIN or pattern?): remove the device's screen lock", self.serial())));
            }
        }
        Ok(())
    }

    /// Makes ADB Keyboard the input method, for text beyond ASCII; without it installed such
    /// text cannot be typed, which is the device's set-up failing, not the agent.
    async fn keyboard_up(&mut self) -> Result<(), EnvError> {
        if self.keyboard_on {
            return Ok(());
        }
        if self.keyboard.is_none() {
            // Asked the first time it is needed: most episodes type ASCII only.
            let listed = self.must("pm list packages com.android.adbkeyboard").await?;
            self.keyboard = Some(listed.lines().any(|l| l.trim() == "package:com.android.adbkeyboard"));
        }
        if self.keyboard != Some(true) {
            return Err(infra(format!("{}: text beyond ASCII needs ADB Keyboard (com.android.adbkeyboard) installed on the device", self.serial())));
        }
        self.must(&format!("ime enable {ADB_KEYBOARD_IME}")).await?;
        self.must(&format!("ime set {ADB_KEYBOARD_IME}")).await?;
        self.keyboard_on = true;
        Ok(())
    }

    /// Has the adb server connect a `HOST:PORT` device (again, after a restart took it away);
    /// other devices the server finds itself.
    async fn connect(&self) -> Result<(), EnvError> {
        if let Some(server) = &self.device.server {
            if config::is_host_port(self.serial()) {
                server.connect(self.serial()).await.map_err(infra)?;
            }
        }
        Ok(())
    }

    /// `None` when booted with its package manager up; otherwise what is missing.
    async fn booted(&self) -> Result<Option<String>, EnvError> {
        self.connect().await?;
        let booted = self.shell("getprop sys.boot_completed").await?;
        if String::from_utf8_lossy(&booted.stdout).trim() != "1" {
            return Ok(Some("sys.boot_completed is not 1".into()));
        }
        let framework = self.shell("pm path android").await?;
        if framework.exit != 0 || !String::from_utf8_lossy(&framework.stdout).contains("package:") {
            return Ok(Some("the package manager does not answer".into()));
        }
        Ok(None)
    }

    /// The screen's size, asked once: a device's screen does not change size under an agent.
    async fn screen_size(&mut self) -> Result<(u32, u32), EnvError> {
        if let Some(size) = self.size {
            return Ok(size);
        }
        let said = self.shell("wm size").await?;
        let said = String::from_utf8_lossy(&said.stdout).into_owned();
        let size = said
            .rsplit(' ')
            .next()
            .and_then(|s| s.trim().split_once('x'))
            .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
            .filter(|(w, h): &(u32, u32)| (1..=16_384).contains(w) && (1..=16_384).contains(h))
            .ok_or_else(|| infra(format!("wm size on {}: {:?} is no screen size", self.serial(), brief(&said))))?;
        self.size = Some(size);
        Ok(size)
    }

    fn needs_reset(&self, op: &str) -> Result<(), EnvError> {
        if self.reset_done {
            Ok(())
        } else {
            Err(EnvError::ResetNeeded(op.into()))
        }
    }

    /// The device's control API, or why a task cannot be set up or judged without one.
    fn control_url(&self) -> Result<String, EnvError> {
        match &self.device.config.control {
            Some(url) => Ok(url.trim_end_matches('/').to_string()),
            None => Err(EnvError::BadTask(format!(
                "{} has no judge here: only a guigym device (one with a `control` API) sets tasks up and judges them",
                self.serial()
            ))),
        }
    }

    /// This device's number on its control API.
    async fn control_index(&mut self) -> Result<usize, EnvError> {
        if let Some(i) = self.control_index {
            return Ok(i);
        }
        let url = self.control_url()?;
        let listed = json_of(self.http.get(format!("{url}/v1/devices")).send().await.map_err(infra)?).await?;
        let index = listed["devices"]
            .as_array()
            .and_then(|ds| ds.iter().find(|d| d["serial"] == self.serial()))
            .and_then(|d| d["device"].as_u64())
            .ok_or_else(|| infra(format!("the control API at {url} has no device {}", self.serial())))?;
        self.control_index = Some(index as usize);
        Ok(index as usize)
    }

    async fn control(&mut self, method: reqwest::Method, path: &str, body: Option<Value>) -> Result<Value, EnvError> {
        let url = self.control_url()?;
        let index = self.control_index().await?;
        let mut request = self.http.request(method, format!("{url}/v1/devices/{index}/{path}"));
        if let Some(b) = body {
            request = request.json(&b);
        }
        let response = request.send().await.map_err(infra)?;
        let status = response.status();
        let value = json_of(response).await?;
        if status.is_success() {
            Ok(value)
        } else if status.as_u16() == 422 || status.as_u16() == 404 {
            Err(EnvError::BadTask(brief(value["error"]["message"].as_str().unwrap_or("bad task"))))
        } else {
            Err(infra(format!("control {path}: {status} {}", brief(&value.to_string()))))
        }
    }

    /// A point an action aims at: its own, which must be on the screen, or the centre of its
    /// element on the last screen.
    fn point(&self, at: &Option<Point>, element: &Option<String>) -> Result<Option<Point>, String> {
        match (at, element) {
            (Some(p), _) => self.on_screen(*p).map(Some),
            (None, Some(id)) => {
                let node = self.last.as_ref().and_then(|o| o.node(id)).ok_or_else(|| format!("no element \"{id}\" on screen"))?;
                let (x, y) = node.bounds.center();
                Ok(Some(Point(x.floor(), y.floor())))
            }
            (None, None) => Ok(None),
        }
    }

    fn on_screen(&self, p: Point) -> Result<Point, String> {
        let (w, h) = self.last.as_ref().map_or((f32::MAX, f32::MAX), |o| (o.width as f32, o.height as f32));
        if (0.0..w).contains(&p.0) && (0.0..h).contains(&p.1) {
            Ok(p)
        } else {
            Err(format!("({}, {}) is off screen ({w}×{h})", p.0, p.1))
        }
    }

    /// The shell command an action is, or why it cannot be one.
    fn command(&self, action: &Action) -> Result<String, String> {
        let tap = |p: Point| format!("input tap {} {}", p.0.round(), p.1.round());
        let need = |p: Option<Point>| p.ok_or_else(|| format!("{} needs a target", action.name()));
        Ok(match action {
            Action::Click { at, element } | Action::DoubleClick { at, element } | Action::RightClick { at, element } => {
                let p = need(self.point(at, element)?)?;
                if matches!(action, Action::DoubleClick { .. }) {
                    format!("{} && {}", tap(p), tap(p))
                } else {
                    tap(p)
                }
            }
            Action::LongPress { at, element } => {
                let p = need(self.point(at, element)?)?;
                format!("input swipe {0} {1} {0} {1} 800", p.0.round(), p.1.round())
            }
            Action::Swipe { from, to } | Action::Drag { from, to } if self.on_screen(*from).and(self.on_screen(*to)).is_err() => {
                return Err(format!("{} leaves the screen", action.name()));
            }
            Action::Swipe { from, to } => format!("input swipe {} {} {} {} 300", from.0.round(), from.1.round(), to.0.round(), to.1.round()),
            Action::Drag { from, to } => format!("input draganddrop {} {} {} {} 600", from.0.round(), from.1.round(), to.0.round(), to.1.round()),
            Action::Scroll { at, element, direction, amount } => {
                let (w, h) = self.last.as_ref().map_or((1080.0, 2400.0), |o| (o.width as f32, o.height as f32));
                let p = self.point(at, element)?.unwrap_or(Point(w / 2.0, h / 2.0));
                // Content follows the finger: scrolling down is a swipe up.
                let d = (h / 4.0) * (*amount).clamp(1, 4) as f32 / 2.0;
                let (dx, dy) = match direction {
                    guigym_core::Direction::Down => (0.0, -d),
                    guigym_core::Direction::Up => (0.0, d),
                    guigym_core::Direction::Right => (-d, 0.0),
                    guigym_core::Direction::Left => (d, 0.0),
                };
                format!("input swipe {} {} {} {} 300", p.0.round(), p.1.round(), (p.0 + dx).round(), (p.1 + dy).round())
            }
            Action::Type { text, element, clear } => {
                let mut parts = Vec::new();
                if let Some(p) = self.point(&None, element)? {
                    parts.push(tap(p));
                }
                if *clear {
                    // To the field's end, then one delete per character it held on the last
                    // screen (Android has no key that empties a field).
                    let field = self.last.as_ref().and_then(|o| match element {
                        Some(id) => o.node(id),
                        None => o.ui_tree.iter().find(|n| n.focused && n.editable),
                    });
                    let held = field.map_or(0, |n| n.text.chars().count()).min(2000);
                    if held > 0 {
                        parts.push("input keyevent KEYCODE_MOVE_END".into());
                        parts.push(format!("input keyevent {}", vec!["KEYCODE_DEL"; held].join(" ")));
                    }
                }
                if plain(text) {
                    if !text.is_empty() {
                        parts.push(format!("input text {}", quoted(&text.replace(' ', "%s"))));
                    }
                } else {
                    // `input text` carries the rest badly or not at all; ADB Keyboard takes it
                    // as base64 in a broadcast (`keyboard_up` made it the input method).
                    parts.push(format!("am broadcast -a ADB_INPUT_B64 --es msg {}", BASE64.encode(text.as_bytes())));
                }
                parts.join(" && ")
            }
            Action::Key { keys } => {
                let key = keys.iter().map(|k| k.trim().to_lowercase()).collect::<Vec<_>>().join("+");
                let code = match key.as_str() {
                    "enter" | "return" => "KEYCODE_ENTER",
                    "backspace" => "KEYCODE_DEL",
                    "delete" | "del" => "KEYCODE_FORWARD_DEL",
                    "tab" => "KEYCODE_TAB",
                    "space" => "KEYCODE_SPACE",
                    "escape" | "back" => "KEYCODE_BACK",
                    "home" => "KEYCODE_HOME",
                    "up" => "KEYCODE_DPAD_UP",
                    "down" => "KEYCODE_DPAD_DOWN",
                    "left" => "KEYCODE_DPAD_LEFT",
                    "right" => "KEYCODE_DPAD_RIGHT",
                    other => return Err(format!("key {other:?} has no Android key code here")),
                };
                format!("input keyevent {code}")
            }
            Action::Back => "input keyevent KEYCODE_BACK".into(),
            Action::Home => "input keyevent KEYCODE_HOME".into(),
            Action::OpenApp { name } => format!("monkey -p {} -c android.intent.category.LAUNCHER 1", package_of(name)),
            Action::Wait { ms } => format!("sleep {}", (*ms).min(10_000) as f64 / 1000.0),
            Action::Answer { .. } | Action::AskUser { .. } | Action::Terminate { .. } => return Err("recorded by the task's side, not the device".into()),
        })
    }
}

#[async_trait]
impl Env for AndroidEnv {
    async fn reset(&mut self, task: &TaskSpec) -> Result<Observation, EnvError> {
        self.reset_done = false;
        // A reset step may have put the device's own input method back.
        self.keyboard_on = false;
        let device = self.device.clone();
        if !device.config.reset.is_empty() {
            self.connect().await?;
        }
        for step in &device.config.reset {
            self.reset_step(step).await?;
        }
        self.make_ready().await?;
        if self.device.config.control.is_some() {
            // The whole task, so the device's side sets up exactly what the caller holds.
            self.control(reqwest::Method::POST, "reset", Some(json!({ "spec": task }))).await?;
        } else {
            self.must("input keyevent KEYCODE_HOME").await?;
        }
        self.last = None;
        self.episode = Episode::default();
        self.reset_done = true;
        self.observe(ObserveOptions::default()).await
    }

    async fn observe(&mut self, options: ObserveOptions) -> Result<Observation, EnvError> {
        self.needs_reset("observe")?;
        let serial = self.serial().to_string();
        let dumped = self.shell("uiautomator dump /sdcard/window_dump.xml").await?;
        if !String::from_utf8_lossy(&dumped.stdout).contains("dumped to") {
            return Err(infra(format!("uiautomator dump on {serial}: {}", String::from_utf8_lossy(&dumped.stderr))));
        }
        let xml = self.device.link.pull("/sdcard/window_dump.xml").await.map_err(infra)?;
        if xml.len() > DUMP_MAX {
            return Err(infra(format!("uiautomator dump on {serial}: {} MiB, over {} MiB", xml.len() >> 20, DUMP_MAX >> 20)));
        }
        let ui_tree = uiautomator::parse(&String::from_utf8_lossy(&xml)).map_err(infra)?;
        let focus = self.shell("dumpsys window | grep mCurrentFocus").await?;
        let focus = String::from_utf8_lossy(&focus.stdout).into_owned();
        // `…{hash u0 PACKAGE/ACTIVITY}`: the package, for the app's name.
        let package = focus.split_whitespace().find_map(|w| w.split_once('/').map(|(p, _)| p.to_string())).unwrap_or_default();
        let app = self.apps.iter().find(|a| package_of(a) == package).cloned();
        let (width, height) = self.screen_size().await?;
        let screenshot = if options.screenshot {
            let png = match self.device.config.screencap {
                Screencap::Png => self.device.link.exec("screencap -p").await.map_err(infra)?,
                Screencap::Raw => {
                    png_of_raw(&self.device.link.exec("screencap").await.map_err(infra)?).map_err(|e| infra(format!("screencap on {serial}: {e}")))?
                }
            };
            if !png.starts_with(b"\x89PNG") {
                return Err(infra(format!("screencap on {serial} gave no PNG ({} bytes)", png.len())));
            }
            Some(Screenshot::from_png(width, height, png))
        } else {
            None
        };
        let obs = Observation {
            step: self.episode.steps,
            ui_tree,
            app,
            screen: package,
            width,
            height,
            screenshot,
            feedback: self.episode.feedback.clone(),
            broken: self.episode.broken.clone(),
            ..Observation::default()
        };
        self.last = Some(obs.without_screenshot());
        Ok(obs)
    }

    async fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        self.needs_reset("step")?;
        if let Some(refused) = self.episode.refuse(action) {
            return Ok(refused);
        }
        if self.device.config.control.is_none() {
            // No task side: the episode keeps them, as every backend does.
            if let Some(outcome) = self.episode.record(action, None, || false) {
                return Ok(outcome);
            }
        }
        if let Action::Answer { .. } | Action::AskUser { .. } | Action::Terminate { .. } = action {
            // The task's side records them (it judges, and knows the user's reply).
            let outcome = self.control(reqwest::Method::POST, "step", Some(json!({ "action": action }))).await?;
            let outcome: StepOutcome = serde_json::from_value(outcome).map_err(infra)?;
            if let Action::Terminate { status } = action {
                self.episode.log.terminated = Some(*status);
            }
            return Ok(self.episode.finish(outcome));
        }
        if self.last.is_none() {
            self.observe(ObserveOptions::default()).await?;
        }
        let command = match self.command(action) {
            Ok(c) => c,
            Err(why) => return Ok(self.episode.finish(StepOutcome::invalid(why))),
        };
        if let Action::Type { text, .. } = action {
            if !plain(text) {
                self.keyboard_up().await?;
            }
        }
        let out = self.shell(&command).await?;
        self.last = None;
        let said = brief(String::from_utf8_lossy(&out.stderr).trim());
        let outcome = match (out.exit, action) {
            (0, _) => StepOutcome::ok(if said.is_empty() { format!("{} done", action.name()) } else { said }),
            // An app that is not installed: the agent's choice.
            (_, Action::OpenApp { name }) => StepOutcome::invalid(format!("no app {name:?} to open here: {said}")),
            // `input` refusing what this backend wrote from a valid action: the device's fault.
            (exit, _) => return Err(infra(format!("{} on {}: exit {exit}: {said}", brief(&command), self.serial()))),
        };
        Ok(self.episode.finish(outcome))
    }

    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        self.needs_reset("evaluate")?;
        let judged = self.control(reqwest::Method::GET, "evaluate", None).await?;
        serde_json::from_value(judged["verdict"].clone()).map_err(infra)
    }

    async fn state_hash(&mut self) -> Result<String, EnvError> {
        self.needs_reset("state_hash")?;
        // What the device shows: its tree, in order.
        let obs = self.observe(ObserveOptions::default()).await?;
        Ok(guigym_core::sha256_hex(&serde_json::to_vec(&obs.ui_tree).map_err(infra)?))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn raw(width: u32, height: u32, header: &[u32]) -> Vec<u8> {
        let mut out: Vec<u8> = [width, height].iter().chain(header).flat_map(|w| w.to_le_bytes()).collect();
        out.extend((0..width * height).flat_map(|i| [i as u8, (i >> 8) as u8, 7, 255]));
        out
    }

    #[test]
    fn a_raw_screen_of_either_header_becomes_the_same_png_and_bad_ones_are_errors() {
        let new = png_of_raw(&raw(3, 2, &[1, 0])).unwrap();
        let old = png_of_raw(&raw(3, 2, &[1])).unwrap();
        assert_eq!(new, old, "Android 8's colour space word is skipped");
        let mut reader = png::Decoder::new(new.as_slice()).read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut pixels).unwrap();
        assert_eq!(&pixels[4..8], &[1, 0, 7, 255]);
        assert_eq!((reader.info().width, reader.info().height), (3, 2));

        for bad in [Vec::new(), raw(3, 2, &[2, 0]), raw(3, 2, &[1, 0])[..30].to_vec(), raw(0, 2, &[1, 0]), raw(9000, 0, &[1, 0])] {
            assert!(png_of_raw(&bad).is_err(), "{} bytes", bad.len());
        }
    }

    #[test]
    fn only_printable_ascii_without_percent_s_goes_through_input_text() {
        assert!(plain("Hello, world ~!") && plain("100% sure"));
        assert!(!plain("Zoë") && !plain("日本") && !plain("tab\there"));
        assert!(!plain("a%sb"), "`input text` would type a space for %s");
    }

    fn one_device(serial: &str, reset: Vec<ResetStep>) -> AndroidConfig {
        let mut config = AndroidConfig::from_serials(serial, None, Some("127.0.0.1:9".into()));
        config.devices[0].reset = reset;
        config.devices[0].ready.timeout_s = 1.0;
        config
    }

    #[tokio::test]
    async fn a_control_api_answer_is_read_to_a_bound() {
        use tokio::io::AsyncWriteExt;
        // A server that answers with a body that never ends.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = [0u8; 4096];
            let _ = tokio::io::AsyncReadExt::read(&mut socket, &mut request).await;
            let _ = socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n[").await;
            let chunk = vec![b'1'; 64 << 10];
            while socket.write_all(&chunk).await.is_ok() {}
        });
        let response = reqwest::get(format!("http://{addr}/v1/devices")).await.unwrap();
        match json_of(response).await {
            Err(EnvError::Infra(m)) => assert!(m.contains("MiB"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_device_held_by_one_process_is_capacity_for_another() {
        // Two providers of one device stand for two processes: the lock is the file's, whoever
        // opened it.
        let serial = format!("lock-test-{}", std::process::id());
        let config = one_device(&serial, Vec::new());
        let (first, second) = (AndroidProvider::new(&config, Vec::new()).unwrap(), AndroidProvider::new(&config, Vec::new()).unwrap());
        let held = first.create().await.unwrap();
        match second.create().await {
            Err(EnvError::NoCapacity { message, .. }) => assert!(message.contains("other process"), "{message}"),
            other => panic!("the device was handed out twice: {:?}", other.map(|_| ())),
        }
        assert!(matches!(first.create().await, Err(EnvError::NoCapacity { .. })), "and once per process");
        drop(held);
        assert!(second.create().await.is_ok(), "the lock goes with the instance");
    }

    #[tokio::test]
    async fn a_reset_command_is_judged_by_its_exit_not_by_what_it_leaves_running() {
        let task: TaskSpec = serde_json::from_value(json!({
            "id": "t/0", "family": "t", "instruction": "", "apps": [], "world_seed": 0, "step_budget": 1, "difficulty": 1, "params": {}, "walkthrough": []
        }))
        .unwrap();
        let serial = format!("exit-test-{}", std::process::id());
        // Ended at once, a child left holding its stderr: not a command that ran past its deadline
        // (the device, which does not exist, is what fails then).
        let config = one_device(&serial, vec![ResetStep::Command("sleep 3 & exit 0".into())]);
        let provider = AndroidProvider::new(&config, Vec::new()).unwrap();
        match provider.create().await.unwrap().reset(&task).await {
            Err(EnvError::Infra(m)) => assert!(!m.contains("ran past") && !m.contains("reset command"), "{m}"),
            other => panic!("{:?}", other.map(|_| ())),
        }
        // Failing, with a child holding the pipe: its words are still reported.
        let config = one_device(&serial, vec![ResetStep::Command("sleep 3 & echo no disk left >&2; exit 3".into())]);
        let provider = AndroidProvider::new(&config, Vec::new()).unwrap();
        match provider.create().await.unwrap().reset(&task).await {
            Err(EnvError::Infra(m)) => assert!(m.contains("exit status: 3") && m.contains("no disk left"), "{m}"),
            other => panic!("{:?}", other.map(|_| ())),
        }
    }

    #[tokio::test]
    async fn a_reset_command_cut_off_at_its_deadline_leaves_nothing_running() {
        let dir = std::env::temp_dir().join(format!("guigym-android-group-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pid_file = dir.join("pid");
        let command = format!("sleep 300 & echo $! > {}; wait", pid_file.display());
        // Not HOST:PORT, so no adb server is asked to connect it before the command runs.
        let config = one_device(&format!("group-test-{}", std::process::id()), vec![ResetStep::Command(command)]);
        let provider = AndroidProvider::new(&config, Vec::new()).unwrap();
        let mut env = provider.create().await.unwrap();
        let task: TaskSpec = serde_json::from_value(json!({
            "id": "t/0", "family": "t", "instruction": "", "apps": [], "world_seed": 0, "step_budget": 1, "difficulty": 1, "params": {}, "walkthrough": []
        }))
        .unwrap();
        match env.reset(&task).await {
            Err(EnvError::Infra(m)) => assert!(m.contains("ran past"), "{m}"),
            other => panic!("{:?}", other.map(|_| ())),
        }
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let proc = PathBuf::from(format!("/proc/{}", pid.trim()));
        // SIGKILL is sent at once; the kernel may take a moment to tear the process down.
        let gone = (0..100).any(|_| {
            let alive = std::fs::read_to_string(proc.join("stat")).is_ok_and(|s| !s.contains(") Z "));
            if alive {
                std::thread::sleep(Duration::from_millis(50));
            }
            !alive
        });
        assert!(gone, "the command's background child {} still runs", pid.trim());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
