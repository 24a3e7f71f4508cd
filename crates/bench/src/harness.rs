//! The harness: prefix-cache hits, prompt and training tokens and overhead per step, for
//! window-wise against last-k history on the same trajectories.

use anyhow::anyhow;
use guigym_benchmark_phone as tasks;
use guigym_core::{Action, Observation, Screen, Screenshot};
use guigym_harness::accounting::{replay, Replay};
use guigym_harness::config::ImagePolicy;
use guigym_harness::image::{smart_resize, ModelImage};
use guigym_harness::tokenizer::{locate, Tokenizer};
use guigym_harness::{GoldenPolicy, Harness, HarnessConfig, HistoryPolicy, ObservationMode};
use guigym_rollout::{new_trajectory_id, run_attempt, Recorder};
use guigym_sim::SimEnv;
use serde::Serialize;

use crate::{percentile, time_ms};

pub struct Settings {
    /// Trajectories to replay (the longest tasks, played by the golden policy).
    pub trajectories: usize,
    /// What the model is shown.
    pub observation: ObservationMode,
    /// Qwen tokenizer.json; `None` finds the one scripts/setup.sh fetched.
    pub tokenizer: Option<std::path::PathBuf>,
}

/// Each step's observation and action, as `run_attempt` reports them.
#[derive(Default)]
struct ObservedSteps(Vec<(guigym_core::Observation, String)>);

impl Recorder for ObservedSteps {
    fn step(&mut self, step: &guigym_core::Step, _png: Option<&[u8]>) {
        let action = step.action.as_ref().map(Action::to_json).unwrap_or_default();
        self.0.push((guigym_core::Observation::default(), action));
    }

    fn prompt(&mut self, _prompt: &guigym_harness::Prompt, observation: &guigym_core::Observation) {
        if let Some(last) = self.0.last_mut() {
            // The rollout hands over its screenshot as PNG only (`Screenshot::into_png`);
            // `fresh` paints it back into pixels for the replay.
            last.0 = observation.clone();
        }
    }
}

/// The observation as the simulated phone gives it: a screenshot of pixels whose PNG and hash
/// are not yet made (so the replay pays for them as a rollout does).
fn fresh(observation: &Observation) -> Observation {
    let screenshot = observation.screenshot.as_ref().map(|s| {
        let (w, h, rgba) = s.to_rgba().expect("the recorded screenshot is a PNG we encoded");
        Screenshot::from_rgba(w, h, rgba.into_owned()).expect("decoded pixels fit their size")
    });
    Observation { screenshot, ..observation.clone() }
}

/// Image preparation as it was before pixels reached the harness: the environment encoded
/// its PNG, the harness hashed it, decoded it, resampled it bilinearly with tiny-skia and
/// encoded the result with tiny-skia's PNG settings. Kept to be timed beside the new way.
fn previous_preparation(png: &[u8], width: u32, height: u32) -> Option<Vec<u8>> {
    let _hash = guigym_core::sha256_hex(png);
    let src = tiny_skia::Pixmap::decode_png(png).ok()?;
    let mut dst = tiny_skia::Pixmap::new(width, height)?;
    let (sx, sy) = (width as f32 / src.width() as f32, height as f32 / src.height() as f32);
    let paint = tiny_skia::PixmapPaint { quality: tiny_skia::FilterQuality::Bilinear, ..Default::default() };
    dst.draw_pixmap(0, 0, src.as_ref(), &paint, tiny_skia::Transform::from_scale(sx, sy), None);
    dst.encode_png().ok()
}

#[derive(Serialize)]
struct ImageFigures {
    /// Screenshots prepared (each step's, once).
    images: usize,
    /// Now: the screenshot's PNG (for the store) and its hash, resampled from its pixels,
    /// encoded at the model's size.
    prepare_p50_ms: f64,
    prepare_p99_ms: f64,
    /// Before: decode, bilinear resample and encode with tiny-skia, hash; the environment had
    /// encoded the PNG (its cost is in `previous_encode_p50_ms`).
    previous_prepare_p50_ms: f64,
    previous_encode_p50_ms: f64,
}

