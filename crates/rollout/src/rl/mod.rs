//! Reinforcement-learning arithmetic, as plain tested functions with no framework: group
//! advantages (GRPO, Dr.GRPO, REINFORCE++), DAPO's dynamic sampling, token losses (PPO clip
//! with asymmetric ranges and dual clip, GSPO's sequence ratio), KL estimators, loss
//! aggregation, and policy-adaptive task sampling. Trainers of any framework can mirror them;
//! the built-in trainer calls them directly.

pub mod advantage;
pub mod loss;
pub mod sampling;

pub use advantage::{dapo_keep, dr_grpo, grpo, reinforce_pp, reinforce_pp_baseline};
pub use loss::{aggregate, gspo_ratio, kl, ppo_clip_loss, Aggregation, ClipConfig, KlEstimator};
pub use sampling::{AdaptiveSampler, SamplingConfig, TaskStats};
