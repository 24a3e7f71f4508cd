//! The `web` backend: instances are pages in one headless Chromium, one browser context
//! each. Mocked apps are served by the app server and played through real browser input;
//! their state and verifiers are the sim backend's, so the same suites, goldens and verdicts
//! hold. MiniWoB++ tasks run in their own pages, reset in place, rewarded by the page.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use guigym_core::action::Target;
use guigym_core::Screen;
use guigym_core::{
    sha256_hex, Action, Check, Direction, Env, EnvError, EnvProvider, Episode, Observation, ObserveOptions, Point, Screenshot, StepOutcome, TaskSpec, Verdict,
};
use guigym_sim::SimEnv;
use serde_json::Value;

use crate::browser::{Browser, BrowserError, Page};
use guigym_phone::benchmark::PhoneBenchmarks;

use crate::pages::{PageBenchmark, PageBenchmarks};
use crate::server::{AppServer, Hosted};
use crate::uitree::ui_tree;

/// Why an operation on a page did not go through: the infrastructure's failure (or a bad task),
/// or the page's own hang, which ends the episode by the agent's doing.
enum Fail {
    Env(EnvError),
    Hung(String),
}

impl From<EnvError> for Fail {
    fn from(e: EnvError) -> Fail {
        Fail::Env(e)
    }
}

fn infra(e: BrowserError) -> Fail {
    match e {
        BrowserError::PageHung(why) => Fail::Hung(why),
        other => Fail::Env(EnvError::Infra(format!("web backend: {other}"))),
    }
}

/// Launches (and relaunches after a crash) one browser shared by every instance it makes.
pub struct WebProvider {
    pub screen: Screen,
    /// What its instances host: phone benchmarks on the simulated phone behind the page, and
    /// page benchmarks in pages of their own.
    pub phone: PhoneBenchmarks,
    pub pages: PageBenchmarks,
    browser: tokio::sync::Mutex<Option<Arc<Browser>>>,
    server: tokio::sync::OnceCell<Arc<AppServer>>,
    pub cdp_timeout: Duration,
    /// How long a page has to answer a call before it is taken for hung (when the browser
    /// still answers): the episode then ends by the page's, so the agent's, doing.
    pub page_timeout: Duration,
}

impl WebProvider {
    pub fn new(screen: Screen, phone: PhoneBenchmarks, pages: PageBenchmarks) -> WebProvider {
        WebProvider {
            screen,
            phone,
            pages,
            browser: tokio::sync::Mutex::new(None),
            server: tokio::sync::OnceCell::new(),
            cdp_timeout: Duration::from_secs(30),
            page_timeout: Duration::from_secs(20),
        }
    }

    /// The live browser, launched anew when there is none or the last one died.
    pub async fn browser(&self) -> Result<Arc<Browser>, EnvError> {
        let mut slot = self.browser.lock().await;
        if let Some(b) = slot.as_ref().filter(|b| b.is_alive()) {
            return Ok(b.clone());
        }
        if slot.is_some() {
            tracing::warn!("the browser died; launching a new one");
        }
        let b = Arc::new(Browser::launch(self.cdp_timeout).await.map_err(|e| EnvError::Infra(format!("web backend: {e}")))?);
        *slot = Some(b.clone());
        Ok(b)
    }

    pub async fn server(&self) -> Result<Arc<AppServer>, EnvError> {
        self.server.get_or_try_init(|| async { AppServer::start(&self.pages).await.map_err(|e| EnvError::Infra(format!("app server: {e}"))) }).await.cloned()
    }
}

#[async_trait]
impl EnvProvider for WebProvider {
    fn backend(&self) -> String {
        "web".into()
    }

    async fn create(&self) -> Result<Box<dyn Env>, EnvError> {
        Ok(Box::new(self.create_web().await?))
    }
}

impl WebProvider {
    /// A new instance, as its own type (`WebEnv::run_in_page` is for tests).
    pub async fn create_web(&self) -> Result<WebEnv, EnvError> {
        let browser = self.browser().await?;
        let server = self.server().await?;
        Ok(WebEnv {
            browser,
            server,
            screen: self.screen,
            page: None,
            kind: Kind::Apps,
            hosted: None,
            location: String::new(),
            episode: Episode::default(),
            phone: self.phone.clone(),
            page_timeout: self.page_timeout,
            broken: None,
        })
    }
}

