//! `guigym bench web`: the web backend against the Farama `miniwob` gymnasium environment
//! (Selenium), on the same MiniWoB++ tasks in the same run, plus the smoke suite's mocked
//! apps in the browser.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use guigym_benchmark_miniwob as miniwob;
use guigym_core::Screen;
use guigym_core::{Action, Env, EnvProvider, ObserveOptions};
use guigym_web::WebProvider;
use serde::Serialize;
use serde_json::Value;

use crate::percentile;

pub const TASKS: [&str; 5] = ["click-button", "click-checkboxes", "enter-text", "book-flight", "email-inbox"];

pub struct Settings {
    pub iterations: usize,
    pub seconds: f64,
    pub python: bool,
}

#[derive(Serialize)]
pub struct TaskFigures {
    pub task: String,
    pub reset_p50_ms: f64,
    pub reset_p99_ms: f64,
    /// A click, then an observation with screenshot and UI tree.
    pub step_observe_p50_ms: f64,
    pub python: Option<Value>,
}

#[derive(Serialize)]
pub struct WebFigures {
    pub launch_ms: f64,
    pub tasks: Vec<TaskFigures>,
    pub smoke_reset_p50_ms: f64,
    pub smoke_reset_p99_ms: f64,
    pub smoke_step_observe_p50_ms: f64,
    /// Reset + click + observe cycles per second on click-button, by concurrent instances.
    pub throughput: Vec<(usize, f64)>,
    pub python_throughput: Vec<(usize, f64)>,
    /// Browser memory (PSS of all its processes) per extra instance.
    pub memory_per_instance_mib: f64,
}

impl crate::Figures for WebFigures {
    fn text(&self) -> String {
        let mut out = format!("web backend (headless Chromium), browser launch {:.0} ms\n", self.launch_ms);
        out.push_str(&format!("  {:<18} {:>24} {:>24} {:>22}\n", "task", "reset p50 / p99 ms", "python reset p50 / p99", "step+observe p50 (py)"));
        for t in &self.tasks {
            let py = |k: &str| t.python.as_ref().and_then(|p| p[k].as_f64()).unwrap_or(f64::NAN);
            out.push_str(&format!(
                "  {:<18} {:>11.1} / {:>8.1} {:>13.1} / {:>8.1} {:>10.1} ({:>6.1})\n",
                t.task,
                t.reset_p50_ms,
                t.reset_p99_ms,
                py("reset_p50_ms"),
                py("reset_p99_ms"),
                t.step_observe_p50_ms,
                py("step_observe_p50_ms")
            ));
        }
        out.push_str(&format!(
            "  smoke suite (mocked apps, 1080x2400): reset p50 {:.1} ms p99 {:.1} ms, step+observe p50 {:.1} ms\n",
            self.smoke_reset_p50_ms, self.smoke_reset_p99_ms, self.smoke_step_observe_p50_ms
        ));
        for (c, r) in &self.throughput {
            let py = self.python_throughput.iter().find(|(pc, _)| pc == c).map(|(_, v)| *v);
            match py {
                Some(p) if p > 0.0 => out.push_str(&format!("  throughput x{c:<3} {r:>8.1} cycles/s   python {p:>6.1}   ratio {:>5.1}x\n", r / p)),
                _ => out.push_str(&format!("  throughput x{c:<3} {r:>8.1} cycles/s\n")),
            }
        }
        out.push_str(&format!("  memory per instance {:>8.1} MiB\n", self.memory_per_instance_mib));
        out
    }
}

