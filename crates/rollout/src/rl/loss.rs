//! Token losses and KL estimators.

use serde::{Deserialize, Serialize};

/// KL estimators of δ = log π − log π_ref.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KlEstimator {
    /// δ
    K1,
    /// δ² / 2
    K2,
    /// e^(−δ) − 1 + δ: unbiased and never negative.
    K3,
}

pub fn kl(estimator: KlEstimator, logp: f64, logp_ref: f64) -> f64 {
    let d = logp - logp_ref;
    match estimator {
        KlEstimator::K1 => d,
        KlEstimator::K2 => d * d / 2.0,
        KlEstimator::K3 => (-d).exp() - 1.0 + d,
    }
}

/// PPO-style clipping, with DAPO's asymmetric range and an optional dual clip.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClipConfig {
    pub eps_low: f64,
    pub eps_high: f64,
    /// For negative advantages, the loss is capped at −c·A (c = 3 usually); `None` turns it off.
    pub dual_clip: Option<f64>,
}

impl ClipConfig {
    pub const PPO: ClipConfig = ClipConfig { eps_low: 0.2, eps_high: 0.2, dual_clip: Some(3.0) };
    pub const DAPO: ClipConfig = ClipConfig { eps_low: 0.2, eps_high: 0.28, dual_clip: Some(3.0) };
    /// GSPO clips its sequence ratio tightly.
    pub const GSPO: ClipConfig = ClipConfig { eps_low: 3e-4, eps_high: 4e-4, dual_clip: None };
}

/// The clipped surrogate loss of one token (or one sequence, for GSPO):
/// max(−ρA, −clip(ρ, 1−ε_low, 1+ε_high)·A), then min(L, −c·A) when A < 0.
pub fn ppo_clip_loss(ratio: f64, advantage: f64, clip: ClipConfig) -> f64 {
    let clipped = ratio.clamp(1.0 - clip.eps_low, 1.0 + clip.eps_high);
    let loss = (-ratio * advantage).max(-clipped * advantage);
    match clip.dual_clip {
        Some(c) if advantage < 0.0 => loss.min(-c * advantage),
        _ => loss,
    }
}

/// GSPO's sequence ratio: exp of the mean per-token log-ratio over the response.
pub fn gspo_ratio(logp: &[f64], logp_old: &[f64]) -> f64 {
    let n = logp.len().min(logp_old.len());
    if n == 0 {
        return 1.0;
    }
    let mean = logp.iter().zip(logp_old).map(|(a, b)| a - b).sum::<f64>() / n as f64;
    mean.exp()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aggregation {
    /// Every token of the batch weighs the same (DAPO, MAI-Gym's per-token loss).
    TokenMean,
    /// Each sequence's tokens are averaged, then sequences (GRPO's original).
    SequenceMean,
}

/// Aggregates per-token losses of several sequences, counting only tokens whose mask is set.
pub fn aggregate(losses: &[Vec<f64>], masks: &[Vec<bool>], how: Aggregation) -> f64 {
    let seqs = losses.iter().zip(masks).map(|(l, m)| l.iter().zip(m).filter(|(_, k)| **k).map(|(v, _)| *v).collect::<Vec<f64>>());
    match how {
        Aggregation::TokenMean => {
            let all: Vec<f64> = seqs.flatten().collect();
            if all.is_empty() {
                0.0
            } else {
                all.iter().sum::<f64>() / all.len() as f64
            }
        }
        Aggregation::SequenceMean => {
            let means: Vec<f64> = seqs.filter(|s| !s.is_empty()).map(|s| s.iter().sum::<f64>() / s.len() as f64).collect();
            if means.is_empty() {
                0.0
            } else {
                means.iter().sum::<f64>() / means.len() as f64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn kl_estimators_match_their_test_vector() {
        assert!(close(kl(KlEstimator::K1, 0.2, 0.0), 0.2));
        assert!(close(kl(KlEstimator::K2, 0.2, 0.0), 0.02));
        assert!(close(kl(KlEstimator::K3, 0.2, 0.0), 0.0187308));
        assert!(kl(KlEstimator::K3, -1.0, 0.5) >= 0.0);
    }

    #[test]
    fn clipping_follows_its_test_vector() {
        // ρ = e^0.5, A = 1, ε_high = 0.28: the clipped term wins, L = −1.28.
        assert!(close(ppo_clip_loss(0.5f64.exp(), 1.0, ClipConfig::DAPO), -1.28));
        // Inside the range the plain surrogate is used.
        assert!(close(ppo_clip_loss(1.1, 1.0, ClipConfig::DAPO), -1.1));
        // Dual clip: a huge ratio with a negative advantage is capped at −c·A = 3.
        assert!(close(ppo_clip_loss(10.0, -1.0, ClipConfig::DAPO), 3.0));
        assert!(close(ppo_clip_loss(10.0, -1.0, ClipConfig { dual_clip: None, ..ClipConfig::DAPO }), 10.0));
    }

    #[test]
    fn gspo_ratio_is_the_geometric_mean_ratio() {
        assert!(close(gspo_ratio(&[-1.0, -2.0], &[-1.5, -2.5]), 0.5f64.exp()));
        assert!(close(gspo_ratio(&[], &[]), 1.0));
    }

    #[test]
    fn aggregation_by_token_or_by_sequence() {
        let losses = vec![vec![1.0, 1.0, 1.0, 1.0], vec![3.0, 9.0]];
        let masks = vec![vec![true, true, true, true], vec![true, false]];
        assert!(close(aggregate(&losses, &masks, Aggregation::TokenMean), 7.0 / 5.0));
        assert!(close(aggregate(&losses, &masks, Aggregation::SequenceMean), 2.0));
    }
}