/// What an instance's page shows: the simulated phone's apps, or a page benchmark's page.
#[derive(Clone, Copy)]
enum Kind {
    Apps,
    Page(&'static dyn PageBenchmark),
}

impl Kind {
    fn same(&self, other: &Kind) -> bool {
        match (self, other) {
            (Kind::Apps, Kind::Apps) => true,
            (Kind::Page(a), Kind::Page(b)) => a.name() == b.name(),
            _ => false,
        }
    }
}

pub struct WebEnv {
    browser: Arc<Browser>,
    server: Arc<AppServer>,
    screen: Screen,
    page: Option<Page>,
    kind: Kind,
    hosted: Option<(u64, Arc<tokio::sync::Mutex<Hosted>>)>,
    location: String,
    /// A page benchmark's episode (the phone's is its simulated phone's).
    episode: Episode,
    /// The phone benchmarks its simulated phone hosts.
    phone: PhoneBenchmarks,
    page_timeout: Duration,
    /// Why the page stopped responding, once it did: the episode is over.
    broken: Option<String>,
}

impl WebEnv {
    fn page(&self) -> Result<&Page, EnvError> {
        self.page.as_ref().ok_or_else(|| EnvError::ResetNeeded("a page".into()))
    }

    async fn ensure_page(&mut self, kind: Kind) -> Result<(), Fail> {
        if self.page.is_some() && self.kind.same(&kind) {
            return Ok(());
        }
        if let Some(old) = self.page.take() {
            old.close().await;
        }
        let page = match kind {
            Kind::Apps => self.browser.new_page(self.screen.width, self.screen.height, self.screen.scale(), true, self.page_timeout).await,
            Kind::Page(b) => self.browser.new_page(b.viewport().0, b.viewport().1, 1.0, false, self.page_timeout).await,
        }
        .map_err(infra)?;
        self.page = Some(page);
        self.kind = kind;
        self.location.clear();
        Ok(())
    }

    fn hosted(&self) -> Result<Arc<tokio::sync::Mutex<Hosted>>, EnvError> {
        self.hosted.as_ref().map(|h| h.1.clone()).ok_or_else(|| EnvError::ResetNeeded("an app".into()))
    }

    async fn events(&self) -> Result<u64, Fail> {
        Ok(self.page()?.eval("__guigym.events").await.map_err(infra)?.as_u64().unwrap_or(0))
    }

    /// Waits until the page has applied every event in flight; returns the event count and
    /// the last event's (feedback, invalid).
    async fn settle(&self) -> Result<(u64, Option<(String, bool)>), Fail> {
        let v = self.page()?.eval("__guigym.settled().then(() => [__guigym.events, __guigym.last])").await.map_err(infra)?;
        let last = v.get(1).filter(|l| !l.is_null()).map(|l| (l["feedback"].as_str().unwrap_or("").to_string(), l["invalid"].as_bool().unwrap_or(false)));
        Ok((v.get(0).and_then(Value::as_u64).unwrap_or(0), last))
    }

    /// Applies a device-level action on the server (back, home, open_app, answers…) and
    /// refreshes the page.
    async fn on_server(&self, action: &Action) -> Result<StepOutcome, Fail> {
        let hosted = self.hosted()?;
        let outcome = hosted.lock().await.sim.step_sync(action)?;
        self.page()?.eval("__guigym.refresh()").await.map_err(infra)?;
        Ok(outcome)
    }

    /// Where a pointer action lands, in screenshot pixels.
    async fn point(&self, action: &Action) -> Result<Result<Point, String>, Fail> {
        match action.target() {
            Ok(Some(Target::At(p))) => Ok(Ok(p)),
            Ok(Some(Target::Element(id))) => {
                let tree = ui_tree(self.page()?).await.map_err(infra)?;
                Ok(match tree.iter().find(|n| n.id == id && n.bounds.w > 0 && n.bounds.h > 0) {
                    Some(n) => {
                        let (x, y) = n.bounds.center();
                        Ok(Point(x, y))
                    }
                    None => Err(format!("no element \"{id}\" on screen")),
                })
            }
            Ok(None) => Ok(Err(format!("{} needs a target", action.name()))),
            Err(e) => Ok(Err(e.message)),
        }
    }

