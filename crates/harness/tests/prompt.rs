//! Prompts state what the model is shown: the size in the system prompt is the size of the
//! image actually sent (resized here by default), norm1000 prompts do not claim a 1000×1000
//! screen, server-side resizing sends its processor settings along, and user and assistant
//! turns alternate strictly.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use guigym_core::{Observation, Screenshot};
use guigym_harness::config::ResizeAt;
use guigym_harness::{CoordinateSpace, Episode, HarnessConfig, HistoryPolicy, ObservationMode, Part, Prompt, Role};

fn screen_png() -> Vec<u8> {
    let mut pixmap = tiny_skia::Pixmap::new(1080, 2400).unwrap();
    pixmap.fill(tiny_skia::Color::from_rgba8(30, 60, 90, 255));
    pixmap.encode_png().unwrap()
}

fn observation(png: &[u8]) -> Observation {
    Observation { screenshot: Some(Screenshot::from_png(1080, 2400, png.to_vec())), screen: "home".into(), width: 1080, height: 2400, ..Default::default() }
}

fn system(p: &Prompt) -> String {
    match &p.messages[0].parts[0] {
        Part::Text(t) => t.clone(),
        _ => panic!("the system prompt is text"),
    }
}

fn sent_size(p: &Prompt) -> (u32, u32) {
    let img = p.messages.iter().flat_map(|m| &m.parts).find_map(|part| if let Part::Image(i) = part { Some(i.clone()) } else { None }).unwrap();
    let decoded = tiny_skia::Pixmap::decode_png(&img.png).unwrap();
    (decoded.width(), decoded.height())
}

fn prompts(config: HarnessConfig, steps: usize) -> Vec<Prompt> {
    let png = screen_png();
    let mut e = Episode::new(Arc::new(config), "Open Mail.");
    (0..steps)
        .map(|_| {
            let p = e.prompt(&observation(&png));
            e.record("{\"action\": \"back\"}");
            p
        })
        .collect()
}

#[test]
fn the_stated_size_is_the_size_of_the_image_sent() {
    for coordinates in [CoordinateSpace::Pixels, CoordinateSpace::Norm1000] {
        let config = HarnessConfig { observation: ObservationMode::Both, coordinates, ..HarnessConfig::default() };
        let p = &prompts(config, 1)[0];
        let (w, h) = sent_size(p);
        assert!(w < 1080 && h < 2400, "resized on the client by default: {w}x{h}");
        let text = system(p);
        assert!(text.contains(&format!("Screen: {w}x{h}")), "{coordinates:?}: {text}");
        assert!(!text.contains("1000x1000"), "norm1000 is a coordinate space, not a screen size: {text}");
        assert_eq!(p.server_resize, None);
    }
    // Server-side resizing: the original goes, and the processor settings go along.
    let mut config = HarnessConfig { observation: ObservationMode::Both, ..HarnessConfig::default() };
    config.image.resize_at = ResizeAt::Server;
    let p = &prompts(config.clone(), 1)[0];
    assert_eq!(sent_size(p), (1080, 2400));
    assert_eq!(p.server_resize, Some((config.image.min_pixels, config.image.max_pixels)));
    // Without a screenshot the stated size is the screen's.
    let p = &prompts(HarnessConfig::default(), 1)[0];
    assert!(system(p).contains("Screen: 1080x2400"), "{}", system(p));
}

#[test]
fn user_and_assistant_turns_alternate_strictly() {
    for history in [HistoryPolicy::Full, HistoryPolicy::None, HistoryPolicy::Window { k: 3, o: 1 }, HistoryPolicy::LastK { k: 2 }] {
        let config = HarnessConfig { history, observation: ObservationMode::Both, ..HarnessConfig::default() };
        for p in prompts(config, 6) {
            let roles: Vec<Role> = p.messages.iter().map(|m| m.role).collect();
            assert_eq!(roles[0], Role::System);
            for (i, pair) in roles[1..].windows(2).enumerate() {
                assert_ne!(pair[0], pair[1], "{history:?}: two {:?} messages in a row at {i}", pair[0]);
            }
            assert_eq!(*roles.last().unwrap(), Role::User);
            // The task line opens the first user message.
            assert!(matches!(&p.messages[1].parts[0], Part::Text(t) if t.starts_with("Task: Open Mail.")));
        }
    }
    // The option can be turned off for templates that want the task on its own.
    let config = HarnessConfig { strict_alternation: false, ..HarnessConfig::default() };
    let p = &prompts(config, 1)[0];
    assert_eq!(p.messages.iter().filter(|m| m.role == Role::User).count(), 2);
}