/// Proportional set size (shared pages split among their users) of a process and all its
/// descendants, in MiB (Linux): what the process tree really costs.
fn tree_pss_mib(root: u32) -> f64 {
    let mut children: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    let mut rss: std::collections::HashMap<u32, f64> = std::collections::HashMap::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
        let field = |name: &str| status.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<f64>().ok());
        if let Some(pp) = field("PPid:") {
            children.entry(pp as u32).or_default().push(pid);
        }
        let pss = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
            .ok()
            .and_then(|t| t.lines().find(|l| l.starts_with("Pss:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<f64>().ok()));
        rss.insert(pid, pss.unwrap_or(0.0) / 1024.0);
    }
    let mut total = 0.0;
    let mut stack = vec![root];
    while let Some(p) = stack.pop() {
        total += rss.get(&p).copied().unwrap_or(0.0);
        stack.extend(children.get(&p).cloned().unwrap_or_default());
    }
    total
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

async fn click_and_observe(env: &mut dyn Env, x: f32, y: f32) -> anyhow::Result<()> {
    env.step(&Action::click_at(x, y)).await?;
    env.observe(ObserveOptions { screenshot: true }).await?;
    Ok(())
}

fn python_side(settings: &Settings, concurrency: &str) -> anyhow::Result<Option<Value>> {
    if !settings.python {
        return Ok(None);
    }
    let cache =
        std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache"))).unwrap_or_default();
    let python = cache.join("guigym/venv/bin/python");
    let script = ["scripts/bench_miniwob_python.py", concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/bench_miniwob_python.py")]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or_else(|| anyhow!("scripts/bench_miniwob_python.py not found"))?;
    if !python.is_file() {
        bail!("the Python side needs the venv of ./scripts/setup.sh (or pass --no-python)");
    }
    let out = std::process::Command::new(&python)
        .arg(&script)
        .args(["--tasks", &TASKS.join(","), "--iterations", &settings.iterations.to_string()])
        .args(["--seconds", &settings.seconds.to_string(), "--concurrency", concurrency])
        .output()
        .context("running the Python benchmark")?;
    if !out.status.success() {
        bail!("the Python benchmark failed: {}", String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or(""));
    }
    Ok(Some(serde_json::from_slice(&out.stdout).context("reading the Python benchmark's JSON")?))
}

pub async fn run(s: Settings) -> anyhow::Result<WebFigures> {
    if guigym_web::find_chromium().is_none() || miniwob::html_dir().is_none() {
        bail!("bench web needs Chromium and MiniWoB++: run ./scripts/setup.sh");
    }
    let provider = Arc::new(WebProvider::new(Screen::PHONE, guigym_benchmark_phone::hosted(), guigym_benchmark_miniwob::hosted()));
    let t = Instant::now();
    let browser = provider.browser().await?;
    let launch_ms = ms(t);
    let pid = browser.pid().ok_or_else(|| anyhow!("no browser pid"))?;

    let mut tasks = Vec::new();
    let mut env = provider.create().await?;
    for name in TASKS {
        env.reset(&miniwob::task(name, 0)).await?;
        let (mut resets, mut steps) = (Vec::new(), Vec::new());
        for i in 0..s.iterations {
            let t = Instant::now();
            env.reset(&miniwob::task(name, i as u64 + 1)).await?;
            resets.push(ms(t));
            let t = Instant::now();
            click_and_observe(env.as_mut(), 80.0, 130.0).await?;
            steps.push(ms(t));
        }
        tasks.push(TaskFigures {
            task: name.to_string(),
            reset_p50_ms: percentile(&mut resets, 50.0),
            reset_p99_ms: percentile(&mut resets, 99.0),
            step_observe_p50_ms: percentile(&mut steps, 50.0),
            python: None,
        });
    }
    // The smoke suite's mocked apps, phone-sized.
    let smoke = guigym_benchmark_phone::suite("smoke").ok_or_else(|| anyhow!("no smoke suite"))?;
    let (mut resets, mut steps) = (Vec::new(), Vec::new());
    for (i, task) in smoke.iter().enumerate().take(s.iterations.max(10)) {
        let t = Instant::now();
        let obs = env.reset(task).await?;
        resets.push(ms(t));
        let icon = obs.ui_tree.iter().find(|n| n.id.starts_with("app:")).map(|n| n.bounds.center()).unwrap_or((540.0, 400.0));
        let t = Instant::now();
        click_and_observe(env.as_mut(), icon.0, icon.1).await?;
        steps.push(ms(t));
        let _ = i;
    }
    env.release().await?;

    // Throughput: concurrent instances cycling reset + click + observe on click-button.
    let mut throughput = Vec::new();
    let mut memory_per_instance = 0.0;
    for c in [1usize, 4, 16] {
        let mut envs = Vec::new();
        let before = tree_pss_mib(pid);
        for _ in 0..c {
            let mut e = provider.create().await?;
            e.reset(&miniwob::task("click-button", 0)).await?;
            envs.push(e);
        }
        if c == 16 {
            memory_per_instance = (tree_pss_mib(pid) - before).max(0.0) / c as f64;
        }
        let end = Instant::now() + Duration::from_secs_f64(s.seconds);
        let mut handles = Vec::new();
        for (k, mut e) in envs.into_iter().enumerate() {
            handles.push(tokio::spawn(async move {
                let mut n = 0u64;
                while Instant::now() < end {
                    e.reset(&miniwob::task("click-button", 1000 * k as u64 + n)).await?;
                    click_and_observe(e.as_mut(), 80.0, 130.0).await?;
                    n += 1;
                }
                e.release().await?;
                Ok::<u64, anyhow::Error>(n)
            }));
        }
        let mut total = 0;
        for h in handles {
            total += h.await??;
        }
        throughput.push((c, total as f64 / s.seconds));
    }

    let python = python_side(&s, "1,4")?;
    let mut python_throughput = Vec::new();
    if let Some(p) = &python {
        for t in &mut tasks {
            t.python = p["tasks"].get(&t.task).cloned();
        }
        if let Some(m) = p["throughput"].as_object() {
            for (k, v) in m {
                python_throughput.push((k.parse().unwrap_or(0), v.as_f64().unwrap_or(0.0)));
            }
        }
    }
    Ok(WebFigures {
        launch_ms,
        tasks,
        smoke_reset_p50_ms: percentile(&mut resets, 50.0),
        smoke_reset_p99_ms: percentile(&mut resets, 99.0),
        smoke_step_observe_p50_ms: percentile(&mut steps, 50.0),
        throughput,
        python_throughput,
        memory_per_instance_mib: memory_per_instance,
    })
}
