//! The harness: the glue between a policy and an environment. It decides what a policy is
//! shown, calls it, and parses its output into a canonical action. Evaluation, collection and
//! training all run this same harness through the same rollout function.
//!
//! Invariant: the harness knows nothing about backends; it sees `Observation`s and emits
//! `Action`s. Output that cannot be parsed is the agent's mistake and becomes an
//! invalid-action step, never an error.

pub mod codec;
pub mod policies;
pub mod policy;

pub use codec::{parse_canonical, Codec};
pub use policies::{GoldenPolicy, PolicyKind, RandomPolicy};
pub use policy::{Policy, PolicyError, PolicyFactory, PolicyInput, PolicyOutput, Usage};

use guigym_core::{Action, InvalidAction};
use serde::{Deserialize, Serialize};

/// Everything that shapes what a model sees and how its answer is read. Recorded with every
/// run, so a score names the harness that produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessConfig {
    pub version: u32,
    pub codec: Codec,
    /// Render a screenshot for every step.
    pub screenshots: bool,
}

impl Default for HarnessConfig {
    fn default() -> HarnessConfig {
        HarnessConfig { version: 1, codec: Codec::Canonical, screenshots: false }
    }
}

/// The harness for one run.
#[derive(Debug, Clone, Default)]
pub struct Harness {
    pub config: HarnessConfig,
}

impl Harness {
    pub fn new(config: HarnessConfig) -> Harness {
        Harness { config }
    }

    /// Parses a policy's raw output into an action.
    pub fn parse(&self, raw: &str) -> Result<Action, InvalidAction> {
        self.config.codec.parse(raw)
    }
}
