//! `DesktopEnv`: one desktop instance behind the `Env` interface. Every blocking call (X
//! protocol, processes, files) runs on tokio's blocking threads.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use guigym_core::action::Target;
use guigym_core::{
    Action, Bounds, Direction, Env, EnvError, EnvProvider, Episode, Observation, ObserveOptions, Point, Screenshot, StepOutcome, TaskSpec, UiNode, Verdict,
};

use crate::a11y;
use crate::benchmark::{DesktopBenchmark, DesktopBenchmarks};
use crate::instance::{Failure, Instance};
use crate::session::OfficeToolkit;
use crate::x11::WindowInfo;

/// The screen an instance gets unless asked otherwise (OSWorld's).
pub const DEFAULT_SIZE: (u32, u32) = (1920, 1080);

fn env_error(f: Failure) -> EnvError {
    match f {
        Failure::Infra(m) => EnvError::Infra(format!("desktop backend: {m}")),
        Failure::BadTask(m) => EnvError::BadTask(m),
    }
}

/// Makes desktop instances from the process's home template, hosting the desktop benchmarks
/// given.
pub struct DesktopProvider {
    pub width: u32,
    pub height: u32,
    pub benchmarks: DesktopBenchmarks,
    /// LibreOffice's toolkit (`GUIGYM_OFFICE_TOOLKIT`), or why the one asked for cannot be had.
    office: Result<OfficeToolkit, String>,
    /// Whether each instance keeps a spare (`GUIGYM_DESKTOP_SPARE=1`; see `Spare`).
    spare: bool,
}

impl DesktopProvider {
    pub fn new(width: u32, height: u32, benchmarks: DesktopBenchmarks) -> DesktopProvider {
        let spare = std::env::var("GUIGYM_DESKTOP_SPARE").is_ok_and(|v| v == "1");
        DesktopProvider { width, height, benchmarks, office: OfficeToolkit::from_env(), spare }
    }

    /// The same provider with LibreOffice drawing with `office`.
    pub fn with_office_toolkit(self, office: OfficeToolkit) -> DesktopProvider {
        DesktopProvider { office: Ok(office), ..self }
    }

    /// The same provider, its instances keeping a spare desktop or not (see `Spare`).
    pub fn with_spare(self, spare: bool) -> DesktopProvider {
        DesktopProvider { spare, ..self }
    }
}

#[async_trait]
impl EnvProvider for DesktopProvider {
    fn backend(&self) -> String {
        "desktop".into()
    }

    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        Ok(Box::new(self.start().await?))
    }
}

impl DesktopProvider {
    /// A new instance, as its concrete type (benchmarks read its memory).
    pub async fn start(&self) -> Result<DesktopEnv, EnvError> {
        let template = crate::home::template().map_err(EnvError::Infra)?;
        let office = self.office.clone().map_err(EnvError::Infra)?;
        let (w, h) = (self.width, self.height);
        let recipe = Recipe { width: w, height: h, template, office };
        let first = recipe.clone();
        let instance = tokio::task::spawn_blocking(move || first.start())
            .await
            .map_err(|e| EnvError::Infra(e.to_string()))?
            .map_err(|e| EnvError::Infra(format!("desktop backend: {e}")))?;
        let bus_address = instance.session.bus_address.clone();
        // Two instances of one env share nothing only in namespaces of their own (without
        // them, a spare's Chrome set-up would reach the episode's browser on port 9222).
        let keeps_spare = self.spare && instance.session.namespaced();
        Ok(DesktopEnv {
            instance: Arc::new(Mutex::new(instance)),
            recipe,
            keeps_spare,
            spare: None,
            benchmarks: self.benchmarks.clone(),
            task: None,
            episode: Episode::default(),
            width: w,
            height: h,
            reader: TreeReader::new(bus_address),
            tree: Vec::new(),
        })
    }
}

/// What a new instance is made of.
#[derive(Clone)]
struct Recipe {
    width: u32,
    height: u32,
    template: std::path::PathBuf,
    office: OfficeToolkit,
}

