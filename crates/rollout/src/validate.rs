//! Execution validation of a task: the verifier scores 0 after reset, 1 after the golden,
//! 0 after reset again, and 1 after the walkthrough is played through the GUI by the golden
//! policy on the one rollout path.

use guigym_core::{Env, TaskSpec};
use guigym_harness::{GoldenPolicy, Harness};
use serde::{Deserialize, Serialize};

use crate::attempt::{run_attempt, AttemptError, NullRecorder};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    pub task_id: String,
    pub family: String,
    pub passed: bool,
    /// The stage that failed (`after_reset`, `after_golden`, `after_second_reset`,
    /// `walkthrough`) and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    pub walkthrough_steps: usize,
}

pub async fn validate_task(env: &mut dyn Env, task: &TaskSpec) -> Result<Validation, AttemptError> {
    let fail = |stage: &str, why: String| Validation {
        task_id: task.id.clone(),
        family: task.family.clone(),
        passed: false,
        failure: Some(format!("{stage}: {why}")),
        walkthrough_steps: task.walkthrough.len(),
    };
    env.reset(task).await?;
    let v = env.evaluate().await?;
    if v.score != 0.0 {
        return Ok(fail("after_reset", "verifier scores 1 before anything was done".into()));
    }
    env.apply_golden().await?;
    let v = env.evaluate().await?;
    if v.score != 1.0 {
        return Ok(fail("after_golden", v.first_failure().unwrap_or_default()));
    }
    env.reset(task).await?;
    let v = env.evaluate().await?;
    if v.score != 0.0 {
        return Ok(fail("after_second_reset", "verifier scores 1 after reset".into()));
    }
    let mut policy = GoldenPolicy::new(task.walkthrough.clone());
    let attempt = run_attempt(env, task, &mut policy, &Harness::default(), 0, &format!("validate:{}", task.id), &mut NullRecorder).await?;
    if !attempt.verdict.success {
        let invalid = attempt.trajectory.steps.iter().find(|s| s.invalid);
        let why = match invalid {
            Some(s) => format!("step {} was invalid: {}", s.index, s.feedback.clone().unwrap_or_default()),
            None => attempt.verdict.first_failure().unwrap_or_default(),
        };
        return Ok(fail("walkthrough", why));
    }
    Ok(Validation { task_id: task.id.clone(), family: task.family.clone(), passed: true, failure: None, walkthrough_steps: task.walkthrough.len() })
}
