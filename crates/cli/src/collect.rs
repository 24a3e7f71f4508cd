//! `guigym collect`: the eval run, exported as supervised fine-tuning data. Each successful
//! attempt becomes chat records in the format the harness produced (messages with image
//! references, the trained assistant turns named) and packed token samples.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use clap::Args;
use guigym_core::Attempt;
use guigym_harness::packing::{pack, RecordedStep, TrajectoryInfo};
use guigym_harness::tokenizer::{locate, Tokenizer};
use guigym_harness::{HistoryPolicy, Part, Prompt};
use guigym_rollout::{eval, Progress};
use serde_json::{json, Value};

use crate::commands::{Prepared, RunArgs};
use crate::registry::Registry;

#[derive(Args)]
pub struct CollectArgs {
    #[command(flatten)]
    run: RunArgs,
    /// Output folder: sft.jsonl, samples.jsonl, steps.jsonl, images/, summary.json
    #[arg(long)]
    out: PathBuf,
    /// Qwen tokenizer.json [default: the one scripts/setup.sh fetched]
    #[arg(long)]
    tokenizer: Option<PathBuf>,
    /// Instead of running a policy over a suite, replay the successful attempts of this stored
    /// run (repeatable): games played by hand in the dashboard (policy `human`) or any other
    /// run. Each attempt's actions are played again through the harness on a fresh instance
    /// (so the prompts and replies are the harness's own), judged again, and exported when it
    /// succeeds again
    #[arg(long = "replay", value_name = "RUN")]
    replay: Vec<i64>,
}

/// The policy that replays stored actions: the golden policy playing each task's recorded
/// actions as its walkthrough, reported as `human` when the runs were played by hand.
struct Replay {
    name: String,
    inner: Arc<dyn guigym_harness::PolicyFactory>,
}

impl guigym_harness::PolicyFactory for Replay {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn for_attempt(&self, task: &guigym_core::TaskSpec, attempt: u32) -> Box<dyn guigym_harness::Policy> {
        self.inner.for_attempt(task, attempt)
    }
    fn describe(&self) -> Value {
        json!({ "name": self.name, "replayed": true })
    }
}

/// The tasks of the runs' successful attempts, each with the actions its attempt took as
/// its walkthrough (the last attempt wins for a task played twice); the benchmark they share;
/// and the name of the policy that played them.
fn replayed_tasks(registry: &Registry, store: &guigym_rollout::Store, runs: &[i64]) -> anyhow::Result<(String, Vec<guigym_core::TaskSpec>, String)> {
    let mut tasks: std::collections::BTreeMap<String, guigym_core::TaskSpec> = std::collections::BTreeMap::new();
    let mut policies = std::collections::BTreeSet::new();
    for &run in runs {
        let detail = store.show_run(run).with_context(|| format!("--replay {run}"))?;
        policies.insert(detail.run.policy.clone());
        for a in store.attempts_of_run(run)?.into_iter().filter(|a| a.success == Some(true)) {
            let mut task = registry.find_task(&a.task_id).with_context(|| format!("run {run}: task {} is not in this binary's benchmarks", a.task_id))?;
            // Invalid steps (no action, or one the instance refused) are not replayed: the
            // data keeps what worked, not the slips.
            let actions: Vec<guigym_core::Action> = store
                .attempt_steps(a.id)?
                .into_iter()
                .filter(|s| !s.invalid && !s.action.is_null())
                .filter_map(|s| serde_json::from_value(s.action).ok())
                .collect();
            task.walkthrough = actions;
            if let Some(earlier) = tasks.insert(task.id.clone(), task) {
                eprintln!("collect: {} was solved more than once in the runs replayed; the last attempt is replayed", earlier.id);
            }
        }
    }
    let benchmarks: std::collections::BTreeSet<String> = tasks.values().map(|t| t.benchmark.clone()).collect();
    let benchmark = match benchmarks.len() {
        0 => anyhow::bail!("--replay {runs:?}: no successful attempt to replay"),
        1 => benchmarks.into_iter().next().unwrap_or_default(),
        _ => anyhow::bail!("--replay {runs:?}: the attempts belong to several benchmarks ({benchmarks:?}); replay one benchmark at a time"),
    };
    let name = if policies.len() == 1 { policies.into_iter().next().unwrap_or_default() } else { "replay".into() };
    Ok((benchmark, tasks.into_values().collect(), name))
}

struct Sink {
    dir: PathBuf,
    tokenizer: Tokenizer,
    history: HistoryPolicy,
    files: Mutex<(std::fs::File, std::fs::File, std::fs::File)>,
    /// Instructions by task id, for the step records.
    instructions: std::collections::HashMap<String, String>,
    counts: Mutex<(usize, usize, usize)>,
    error: Mutex<Option<String>>,
    meter: crate::progress::Meter,
}

/// A prompt's messages as chat JSON, images as file references.
fn chat(prompt: &Prompt, dir: &std::path::Path) -> std::io::Result<Vec<Value>> {
    let mut out = Vec::new();
    for m in &prompt.messages {
        let mut parts = Vec::new();
        for p in &m.parts {
            match p {
                Part::Text(t) => parts.push(json!({"type": "text", "text": t})),
                Part::Image(img) => {
                    let rel = format!("images/{}.png", img.hash);
                    let path = dir.join(&rel);
                    if !path.exists() {
                        std::fs::write(&path, img.png.as_slice())?;
                    }
                    parts.push(json!({"type": "image", "image": rel}));
                }
            }
        }
        out.push(json!({"role": m.role.name(), "content": parts}));
    }
    Ok(out)
}