impl Recipe {
    fn start(&self) -> Result<Instance, String> {
        Instance::start(self.width, self.height, self.template.clone(), self.office)
    }
}

/// A second instance made ready in the background for the next reset: reset, set up for the
/// task the last reset asked for, its accessibility tree settled. A reset to that same task (a
/// GRPO group's rollouts, an evaluation's repeats, a retry) takes it as it is and ends the old
/// instance beside, so that the wait is for the swap and not for an application to start; a
/// reset to another task discards it and resets as usual. It costs an instance's memory and
/// its start's CPU while the episode runs. Its set-up ran before the episode starts: what
/// runs by itself (a video playing) has run that long.
struct Spare {
    task: Arc<TaskSpec>,
    ready: tokio::sync::oneshot::Receiver<Result<Prepared, Failure>>,
    /// What came through `ready`, once waited for.
    made: Option<Result<Prepared, Failure>>,
    /// Tells its maker to stop between stages (nobody will take it).
    cancel: Arc<std::sync::atomic::AtomicBool>,
}

/// A spare instance, made ready: its tree reader, the tree as it settled, and when.
struct Prepared {
    instance: Instance,
    reader: TreeReader,
    settled: Vec<a11y::Node>,
    at: Instant,
}

/// How long a spare may wait for its episode: past it, what its set-up made relative to the
/// time (a browsing history "in the last hour", a video playing) has drifted, and a reset
/// starts anew.
const SPARE_MAX_AGE: Duration = Duration::from_secs(300);

impl Spare {
    fn prepare(recipe: Recipe, task: Arc<TaskSpec>, benchmark: &'static dyn DesktopBenchmark) -> Spare {
        let (tell, ready) = tokio::sync::oneshot::channel();
        let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (spec, stop) = (task.clone(), cancel.clone());
        tokio::spawn(async move {
            let cancelled = || Failure::Infra("the spare was not wanted".into());
            let stopped = stop.clone();
            let made = tokio::task::spawn_blocking(move || {
                let wanted = || !stopped.load(std::sync::atomic::Ordering::Relaxed);
                let mut instance = recipe.start().map_err(Failure::Infra)?;
                wanted().then_some(()).ok_or_else(cancelled)?;
                instance.reset()?;
                wanted().then_some(()).ok_or_else(cancelled)?;
                benchmark.set_up(&spec, &mut instance)?;
                Ok(instance)
            })
            .await
            .map_err(|e| Failure::Infra(e.to_string()))
            .and_then(|made| made);
            let prepared = match made {
                Ok(instance) if !stop.load(std::sync::atomic::Ordering::Relaxed) => {
                    let mut reader = TreeReader::new(instance.session.bus_address.clone());
                    let settled = reader.read_still().await;
                    Ok(Prepared { instance, reader, settled, at: Instant::now() })
                }
                Ok(instance) => {
                    tokio::task::spawn_blocking(move || drop(instance));
                    return;
                }
                Err(e) => Err(e),
            };
            // Nobody wants it any more (another task came, or the env is gone): it ends on a
            // blocking thread, as ending its processes waits.
            if let Err(Ok(prepared)) = tell.send(prepared) {
                tokio::task::spawn_blocking(move || drop(prepared.instance));
            }
        });
        Spare { task, ready, made: None, cancel }
    }

    /// Waits until it is made (or could not be).
    async fn wait(&mut self) {
        if self.made.is_none() {
            let made = (&mut self.ready).await.unwrap_or_else(|_| Err(Failure::Infra("the spare's maker ended".into())));
            self.made = Some(made);
        }
    }

    /// The prepared instance, if it is for `task`, came up and is fresh enough (else it ends,
    /// as it is dropped).
    async fn take_for(mut self, task: &TaskSpec) -> Option<Prepared> {
        if *self.task != *task {
            return None;
        }
        self.wait().await;
        match self.made.take()? {
            Ok(prepared) if prepared.at.elapsed() <= SPARE_MAX_AGE => Some(prepared),
            Ok(stale) => {
                self.made = Some(Ok(stale));
                None
            }
            Err(_) => None,
        }
    }
}

