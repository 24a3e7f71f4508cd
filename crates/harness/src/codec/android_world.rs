//! AndroidWorld / MobileWorld JSON actions: `{"action_type": "click", "index": 3}` or with
//! `x`, `y` in pixels. `index` points into the UI element list the prompt shows (the
//! observation's UI tree, in order).

use guigym_core::{Action, InvalidAction, Observation, Point, TerminateStatus};
use serde_json::{json, Map, Value};

use super::{direction, direction_name, finite, flag, int, invalid, json_object, num, text};

pub const CONVENTION: super::Convention = super::Convention::new("android_world", DESCRIPTION, parse, encode).naming_elements();

pub const DESCRIPTION: &str = r#"Reply with one JSON object keyed by "action_type". Target an element by "index" (its number in the UI element list) or by "x", "y".
click / double_tap / long_press / right_click {index | x, y}; input_text {text, index?, clear_text?}; keyboard_enter; key {keys};
scroll {direction: up|down|left|right, index? | x?, y?, amount?}; swipe / drag {start_x, start_y, end_x, end_y};
navigate_home; navigate_back; open_app {app_name}; wait {ms}; answer {text}; ask_user {text};
status {goal_status: complete|infeasible|failure}"#;

/// Element id of the `index`-th UI node, or the point `x`, `y`.
fn target(m: &Map<String, Value>, obs: &Observation) -> Result<(Option<Point>, Option<String>), InvalidAction> {
    if let Some(i) = m.get("index") {
        let i = num(Some(i), "index")?;
        let node = (i >= 0.0 && i.fract() == 0.0).then(|| obs.ui_tree.get(i as usize)).flatten();
        return match node {
            Some(n) => Ok((None, Some(n.id.clone()))),
            None => Err(invalid(format!("index {i} is not in the UI element list (0..{})", obs.ui_tree.len()))),
        };
    }
    if m.contains_key("x") || m.contains_key("y") {
        return Ok((Some(finite(Point(num(m.get("x"), "x")?, num(m.get("y"), "y")?), "x, y")?), None));
    }
    Ok((None, None))
}

fn required(t: (Option<Point>, Option<String>), kind: &str) -> Result<(Option<Point>, Option<String>), InvalidAction> {
    if t.0.is_none() && t.1.is_none() {
        return Err(invalid(format!("{kind} needs `index` or `x`, `y`")));
    }
    Ok(t)
}

fn segment(m: &Map<String, Value>) -> Result<(Point, Point), InvalidAction> {
    let from = finite(Point(num(m.get("start_x"), "start_x")?, num(m.get("start_y"), "start_y")?), "start")?;
    let to = finite(Point(num(m.get("end_x"), "end_x")?, num(m.get("end_y"), "end_y")?), "end")?;
    Ok((from, to))
}

pub fn parse(raw: &str, obs: &Observation) -> Result<Action, InvalidAction> {
    let m = json_object(raw)?;
    let kind = text(m.get("action_type"), "action_type")?;
    Ok(match kind.as_str() {
        "click" => {
            let (at, element) = required(target(&m, obs)?, "click")?;
            Action::Click { at, element }
        }
        "double_tap" => {
            let (at, element) = required(target(&m, obs)?, "double_tap")?;
            Action::DoubleClick { at, element }
        }
        "long_press" => {
            let (at, element) = required(target(&m, obs)?, "long_press")?;
            Action::LongPress { at, element }
        }
        "right_click" => {
            let (at, element) = required(target(&m, obs)?, "right_click")?;
            Action::RightClick { at, element }
        }
        "input_text" | "type" => {
            let (_, element) = target(&m, obs)?;
            Action::Type { text: text(m.get("text"), "text")?, element, clear: flag(m.get("clear_text")) }
        }
        "keyboard_enter" => Action::Key { keys: vec!["enter".into()] },
        "key" => match m.get("keys") {
            Some(Value::Array(ks)) => Action::Key { keys: ks.iter().map(|k| text(Some(k), "keys")).collect::<Result<_, _>>()? },
            _ => return Err(invalid("key needs `keys`: a list of key names")),
        },
        "scroll" => {
            let (at, element) = target(&m, obs)?;
            let amount = m.get("amount").map(|v| num(Some(v), "amount")).transpose()?.unwrap_or(1.0).clamp(1.0, 20.0) as u32;
            let (at, element) = match (at, element) {
                (None, None) => (Some(Point(obs.width as f32 / 2.0, obs.height as f32 / 2.0)), None),
                t => t,
            };
            Action::Scroll { at, element, direction: direction(&text(m.get("direction"), "direction")?)?, amount }
        }
        "swipe" => {
            let (from, to) = segment(&m)?;
            Action::Swipe { from, to }
        }
        "drag" => {
            let (from, to) = segment(&m)?;
            Action::Drag { from, to }
        }
        "navigate_home" => Action::Home,
        "navigate_back" => Action::Back,
        "open_app" => Action::OpenApp { name: text(m.get("app_name"), "app_name")? },
        "wait" => Action::Wait { ms: m.get("ms").map(|v| num(Some(v), "ms")).transpose()?.unwrap_or(1000.0).clamp(0.0, 600_000.0) as u64 },
        "answer" => Action::Answer { text: text(m.get("text"), "text")? },
        "ask_user" => Action::AskUser { text: text(m.get("text"), "text")? },
        "status" | "finished" => Action::Terminate { status: super::status(&text(m.get("goal_status"), "goal_status")?)? },
        "unknown" => return Err(invalid("the action type was `unknown`")),
        other => return Err(invalid(format!("unknown action_type {other:?}"))),
    })
}

