//! Anthropic computer-use tool inputs: `{"action": "left_click", "coordinate": [x, y]}`, or a
//! whole `tool_use` block whose `input` holds that. Keys use xdotool names ("Return",
//! "ctrl+s"). Actions the phone cannot do (mouse_move, screenshot, zoom…) are invalid.
//! Extensions for a phone: back, home, open_app, long_press, swipe, answer, ask_user,
//! terminate.

use guigym_core::{Action, InvalidAction};
use serde_json::{json, Value};

use super::{direction, direction_name, flag, int, invalid, json_object, num, point, status, status_name, text};

pub const CONVENTION: super::Convention = super::Convention::new("anthropic", DESCRIPTION, |raw, _| parse(raw), |action, _| encode(action)).as_tool_call();

pub const DESCRIPTION: &str = r#"Use the computer tool once per turn; reply with its input as JSON, e.g. {"action": "left_click", "coordinate": [x, y]}.
Actions: left_click / double_click / right_click / long_press {coordinate}; left_click_drag / swipe {start_coordinate, coordinate};
scroll {coordinate, scroll_direction: up|down|left|right, scroll_amount}; type {text, clear}; key {text: "Return" or "ctrl+s"};
wait {duration: seconds}; back; home; open_app {name}; answer {text}; ask_user {text}; terminate {status: success|failure|infeasible}"#;

/// xdotool key names to guigym's (lowercase) key names.
fn key_name(k: &str) -> String {
    match k.trim() {
        "Return" | "KP_Enter" => "enter".into(),
        "BackSpace" => "backspace".into(),
        "Escape" => "escape".into(),
        "Tab" => "tab".into(),
        "space" => "space".into(),
        "super" | "Super_L" | "Super_R" => "meta".into(),
        "Page_Up" | "Prior" => "pageup".into(),
        "Page_Down" | "Next" => "pagedown".into(),
        "Control_L" | "Control_R" => "ctrl".into(),
        "Alt_L" | "Alt_R" => "alt".into(),
        "Shift_L" | "Shift_R" => "shift".into(),
        other => other.to_lowercase(),
    }
}

fn xdotool_name(k: &str) -> String {
    match k {
        "enter" => "Return".into(),
        "backspace" => "BackSpace".into(),
        "escape" => "Escape".into(),
        "tab" => "Tab".into(),
        other => other.to_string(),
    }
}

pub fn parse(raw: &str) -> Result<Action, InvalidAction> {
    let mut m = json_object(raw)?;
    if let Some(Value::Object(input)) = m.get("input") {
        m = input.clone();
    }
    let name = text(m.get("action"), "action")?;
    let at = || point(m.get("coordinate"), "coordinate").map(Some);
    Ok(match name.as_str() {
        "left_click" | "click" => Action::Click { at: at()?, element: None },
        "double_click" => Action::DoubleClick { at: at()?, element: None },
        "right_click" => Action::RightClick { at: at()?, element: None },
        "long_press" => Action::LongPress { at: at()?, element: None },
        "left_click_drag" => Action::Drag { from: point(m.get("start_coordinate"), "start_coordinate")?, to: point(m.get("coordinate"), "coordinate")? },
        "swipe" => Action::Swipe { from: point(m.get("start_coordinate"), "start_coordinate")?, to: point(m.get("coordinate"), "coordinate")? },
        "scroll" => Action::Scroll {
            at: at()?,
            element: None,
            direction: direction(&text(m.get("scroll_direction"), "scroll_direction")?)?,
            amount: m.get("scroll_amount").map(|v| num(Some(v), "scroll_amount")).transpose()?.unwrap_or(1.0).clamp(1.0, 20.0) as u32,
        },
        "type" => Action::Type { text: text(m.get("text"), "text")?, element: None, clear: flag(m.get("clear")) },
        "key" => Action::Key { keys: text(m.get("text"), "text")?.split('+').map(key_name).collect() },
        "wait" => Action::Wait { ms: (num(m.get("duration"), "duration").unwrap_or(1.0).clamp(0.0, 600.0) * 1000.0).round() as u64 },
        "back" => Action::Back,
        "home" => Action::Home,
        "open_app" => Action::OpenApp { name: text(m.get("name"), "name")? },
        "answer" => Action::Answer { text: text(m.get("text"), "text")? },
        "ask_user" => Action::AskUser { text: text(m.get("text"), "text")? },
        "terminate" => Action::Terminate { status: status(&text(m.get("status"), "status")?)? },
        "mouse_move" | "screenshot" | "cursor_position" | "zoom" | "triple_click" | "middle_click" | "left_mouse_down" | "left_mouse_up" | "hold_key" => {
            return Err(invalid(format!("{name} is not supported on this platform")))
        }
        other => return Err(invalid(format!("unknown computer action {other:?}"))),
    })
}

pub fn encode(action: &Action) -> Option<String> {
    let xy = |p: &guigym_core::Point| json!([int(p.0), int(p.1)]);
    let v = match action {
        Action::Click { at: Some(p), .. } => json!({"action": "left_click", "coordinate": xy(p)}),
        Action::DoubleClick { at: Some(p), .. } => json!({"action": "double_click", "coordinate": xy(p)}),
        Action::RightClick { at: Some(p), .. } => json!({"action": "right_click", "coordinate": xy(p)}),
        Action::LongPress { at: Some(p), .. } => json!({"action": "long_press", "coordinate": xy(p)}),
        Action::Drag { from, to } => json!({"action": "left_click_drag", "start_coordinate": xy(from), "coordinate": xy(to)}),
        Action::Swipe { from, to } => json!({"action": "swipe", "start_coordinate": xy(from), "coordinate": xy(to)}),
        Action::Scroll { at: Some(p), direction, amount, .. } => {
            json!({"action": "scroll", "coordinate": xy(p), "scroll_direction": direction_name(*direction), "scroll_amount": amount})
        }
        Action::Type { text, clear, .. } => json!({"action": "type", "text": text, "clear": clear}),
        Action::Key { keys } => {
            // Key names with '+' cannot be written in xdotool syntax.
            if keys.iter().any(|k| k.contains('+') || k.is_empty()) {
                return None;
            }
            json!({"action": "key", "text": keys.iter().map(|k| xdotool_name(k)).collect::<Vec<_>>().join("+")})
        }
        Action::Wait { ms } => json!({"action": "wait", "duration": *ms as f64 / 1000.0}),
        Action::Back => json!({"action": "back"}),
        Action::Home => json!({"action": "home"}),
        Action::OpenApp { name } => json!({"action": "open_app", "name": name}),
        Action::Answer { text } => json!({"action": "answer", "text": text}),
        Action::AskUser { text } => json!({"action": "ask_user", "text": text}),
        Action::Terminate { status } => json!({"action": "terminate", "status": status_name(*status)}),
        _ => return None,
    };
    Some(v.to_string())
}