/// A spare that is dropped ends: now if it is made, else once it is (its maker, told to stop,
/// finds nobody to take it). Ending its processes waits, so it happens on a blocking thread.
impl Drop for Spare {
    fn drop(&mut self) {
        self.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        self.ready.close();
        if self.made.is_none() {
            self.made = self.ready.try_recv().ok();
        }
        if let Some(Ok(prepared)) = self.made.take() {
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => drop(runtime.spawn_blocking(move || drop(prepared.instance))),
                Err(_) => drop(prepared),
            }
        }
    }
}

/// Reads an instance's accessibility tree through its session bus (a reset starts a new one):
/// connected on the first read, and again after an error.
struct TreeReader {
    bus_address: String,
    client: Option<a11y::Client>,
}

impl TreeReader {
    fn new(bus_address: String) -> TreeReader {
        TreeReader { bus_address, client: None }
    }

    /// The accessibility tree of what is on the screen; empty when the bus cannot be read
    /// (the window map still describes the screen then).
    async fn read(&mut self) -> Vec<a11y::Node> {
        // Bounded as a whole too: a bus or an application that stops answering costs one
        // observation its tree, never the step.
        let limits = a11y::Limits::default();
        let deadline = limits.budget + limits.call_timeout * 2;
        if self.client.is_none() && !self.bus_address.is_empty() {
            self.client = tokio::time::timeout(deadline, a11y::Client::connect(&self.bus_address)).await.ok().and_then(Result::ok);
        }
        let Some(client) = &self.client else { return Vec::new() };
        match tokio::time::timeout(deadline, client.tree(&limits)).await {
            Ok(Ok(tree)) => tree,
            _ => {
                self.client = None;
                Vec::new()
            }
        }
    }

    /// Waits until two reads of the accessibility tree a moment apart agree (a few seconds at
    /// most), and gives the last read: the tree can trail a screen that is already still
    /// (LibreOffice fills the check boxes of its sidebar from status that arrives after it has
    /// drawn them), and an episode must start from the same state each time. Every application
    /// waits: without it, keys sent to GIMP's menus right after a reset were lost (stop 48).
    async fn read_still(&mut self) -> Vec<a11y::Node> {
        let deadline = Instant::now() + TREE_WAIT;
        let mut last = self.read().await;
        while Instant::now() < deadline {
            tokio::time::sleep(TREE_QUIET).await;
            let now = self.read().await;
            if now == last {
                break;
            }
            last = now;
        }
        last
    }
}

/// Input for the instance, played on a blocking thread: its feedback, or why it was refused.
type Input = Box<dyn FnOnce(&mut Instance) -> Result<String, String> + Send>;

pub struct DesktopEnv {
    instance: Arc<Mutex<Instance>>,
    /// How a spare is made, whether one is kept, and the one being made (see `Spare`).
    recipe: Recipe,
    keeps_spare: bool,
    spare: Option<Spare>,
    benchmarks: DesktopBenchmarks,
    /// The task the instance was reset to, and its benchmark.
    task: Option<(Arc<TaskSpec>, &'static dyn DesktopBenchmark)>,
    /// The episode's record: OSWorld judges infeasible tasks by how it ended, and on an
    /// infeasible task an answer that reports it done is a false claim, as on every platform.
    episode: Episode,
    width: u32,
    height: u32,
    /// The instance's accessibility tree.
    reader: TreeReader,
    /// The last observation's UI tree: element ids in actions are looked up in it.
    tree: Vec<UiNode>,
}

/// How long a reset waits at most for the accessibility tree to stop changing, and the moment
/// between two reads that must agree.
const TREE_WAIT: Duration = Duration::from_secs(3);
const TREE_QUIET: Duration = Duration::from_millis(250);

/// Applications `open_app` starts, by the names an agent may use.
const APPS: &[(&[&str], &[&str])] = &[
    (&["text editor", "mousepad", "editor"], &["mousepad"]),
    (&["terminal", "xterm"], &["xterm"]),
    (&["files", "file manager", "pcmanfm"], &["pcmanfm"]),
    (&["calc", "libreoffice calc", "spreadsheet"], &["soffice", "--calc", "--norestore", "--nologo"]),
    (&["writer", "libreoffice writer"], &["soffice", "--writer", "--norestore", "--nologo"]),
    (&["impress", "libreoffice impress"], &["soffice", "--impress", "--norestore", "--nologo"]),
    (&["vlc", "media player", "vlc media player"], &["vlc"]),
    (&["gimp", "image editor", "gnu image manipulation program"], &["gimp"]),
    (&["thunderbird", "mail", "email", "mozilla thunderbird"], &["thunderbird"]),
    (&["document viewer", "evince", "pdf viewer", "pdf"], &["evince"]),
    (&["image viewer", "eog", "eye of gnome"], &["eog"]),
    (&["videos", "totem", "ubuntu media player"], &["totem"]),
    (&["picard", "musicbrainz picard", "tagger"], &["picard"]),
];

impl DesktopEnv {
    /// The instance's memory (PSS of all its processes), in bytes.
    pub async fn memory_pss(&self) -> Result<u64, EnvError> {
        self.blocking(|i| i.session.memory_pss()).await
    }

