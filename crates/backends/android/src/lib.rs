//! The `android` backend: Android devices (phones, emulators, ReDroid containers, or guigym's
//! own `guigym adb-device`) driven through an adb server. An observation is a screenshot
//! (`screencap -p`) and the window dump (`uiautomator dump`) read into guigym's tree; an
//! action is `input tap/swipe/text/keyevent`, `monkey -p` for an app, back and home as key
//! events. Every adb failure (a device gone, a server that does not answer) is an
//! infrastructure failure, never the agent's.
//!
//! Where a task's initial state and verdict come from is the device's `Tasks`: a guigym device
//! (`guigym adb-device`) is reset to a task and judged by its control API, to which the actions
//! ADB cannot carry (answers, questions, termination) go as well.

pub mod uiautomator;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use guigym_adb::host::AdbServer;
use guigym_adb::package_of;
use guigym_core::{Action, Env, EnvError, EnvProvider, Episode, Observation, ObserveOptions, Point, Screenshot, StepOutcome, TaskSpec, Verdict};
use serde_json::{json, Value};

/// Where a device's tasks are set up and judged.
#[derive(Debug, Clone)]
pub enum Tasks {
    /// A guigym device: its control API (`http://HOST:PORT`, as `guigym adb-device` prints
    /// it) resets it to a task and judges it. The control lists its devices by serial; this
    /// one is found there by its own.
    Control { url: String },
}

/// One device this backend may drive.
#[derive(Debug, Clone)]
pub struct AndroidDevice {
    /// As the adb server names it (`emulator-5554`, `127.0.0.1:5555`).
    pub serial: String,
    /// `adb connect` it first (a device reached over TCP).
    pub connect: bool,
    pub tasks: Tasks,
}

fn infra(e: impl std::fmt::Display) -> EnvError {
    EnvError::Infra(e.to_string())
}

/// Hands out the listed devices, each to one instance at a time, in turn: a device that failed
/// goes to the back of the queue, so the others are tried before it again.
pub struct AndroidProvider {
    server: AdbServer,
    free: Arc<Mutex<VecDeque<AndroidDevice>>>,
    apps: Arc<Vec<String>>,
    http: reqwest::Client,
}

impl AndroidProvider {
    /// `apps`: the apps agents open by name (`open_app`), each installed as `package_of(name)`.
    pub fn new(server: AdbServer, devices: Vec<AndroidDevice>, apps: Vec<String>) -> AndroidProvider {
        let http = reqwest::Client::builder().timeout(server.timeout).build().unwrap_or_default();
        AndroidProvider { server, free: Arc::new(Mutex::new(devices.into())), apps: Arc::new(apps), http }
    }
}

#[async_trait]
impl EnvProvider for AndroidProvider {
    fn backend(&self) -> String {
        "android".into()
    }

    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        let device = self.free.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
        let Some(device) = device else {
            return Err(EnvError::NoCapacity { message: "every listed Android device is in use".into(), retry_after_ms: Some(1000) });
        };
        let env = AndroidEnv {
            server: self.server.clone(),
            device,
            apps: self.apps.clone(),
            http: self.http.clone(),
            free: self.free.clone(),
            last: None,
            ready: false,
            reset_done: false,
            control_index: None,
            size: None,
            episode: Episode::default(),
        };
        Ok(Box::new(env))
    }
}

/// One device, driven.
pub struct AndroidEnv {
    server: AdbServer,
    device: AndroidDevice,
    apps: Arc<Vec<String>>,
    http: reqwest::Client,
    /// Where the device goes back when this instance ends.
    free: Arc<Mutex<VecDeque<AndroidDevice>>>,
    /// The last observation: element targets are resolved against it.
    last: Option<Observation>,
    ready: bool,
    /// A task was set up: before that, nothing but a reset is meaningful.
    reset_done: bool,
    control_index: Option<usize>,
    /// The screen's size, once asked.
    size: Option<(u32, u32)>,
    /// Steps, feedback and how the episode ended, kept here as every backend keeps them.
    episode: Episode,
}

impl Drop for AndroidEnv {
    fn drop(&mut self) {
        self.free.lock().unwrap_or_else(|p| p.into_inner()).push_back(self.device.clone());
    }
}

/// Text as one word of a device shell's command line.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

impl AndroidEnv {
    async fn shell(&self, command: &str) -> Result<guigym_adb::ShellOutput, EnvError> {
        self.server.shell(&self.device.serial, command).await.map_err(infra)
    }

