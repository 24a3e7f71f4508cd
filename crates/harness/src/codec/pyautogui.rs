//! pyautogui-like calls: `pyautogui.click(x=10, y=20)`, `pyautogui.write('hi')`,
//! `pyautogui.hotkey('ctrl', 's')`, `pyautogui.scroll(-3, x=5, y=9)`, and OSWorld's `DONE`,
//! `FAIL`, `WAIT`. Phone gestures and answers are extension functions of the same form
//! (`long_press`, `swipe`, `back`, `home`, `open_app`, `answer`, `ask_user`, `terminate`).
//! Only literals are read: nothing is ever executed.

use guigym_core::{Action, Direction, InvalidAction, Point};

use super::{direction_name, invalid, status, status_name};

pub const DESCRIPTION: &str = r#"Reply with one Python call (it is parsed, never run), e.g. pyautogui.click(x=120, y=640).
click / doubleClick / rightClick / long_press (x, y); swipe / drag (x1, y1, x2, y2); scroll(clicks, x, y) (positive scrolls up), hscroll(clicks, x, y);
write('text', clear=False); press('enter'); hotkey('ctrl', 's'); back(); home(); open_app('Mail'); wait(seconds);
answer('text'); ask_user('question'); terminate('success' | 'failure' | 'infeasible'); DONE; FAIL; WAIT"#;

#[derive(Debug, Clone, PartialEq)]
enum Lit {
    Num(f64),
    Str(String),
    Bool(bool),
    List(Vec<Lit>),
}

struct Call {
    name: String,
    args: Vec<Lit>,
    kwargs: Vec<(String, Lit)>,
}

impl Call {
    fn arg(&self, i: usize, key: &str) -> Option<&Lit> {
        self.kwargs.iter().find(|(k, _)| k == key).map(|(_, v)| v).or_else(|| self.args.get(i))
    }

    fn num(&self, i: usize, key: &str) -> Result<f32, InvalidAction> {
        match self.arg(i, key) {
            Some(Lit::Num(n)) if n.is_finite() => Ok(*n as f32),
            Some(other) => Err(invalid(format!("{}: `{key}` must be a number, got {other:?}", self.name))),
            None => Err(invalid(format!("{}: missing `{key}`", self.name))),
        }
    }

    fn text(&self, i: usize, key: &str) -> Result<String, InvalidAction> {
        match self.arg(i, key) {
            Some(Lit::Str(s)) => Ok(s.clone()),
            Some(Lit::Num(n)) => Ok(n.to_string()),
            Some(other) => Err(invalid(format!("{}: `{key}` must be text, got {other:?}", self.name))),
            None => Err(invalid(format!("{}: missing `{key}`", self.name))),
        }
    }

    fn point(&self, i: usize, kx: &str, ky: &str) -> Result<Point, InvalidAction> {
        Ok(Point(self.num(i, kx)?, self.num(i + 1, ky)?))
    }
}

