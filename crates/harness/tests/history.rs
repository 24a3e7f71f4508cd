//! History policies, request by request: inside a window each prompt strictly extends the
//! previous one; boundaries come every k − o steps; last_k changes its prefix every step and
//! keeps exactly k screenshots.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use guigym_core::{Bounds, Observation, Screenshot, UiNode};
use guigym_harness::{Episode, HarnessConfig, HistoryPolicy, ObservationMode, Part, Prompt};

fn observation(step: u32) -> Observation {
    // A distinct small "screenshot" per step: its bytes are its identity.
    let png = format!("png-bytes-of-step-{step}").into_bytes();
    Observation {
        step,
        screenshot: Some(Screenshot::from_png(1080, 2400, png)),
        ui_tree: vec![UiNode {
            id: format!("button:{step}"),
            role: "button".into(),
            text: format!("Next {step}"),
            bounds: Bounds { x: 10, y: 20 * step as i32, w: 300, h: 100 },
            clickable: true,
            enabled: true,
            ..Default::default()
        }],
        screen: format!("Screen/{step}"),
        feedback: (step > 0).then(|| format!("tapped at step {}", step - 1)),
        width: 1080,
        height: 2400,
        ..Default::default()
    }
}

fn run(history: HistoryPolicy, steps: u32) -> Vec<Prompt> {
    let config = HarnessConfig { history, observation: ObservationMode::Both, ..HarnessConfig::default() };
    let mut episode = Episode::new(Arc::new(config), "Tap next until done.");
    (0..steps)
        .map(|t| {
            let p = episode.prompt(&observation(t));
            episode.record(&format!("{{\"action\": \"click\", \"element\": \"button:{t}\"}}"));
            p
        })
        .collect()
}

fn images(p: &Prompt) -> usize {
    p.messages.iter().flat_map(|m| &m.parts).filter(|x| matches!(x, Part::Image(_))).count()
}

/// Steps whose prompt does not strictly extend the previous prompt.
fn boundaries(prompts: &[Prompt]) -> Vec<u32> {
    prompts
        .windows(2)
        .filter(|w| {
            let (a, b) = (w[0].render_text(), w[1].render_text());
            // The previous prompt without its generation header must prefix the next one.
            !(b.len() > a.len() && b.starts_with(&a))
        })
        .map(|w| w[1].step)
        .collect()
}

#[test]
fn window_prompts_only_grow_inside_a_window() {
    let prompts = run(HistoryPolicy::Window { k: 10, o: 2 }, 30);
    assert_eq!(boundaries(&prompts), vec![10, 18, 26]);
    for p in &prompts {
        let (_, start) = p.window.unwrap();
        // Screenshots of the window's steps so far, plus the current one.
        assert_eq!(images(p) as u32, p.step - start + 1, "step {}", p.step);
    }
    // Folded steps keep their text: the first step's feedback-free header is still there.
    let last = prompts.last().unwrap().render_text();
    assert!(last.contains("Step 0 · screen Screen/0 (observation omitted)"));
    assert!(last.contains("button:3\"}"), "model outputs of folded steps are kept");
}

#[test]
fn other_window_sizes_follow_the_same_rule() {
    let prompts = run(HistoryPolicy::Window { k: 4, o: 1 }, 14);
    assert_eq!(boundaries(&prompts), vec![4, 7, 10, 13]);
}

#[test]
fn last_k_changes_its_prefix_every_step_and_keeps_k_screenshots() {
    let prompts = run(HistoryPolicy::LastK { k: 5 }, 12);
    assert_eq!(boundaries(&prompts), (5..12).collect::<Vec<u32>>(), "every step once there are more than k screenshots");
    assert!(prompts.iter().all(|p| images(p) == (p.step as usize + 1).min(5)));
}

#[test]
fn full_keeps_everything_and_none_keeps_nothing() {
    let full = run(HistoryPolicy::Full, 8);
    assert!(boundaries(&full).is_empty());
    assert_eq!(images(full.last().unwrap()), 8);
    let none = run(HistoryPolicy::None, 5);
    // System, then one user message: the task line and the current observation (strict alternation).
    assert!(none.iter().all(|p| p.messages.len() == 2 && images(p) == 1));
}