    /// The screen's pixels straight from the X server (no PNG): what a screenshot costs
    /// before encoding.
    pub async fn capture_rgb(&self) -> Result<Vec<u8>, EnvError> {
        self.blocking(|i| i.display.capture_rgb()).await?.map_err(|e| EnvError::Infra(e.to_string()))
    }

    /// A screenshot alone (X capture and PNG), as `observe` takes it.
    pub async fn screenshot_png(&self) -> Result<Vec<u8>, EnvError> {
        self.blocking(|i| i.display.screenshot_png()).await?.map_err(|e| EnvError::Infra(e.to_string()))
    }

    /// The processes of the instance (its display, window manager, bus and applications).
    pub async fn pids(&self) -> Result<Vec<u32>, EnvError> {
        self.blocking(|i| i.session.pids()).await
    }

    async fn blocking<T: Send + 'static>(&self, f: impl FnOnce(&mut Instance) -> T + Send + 'static) -> Result<T, EnvError> {
        let instance = self.instance.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = instance.lock().unwrap_or_else(|p| p.into_inner());
            f(&mut guard)
        })
        .await
        .map_err(|e| EnvError::Infra(format!("desktop backend: {e}")))
    }

    /// Plays one action on the desktop (the episode's own actions are recorded before).
    async fn apply(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        let ok = |feedback: &str| Ok(StepOutcome::ok(feedback));
        let invalid = |why: String| Ok(StepOutcome::invalid(why));
        let (windows, ended) = self.blocking(|i| i.check_health().map(|_| (i.windows(), i.ended_by_agent()))).await?.map_err(env_error)?;
        if let Some(why) = ended {
            return Ok(StepOutcome::broken(why));
        }

        let (width, height) = (self.width as f32, self.height as f32);
        let off_screen = |p: &Point| p.0 < 0.0 || p.1 < 0.0 || p.0 >= width || p.1 >= height;
        let pointer = |env: &DesktopEnv| -> Result<(i32, i32), String> {
            match action.target() {
                Ok(Some(Target::At(p))) if off_screen(&p) => Err(format!("({}, {}) is off the {}×{} screen", p.0, p.1, env.width, env.height)),
                Ok(Some(Target::At(p))) => env.point_of(&windows, Some(p), None),
                Ok(Some(Target::Element(id))) => env.point_of(&windows, None, Some(id)),
                Ok(None) => Err("the action needs a point or an element".into()),
                Err(e) => Err(e.to_string()),
            }
        };
        let input: Input = match action {
            Action::Click { .. } | Action::DoubleClick { .. } | Action::RightClick { .. } => {
                let (x, y) = match pointer(self) {
                    Ok(p) => p,
                    Err(e) => return invalid(e),
                };
                let (button, times) = match action {
                    Action::DoubleClick { .. } => (1, 2),
                    Action::RightClick { .. } => (3, 1),
                    _ => (1, 1),
                };
                Box::new(move |i| i.display.click(x, y, button, times).map(|_| format!("clicked at ({x}, {y})")).map_err(|e| e.to_string()))
            }
            Action::LongPress { .. } => {
                let (x, y) = match pointer(self) {
                    Ok(p) => p,
                    Err(e) => return invalid(e),
                };
                Box::new(move |i| {
                    i.display.move_to(x, y).and_then(|_| i.display.button(1, true)).map_err(|e| e.to_string())?;
                    std::thread::sleep(Duration::from_millis(600));
                    i.display.button(1, false).map(|_| format!("pressed at ({x}, {y})")).map_err(|e| e.to_string())
                })
            }
            Action::Drag { from, to } | Action::Swipe { from, to } => {
                if off_screen(from) || off_screen(to) {
                    return invalid(format!("the {} leaves the {}×{} screen", action.name(), self.width, self.height));
                }
                let (a, b) = ((from.0 as i32, from.1 as i32), (to.0 as i32, to.1 as i32));
                Box::new(move |i| i.display.drag(a, b).map(|_| "dragged".to_string()).map_err(|e| e.to_string()))
            }
            Action::Scroll { direction, amount, at, element } => {
                let (x, y) = match (at, element) {
                    // No point: scroll at the screen's centre.
                    (None, None) => ((self.width / 2) as i32, (self.height / 2) as i32),
                    _ => match pointer(self) {
                        Ok(p) => p,
                        Err(e) => return invalid(e),
                    },
                };
                let (button, times) = (scroll_button(*direction), (*amount).clamp(1, 50));
                Box::new(move |i| i.display.click(x, y, button, times).map(|_| format!("scrolled {times}")).map_err(|e| e.to_string()))
            }
            Action::Type { text, element, clear } => {
                let at = match element {
                    Some(id) => match self.point_of(&windows, None, Some(id)) {
                        Ok(p) => Some(p),
                        Err(e) => return invalid(e),
                    },
                    None => None,
                };
                let (text, clear) = (text.clone(), *clear);
                Box::new(move |i| {
                    if let Some((x, y)) = at {
                        i.display.click(x, y, 1, 1).map_err(|e| e.to_string())?;
                    }
                    if clear {
                        i.display.chord(&["ctrl".into(), "a".into()])?;
                        i.display.chord(&["backspace".into()])?;
                    }
                    i.display.type_text(&text).map_err(|e| e.to_string())?;
                    Ok(format!("typed {} characters", text.chars().count()))
                })
            }
            Action::Key { keys } => {
                if keys.is_empty() {
                    return invalid("a key action needs at least one key".into());
                }
                if keys.iter().any(|k| crate::keys::keysym(k).is_none()) {
                    let unknown: Vec<&String> = keys.iter().filter(|k| crate::keys::keysym(k).is_none()).collect();
                    return invalid(format!("unknown key(s) {unknown:?}"));
                }
                let keys = keys.clone();
                Box::new(move |i| i.display.chord(&keys).map(|_| format!("pressed {}", keys.join("+"))))
            }
            Action::Back | Action::Home => return invalid(format!("{} is a phone's button; a desktop has none (use a key or a click)", action.name())),
            Action::OpenApp { name } => {
                let wanted = name.trim().to_lowercase();
                let Some((_, argv)) = APPS.iter().find(|(names, _)| names.contains(&wanted.as_str())) else {
                    let known: Vec<&str> = APPS.iter().map(|(n, _)| n[0]).collect();
                    return invalid(format!("no application \"{name}\"; applications: {}", known.join(", ")));
                };
                let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
                Box::new(move |i| match i.launch(&argv, false) {
                    Ok(()) => Ok(format!("opened {}", argv[0])),
                    Err(Failure::Infra(m)) | Err(Failure::BadTask(m)) => Err(m),
                })
            }
            Action::Wait { ms } => {
                let ms = (*ms).min(10_000);
                Box::new(move |_| {
                    std::thread::sleep(Duration::from_millis(ms));
                    Ok(format!("waited {ms} ms"))
                })
            }
            Action::Answer { .. } | Action::AskUser { .. } | Action::Terminate { .. } => return invalid("recorded by the episode".into()),
        };
        let input = move |i: &mut Instance| {
            let done = input(i);
            i.last_input = std::time::Instant::now();
            (done, i.ended_by_agent())
        };
        match self.blocking(input).await? {
            (_, Some(why)) => Ok(StepOutcome::broken(why)),
            (Ok(feedback), None) => {
                // Give the application a moment to draw what the input did.
                tokio::time::sleep(Duration::from_millis(30)).await;
                ok(&feedback)
            }
            (Err(why), None) => invalid(why),
        }
    }

    /// The task's benchmark's verdict on the desktop as the agent left it.
    async fn judge(&mut self) -> Result<Verdict, EnvError> {
        let (task, benchmark) = self.task("evaluate")?.clone();
        let log = self.episode.log.clone();
        self.blocking(move |i| benchmark.evaluate(&task, i, &log)).await?.map_err(env_error)
    }

    fn task(&self, what: &str) -> Result<&(Arc<TaskSpec>, &'static dyn DesktopBenchmark), EnvError> {
        self.task.as_ref().ok_or_else(|| EnvError::ResetNeeded(what.into()))
    }

    fn point_of(&self, windows: &[WindowInfo], at: Option<Point>, element: Option<&str>) -> Result<(i32, i32), String> {
        match (at, element) {
            (Some(p), _) => Ok((p.0.round() as i32, p.1.round() as i32)),
            // A window where it is now; anything inside one where the last observation saw it.
            (None, Some(id)) => nodes(windows, self.width, self.height, &[])
                .into_iter()
                .chain(self.tree.iter().cloned())
                .find(|n| n.id == id)
                .map(|n| n.bounds.center())
                .map(|(x, y)| (x as i32, y as i32))
                .ok_or_else(|| format!("no element \"{id}\" on the screen")),
            (None, None) => Err("the action needs a point or an element".into()),
        }
    }

    /// An observation; `tree` is the accessibility tree when it was just read (by a reset that
    /// waited for it to settle).
    async fn look(&mut self, options: ObserveOptions, tree: Option<Vec<a11y::Node>>) -> Result<Observation, EnvError> {
        self.task("observe")?;
        let (width, height, step) = (self.width, self.height, self.episode.steps);
        let (windows, png, ended) = self
            .blocking(move |i| {
                i.check_health()?;
                let windows = i.windows();
                let png = if options.screenshot { Some(i.display.screenshot_png()) } else { None };
                Ok((windows, png, i.ended_by_agent()))
            })
            .await?
            .map_err(env_error)?;
        if let Some(why) = ended {
            if self.episode.broken.is_none() {
                self.episode.broke(why.clone());
            }
            let screen = "the episode ended".to_string();
            let feedback = Some(why.clone());
            return Ok(Observation { step, screen, feedback, width, height, broken: Some(why), ..Observation::default() });
        }
        let screenshot = match png {
            Some(Ok(png)) => Some(Screenshot::from_png(width, height, png)),
            Some(Err(e)) => return Err(EnvError::Infra(format!("desktop backend: {e}"))),
            None => None,
        };
        let accessible = match tree {
            Some(tree) => tree,
            None => self.reader.read().await,
        };
        let ui_tree = nodes(&windows, width, height, &accessible);
        self.tree = ui_tree.clone();
        let active = windows.iter().find(|w| w.active);
        Ok(Observation {
            step,
            screenshot,
            app: active.map(|w| w.class.clone()),
            screen: active.map(|w| w.title.clone()).unwrap_or_else(|| "desktop".into()),
            ui_tree,
            feedback: self.episode.feedback.clone(),
            width,
            height,
            time: String::new(),
            broken: None,
        })
    }
}

