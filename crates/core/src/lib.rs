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
pub mod pycall;
pub mod rng;
pub mod screenshot;
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

/// A file's bytes, or `None` when it holds more than `max`: a settings or key file is small,
/// and whatever the path names (a device such as `/dev/zero`) is read no further than that.
pub fn read_at_most(path: &std::path::Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(max + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

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

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_is_read_only_up_to_its_limit() {
        let path = std::env::temp_dir().join(format!("guigym-read-at-most-{}", std::process::id()));
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(super::read_at_most(&path, 5).unwrap().as_deref(), Some(&b"12345"[..]));
        assert_eq!(super::read_at_most(&path, 4).unwrap(), None);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(super::read_at_most(&path, 5).unwrap_err().kind(), std::io::ErrorKind::NotFound);
        // A device without end is read no further than the limit.
        assert_eq!(super::read_at_most(std::path::Path::new("/dev/zero"), 1024).unwrap(), None);
    }
}
