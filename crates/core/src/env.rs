//! The `Env` trait: the five operations every backend (and the manager's client) speaks.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::{Action, EnvError, Observation, TaskSpec, Verdict};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ObserveOptions {
    /// Render a PNG screenshot (costly; off unless asked for).
    pub screenshot: bool,
}

/// What one step did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepOutcome {
    /// Human-readable result of the action; for an invalid action, why.
    pub feedback: String,
    /// The action could not be applied (the agent's doing, not an error).
    pub invalid: bool,
    /// The episode ended (the agent terminated, or `broken`).
    pub done: bool,
    /// The agent's doing left the instance unable to go on, and why: a program of its own that
    /// holds the display, a page script that never returns, memory past the instance's budget.
    /// The episode ends there and is judged (it fails), never re-run as an infrastructure
    /// failure: otherwise an agent could take its failures out of the count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broken: Option<String>,
}

impl StepOutcome {
    /// The action was applied.
    pub fn ok(feedback: impl Into<String>) -> StepOutcome {
        StepOutcome { feedback: feedback.into(), invalid: false, done: false, broken: None }
    }

    /// The action could not be applied; `why` is the agent's feedback.
    pub fn invalid(why: impl Into<String>) -> StepOutcome {
        StepOutcome { feedback: why.into(), invalid: true, done: false, broken: None }
    }

    /// The action was applied and ended the episode (`terminate`).
    pub fn done(feedback: impl Into<String>) -> StepOutcome {
        StepOutcome { feedback: feedback.into(), invalid: false, done: true, broken: None }
    }

    /// The episode ended because the agent broke the instance (see `broken`).
    pub fn broken(why: impl Into<String>) -> StepOutcome {
        let why = why.into();
        StepOutcome { feedback: why.clone(), invalid: true, done: true, broken: Some(why) }
    }
}

/// One resettable device. Invalid actions come back as `StepOutcome { invalid: true }`;
/// `Err` is reserved for infrastructure failures and bad tasks.
#[async_trait]
pub trait Env: Send {
    /// How long an operation may take, at most, when the agent's doing stalled the instance,
    /// before the backend itself notices and ends the episode (`StepOutcome::broken`). A
    /// deadline on operations must be longer (the manager's workers make theirs so): a shorter
    /// one would make the agent's stall an infrastructure failure.
    fn stall_bound(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }
    /// Put the instance into the task's initial state, exactly: the same task gives the same
    /// state hash on any instance, every time.
    async fn reset(&mut self, task: &TaskSpec) -> Result<Observation, EnvError>;
    async fn observe(&mut self, options: ObserveOptions) -> Result<Observation, EnvError>;
    async fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError>;
    /// Run the task's verifier on the current state and the actions taken since reset.
    async fn evaluate(&mut self) -> Result<Verdict, EnvError>;
    /// Hash of the full instance state, for checking exact resets and idempotency.
    async fn state_hash(&mut self) -> Result<String, EnvError>;
    /// Put the instance straight into the task's completed state (execution validation).
    /// Backends that cannot do it say so as a bad task.
    async fn apply_golden(&mut self) -> Result<(), EnvError> {
        Err(EnvError::BadTask("this backend cannot apply goldens".into()))
    }
    /// Gives the instance back (a remote lease ends); the instance is not used afterwards.
    async fn release(&mut self) -> Result<(), EnvError> {
        Ok(())
    }
}

/// Makes fresh instances: the rollout path asks for a new one after an infrastructure
/// failure, so a broken instance is never reused.
#[async_trait]
pub trait EnvProvider: Send + Sync {
    /// The backend's name (`sim`, `web`…), reported with results.
    fn backend(&self) -> String;
    async fn create(&self) -> Result<Box<dyn Env>, EnvError>;
}
