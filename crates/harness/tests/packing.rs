//! Window packing: each window's sample is the last prompt of the window plus its reply, and
//! the loss mask covers exactly the model's tokens of the window's new steps.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use guigym_core::{Bounds, Observation, Screenshot, UiNode};
use guigym_harness::packing::{pack, tokenize, RecordedStep, TrajectoryInfo};
use guigym_harness::tokenizer::{locate, Tokenizer};
use guigym_harness::{Episode, HarnessConfig, HistoryPolicy, ObservationMode, Prompt};

fn observation(step: u32) -> Observation {
    Observation {
        step,
        screenshot: Some(Screenshot::from_png(1080, 2400, format!("image {step}").into_bytes())),
        ui_tree: vec![UiNode {
            id: format!("b{step}"),
            role: "button".into(),
            text: format!("Go {step}"),
            bounds: Bounds { x: 1, y: 2, w: 30, h: 40 },
            clickable: true,
            enabled: true,
            ..Default::default()
        }],
        screen: format!("S/{step}"),
        width: 1080,
        height: 2400,
        ..Default::default()
    }
}

fn record(history: HistoryPolicy, n: u32) -> (Vec<Prompt>, Vec<String>) {
    let config = HarnessConfig { history, observation: ObservationMode::Both, ..HarnessConfig::default() };
    let mut e = Episode::new(Arc::new(config), "Go through the screens.");
    let mut prompts = Vec::new();
    let mut replies = Vec::new();
    for t in 0..n {
        prompts.push(e.prompt(&observation(t)));
        let reply = format!("Step {t}: {{\"action\": \"click\", \"element\": \"b{t}\"}}");
        e.record(&reply);
        replies.push(reply);
    }
    (prompts, replies)
}

/// Recorded steps whose replies came with the server's token ids and log-probs.
fn with_server_tokens<'a>(prompts: &'a [Prompt], replies: &'a [String], ids: &'a [Vec<u32>], lps: &'a [Vec<f32>]) -> Vec<RecordedStep<'a>> {
    prompts
        .iter()
        .zip(replies)
        .zip(ids.iter().zip(lps))
        .map(|((p, r), (i, l))| RecordedStep { prompt: p, reply: r, reply_ids: Some(i), reply_logprobs: Some(l) })
        .collect()
}

fn info() -> TrajectoryInfo<'static> {
    TrajectoryInfo { trajectory_id: "t", task_id: "x/0", group_id: "g", reward: 1.0, advantage: 0.5, weight_version: 3, status: "completed" }
}

#[test]
fn window_samples_are_last_prompt_plus_reply_with_new_steps_masked() {
    let tok = Tokenizer::load(&locate(None).unwrap()).unwrap();
    let (k, o) = (4, 1);
    let (prompts, replies) = record(HistoryPolicy::Window { k, o }, 11);
    let steps: Vec<RecordedStep> =
        prompts.iter().zip(&replies).map(|(p, r)| RecordedStep { prompt: p, reply: r, reply_ids: None, reply_logprobs: None }).collect();
    let samples = pack(&tok, HistoryPolicy::Window { k, o }, &steps, &info());
    // Windows start at steps 0, 3, 6, 9 (stride k − o = 3); new steps 0-3, 4-6, 7-9, 10.
    assert_eq!(samples.len(), 4);
    let im_end = tok.special_id("<|im_end|>").unwrap();
    let new_steps = [(0, 3), (4, 6), (7, 9), (10, 10)];
    let last_steps = [3, 6, 9, 10];
    for (s, ((first, last), end)) in samples.iter().zip(new_steps.iter().zip(last_steps)) {
        let mut expect = tokenize(&tok, &prompts[end]).ids;
        expect.extend(tok.encode(&replies[end]));
        expect.push(im_end);
        let mut got = s.prompt_ids.clone();
        got.extend(&s.response_ids);
        assert_eq!(got, expect, "window {}", s.window);
        assert_eq!(s.loss_mask.len(), s.response_ids.len());
        // Masked tokens: exactly the replies (and their end tokens) of the new steps.
        let want: usize = (*first..=*last).map(|i| tok.encode(&replies[i]).len() + 1).sum();
        assert_eq!(s.loss_mask.iter().filter(|m| **m == 1).count(), want, "window {}", s.window);
        // The masked tokens are those replies, in order.
        let masked: Vec<u32> = s.response_ids.iter().zip(&s.loss_mask).filter(|(_, m)| **m == 1).map(|(t, _)| *t).collect();
        let mut replies_tokens = Vec::new();
        for reply in &replies[*first..=*last] {
            replies_tokens.extend(tok.encode(reply));
            replies_tokens.push(im_end);
        }
        assert_eq!(masked, replies_tokens);
        assert_eq!(s.images.len(), prompts[end].messages.iter().flat_map(|m| &m.parts).filter(|p| matches!(p, guigym_harness::Part::Image(_))).count());
        assert_eq!(s.token_source, "tokenizer");
    }
}

