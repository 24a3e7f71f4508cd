//! The simulated phone: reset (same task, new task, a task another instance holds), step,
//! observe, instance creation and memory per instance (instances sharing the smoke suite's
//! tasks, as groups do, and each on a task of its own).

use anyhow::{anyhow, Context};
use guigym_benchmark_phone as tasks;
use guigym_core::{Action, ObserveOptions, Screen};
use guigym_sim::SimEnv;
use serde::Serialize;

use crate::{percentile, rss_bytes, time_ms};

pub struct Settings {
    /// Iterations per timed operation.
    pub iterations: usize,
    /// Instances created for the creation and memory figures.
    pub instances: usize,
}

#[derive(Serialize)]
pub struct SimFigures {
    screen: String,
    iterations: usize,
    reset_same_task_p50_ms: f64,
    reset_same_task_p99_ms: f64,
    reset_new_task_p50_ms: f64,
    reset_new_task_p99_ms: f64,
    /// A new instance reset to a task another instance of the process holds (a group's next
    /// member): its initial state is shared, not built.
    reset_held_task_p50_ms: f64,
    reset_held_task_p99_ms: f64,
    step_p50_ms: f64,
    observe_p50_ms: f64,
    /// The screenshot as pixels (its PNG made only where bytes leave the process).
    observe_screenshot_p50_ms: f64,
    /// The same, then encoded as PNG (what every screenshot cost before).
    observe_screenshot_png_p50_ms: f64,
    screenshot_png_kib: f64,
    instances: usize,
    /// The smoke suite's tasks the instances cycle through.
    shared_tasks: usize,
    instances_up_ms: f64,
    memory_per_instance_kib: f64,
    /// Instances each reset to a task no other instance holds.
    memory_per_instance_own_task_kib: f64,
    own_task_instances: usize,
}

impl crate::Figures for SimFigures {
    fn text(&self) -> String {
        [
            format!("sim backend, screen {}, {} iterations", self.screen, self.iterations),
            format!("  reset (same task)     p50 {:>8.4} ms   p99 {:>8.4} ms", self.reset_same_task_p50_ms, self.reset_same_task_p99_ms),
            format!("  reset (new task)      p50 {:>8.4} ms   p99 {:>8.4} ms", self.reset_new_task_p50_ms, self.reset_new_task_p99_ms),
            format!(
                "  reset (task held)     p50 {:>8.4} ms   p99 {:>8.4} ms   (a new instance, on a task another one holds)",
                self.reset_held_task_p50_ms, self.reset_held_task_p99_ms
            ),
            format!("  step (tap)            p50 {:>8.4} ms", self.step_p50_ms),
            format!("  observe (UI tree)     p50 {:>8.4} ms", self.observe_p50_ms),
            format!("  observe + screenshot  p50 {:>8.2} ms   (pixels; the PNG is made where bytes leave the process)", self.observe_screenshot_p50_ms),
            format!(
                "    … + PNG encoded     p50 {:>8.2} ms   ({:.0} KiB PNG; every screenshot before)",
                self.observe_screenshot_png_p50_ms, self.screenshot_png_kib
            ),
            format!("  {} instances up       {:>8.1} ms", self.instances, self.instances_up_ms),
            format!("  memory per instance   {:>8.1} KiB   (instances on the smoke suite's {} tasks)", self.memory_per_instance_kib, self.shared_tasks),
            format!(
                "                        {:>8.1} KiB   ({} instances, each on a task of its own)\n",
                self.memory_per_instance_own_task_kib, self.own_task_instances
            ),
        ]
        .join("\n")
    }
}

