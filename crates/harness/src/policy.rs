//! The `Policy` trait: what decides the next action.

use async_trait::async_trait;
use guigym_core::{Observation, Step, TaskSpec};
use serde::{Deserialize, Serialize};

/// What a policy is shown for one decision.
pub struct PolicyInput<'a> {
    /// The task's instruction: the only part of the task a policy sees.
    pub instruction: &'a str,
    pub observation: &'a Observation,
    /// Earlier steps of this attempt.
    pub history: &'a [Step],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub cached_tokens: u32,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicyOutput {
    /// The raw text, as the policy produced it.
    pub raw: String,
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The policy's server is down or timed out: not the agent's failure.
    #[error("policy unavailable: {0}")]
    Unavailable(String),
}

#[async_trait]
pub trait Policy: Send {
    async fn act(&mut self, input: &PolicyInput<'_>) -> Result<PolicyOutput, PolicyError>;
}

/// Makes one policy per attempt, so attempts never share hidden state.
pub trait PolicyFactory: Send + Sync {
    /// The name reported with results (`golden`, `random`, a model name).
    fn name(&self) -> String;
    fn for_attempt(&self, task: &TaskSpec, attempt: u32) -> Box<dyn Policy>;
}