#[test]
fn last_k_gives_one_sample_per_step_with_server_tokens() {
    let tok = Tokenizer::load(&locate(None).unwrap()).unwrap();
    let (prompts, replies) = record(HistoryPolicy::LastK { k: 2 }, 5);
    let ids: Vec<Vec<u32>> = replies.iter().map(|r| tok.encode(r)).collect();
    let lps: Vec<Vec<f32>> = ids.iter().map(|i| vec![-0.5; i.len()]).collect();
    let steps = with_server_tokens(&prompts, &replies, &ids, &lps);
    let samples = pack(&tok, HistoryPolicy::LastK { k: 2 }, &steps, &info());
    assert_eq!(samples.len(), 5);
    for (s, i) in samples.iter().zip(&ids) {
        assert_eq!(s.response_ids.len(), i.len() + 1);
        // The server's tokens are trained; the end token it never reported is not (its
        // log-prob is unknown: the reply may have been cut by max_tokens).
        assert!(s.loss_mask[..i.len()].iter().all(|m| *m == 1));
        assert_eq!(s.loss_mask[i.len()], 0);
        assert_eq!(s.token_source, "server");
        assert_eq!(s.rollout_logprobs.as_ref().unwrap().len(), s.response_ids.len());
    }
}

/// With a server that returns token ids and log-probs, every trained token of a window — the
/// earlier replies inside its prompt as well as its last reply — is the server's own token
/// with the server's own log-prob, even where re-tokenizing the text would split it otherwise.
#[test]
fn window_samples_carry_the_servers_tokens_and_logprobs_for_every_trained_step() {
    let tok = Tokenizer::load(&locate(None).unwrap()).unwrap();
    let im_end = tok.special_id("<|im_end|>").unwrap();
    let (k, o) = (4, 1);
    let (prompts, replies) = record(HistoryPolicy::Window { k, o }, 11);
    // The server split each reply character by character (valid, but not how our tokenizer
    // would encode the text); odd steps also report the end token it sampled.
    let ids: Vec<Vec<u32>> = replies
        .iter()
        .enumerate()
        .map(|(t, r)| {
            let mut v: Vec<u32> = r.chars().flat_map(|c| tok.encode(&c.to_string())).collect();
            if t % 2 == 1 {
                v.push(im_end);
            }
            v
        })
        .collect();
    for (r, i) in replies.iter().zip(&ids) {
        assert_ne!(&tok.encode(r), i, "the test needs a split the tokenizer would not make");
    }
    let lps: Vec<Vec<f32>> = ids.iter().enumerate().map(|(t, v)| (0..v.len()).map(|j| -((t * 1000 + j + 1) as f32) / 1000.0).collect()).collect();
    let steps = with_server_tokens(&prompts, &replies, &ids, &lps);
    let samples = pack(&tok, HistoryPolicy::Window { k, o }, &steps, &info());
    assert_eq!(samples.len(), 4);
    let mut checked = 0;
    for s in &samples {
        assert_eq!(s.token_source, "server");
        let lp = s.rollout_logprobs.as_ref().unwrap();
        assert_eq!((lp.len(), s.loss_mask.len()), (s.response_ids.len(), s.response_ids.len()));
        // The trained tokens, in order, are exactly the server's tokens of the new steps, and
        // each carries the server's log-prob.
        let trained: Vec<(u32, f32)> = s.response_ids.iter().zip(&s.loss_mask).zip(lp).filter(|((_, m), _)| **m == 1).map(|((t, _), l)| (*t, *l)).collect();
        let want: Vec<(u32, f32)> = (s.first_step..=s.last_step).flat_map(|t| ids[t as usize].iter().copied().zip(lps[t as usize].iter().copied())).collect();
        assert_eq!(trained, want, "window {}", s.window);
        let steps: Vec<u32> = s.trained_steps.iter().map(|t| t.step).collect();
        assert_eq!(steps, (s.first_step..=s.last_step).collect::<Vec<_>>());
        assert!(s.trained_steps.iter().all(|t| t.token_source == "server"));
        checked += trained.len();
    }
    assert!(checked > 200, "{checked}");
}
