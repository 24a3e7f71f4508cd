//! The vocabulary of guigym: actions, observations, tasks, verdicts, trajectories and the
//! `Env` trait that every backend implements.
//!
//! Invariant: this crate does no IO and depends on no other crate of ours. Every type here is
//! plain data with public fields, serializable as JSON, so any layer (and any wire) can carry it.

pub mod action;
pub mod benchmark;
pub mod env;
pub mod episode;
pub mod error;
pub mod observation;
pub mod platform;
pub mod rng;
pub mod task;
pub mod trajectory;
pub mod verdict;

pub use action::{Action, Direction, Point, TerminateStatus};
pub use benchmark::{AuditCase, Benchmark, Catalogue, Hosted};
pub use env::{Env, EnvProvider, ObserveOptions, StepOutcome};
pub use episode::{Episode, EpisodeLog};
pub use error::{retry_after_ms, EnvError, InvalidAction};
pub use observation::{Bounds, Observation, Screenshot, UiNode};
pub use platform::{Platform, Screen};
pub use rng::Rng;
pub use task::TaskSpec;
pub use trajectory::{Attempt, Step, TokenUsage, Trajectory};
pub use verdict::{Check, Verdict};

/// Hex SHA-256 of bytes: the one hash used for state hashes and content-addressed blobs.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}
