//! The pyautogui programs of OSWorld's set-up and post-config steps, read as the inputs they
//! make. OSWorld's tasks press keys in the task's window this way: a document is saved before
//! its file is read (`python -c "import pyautogui; import time; pyautogui.hotkey('ctrl', 's');
//! time.sleep(0.5);"`), GIMP is quit so that it writes its settings. An instance has no Python
//! with pyautogui (and should run nothing a task file writes as code), so a program is read a
//! statement at a time and the runner makes its inputs on the instance's display. Only imports
//! of `pyautogui` and `time`, `time.sleep` and pyautogui's keyboard, click and scroll calls with
//! literal arguments are read; a program with anything else is refused as a whole.

use std::time::Duration;

use guigym_core::pycall::{Call, Lit, Reader};

/// The screen OSWorld's programs are written for: their points are scaled from it.
pub const SCREEN: (f64, f64) = (1920.0, 1080.0);
/// The same, in whole pixels (what OSWorld's `{SCREEN_WIDTH}` placeholders are filled with).
pub const SCREEN_PIXELS: (u32, u32) = (1920, 1080);

/// pyautogui's pause after each of its calls (`pyautogui.PAUSE`), kept: the application gets
/// the time it gets under OSWorld to take one input before the next.
pub const PAUSE: Duration = Duration::from_millis(100);

/// The most inputs one program may make, and the longest it may sleep in all.
pub const MAX_INPUTS: usize = 2000;
pub const MAX_PAUSE: Duration = Duration::from_secs(60);

/// One input a program makes.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Keys pressed together and released (one key: a press).
    Keys(Vec<String>),
    Text(String),
    /// A mouse button (X's numbers: 1 left, 2 middle, 3 right, 4–7 the scroll wheel) pressed
    /// `times` at a point of the program's screen, or where the pointer is.
    Button {
        at: Option<(f64, f64)>,
        button: u8,
        times: u32,
    },
    /// A mouse button held down or let go, at a point or where the pointer is.
    Hold {
        at: Option<(f64, f64)>,
        button: u8,
        down: bool,
    },
    /// The pointer moved to a point.
    Move((f64, f64)),
    Sleep(Duration),
}

/// The program of a step's command when it runs one through Python: `[python…, -c, code]`
/// whose code uses pyautogui.
pub fn program_of(argv: &[String]) -> Option<&str> {
    let [python, flag, code] = argv else { return None };
    let program = python.rsplit('/').next().unwrap_or(python);
    let is_python = program.strip_prefix("python").is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
    (is_python && flag == "-c" && code.contains("pyautogui")).then_some(code.as_str())
}

/// The inputs a program makes, in order; an error names the first statement it cannot read.
pub fn read(code: &str) -> Result<Vec<Input>, String> {
    let bytes = code.as_bytes();
    let mut inputs = Vec::new();
    let mut i = 0;
    loop {
        // Between statements: blanks, `;`, line ends and comments.
        while i < bytes.len() {
            match bytes[i] {
                b' ' | b'\t' | b'\r' | b'\n' | b';' => i += 1,
                b'#' => i = bytes[i..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |n| i + n),
                _ => break,
            }
        }
        if i >= bytes.len() {
            return bounded(inputs);
        }
        let rest = &code[i..];
        if let Some(modules) = rest.strip_prefix("import ") {
            let end = modules.find([';', '\n']).unwrap_or(modules.len());
            for module in modules[..end].split(',').map(str::trim) {
                if !matches!(module, "pyautogui" | "time") {
                    return Err(format!("`import {module}`: only pyautogui and time are read"));
                }
            }
            i += "import ".len() + end;
            continue;
        }
        let mut reader = Reader::new(rest.as_bytes());
        let call = reader.call("").map_err(|e| format!("{}: {}", statement(rest), e.message))?;
        if !call.called {
            return Err(format!("{}: not a call", statement(rest)));
        }
        i += reader.pos();
        // The statement ends here.
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        if i < bytes.len() && !matches!(bytes[i], b';' | b'\n' | b'\r' | b'#') {
            return Err(format!("{}: one call a statement is read", statement(rest)));
        }
        inputs.extend(inputs_of(&call).map_err(|e| format!("{}: {e}", statement(rest)))?);
        if call.name.starts_with("pyautogui.") {
            inputs.push(Input::Sleep(PAUSE));
        }
        if inputs.len() > MAX_INPUTS {
            return Err(format!("it makes more than the {MAX_INPUTS} inputs a step may"));
        }
    }
}

