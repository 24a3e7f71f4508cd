//! MiniWoB++ from the `miniwob` PyPI package: where its HTML lives, which tasks it has, and
//! the page script that resets a task in place with a seed and no episode timer.

use std::path::{Path, PathBuf};

use guigym_core::TaskSpec;

/// Real-time tasks that wall-clock-driven agents cannot play fairly; left out as usual.
pub const EXCLUDED: [&str; 5] = ["chase-circle", "moving-items", "simon-says", "button-delay", "hover-shape"];

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

/// The benchmark's name, in `TaskSpec::benchmark`.
pub const BENCHMARK: &str = "miniwob";

/// MiniWoB++ as a benchmark: one suite (`miniwob`, one task per game), hosted by the web
/// backend only (the pages run in the browser and judge themselves).
pub struct MiniWob;

impl guigym_core::Benchmark for MiniWob {
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
        let dir = html_dir().ok_or("MiniWoB++ is not installed: run ./scripts/setup.sh (or set GUIGYM_MINIWOB_DIR)")?;
        Ok(suite(&dir))
    }
    fn task(&self, id: &str) -> Option<TaskSpec> {
        let (name, seed) = id.strip_prefix("miniwob.")?.rsplit_once('/')?;
        let dir = html_dir()?;
        task_names(&dir).iter().any(|n| n == name).then(|| task(name, seed.parse().unwrap_or(0)))
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

/// Resets the episode in the page: no timer (a slow model is not punished by wall-clock
/// time), a seeded problem, no reload.
pub fn reset_script(seed: u64) -> String {
    format!(
        "(() => {{ core.EPISODE_MAX_TIME = 365 * 24 * 3600 * 1000; \
         if (core.EP_TIMER !== null) {{ clearTimeout(core.EP_TIMER); core.EP_TIMER = null; }} \
         if (core.cover_div == null) core.startEpisode(); \
         Math.seedrandom('{seed}'); core.startEpisodeReal(); \
         return typeof WOB_TASK_READY === 'undefined' ? true : WOB_TASK_READY; }})()"
    )
}

/// `[raw reward, done, reason]` from the page's globals.
pub const REWARD_SCRIPT: &str = "[WOB_RAW_REWARD_GLOBAL, WOB_DONE_GLOBAL, WOB_REWARD_REASON]";