    fn size(&self) -> (f32, f32) {
        match self.kind {
            Kind::Apps => (self.screen.width as f32, self.screen.height as f32),
            Kind::Page(b) => (b.viewport().0 as f32, b.viewport().1 as f32),
        }
    }

    /// Plays a pointer, text or key action through the browser. `Ok(Err(reason))` is an
    /// invalid action.
    async fn in_browser(&self, action: &Action) -> Result<Result<(), String>, Fail> {
        let page = self.page()?;
        let (w, h) = self.size();
        let inside = |p: Point| p.0.is_finite() && p.1.is_finite() && p.0 >= 0.0 && p.1 >= 0.0 && p.0 < w && p.1 < h;
        match action {
            Action::Click { .. } | Action::DoubleClick { .. } | Action::LongPress { .. } | Action::RightClick { .. } | Action::Scroll { .. } => {
                let p = match self.point(action).await? {
                    Ok(p) if inside(p) => p,
                    Ok(p) => return Ok(Err(format!("({}, {}) is off screen ({w}×{h})", p.0, p.1))),
                    Err(why) => return Ok(Err(why)),
                };
                match action {
                    Action::DoubleClick { .. } => page.tap(p.0, p.1, 2).await,
                    Action::RightClick { .. } => page.right_click(p.0, p.1).await,
                    Action::Scroll { direction, amount, .. } => {
                        let d = 240.0 * *amount as f32;
                        let (dx, dy) = match direction {
                            Direction::Down => (0.0, d),
                            Direction::Up => (0.0, -d),
                            Direction::Right => (d, 0.0),
                            Direction::Left => (-d, 0.0),
                        };
                        page.wheel(p.0, p.1, dx, dy).await
                    }
                    _ => page.tap(p.0, p.1, 1).await,
                }
                .map_err(infra)?;
            }
            Action::Swipe { from, to } | Action::Drag { from, to } => {
                if !inside(*from) || !inside(*to) {
                    return Ok(Err("the gesture leaves the screen".into()));
                }
                let (dx, dy) = (to.0 - from.0, to.1 - from.1);
                if matches!(self.kind, Kind::Apps) && dy.abs() > dx.abs() {
                    // A vertical swipe scrolls what is under the finger; content follows it.
                    page.wheel(from.0, from.1, 0.0, -dy / page.scale).await.map_err(infra)?;
                } else {
                    page.drag((from.0, from.1), (to.0, to.1)).await.map_err(infra)?;
                }
            }
            Action::Type { text, element, clear } => {
                if let Some(e) = element {
                    match self.point(&Action::click_element(e.clone())).await? {
                        Ok(p) => page.tap(p.0, p.1, 1).await.map_err(infra)?,
                        Err(why) => return Ok(Err(why)),
                    }
                    if matches!(self.kind, Kind::Apps) {
                        self.settle().await?;
                    }
                }
                let focused = page
                    // A field under an open dialog (the phone's pages mark it) has lost the keyboard.
                    .eval("(() => { const a = document.activeElement; return !!a && (a.tagName === 'INPUT' || a.tagName === 'TEXTAREA' || a.isContentEditable) && !a.hasAttribute('data-covered'); })()")
                    .await
                    .map_err(infra)?;
                if focused != Value::Bool(true) {
                    return Ok(Err("no text field is focused: tap a field first or give `element`".into()));
                }
                if *clear {
                    page.eval(
                        "(() => { const a = document.activeElement; a.value = ''; a.dispatchEvent(new Event('input', {bubbles: true})); return true; })()",
                    )
                    .await
                    .map_err(infra)?;
                }
                page.insert_text(text).await.map_err(infra)?;
            }
            Action::Key { keys } => {
                if let Err(why) = Action::portable_chord(keys) {
                    return Ok(Err(why.message));
                }
                page.key(keys).await.map_err(infra)?
            }
            _ => return Ok(Err(format!("{} is not a browser gesture", action.name()))),
        }
        Ok(Ok(()))
    }

