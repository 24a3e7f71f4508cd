//! The record of one attempt, step by step.

use serde::{Deserialize, Serialize};

use crate::{Action, Verdict};

/// Tokens of one policy call, as the server reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenUsage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    /// Prompt tokens served from the engine's prefix cache, when the server reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub index: u32,
    /// Content hash of the screenshot the policy saw, when one was rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    /// The screen the policy saw (app/screen).
    pub screen: String,
    /// What the policy returned, verbatim.
    pub raw_output: String,
    /// The action parsed from it; `None` when it could not be parsed.
    pub action: Option<Action>,
    /// The environment's answer to the action (or the parse error).
    pub feedback: Option<String>,
    pub invalid: bool,
    pub policy_ms: f64,
    pub env_ms: f64,
    /// Time the harness spent building the prompt and parsing the reply.
    #[serde(default)]
    pub harness_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// The reply's token ids and log-probabilities, when the server returned them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_ids: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Vec<f32>>,
    /// Which server answered (for sticky-routing checks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The prompt as text (chat template, images as placeholders), for inspection.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Trajectory {
    pub steps: Vec<Step>,
}

/// One finished attempt of one task by one policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    pub task_id: String,
    pub family: String,
    pub attempt_index: u32,
    pub trajectory: Trajectory,
    pub verdict: Verdict,
    /// The agent terminated with `success`.
    pub claimed_success: bool,
    /// Attempts that failed for infrastructure reasons before this one ran through.
    pub infra_retries: u32,
}

impl Attempt {
    /// Terminated with success although the verifier says no.
    pub fn false_complete(&self) -> bool {
        self.claimed_success && !self.verdict.success
    }
}