/// The UI tree: the desktop, each window with its title, and inside a window what its
/// application's accessibility tree shows (ids `<window>.<n>`, in reading order).
fn nodes(windows: &[WindowInfo], width: u32, height: u32, accessible: &[a11y::Node]) -> Vec<UiNode> {
    let mut out =
        vec![UiNode { id: "desktop".into(), role: "desktop".into(), bounds: Bounds { x: 0, y: 0, w: width as i32, h: height as i32 }, ..UiNode::default() }];
    let mut seen: Vec<String> = Vec::new();
    for w in windows {
        let base = if w.instance.is_empty() { "window".to_string() } else { w.instance.to_lowercase() };
        let n = seen.iter().filter(|s| **s == base).count();
        seen.push(base.clone());
        let id = if n == 0 { base } else { format!("{base}-{}", n + 1) };
        out.push(UiNode {
            id,
            parent: Some(0),
            role: "window".into(),
            text: w.title.clone(),
            bounds: Bounds { x: w.x, y: w.y, w: w.width as i32, h: w.height as i32 },
            clickable: true,
            focused: w.active,
            ..UiNode::default()
        });
    }
    // Where each accessible node went in `out`, and for each node of `out` its window.
    let mut placed: Vec<Option<usize>> = vec![None; accessible.len()];
    let mut window_of: Vec<usize> = (0..out.len()).collect();
    let mut counts = vec![0usize; out.len()];
    for (k, node) in accessible.iter().enumerate() {
        let parent = match node.parent {
            // An application's top-level window is the X window it draws: its children go
            // under that window's node.
            None => {
                placed[k] = window_for(windows, node).map(|w| w + 1);
                continue;
            }
            Some(p) => match placed.get(p).copied().flatten() {
                Some(parent) => parent,
                None => continue,
            },
        };
        let window = window_of[parent];
        counts[window] += 1;
        let (x, y, w, h) = node.bounds;
        out.push(UiNode {
            id: format!("{}.{}", out[window].id, counts[window]),
            parent: Some(parent),
            role: node.role.clone(),
            text: if node.text.is_empty() { node.name.clone() } else { node.text.clone() },
            hint: if node.text.is_empty() { String::new() } else { node.name.clone() },
            bounds: Bounds { x, y, w, h },
            clickable: node.clickable(),
            editable: node.editable(),
            focused: node.focused(),
            checked: node.checked(),
            selected: node.selected(),
            scrollable: node.scrollable(),
            enabled: node.enabled(),
        });
        window_of.push(window);
        counts.push(0);
        placed[k] = Some(out.len() - 1);
    }
    out
}