    /// A step on the phone in the page: the simulated phone keeps the episode's record (its
    /// verifier reads it); gestures the browser plays are reported to it as one step.
    async fn step_apps(&mut self, action: &Action) -> Result<StepOutcome, Fail> {
        let hosted = self.hosted()?;
        if let Some(refused) = hosted.lock().await.sim.episode_mut().refuse(action) {
            return Ok(refused);
        }
        match action {
            Action::Back
            | Action::Home
            | Action::OpenApp { .. }
            | Action::Wait { .. }
            | Action::Answer { .. }
            | Action::AskUser { .. }
            | Action::Terminate { .. }
            | Action::Key { .. } => self.on_server(action).await,
            _ => {
                // The page shows the phone's screen: what the phone refuses there is refused
                // before the browser plays it, in the phone's words (a tap aimed at a container
                // would land on whatever lies under its centre).
                {
                    let mut phone = hosted.lock().await;
                    if let Some(why) = phone.sim.refusal(action) {
                        return Ok(phone.sim.episode_mut().finish(StepOutcome::invalid(why)));
                    }
                }
                let before = self.events().await?;
                let outcome = match self.in_browser(action).await? {
                    Err(why) => StepOutcome::invalid(why),
                    Ok(()) => {
                        // Wait for the page to apply what the gesture caused; no new event means it hit nothing.
                        let (after, last) = self.settle().await?;
                        match last {
                            _ if after == before => StepOutcome::invalid(match action {
                                Action::Scroll { .. } | Action::Swipe { .. } => "nothing scrolled",
                                _ => "nothing to tap there",
                            }),
                            last => {
                                let (feedback, invalid) = last.unwrap_or_default();
                                StepOutcome { feedback, invalid, done: false, broken: None }
                            }
                        }
                    }
                };
                Ok(hosted.lock().await.sim.episode_mut().finish(outcome))
            }
        }
    }

