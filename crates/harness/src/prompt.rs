//! Prompts: the messages a policy is shown at each step, built by one `Episode` per attempt
//! under the configured history policy.
//!
//! A step's turn is its observation (a user message: screenshot and/or UI tree text, the
//! screen's name and the last action's feedback) and the policy's output (an assistant
//! message). With `window` history, inside a window the message list only grows; at a
//! window boundary the observations of steps before the window fold into one-line
//! placeholders (their text and outputs stay), so the prompt's prefix changes once every
//! `k - o` steps.

use std::sync::Arc;

use guigym_core::{Action, InvalidAction, Observation, Point};

use crate::codec::{self, Codec};
use crate::config::{CoordinateSpace, HarnessConfig, HistoryPolicy};
use crate::image::ModelImage;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Image(Arc<ModelImage>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub parts: Vec<Part>,
}

/// What a policy is shown for one step.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub messages: Vec<Message>,
    /// The step this prompt asks for.
    pub step: u32,
    /// With window history: the window's index and its first step.
    pub window: Option<(u32, u32)>,
    /// The codec the reply must use.
    pub codec: Codec,
    /// Multiply model coordinates by these to get screenshot pixels.
    pub to_pixels: (f32, f32),
    /// The observation this prompt shows, without its screenshot: filled in when a rollout
    /// records the prompt for a data sink (`None` as built), for exporters and learners that
    /// read screens rather than pixels.
    pub observation: Option<Observation>,
    /// With server-side resizing: the processor settings (`min_pixels`, `max_pixels`) the
    /// server must resize with for the images to be the size the prompt states.
    pub server_resize: Option<(u32, u32)>,
}

/// The first step of the window that step `t` belongs to (as a new step), and its index.
pub fn window_of(t: u32, k: u32, o: u32) -> (u32, u32) {
    let stride = (k - o).max(1);
    if t < k {
        (0, 0)
    } else {
        let w = (t - o) / stride;
        (w, w * stride)
    }
}

struct Turn {
    index: u32,
    screen: String,
    feedback: Option<String>,
    ui_text: Option<String>,
    image: Option<Arc<ModelImage>>,
    output: Option<String>,
}

impl Turn {
    fn header(&self) -> String {
        let mut s = format!("Step {} · screen {}", self.index, self.screen);
        if let Some(f) = &self.feedback {
            s.push_str(&format!("\nLast action: {f}"));
        }
        s
    }

    fn full(&self) -> Vec<Part> {
        let mut parts = Vec::with_capacity(2);
        if let Some(img) = &self.image {
            parts.push(Part::Image(img.clone()));
        }
        let mut text = self.header();
        if let Some(ui) = &self.ui_text {
            text.push_str("\nUI elements:\n");
            text.push_str(ui);
        }
        parts.push(Part::Text(text));
        parts
    }

    fn folded(&self) -> Vec<Part> {
        vec![Part::Text(format!("{} (observation omitted)", self.header()))]
    }
}

/// One attempt's conversation.
pub struct Episode {
    config: Arc<HarnessConfig>,
    instruction: String,
    system: Option<String>,
    turns: Vec<Turn>,
}

impl Episode {
    pub fn new(config: Arc<HarnessConfig>, instruction: &str) -> Episode {
        Episode { config, instruction: instruction.to_string(), system: None, turns: Vec::new() }
    }

    pub fn config(&self) -> &HarnessConfig {
        &self.config
    }