/// A program's inputs, refused past `MAX_PAUSE` of sleeping in all (and, as it is read, past
/// `MAX_INPUTS`): a step runs while the evaluation waits, and OSWorld's programs press a few
/// keys within seconds.
fn bounded(inputs: Vec<Input>) -> Result<Vec<Input>, String> {
    let slept: Duration = inputs.iter().map(|i| if let Input::Sleep(d) = i { *d } else { Duration::ZERO }).sum();
    if slept > MAX_PAUSE {
        return Err(format!("it sleeps {:.1} s in all, more than the {} s a step may", slept.as_secs_f64(), MAX_PAUSE.as_secs()));
    }
    Ok(inputs)
}

/// A statement as an error names it: its first line, cut short.
fn statement(rest: &str) -> String {
    let line = rest.lines().next().unwrap_or_default();
    let line = line.split(';').next().unwrap_or(line).trim();
    let cut: String = line.chars().take(80).collect();
    format!("`{cut}`")
}

fn inputs_of(call: &Call) -> Result<Vec<Input>, String> {
    let keys = |lit: &Lit| -> Result<Vec<String>, String> {
        match lit {
            Lit::Str(s) => Ok(vec![key(s)?]),
            Lit::List(items) => items.iter().map(|k| if let Lit::Str(s) = k { key(s) } else { Err(format!("a key must be a string, got {k:?}")) }).collect(),
            other => Err(format!("keys must be strings, got {other:?}")),
        }
    };
    let count = |name: &str, default: f64| -> Result<u32, String> {
        match call.kwarg(name) {
            None => Ok(default as u32),
            Some(Lit::Num(n)) if n.is_finite() && *n >= 0.0 && *n <= 100.0 => Ok(*n as u32),
            Some(other) => Err(format!("`{name}` must be a number from 0 to 100, got {other:?}")),
        }
    };
    Ok(match call.name.as_str() {
        "time.sleep" => {
            let seconds = call.num(0, "secs").map_err(|e| e.message)?;
            vec![Input::Sleep(Duration::from_secs_f32(seconds.clamp(0.0, 60.0)))]
        }
        // `hotkey('ctrl', 's')`, or its keys as one list.
        "pyautogui.hotkey" => {
            let chord = match call.args.as_slice() {
                [list @ Lit::List(_)] => keys(list)?,
                args => args.iter().map(&keys).collect::<Result<Vec<_>, _>>()?.concat(),
            };
            if chord.is_empty() {
                return Err("which keys?".into());
            }
            vec![Input::Keys(chord)]
        }
        // Each key in turn, `presses` times.
        "pyautogui.press" => {
            let each = keys(call.arg(0, "keys").ok_or("which key?")?)?;
            let presses = count("presses", 1.0)?;
            // `interval` seconds after each key, as pyautogui waits them.
            let interval = match call.kwarg("interval") {
                None => Duration::ZERO,
                Some(Lit::Num(s)) if s.is_finite() => Duration::from_secs_f64(s.clamp(0.0, 1.0)),
                Some(other) => return Err(format!("`interval` must be a number, got {other:?}")),
            };
            let mut inputs = Vec::new();
            for _ in 0..presses {
                for k in &each {
                    inputs.push(Input::Keys(vec![k.clone()]));
                    if !interval.is_zero() {
                        inputs.push(Input::Sleep(interval));
                    }
                }
            }
            inputs
        }
        // A string is typed; a list is pressed key by key.
        "pyautogui.write" | "pyautogui.typewrite" => match call.arg(0, "message") {
            Some(Lit::Str(text)) => vec![Input::Text(text.clone())],
            Some(list @ Lit::List(_)) => keys(list)?.into_iter().map(|k| Input::Keys(vec![k])).collect(),
            other => return Err(format!("`message` must be text or a list of keys, got {other:?}")),
        },
        "pyautogui.click" | "pyautogui.doubleClick" | "pyautogui.tripleClick" | "pyautogui.rightClick" | "pyautogui.middleClick" => {
            let (default_button, default_times) = match call.name.as_str() {
                "pyautogui.doubleClick" => ("left", 2.0),
                "pyautogui.tripleClick" => ("left", 3.0),
                "pyautogui.rightClick" => ("right", 1.0),
                "pyautogui.middleClick" => ("middle", 1.0),
                _ => ("left", 1.0),
            };
            vec![Input::Button { at: point(call, 0)?, button: button(call, default_button)?, times: count("clicks", default_times)? }]
        }
        "pyautogui.mouseDown" | "pyautogui.mouseUp" => {
            vec![Input::Hold { at: point(call, 0)?, button: button(call, "left")?, down: call.name == "pyautogui.mouseDown" }]
        }
        "pyautogui.moveTo" => vec![Input::Move(point(call, 0)?.ok_or("moveTo: a point is needed")?)],
        // `scroll(clicks, x, y)`: positive clicks scroll up (`hscroll`: right).
        "pyautogui.scroll" | "pyautogui.vscroll" | "pyautogui.hscroll" => {
            let clicks = call.num(0, "clicks").map_err(|e| e.message)?;
            let button = match (call.name == "pyautogui.hscroll", clicks >= 0.0) {
                (false, true) => 4,
                (false, false) => 5,
                (true, false) => 6,
                (true, true) => 7,
            };
            vec![Input::Button { at: point(call, 1)?, button, times: clicks.abs().min(100.0) as u32 }]
        }
        other => return Err(format!("`{other}` is not read (only time.sleep and pyautogui's hotkey, press, write, click, mouseDown/Up, moveTo and scroll)")),
    })
}

