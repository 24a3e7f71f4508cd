//! The canonical action space: JSON objects tagged by `action`, coordinates in screenshot
//! pixels, or an `element` id from the UI tree instead of coordinates.

use serde::{Deserialize, Serialize};

/// A point in screenshot pixels, written `[x, y]` in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Point(pub f32, pub f32);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TerminateStatus {
    Success,
    Failure,
    Infeasible,
}

impl TerminateStatus {
    /// The name actions spell it with.
    pub fn name(self) -> &'static str {
        match self {
            TerminateStatus::Success => "success",
            TerminateStatus::Failure => "failure",
            TerminateStatus::Infeasible => "infeasible",
        }
    }
}

/// One action an agent takes. Pointer actions target either `at` (pixels) or `element`
/// (a UI-tree id); exactly one of the two must be given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    Click {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Point>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        element: Option<String>,
    },
    DoubleClick {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Point>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        element: Option<String>,
    },
    LongPress {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Point>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        element: Option<String>,
    },
    RightClick {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Point>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        element: Option<String>,
    },
    Drag {
        from: Point,
        to: Point,
    },
    Swipe {
        from: Point,
        to: Point,
    },
    Scroll {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<Point>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        element: Option<String>,
        direction: Direction,
        #[serde(default = "one")]
        amount: u32,
    },
    Type {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        element: Option<String>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        clear: bool,
    },
    Key {
        keys: Vec<String>,
    },
    Back,
    Home,
    OpenApp {
        name: String,
    },
    Wait {
        #[serde(default = "default_wait_ms")]
        ms: u64,
    },
    Answer {
        text: String,
    },
    AskUser {
        text: String,
    },
    Terminate {
        status: TerminateStatus,
    },
}

/// Most keys one `key` action may press together.
pub const MAX_KEYS: usize = 8;

/// Modifier keys every backend knows.
pub const MODIFIER_KEYS: &[&str] = &["ctrl", "control", "alt", "shift", "meta", "cmd", "super", "win"];

/// Named keys every backend knows (besides single characters and f1 to f12).
pub const NAMED_KEYS: &[&str] = &[
    "enter",
    "return",
    "tab",
    "backspace",
    "delete",
    "del",
    "escape",
    "esc",
    "space",
    "back",
    "home",
    "end",
    "up",
    "down",
    "left",
    "right",
    "pageup",
    "pagedown",
    "insert",
];
/// Most characters one `type`, `answer` or `ask_user` may carry.
pub const MAX_TEXT_CHARS: usize = 5_000;

fn one() -> u32 {
    1
}

fn default_wait_ms() -> u64 {
    1000
}

/// Where a pointer action lands.
#[derive(Debug, Clone, PartialEq)]
pub enum Target<'a> {
    At(Point),
    Element(&'a str),
}

