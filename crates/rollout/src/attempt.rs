//! The one rollout function: one attempt of one task by one policy on one instance.

use std::time::Instant;

use guigym_core::{Action, Attempt, Env, EnvError, Observation, ObserveOptions, Step, TaskSpec, TerminateStatus, Trajectory};
use guigym_harness::{Harness, Policy, PolicyError, PolicyInput, Prompt};

/// Why an attempt could not run through. Never the agent's failure: the caller re-runs it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AttemptError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Policy(#[from] PolicyError),
}

impl AttemptError {
    /// Whether another instance (or another try of the policy) may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            AttemptError::Env(e) => e.is_infra(),
            AttemptError::Policy(e) => matches!(e, PolicyError::Unavailable(_)),
        }
    }
}

/// A fresh trajectory id: 128 random bits from the operating system, as hex. It is the only
/// name of an attempt that leaves the process (routing headers, session ids), so it says
/// nothing about the task, the suite, the run or the store; the store maps it back.
pub fn new_trajectory_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness (never seen on Linux): fall back to a hash of time and a counter,
        // still unrelated to the task.
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let seed = format!("{nanos}:{}:{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
        let hash = guigym_core::sha256_hex(seed.as_bytes());
        return hash[..32].to_string();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `Attempt::ended_by` when the prompt outgrew the model's context.
pub const CONTEXT_LENGTH: &str = "context_length";

/// `Attempt::ended_by` when the agent's doing broke its instance (`StepOutcome::broken`): the
/// attempt fails, with the reason as the failed check `INTACT`; it is never re-run.
pub const BROKEN: &str = "instance_broken";
pub const INTACT: &str = "instance_intact";

/// Feedback the model reads back is cut to this many characters: an agent's own overlong
/// input must not flood its next prompt.
pub const MAX_FEEDBACK_CHARS: usize = 500;

fn bounded(text: String) -> String {
    if text.chars().count() <= MAX_FEEDBACK_CHARS {
        return text;
    }
    let cut: String = text.chars().take(MAX_FEEDBACK_CHARS).collect();
    format!("{cut}… (cut)")
}

/// Receives each step as it happens (the store writes it at once).
pub trait Recorder: Send {
    fn step(&mut self, step: &Step, screenshot_png: Option<&[u8]>);
    /// The prompt the policy saw at a step and the observation it showed (for collection and
    /// training).
    fn prompt(&mut self, _prompt: &Prompt, _observation: &Observation) {}
}

pub struct NullRecorder;

impl Recorder for NullRecorder {
    fn step(&mut self, _step: &Step, _png: Option<&[u8]>) {}
}

/// Runs one attempt. Unparseable output and invalid actions are steps with feedback; a
/// prompt over the model's context ends the attempt, which is then scored as it stands. Only
/// infrastructure and configuration failures return `Err`. `trajectory_id` names the attempt
/// for the policy's routing and must be opaque (see `new_trajectory_id`).
#[allow(clippy::too_many_arguments)]
pub async fn run_attempt(
    env: &mut dyn Env,
    task: &TaskSpec,
    policy: &mut dyn Policy,
    harness: &Harness,
    attempt_index: u32,
    trajectory_id: &str,
    recorder: &mut dyn Recorder,
) -> Result<Attempt, AttemptError> {
    env.reset(task).await?;
    let mut episode = harness.episode(task);
    let mut trajectory = Trajectory::default();
    let mut claimed_success = false;
    // The harness's own feedback (a parse error) replaces the environment's for the next step.
    let mut parse_feedback: Option<String> = None;
    let options = ObserveOptions { screenshot: harness.config.observation.screenshots() };
    let mut ended_by = None;
    // How the agent broke its instance, when it did.
    let mut broken: Option<String> = None;
    for index in 0..task.step_budget {
        let env_start = Instant::now();
        let mut observation = env.observe(options).await?;
        let observe_ms = ms(env_start);
        if observation.broken.is_some() {
            broken = observation.broken.take();
            break;
        }
        if let Some(f) = parse_feedback.take() {
            observation.feedback = Some(f);
        }
        observation.feedback = observation.feedback.take().map(bounded);
        let harness_start = Instant::now();
        let prompt = episode.prompt(&observation);
        // The prompt holds its image; while the model answers keep the screenshot's PNG, not the
        // pixels a painted screen comes with (10 MB each, times every attempt in flight).
        observation.screenshot = observation.screenshot.take().map(guigym_core::Screenshot::into_png);
        let mut harness_ms = ms(harness_start);
        let policy_start = Instant::now();
        let input = PolicyInput { instruction: &task.instruction, observation: &observation, prompt: &prompt, history: &trajectory.steps, trajectory_id };
        let output = match policy.act(&input).await {
            Ok(output) => output,
            // The episode outgrew the model: the agent's run ends here and is judged as is.
            Err(PolicyError::ContextLength(_)) => {
                ended_by = Some(CONTEXT_LENGTH.to_string());
                break;
            }
            Err(e) => return Err(e.into()),
        };
        let policy_ms = ms(policy_start);
        let parse_start = Instant::now();
        let parsed = episode.parse(&output.raw, &observation, &prompt);
        episode.record(&output.raw);
        harness_ms += ms(parse_start);
        let screenshot_hash = observation.screenshot.as_ref().map(|s| s.sha256().to_string());
        let (action, feedback, invalid, done, step_ms) = match parsed {
            Ok(action) => {
                let t = Instant::now();
                let outcome = env.step(&action).await?;
                if let Action::Terminate { status: TerminateStatus::Success } = action {
                    claimed_success = !outcome.invalid;
                }
                if outcome.broken.is_some() {
                    broken = outcome.broken.clone();
                }
                (Some(action), Some(bounded(outcome.feedback)), outcome.invalid, outcome.done, ms(t))
            }
            Err(e) => {
                let message = bounded(guigym_core::episode::invalid_feedback(&e.message));
                parse_feedback = Some(message.clone());
                (None, Some(message), true, false, 0.0)
            }
        };
        let tokens = output.tokens.unwrap_or_default();
        let step = Step {
            index,
            screenshot: screenshot_hash,
            screen: observation.screen.clone(),
            raw_output: output.raw,
            action,
            feedback,
            invalid,
            policy_ms,
            env_ms: observe_ms + step_ms,
            harness_ms,
            usage: output.usage,
            completion_ids: tokens.completion_ids,
            logprobs: tokens.logprobs,
            weight_version: tokens.weight_version,
            endpoint: output.endpoint,
            prompt: prompt.render_text(),
        };
        recorder.step(&step, observation.screenshot.as_ref().map(|s| s.png()));
        recorder.prompt(&prompt, &observation);
        trajectory.steps.push(step);
        if done {
            break;
        }
    }
    let mut verdict = env.evaluate().await?;
    if let Some(why) = broken {
        ended_by = Some(BROKEN.to_string());
        verdict = verdict.with_failed_check(INTACT, why);
    }
    Ok(Attempt {
        trajectory_id: trajectory_id.to_string(),
        task_id: task.id.clone(),
        family: task.family.clone(),
        attempt_index,
        trajectory,
        verdict,
        claimed_success,
        infra_retries: 0,
        ended_by,
    })
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}
