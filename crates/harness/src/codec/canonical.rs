//! The canonical codec: guigym's own JSON actions, found in text that may carry reasoning
//! around them or code fences.

use guigym_core::{Action, InvalidAction};

pub const CONVENTION: super::Convention =
    super::Convention::new("canonical", DESCRIPTION, |raw, _| parse(raw), |action, _| Some(action.to_json())).naming_elements();

pub const DESCRIPTION: &str = r#"Reply with one JSON action object, tagged by "action". Pointer actions take "at": [x, y] or "element": "<id from the UI tree>".
Actions: {"action":"click","at":[x,y]} · {"action":"double_click",…} · {"action":"long_press",…} · {"action":"right_click",…}
{"action":"swipe","from":[x,y],"to":[x,y]} · {"action":"drag","from":[x,y],"to":[x,y]} · {"action":"scroll","at":[x,y],"direction":"up|down|left|right","amount":1}
{"action":"type","text":"…","clear":false} (into the focused field, or give "element") · {"action":"key","keys":["enter"]} · {"action":"back"} · {"action":"home"}
{"action":"open_app","name":"Mail"} · {"action":"wait","ms":1000} · {"action":"answer","text":"…"} · {"action":"ask_user","text":"…"} · {"action":"terminate","status":"success|failure|infeasible"}"#;

pub fn parse(raw: &str) -> Result<Action, InvalidAction> {
    let json = first_json_object(raw).ok_or_else(|| InvalidAction::new("no JSON action found in the output"))?;
    Action::from_json(json)
}

/// The first balanced `{…}` in text, strings and escapes respected.
pub fn first_json_object(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut start = None;
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if start.is_none() {
            if b == b'{' {
                start = Some(i);
                depth = 1;
            }
            continue;
        }
        if in_str {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return start.map(|s| &text[s..=i]);
                }
            }
            _ => {}
        }
    }
    None
}
