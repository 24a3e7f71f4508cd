//! The layouts trainers read: slime's `Sample` and verl's `AgentLoopOutput`, as JSON values
//! built from guigym's own sample records (the Parquet exporter takes its columns from these).

use guigym_harness::packing::Sample;
use serde_json::{json, Value};

/// Where an image lives, relative to an export folder (`guigym collect`'s and `guigym train`'s
/// outputs keep screenshots in `images/`) or to a buffer (`GET /v1/images/{hash}`).
pub fn image_ref(hash: &str) -> String {
    format!("images/{hash}.png")
}

/// How many chat turns (user and assistant, the task message included) lead to a sample's
/// last reply: the task, then an observation and a reply per step.
fn num_turns(s: &Sample) -> u32 {
    1 + 2 * (s.last_step + 1)
}

/// slime's `Sample` (`slime.utils.types.Sample`): `tokens` are prompt + response, `loss_mask`
/// and `rollout_log_probs` cover the response; `group_index` is an int (the samples of one
/// prompt's attempts share it) and `weight_versions` a list of strings.
pub fn to_slime(s: &Sample, index: usize, group_index: usize) -> Value {
    let mut tokens = s.prompt_ids.clone();
    tokens.extend(&s.response_ids);
    json!({
        "group_index": group_index,
        "index": index,
        "prompt": "",
        "tokens": tokens,
        "response": "",
        "response_length": s.response_ids.len(),
        "label": null,
        "reward": s.reward,
        "loss_mask": s.loss_mask,
        // The versions the policy server reported for these replies, else the trainer's.
        "weight_versions": if s.served_versions.is_empty() { vec![s.weight_version.to_string()] } else { s.served_versions.clone() },
        "rollout_log_probs": s.rollout_logprobs,
        "remove_sample": false,
        "status": s.status,
        "session_id": s.trajectory_id,
        "multimodal_inputs": { "images": s.images.iter().map(|h| image_ref(h)).collect::<Vec<_>>() },
        "metadata": metadata(s),
        // slime's per-sample training settings: the algorithm, clip, KL and aggregation.
        "train_metadata": s.algorithm,
    })
}

/// What a trainer may want beyond its own fields: the advantage this project computed, where
/// the sample sits in its trajectory and group, and where its tokens came from.
fn metadata(s: &Sample) -> Value {
    json!({
        "group_id": s.group_id,
        "task_id": s.task_id,
        "trajectory_id": s.trajectory_id,
        "window": s.window,
        "first_step": s.first_step,
        "last_step": s.last_step,
        "advantage": s.advantage,
        "image_positions": s.image_positions,
        "token_source": s.token_source,
        "trained_steps": s.trained_steps,
    })
}

/// verl's `AgentLoopOutput`: `response_mask` is 1 on the model's tokens, images under
/// `multi_modal_data.image`, `num_turns` counts user and assistant turns, `metrics` holds
/// verl's `AgentLoopMetrics` fields, and `extra_fields.uid` groups a round's attempts at one
/// task for GRPO.
pub fn to_verl(s: &Sample) -> Value {
    json!({
        "prompt_ids": s.prompt_ids,
        "response_ids": s.response_ids,
        "response_mask": s.loss_mask,
        "response_logprobs": s.rollout_logprobs,
        "multi_modal_data": { "image": s.images.iter().map(|h| image_ref(h)).collect::<Vec<_>>() },
        "reward_score": s.reward,
        "num_turns": num_turns(s),
        "metrics": { "generate_sequences": 0.0, "tool_calls": 0.0, "num_preempted": -1 },
        "extra_fields": {
            "uid": s.group_id,
            "weight_version": s.weight_version,
            "served_weight_versions": s.served_versions,
            "status": s.status,
            "algorithm": s.algorithm,
            "metadata": metadata(s),
        },
    })
}

/// Samples in a trainer's layout, with group indices given by each group's first appearance.
pub fn export<'a>(samples: impl IntoIterator<Item = &'a Sample>, layout: crate::parquet::Layout) -> Vec<Value> {
    let mut groups: Vec<&str> = Vec::new();
    samples
        .into_iter()
        .enumerate()
        .map(|(i, s)| match layout {
            crate::parquet::Layout::Slime => {
                let g = groups.iter().position(|g| *g == s.group_id).unwrap_or_else(|| {
                    groups.push(&s.group_id);
                    groups.len() - 1
                });
                to_slime(s, i, g)
            }
            crate::parquet::Layout::Verl => to_verl(s),
        })
        .collect()
}
