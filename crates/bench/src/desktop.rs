//! `guigym bench desktop`: the desktop backend's reset per application, step, observe with
//! and without a screenshot, memory per instance, and how many LibreOffice instances run at
//! once on this machine.

use std::time::Instant;

use anyhow::{anyhow, Context};
use guigym_benchmark_osworld::task::{ConfigStep, Evaluator, OneOrMany, OsWorldTask};
use guigym_core::{Action, Env, ObserveOptions, Point, TaskSpec};
use guigym_desktop::DesktopProvider;
use serde::Serialize;
use serde_json::json;

use crate::percentile;

pub struct Settings {
    pub resets: usize,
    pub iterations: usize,
    pub instances: usize,
    /// The applications whose resets are timed (all where empty).
    pub apps: Vec<String>,
}

#[derive(Serialize)]
pub struct ResetFigures {
    pub application: String,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// The same reset where the instance kept a spare made ready during the episode (see
    /// `GUIGYM_DESKTOP_SPARE`): the swap, the old instance ended beside.
    pub spare_p50_ms: f64,
    pub spare_p99_ms: f64,
}

#[derive(Serialize)]
pub struct DesktopFigures {
    pub width: u32,
    pub height: u32,
    pub instance_start_ms: f64,
    pub resets: Vec<ResetFigures>,
    /// A click on the desktop (XTEST, then a round trip).
    pub step_p50_ms: f64,
    /// An observation without image: the window map and the accessibility tree.
    pub observe_p50_ms: f64,
    /// Nodes in that observation's UI tree (the text editor's window).
    pub ui_tree_nodes: usize,
    /// The same in LibreOffice Calc, whose toolbars make a tree ten times larger (0 where
    /// LibreOffice is missing).
    pub observe_calc_p50_ms: f64,
    pub calc_ui_tree_nodes: usize,
    pub observe_screenshot_p50_ms: f64,
    pub observe_screenshot_p99_ms: f64,
    /// A screenshot alone: the pixels from the X server and their PNG encoding.
    pub screenshot_p50_ms: f64,
    pub screenshot_p99_ms: f64,
    /// The pixels from the X server alone (MIT-SHM where offered), before PNG encoding.
    pub capture_p50_ms: f64,
    pub screenshot_png_kib: f64,
    /// PSS of all an instance's processes, with the text editor and with LibreOffice Calc open.
    pub memory_editor_mib: f64,
    pub memory_calc_mib: f64,
    /// Instances started at once, each reset into LibreOffice Calc: how many came up, and the
    /// time until the last was ready.
    pub concurrent_asked: usize,
    pub concurrent_ready: usize,
    pub concurrent_ready_ms: f64,
    pub concurrent_memory_mib: f64,
    /// One look of the memory watch at every process of the machine (it looks ten times a
    /// second), with those instances up, and how many processes there were.
    pub memory_look_p50_ms: f64,
    /// Of that, the time the look spent on a CPU (what the watch costs the machine; the rest
    /// is waiting for a core while the instances work). 0 where the kernel does not say.
    pub memory_look_cpu_p50_ms: f64,
    pub processes: usize,
    /// Memory available to instances, and how many Calc instances it holds at the measured size.
    pub mem_available_mib: f64,
    pub calc_instances_that_fit: u64,
}