    /// The prompt for the next step, given its observation.
    pub fn prompt(&mut self, obs: &Observation) -> Prompt {
        let cfg = self.config.clone();
        let image = match (&obs.screenshot, cfg.observation.screenshots()) {
            (Some(shot), true) => Some(Arc::new(ModelImage::new(shot, &cfg.image))),
            _ => None,
        };
        // The space the model's coordinates live in.
        let (sw, sh) = match cfg.coordinates {
            CoordinateSpace::Norm1000 => (1000.0, 1000.0),
            CoordinateSpace::Pixels => match &image {
                Some(img) => (img.model_width as f32, img.model_height as f32),
                None => (obs.width as f32, obs.height as f32),
            },
        };
        let (w, h) = (obs.width.max(1) as f32, obs.height.max(1) as f32);
        let to_pixels = (w / sw, h / sh);
        if self.system.is_none() {
            // The size stated is the one the model is shown: the image as sent (or as the
            // server will resize it), else the screen the UI tree describes.
            let (shown_w, shown_h) = match &image {
                Some(img) => (img.model_width, img.model_height),
                None => (obs.width, obs.height),
            };
            let coordinates = match cfg.coordinates {
                CoordinateSpace::Norm1000 => "0 to 1000 on each axis, (0, 0) top left, (1000, 1000) bottom right".to_string(),
                CoordinateSpace::Pixels => format!("pixels of the screen as you see it, {shown_w}x{shown_h}, (0, 0) top left"),
            };
            self.system = Some(
                cfg.system_prompt
                    .replace("{action_space}", cfg.codec.describe())
                    .replace("{coordinates}", &coordinates)
                    .replace("{width}", &shown_w.to_string())
                    .replace("{height}", &shown_h.to_string()),
            );
        }
        let ui_text = cfg.observation.ui_tree().then(|| obs.ui_text_scaled(sw / w, sh / h));
        // A second prompt for the same step (a retry) replaces the unanswered turn.
        if self.turns.last().is_some_and(|t| t.output.is_none()) {
            self.turns.pop();
        }
        let t = self.turns.len() as u32;
        self.turns.push(Turn { index: t, screen: obs.screen.clone(), feedback: obs.feedback.clone(), ui_text, image, output: None });

        let window = match cfg.history {
            HistoryPolicy::Window { k, o } => Some(window_of(t, k, o)),
            _ => None,
        };
        // Whether an earlier step keeps its full observation or folds.
        let keep = |i: u32| match cfg.history {
            HistoryPolicy::Window { .. } => window.is_some_and(|(_, start)| i >= start),
            // The current observation is one of the k.
            HistoryPolicy::LastK { k } => i + k > t,
            HistoryPolicy::Full => true,
            HistoryPolicy::None => false,
        };
        let mut messages = Vec::with_capacity(2 + 2 * self.turns.len());
        messages.push(Message { role: Role::System, parts: vec![Part::Text(self.system.clone().unwrap_or_default())] });
        messages.push(Message { role: Role::User, parts: vec![Part::Text(format!("Task: {}", self.instruction))] });
        if cfg.history != HistoryPolicy::None {
            for turn in &self.turns[..self.turns.len() - 1] {
                let parts = if keep(turn.index) { turn.full() } else { turn.folded() };
                messages.push(Message { role: Role::User, parts });
                messages.push(Message { role: Role::Assistant, parts: vec![Part::Text(turn.output.clone().unwrap_or_default())] });
            }
        }
        if let Some(current) = self.turns.last() {
            messages.push(Message { role: Role::User, parts: current.full() });
        }
        if cfg.strict_alternation {
            messages = merge_consecutive(messages);
        }
        let server_resize = (cfg.image.resize_at == crate::config::ResizeAt::Server && self.turns.last().is_some_and(|t| t.image.is_some()))
            .then_some((cfg.image.min_pixels, cfg.image.max_pixels));
        Prompt { messages, step: t, window, codec: cfg.codec, to_pixels, observation: None, server_resize }
    }

    /// Records the policy's reply to the last prompt.
    pub fn record(&mut self, output: &str) {
        if let Some(turn) = self.turns.last_mut() {
            turn.output = Some(output.to_string());
        }
    }

    /// Parses a reply into an action in screenshot pixels.
    pub fn parse(&self, raw: &str, obs: &Observation, prompt: &Prompt) -> Result<Action, InvalidAction> {
        let action = prompt.codec.parse(raw, obs)?;
        action.check()?;
        let (sx, sy) = prompt.to_pixels;
        Ok(codec::map_points(action, |p| Point(p.0 * sx, p.1 * sy)))
    }
}

/// Joins consecutive messages of one role into one (texts joined by a blank line), so roles
/// alternate.
fn merge_consecutive(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    for m in messages {
        match out.last_mut() {
            Some(last) if last.role == m.role => {
                for part in m.parts {
                    match (last.parts.last_mut(), part) {
                        (Some(Part::Text(a)), Part::Text(b)) => {
                            a.push_str("\n\n");
                            a.push_str(&b);
                        }
                        (_, p) => last.parts.push(p),
                    }
                }
            }
            _ => out.push(m),
        }
    }
    out
}

impl Prompt {
    /// Writes an action (in screenshot pixels) as the reply this prompt expects: what
    /// scripted policies answer with, so they go through the same codec as a model.
    pub fn encode(&self, action: &Action, obs: &Observation) -> String {
        let (sx, sy) = self.to_pixels;
        // Conventions that name elements keep them.
        let resolved = if self.codec.names_elements() { Some(action.clone()) } else { codec::resolve_elements(action, obs) };
        let in_model = resolved.map(|a| codec::map_points(a, |p| Point(p.0 / sx, p.1 / sy)));
        in_model.and_then(|a| self.codec.encode(&a, obs)).unwrap_or_else(|| action.to_json())
    }

    /// The prompt as one string in the Qwen chat template, images as one placeholder line
    /// each: what prefix checks and logs compare.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        for m in &self.messages {
            out.push_str("<|im_start|>");
            out.push_str(m.role.name());
            out.push('\n');
            for p in &m.parts {
                match p {
                    Part::Text(t) => out.push_str(t),
                    Part::Image(img) => {
                        out.push_str(&format!("<|vision_start|><image {} {}x{}><|vision_end|>", &img.hash[..12], img.model_width, img.model_height))
                    }
                }
            }
            out.push_str("<|im_end|>\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_advance_every_k_minus_o_steps() {
        let starts: Vec<u32> = (0..30).map(|t| window_of(t, 10, 2).1).collect();
        assert_eq!(&starts[..10], &[0; 10]);
        assert_eq!(&starts[10..18], &[8; 8]);
        assert_eq!(&starts[18..26], &[16; 8]);
        assert_eq!(window_of(26, 10, 2), (3, 24));
    }
}
