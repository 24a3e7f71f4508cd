//! What an agent sees after each step: the UI tree, an optional screenshot, the foreground
//! app and screen, and text feedback.

use serde::{Deserialize, Serialize};

/// A rectangle in screenshot pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Bounds {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl Bounds {
    pub fn contains(&self, px: f32, py: f32) -> bool {
        px >= self.x as f32 && py >= self.y as f32 && px < (self.x + self.w) as f32 && py < (self.y + self.h) as f32
    }

    pub fn center(&self) -> (f32, f32) {
        (self.x as f32 + self.w as f32 / 2.0, self.y as f32 + self.h as f32 / 2.0)
    }
}

/// One node of the UI tree. Ids are stable across renders of the same state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UiNode {
    pub id: String,
    /// Index of the parent in the observation's node list; `None` for the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    pub role: String,
    /// What the element says; for a text field, what it holds (empty when nothing was typed).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// A text field's placeholder, apart from its value, so an empty field never reads as
    /// filled in.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub hint: String,
    pub bounds: Bounds,
    #[serde(default, skip_serializing_if = "is_false")]
    pub clickable: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub editable: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub focused: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub checked: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub selected: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub scrollable: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
}

/// A node as a backend starts one: enabled, as a node whose JSON leaves `enabled` out reads.
impl Default for UiNode {
    fn default() -> UiNode {
        UiNode {
            id: String::new(),
            role: String::new(),
            text: String::new(),
            bounds: Bounds::default(),
            parent: None,
            hint: String::new(),
            clickable: false,
            editable: false,
            focused: false,
            checked: false,
            selected: false,
            scrollable: false,
            enabled: true,
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_true(b: &bool) -> bool {
    *b
}
fn yes() -> bool {
    true
}

pub use crate::screenshot::Screenshot;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Observation {
    /// Steps taken since the last reset.
    pub step: u32,
    /// Rendered only when the caller asked for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<Screenshot>,
    pub ui_tree: Vec<UiNode>,
    /// Foreground app, or `None` on the home screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    pub screen: String,
    /// Result of the last action, the answer to `ask_user`, or why an action was invalid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// Screen size in pixels.
    pub width: u32,
    pub height: u32,
    /// Virtual time inside the instance, ISO 8601 local time.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub time: String,
    /// The agent's doing broke the instance, and why (see `StepOutcome::broken`): the episode
    /// is over, nothing more can be done in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broken: Option<String>,
}

impl Observation {
    /// A copy without the screenshot (its pixels are the one heavy part).
    pub fn without_screenshot(&self) -> Observation {
        Observation {
            step: self.step,
            screenshot: None,
            ui_tree: self.ui_tree.clone(),
            app: self.app.clone(),
            screen: self.screen.clone(),
            feedback: self.feedback.clone(),
            width: self.width,
            height: self.height,
            time: self.time.clone(),
            broken: self.broken.clone(),
        }
    }

    pub fn node(&self, id: &str) -> Option<&UiNode> {
        self.ui_tree.iter().find(|n| n.id == id)
    }

    /// The UI tree as indented text, one node a line: what text-only agents read. Each line
    /// starts with the node's index in `ui_tree`.
    pub fn ui_text(&self) -> String {
        self.ui_text_scaled(1.0, 1.0)
    }

    /// `ui_text` with bounds multiplied by (sx, sy): for a model that sees a resized image or
    /// normalized coordinates.
    pub fn ui_text_scaled(&self, sx: f32, sy: f32) -> String {
        let mut depth = vec![0usize; self.ui_tree.len()];
        let mut out = String::new();
        for (i, n) in self.ui_tree.iter().enumerate() {
            depth[i] = n.parent.map(|p| depth.get(p).copied().unwrap_or(0) + 1).unwrap_or(0);
            if n.role == "container" && n.text.is_empty() {
                continue;
            }
            out.push_str(&"  ".repeat(depth[i]));
            out.push_str(&format!("{i} [{}] {}", n.id, n.role));
            if !n.text.is_empty() {
                out.push_str(&format!(" \"{}\"", n.text));
            }
            if !n.hint.is_empty() {
                out.push_str(&format!(" hint=\"{}\"", n.hint));
            }
            let b = n.bounds;
            let (x, y) = ((b.x as f32 * sx).round(), (b.y as f32 * sy).round());
            let (w, h) = ((b.w as f32 * sx).round(), (b.h as f32 * sy).round());
            out.push_str(&format!(" @({x},{y},{w},{h})"));
            for (flag, name) in [
                (n.clickable, "clickable"),
                (n.editable, "editable"),
                (n.focused, "focused"),
                (n.checked, "checked"),
                (n.selected, "selected"),
                (n.scrollable, "scrollable"),
                (!n.enabled, "disabled"),
            ] {
                if flag {
                    out.push(' ');
                    out.push_str(name);
                }
            }
            out.push('\n');
        }
        out
    }
}
