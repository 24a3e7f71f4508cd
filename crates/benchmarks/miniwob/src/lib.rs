//! MiniWoB++ (from the `miniwob` PyPI package) as a page benchmark of the web backend: where
//! its HTML lives, which tasks it has, the page script that resets a task in place with a seed
//! and no episode timer, and the page globals that hold its reward.

use std::path::{Path, PathBuf};

use guigym_core::{Benchmark, TaskSpec};
use guigym_web::PageBenchmark;

/// Real-time tasks that wall-clock-driven agents cannot play fairly; left out as usual.
pub const EXCLUDED: [&str; 5] = ["chase-circle", "moving-items", "simon-says", "button-delay", "hover-shape"];

/// The benchmark's name, in `TaskSpec::benchmark`.
pub const BENCHMARK: &str = "miniwob";

/// The installed MiniWoB++ HTML folder: `$GUIGYM_MINIWOB_DIR`, or where `scripts/setup.sh` puts it.
pub fn html_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GUIGYM_MINIWOB_DIR").map(PathBuf::from).unwrap_or_else(|| {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(|| PathBuf::from(".cache"));
        cache.join("guigym").join("miniwob-html")
    });
    dir.join("core").join("core.js").is_file().then_some(dir)
}

/// Task names found in the HTML folder, sorted, real-time tasks left out.
pub fn task_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("miniwob"))
        .map(|it| {
            it.flatten()
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".html")).map(str::to_string))
                .filter(|n| !EXCLUDED.contains(&n.as_str()))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

const MISSING: &str = "MiniWoB++ is not installed: run ./scripts/setup.sh (or set GUIGYM_MINIWOB_DIR)";

/// MiniWoB++ as a benchmark: one suite (`miniwob`, one task per game), hosted by the web
/// backend only (the pages run in the browser and judge themselves).
pub struct MiniWob;

pub static MINIWOB: MiniWob = MiniWob;

impl Benchmark for MiniWob {
    fn name(&self) -> &str {
        BENCHMARK
    }
    fn suites(&self) -> Vec<String> {
        vec![BENCHMARK.to_string()]
    }
    fn suite(&self, name: &str) -> Result<Vec<TaskSpec>, String> {
        if name != BENCHMARK {
            return Err(format!("MiniWoB++ has one suite, \"{BENCHMARK}\", not \"{name}\""));
        }
        let dir = html_dir().ok_or(MISSING)?;
        Ok(suite(&dir))
    }
    fn task(&self, id: &str) -> Option<TaskSpec> {
        let (name, seed) = id.strip_prefix("miniwob.")?.rsplit_once('/')?;
        let dir = html_dir()?;
        task_names(&dir).iter().any(|n| n == name).then(|| task(name, seed.parse().unwrap_or(0)))
    }
}

impl PageBenchmark for MiniWob {
    fn files(&self) -> Option<PathBuf> {
        html_dir()
    }
    fn missing(&self) -> String {
        MISSING.into()
    }
    fn page(&self, task: &TaskSpec) -> Result<String, String> {
        task.params.get("page").and_then(|p| p.as_str()).map(str::to_string).ok_or_else(|| "a MiniWoB++ task needs params.page".into())
    }
    /// Exactly the task area (160×210 at the top left), as the gymnasium environment crops
    /// its screenshots to.
    fn viewport(&self) -> (u32, u32) {
        (160, 210)
    }
    /// Resets the episode in the page: no timer (a slow model is not punished by wall-clock
    /// time), a seeded problem, no reload.
    fn reset_script(&self, task: &TaskSpec) -> String {
        let seed = task.params.get("seed").and_then(|s| s.as_u64()).unwrap_or(0);
        format!(
            "(() => {{ core.EPISODE_MAX_TIME = 365 * 24 * 3600 * 1000; \
             if (core.EP_TIMER !== null) {{ clearTimeout(core.EP_TIMER); core.EP_TIMER = null; }} \
             if (core.cover_div == null) core.startEpisode(); \
             Math.seedrandom('{seed}'); core.startEpisodeReal(); \
             return typeof WOB_TASK_READY === 'undefined' ? true : WOB_TASK_READY; }})()"
        )
    }
    fn reward_script(&self) -> String {
        "[WOB_RAW_REWARD_GLOBAL, WOB_DONE_GLOBAL, WOB_REWARD_REASON]".into()
    }
    fn state_script(&self) -> String {
        "document.body.innerHTML + JSON.stringify([WOB_RAW_REWARD_GLOBAL, WOB_DONE_GLOBAL])".into()
    }
}

/// A MiniWoB++ task; the seed picks the problem the page generates.
pub fn task(name: &str, seed: u64) -> TaskSpec {
    TaskSpec {
        id: format!("miniwob.{name}/{seed}"),
        benchmark: BENCHMARK.into(),
        family: format!("miniwob.{name}"),
        instruction: "Solve the MiniWoB++ task on the page; its instruction is the text at the top of the task area.".into(),
        apps: vec!["browser".into()],
        world_seed: seed,
        step_budget: 20,
        difficulty: 0,
        params: serde_json::json!({ "page": format!("miniwob/{name}.html"), "seed": seed }),
        walkthrough: Vec::new(),
    }
}

/// The `miniwob` suite: one task per game, seed 0.
pub fn suite(dir: &Path) -> Vec<TaskSpec> {
    task_names(dir).iter().map(|n| task(n, 0)).collect()
}

/// MiniWoB++ alone, as a web backend hosts it (tests and tools that need no registry).
pub fn hosted() -> guigym_web::PageBenchmarks {
    guigym_web::PageBenchmarks::new([&MINIWOB as &'static dyn PageBenchmark])
}