impl crate::Figures for DesktopFigures {
    fn text(&self) -> String {
        let mut out = format!("desktop backend at {}×{}, instance start {:.0} ms\n", self.width, self.height, self.instance_start_ms);
        out.push_str("  reset              p50 ms     p99 ms   with a spare: p50 ms     p99 ms\n");
        for r in &self.resets {
            out.push_str(&format!("  {:<16} {:>8.0} {:>10.0} {:>21.0} {:>10.0}\n", r.application, r.p50_ms, r.p99_ms, r.spare_p50_ms, r.spare_p99_ms));
        }
        out.push_str(&format!("  step (click)         p50 {:.2} ms\n", self.step_p50_ms));
        out.push_str(&format!(
            "  observe, no image    p50 {:.2} ms (UI tree of {} nodes, accessibility bus included)\n",
            self.observe_p50_ms, self.ui_tree_nodes
        ));
        if self.calc_ui_tree_nodes > 0 {
            out.push_str(&format!("  observe in Calc      p50 {:.2} ms (UI tree of {} nodes)\n", self.observe_calc_p50_ms, self.calc_ui_tree_nodes));
        }
        out.push_str(&format!("  observe + screenshot p50 {:.1} ms, p99 {:.1} ms\n", self.observe_screenshot_p50_ms, self.observe_screenshot_p99_ms));
        out.push_str(&format!(
            "  screenshot           p50 {:.1} ms, p99 {:.1} ms ({:.0} KiB PNG)\n",
            self.screenshot_p50_ms, self.screenshot_p99_ms, self.screenshot_png_kib
        ));
        out.push_str(&format!("  of which X capture   p50 {:.1} ms (the rest is PNG encoding)\n", self.capture_p50_ms));
        out.push_str(&format!("  memory per instance  {:.0} MiB with the text editor, {:.0} MiB with Calc\n", self.memory_editor_mib, self.memory_calc_mib));
        out.push_str(&format!(
            "  concurrent Calc      {}/{} ready in {:.0} ms, {:.0} MiB together\n",
            self.concurrent_ready, self.concurrent_asked, self.concurrent_ready_ms, self.concurrent_memory_mib
        ));
        out.push_str(&format!(
            "  memory watch         one look p50 {:.2} ms ({:.2} ms on a CPU) at {} processes\n",
            self.memory_look_p50_ms, self.memory_look_cpu_p50_ms, self.processes
        ));
        out.push_str(&format!("  fit in {:.0} MiB available: {} Calc instances\n", self.mem_available_mib, self.calc_instances_that_fit));
        out
    }
}

/// A task that only opens an application (the bench's resets).
fn opening(name: &str, config: Vec<ConfigStep>) -> TaskSpec {
    let task = OsWorldTask {
        id: format!("bench.{name}"),
        instruction: format!("open {name}"),
        config,
        related_apps: vec![name.into()],
        evaluator: Evaluator { func: OneOrMany::One("infeasible".into()), conj: None, result: None, expected: None, options: None, postconfig: Vec::new() },
        allowed_changes: None,
        other: Default::default(),
    };
    TaskSpec {
        id: format!("bench.{name}/0"),
        benchmark: guigym_benchmark_desktop::BENCHMARK.into(),
        family: format!("bench.{name}"),
        instruction: task.instruction.clone(),
        apps: vec![name.into()],
        world_seed: 0,
        step_budget: 10,
        difficulty: 0,
        params: json!({"task": task}),
        walkthrough: Vec::new(),
    }
}

fn launch(argv: &[&str]) -> ConfigStep {
    ConfigStep::new("launch", json!({ "command": argv }))
}

fn applications(office: bool) -> Vec<(&'static str, TaskSpec)> {
    let text = vec![
        ConfigStep::new("write_file", json!({"path": "/home/user/Desktop/notes.txt", "text": "hello\n"})),
        ConfigStep::new("open", json!({"path": "/home/user/Desktop/notes.txt"})),
    ];
    let mut apps = vec![("text editor", opening("text editor", text)), ("terminal", opening("terminal", vec![launch(&["xterm"])]))];
    // Chromium as OSWorld's Chrome tasks start it: a page, its DevTools port forwarded to 9222.
    if guigym_desktop::session::which("chromium").is_some() {
        let chrome = vec![
            ConfigStep::new("write_file", json!({"path": "/home/user/Desktop/page.html", "text": "<!doctype html><title>Page</title><h1>Page</h1>"})),
            launch(&["google-chrome", "--remote-debugging-port=1337", "file:///home/user/Desktop/page.html"]),
            launch(&["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"]),
        ];
        apps.push(("chrome", opening("chrome", chrome)));
    }
    // VLC as OSWorld's VLC tasks start it (its web interface on, by the desktop's stand-in).
    if guigym_desktop::session::which("vlc").is_some() {
        apps.push(("vlc", opening("vlc", vec![launch(&["vlc"])])));
    }
    if guigym_desktop::session::which("gimp").is_some() {
        apps.push(("gimp", opening("gimp", vec![launch(&["gimp"])])));
    }
    if guigym_desktop::session::which("thunderbird").is_some() {
        apps.push(("thunderbird", opening("thunderbird", vec![launch(&["thunderbird"])])));
    }
    // Ubuntu's viewers (OSWorld's pdf, image and ubuntu_media_player), each on a file, and
    // MusicBrainz Picard.
    let pdf = guigym_benchmark_osworld::media::pdf_document(&["Report"]);
    let svg = "<svg xmlns='http://www.w3.org/2000/svg' width='160' height='100'><rect width='160' height='100' fill='teal'/></svg>";
    // 8 ms of 8-bit sound at 8 kHz: a WAV whose every byte is ASCII, so that it is written as text.
    let wav = format!("RIFF\u{64}\0\0\0WAVEfmt \u{10}\0\0\0\u{1}\0\u{1}\0\u{40}\u{1f}\0\0\u{40}\u{1f}\0\0\u{1}\0\u{8}\0data\u{40}\0\0\0{}", "@".repeat(64));
    for (program, path, text) in [
        ("evince", "/home/user/Desktop/report.pdf", pdf),
        ("eog", "/home/user/Pictures/picture.svg", svg.to_string()),
        ("totem", "/home/user/Music/tone.wav", wav),
    ] {
        if guigym_desktop::session::which(program).is_some() {
            let steps = vec![ConfigStep::new("write_file", json!({"path": path, "text": text})), launch(&[program, path])];
            apps.push((program, opening(program, steps)));
        }
    }
    if guigym_desktop::session::which("picard").is_some() {
        apps.push(("picard", opening("picard", vec![launch(&["picard"])])));
    }
    if office {
        for (name, module) in [("calc", "--calc"), ("writer", "--writer"), ("impress", "--impress")] {
            apps.push((name, opening(name, vec![launch(&["soffice", module, "--norestore", "--nologo"])])));
        }
    }
    apps
}

