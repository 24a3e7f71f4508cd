//! Group advantages: each attempt's reward against the other attempts of its task.

/// GRPO: (r − mean) / (std + 1e-6), with the unbiased std (n − 1). A group of one has no
/// spread and gets zero advantages.
pub fn grpo(rewards: &[f64]) -> Vec<f64> {
    let n = rewards.len();
    if n < 2 {
        return vec![0.0; n];
    }
    let mean = rewards.iter().sum::<f64>() / n as f64;
    let var = rewards.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let std = var.sqrt();
    rewards.iter().map(|r| (r - mean) / (std + 1e-6)).collect()
}

/// Dr.GRPO: the group mean is subtracted, the std is not divided out.
pub fn dr_grpo(rewards: &[f64]) -> Vec<f64> {
    let n = rewards.len().max(1) as f64;
    let mean = rewards.iter().sum::<f64>() / n;
    rewards.iter().map(|r| r - mean).collect()
}

/// DAPO's dynamic sampling: a group whose rewards do not vary (std ≤ 1e-6) carries no signal
/// and is dropped.
pub fn dapo_keep(rewards: &[f64]) -> bool {
    let n = rewards.len();
    if n < 2 {
        return false;
    }
    let mean = rewards.iter().sum::<f64>() / n as f64;
    let var = rewards.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n as f64;
    var.sqrt() > 1e-6
}

/// REINFORCE++: per-token rewards are −β·KL_t, with the outcome added at the last response
/// token; returns G_t = r_t + γ·G_{t+1}; then whitened over every token of the batch.
/// `kls[i][t]` is sequence i's per-token KL; `outcomes[i]` its reward.
pub fn reinforce_pp(outcomes: &[f64], kls: &[Vec<f64>], beta: f64, gamma: f64) -> Vec<Vec<f64>> {
    let returns: Vec<Vec<f64>> = outcomes
        .iter()
        .zip(kls)
        .map(|(outcome, kl)| {
            let mut g = 0.0;
            let mut out = vec![0.0; kl.len()];
            for t in (0..kl.len()).rev() {
                let mut r = -beta * kl[t];
                if t + 1 == kl.len() {
                    r += outcome;
                }
                g = r + gamma * g;
                out[t] = g;
            }
            out
        })
        .collect();
    whiten(returns)
}

/// REINFORCE++ with a group baseline: outcomes minus their group's mean first.
pub fn reinforce_pp_baseline(groups: &[Vec<f64>], kls: &[Vec<Vec<f64>>], beta: f64, gamma: f64) -> Vec<Vec<Vec<f64>>> {
    let centred: Vec<Vec<f64>> = groups.iter().map(|g| dr_grpo(g)).collect();
    let flat_outcomes: Vec<f64> = centred.iter().flatten().copied().collect();
    let flat_kls: Vec<Vec<f64>> = kls.iter().flatten().cloned().collect();
    let mut flat = reinforce_pp(&flat_outcomes, &flat_kls, beta, gamma).into_iter();
    groups.iter().map(|g| (0..g.len()).filter_map(|_| flat.next()).collect()).collect()
}

/// Zero mean, unit variance over every value of every sequence.
fn whiten(values: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let all: Vec<f64> = values.iter().flatten().copied().collect();
    let n = all.len().max(1) as f64;
    let mean = all.iter().sum::<f64>() / n;
    let std = (all.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
    values.into_iter().map(|s| s.into_iter().map(|v| (v - mean) / (std + 1e-8)).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn grpo_uses_the_unbiased_std() {
        let a = grpo(&[1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
        assert!(close(a[0], 1.2076124), "{}", a[0]);
        assert!(close(a[1], -0.7245674), "{}", a[1]);
        // The population std would give 1.29099 and −0.77460: not what GRPO does.
        assert!(!close(a[0], 1.29099));
    }

    #[test]
    fn dr_grpo_only_centres() {
        assert_eq!(dr_grpo(&[1.0, 0.0, 0.0, 1.0]), vec![0.5, -0.5, -0.5, 0.5]);
    }

    #[test]
    fn reinforce_pp_discounts_then_whitens() {
        // One sequence of 3 tokens, no KL: returns 1·γ², 1·γ, 1, then whitened.
        let a = reinforce_pp(&[1.0], &[vec![0.0, 0.0, 0.0]], 0.1, 0.5);
        let raw = [0.25, 0.5, 1.0];
        let mean = raw.iter().sum::<f64>() / 3.0;
        let std = (raw.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
        for (got, r) in a[0].iter().zip(raw) {
            assert!(close(*got, (r - mean) / std));
        }
        // KL lowers the returns of the tokens before it.
        let with_kl = reinforce_pp(&[1.0, 1.0], &[vec![0.0, 0.0], vec![5.0, 0.0]], 0.1, 1.0);
        assert!(with_kl[1][0] < with_kl[0][0]);
        let b = reinforce_pp_baseline(&[vec![1.0, 0.0]], &[vec![vec![0.0], vec![0.0]]], 0.0, 1.0);
        assert!(b[0][0][0] > 0.0 && b[0][1][0] < 0.0);
    }

    proptest! {
        #[test]
        fn grpo_advantages_of_a_group_sum_to_zero(rewards in prop::collection::vec(0.0f64..1.0, 2..16)) {
            let sum: f64 = grpo(&rewards).iter().sum();
            prop_assert!(sum.abs() < 1e-6, "{}", sum);
        }

        #[test]
        fn equal_rewards_give_zero_advantage_and_are_dropped(r in 0.0f64..1.0, n in 2usize..16) {
            let rewards = vec![r; n];
            prop_assert!(grpo(&rewards).iter().all(|a| a.abs() < 1e-9));
            prop_assert!(!dapo_keep(&rewards));
        }
    }
}
