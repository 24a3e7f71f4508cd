//! The web backend in real headless Chromium (installed by scripts/setup.sh): smoke tasks
//! played through their walkthroughs in the browser, MiniWoB++ tasks solved by a scripted
//! player, and a browser killed mid-eval.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use guigym_benchmark_miniwob as miniwob;
use guigym_benchmark_phone as tasks;
use guigym_core::Screen;
use guigym_core::{Action, Env, EnvProvider, ObserveOptions, UiNode};
use guigym_harness::{GoldenPolicy, Harness, PolicyKind};
use guigym_rollout::{eval, run_attempt, validate_task, EvalConfig, NullRecorder};
use guigym_web::WebProvider;

fn provider() -> WebProvider {
    assert!(guigym_web::find_chromium().is_some(), "chromium is missing: run ./scripts/setup.sh");
    WebProvider::new(Screen::PHONE, guigym_benchmark_phone::hosted(), guigym_benchmark_miniwob::hosted())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Chromium"]
async fn a_smoke_task_played_through_its_walkthrough_in_the_browser_scores_1() {
    let p = provider();
    let mut env = p.create().await.unwrap();
    for id in ["messages.send/0", "calendar.delete/1", "cross.mail_time_to_message/2"] {
        let task = tasks::find_task(id).unwrap();
        let mut golden = GoldenPolicy::new(task.walkthrough.clone());
        let attempt = run_attempt(env.as_mut(), &task, &mut golden, &Harness::default(), 0, id, &mut NullRecorder).await.unwrap();
        let invalid: Vec<_> = attempt.trajectory.steps.iter().filter(|s| s.invalid).map(|s| s.feedback.clone()).collect();
        assert!(attempt.verdict.success, "{id}: {:?} invalid steps {invalid:?}", attempt.verdict);
    }
    // The browser's screenshot is a real phone-sized PNG.
    let obs = env.observe(ObserveOptions { screenshot: true }).await.unwrap();
    let shot = obs.screenshot.unwrap();
    assert_eq!((shot.width, shot.height), (1080, 2400));
    assert_eq!(&shot.png()[1..4], b"PNG");
    env.release().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Chromium"]
async fn the_smoke_suite_validates_in_the_browser() {
    let p = provider();
    let mut env = p.create().await.unwrap();
    for task in tasks::suite("smoke").unwrap() {
        let v = validate_task(env.as_mut(), &task).await.unwrap();
        assert!(v.passed, "{}: {:?}", task.id, v.failure);
    }
}

/// Clicks the first node whose text is `text`.
async fn click_text(env: &mut dyn Env, tree: &[UiNode], text: &str) {
    let node = tree.iter().find(|n| n.text == text && n.bounds.w > 0).unwrap_or_else(|| panic!("no {text:?} in {tree:#?}"));
    let (x, y) = node.bounds.center();
    let out = env.step(&Action::click_at(x, y)).await.unwrap();
    assert!(!out.invalid, "{}", out.feedback);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Chromium"]
async fn a_scripted_player_solves_click_test_and_click_button() {
    assert!(miniwob::html_dir().is_some(), "MiniWoB++ is missing: run ./scripts/setup.sh");
    let p = provider();
    let mut env = p.create().await.unwrap();
    for seed in 0..3 {
        // click-test: one button, "Click Me!".
        let obs = env.reset(&miniwob::task("click-test", seed)).await.unwrap();
        click_text(env.as_mut(), &obs.ui_tree, "Click Me!").await;
        let v = env.evaluate().await.unwrap();
        assert!(v.success, "click-test seed {seed}: {v:?}");
        // click-button: the instruction names the button.
        let obs = env.reset(&miniwob::task("click-button", seed)).await.unwrap();
        let query = obs.ui_tree.iter().find(|n| n.text.starts_with("Click on the")).map(|n| n.text.clone()).unwrap();
        let label = query.split('"').nth(1).unwrap().to_string();
        click_text(env.as_mut(), &obs.ui_tree, &label).await;
        let v = env.evaluate().await.unwrap();
        assert!(v.success, "click-button seed {seed} ({query}): {v:?}");
    }
    // The same seed gives the same problem: reset is exact.
    env.reset(&miniwob::task("click-button", 7)).await.unwrap();
    let a = env.state_hash().await.unwrap();
    env.reset(&miniwob::task("click-button", 7)).await.unwrap();
    assert_eq!(a, env.state_hash().await.unwrap());
}

/// Says when the first attempt of an eval is done.
struct FirstDone(std::sync::Mutex<Option<tokio::sync::oneshot::Sender<()>>>);

impl guigym_rollout::Progress for FirstDone {
    fn attempt_done(&self, _attempt: &guigym_core::Attempt, _prompts: &[guigym_harness::Prompt]) {
        if let Some(tx) = self.0.lock().unwrap().take() {
            let _ = tx.send(());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Chromium"]
async fn killing_the_browser_mid_eval_gives_rerun_infrastructure_failures() {
    let p = Arc::new(provider());
    let tasks = Arc::new(tasks::suite("smoke").unwrap()[..12].to_vec());
    let config = EvalConfig { suite: "smoke".into(), attempts: 1, parallel: 2, ..EvalConfig::default() };
    // The browser dies as soon as the first attempt is done: the others are in flight.
    let (first_done, started) = tokio::sync::oneshot::channel();
    let killer = {
        let p = p.clone();
        tokio::spawn(async move {
            let _ = started.await;
            let pid = p.browser().await.unwrap().pid().unwrap();
            std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
        })
    };
    let progress = Arc::new(FirstDone(std::sync::Mutex::new(Some(first_done))));
    let (_, report) = eval(tasks.clone(), &config, p.clone(), Arc::new(PolicyKind::Golden), None, progress).await.unwrap();
    killer.await.unwrap();
    assert!(report.infra_failures > 0, "the killed browser's attempts failed as infrastructure");
    assert_eq!(report.unscored, 0);
    assert_eq!(report.attempts, tasks.len());
    assert_eq!(report.success_rate, 1.0, "and were re-run in a new browser");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Chromium"]
async fn a_page_that_fails_to_load_is_an_infrastructure_failure_with_its_reason() {
    let p = provider();
    let mut env = p.create().await.unwrap();
    let mut task = miniwob::task("click-test", 0);
    task.params["page"] = serde_json::json!("miniwob/no-such-task.html");
    let err = env.reset(&task).await.unwrap_err();
    assert!(err.is_infra(), "{err}");
    assert!(err.to_string().contains("core is not defined"), "{err}");
    // The instance still serves a good task afterwards.
    let obs = env.reset(&miniwob::task("click-test", 0)).await.unwrap();
    assert!(obs.ui_tree.iter().any(|n| n.text == "Click Me!"));
}

/// Under an open dialog the browser's tree offers what the native one offers: the dialog's
/// buttons, and nothing it covers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Chromium"]
async fn what_a_dialog_covers_is_not_offered_in_the_browser() {
    let p = provider();
    let mut env = p.create().await.unwrap();
    let task = tasks::find_task("contacts.delete/0").unwrap();
    env.reset(&task).await.unwrap();
    // Open the contact and ask to delete it: the confirmation dialog opens.
    let upto = task.walkthrough.iter().position(|a| *a == Action::click_element("confirm_delete")).unwrap();
    let mut golden = GoldenPolicy::new(task.walkthrough[..upto].to_vec());
    for _ in 0..upto * 4 {
        let obs = env.observe(ObserveOptions::default()).await.unwrap();
        if obs.ui_tree.iter().any(|n| n.id == "confirm_delete") {
            break;
        }
        let a = golden.decide(&obs);
        env.step(&a).await.unwrap();
    }
    let tree = env.observe(ObserveOptions::default()).await.unwrap().ui_tree;
    let node = |id: &str| tree.iter().find(|n| n.id == id).unwrap_or_else(|| panic!("no {id} in {tree:#?}"));
    assert!(node("confirm_delete").clickable, "the dialog's own button is offered");
    for covered in ["edit", "delete"] {
        let n = node(covered);
        assert!(!n.clickable && !n.enabled, "{covered} lies under the dialog yet is offered: {n:?}");
    }
    env.release().await.unwrap();
}

/// A web instance whose page, at the agent's first step, starts a script that never returns
/// (as a page of its own could, made to by what the agent did).
struct LoopsOnFirstStep {
    env: guigym_web::WebEnv,
    armed: bool,
}

#[async_trait::async_trait]
impl Env for LoopsOnFirstStep {
    fn stall_bound(&self) -> std::time::Duration {
        self.env.stall_bound()
    }
    async fn reset(&mut self, task: &guigym_core::TaskSpec) -> Result<guigym_core::Observation, guigym_core::EnvError> {
        self.env.reset(task).await
    }
    async fn observe(&mut self, o: ObserveOptions) -> Result<guigym_core::Observation, guigym_core::EnvError> {
        self.env.observe(o).await
    }
    async fn step(&mut self, a: &Action) -> Result<guigym_core::StepOutcome, guigym_core::EnvError> {
        if std::mem::take(&mut self.armed) {
            self.env.run_in_page("for (;;) {}").await?;
        }
        self.env.step(a).await
    }
    async fn evaluate(&mut self) -> Result<guigym_core::Verdict, guigym_core::EnvError> {
        self.env.evaluate().await
    }
    async fn state_hash(&mut self) -> Result<String, guigym_core::EnvError> {
        self.env.state_hash().await
    }
}

/// A page whose script loops forever ends the attempt judged (it fails, the reason recorded),
/// on a MiniWoB++ page and on the phone in Chromium; it is no infrastructure failure, and the
/// next reset gives a page that works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Chromium"]
async fn a_page_script_that_never_returns_ends_the_attempt_judged() {
    let mut p = provider();
    p.page_timeout = std::time::Duration::from_secs(2);
    let mut env = LoopsOnFirstStep { env: p.create_web().await.unwrap(), armed: true };
    let phone = tasks::find_task("messages.send/0").unwrap();
    let click_test = miniwob::task("click-test", 0);
    for task in [&phone, &click_test] {
        env.armed = true;
        let mut policy = GoldenPolicy::new(if task.walkthrough.is_empty() { vec![Action::click_at(80.0, 100.0)] } else { task.walkthrough.clone() });
        let attempt = run_attempt(&mut env, task, &mut policy, &Harness::default(), 0, "t-loop", &mut NullRecorder).await.expect("judged, not infrastructure");
        assert_eq!(attempt.ended_by.as_deref(), Some(guigym_rollout::attempt::BROKEN), "{}", task.id);
        assert!(!attempt.verdict.success, "{}: {:?}", task.id, attempt.verdict);
        let check = attempt.verdict.checks.iter().find(|c| c.name == guigym_rollout::attempt::INTACT).unwrap();
        assert!(check.detail.contains("stopped responding"), "{check:?}");
        assert_eq!(attempt.trajectory.steps.len(), 1, "{}: the episode ended at the step that hung the page", task.id);
    }
    // The next reset makes a page that answers: the walkthrough solves the task.
    env.armed = false;
    let mut golden = GoldenPolicy::new(phone.walkthrough.clone());
    let attempt = run_attempt(&mut env, &phone, &mut golden, &Harness::default(), 0, "t-after", &mut NullRecorder).await.unwrap();
    assert!(attempt.verdict.success, "{:?}", attempt.verdict);
}

/// Each world's phone has its theme (light, dark, accents): the page draws the theme of the
/// world it shows, also after a reset to another world in the same page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Chromium"]
async fn the_page_wears_the_theme_of_the_world_it_shows() {
    let p = provider();
    let mut env = p.create().await.unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for task in tasks::suite("smoke").unwrap() {
        let mut sim = guigym_sim::SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        sim.reset_sync(&task).unwrap();
        let theme = guigym_phone::shell::theme(sim.state().unwrap());
        if !seen.insert(theme.primary) {
            continue;
        }
        env.reset(&task).await.unwrap();
        env.step(&Action::OpenApp { name: "Contacts".into() }).await.unwrap();
        let obs = env.observe(ObserveOptions { screenshot: true }).await.unwrap();
        let bar = obs.ui_tree.iter().find(|n| n.role == "appbar").unwrap_or_else(|| panic!("{}: no app bar", task.id)).bounds;
        let shot = obs.screenshot.unwrap();
        let (w, _, rgba) = shot.to_rgba().unwrap();
        // A corner of the bar, away from its title.
        let (x, y) = ((bar.x + bar.w - 8) as usize, (bar.y + bar.h - 8) as usize);
        let i = (y * w as usize + x) * 4;
        assert_eq!(&rgba[i..i + 3], &theme.primary, "{}: the app bar's colour", task.id);
    }
    assert!(seen.len() >= 3, "the smoke suite shows several themes: {seen:?}");
    env.release().await.unwrap();
}

/// What differs between two UI trees of one screen: nodes, ids, parents, roles, text, hints
/// and states must be equal, boxes within a pixel (the page lays out in fractional dp).
fn tree_differences(native: &[UiNode], browser: &[UiNode]) -> Vec<String> {
    let mut out = Vec::new();
    if native.len() != browser.len() {
        out.push(format!("{} nodes natively, {} in the browser", native.len(), browser.len()));
    }
    for (n, b) in native.iter().zip(browser) {
        let flags = |u: &UiNode| (u.clickable, u.editable, u.focused, u.checked, u.selected, u.scrollable, u.enabled);
        let (nb, bb) = (n.bounds, b.bounds);
        let off = [(nb.x, bb.x), (nb.y, bb.y), (nb.w, bb.w), (nb.h, bb.h)].iter().map(|(p, q)| (p - q).abs()).max().unwrap_or(0);
        if (&n.id, n.parent, &n.role, &n.text, &n.hint, flags(n)) != (&b.id, b.parent, &b.role, &b.text, &b.hint, flags(b)) || off > 1 {
            out.push(format!("native {n:?}\n browser {b:?}"));
        }
    }
    out
}

/// The page is the native screen for an agent that reads the UI tree: along every smoke
/// task's walkthrough, the browser's tree (its accessibility names and states, its layout's
/// boxes) has the native tree's nodes, ids, parents, text and states, boxes within a pixel.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Chromium"]
async fn the_browser_shows_an_agent_the_native_ui_tree_on_every_walkthrough_screen() {
    let p = provider();
    let mut web = p.create().await.unwrap();
    let mut sim = guigym_sim::SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
    let (mut screens, mut multiline) = (0, false);
    for task in tasks::suite("smoke").unwrap() {
        web.reset(&task).await.unwrap();
        sim.reset(&task).await.unwrap();
        let (steps, _) = task.walkthrough_body();
        for (i, action) in std::iter::once(None).chain(steps.iter().map(Some)).enumerate() {
            if let Some(action) = action {
                let (a, b) = (sim.step(action).await.unwrap(), web.step(action).await.unwrap());
                assert_eq!((a.invalid, &a.feedback), (b.invalid, &b.feedback), "{} step {i}: {action:?}", task.id);
            }
            let native = sim.observe(ObserveOptions { screenshot: false }).await.unwrap().ui_tree;
            let browser = web.observe(ObserveOptions { screenshot: false }).await.unwrap().ui_tree;
            let differences = tree_differences(&native, &browser);
            assert!(differences.is_empty(), "{} after step {i}:\n{}", task.id, differences.join("\n"));
            multiline |= native.iter().any(|n| n.editable && n.text.contains('\n'));
            screens += 1;
        }
    }
    // Off the walkthroughs: each field of the Contacts screen given its own placeholder as its
    // value (the label still reads as the hint on both), refused actions, typing with nothing
    // focused.
    let task = tasks::suite("smoke").unwrap().into_iter().next().unwrap();
    let open = Action::OpenApp { name: "Contacts".into() };
    sim.reset(&task).await.unwrap();
    sim.step(&open).await.unwrap();
    let contacts = sim.observe(ObserveOptions::default()).await.unwrap().ui_tree;
    let mut steps = vec![open];
    steps.extend(contacts.iter().filter(|n| n.editable).map(|f| Action::Type { text: f.hint.clone(), element: Some(f.id.clone()), clear: true }));
    // Refused actions, worded alike: a tap and a scroll on the status bar, an unknown element, a
    // container.
    steps.push(Action::click_at(540.0, 20.0));
    steps.push(Action::Scroll { at: Some(guigym_core::Point(540.0, 20.0)), element: None, direction: guigym_core::Direction::Down, amount: 1 });
    steps.push(Action::click_element("no-such-element"));
    // A container is no button in the browser either (its centre lies over something that is).
    let container = contacts.iter().rfind(|n| n.role == "container" && n.bounds.w > 0).unwrap();
    steps.push(Action::click_element(container.id.clone()));
    steps.push(Action::Back);
    steps.push(Action::Type { text: "x".into(), element: None, clear: false });
    web.reset(&task).await.unwrap();
    sim.reset(&task).await.unwrap();
    for (i, action) in steps.iter().enumerate() {
        let (a, b) = (sim.step(action).await.unwrap(), web.step(action).await.unwrap());
        assert_eq!((a.invalid, &a.feedback), (b.invalid, &b.feedback), "off the walkthrough, step {i}: {action:?}");
        let native = sim.observe(ObserveOptions { screenshot: false }).await.unwrap().ui_tree;
        let browser = web.observe(ObserveOptions { screenshot: false }).await.unwrap().ui_tree;
        let differences = tree_differences(&native, &browser);
        assert!(differences.is_empty(), "off the walkthrough, after step {i}:\n{}", differences.join("\n"));
    }
    assert!(steps.len() > 3, "the Contacts screen has a field");
    assert!(screens > 500, "{screens} screens compared");
    // A field's line breaks reach the browser's tree too (a text area, not an input).
    assert!(multiline, "no smoke screen showed a field of several lines");
    web.release().await.unwrap();
}