    async fn step_page(&mut self, action: &Action) -> Result<StepOutcome, Fail> {
        if let Some(refused) = self.episode.refuse(action) {
            return Ok(refused);
        }
        if let Some(recorded) = self.episode.record(action, None, || false) {
            return Ok(recorded);
        }
        let outcome = match action {
            Action::Wait { ms } => {
                tokio::time::sleep(Duration::from_millis((*ms).min(5_000))).await;
                StepOutcome::ok("waited")
            }
            Action::Back | Action::Home | Action::OpenApp { .. } => StepOutcome::invalid(format!("{} is not available on a web page", action.name())),
            _ => match self.in_browser(action).await? {
                Err(why) => StepOutcome::invalid(why),
                Ok(()) => StepOutcome::ok("done"),
            },
        };
        // The page may end its episode itself (its `done` global).
        let Kind::Page(benchmark) = self.kind else { return Err(EnvError::ResetNeeded("a page".into()).into()) };
        let reward = self.page()?.eval(&benchmark.reward_script()).await.map_err(infra)?;
        let done = reward.get(1).and_then(Value::as_bool).unwrap_or(false);
        Ok(self.episode.finish(StepOutcome { done: outcome.done || (done && !outcome.invalid), ..outcome }))
    }
}

impl WebEnv {
    async fn reset_page(&mut self, task: &TaskSpec) -> Result<(), Fail> {
        self.episode = Episode::default();
        // A page that stopped responding is closed with its browser context, and a new one made.
        if self.broken.take().is_some() {
            if let Some(old) = self.page.take() {
                old.close().await;
            }
            self.location.clear();
        }
        // The task's benchmark says how it runs: a page benchmark's pages judge themselves,
        // a phone benchmark's tasks run on the simulated phone behind the page.
        if let Some(benchmark) = self.server.pages.find(&task.benchmark) {
            if benchmark.files().is_none() {
                return Err(EnvError::BadTask(benchmark.missing()).into());
            }
            let page_path = benchmark.page(task).map_err(EnvError::BadTask)?;
            self.ensure_page(Kind::Page(benchmark)).await?;
            let url = self.server.page_url(benchmark.name(), &page_path);
            if self.location != url {
                self.page()?.navigate(&url).await.map_err(infra)?;
                self.location = url;
            }
            let ready = self.page()?.eval(&benchmark.reset_script(task)).await.map_err(infra)?;
            if ready == Value::Bool(false) {
                // Some tasks load data first; give them a moment.
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        } else {
            self.ensure_page(Kind::Apps).await?;
            if self.hosted.is_none() {
                self.hosted = Some(self.server.host(SimEnv::new(self.screen, self.phone.clone())));
            }
            let (id, hosted) = self.hosted.clone().ok_or_else(|| EnvError::Infra("no hosted app".into()))?;
            hosted.lock().await.sim.reset_sync(task)?;
            let url = format!("{}/app/{id}", self.server.url);
            if self.location != url {
                self.page()?.navigate(&url).await.map_err(infra)?;
                self.location = url;
            } else {
                self.page()?.eval("__guigym.refresh()").await.map_err(infra)?;
            }
        }
        Ok(())
    }

    async fn observe_page(&mut self, options: ObserveOptions) -> Result<Observation, Fail> {
        let page = self.page()?;
        let (w, h) = self.size();
        // The tree (the renderer's work) and the screenshot (the compositor's) at once.
        let shot = async {
            match options.screenshot {
                true => page.screenshot().await.map(|png| Some(Screenshot::from_png(w as u32, h as u32, png))),
                false => Ok(None),
            }
        };
        let (tree, screenshot) = tokio::join!(ui_tree(page), shot);
        let (tree, screenshot) = (tree.map_err(infra)?, screenshot.map_err(infra)?);
        let mut obs = match self.kind {
            Kind::Apps => {
                let hosted = self.hosted()?;
                let guard = hosted.lock().await;
                guard.sim.observe_sync(ObserveOptions::default())?
            }
            Kind::Page(_) => Observation {
                app: Some("browser".into()),
                screen: self.location.rsplit('/').next().unwrap_or("").to_string(),
                step: self.episode.steps,
                feedback: self.episode.feedback.clone(),
                ..Observation::default()
            },
        };
        obs.ui_tree = tree;
        obs.screenshot = screenshot;
        obs.width = w as u32;
        obs.height = h as u32;
        Ok(obs)
    }

    /// The episode is over: the page stopped responding, by what it was made to do.
    fn broken_observation(&self, why: &str) -> Observation {
        let (w, h) = self.size();
        Observation {
            screen: "the page stopped responding".into(),
            feedback: Some(why.to_string()),
            width: w as u32,
            height: h as u32,
            broken: Some(why.to_string()),
            ..Observation::default()
        }
    }

    /// Ends the episode: the page stopped responding.
    fn hung(&mut self, why: String) -> String {
        let why = format!("the page stopped responding: {why}");
        self.broken = Some(why.clone());
        why
    }

    async fn evaluate_page(&mut self) -> Result<Verdict, Fail> {
        match self.kind {
            Kind::Apps => Ok(self.hosted()?.lock().await.sim.evaluate_sync()?),
            Kind::Page(benchmark) => {
                let v = self.page()?.eval(&benchmark.reward_script()).await.map_err(infra)?;
                let raw = v.get(0).and_then(Value::as_f64).unwrap_or(0.0);
                let reason = v.get(2).and_then(Value::as_str).unwrap_or("").to_string();
                // Success is a positive raw reward, as BrowserGym counts it.
                let mut verdict = Verdict::from_checks(vec![Check::new("reward", raw > 0.0, format!("raw reward {raw} {reason}"))], vec![]);
                verdict.progress = raw.clamp(0.0, 1.0) as f32;
                Ok(verdict)
            }
        }
    }

    async fn state_hash_page(&mut self) -> Result<String, Fail> {
        match self.kind {
            Kind::Apps => Ok(self.hosted()?.lock().await.sim.hash()?),
            Kind::Page(benchmark) => {
                let v = self.page()?.eval(&benchmark.state_script()).await.map_err(infra)?;
                Ok(sha256_hex(v.to_string().as_bytes()))
            }
        }
    }

    async fn golden_page(&mut self) -> Result<(), Fail> {
        match self.kind {
            Kind::Apps => {
                self.hosted()?.lock().await.sim.apply_golden_sync()?;
                self.page()?.eval("__guigym.refresh()").await.map_err(infra)?;
                Ok(())
            }
            Kind::Page(benchmark) => Err(EnvError::BadTask(format!("{} tasks have no golden", benchmark.name())).into()),
        }
    }

    /// A script run in the page, as one of the page's own would run (tests use it to make a
    /// page that never answers again); returns at once.
    pub async fn run_in_page(&self, script: &str) -> Result<(), EnvError> {
        let params = serde_json::json!({ "expression": format!("setTimeout(() => {{ {script} }}, 0)") });
        self.page()?.call("Runtime.evaluate", params).await.map_err(|e| EnvError::Infra(e.to_string()))?;
        Ok(())
    }
}

/// A failure as the `Env` answers it; a hung page is never one (the caller ends the episode).
fn env_error(f: Fail) -> EnvError {
    match f {
        Fail::Env(e) => e,
        Fail::Hung(why) => EnvError::Infra(format!("the page stopped responding: {why}")),
    }
}

#[async_trait]
impl Env for WebEnv {
    /// A page call waits up to the page's timeout, then the browser has `BROWSER_PROBE` to
    /// show it still answers; a step may also hold a `wait` (5 s at most).
    fn stall_bound(&self) -> Duration {
        self.page_timeout + crate::browser::BROWSER_PROBE + Duration::from_secs(10)
    }