/// The X window an accessible top-level window is: the one with its title, else the one it
/// overlaps most.
fn window_for(windows: &[WindowInfo], node: &a11y::Node) -> Option<usize> {
    let (x, y, w, h) = node.bounds;
    let overlap = |win: &WindowInfo| {
        let dx = (x + w).min(win.x + win.width as i32) - x.max(win.x);
        let dy = (y + h).min(win.y + win.height as i32) - y.max(win.y);
        dx.max(0) as i64 * dy.max(0) as i64
    };
    windows
        .iter()
        .position(|win| !node.name.is_empty() && win.title == node.name && overlap(win) > 0)
        .or_else(|| windows.iter().enumerate().filter(|(_, win)| overlap(win) > 0).max_by_key(|(_, win)| overlap(win)).map(|(i, _)| i))
}

fn scroll_button(d: Direction) -> u8 {
    match d {
        Direction::Up => 4,
        Direction::Down => 5,
        Direction::Left => 6,
        Direction::Right => 7,
    }
}

impl DesktopEnv {
    /// The folder of the instance the episode runs in (a spare's, once a reset took one).
    pub async fn instance_dir(&self) -> Result<std::path::PathBuf, EnvError> {
        self.blocking(|i| i.session.dir.clone()).await
    }

    /// Waits until the spare the last reset started is made (or could not be): what an
    /// episode's length gives it, for benchmarks.
    pub async fn wait_spare(&mut self) {
        if let Some(spare) = &mut self.spare {
            spare.wait().await;
        }
    }
}