impl Sink {
    fn write(&self, a: &Attempt, prompts: &[Prompt]) -> anyhow::Result<()> {
        let steps = RecordedStep::zip(prompts, &a.trajectory.steps);
        let trajectory_id = format!("{}:{}", a.task_id, a.attempt_index);
        let info = TrajectoryInfo {
            trajectory_id: &trajectory_id,
            task_id: &a.task_id,
            group_id: &a.task_id,
            reward: a.verdict.score as f64,
            advantage: 0.0,
            weight_version: 0,
            status: "completed",
        };
        let samples = pack(&self.tokenizer, self.history, &steps, &info);
        let mut lines_sft = Vec::new();
        let mut lines_samples = Vec::new();
        for s in &samples {
            let last = s.last_step as usize;
            let mut messages = chat(&prompts[last], &self.dir)?;
            messages.push(json!({"role": "assistant", "content": [{"type": "text", "text": a.trajectory.steps[last].raw_output}]}));
            // Assistant turns of the new steps are trained; overlapped ones are context.
            let assistant: Vec<usize> = messages.iter().enumerate().filter(|(_, m)| m["role"] == "assistant").map(|(i, _)| i).collect();
            let trained: Vec<usize> = assistant.into_iter().enumerate().filter(|(j, _)| *j as u32 >= s.first_step).map(|(_, i)| i).collect();
            lines_sft.push(
                json!({"trajectory_id": trajectory_id, "task_id": a.task_id, "window": s.window, "messages": messages, "train_turns": trained}).to_string(),
            );
            lines_samples.push(serde_json::to_string(s)?);
        }
        let instruction = self.instructions.get(&a.task_id).map(String::as_str).unwrap_or("");
        let steps = guigym_rollout::demos::records(a, instruction, prompts);
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        for l in &lines_sft {
            writeln!(files.0, "{l}")?;
        }
        for l in &lines_samples {
            writeln!(files.1, "{l}")?;
        }
        for s in &steps {
            writeln!(files.2, "{}", serde_json::to_string(s)?)?;
        }
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        c.0 += 1;
        c.1 += lines_sft.len();
        c.2 += lines_samples.len();
        Ok(())
    }
}

impl Progress for Sink {
    fn attempt_done(&self, a: &Attempt, prompts: &[Prompt]) {
        self.meter.set_message(a.task_id.clone());
        self.meter.inc(1);
        if !a.verdict.success {
            return;
        }
        if let Err(e) = self.write(a, prompts) {
            self.error.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e.to_string());
        }
    }
    fn attempt_unscored(&self, task_id: &str) {
        self.meter.set_message(task_id.to_string());
        self.meter.inc(1);
    }
    fn wants_prompts(&self) -> bool {
        true
    }
}

pub async fn run(registry: &Registry, args: CollectArgs) -> anyhow::Result<ExitCode> {
    let tokenizer = Tokenizer::load(&locate(args.tokenizer.as_deref())?)?;
    let Prepared { tasks, config, provider, policy, store } = if args.replay.is_empty() {
        args.run.prepare(registry)?
    } else {
        let store = crate::commands::open_store(&args.run.store)?;
        let (benchmark, tasks, name) = replayed_tasks(registry, &store, &args.replay)?;
        let suite = format!("replay of run {}", args.replay.iter().map(i64::to_string).collect::<Vec<_>>().join(", "));
        let mut prepared = args.run.prepare_tasks(registry, &benchmark, &suite, tasks)?;
        prepared.policy = Arc::new(Replay { name, inner: registry.policy("golden", Default::default())? });
        prepared
    };
    std::fs::create_dir_all(args.out.join("images")).with_context(|| format!("creating {}", args.out.display()))?;
    let open = |name: &str| std::fs::File::create(args.out.join(name)).with_context(|| format!("creating {name}"));
    let sink = Arc::new(Sink {
        dir: args.out.clone(),
        tokenizer,
        history: config.harness.history,
        files: Mutex::new((open("sft.jsonl")?, open("samples.jsonl")?, open("steps.jsonl")?)),
        instructions: tasks.iter().map(|t| (t.id.clone(), t.instruction.clone())).collect(),
        counts: Mutex::new((0, 0, 0)),
        error: Mutex::new(None),
        meter: crate::progress::Meter::new("collect", tasks.len() as u64 * config.attempts as u64, false),
    });
    let result = eval(tasks, &config, provider, policy, Some(store), sink.clone()).await;
    sink.meter.finish();
    let (run_id, report) = result.map_err(|e| anyhow::anyhow!("the run stopped: {e}"))?;
    if let Some(e) = sink.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
        anyhow::bail!("writing the collected data: {e}");
    }
    let (kept, sft, samples) = *sink.counts.lock().unwrap_or_else(|p| p.into_inner());
    let summary = json!({
        "run_id": run_id,
        "suite": config.suite,
        "policy": report.policy,
        "harness": config.harness,
        "attempts": report.attempts,
        "unscored": report.unscored,
        "unscored_reasons": report.unscored_reasons,
        "successful_attempts_kept": kept,
        "sft_records": sft,
        "token_samples": samples,
    });
    std::fs::write(args.out.join("summary.json"), serde_json::to_string_pretty(&summary)?)?;
    println!("{}", serde_json::to_string_pretty(&summary)?);
    Ok(crate::commands::unscored_exit(report.unscored, args.run.allow_unscored))
}