impl Action {
    /// The action's name as it appears in the `action` tag.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Click { .. } => "click",
            Action::DoubleClick { .. } => "double_click",
            Action::LongPress { .. } => "long_press",
            Action::RightClick { .. } => "right_click",
            Action::Drag { .. } => "drag",
            Action::Swipe { .. } => "swipe",
            Action::Scroll { .. } => "scroll",
            Action::Type { .. } => "type",
            Action::Key { .. } => "key",
            Action::Back => "back",
            Action::Home => "home",
            Action::OpenApp { .. } => "open_app",
            Action::Wait { .. } => "wait",
            Action::Answer { .. } => "answer",
            Action::AskUser { .. } => "ask_user",
            Action::Terminate { .. } => "terminate",
        }
    }

    /// Every action name, in a stable order (for prompts and random policies).
    pub const NAMES: [&'static str; 16] = [
        "click",
        "double_click",
        "long_press",
        "right_click",
        "drag",
        "swipe",
        "scroll",
        "type",
        "key",
        "back",
        "home",
        "open_app",
        "wait",
        "answer",
        "ask_user",
        "terminate",
    ];

    /// The pointer target of a click-like or scroll action. `Ok(None)` for actions without
    /// one; an error when both or neither of `at` and `element` are given.
    pub fn target(&self) -> Result<Option<Target<'_>>, crate::InvalidAction> {
        let (at, element) = match self {
            Action::Click { at, element }
            | Action::DoubleClick { at, element }
            | Action::LongPress { at, element }
            | Action::RightClick { at, element }
            | Action::Scroll { at, element, .. } => (at, element),
            _ => return Ok(None),
        };
        match (at, element) {
            (Some(p), None) => Ok(Some(Target::At(*p))),
            (None, Some(e)) => Ok(Some(Target::Element(e))),
            (Some(_), Some(_)) => Err(crate::InvalidAction::new(format!("{}: give either `at` or `element`, not both", self.name()))),
            (None, None) => Err(crate::InvalidAction::new(format!("{}: needs `at` [x, y] or `element`", self.name()))),
        }
    }

    /// Parse one canonical action from JSON text. Errors are worded for the agent's feedback.
    pub fn from_json(text: &str) -> Result<Action, crate::InvalidAction> {
        serde_json::from_str(text).map_err(|e| crate::InvalidAction::new(format!("malformed action JSON: {e}")))
    }

    /// Limits every action obeys, whatever codec it came through: an action outside them is
    /// invalid (a step with feedback), never applied.
    pub fn check(&self) -> Result<(), crate::InvalidAction> {
        let bad = |m: String| Err(crate::InvalidAction::new(m));
        let text_limit = |field: &str, t: &str, max: usize| {
            let n = t.chars().count();
            if n > max {
                bad(format!("`{field}` has {n} characters; at most {max} are allowed"))
            } else {
                Ok(())
            }
        };
        match self {
            Action::Key { keys } => {
                if keys.is_empty() {
                    return bad("`keys` is empty: name at least one key".into());
                }
                if keys.len() > MAX_KEYS {
                    return bad(format!("{} keys pressed at once; at most {MAX_KEYS}", keys.len()));
                }
                if let Some(k) = keys.iter().find(|k| k.trim().is_empty() || k.chars().count() > 32) {
                    return bad(format!("{:?} is not a key name", k.chars().take(40).collect::<String>()));
                }
                Ok(())
            }
            Action::Type { text, .. } => text_limit("text", text, MAX_TEXT_CHARS),
            Action::Answer { text } | Action::AskUser { text } => text_limit("text", text, MAX_TEXT_CHARS),
            Action::OpenApp { name } => text_limit("name", name, 100),
            Action::Wait { ms } if *ms > 600_000 => bad(format!("wait of {ms} ms; at most 600000")),
            _ => Ok(()),
        }
    }

    /// For a backend whose keyboard knows the portable key names only (the phone, a browser
    /// page): a chord of modifiers and at most one other key, each a name below or a single
    /// character. (The desktop takes X's key names too, and checks them itself.)
    pub fn portable_chord(keys: &[String]) -> Result<(), crate::InvalidAction> {
        let mut others = 0;
        for k in keys {
            let lower = k.trim().to_lowercase();
            if MODIFIER_KEYS.contains(&lower.as_str()) {
                continue;
            }
            let one_char = lower.chars().count() == 1 && !lower.chars().any(char::is_control);
            let function = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()).is_some_and(|n| (1..=12).contains(&n));
            if !(one_char || function || NAMED_KEYS.contains(&lower.as_str())) {
                return Err(crate::InvalidAction::new(format!(
                    "unknown key {:?}: keys are {}, f1 to f12, a single character, or the modifiers {}",
                    k.chars().take(40).collect::<String>(),
                    NAMED_KEYS.join(", "),
                    MODIFIER_KEYS.join(", ")
                )));
            }
            others += 1;
        }
        if others > 1 {
            return Err(crate::InvalidAction::new("press one key at a time (with any modifiers): a chord holds at most one key that is not a modifier"));
        }
        Ok(())
    }

    pub fn to_json(&self) -> String {
        // Serializing a plain enum of strings and numbers cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn click_element(id: impl Into<String>) -> Action {
        Action::Click { at: None, element: Some(id.into()) }
    }

    /// A field filled as a person does on a touch screen: tapped, then its text replaced.
    pub fn fill_field(id: &str, text: &str) -> Vec<Action> {
        vec![Action::click_element(id), Action::Type { text: text.into(), element: None, clear: true }]
    }

    pub fn click_at(x: f32, y: f32) -> Action {
        Action::Click { at: Some(Point(x, y)), element: None }
    }

    pub fn type_into(id: impl Into<String>, text: impl Into<String>) -> Action {
        Action::Type { text: text.into(), element: Some(id.into()), clear: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_tagged_by_action() {
        let a = Action::click_at(10.0, 20.0);
        assert_eq!(a.to_json(), r#"{"action":"click","at":[10.0,20.0]}"#);
        let t = Action::Terminate { status: TerminateStatus::Infeasible };
        assert_eq!(t.to_json(), r#"{"action":"terminate","status":"infeasible"}"#);
        assert_eq!(Action::from_json(r#"{"action":"back"}"#).unwrap(), Action::Back);
    }

    #[test]
    fn malformed_action_json_gets_a_clear_error() {
        let err = Action::from_json(r#"{"action":"click","at":[1]}"#).unwrap_err();
        assert!(err.message.contains("malformed action JSON"), "{}", err.message);
        let err = Action::from_json(r#"{"action":"fly"}"#).unwrap_err();
        assert!(err.message.contains("fly"), "{}", err.message);
        let err = Action::from_json(r#"{"action":"type","text":"a","colour":1}"#).unwrap_err();
        assert!(err.message.contains("colour"), "{}", err.message);
        let err = Action::from_json("not json").unwrap_err();
        assert!(err.message.contains("malformed"));
    }

    #[test]
    fn portable_chords_are_modifiers_and_one_known_key() {
        let chord = |keys: &[&str]| Action::portable_chord(&keys.iter().map(|k| k.to_string()).collect::<Vec<_>>());
        for ok in [&["ctrl", "s"][..], &["Enter"], &["shift", "Tab"], &["f5"], &["é"], &["PageDown"], &["ctrl", "alt", "delete"], &["meta"]] {
            assert!(chord(ok).is_ok(), "{ok:?}");
        }
        for bad in [&["zzz"][..], &["ctrl+s"], &["\u{0}"], &["a", "b"], &["f13"], &["<script>"]] {
            assert!(chord(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn target_needs_exactly_one_of_at_and_element() {
        let both = Action::Click { at: Some(Point(1.0, 1.0)), element: Some("x".into()) };
        assert!(both.target().is_err());
        let none = Action::Click { at: None, element: None };
        assert!(none.target().is_err());
        assert_eq!(Action::click_element("a").target().unwrap(), Some(Target::Element("a")));
        assert_eq!(Action::Back.target().unwrap(), None);
    }

    #[test]
    fn every_name_is_listed() {
        let samples = [
            Action::click_at(0.0, 0.0),
            Action::DoubleClick { at: Some(Point(0.0, 0.0)), element: None },
            Action::LongPress { at: Some(Point(0.0, 0.0)), element: None },
            Action::RightClick { at: Some(Point(0.0, 0.0)), element: None },
            Action::Drag { from: Point(0.0, 0.0), to: Point(1.0, 1.0) },
            Action::Swipe { from: Point(0.0, 0.0), to: Point(1.0, 1.0) },
            Action::Scroll { at: None, element: Some("l".into()), direction: Direction::Down, amount: 1 },
            Action::Type { text: "x".into(), element: None, clear: true },
            Action::Key { keys: vec!["ctrl".into(), "s".into()] },
            Action::Back,
            Action::Home,
            Action::OpenApp { name: "Mail".into() },
            Action::Wait { ms: 5 },
            Action::Answer { text: "42".into() },
            Action::AskUser { text: "which?".into() },
            Action::Terminate { status: TerminateStatus::Success },
        ];
        for (a, name) in samples.iter().zip(Action::NAMES) {
            assert_eq!(a.name(), name);
            let back = Action::from_json(&a.to_json()).unwrap();
            assert_eq!(&back, a);
        }
    }
}