pub fn run(s: &Settings) -> anyhow::Result<SimFigures> {
    let (iterations, instances) = (s.iterations.max(10), s.instances.max(1));
    let screen = Screen::PHONE;
    let suite = tasks::suite("smoke").ok_or_else(|| anyhow!("the smoke suite is missing"))?;
    let task = suite.first().ok_or_else(|| anyhow!("the smoke suite is empty"))?.clone();
    // Memory first, while the allocator holds few freed pages the instances could reuse (an
    // RSS delta would miss them): instances on the smoke suite's tasks, timed (created and
    // reset, ready to serve), then, the first batch kept alive, instances each on a task of the
    // full catalogue that no other instance holds (as many as it has tasks for).
    let instances_on = |tasks: &[guigym_core::TaskSpec], count: usize| -> anyhow::Result<(f64, f64, Vec<SimEnv>)> {
        let before = rss_bytes().unwrap_or(0);
        let (up_ms, envs) = time_ms(|| -> anyhow::Result<Vec<SimEnv>> {
            let mut v = Vec::with_capacity(count);
            for i in 0..count {
                let mut e = SimEnv::new(screen, guigym_benchmark_phone::hosted());
                e.reset_sync(&tasks[i % tasks.len()])?;
                v.push(e);
            }
            Ok(v)
        });
        let envs = envs?;
        let after = rss_bytes().unwrap_or(0);
        Ok((up_ms, after.saturating_sub(before) as f64 / envs.len().max(1) as f64 / 1024.0, envs))
    };
    let (up_ms, per_instance, shared) = instances_on(&suite, instances)?;
    let all = tasks::suite("all").ok_or_else(|| anyhow!("the full catalogue is missing"))?;
    let own: Vec<_> = all.iter().filter(|t| !suite.contains(t)).take(instances).cloned().collect();
    let (_, per_instance_own, alive) = instances_on(&own, own.len())?;
    drop((shared, alive));

    let mut env = SimEnv::new(screen, guigym_benchmark_phone::hosted());
    env.reset_sync(&task).context("first reset")?;

    let mut same = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let (ms, r) = time_ms(|| env.reset_sync(&task));
        r?;
        same.push(ms);
    }
    let mut fresh = Vec::with_capacity(iterations);
    for i in 0..iterations {
        // A new instance each time, dropped after, on a task `env` does not hold: its initial
        // state is built.
        let t = &suite[(1 + i % (suite.len() - 1).max(1)) % suite.len()];
        let mut e = SimEnv::new(screen, guigym_benchmark_phone::hosted());
        let (ms, r) = time_ms(|| e.reset_sync(t));
        r?;
        fresh.push(ms);
    }
    let mut held = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let mut e = SimEnv::new(screen, guigym_benchmark_phone::hosted());
        let (ms, r) = time_ms(|| e.reset_sync(&task));
        r?;
        held.push(ms);
    }
    // Step: a tap on the home screen's Contacts icon (hit test, app launch), from a fresh
    // reset each time.
    let home = env.observe_sync(ObserveOptions::default())?;
    let icon = home.node("app:Contacts").ok_or_else(|| anyhow!("the home screen has no Contacts icon"))?;
    let (x, y) = icon.bounds.center();
    let first = Action::click_at(x, y);
    let mut steps = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        env.reset_sync(&task)?;
        let (ms, r) = time_ms(|| futures_step(&mut env, &first));
        r?;
        steps.push(ms);
    }
    let mut observe = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let (ms, r) = time_ms(|| env_observe(&mut env, false));
        r?;
        observe.push(ms);
    }
    let shots = (iterations / 20).clamp(5, 50);
    let (mut observe_shot, mut observe_png) = (Vec::with_capacity(shots), Vec::with_capacity(shots));
    let mut png_bytes = 0;
    for _ in 0..shots {
        let (ms, r) = time_ms(|| env_observe(&mut env, true));
        r?;
        observe_shot.push(ms);
        let (ms, r) = time_ms(|| env_observe(&mut env, true).map(|o| o.screenshot.map(|s| s.png().len())));
        png_bytes = r?.unwrap_or(0);
        observe_png.push(ms);
    }

    Ok(SimFigures {
        screen: format!("{}x{}", screen.width, screen.height),
        iterations,
        reset_same_task_p50_ms: percentile(&mut same, 50.0),
        reset_same_task_p99_ms: percentile(&mut same, 99.0),
        reset_new_task_p50_ms: percentile(&mut fresh, 50.0),
        reset_new_task_p99_ms: percentile(&mut fresh, 99.0),
        reset_held_task_p50_ms: percentile(&mut held, 50.0),
        reset_held_task_p99_ms: percentile(&mut held, 99.0),
        step_p50_ms: percentile(&mut steps, 50.0),
        observe_p50_ms: percentile(&mut observe, 50.0),
        observe_screenshot_p50_ms: percentile(&mut observe_shot, 50.0),
        observe_screenshot_png_p50_ms: percentile(&mut observe_png, 50.0),
        screenshot_png_kib: png_bytes as f64 / 1024.0,
        instances,
        shared_tasks: suite.len(),
        instances_up_ms: up_ms,
        memory_per_instance_kib: per_instance,
        memory_per_instance_own_task_kib: per_instance_own,
        own_task_instances: own.len(),
    })
}

fn futures_step(env: &mut SimEnv, action: &Action) -> anyhow::Result<()> {
    env.step_sync(action)?;
    Ok(())
}

fn env_observe(env: &mut SimEnv, screenshot: bool) -> anyhow::Result<guigym_core::Observation> {
    Ok(env.observe_sync(ObserveOptions { screenshot })?)
}
