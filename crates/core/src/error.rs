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

/// The wait a `Retry-After` header asks for, in milliseconds: seconds as a number (an HTTP date
/// is not honoured), at most a minute so a bad header cannot stall a run.
pub fn retry_after_ms(header: Option<&str>) -> Option<u64> {
    let seconds = header?.trim().parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0)?;
    Some((seconds.min(60.0) * 1000.0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_read_and_bounded() {
        assert_eq!(retry_after_ms(Some(" 2 ")), Some(2000));
        assert_eq!(retry_after_ms(Some("0.5")), Some(500));
        assert_eq!(retry_after_ms(Some("100000")), Some(60_000));
        assert_eq!(retry_after_ms(Some("-1")), None);
        assert_eq!(retry_after_ms(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(retry_after_ms(None), None);
    }
}
