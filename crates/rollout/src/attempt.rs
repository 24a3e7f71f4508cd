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
            AttemptError::Policy(_) => true,
        }
    }
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

/// Runs one attempt. Unparseable output and invalid actions are steps with feedback; only
/// infrastructure failures return `Err`. `trajectory_id` names the attempt for the policy's
/// routing.
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
    for index in 0..task.step_budget {
        let env_start = Instant::now();
        let mut observation = env.observe(options).await?;
        let observe_ms = ms(env_start);
        if let Some(f) = parse_feedback.take() {
            observation.feedback = Some(f);
        }
        let harness_start = Instant::now();
        let prompt = episode.prompt(&observation);
        let mut harness_ms = ms(harness_start);
        let policy_start = Instant::now();
        let input = PolicyInput {
            instruction: &task.instruction,
            observation: &observation,
            prompt: &prompt,
            history: &trajectory.steps,
            trajectory_id,
        };
        let output = policy.act(&input).await?;
        let policy_ms = ms(policy_start);
        let parse_start = Instant::now();
        let parsed = episode.parse(&output.raw, &observation, &prompt);
        episode.record(&output.raw);
        harness_ms += ms(parse_start);
        let screenshot_hash = observation.screenshot.as_ref().map(|s| guigym_core::sha256_hex(&s.png));
        let (action, feedback, invalid, done, step_ms) = match parsed {
            Ok(action) => {
                let t = Instant::now();
                let outcome = env.step(&action).await?;
                if let Action::Terminate { status: TerminateStatus::Success } = action {
                    claimed_success = !outcome.invalid;
                }
                (Some(action), Some(outcome.feedback), outcome.invalid, outcome.done, ms(t))
            }
            Err(e) => {
                let message = format!("invalid action: {}", e.message);
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
            endpoint: output.endpoint,
            prompt: prompt.render_text(),
        };
        recorder.step(&step, observation.screenshot.as_ref().map(|s| s.png.as_slice()));
        recorder.prompt(&prompt, &observation);
        trajectory.steps.push(step);
        if done {
            break;
        }
    }
    let verdict = env.evaluate().await?;
    Ok(Attempt {
        task_id: task.id.clone(),
        family: task.family.clone(),
        attempt_index,
        trajectory,
        verdict,
        claimed_success,
        infra_retries: 0,
    })
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}