#[async_trait]
impl Env for DesktopEnv {
    /// A display held by the agent's program shows as X calls that wait out `ANSWER_TIMEOUT`;
    /// an operation may also hold a `wait` (10 s at most) and an accessibility walk (3 s).
    fn stall_bound(&self) -> Duration {
        crate::x11::ANSWER_TIMEOUT + Duration::from_secs(15)
    }

    async fn reset(&mut self, spec: &TaskSpec) -> Result<Observation, EnvError> {
        let benchmark = self.benchmarks.find(&spec.benchmark).ok_or_else(|| {
            EnvError::BadTask(format!("the desktop hosts no benchmark \"{}\" (it hosts {})", spec.benchmark, self.benchmarks.names().join(", ")))
        })?;
        let task = Arc::new(spec.clone());
        self.task = None;
        let prepared = match self.spare.take() {
            Some(spare) => spare.take_for(spec).await,
            None => None,
        };
        let mut tree = None;
        if let Some(Prepared { instance, reader, settled, .. }) = prepared {
            // The swap, and a look at what waited since it was made: what crashed meanwhile
            // (or was ended by the memory watch) is reset in place instead.
            let (old, healthy) = self
                .blocking(move |i| {
                    let old = std::mem::replace(i, instance);
                    let healthy = i.check_health().and_then(|()| i.begin()).is_ok();
                    (old, healthy)
                })
                .await?;
            tokio::task::spawn_blocking(move || drop(old));
            if healthy {
                self.reader = reader;
                // The tree settled in the background; one read shows it is still so, else
                // it is waited for as after a reset in place.
                let now = self.reader.read().await;
                tree = Some(if !now.is_empty() && now == settled { now } else { self.reader.read_still().await });
            }
        }
        // No spare taken (none, or one that did not come up healthy): a reset in place.
        if tree.is_none() {
            // A clean desktop, the task's set-up, then the episode starts. The reset starts a
            // new session bus: the accessibility bus is found through it.
            let t = task.clone();
            let bus_address = self
                .blocking(move |i| {
                    i.reset()?;
                    benchmark.set_up(&t, i)?;
                    i.begin().map(|()| i.session.bus_address.clone())
                })
                .await?
                .map_err(env_error)?;
            self.reader = TreeReader::new(bus_address);
            // The settled tree is the first observation's: one read fewer.
            tree = Some(self.reader.read_still().await);
        }
        self.task = Some((task.clone(), benchmark));
        self.episode = Episode::default();
        if self.keeps_spare {
            self.spare = Some(Spare::prepare(self.recipe.clone(), task, benchmark));
        }
        self.look(ObserveOptions { screenshot: false }, tree).await
    }

