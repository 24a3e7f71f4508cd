//! Demonstrations: the steps of successful attempts as (instruction, observation, action)
//! records, one JSON line each. `guigym collect` writes them to `steps.jsonl` beside its chat
//! and token data; learners that read screens rather than pixels (the built-in one) warm up
//! from them.

use std::path::Path;

use guigym_core::{Action, Attempt, Observation};
use guigym_harness::Prompt;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub trajectory_id: String,
    pub task_id: String,
    pub instruction: String,
    pub step: u32,
    /// What the policy was shown (no screenshot), coordinates in screen pixels.
    pub observation: Observation,
    /// What it did, in screen pixels.
    pub action: Action,
}

/// The records of one attempt: each step whose reply parsed, in order (prompts recorded by
/// `eval` for a sink that wants them carry their observation).
pub fn records(a: &Attempt, instruction: &str, prompts: &[Prompt]) -> Vec<StepRecord> {
    let trajectory_id = format!("{}:{}", a.task_id, a.attempt_index);
    a.trajectory
        .steps
        .iter()
        .zip(prompts)
        .filter_map(|(s, p)| {
            Some(StepRecord {
                trajectory_id: trajectory_id.clone(),
                task_id: a.task_id.clone(),
                instruction: instruction.to_string(),
                step: s.index,
                observation: p.observation.clone()?,
                action: s.action.clone()?,
            })
        })
        .collect()
}

/// Reads a `steps.jsonl`; a bad line names the file and the line.
pub fn read(path: &Path) -> Result<Vec<StepRecord>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1)))
        .collect()
}
