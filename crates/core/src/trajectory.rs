//! The record of one attempt, step by step.

use serde::{Deserialize, Serialize};

use crate::{Action, Verdict};

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