/// A key by pyautogui's name, lower-cased as it does any name longer than a character; one the
/// display has no key for is refused (pyautogui would press nothing).
fn key(name: &str) -> Result<String, String> {
    let name = if name.chars().count() > 1 { name.to_lowercase() } else { name.to_string() };
    guigym_desktop::keys::keysym(&name).map(|_| name.clone()).ok_or_else(|| format!("no key \"{name}\""))
}

/// A call's mouse button (`button=`, pyautogui's names) as X numbers it.
fn button(call: &Call, default: &str) -> Result<u8, String> {
    let name = match call.kwarg("button") {
        None => default,
        Some(Lit::Str(b)) => b.as_str(),
        Some(other) => return Err(format!("`button` must be a string, got {other:?}")),
    };
    match name {
        "left" | "primary" => Ok(1),
        "middle" => Ok(2),
        "right" | "secondary" => Ok(3),
        other => Err(format!("no mouse button \"{other}\"")),
    }
}

/// The point of a click or scroll (`x`, `y` from argument `i` on), or none (where the pointer is).
fn point(call: &Call, i: usize) -> Result<Option<(f64, f64)>, String> {
    match (call.arg(i, "x"), call.arg(i + 1, "y")) {
        (None, None) => Ok(None),
        (Some(Lit::Num(x)), Some(Lit::Num(y))) if x.is_finite() && y.is_finite() => Ok(Some((*x, *y))),
        (x, y) => Err(format!("a point needs numbers `x` and `y`, got {x:?} and {y:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(k: &str) -> Input {
        Input::Keys(vec![k.into()])
    }

    /// The inputs without pyautogui's pause after each call.
    fn unpaced(inputs: Vec<Input>) -> Vec<Input> {
        inputs.into_iter().filter(|i| *i != Input::Sleep(PAUSE)).collect()
    }

    #[test]
    fn osworlds_programs_read_as_their_inputs_in_order() {
        let save = "import pyautogui; import time; pyautogui.hotkey('ctrl', 's'); time.sleep(0.5);";
        let chord = Input::Keys(vec!["ctrl".into(), "s".into()]);
        assert_eq!(read(save).unwrap(), vec![chord, Input::Sleep(PAUSE), Input::Sleep(Duration::from_millis(500))]);
        let paced = read("pyautogui.press('a', presses=2, interval=0.05)").unwrap();
        let pause = Input::Sleep(Duration::from_millis(50));
        assert_eq!(paced, vec![keys("a"), pause.clone(), keys("a"), pause, Input::Sleep(PAUSE)]);
        let quit = "import pyautogui; import time; pyautogui.hotkey([\"ctrl\", \"q\"]); time.sleep(0.5);";
        assert_eq!(read(quit).unwrap()[0], Input::Keys(vec!["ctrl".into(), "q".into()]));
        let program = "import pyautogui, time\n# comment\npyautogui.press(['Tab', 'enter'], presses=2)\npyautogui.write('Hi; there')\n\
                       pyautogui.typewrite(['a', 'B'])\npyautogui.click(100, 200, button='right')\npyautogui.doubleClick()\n\
                       pyautogui.scroll(-3, x=5, y=9); pyautogui.hscroll(2)";
        assert_eq!(
            unpaced(read(program).unwrap()),
            vec![
                keys("tab"),
                keys("enter"),
                keys("tab"),
                keys("enter"),
                Input::Text("Hi; there".into()),
                keys("a"),
                keys("B"),
                Input::Button { at: Some((100.0, 200.0)), button: 3, times: 1 },
                Input::Button { at: None, button: 1, times: 2 },
                Input::Button { at: Some((5.0, 9.0)), button: 5, times: 3 },
                Input::Button { at: None, button: 7, times: 2 },
            ]
        );
    }

    #[test]
    fn the_programs_of_osworlds_task_files_are_read() {
        // As OSWorld's task files write them (spacing, quotes and trailing `;` as there).
        for program in [
            "import pyautogui; import time; pyautogui.hotkey('ctrl', 's'); time.sleep(0.5);",
            "import pyautogui; import time; pyautogui.hotkey('ctrl', 's'); time.sleep(0.5); ",
            "import pyautogui; pyautogui.hotkey(\"ctrl\", \"s\");",
            "import pyautogui; import time; pyautogui.hotkey('ctrl', 's'); time.sleep(0.5); pyautogui.press('down'); time.sleep(0.5); pyautogui.press('enter');",
            "import pyautogui; pyautogui.hotkey([\"ctrl\", \"q\"]);",
            "import time; import pyautogui; time.sleep(1);pyautogui.hotkey([\"ctrl\", \"q\"]);",
            "import pyautogui; import time; pyautogui.click(960, 540); time.sleep(0.5);",
            "import pyautogui; import time; time.sleep(0.5); pyautogui.click(960, 540); time.sleep(0.5); pyautogui.hotkey('ctrl', 'alt', 't'); time.sleep(0.5)",
            "import pyautogui; import time; pyautogui.press(\"down\", presses=40, interval=0.01); time.sleep(1); pyautogui.scroll(-2)",
            "import pyautogui; import time; time.sleep(0.5); pyautogui.write('cd testDir'); time.sleep(0.5); pyautogui.press('enter')",
            "import pyautogui; import time;  time.sleep(4); pyautogui.doubleClick(x=960, y=540); time.sleep(0.5);pyautogui.mouseDown(); pyautogui.mouseUp(); time.sleep(0.5);",
            "import pyautogui; import time; pyautogui.click(960, 540); time.sleep(5); pyautogui.press('esc'); time.sleep(0.3); pyautogui.press('f10'); \
             time.sleep(0.3); pyautogui.press('right', presses=2, interval=0.1); time.sleep(0.3); pyautogui.press('down', presses=11, interval=0.1); pyautogui.press('enter')",
        ] {
            let inputs = read(program).unwrap_or_else(|e| panic!("{program}: {e}"));
            assert!(!inputs.is_empty(), "{program}");
        }
        let held = read("pyautogui.doubleClick(x=960, y=540); pyautogui.mouseDown(); pyautogui.moveTo(10, 20); pyautogui.mouseUp(button='right')").unwrap();
        assert_eq!(
            unpaced(held),
            vec![
                Input::Button { at: Some((960.0, 540.0)), button: 1, times: 2 },
                Input::Hold { at: None, button: 1, down: true },
                Input::Move((10.0, 20.0)),
                Input::Hold { at: None, button: 3, down: false },
            ]
        );
    }

    #[test]
    fn anything_but_literal_input_calls_is_refused() {
        for (code, says) in [
            ("import os; os.system('rm -rf ~')", "import os"),
            ("import pyautogui; pyautogui.dragTo(5, 5)", "pyautogui.dragTo"),
            ("import pyautogui; pyautogui.moveTo()", "a point is needed"),
            ("import pyautogui\nfor i in range(3):\n    pyautogui.press('a')", "not a call"),
            ("import pyautogui; pyautogui.press(key)", "only literals"),
            ("pyautogui.press('a') + 1", "one call a statement"),
            ("pyautogui.hotkey()", "which keys"),
            ("pyautogui.click(button='fourth')", "no mouse button"),
            ("pyautogui.click(x=5)", "a point needs"),
            ("pyautogui.press('a', presses=1e9)", "presses"),
            ("pyautogui.hotkey('ctrl', 'nosuchkey')", "no key \"nosuchkey\""),
            ("pyautogui.write('unterminated)", "unterminated"),
            ("from pyautogui import press", "not a call"),
            ("import time; time.sleep(50); time.sleep(50)", "sleeps 100.0 s in all"),
        ] {
            let err = read(code).expect_err(code);
            assert!(err.contains(says), "{code}: {err}");
        }
        // A task file's program may not hold the evaluation for long.
        let err = read(&"pyautogui.press('a', presses=100); ".repeat(30)).expect_err("3000 presses");
        assert!(err.contains("more than the 2000 inputs a step may"), "{err}");
    }

    #[test]
    fn only_a_python_dash_c_program_that_uses_pyautogui_is_one() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(program_of(&argv(&["python", "-c", "import pyautogui"])), Some("import pyautogui"));
        assert_eq!(program_of(&argv(&["/usr/bin/python3.11", "-c", "import pyautogui"])), Some("import pyautogui"));
        assert_eq!(program_of(&argv(&["python3", "-c", "print(1)"])), None);
        assert_eq!(program_of(&argv(&["pythonista", "-c", "import pyautogui"])), None);
        assert_eq!(program_of(&argv(&["python", "script.py", "pyautogui"])), None);
    }

    #[test]
    fn no_program_makes_the_reader_panic() {
        // Every cut of a real program, and bytes that are not Python at all.
        let program = "import pyautogui; pyautogui.click(x=1.5, y=-2); pyautogui.write('é\\'x'); pyautogui.press(['a',[1]])";
        for end in (0..=program.len()).filter(|e| program.is_char_boundary(*e)) {
            let _ = read(&program[..end]);
        }
        for junk in ["((((", "pyautogui.click(((", "'", "\u{0}", "import", "import ", ";;;", "pyautogui.scroll(1e400)"] {
            let _ = read(junk);
        }
    }
}
