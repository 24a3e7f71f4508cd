//! A task: an instruction bound to a world, with hidden parameters for its verifier and a
//! walkthrough. Tasks are plain data so any backend, or a remote worker, can set them up.

use serde::{Deserialize, Serialize};

use crate::Action;

fn phone() -> String {
    "phone".into()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    /// Stable id, `family/seed`, e.g. `messages.send/3`.
    pub id: String,
    /// The benchmark the task belongs to (`phone`, `miniwob`, …): which backends can host it
    /// and how it is set up and judged.
    #[serde(default = "phone")]
    pub benchmark: String,
    pub family: String,
    /// What the agent is told. The only field a policy ever sees.
    pub instruction: String,
    /// Apps the task involves, in the order they are used.
    pub apps: Vec<String>,
    /// The world the task lives in.
    pub world_seed: u64,
    /// Steps an attempt may take before it is cut off.
    pub step_budget: u32,
    /// Difficulty: the walkthrough's length in steps.
    pub difficulty: u32,
    /// Hidden answer context and family parameters, read by setup, verifier and golden.
    /// Never shown to a policy.
    pub params: serde_json::Value,
    /// The GUI action path a person would take; played by the scripted `golden` policy.
    /// Never shown to a learning policy.
    pub walkthrough: Vec<Action>,
}

impl TaskSpec {
    /// The walkthrough without its final `terminate`, and that status.
    pub fn walkthrough_body(&self) -> (Vec<Action>, Option<crate::TerminateStatus>) {
        let mut w = self.walkthrough.clone();
        match w.last() {
            Some(Action::Terminate { status }) => {
                let s = *status;
                w.pop();
                (w, Some(s))
            }
            _ => (w, None),
        }
    }
}
