//! The harness: the glue between a policy and an environment. It decides what a policy is
//! shown (`Episode::prompt`: system prompt, instruction, history, observation), calls it, and
//! parses its output into a canonical action in screenshot pixels (`Episode::parse`).
//! Evaluation, collection and training all run this same harness through the same rollout
//! function.
//!
//! Invariant: the harness knows nothing about backends; it sees `Observation`s and emits
//! `Action`s. Output that cannot be parsed is the agent's mistake and becomes an
//! invalid-action step, never an error.

pub mod accounting;
pub mod codec;
pub mod config;
pub mod egress;
pub mod image;
pub mod openai;
pub mod packing;
pub mod policies;
pub mod policy;
pub mod prefix;
pub mod prompt;
pub mod tokenizer;

pub use codec::Codec;
pub use config::{CoordinateSpace, HarnessConfig, HistoryPolicy, ImagePolicy, ObservationMode};
pub use policies::{GoldenPolicy, PolicyKind, RandomPolicy};
pub use policy::{Policy, PolicyError, PolicyFactory, PolicyInput, PolicyOutput, TokenData, Usage};
pub use prompt::{Episode, Message, Part, Prompt, Role};

use std::sync::Arc;

use guigym_core::TaskSpec;

/// The harness for one run: a resolved config, shared by every attempt.
#[derive(Debug, Clone, Default)]
pub struct Harness {
    pub config: Arc<HarnessConfig>,
}

impl Harness {
    pub fn new(config: HarnessConfig) -> Harness {
        Harness { config: Arc::new(config) }
    }

    /// A fresh conversation for one attempt of a task.
    pub fn episode(&self, task: &TaskSpec) -> Episode {
        Episode::new(self.config.clone(), &task.instruction)
    }
}
