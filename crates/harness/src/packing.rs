//! Training samples from a trajectory, exactly as the harness built its prompts.
//!
//! With window history, each window becomes one causal sequence: the last prompt of the
//! window plus its reply. The loss mask is 1 only on the model's own tokens (its replies and
//! their end-of-turn token) of the window's new steps, never on the overlapped steps or on
//! observations. With any other history, each step is its own sample. Images keep their
//! order, and their pad tokens' positions are recorded.

use serde::{Deserialize, Serialize};

use crate::config::HistoryPolicy;
use crate::prompt::{Part, Prompt, Role};
use crate::tokenizer::Tokenizer;

/// One training sample in a layout trainers read (slime's `Sample`, verl's
/// `AgentLoopOutput` are built from it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub trajectory_id: String,
    pub task_id: String,
    /// Window index (window history) or step index (one sample per step).
    pub window: u32,
    /// The first step whose reply is trained, and the step whose prompt and reply end the
    /// sample.
    pub first_step: u32,
    pub last_step: u32,
    pub prompt_ids: Vec<u32>,
    pub response_ids: Vec<u32>,
    /// One per response token: 1 for the model's own tokens of new steps.
    pub loss_mask: Vec<u8>,
    /// Per response token, the sampling log-probability when the server returned it
    /// (0.0 where the token is not the model's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout_logprobs: Option<Vec<f32>>,
    /// Screenshot hashes in the order their images appear.
    pub images: Vec<String>,
    /// Token offset (in prompt + response) where each image's pad tokens start.
    pub image_positions: Vec<usize>,
    pub reward: f64,
    pub advantage: f64,
    pub group_id: String,
    pub weight_version: u64,
    /// completed, truncated, aborted or failed.
    pub status: String,
    /// `server` when the reply tokens are the ids the server sampled, `tokenizer` when this
    /// project's tokenizer made them.
    pub token_source: String,
}

/// A prompt as token ids, with where each assistant reply and each image sits.
pub struct TokenizedPrompt {
    pub ids: Vec<u32>,
    /// (message index, start, end) of each assistant message's content and end-of-turn token.
    pub assistant: Vec<(usize, usize, usize)>,
    /// (start, length, screenshot hash) of each image's pad tokens.
    pub images: Vec<(usize, usize, String)>,
}

/// Tokenizes a prompt in the Qwen chat template, ending with the assistant header.
pub fn tokenize(tok: &Tokenizer, prompt: &Prompt) -> TokenizedPrompt {
    let id = |s: &str| tok.special_id(s).unwrap_or(0);
    let (start, end, vstart, vend, pad) =
        (id("<|im_start|>"), id("<|im_end|>"), id("<|vision_start|>"), id("<|vision_end|>"), id("<|image_pad|>"));
    let newline = tok.encode("\n");
    let mut ids = Vec::new();
    let mut assistant = Vec::new();
    let mut images = Vec::new();
    for (mi, m) in prompt.messages.iter().enumerate() {
        ids.push(start);
        ids.extend(tok.encode(&format!("{}\n", m.role.name())));
        let content_start = ids.len();
        for p in &m.parts {
            match p {
                Part::Text(t) => ids.extend(tok.encode(t)),
                Part::Image(img) => {
                    ids.push(vstart);
                    images.push((ids.len(), img.tokens as usize, img.hash.clone()));
                    ids.extend(std::iter::repeat_n(pad, img.tokens as usize));
                    ids.push(vend);
                }
            }
        }
        ids.push(end);
        if m.role == Role::Assistant {
            assistant.push((mi, content_start, ids.len()));
        }
        ids.extend(&newline);
    }
    ids.push(start);
    ids.extend(tok.encode("assistant\n"));
    TokenizedPrompt { ids, assistant, images }
}

/// One step of a recorded trajectory: the prompt the policy saw, its reply, and the reply's
/// token ids and log-probabilities when the server returned them.
pub struct RecordedStep<'a> {
    pub prompt: &'a Prompt,
    pub reply: &'a str,
    pub reply_ids: Option<&'a [u32]>,
    pub reply_logprobs: Option<&'a [f32]>,
}

