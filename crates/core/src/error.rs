//! Errors that separate the agent's mistakes from the infrastructure's.

use serde::{Deserialize, Serialize};

/// An action the environment cannot apply (off-screen tap, unknown element, malformed
/// text). It is the agent's doing: it becomes feedback in the next observation, never an
/// error of the operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("invalid action: {message}")]
pub struct InvalidAction {
    pub message: String,
}

impl InvalidAction {
    pub fn new(message: impl Into<String>) -> InvalidAction {
        InvalidAction { message: message.into() }
    }
}

/// Why an environment operation failed. None of these is the agent's fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[non_exhaustive]
pub enum EnvError {
    /// The backend, the worker or the transport failed (crash, missed deadline, lost
    /// worker). The attempt is re-run elsewhere and never scored.
    #[error("infrastructure failure: {0}")]
    Infra(String),
    /// The task cannot be set up on this backend (unknown family, bad parameters).
    #[error("bad task: {0}")]
    BadTask(String),
    /// An operation that needs a reset came first.
    #[error("reset needed before {0}")]
    ResetNeeded(String),
    /// The environment service refused our credentials (HTTP 401/403): no retry can help,
    /// the run stops.
    #[error("not allowed: {0}")]
    Denied(String),
    /// No instance is free right now (HTTP 503): wait and ask again; no attempt is used up.
    #[error("no capacity: {message}")]
    NoCapacity {
        message: String,
        /// What the service asked us to wait (`Retry-After`), when it said.
        retry_after_ms: Option<u64>,
    },
}

impl EnvError {
    /// Whether re-running the attempt on another instance may succeed.
    pub fn is_infra(&self) -> bool {
        matches!(self, EnvError::Infra(_))
    }
}
