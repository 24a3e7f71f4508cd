//! UI-TARS calls, written after `Action:` (`Thought: … Action: click(start_box='(x,y)')`).
//! Points are read in every form UI-TARS models write them: `(x,y)`, `[x1, y1, x2, y2]`
//! (the box's centre), `<|box_start|>(x,y)<|box_end|>` and `<point>x y</point>`; they are in
//! the model's space (the harness's `coordinates`: image pixels for UI-TARS-1.5 and later,
//! `norm1000` for UI-TARS 1.0). Mobile and desktop vocabularies are both read; guigym's
//! actions that UI-TARS lacks are extension calls of the same form (`swipe`, `answer`,
//! `ask_user`).

use guigym_core::{Action, InvalidAction, Point, TerminateStatus};

use super::{direction, direction_name, int, invalid};
use guigym_core::pycall::{self, literal, Call, Lit, Reader};

pub const CONVENTION: super::Convention =
    super::Convention::new("ui_tars", DESCRIPTION, |raw, _| parse(raw), |action, _| encode(action)).reading_calls(call_starts);

pub const DESCRIPTION: &str = r#"Reply with your reasoning after "Thought:" and exactly one call after "Action:", e.g.
Thought: The Save button saves the contact.
Action: click(start_box='(540,1200)')
Calls: click / left_double / right_single / long_press (start_box='(x,y)'); drag / swipe (start_box='(x1,y1)', end_box='(x2,y2)');
scroll(start_box='(x,y)', direction='down or up or right or left'); type(content='text'); hotkey(key='ctrl s'); press_back(); press_home();
open_app(app_name='Mail'); wait(); answer(content='the answer'); call_user(content='your question'); finished() when the task is done;
call_user() when it cannot be done"#;

const NAMES: [&str; 19] = [
    "click",
    "left_single",
    "left_double",
    "double_click",
    "right_single",
    "long_press",
    "drag",
    "swipe",
    "scroll",
    "type",
    "hotkey",
    "press",
    "press_back",
    "press_home",
    "open_app",
    "wait",
    "answer",
    "finished",
    "call_user",
];

/// Where each call starts. After an `Action:` marker only what follows it counts, so a
/// thought that mentions `click(…)` is not an action.
pub(crate) fn call_starts(raw: &str) -> Vec<usize> {
    let from = raw.rfind("Action:").map(|i| i + "Action:".len()).unwrap_or(0);
    pycall::call_starts(&raw[from..], &NAMES, &[], "").into_iter().map(|s| s + from).collect()
}

/// A point in any of UI-TARS's spellings.
fn parse_point(text: &str) -> Result<Point, InvalidAction> {
    let cleaned: String = text
        .replace("<|box_start|>", "")
        .replace("<|box_end|>", "")
        .replace("<point>", "")
        .replace("</point>", "")
        .replace("<bbox>", "")
        .replace("</bbox>", "");
    let numbers: Vec<f32> = cleaned
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<f32>().map_err(|_| invalid(format!("{s:?} in a box is not a number"))))
        .collect::<Result<_, _>>()?;
    let p = match numbers.as_slice() {
        [x, y] => Point(*x, *y),
        [x1, y1, x2, y2] => Point((x1 + x2) / 2.0, (y1 + y2) / 2.0),
        _ => return Err(invalid(format!("cannot read a point from {text:?}: write '(x,y)'"))),
    };
    if p.0.is_finite() && p.1.is_finite() {
        Ok(p)
    } else {
        Err(invalid("the point is not finite"))
    }
}

fn box_arg(call: &Call, keys: &[&str], index: usize) -> Result<Point, InvalidAction> {
    let found = keys.iter().find_map(|k| call.kwarg(k)).or_else(|| call.args.get(index));
    match found {
        Some(Lit::Str(s)) => parse_point(s),
        Some(Lit::List(items)) => {
            let nums: Vec<String> = items.iter().filter_map(|i| if let Lit::Num(n) = i { Some(n.to_string()) } else { None }).collect();
            parse_point(&nums.join(","))
        }
        Some(other) => Err(invalid(format!("{}: `{}` must be '(x,y)', got {other:?}", call.name, keys[0]))),
        None => Err(invalid(format!("{}: missing `{}`", call.name, keys[0]))),
    }
}