/// Times preparing each step's screenshot for the model, the new way and the previous one.
fn time_images(recorded: &[(String, Vec<(Observation, String)>)], image: &ImagePolicy) -> ImageFigures {
    let (mut now, mut before, mut encode) = (Vec::new(), Vec::new(), Vec::new());
    for shot in recorded.iter().flat_map(|r| &r.1).filter_map(|(o, _)| o.screenshot.as_ref()) {
        let (model_width, model_height) = smart_resize(shot.width, shot.height, image);
        let painted = || fresh(&Observation { screenshot: Some(shot.clone()), ..Observation::default() }).screenshot.expect("a screenshot");
        let shot_now = painted();
        let (ms, _) = time_ms(|| ModelImage::new(&shot_now, image));
        now.push(ms);
        let shot_before = painted();
        let (ms, png) = time_ms(|| shot_before.png().to_vec());
        encode.push(ms);
        let (ms, _) = time_ms(|| previous_preparation(&png, model_width, model_height));
        before.push(ms);
    }
    ImageFigures {
        images: now.len(),
        prepare_p50_ms: percentile(&mut now, 50.0),
        prepare_p99_ms: percentile(&mut now, 99.0),
        previous_prepare_p50_ms: percentile(&mut before, 50.0),
        previous_encode_p50_ms: percentile(&mut encode, 50.0),
    }
}

#[derive(Serialize)]
struct HistoryFigures {
    history: String,
    prefix_cache_hit_rate: f64,
    mean_prompt_tokens_per_step: f64,
    packed_training_tokens_per_trajectory: f64,
    per_step_training_tokens_per_trajectory: f64,
    overhead_p50_ms: f64,
    overhead_p99_ms: f64,
    overhead_mean_ms: f64,
}

#[derive(Serialize)]
pub struct HarnessFigures {
    trajectories: usize,
    steps: usize,
    observation: String,
    tokenizer: String,
    policies: Vec<HistoryFigures>,
    /// Window-packed training tokens against last-k's one sequence per step.
    training_token_change: f64,
    /// Screenshot preparation alone, with screenshots shown.
    images: Option<ImageFigures>,
}

