//! pyautogui-like calls: `pyautogui.click(x=10, y=20)`, `pyautogui.write('hi')`,
//! `pyautogui.hotkey('ctrl', 's')`, `pyautogui.scroll(-3, x=5, y=9)`, and OSWorld's `DONE`,
//! `FAIL`, `WAIT`. Phone gestures and answers are extension functions of the same form
//! (`long_press`, `swipe`, `back`, `home`, `open_app`, `answer`, `ask_user`, `terminate`).
//! Only literals are read: nothing is ever executed.

use guigym_core::{Action, Direction, InvalidAction};

use super::{direction_name, invalid, status, status_name};
use guigym_core::pycall::{self, literal as py, Call, Lit, Reader};

pub const CONVENTION: super::Convention =
    super::Convention::new("pyautogui", DESCRIPTION, |raw, _| parse(raw), |action, _| encode(action)).reading_calls(call_starts);

pub const DESCRIPTION: &str = r#"Reply with one Python call (it is parsed, never run), e.g. pyautogui.click(x=120, y=640).
click / doubleClick / rightClick / long_press (x, y); swipe / drag (x1, y1, x2, y2); scroll(clicks, x, y) (positive scrolls up), hscroll(clicks, x, y);
write('text', clear=False); press('enter'); hotkey('ctrl', 's'); back(); home(); open_app('Mail'); wait(seconds);
answer('text'); ask_user('question'); terminate('success' | 'failure' | 'infeasible'); DONE; FAIL; WAIT"#;

/// Where each known call starts, in order.
pub(crate) fn call_starts(raw: &str) -> Vec<usize> {
    pycall::call_starts(raw, &NAMES_AND_WAIT, &["DONE", "FAIL", "WAIT"], "pyautogui.")
}

const NAMES_AND_WAIT: [&str; 22] = [
    "click",
    "doubleClick",
    "rightClick",
    "long_press",
    "swipe",
    "drag",
    "scroll",
    "hscroll",
    "write",
    "typewrite",
    "press",
    "hotkey",
    "back",
    "home",
    "open_app",
    "wait",
    "answer",
    "ask_user",
    "terminate",
    "DONE",
    "FAIL",
    "WAIT",
];

pub fn parse(raw: &str) -> Result<Action, InvalidAction> {
    let start = *call_starts(raw).first().ok_or_else(|| invalid("no pyautogui call found in the output"))?;
    let call = Reader::new(&raw.as_bytes()[start..]).call("pyautogui.")?;
    let keys = |call: &Call| -> Result<Vec<String>, InvalidAction> {
        call.args
            .iter()
            .map(|a| match a {
                Lit::Str(s) => Ok(s.to_lowercase()),
                other => Err(invalid(format!("{}: keys must be strings, got {other:?}", call.name))),
            })
            .collect()
    };
    Ok(match call.name.as_str() {
        "click" => Action::Click { at: Some(call.point(0, "x", "y")?), element: None },
        "doubleClick" => Action::DoubleClick { at: Some(call.point(0, "x", "y")?), element: None },
        "rightClick" => Action::RightClick { at: Some(call.point(0, "x", "y")?), element: None },
        "long_press" => Action::LongPress { at: Some(call.point(0, "x", "y")?), element: None },
        "swipe" => Action::Swipe { from: call.point(0, "x1", "y1")?, to: call.point(2, "x2", "y2")? },
        "drag" => Action::Drag { from: call.point(0, "x1", "y1")?, to: call.point(2, "x2", "y2")? },
        "scroll" | "hscroll" => {
            let clicks = call.num(0, "clicks")?;
            let direction = match (call.name.as_str(), clicks >= 0.0) {
                ("scroll", true) => Direction::Up,
                ("scroll", false) => Direction::Down,
                (_, true) => Direction::Right,
                (_, false) => Direction::Left,
            };
            Action::Scroll { at: Some(call.point(1, "x", "y")?), element: None, direction, amount: clicks.abs().clamp(1.0, 20.0) as u32 }
        }
        "write" | "typewrite" => {
            let clear = matches!(call.kwarg("clear"), Some(Lit::Bool(true)));
            Action::Type { text: call.text(0, "message")?, element: None, clear }
        }
        "press" | "hotkey" => match keys(&call)?.as_slice() {
            [k] if k == "back" => Action::Back,
            [k] if k == "home" => Action::Home,
            [] => return Err(invalid(format!("{}: which key?", call.name))),
            ks => Action::Key { keys: ks.to_vec() },
        },
        "back" => Action::Back,
        "home" => Action::Home,
        "open_app" => Action::OpenApp { name: call.text(0, "name")? },
        "wait" => Action::Wait { ms: (call.num(0, "seconds").unwrap_or(1.0).clamp(0.0, 600.0) * 1000.0).round() as u64 },
        "WAIT" => Action::Wait { ms: 1000 },
        "answer" => Action::Answer { text: call.text(0, "text")? },
        "ask_user" => Action::AskUser { text: call.text(0, "text")? },
        "terminate" => Action::Terminate { status: status(&call.text(0, "status")?)? },
        "DONE" => Action::Terminate { status: guigym_core::TerminateStatus::Success },
        "FAIL" => Action::Terminate { status: guigym_core::TerminateStatus::Failure },
        other => return Err(invalid(format!("unsupported call {other:?}"))),
    })
}

