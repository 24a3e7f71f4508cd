//! Action codecs: how a policy's text becomes a canonical `Action`.

use guigym_core::{Action, InvalidAction};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Codec {
    /// guigym's own JSON actions (`{"action": "click", "at": [x, y]}`).
    Canonical,
}

impl Codec {
    pub fn parse(self, raw: &str) -> Result<Action, InvalidAction> {
        match self {
            Codec::Canonical => parse_canonical(raw),
        }
    }
}

/// Finds the first JSON object in text that may carry reasoning around it or code fences,
/// and parses it as a canonical action.
pub fn parse_canonical(raw: &str) -> Result<Action, InvalidAction> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn tolerates_reasoning_and_fences() {
        let raw = "I should tap Save.\n```json\n{\"action\": \"click\", \"element\": \"save\"}\n```";
        assert_eq!(parse_canonical(raw).unwrap(), Action::click_element("save"));
        let raw = r#"{"action":"type","text":"a } b {"} trailing"#;
        assert_eq!(parse_canonical(raw).unwrap(), Action::Type { text: "a } b {".into(), element: None, clear: false });
    }

    #[test]
    fn garbage_is_an_invalid_action() {
        assert!(parse_canonical("tap the button").unwrap_err().message.contains("no JSON"));
        assert!(parse_canonical("{\"action\": \"teleport\"}").unwrap_err().message.contains("malformed"));
        assert!(parse_canonical("{{{{").is_err());
    }

    proptest! {
        #[test]
        fn never_panics(s in ".{0,200}") {
            let _ = parse_canonical(&s);
        }
    }
}
