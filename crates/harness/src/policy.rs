//! The `Policy` trait: what decides the next action.

use async_trait::async_trait;
use guigym_core::{Observation, Step, TaskSpec};
use serde::{Deserialize, Serialize};

use crate::prompt::Prompt;

/// What a policy is shown for one decision.
pub struct PolicyInput<'a> {
    /// The task's instruction: the only part of the task a policy sees.
    pub instruction: &'a str,
    pub observation: &'a Observation,
    /// The messages the harness built for this step.
    pub prompt: &'a Prompt,
    /// Earlier steps of this attempt.
    pub history: &'a [Step],
    /// Stable for the attempt's whole life: routes every request to the same engine.
    pub trajectory_id: &'a str,
}

/// Tokens of one call, as the server reported them.
pub type Usage = guigym_core::TokenUsage;

/// Token ids and log-probabilities, when the server returns them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TokenData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_ids: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_ids: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Vec<f32>>,
    /// The weight version the server says sampled this reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_version: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicyOutput {
    /// The raw text, as the policy produced it.
    pub raw: String,
    pub usage: Option<Usage>,
    pub tokens: Option<TokenData>,
    /// Which server answered.
    pub endpoint: Option<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The policy's server is down, overloaded or timed out, after retries: not the agent's
    /// failure.
    #[error("policy unavailable: {0}")]
    Unavailable(String),
    /// The server refused the request (4xx other than 408 and 429: a wrong model name, a
    /// bad key, a malformed field). No attempt can succeed, so the run stops; not the agent's.
    #[error("the policy's server refused the request: {0}")]
    Config(String),
    /// The prompt no longer fits the model's context. The agent's own doing: the attempt
    /// ends and is scored as it stands.
    #[error("the prompt exceeds the model's context: {0}")]
    ContextLength(String),
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
    /// A description of the policy's settings, stored with runs.
    fn describe(&self) -> serde_json::Value {
        serde_json::json!({ "name": self.name() })
    }
    /// What the policy knows of its servers' health after a run (endpoints marked down,
    /// failovers), for the report; `null` when there is nothing to say.
    fn health(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}
