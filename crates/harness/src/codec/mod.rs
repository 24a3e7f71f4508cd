//! Action codecs: the conventions agents already speak, translated to and from canonical
//! actions. Each codec describes its action space for the system prompt, parses model output
//! (tolerating reasoning around it and code fences) and encodes canonical actions (for
//! scripted servers and round-trip tests).
//!
//! Coordinates here are in the model's space (the resized image, or 0..1000); the harness
//! maps them to screenshot pixels. An element target that a convention cannot name is
//! encoded as the element's centre.

use guigym_core::{Action, InvalidAction, Observation, Point};
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod android_world;
mod anthropic;
mod canonical;
mod pyautogui;
mod qwen;
mod ui_tars;

pub use canonical::first_json_object;

/// One convention: its name, its action space worded for a prompt, and how a reply is read
/// and an action written. Each codec module defines one; `Codec::ALL` lists them, so a new
/// codec is a module and one line there.
pub struct Convention {
    /// The name configs and the command line spell it with.
    pub name: &'static str,
    /// The action space, worded for a system prompt.
    pub description: &'static str,
    /// Reads one candidate action (points in model space).
    pub parse: fn(&str, &Observation) -> Result<Action, InvalidAction>,
    /// Writes an action, its points in model space and (unless `names_elements`) its element
    /// targets already resolved to points; `None` when the convention cannot say it.
    pub encode: fn(&Action, &Observation) -> Option<String>,
    /// Where each candidate of a reply starts: its calls, for call-style conventions; `None`
    /// reads each top-level JSON object as one.
    pub call_starts: Option<fn(&str) -> Vec<usize>>,
    /// Whether it is a tool call (so a server's structured `tool_calls` are its native form).
    pub tool_call: bool,
    /// Whether it names elements itself (by id or index), so encoding keeps element targets.
    pub names_elements: bool,
}

impl Convention {
    /// A convention whose replies are read one JSON object at a time, that is no tool call
    /// and names no elements (element targets become their centres before `encode`).
    pub const fn new(
        name: &'static str,
        description: &'static str,
        parse: fn(&str, &Observation) -> Result<Action, InvalidAction>,
        encode: fn(&Action, &Observation) -> Option<String>,
    ) -> Convention {
        Convention { name, description, parse, encode, call_starts: None, tool_call: false, names_elements: false }
    }

    /// Replies read one call at a time, each starting where `call_starts` says.
    pub const fn reading_calls(self, call_starts: fn(&str) -> Vec<usize>) -> Convention {
        Convention { call_starts: Some(call_starts), ..self }
    }

    /// A tool call: a server's structured `tool_calls` are its native form.
    pub const fn as_tool_call(self) -> Convention {
        Convention { tool_call: true, ..self }
    }

    /// It names elements itself (by id or index): encoding keeps element targets.
    pub const fn naming_elements(self) -> Convention {
        Convention { names_elements: true, ..self }
    }
}