fn content(call: &Call) -> Option<String> {
    ["content", "text"].iter().find_map(|k| call.kwarg(k)).or_else(|| call.args.first()).and_then(|v| match v {
        Lit::Str(s) => Some(s.clone()),
        Lit::Num(n) => Some(n.to_string()),
        _ => None,
    })
}

fn keyword(call: &Call, key: &str) -> Option<String> {
    call.kwarg(key).and_then(|v| if let Lit::Str(s) = v { Some(s.clone()) } else { None })
}

pub fn parse(raw: &str) -> Result<Action, InvalidAction> {
    let start = *call_starts(raw).first().ok_or_else(|| invalid("no UI-TARS action found: write Action: click(start_box='(x,y)')"))?;
    let call = Reader::new(&raw.as_bytes()[start..]).call("")?;
    let start_box = || box_arg(&call, &["start_box", "point", "start_point"], 0);
    let end_box = || box_arg(&call, &["end_box", "end_point"], 1);
    Ok(match call.name.as_str() {
        "click" | "left_single" => Action::Click { at: Some(start_box()?), element: None },
        "left_double" | "double_click" => Action::DoubleClick { at: Some(start_box()?), element: None },
        "right_single" => Action::RightClick { at: Some(start_box()?), element: None },
        "long_press" => Action::LongPress { at: Some(start_box()?), element: None },
        "drag" => Action::Drag { from: start_box()?, to: end_box()? },
        "swipe" => Action::Swipe { from: start_box()?, to: end_box()? },
        "scroll" => Action::Scroll {
            at: Some(start_box()?),
            element: None,
            direction: direction(&keyword(&call, "direction").ok_or_else(|| invalid("scroll: missing `direction`"))?)?,
            amount: keyword(&call, "amount").and_then(|a| a.parse::<u32>().ok()).unwrap_or(1).clamp(1, 20),
        },
        "type" => Action::Type {
            text: content(&call).ok_or_else(|| invalid("type: missing `content`"))?,
            element: None,
            clear: keyword(&call, "clear").is_some_and(|c| c.eq_ignore_ascii_case("true")),
        },
        "hotkey" | "press" => {
            let keys = keyword(&call, "key").or_else(|| keyword(&call, "keys")).or_else(|| content(&call)).unwrap_or_default();
            let keys: Vec<String> = keys.split([' ', '+']).filter(|k| !k.is_empty()).map(|k| k.to_lowercase()).collect();
            match keys.as_slice() {
                [k] if k == "back" => Action::Back,
                [k] if k == "home" => Action::Home,
                _ => Action::Key { keys },
            }
        }
        "press_back" => Action::Back,
        "press_home" => Action::Home,
        "open_app" => Action::OpenApp { name: keyword(&call, "app_name").or_else(|| content(&call)).ok_or_else(|| invalid("open_app: missing `app_name`"))? },
        "wait" => {
            let seconds = keyword(&call, "seconds").and_then(|s| s.parse::<f64>().ok()).unwrap_or(5.0);
            Action::Wait { ms: (seconds.clamp(0.0, 600.0) * 1000.0).round() as u64 }
        }
        "answer" => Action::Answer { text: content(&call).ok_or_else(|| invalid("answer: missing `content`"))? },
        // finished(content='…') is UI-TARS's way of reporting a result: the answer. The task
        // then ends with finished().
        "finished" => match (content(&call).filter(|c| !c.trim().is_empty()), keyword(&call, "status")) {
            (Some(text), None) => Action::Answer { text },
            (_, Some(status)) => Action::Terminate { status: super::status(&status)? },
            (None, None) => Action::Terminate { status: TerminateStatus::Success },
        },
        // call_user(content='…') asks; a bare call_user() gives the task up.
        "call_user" => match content(&call) {
            Some(text) => Action::AskUser { text },
            None => Action::Terminate { status: TerminateStatus::Infeasible },
        },
        other => return Err(invalid(format!("unknown UI-TARS action {other:?}"))),
    })
}