fn mem_available() -> u64 {
    let info = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    info.lines().find(|l| l.starts_with("MemAvailable:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|kb| kb.parse::<u64>().ok()).unwrap_or(0) * 1024
}

const MIB: f64 = 1024.0 * 1024.0;

pub async fn run(s: &Settings) -> anyhow::Result<DesktopFigures> {
    if let Some(why) = guigym_desktop::missing() {
        return Err(anyhow!(why));
    }
    let (width, height) = guigym_desktop::DEFAULT_SIZE;
    let provider = DesktopProvider::new(width, height, guigym_benchmark_desktop::hosted()).with_spare(false);
    let provider_with_spare = DesktopProvider::new(width, height, guigym_benchmark_desktop::hosted()).with_spare(true);
    let office = guigym_desktop::session::which("soffice").is_some();
    let known: Vec<&str> = applications(office).iter().map(|(name, _)| *name).collect();
    if let Some(unknown) = s.apps.iter().find(|a| !known.contains(&a.as_str())) {
        return Err(anyhow!("no application \"{unknown}\" on this machine (it has {})", known.join(", ")));
    }
    let started = Instant::now();
    let mut env = provider.start().await.context("starting an instance")?;
    let instance_start_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut resets = Vec::new();
    let (mut memory_editor, mut memory_calc) = (0u64, 0u64);
    let (mut observe_calc, mut calc_ui_tree_nodes) = (Vec::new(), 0usize);
    for (name, task) in applications(office).into_iter().filter(|(name, _)| s.apps.is_empty() || s.apps.iter().any(|a| a == name)) {
        env.reset(&task).await.with_context(|| format!("first reset into {name}"))?;
        let mut samples = Vec::new();
        for _ in 0..s.resets.max(1) {
            let t = Instant::now();
            env.reset(&task).await.with_context(|| format!("resetting into {name}"))?;
            samples.push(t.elapsed().as_secs_f64() * 1e3);
        }
        match name {
            "text editor" => memory_editor = env.memory_pss().await?,
            "calc" => {
                memory_calc = env.memory_pss().await?;
                for _ in 0..s.iterations.max(1) {
                    let t = Instant::now();
                    calc_ui_tree_nodes = env.observe(ObserveOptions { screenshot: false }).await?.ui_tree.len();
                    observe_calc.push(t.elapsed().as_secs_f64() * 1e3);
                }
            }
            _ => {}
        }
        // With a spare: an episode (here a wait until the spare is made) between resets.
        let mut spared = provider_with_spare.start().await.context("starting an instance with a spare")?;
        spared.reset(&task).await.with_context(|| format!("first reset into {name} with a spare"))?;
        let mut spare_samples = Vec::new();
        for _ in 0..s.resets.max(1) {
            spared.wait_spare().await;
            let t = Instant::now();
            spared.reset(&task).await.with_context(|| format!("resetting into {name} with a spare"))?;
            spare_samples.push(t.elapsed().as_secs_f64() * 1e3);
        }
        // Its last spare ends before the next application's cold resets are timed.
        let last_dir = spared.instance_dir().await?;
        spared.wait_spare().await;
        drop(spared);
        for _ in 0..100 {
            if !last_dir.exists() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        resets.push(ResetFigures {
            application: name.into(),
            p50_ms: percentile(&mut samples.clone(), 50.0),
            p99_ms: percentile(&mut samples, 99.0),
            spare_p50_ms: percentile(&mut spare_samples.clone(), 50.0),
            spare_p99_ms: percentile(&mut spare_samples, 99.0),
        });
    }
    // Step and observe on the text editor's screen.
    env.reset(&applications(false)[0].1).await?;
    let (mut step, mut plain, mut shot, mut capture, mut screenshot) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut png_bytes, mut ui_tree_nodes) = (0usize, 0usize);
    for _ in 0..s.iterations.max(1) {
        let t = Instant::now();
        env.step(&Action::Click { at: Some(Point(5.0, 5.0)), element: None }).await?;
        step.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        ui_tree_nodes = env.observe(ObserveOptions { screenshot: false }).await?.ui_tree.len();
        plain.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let obs = env.observe(ObserveOptions { screenshot: true }).await?;
        shot.push(t.elapsed().as_secs_f64() * 1e3);
        png_bytes = obs.screenshot.map(|s| s.png().len()).unwrap_or(0);
        let t = Instant::now();
        env.capture_rgb().await?;
        capture.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        env.screenshot_png().await?;
        screenshot.push(t.elapsed().as_secs_f64() * 1e3);
    }
    drop(env);
    // Instances at once, each with Calc open (the text editor where LibreOffice is missing).
    let available = mem_available();
    let task = applications(office).into_iter().find(|(n, _)| *n == "calc").unwrap_or_else(|| applications(false).remove(0)).1;
    let t = Instant::now();
    let started = futures_util::future::join_all((0..s.instances).map(|_| {
        let (provider, task) = (&provider, task.clone());
        async move {
            let mut env = provider.start().await?;
            env.reset(&task).await?;
            Ok::<_, guigym_core::EnvError>(env)
        }
    }))
    .await;
    let concurrent_ready_ms = t.elapsed().as_secs_f64() * 1e3;
    let ready: Vec<_> = started.into_iter().filter_map(Result::ok).collect();
    let mut together = 0u64;
    for env in &ready {
        together += env.memory_pss().await?;
    }
    let (mut looks, mut looks_on_cpu) = (Vec::new(), Vec::new());
    for _ in 0..20 {
        let (t, cpu) = (Instant::now(), thread_cpu_ns());
        std::hint::black_box(guigym_desktop::memory::held_by_account());
        looks.push(t.elapsed().as_secs_f64() * 1e3);
        if let (Some(before), Some(after)) = (cpu, thread_cpu_ns()) {
            looks_on_cpu.push(after.saturating_sub(before) as f64 / 1e6);
        }
    }
    let processes = guigym_desktop::session::all_pids().len();
    let per = if ready.is_empty() { memory_calc.max(memory_editor) } else { together / ready.len() as u64 };
    Ok(DesktopFigures {
        width,
        height,
        instance_start_ms,
        resets,
        step_p50_ms: percentile(&mut step, 50.0),
        observe_p50_ms: percentile(&mut plain, 50.0),
        observe_screenshot_p50_ms: percentile(&mut shot.clone(), 50.0),
        observe_screenshot_p99_ms: percentile(&mut shot, 99.0),
        ui_tree_nodes,
        observe_calc_p50_ms: percentile(&mut observe_calc, 50.0),
        calc_ui_tree_nodes,
        screenshot_p50_ms: percentile(&mut screenshot.clone(), 50.0),
        screenshot_p99_ms: percentile(&mut screenshot, 99.0),
        capture_p50_ms: percentile(&mut capture, 50.0),
        screenshot_png_kib: png_bytes as f64 / 1024.0,
        memory_editor_mib: memory_editor as f64 / MIB,
        memory_calc_mib: memory_calc as f64 / MIB,
        concurrent_asked: s.instances,
        concurrent_ready: ready.len(),
        concurrent_ready_ms,
        concurrent_memory_mib: together as f64 / MIB,
        memory_look_p50_ms: percentile(&mut looks, 50.0),
        memory_look_cpu_p50_ms: percentile(&mut looks_on_cpu, 50.0),
        processes,
        mem_available_mib: available as f64 / MIB,
        calc_instances_that_fit: available.checked_div(per.max(1)).unwrap_or(0),
    })
}

/// The time this thread has spent on a CPU, in nanoseconds (the first field of its
/// `schedstat`).
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}
