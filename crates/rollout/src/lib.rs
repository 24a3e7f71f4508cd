//! The one rollout path and the workloads built on it.
//!
//! `attempt::run_attempt` is the only loop that drives an agent through a task:
//! reset → (observe → policy → parse → step)* → evaluate. `eval` schedules many attempts in
//! parallel over instances from an `EnvProvider`, re-running infrastructure failures on
//! fresh instances; `validate` checks tasks (0 → 1 → 0 and the walkthrough) with the same
//! function; `store` persists runs, attempts and steps as they happen.

pub mod attempt;
pub mod audit;
pub mod buffer;
pub mod conformance;
pub mod demos;
pub mod eval;
pub mod parquet;
pub mod report;
pub mod rl;
pub mod store;
pub mod train;
pub mod validate;

pub use attempt::{new_trajectory_id, run_attempt, AttemptError, NullRecorder, Recorder};
pub use conformance::check_env;
pub use eval::{eval, EvalConfig, EvalError, Progress};
pub use report::{EvalReport, FamilyReport, TokenTotals, Unscored};
pub use store::Store;
pub use validate::{validate_task, Validation};