fn at(p: Point) -> String {
    format!("'({},{})'", int(p.0), int(p.1))
}

pub fn encode(action: &Action) -> Option<String> {
    let call = match action {
        Action::Click { at: Some(p), .. } => format!("click(start_box={})", at(*p)),
        Action::DoubleClick { at: Some(p), .. } => format!("left_double(start_box={})", at(*p)),
        Action::RightClick { at: Some(p), .. } => format!("right_single(start_box={})", at(*p)),
        Action::LongPress { at: Some(p), .. } => format!("long_press(start_box={})", at(*p)),
        Action::Drag { from, to } => format!("drag(start_box={}, end_box={})", at(*from), at(*to)),
        Action::Swipe { from, to } => format!("swipe(start_box={}, end_box={})", at(*from), at(*to)),
        Action::Scroll { at: Some(p), direction: d, amount, .. } => {
            format!("scroll(start_box={}, direction='{}', amount='{amount}')", at(*p), direction_name(*d))
        }
        Action::Type { text, clear, .. } => {
            format!("type(content={}{})", literal(text), if *clear { ", clear='true'" } else { "" })
        }
        Action::Key { keys } => format!("hotkey(key={})", literal(&keys.join(" "))),
        Action::Back => "press_back()".into(),
        Action::Home => "press_home()".into(),
        Action::OpenApp { name } => format!("open_app(app_name={})", literal(name)),
        Action::Wait { ms } => format!("wait(seconds='{}')", *ms as f64 / 1000.0),
        Action::Answer { text } => format!("answer(content={})", literal(text)),
        Action::AskUser { text } => format!("call_user(content={})", literal(text)),
        Action::Terminate { status: TerminateStatus::Success } => "finished()".into(),
        Action::Terminate { status: TerminateStatus::Infeasible } => "call_user()".into(),
        Action::Terminate { status: TerminateStatus::Failure } => "finished(status='failure')".into(),
        _ => return None,
    };
    Some(format!("Action: {call}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use guigym_core::Direction;

    #[test]
    fn reads_every_point_spelling() {
        for (raw, want) in [
            ("Action: click(start_box='(10,20)')", Point(10.0, 20.0)),
            ("Action: click(start_box='<|box_start|>(10,20)<|box_end|>')", Point(10.0, 20.0)),
            ("Action: click(start_box='[0, 10, 20, 30]')", Point(10.0, 20.0)),
            ("Action: click(point='<point>10 20</point>')", Point(10.0, 20.0)),
            ("Thought: I could click(start_box='(1,1)') but no.\nAction: click(start_box='(10,20)')", Point(10.0, 20.0)),
        ] {
            assert_eq!(parse(raw).unwrap(), Action::Click { at: Some(want), element: None }, "{raw}");
        }
        assert!(parse("Action: click(start_box='(10)')").is_err());
        assert!(parse("Action: click(start_box=x)").is_err());
        assert!(parse("Thought: nothing to do").is_err());
    }

    #[test]
    fn reads_mobile_and_desktop_vocabularies() {
        assert_eq!(parse("Action: press_back()").unwrap(), Action::Back);
        assert_eq!(parse("Action: hotkey(key='ctrl c')").unwrap(), Action::Key { keys: vec!["ctrl".into(), "c".into()] });
        assert_eq!(parse("Action: finished()").unwrap(), Action::Terminate { status: TerminateStatus::Success });
        assert_eq!(parse("Action: finished(content='42')").unwrap(), Action::Answer { text: "42".into() });
        assert_eq!(parse("Action: call_user()").unwrap(), Action::Terminate { status: TerminateStatus::Infeasible });
        assert_eq!(parse("Action: type(content='it\\'s')").unwrap(), Action::Type { text: "it's".into(), element: None, clear: false });
        assert_eq!(
            parse("Action: scroll(start_box='(5,5)', direction='down')").unwrap(),
            Action::Scroll { at: Some(Point(5.0, 5.0)), element: None, direction: Direction::Down, amount: 1 }
        );
    }
}
