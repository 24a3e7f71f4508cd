//! Qwen-VL tool calls: `<tool_call>{"name": "mobile_use", "arguments": {"action": "click",
//! "coordinate": [x, y]}}</tool_call>`. The names follow the `mobile_use` tool of Qwen-VL
//! agents (click, long_press, swipe, type, system_button, open, wait, answer, terminate),
//! extended with the rest of guigym's actions.

use guigym_core::{Action, InvalidAction, Point};
use serde_json::{json, Value};

use super::{direction, direction_name, flag, int, invalid, json_object, num, point, status, status_name, text};

pub const CONVENTION: super::Convention = super::Convention::new("qwen", DESCRIPTION, |raw, _| parse(raw), |action, _| encode(action)).as_tool_call();

pub const DESCRIPTION: &str = r#"Call the mobile_use tool once per turn, inside <tool_call></tool_call>:
<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [x, y]}}</tool_call>
Actions and arguments: click / double_click / long_press / right_click {coordinate}; swipe / drag {coordinate, coordinate2};
scroll {coordinate, direction: up|down|left|right, amount}; type {text, clear}; key {keys: ["ctrl", "s"]};
system_button {button: Back|Home|Enter}; open {text: app name}; wait {time: seconds}; answer {text}; ask_user {text};
terminate {status: success|failure|infeasible}"#;

/// The text between the first `<tool_call>` tags, or the whole reply.
fn call_body(raw: &str) -> &str {
    super::tool_call_bodies(raw).first().copied().unwrap_or(raw)
}

pub fn parse(raw: &str) -> Result<Action, InvalidAction> {
    let call = json_object(call_body(raw))?;
    // {"name": …, "arguments": {…}} or the arguments alone.
    let args = match call.get("arguments") {
        Some(Value::Object(a)) => a.clone(),
        Some(Value::String(s)) => json_object(s)?,
        Some(other) => return Err(invalid(format!("`arguments` must be an object, got {other}"))),
        None => call,
    };
    let name = text(args.get("action"), "action")?;
    let at = || point(args.get("coordinate"), "coordinate").map(Some);
    Ok(match name.as_str() {
        "click" | "left_click" | "tap" => Action::Click { at: at()?, element: None },
        "double_click" | "double_tap" => Action::DoubleClick { at: at()?, element: None },
        "long_press" => Action::LongPress { at: at()?, element: None },
        "right_click" => Action::RightClick { at: at()?, element: None },
        "swipe" => Action::Swipe { from: point(args.get("coordinate"), "coordinate")?, to: point(args.get("coordinate2"), "coordinate2")? },
        "drag" => Action::Drag { from: point(args.get("coordinate"), "coordinate")?, to: point(args.get("coordinate2"), "coordinate2")? },
        "scroll" => Action::Scroll {
            at: at()?,
            element: None,
            direction: direction(&text(args.get("direction"), "direction")?)?,
            amount: args.get("amount").map(|v| num(Some(v), "amount")).transpose()?.unwrap_or(1.0).clamp(1.0, 20.0) as u32,
        },
        "type" => Action::Type { text: text(args.get("text"), "text")?, element: None, clear: flag(args.get("clear")) },
        "key" => match args.get("keys") {
            Some(Value::Array(ks)) => Action::Key { keys: ks.iter().map(|k| text(Some(k), "keys")).collect::<Result<_, _>>()? },
            _ => Action::Key { keys: text(args.get("text"), "keys")?.split('+').map(|k| k.trim().to_lowercase()).collect() },
        },
        "system_button" => match text(args.get("button"), "button")?.to_lowercase().as_str() {
            "back" => Action::Back,
            "home" => Action::Home,
            "enter" => Action::Key { keys: vec!["enter".into()] },
            other => return Err(invalid(format!("unknown system button {other:?}: use Back, Home or Enter"))),
        },
        "open" | "open_app" | "awake" => Action::OpenApp { name: text(args.get("text").or(args.get("name")), "text")? },
        "wait" => Action::Wait { ms: (num(args.get("time"), "time").unwrap_or(1.0).clamp(0.0, 600.0) * 1000.0).round() as u64 },
        "answer" => Action::Answer { text: text(args.get("text"), "text")? },
        "ask_user" | "interact" => Action::AskUser { text: text(args.get("text"), "text")? },
        "terminate" => Action::Terminate { status: status(&text(args.get("status"), "status")?)? },
        other => return Err(invalid(format!("unknown action {other:?} for mobile_use"))),
    })
}

fn xy(p: Point) -> Value {
    json!([int(p.0), int(p.1)])
}

pub fn encode(action: &Action) -> Option<String> {
    let args = match action {
        Action::Click { at: Some(p), .. } => json!({"action": "click", "coordinate": xy(*p)}),
        Action::DoubleClick { at: Some(p), .. } => json!({"action": "double_click", "coordinate": xy(*p)}),
        Action::LongPress { at: Some(p), .. } => json!({"action": "long_press", "coordinate": xy(*p)}),
        Action::RightClick { at: Some(p), .. } => json!({"action": "right_click", "coordinate": xy(*p)}),
        Action::Swipe { from, to } => json!({"action": "swipe", "coordinate": xy(*from), "coordinate2": xy(*to)}),
        Action::Drag { from, to } => json!({"action": "drag", "coordinate": xy(*from), "coordinate2": xy(*to)}),
        Action::Scroll { at: Some(p), direction, amount, .. } => {
            json!({"action": "scroll", "coordinate": xy(*p), "direction": direction_name(*direction), "amount": amount})
        }
        Action::Type { text, clear, .. } => json!({"action": "type", "text": text, "clear": clear}),
        Action::Key { keys } => json!({"action": "key", "keys": keys}),
        Action::Back => json!({"action": "system_button", "button": "Back"}),
        Action::Home => json!({"action": "system_button", "button": "Home"}),
        Action::OpenApp { name } => json!({"action": "open", "text": name}),
        Action::Wait { ms } => json!({"action": "wait", "time": *ms as f64 / 1000.0}),
        Action::Answer { text } => json!({"action": "answer", "text": text}),
        Action::AskUser { text } => json!({"action": "ask_user", "text": text}),
        Action::Terminate { status } => json!({"action": "terminate", "status": status_name(*status)}),
        _ => return None,
    };
    Some(format!("<tool_call>\n{}\n</tool_call>", json!({"name": "mobile_use", "arguments": args})))
}