    /// Connected (when reached over TCP), booted, and its package manager up.
    async fn make_ready(&mut self) -> Result<(), EnvError> {
        if self.ready {
            return Ok(());
        }
        if self.device.connect {
            self.server.connect(&self.device.serial).await.map_err(infra)?;
        }
        let booted = self.shell("getprop sys.boot_completed").await?;
        if String::from_utf8_lossy(&booted.stdout).trim() != "1" {
            return Err(infra(format!("{} has not finished booting", self.device.serial)));
        }
        let packages = self.shell("pm list packages").await?;
        if packages.exit != 0 || packages.stdout.is_empty() {
            return Err(infra(format!("{}: the package manager is not up", self.device.serial)));
        }
        self.ready = true;
        Ok(())
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
            .ok_or_else(|| infra(format!("wm size on {}: {said:?}", self.device.serial)))?;
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

    /// This device's number on its control API.
    async fn control_index(&mut self) -> Result<usize, EnvError> {
        if let Some(i) = self.control_index {
            return Ok(i);
        }
        let Tasks::Control { url } = &self.device.tasks;
        let listed: Value = self.http.get(format!("{}/v1/devices", url.trim_end_matches('/'))).send().await.map_err(infra)?.json().await.map_err(infra)?;
        let index = listed["devices"]
            .as_array()
            .and_then(|ds| ds.iter().find(|d| d["serial"] == self.device.serial.as_str()))
            .and_then(|d| d["device"].as_u64())
            .ok_or_else(|| infra(format!("the control API at {url} has no device {}", self.device.serial)))?;
        self.control_index = Some(index as usize);
        Ok(index as usize)
    }

    async fn control(&mut self, method: reqwest::Method, path: &str, body: Option<Value>) -> Result<Value, EnvError> {
        let index = self.control_index().await?;
        let Tasks::Control { url } = &self.device.tasks;
        let mut request = self.http.request(method, format!("{}/v1/devices/{index}/{path}", url.trim_end_matches('/')));
        if let Some(b) = body {
            request = request.json(&b);
        }
        let response = request.send().await.map_err(infra)?;
        let status = response.status();
        let value: Value = response.json().await.map_err(infra)?;
        if status.is_success() {
            Ok(value)
        } else if status.as_u16() == 422 || status.as_u16() == 404 {
            Err(EnvError::BadTask(value["error"]["message"].as_str().unwrap_or("bad task").to_string()))
        } else {
            Err(infra(format!("control {path}: {status} {value}")))
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
                if !text.is_empty() {
                    parts.push(format!("input text {}", quoted(&text.replace(' ', "%s"))));
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
        self.make_ready().await?;
        // The whole task, so the device's side sets up exactly what the caller holds.
        self.control(reqwest::Method::POST, "reset", Some(json!({ "spec": task }))).await?;
        self.last = None;
        self.episode = Episode::default();
        self.reset_done = true;
        self.observe(ObserveOptions::default()).await
    }

    async fn observe(&mut self, options: ObserveOptions) -> Result<Observation, EnvError> {
        self.needs_reset("observe")?;
        let serial = self.device.serial.clone();
        let dumped = self.shell("uiautomator dump /sdcard/window_dump.xml").await?;
        if !String::from_utf8_lossy(&dumped.stdout).contains("dumped to") {
            return Err(infra(format!("uiautomator dump on {serial}: {}", String::from_utf8_lossy(&dumped.stderr))));
        }
        let xml = self.server.pull(&serial, "/sdcard/window_dump.xml").await.map_err(infra)?;
        let ui_tree = uiautomator::parse(&String::from_utf8_lossy(&xml)).map_err(infra)?;
        let focus = self.shell("dumpsys window | grep mCurrentFocus").await?;
        let focus = String::from_utf8_lossy(&focus.stdout).into_owned();
        // `…{hash u0 PACKAGE/ACTIVITY}`: the package, for the app's name.
        let package = focus.split_whitespace().find_map(|w| w.split_once('/').map(|(p, _)| p.to_string())).unwrap_or_default();
        let app = self.apps.iter().find(|a| package_of(a) == package).cloned();
        let (width, height) = self.screen_size().await?;
        let screenshot = if options.screenshot {
            let png = self.server.exec(&serial, "screencap -p").await.map_err(infra)?;
            if !png.starts_with(b"\x89PNG") {
                return Err(infra(format!("screencap on {serial} gave no PNG ({} bytes)", png.len())));
            }
            Some(Screenshot { width, height, png })
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
        let out = self.shell(&command).await?;
        self.last = None;
        let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
        let outcome =
            if out.exit != 0 { StepOutcome::invalid(said) } else { StepOutcome::ok(if said.is_empty() { format!("{} done", action.name()) } else { said }) };
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