/// A codec: one of the conventions in `Codec::ALL`. Configs name it (`"qwen"`).
#[derive(Clone, Copy)]
pub struct Codec(&'static Convention);

impl Codec {
    /// guigym's own JSON actions (`{"action": "click", "at": [x, y]}`).
    pub const CANONICAL: Codec = Codec(&canonical::CONVENTION);
    /// Qwen-VL tool calls: `<tool_call>{"name": "mobile_use", "arguments": {…}}</tool_call>`.
    pub const QWEN: Codec = Codec(&qwen::CONVENTION);
    /// AndroidWorld / MobileWorld JSON actions (`{"action_type": "click", "index": 3}`).
    pub const ANDROID_WORLD: Codec = Codec(&android_world::CONVENTION);
    /// Anthropic computer-use tool inputs (`{"action": "left_click", "coordinate": [x, y]}`).
    pub const ANTHROPIC: Codec = Codec(&anthropic::CONVENTION);
    /// pyautogui-like calls (`pyautogui.click(x=10, y=20)`).
    pub const PYAUTOGUI: Codec = Codec(&pyautogui::CONVENTION);
    /// UI-TARS calls after `Action:` (`click(start_box='(x,y)')`, `press_back()`,
    /// `finished(content='…')`).
    pub const UI_TARS: Codec = Codec(&ui_tars::CONVENTION);

    /// Every codec, the default first.
    pub const ALL: [Codec; 6] = [Codec::CANONICAL, Codec::QWEN, Codec::ANDROID_WORLD, Codec::ANTHROPIC, Codec::PYAUTOGUI, Codec::UI_TARS];

    /// The name configs and the command line spell it with.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The codec of that name.
    pub fn named(name: &str) -> Option<Codec> {
        Codec::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The codecs' names, for messages.
    pub fn names() -> String {
        Codec::ALL.map(Codec::name).join(", ")
    }

    /// The action space, worded for a system prompt.
    pub fn describe(self) -> &'static str {
        self.0.description
    }

    /// Parses model output into an action (points in model space). The observation resolves
    /// element indices. A reply must hold exactly one action: every candidate in it (each
    /// `<tool_call>`, each JSON object, each call) is read, and two that parse are an invalid
    /// step, never the first one silently.
    pub fn parse(self, raw: &str, obs: &Observation) -> Result<Action, InvalidAction> {
        let mut actions = Vec::new();
        let mut first_error = None;
        for segment in self.segments(raw) {
            match (self.0.parse)(&segment, obs) {
                Ok(a) => actions.push(a),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match actions.len() {
            1 => Ok(actions.remove(0)),
            0 => Err(first_error.unwrap_or_else(|| invalid("no action found in the output"))),
            n => Err(invalid(format!("{n} actions in one reply: send exactly one action per turn"))),
        }
    }

    /// The candidate actions of a reply. Tool calls (`<tool_call>` blocks, which is also how
    /// structured `tool_calls` of the chat API arrive) are unwrapped to their arguments;
    /// otherwise each JSON object, or each call, is one candidate.
    fn segments(self, raw: &str) -> Vec<String> {
        let calls = tool_call_bodies(raw);
        if !calls.is_empty() {
            // An action written in the text beside the tool calls is one more candidate.
            let mut out: Vec<String> = calls.into_iter().map(|body| self.unwrap_tool_call(body)).collect();
            out.extend(self.plain_segments(&without_tool_calls(raw)));
            return out;
        }
        let plain = self.plain_segments(raw);
        if plain.is_empty() {
            return vec![raw.to_string()];
        }
        plain
    }

    /// Each JSON object, or each call, of text without tool-call blocks.
    fn plain_segments(self, raw: &str) -> Vec<String> {
        let starts = match self.0.call_starts {
            Some(call_starts) => call_starts(raw),
            None => json_object_starts(raw),
        };
        let mut ends: Vec<usize> = starts.iter().skip(1).copied().collect();
        ends.push(raw.len());
        starts.iter().zip(ends).map(|(s, e)| raw[*s..e].to_string()).collect()
    }

    /// A tool call's arguments, as the text this codec reads (`{"name": …, "arguments": {…}}`
    /// → the arguments; a `code` argument for call-style codecs → the code).
    fn unwrap_tool_call(self, body: &str) -> String {
        let Some(Value::Object(call)) = first_json_object(body).and_then(|j| serde_json::from_str::<Value>(j).ok()) else {
            return body.to_string();
        };
        let args = match call.get("arguments").or_else(|| call.get("input")) {
            Some(Value::String(s)) => serde_json::from_str::<Value>(s).unwrap_or(Value::String(s.clone())),
            Some(v) => v.clone(),
            None => Value::Object(call.clone()),
        };
        match (self.0.call_starts, &args) {
            (Some(_), Value::Object(a)) => match a.get("code").or_else(|| a.get("action")) {
                Some(Value::String(code)) => code.clone(),
                _ => args.to_string(),
            },
            (_, Value::String(s)) => s.clone(),
            _ => args.to_string(),
        }
    }

    /// Writes an action as this convention would (points in model space). Element targets
    /// that the convention cannot name become the element's centre on `obs`; `None` when the
    /// element is not on screen.
    pub fn encode(self, action: &Action, obs: &Observation) -> Option<String> {
        if self.0.names_elements {
            (self.0.encode)(action, obs)
        } else {
            (self.0.encode)(&resolve_elements(action, obs)?, obs)
        }
    }

    /// Whether this convention is a tool call (so a server's structured `tool_calls` are its
    /// native form).
    pub fn is_tool_call(self) -> bool {
        self.0.tool_call
    }

    /// Whether this convention names elements itself (by id or index).
    pub fn names_elements(self) -> bool {
        self.0.names_elements
    }
}

impl PartialEq for Codec {
    fn eq(&self, other: &Codec) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Codec {}

impl std::fmt::Debug for Codec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Codec {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Codec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Codec, D::Error> {
        let name = String::deserialize(deserializer)?;
        Codec::named(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown codec {name:?}; codecs: {}", Codec::names())))
    }
}

/// The bodies of `<tool_call>…</tool_call>` blocks (an unclosed last one runs to the end).
pub fn tool_call_bodies(raw: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = raw;
    while let Some(start) = rest.find("<tool_call>") {
        let after = &rest[start + "<tool_call>".len()..];
        let end = after.find("</tool_call>").unwrap_or(after.len());
        out.push(&after[..end]);
        rest = &after[(end + "</tool_call>".len()).min(after.len())..];
    }
    out
}

/// The text of a reply with its `<tool_call>` blocks taken out.
fn without_tool_calls(raw: &str) -> String {
    let mut out = String::new();
    let mut rest = raw;
    while let Some(start) = rest.find("<tool_call>") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "<tool_call>".len()..];
        rest = match after.find("</tool_call>") {
            Some(end) => &after[end + "</tool_call>".len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// Where each top-level `{…}` of a reply starts.
fn json_object_starts(raw: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut from = 0;
    while let Some(obj) = first_json_object(&raw[from..]) {
        let start = from + (obj.as_ptr() as usize - raw[from..].as_ptr() as usize);
        starts.push(start);
        from = start + obj.len();
    }
    starts
}

/// Replaces element targets with the element's centre (rounded down to whole pixels).
pub fn resolve_elements(action: &Action, obs: &Observation) -> Option<Action> {
    let centre = |id: &str| {
        obs.node(id).filter(|n| n.bounds.w > 0 && n.bounds.h > 0).map(|n| {
            let (x, y) = n.bounds.center();
            Point(x.floor(), y.floor())
        })
    };
    Some(match action.clone() {
        Action::Click { element: Some(e), .. } => Action::Click { at: Some(centre(&e)?), element: None },
        Action::DoubleClick { element: Some(e), .. } => Action::DoubleClick { at: Some(centre(&e)?), element: None },
        Action::LongPress { element: Some(e), .. } => Action::LongPress { at: Some(centre(&e)?), element: None },
        Action::RightClick { element: Some(e), .. } => Action::RightClick { at: Some(centre(&e)?), element: None },
        Action::Scroll { element: Some(e), direction, amount, .. } => Action::Scroll { at: Some(centre(&e)?), element: None, direction, amount },
        // Typing into a named field: tap it first is the caller's business; here the text
        // goes to the focused field.
        Action::Type { text, clear, .. } => Action::Type { text, element: None, clear },
        other => other,
    })
}

/// Applies `f` to every point of an action.
pub fn map_points(action: Action, f: impl Fn(Point) -> Point) -> Action {
    match action {
        Action::Click { at, element } => Action::Click { at: at.map(&f), element },
        Action::DoubleClick { at, element } => Action::DoubleClick { at: at.map(&f), element },
        Action::LongPress { at, element } => Action::LongPress { at: at.map(&f), element },
        Action::RightClick { at, element } => Action::RightClick { at: at.map(&f), element },
        Action::Drag { from, to } => Action::Drag { from: f(from), to: f(to) },
        Action::Swipe { from, to } => Action::Swipe { from: f(from), to: f(to) },
        Action::Scroll { at, element, direction, amount } => Action::Scroll { at: at.map(&f), element, direction, amount },
        other => other,
    }
}

// ---- helpers shared by the JSON codecs ----

pub(crate) fn invalid(message: impl Into<String>) -> InvalidAction {
    InvalidAction::new(message)
}

/// A number, also when written as a string.
pub(crate) fn num(v: Option<&Value>, field: &str) -> Result<f32, InvalidAction> {
    match v {
        Some(Value::Number(n)) => n.as_f64().map(|f| f as f32).ok_or_else(|| invalid(format!("`{field}` is not a number"))),
        Some(Value::String(s)) => s.trim().parse::<f32>().map_err(|_| invalid(format!("`{field}` is not a number: {s:?}"))),
        Some(other) => Err(invalid(format!("`{field}` is not a number: {other}"))),
        None => Err(invalid(format!("missing `{field}`"))),
    }
}

pub(crate) fn finite(p: Point, field: &str) -> Result<Point, InvalidAction> {
    if p.0.is_finite() && p.1.is_finite() {
        Ok(p)
    } else {
        Err(invalid(format!("`{field}` is not a finite point")))
    }
}

/// `[x, y]` (numbers or numeric strings).
pub(crate) fn point(v: Option<&Value>, field: &str) -> Result<Point, InvalidAction> {
    match v {
        Some(Value::Array(xs)) if xs.len() == 2 => finite(Point(num(xs.first(), field)?, num(xs.get(1), field)?), field),
        Some(other) => Err(invalid(format!("`{field}` must be [x, y], got {other}"))),
        None => Err(invalid(format!("missing `{field}`"))),
    }
}

pub(crate) fn text(v: Option<&Value>, field: &str) -> Result<String, InvalidAction> {
    match v {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(other) => Err(invalid(format!("`{field}` must be text, got {other}"))),
        None => Err(invalid(format!("missing `{field}`"))),
    }
}

pub(crate) fn flag(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Bool(true))) || matches!(v, Some(Value::String(s)) if s.eq_ignore_ascii_case("true"))
}

/// Whole-pixel rendering of a coordinate for encoders.
pub(crate) fn int(v: f32) -> i64 {
    v.round() as i64
}

pub(crate) fn direction(s: &str) -> Result<guigym_core::Direction, InvalidAction> {
    use guigym_core::Direction::*;
    match s.trim().to_lowercase().as_str() {
        "up" => Ok(Up),
        "down" => Ok(Down),
        "left" => Ok(Left),
        "right" => Ok(Right),
        other => Err(invalid(format!("unknown direction {other:?}: use up, down, left or right"))),
    }
}

pub(crate) fn direction_name(d: guigym_core::Direction) -> &'static str {
    use guigym_core::Direction::*;
    match d {
        Up => "up",
        Down => "down",
        Left => "left",
        Right => "right",
    }
}

pub(crate) fn status(s: &str) -> Result<guigym_core::TerminateStatus, InvalidAction> {
    use guigym_core::TerminateStatus::*;
    match s.trim().to_lowercase().as_str() {
        "success" | "complete" | "completed" | "done" => Ok(Success),
        "failure" | "fail" | "failed" => Ok(Failure),
        "infeasible" | "impossible" => Ok(Infeasible),
        other => Err(invalid(format!("unknown status {other:?}: use success, failure or infeasible"))),
    }
}

pub(crate) fn status_name(s: guigym_core::TerminateStatus) -> &'static str {
    use guigym_core::TerminateStatus::*;
    match s {
        Success => "success",
        Failure => "failure",
        Infeasible => "infeasible",
    }
}

/// The JSON object of a reply: the first `{…}` in it, parsed.
pub(crate) fn json_object(raw: &str) -> Result<serde_json::Map<String, Value>, InvalidAction> {
    let json = first_json_object(raw).ok_or_else(|| invalid("no JSON action found in the output"))?;
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(invalid("the action must be a JSON object")),
        Err(e) => Err(invalid(format!("malformed action JSON: {e}"))),
    }
}

#[cfg(test)]
mod tests;
