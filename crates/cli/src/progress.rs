//! Progress of long work (eval, collect, validate, audit): on a terminal, a bar with the rate
//! and the time left; when standard error is not a terminal (a CI log, a file), a plain line
//! at every tenth of the work, and at most one every 30 s otherwise, so logs stay short.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Plain lines no closer than this, except at each tenth of the work.
const PLAIN_EVERY: Duration = Duration::from_secs(30);

#[derive(Clone)]
pub struct Meter {
    bar: ProgressBar,
    /// Set when the bar is not drawn and plain lines are printed instead.
    plain: Option<Arc<Mutex<Plain>>>,
}

struct Plain {
    what: String,
    started: Instant,
    last_line: Instant,
    done: u64,
    total: u64,
}

impl Meter {
    /// A meter for `total` units of `what`; `silent` shows nothing (JSON output).
    pub fn new(what: &str, total: u64, silent: bool) -> Meter {
        let bar = ProgressBar::new(total);
        if let Ok(style) = ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} · {per_sec} · ETA {eta} · {msg}") {
            bar.set_style(style.progress_chars("=> "));
        }
        let terminal = std::io::stderr().is_terminal();
        if silent || !terminal {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        let plain = (!silent && !terminal).then(|| {
            let now = Instant::now();
            Arc::new(Mutex::new(Plain { what: what.to_string(), started: now, last_line: now, done: 0, total }))
        });
        Meter { bar, plain }
    }

    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
        let Some(plain) = &self.plain else { return };
        let mut p = plain.lock().unwrap_or_else(|e| e.into_inner());
        let total = p.total.max(1);
        let tenth = |done: u64| done * 10 / total;
        let before = tenth(p.done);
        p.done += n;
        if tenth(p.done) > before || p.last_line.elapsed() >= PLAIN_EVERY || p.done >= p.total {
            p.last_line = Instant::now();
            eprintln!("{}", p.line());
        }
    }

    pub fn set_message(&self, message: String) {
        self.bar.set_message(message);
    }

    /// A line above the bar (or a plain line).
    pub fn println(&self, line: String) {
        if self.plain.is_some() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Plain {
    fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64();
        let rate = self.done as f64 / secs.max(1e-9);
        let left = self.total.saturating_sub(self.done) as f64 / rate.max(1e-9);
        let pct = self.done as f64 * 100.0 / self.total.max(1) as f64;
        format!("{}: {}/{} ({pct:.0} %) · {rate:.2}/s · {secs:.0} s elapsed · ETA {left:.0} s", self.what, self.done, self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_line_says_how_far_how_fast_and_how_long_is_left() {
        let p = Plain { what: "eval".into(), started: Instant::now() - Duration::from_secs(10), last_line: Instant::now(), done: 50, total: 200 };
        let line = p.line();
        assert!(line.starts_with("eval: 50/200 (25 %) · 5.00/s · 10 s elapsed · ETA 30 s"), "{line}");
    }
}