pub fn encode(action: &Action) -> Option<String> {
    let n = |v: f32| super::int(v);
    Some(match action {
        Action::Click { at: Some(p), .. } => format!("pyautogui.click(x={}, y={})", n(p.0), n(p.1)),
        Action::DoubleClick { at: Some(p), .. } => format!("pyautogui.doubleClick(x={}, y={})", n(p.0), n(p.1)),
        Action::RightClick { at: Some(p), .. } => format!("pyautogui.rightClick(x={}, y={})", n(p.0), n(p.1)),
        Action::LongPress { at: Some(p), .. } => format!("long_press(x={}, y={})", n(p.0), n(p.1)),
        Action::Swipe { from, to } => format!("swipe({}, {}, {}, {})", n(from.0), n(from.1), n(to.0), n(to.1)),
        Action::Drag { from, to } => format!("drag({}, {}, {}, {})", n(from.0), n(from.1), n(to.0), n(to.1)),
        Action::Scroll { at: Some(p), direction, amount, .. } => {
            let (f, sign) = match direction {
                Direction::Up => ("scroll", 1),
                Direction::Down => ("scroll", -1),
                Direction::Right => ("hscroll", 1),
                Direction::Left => ("hscroll", -1),
            };
            let _ = direction_name(*direction);
            format!("pyautogui.{f}({}, x={}, y={})", sign * *amount as i64, n(p.0), n(p.1))
        }
        Action::Type { text, clear, .. } => {
            format!("pyautogui.write({}{})", py(text), if *clear { ", clear=True" } else { "" })
        }
        Action::Key { keys } if keys.len() == 1 && !matches!(keys[0].as_str(), "back" | "home") && keys[0] == keys[0].to_lowercase() => {
            format!("pyautogui.press({})", py(&keys[0]))
        }
        Action::Key { keys } if keys.len() > 1 && keys.iter().all(|k| *k == k.to_lowercase()) => {
            format!("pyautogui.hotkey({})", keys.iter().map(|k| py(k)).collect::<Vec<_>>().join(", "))
        }
        Action::Back => "back()".into(),
        Action::Home => "home()".into(),
        Action::OpenApp { name } => format!("open_app({})", py(name)),
        Action::Wait { ms } => format!("wait({})", *ms as f64 / 1000.0),
        Action::Answer { text } => format!("answer({})", py(text)),
        Action::AskUser { text } => format!("ask_user({})", py(text)),
        Action::Terminate { status } => format!("terminate({})", py(status_name(*status))),
        _ => return None,
    })
}
