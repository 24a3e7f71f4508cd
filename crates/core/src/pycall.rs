//! A reader of Python-like calls with literal arguments (`click(x=1, y=2)`,
//! `type(content='hi')`): what the harness's pyautogui and UI-TARS codecs parse, and the
//! pyautogui programs of OSWorld's set-up steps. Nothing is executed.

use crate::{InvalidAction, Point};

fn invalid(message: impl Into<String>) -> InvalidAction {
    InvalidAction::new(message)
}

#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Num(f64),
    Str(String),
    Bool(bool),
    List(Vec<Lit>),
}

pub struct Call {
    pub name: String,
    /// Whether it was called (`f(…)`), not only named (`DONE`).
    pub called: bool,
    pub args: Vec<Lit>,
    pub kwargs: Vec<(String, Lit)>,
}

impl Call {
    /// Keyword argument `key`, else positional argument `i`.
    pub fn arg(&self, i: usize, key: &str) -> Option<&Lit> {
        self.kwarg(key).or_else(|| self.args.get(i))
    }

    /// Keyword argument `key` only.
    pub fn kwarg(&self, key: &str) -> Option<&Lit> {
        self.kwargs.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn num(&self, i: usize, key: &str) -> Result<f32, InvalidAction> {
        match self.arg(i, key) {
            Some(Lit::Num(n)) if n.is_finite() => Ok(*n as f32),
            Some(other) => Err(invalid(format!("{}: `{key}` must be a number, got {other:?}", self.name))),
            None => Err(invalid(format!("{}: missing `{key}`", self.name))),
        }
    }

    pub fn text(&self, i: usize, key: &str) -> Result<String, InvalidAction> {
        match self.arg(i, key) {
            Some(Lit::Str(s)) => Ok(s.clone()),
            Some(Lit::Num(n)) => Ok(n.to_string()),
            Some(other) => Err(invalid(format!("{}: `{key}` must be text, got {other:?}", self.name))),
            None => Err(invalid(format!("{}: missing `{key}`", self.name))),
        }
    }

    pub fn point(&self, i: usize, kx: &str, ky: &str) -> Result<Point, InvalidAction> {
        Ok(Point(self.num(i, kx)?, self.num(i + 1, ky)?))
    }
}

/// A tiny reader of one call with literal arguments.
pub struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Reader<'a> {
    pub fn new(s: &'a [u8]) -> Reader<'a> {
        Reader { s, i: 0 }
    }

    /// How far it has read, in bytes.
    pub fn pos(&self) -> usize {
        self.i
    }

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

    /// One call with literal arguments; `prefix` (a module name) is dropped from its name.
    pub fn call(&mut self, prefix: &str) -> Result<Call, InvalidAction> {
        let name = self.ident().ok_or_else(|| invalid("expected a function name"))?;
        self.ws();
        let called = self.s.get(self.i) == Some(&b'(');
        let mut call = Call { name: name.trim_start_matches(prefix).to_string(), called, args: Vec::new(), kwargs: Vec::new() };
        if !called {
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

/// A Python string literal in single quotes that `Reader` reads back exactly.
pub fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'").replace('\n', "\\n").replace('\t', "\\t"))
}

/// Where each call of a known name starts, in order of position. A name counts where it is
/// not part of a longer identifier and is followed by `(` (or stands bare, for `bare` names);
/// a `prefix` right before it (`pyautogui.`) belongs to the call.
pub fn call_starts(raw: &str, names: &[&str], bare: &[&str], prefix: &str) -> Vec<usize> {
    let bytes = raw.as_bytes();
    let mut starts = Vec::new();
    for name in names {
        let mut from = 0;
        while let Some(pos) = raw[from..].find(name) {
            let at = from + pos;
            let before_ok = at == 0 || !bytes[at - 1].is_ascii_alphanumeric() && bytes[at - 1] != b'_';
            let after = bytes.get(at + name.len()).copied();
            let after_ok = if bare.contains(name) { !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') } else { after == Some(b'(') };
            if before_ok && after_ok {
                let start = if !prefix.is_empty() && raw[..at].ends_with(prefix) { at - prefix.len() } else { at };
                starts.push(start);
            }
            from = at + name.len();
        }
    }
    starts.sort_unstable();
    starts.dedup();
    starts
}