pub async fn run(s: &Settings) -> anyhow::Result<HarnessFigures> {
    let (n, observation) = (s.trajectories.max(1), s.observation);
    let path = locate(s.tokenizer.as_deref())?;
    let tok = Tokenizer::load(&path)?;
    let mut tasks = tasks::suite("all").ok_or_else(|| anyhow!("the all suite is missing"))?;
    // The longest walkthroughs first: history policies differ on long trajectories.
    tasks.sort_by_key(|t| std::cmp::Reverse(t.difficulty));
    tasks.truncate(n);
    // The golden policy plays each task through the one rollout path; the recorder keeps what
    // the harness is then replayed on: each step's observation and action.
    let harness = Harness::new(HarnessConfig { observation, ..HarnessConfig::default() });
    let mut recorded: Vec<(String, Vec<(guigym_core::Observation, String)>)> = Vec::new();
    for task in &tasks {
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        let mut policy = GoldenPolicy::new(task.walkthrough.clone());
        let mut steps = ObservedSteps::default();
        run_attempt(&mut env, task, &mut policy, &harness, 0, &new_trajectory_id(), &mut steps).await.map_err(|e| anyhow!("{}: {e}", task.id))?;
        recorded.push((task.instruction.clone(), steps.0));
    }
    let total_steps: usize = recorded.iter().map(|r| r.1.len()).sum();
    let mut policies = Vec::new();
    for (name, history) in [("window (k=10, o=2)", HistoryPolicy::Window { k: 10, o: 2 }), ("last_k (k=5)", HistoryPolicy::LastK { k: 5 })] {
        let config = HarnessConfig { history, observation, ..HarnessConfig::default() };
        // Each replay meets screenshots as the environment gives them, nothing prepared yet.
        let replays: Vec<Replay> = recorded
            .iter()
            .map(|(instr, steps)| {
                let steps: Vec<(Observation, String)> = steps.iter().map(|(o, a)| (fresh(o), a.clone())).collect();
                replay(&config, instr, &steps, &tok)
            })
            .collect();
        let prompt: usize = replays.iter().flat_map(|r| &r.prompt_tokens).sum();
        let cached: usize = replays.iter().flat_map(|r| &r.cached_tokens).sum();
        let mut overhead: Vec<f64> = replays.iter().flat_map(|r| r.overhead_ms.iter().copied()).collect();
        let mean = overhead.iter().sum::<f64>() / overhead.len().max(1) as f64;
        policies.push(HistoryFigures {
            history: name.to_string(),
            prefix_cache_hit_rate: cached as f64 / prompt.max(1) as f64,
            mean_prompt_tokens_per_step: prompt as f64 / total_steps.max(1) as f64,
            packed_training_tokens_per_trajectory: replays.iter().map(|r| r.packed_training_tokens).sum::<usize>() as f64 / replays.len() as f64,
            per_step_training_tokens_per_trajectory: replays.iter().map(|r| r.per_step_training_tokens).sum::<usize>() as f64 / replays.len() as f64,
            overhead_p50_ms: percentile(&mut overhead, 50.0),
            overhead_p99_ms: percentile(&mut overhead, 99.0),
            overhead_mean_ms: mean,
        });
    }
    let images = observation.screenshots().then(|| time_images(&recorded, &ImagePolicy::default()));
    let training_token_change = policies[0].packed_training_tokens_per_trajectory / policies[1].per_step_training_tokens_per_trajectory.max(1.0) - 1.0;
    Ok(HarnessFigures {
        trajectories: recorded.len(),
        steps: total_steps,
        observation: format!("{observation:?}"),
        tokenizer: path.display().to_string(),
        policies,
        training_token_change,
        images,
    })
}

impl crate::Figures for HarnessFigures {
    fn text(&self) -> String {
        let mut out = format!(
            "{} trajectories, {} steps ({:.1} per trajectory), observation {}, tokenizer {}\n",
            self.trajectories,
            self.steps,
            self.steps as f64 / self.trajectories.max(1) as f64,
            self.observation,
            self.tokenizer
        );
        for p in &self.policies {
            out += &format!("  {}\n", p.history);
            out += &format!("    prefix-cache hit rate        {:>7.1} %\n", p.prefix_cache_hit_rate * 100.0);
            out += &format!("    prompt tokens per step       {:>9.0}\n", p.mean_prompt_tokens_per_step);
            out += &format!(
                "    training tokens / trajectory {:>9.0} packed   {:>9.0} one sequence per step\n",
                p.packed_training_tokens_per_trajectory, p.per_step_training_tokens_per_trajectory
            );
            out += &format!(
                "    harness overhead per step    p50 {:.3} ms  p99 {:.3} ms  mean {:.3} ms\n",
                p.overhead_p50_ms, p.overhead_p99_ms, p.overhead_mean_ms
            );
        }
        if let [window, last_k] = &self.policies[..] {
            out += &format!(
                "  window vs last_k: training tokens {:+.1} %, hit rate {:.1} % vs {:.1} % (paper: -84.7 %, 85.9 % vs 42.5 %)\n",
                self.training_token_change * 100.0,
                window.prefix_cache_hit_rate * 100.0,
                last_k.prefix_cache_hit_rate * 100.0
            );
        }
        if let Some(i) = &self.images {
            out += &format!(
                "  image preparation ({} screenshots): p50 {:.2} ms  p99 {:.2} ms (PNG for the store, hash, resample from pixels, model-size PNG)\n",
                i.images, i.prepare_p50_ms, i.prepare_p99_ms
            );
            out += &format!(
                "    previously: p50 {:.2} ms in the harness (hash, decode, resample, encode with tiny-skia) after {:.2} ms encoding in the environment\n",
                i.previous_prepare_p50_ms, i.previous_encode_p50_ms
            );
        }
        out
    }
}