/// `index` of an element in the observation's list, or `x`, `y`.
fn put_target(m: &mut Map<String, Value>, at: &Option<Point>, element: &Option<String>, obs: &Observation) -> Option<()> {
    if let Some(e) = element {
        let i = obs.ui_tree.iter().position(|n| &n.id == e)?;
        m.insert("index".into(), json!(i));
    } else if let Some(p) = at {
        m.insert("x".into(), json!(int(p.0)));
        m.insert("y".into(), json!(int(p.1)));
    }
    Some(())
}

pub fn encode(action: &Action, obs: &Observation) -> Option<String> {
    let mut m = Map::new();
    let kind = match action {
        Action::Click { at, element } => {
            put_target(&mut m, at, element, obs)?;
            "click"
        }
        Action::DoubleClick { at, element } => {
            put_target(&mut m, at, element, obs)?;
            "double_tap"
        }
        Action::LongPress { at, element } => {
            put_target(&mut m, at, element, obs)?;
            "long_press"
        }
        Action::RightClick { at, element } => {
            put_target(&mut m, at, element, obs)?;
            "right_click"
        }
        Action::Type { text, element, clear } => {
            put_target(&mut m, &None, element, obs)?;
            m.insert("text".into(), json!(text));
            m.insert("clear_text".into(), json!(clear));
            "input_text"
        }
        Action::Key { keys } if keys.len() == 1 && keys[0] == "enter" => "keyboard_enter",
        Action::Key { keys } => {
            m.insert("keys".into(), json!(keys));
            "key"
        }
        Action::Scroll { at, element, direction, amount } => {
            put_target(&mut m, at, element, obs)?;
            m.insert("direction".into(), json!(direction_name(*direction)));
            m.insert("amount".into(), json!(amount));
            "scroll"
        }
        Action::Swipe { from, to } | Action::Drag { from, to } => {
            m.insert("start_x".into(), json!(int(from.0)));
            m.insert("start_y".into(), json!(int(from.1)));
            m.insert("end_x".into(), json!(int(to.0)));
            m.insert("end_y".into(), json!(int(to.1)));
            if matches!(action, Action::Swipe { .. }) {
                "swipe"
            } else {
                "drag"
            }
        }
        Action::Home => "navigate_home",
        Action::Back => "navigate_back",
        Action::OpenApp { name } => {
            m.insert("app_name".into(), json!(name));
            "open_app"
        }
        Action::Wait { ms } => {
            m.insert("ms".into(), json!(ms));
            "wait"
        }
        Action::Answer { text } => {
            m.insert("text".into(), json!(text));
            "answer"
        }
        Action::AskUser { text } => {
            m.insert("text".into(), json!(text));
            "ask_user"
        }
        Action::Terminate { status } => {
            let s = match status {
                TerminateStatus::Success => "complete",
                TerminateStatus::Failure => "failure",
                TerminateStatus::Infeasible => "infeasible",
            };
            m.insert("goal_status".into(), json!(s));
            "status"
        }
    };
    let mut out = Map::new();
    out.insert("action_type".into(), json!(kind));
    out.extend(m);
    Some(Value::Object(out).to_string())
}
