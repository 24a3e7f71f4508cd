//! The record of one attempt, step by step.

use serde::{Deserialize, Serialize};

use crate::{Action, Verdict};

/// Tokens of one policy call, as the server reported them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Prompt tokens served from the engine's prefix cache, when the server reports them
    /// (never more than `prompt_tokens`: a report that says otherwise is kept out, see
    /// `anomaly`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    /// What was wrong with the server's usage report, when something was (a count that is
    /// not a whole non-negative number, cached tokens above prompt tokens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anomaly: Option<String>,
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
    /// The weight version the policy server said sampled this reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_version: Option<String>,
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
    /// Opaque and unique across runs, stores and machines: the only name of the attempt a
    /// model server ever sees.
    #[serde(default)]
    pub trajectory_id: String,
    pub task_id: String,
    pub family: String,
    pub attempt_index: u32,
    pub trajectory: Trajectory,
    pub verdict: Verdict,
    /// The agent terminated with `success`.
    pub claimed_success: bool,
    /// Attempts that failed for infrastructure reasons before this one ran through.
    pub infra_retries: u32,
    /// Why the attempt ended before the agent did, when it did (`context_length`: the
    /// prompt outgrew the model's context; the attempt is scored as it stands).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<String>,
}

impl Attempt {
    /// Terminated with success although the verifier says no.
    pub fn false_complete(&self) -> bool {
        self.claimed_success && !self.verdict.success
    }
}