    async fn reset(&mut self, task: &TaskSpec) -> Result<Observation, EnvError> {
        // A page that hangs during a reset is no agent's doing.
        self.reset_page(task).await.map_err(env_error)?;
        self.observe(ObserveOptions::default()).await
    }

    async fn observe(&mut self, options: ObserveOptions) -> Result<Observation, EnvError> {
        if let Some(why) = &self.broken {
            return Ok(self.broken_observation(why));
        }
        match self.observe_page(options).await {
            Ok(obs) => Ok(obs),
            Err(Fail::Env(e)) => Err(e),
            Err(Fail::Hung(why)) => {
                let why = self.hung(why);
                Ok(self.broken_observation(&why))
            }
        }
    }

    async fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        if let Some(why) = &self.broken {
            return Ok(StepOutcome::broken(why.clone()));
        }
        let outcome = match self.kind {
            Kind::Apps => self.step_apps(action).await,
            Kind::Page(_) => self.step_page(action).await,
        };
        match outcome {
            Ok(o) => Ok(o),
            Err(Fail::Env(e)) => Err(e),
            Err(Fail::Hung(why)) => {
                let why = self.hung(why);
                Ok(match self.kind {
                    Kind::Apps => self.hosted()?.lock().await.sim.episode_mut().broke(why),
                    Kind::Page(_) => self.episode.broke(why),
                })
            }
        }
    }

    async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
        // A page that stopped responding has no reward to read; the phone's state lives on the
        // server and is judged as it is.
        if let (Some(why), Kind::Page(_)) = (&self.broken, self.kind) {
            return Ok(Verdict::from_checks(vec![Check::new("reward", false, why.clone())], vec![]));
        }
        match self.evaluate_page().await {
            Ok(v) => Ok(v),
            Err(Fail::Env(e)) => Err(e),
            Err(Fail::Hung(why)) => {
                let why = self.hung(why);
                Ok(Verdict::from_checks(vec![Check::new("reward", false, why)], vec![]))
            }
        }
    }

    async fn state_hash(&mut self) -> Result<String, EnvError> {
        if let (Some(why), Kind::Page(_)) = (&self.broken, self.kind) {
            return Ok(sha256_hex(why.as_bytes()));
        }
        self.state_hash_page().await.map_err(env_error)
    }

    async fn apply_golden(&mut self) -> Result<(), EnvError> {
        self.golden_page().await.map_err(env_error)
    }

    async fn release(&mut self) -> Result<(), EnvError> {
        if let Some(page) = self.page.take() {
            page.close().await;
        }
        if let Some((id, _)) = self.hosted.take() {
            self.server.unhost(id);
        }
        Ok(())
    }
}