    async fn observe(&mut self, options: ObserveOptions) -> Result<Observation, EnvError> {
        self.look(options, None).await
    }

    async fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        self.task("step")?;
        // An ended episode, or an action out of bounds (20,000 characters to type, a chord of
        // 50 keys): refused before anything reaches the screen, as every backend does.
        if let Some(refused) = self.episode.refuse(action) {
            return Ok(refused);
        }
        if let Some(recorded) = self.episode.record(action, None, || false) {
            return Ok(recorded);
        }
        let outcome = self.apply(action).await?;
        Ok(self.episode.finish(outcome))
    }

    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        self.judge().await
    }

    async fn state_hash(&mut self) -> Result<String, EnvError> {
        self.task("state_hash")?;
        // The state once the applications have finished what the last input started (a
        // command typed into a terminal runs after the keys are in): under load, a hash taken
        // at once can differ from one taken a moment later with nothing done in between.
        let (hash, titles) = self
            .blocking(|i| {
                i.settle();
                (i.files_hash(), i.windows().iter().map(|w| w.title.clone()).collect::<Vec<_>>())
            })
            .await?;
        Ok(guigym_core::sha256_hex(format!("{hash}\n{}", titles.join("\n")).as_bytes()))
    }

    async fn apply_golden(&mut self) -> Result<(), EnvError> {
        let (task, benchmark) = self.task("apply_golden")?.clone();
        let declared = self.blocking(move |i| benchmark.golden(&task, i)).await?.map_err(env_error)?;
        if let Some(status) = declared {
            self.episode.log.terminated = Some(status);
        }
        Ok(())
    }

    async fn release(&mut self) -> Result<(), EnvError> {
        self.task = None;
        // Back in a pool, the env may wait long for its next task: its spare ends now.
        self.spare = None;
        self.blocking(|i| i.session.end_apps()).await?;
        Ok(())
    }
}