impl<'a> RecordedStep<'a> {
    /// Pairs an attempt's prompts with its recorded steps, in order.
    pub fn zip(prompts: &'a [Prompt], steps: &'a [guigym_core::Step]) -> Vec<RecordedStep<'a>> {
        prompts
            .iter()
            .zip(steps)
            .map(|(p, s)| RecordedStep { prompt: p, reply: &s.raw_output, reply_ids: s.completion_ids.as_deref(), reply_logprobs: s.logprobs.as_deref() })
            .collect()
    }
}

/// Facts every sample of a trajectory carries.
pub struct TrajectoryInfo<'a> {
    pub trajectory_id: &'a str,
    pub task_id: &'a str,
    pub group_id: &'a str,
    pub reward: f64,
    pub advantage: f64,
    pub weight_version: u64,
    pub status: &'a str,
}

/// Packs a trajectory into samples under the history policy its prompts were built with.
pub fn pack(tok: &Tokenizer, history: HistoryPolicy, steps: &[RecordedStep<'_>], info: &TrajectoryInfo<'_>) -> Vec<Sample> {
    // Which steps end a sample, and from which step on its replies are trained.
    let mut ends: Vec<(usize, u32, u32)> = Vec::new(); // (step index, sample index, first new step)
    match history {
        HistoryPolicy::Window { k, o } => {
            for (i, s) in steps.iter().enumerate() {
                let (w, start) = s.prompt.window.unwrap_or((0, 0));
                let first_new = if w == 0 { 0 } else { start + o.min(k) };
                match ends.last_mut() {
                    Some(last) if last.1 == w => *last = (i, w, first_new),
                    _ => ends.push((i, w, first_new)),
                }
            }
        }
        _ => ends.extend(steps.iter().enumerate().map(|(i, s)| (i, s.prompt.step, s.prompt.step))),
    }
    let server_tokens = steps.iter().all(|s| s.reply_ids.is_some());
    ends.into_iter()
        .map(|(last, index, first_new)| {
            let step = &steps[last];
            let tp = tokenize(tok, step.prompt);
            // The reply of the last step is the sample's final response.
            let end_id = tok.special_id("<|im_end|>").unwrap_or(0);
            let mut reply: Vec<u32> = step.reply_ids.map(<[u32]>::to_vec).unwrap_or_else(|| tok.encode(step.reply));
            reply.push(end_id);
            // Replies of earlier steps inside the prompt: assistant messages map to steps in
            // order (messages come as: system, task, then user/assistant pairs).
            let first_trained = tp
                .assistant
                .iter()
                .enumerate()
                .find(|(j, _)| *j as u32 >= first_new)
                .map(|(_, (_, start, _))| *start)
                .unwrap_or(tp.ids.len());
            let cut = if matches!(history, HistoryPolicy::Window { .. }) { first_trained } else { tp.ids.len() };
            let prompt_ids = tp.ids[..cut].to_vec();
            let mut response_ids = tp.ids[cut..].to_vec();
            let mut loss_mask = vec![0u8; response_ids.len()];
            for (j, (_, s, e)) in tp.assistant.iter().enumerate() {
                if j as u32 >= first_new && *s >= cut {
                    for m in &mut loss_mask[s - cut..e - cut] {
                        *m = 1;
                    }
                }
            }
            let mut logprobs: Option<Vec<f32>> = step.reply_logprobs.map(|_| vec![0.0; response_ids.len()]);
            response_ids.extend(&reply);
            loss_mask.extend(std::iter::repeat_n(1u8, reply.len()));
            if let (Some(lp), Some(r)) = (logprobs.as_mut(), step.reply_logprobs) {
                lp.extend(r.iter().copied());
                lp.resize(response_ids.len(), 0.0);
            }
            Sample {
                trajectory_id: info.trajectory_id.to_string(),
                task_id: info.task_id.to_string(),
                window: index,
                first_step: first_new,
                last_step: last as u32,
                prompt_ids,
                response_ids,
                loss_mask,
                rollout_logprobs: logprobs,
                images: tp.images.iter().map(|(_, _, h)| h.clone()).collect(),
                image_positions: tp.images.iter().map(|(p, _, _)| *p).collect(),
                reward: info.reward,
                advantage: info.advantage,
                group_id: info.group_id.to_string(),
                weight_version: info.weight_version,
                status: info.status.to_string(),
                token_source: if server_tokens { "server" } else { "tokenizer" }.to_string(),
            }
        })
        .collect()
}
