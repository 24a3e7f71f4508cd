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
#[serde(deny_unknown_fields)]
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
    /// Per response token, the sampling log-probability the server returned (0.0 where the
    /// loss mask is 0: every token with mask 1 carries the server's own log-prob).
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
    /// `server` when every trained reply's tokens are the ids the server sampled, `tokenizer`
    /// when this project's tokenizer made them all, `mixed` otherwise (see `trained_steps`).
    pub token_source: String,
    /// Each trained step and where its tokens came from.
    #[serde(default)]
    pub trained_steps: Vec<TrainedStep>,
    /// The weight versions the policy server reported for the replies in this sample (slime's
    /// `weight_versions`); empty when it reported none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub served_versions: Vec<String>,
    /// The optimisation settings the trainer is to apply (algorithm, ratio, clip, KL, loss
    /// aggregation, learning rate), when the samples come from `guigym train`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<serde_json::Value>,
}

/// A step whose reply a sample trains, and where the reply's tokens came from (`server`:
/// the ids and log-probs the server sampled; `tokenizer`: re-encoded text, no log-probs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainedStep {
    pub step: u32,
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
    tokenize_with(tok, prompt, &[])
}

/// `tokenize`, with the content of assistant message `j` taken from `replies[j]` when given:
/// the ids the server sampled for that reply, not a re-tokenization of its text (which can
/// split the same text differently).
pub fn tokenize_with(tok: &Tokenizer, prompt: &Prompt, replies: &[Option<&[u32]>]) -> TokenizedPrompt {
    let id = |s: &str| tok.special_id(s).unwrap_or(0);
    let (start, end, vstart, vend, pad) = (id("<|im_start|>"), id("<|im_end|>"), id("<|vision_start|>"), id("<|vision_end|>"), id("<|image_pad|>"));
    let newline = tok.encode("\n");
    let mut ids = Vec::new();
    let mut assistant = Vec::new();
    let mut images = Vec::new();
    for (mi, m) in prompt.messages.iter().enumerate() {
        ids.push(start);
        ids.extend(tok.encode(&format!("{}\n", m.role.name())));
        let content_start = ids.len();
        let sampled = if m.role == Role::Assistant { replies.get(assistant.len()).copied().flatten() } else { None };
        if let Some(reply) = sampled {
            ids.extend(reply);
        }
        for p in m.parts.iter().filter(|_| sampled.is_none()) {
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
    let end_id = tok.special_id("<|im_end|>").unwrap_or(0);
    ends.into_iter()
        .map(|(last, index, first_new)| {
            let step = &steps[last];
            // Earlier replies inside the prompt: assistant message j is step j's reply (every
            // turn stays in the prompt, older ones folded). Where the prompt holds the reply as
            // recorded, its tokens are the ones the server sampled.
            let replies: Vec<Option<Sampled>> = assistant_texts(step.prompt)
                .enumerate()
                .map(|(j, text)| steps.get(j).filter(|s| s.reply == text).and_then(|s| Sampled::of(s, end_id)))
                .collect();
            let overrides: Vec<Option<&[u32]>> = replies.iter().map(|r| r.as_ref().map(|r| r.ids)).collect();
            let tp = tokenize_with(tok, step.prompt, &overrides);
            // Trained segments: the new steps' replies inside the prompt, then the last reply.
            let first_trained = tp.assistant.iter().enumerate().find(|(j, _)| *j as u32 >= first_new).map(|(_, (_, start, _))| *start).unwrap_or(tp.ids.len());
            let cut = if matches!(history, HistoryPolicy::Window { .. }) { first_trained } else { tp.ids.len() };
            let mut ids = tp.ids.clone();
            let last_reply = Sampled::of(step, end_id);
            let reply_start = ids.len();
            match &last_reply {
                Some(r) => ids.extend(r.ids),
                None => ids.extend(tok.encode(step.reply)),
            }
            ids.push(end_id);
            let mut segments: Vec<(u32, usize, usize, Option<&Sampled>)> = tp
                .assistant
                .iter()
                .enumerate()
                .filter(|(j, (_, s, _))| *j as u32 >= first_new && *s >= cut)
                .map(|(j, (_, s, e))| (j as u32, *s, *e, replies.get(j).and_then(Option::as_ref)))
                .collect();
            segments.push((last as u32, reply_start, ids.len(), last_reply.as_ref()));
            // With the server's log-probs, a token is trained only where its log-prob is known
            // (a reply cut by max_tokens never sampled the end token appended after it).
            let with_logprobs = segments.iter().any(|(_, _, _, r)| r.is_some_and(|r| r.logprobs.is_some()));
            let mut loss_mask = vec![0u8; ids.len() - cut];
            let mut logprobs = with_logprobs.then(|| vec![0.0f32; ids.len() - cut]);
            let mut trained_steps = Vec::new();
            for (step_index, s, e, sampled) in &segments {
                let (content, end) = (s - cut..e - cut - 1, e - cut - 1);
                match (logprobs.as_mut(), sampled.and_then(|r| r.logprobs.map(|l| (l, r.end_logprob)))) {
                    (None, _) => loss_mask[s - cut..e - cut].fill(1),
                    (Some(lp), Some((content_lp, end_lp))) => {
                        lp[content.clone()].copy_from_slice(content_lp);
                        loss_mask[content].fill(1);
                        if let Some(l) = end_lp {
                            lp[end] = l;
                            loss_mask[end] = 1;
                        }
                    }
                    // A step without the server's log-probs in a sample that has them: not trained.
                    (Some(_), None) => {}
                }
                let source = if sampled.is_some() { "server" } else { "tokenizer" };
                trained_steps.push(TrainedStep { step: *step_index, token_source: source.to_string() });
            }
            let token_source = match trained_steps.iter().filter(|t| t.token_source == "server").count() {
                0 => "tokenizer",
                n if n == trained_steps.len() => "server",
                _ => "mixed",
            };
            Sample {
                trajectory_id: info.trajectory_id.to_string(),
                task_id: info.task_id.to_string(),
                window: index,
                first_step: first_new,
                last_step: last as u32,
                prompt_ids: ids[..cut].to_vec(),
                response_ids: ids[cut..].to_vec(),
                loss_mask,
                rollout_logprobs: logprobs,
                images: tp.images.iter().map(|(_, _, h)| h.clone()).collect(),
                image_positions: tp.images.iter().map(|(p, _, _)| *p).collect(),
                reward: info.reward,
                advantage: info.advantage,
                group_id: info.group_id.to_string(),
                weight_version: info.weight_version,
                status: info.status.to_string(),
                token_source: token_source.to_string(),
                trained_steps,
                served_versions: Vec::new(),
                algorithm: None,
            }
        })
        .collect()
}

/// The text of each assistant message of a prompt, in order.
fn assistant_texts(prompt: &Prompt) -> impl Iterator<Item = String> + '_ {
    prompt.messages.iter().filter(|m| m.role == Role::Assistant).map(|m| {
        m.parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.as_str(),
                Part::Image(_) => "",
            })
            .collect::<String>()
    })
}

/// A reply as the server sampled it: its content ids (without a final end-of-turn token),
/// their log-probs, and the end token's log-prob when the server sampled and reported one.
struct Sampled<'a> {
    ids: &'a [u32],
    logprobs: Option<&'a [f32]>,
    end_logprob: Option<f32>,
}

impl<'a> Sampled<'a> {
    fn of(step: &RecordedStep<'a>, end_id: u32) -> Option<Sampled<'a>> {
        let ids = step.reply_ids?;
        let ended = ids.last() == Some(&end_id);
        let content = if ended { &ids[..ids.len() - 1] } else { ids };
        // Log-probs that do not line up with the ids are no log-probs.
        let lps = step.reply_logprobs.filter(|l| l.len() == ids.len());
        Some(Sampled { ids: content, logprobs: lps.map(|l| &l[..content.len()]), end_logprob: lps.filter(|_| ended).and_then(|l| l.last().copied()) })
    }
}