/// A tiny reader of one call with literal arguments.
struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn ident(&mut self) -> Option<String> {
        let start = self.i;
        while self.i < self.s.len() && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_' || self.s[self.i] == b'.') {
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    fn lit(&mut self) -> Result<Lit, InvalidAction> {
        self.ws();
        let c = *self.s.get(self.i).ok_or_else(|| invalid("unexpected end of the call"))?;
        match c {
            b'\'' | b'"' => self.string(c),
            b'[' | b'(' => {
                let close = if c == b'[' { b']' } else { b')' };
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if self.s.get(self.i) == Some(&close) {
                        self.i += 1;
                        return Ok(Lit::List(items));
                    }
                    items.push(self.lit()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(x) if *x == close => {}
                        _ => return Err(invalid("malformed list in the call")),
                    }
                }
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && (self.s[self.i].is_ascii_alphanumeric() || b"+-._".contains(&self.s[self.i])) {
                    self.i += 1;
                }
                let word = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                match word {
                    "True" => Ok(Lit::Bool(true)),
                    "False" => Ok(Lit::Bool(false)),
                    _ => word.parse::<f64>().map(Lit::Num).map_err(|_| invalid(format!("unsupported argument {word:?}: only literals are read"))),
                }
            }
        }
    }

    fn string(&mut self, quote: u8) -> Result<Lit, InvalidAction> {
        self.i += 1;
        let mut out = Vec::new();
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or_else(|| invalid("unterminated string"))?;
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        other => out.push(other),
                    }
                }
                c if c == quote => return Ok(Lit::Str(String::from_utf8_lossy(&out).into_owned())),
                c => out.push(c),
            }
        }
        Err(invalid("unterminated string"))
    }

    fn call(&mut self) -> Result<Call, InvalidAction> {
        let name = self.ident().ok_or_else(|| invalid("expected a function name"))?;
        self.ws();
        let mut call = Call { name: name.trim_start_matches("pyautogui.").to_string(), args: Vec::new(), kwargs: Vec::new() };
        if self.s.get(self.i) != Some(&b'(') {
            return Ok(call); // DONE, FAIL, WAIT
        }
        self.i += 1;
        loop {
            self.ws();
            if self.s.get(self.i) == Some(&b')') {
                self.i += 1;
                return Ok(call);
            }
            // keyword argument?
            let save = self.i;
            if let Some(key) = self.ident() {
                self.ws();
                if self.s.get(self.i) == Some(&b'=') {
                    self.i += 1;
                    let v = self.lit()?;
                    call.kwargs.push((key, v));
                } else {
                    self.i = save;
                    let v = self.lit()?;
                    call.args.push(v);
                }
            } else {
                let v = self.lit()?;
                call.args.push(v);
            }
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b')') => {}
                _ => return Err(invalid(format!("{}: malformed arguments", call.name))),
            }
        }
    }
}

const NAMES: [&str; 21] = [
    "click", "doubleClick", "rightClick", "long_press", "swipe", "drag", "scroll", "hscroll", "write", "typewrite", "press",
    "hotkey", "back", "home", "open_app", "wait", "answer", "ask_user", "terminate", "DONE", "FAIL",
];

/// Where the first known call starts.
fn find_call(raw: &str) -> Option<usize> {
    let mut best: Option<usize> = None;
    for name in NAMES.iter().chain(["WAIT"].iter()) {
        let mut from = 0;
        while let Some(pos) = raw[from..].find(name) {
            let at = from + pos;
            let before_ok = at == 0 || !raw.as_bytes()[at - 1].is_ascii_alphanumeric() && raw.as_bytes()[at - 1] != b'_';
            let after = raw.as_bytes().get(at + name.len()).copied();
            let bare = matches!(*name, "DONE" | "FAIL" | "WAIT");
            let after_ok = if bare { !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') } else { after == Some(b'(') };
            if before_ok && after_ok {
                // Include a `pyautogui.` prefix.
                let start = if raw[..at].ends_with("pyautogui.") { at - "pyautogui.".len() } else { at };
                best = Some(best.map_or(start, |b: usize| b.min(start)));
                break;
            }
            from = at + name.len();
        }
    }
    best
}

pub fn parse(raw: &str) -> Result<Action, InvalidAction> {
    let start = find_call(raw).ok_or_else(|| invalid("no pyautogui call found in the output"))?;
    let call = Reader { s: &raw.as_bytes()[start..], i: 0 }.call()?;
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
            Action::Scroll {
                at: Some(call.point(1, "x", "y")?),
                element: None,
                direction,
                amount: clicks.abs().clamp(1.0, 20.0) as u32,
            }
        }
        "write" | "typewrite" => {
            let clear = matches!(call.kwargs.iter().find(|(k, _)| k == "clear"), Some((_, Lit::Bool(true))));
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

fn py(s: &str) -> String {
    // A Python string literal that our reader reads back exactly.
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'").replace('\n', "\\n").replace('\t', "\\t"))
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
