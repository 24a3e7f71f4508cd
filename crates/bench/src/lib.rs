//! `guigym bench`'s measurements: figures for the platform's speed and size targets, one
//! module per part measured. Each module's `run` takes its settings and returns figures that
//! print as text or JSON (`Figures`). Benchmarks print figures; tests never assert on them.
//!
//! `manager` starts the running binary (`current_exe`) as a manager and workers, so it is
//! meant to be called from `guigym` itself.

pub mod android;
pub mod buffer;
pub mod desktop;
pub mod harness;
pub mod manager;
pub mod render;
pub mod sim;
pub mod web;

use std::time::Instant;

/// A benchmark's figures: JSON for scripts, text for people.
pub trait Figures: serde::Serialize {
    fn text(&self) -> String;
}

/// The `p`th percentile (0–100) of the samples, nearest rank; 0 for none.
pub fn percentile(samples: &mut [f64], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank.min(samples.len() - 1)]
}

/// How long `f` took, in milliseconds, and what it returned.
pub fn time_ms<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t = Instant::now();
    let out = f();
    (t.elapsed().as_secs_f64() * 1e3, out)
}

/// Resident memory of this process in bytes (Linux).
pub fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank_and_empty_is_zero() {
        let mut xs = vec![5.0, 1.0, 4.0, 2.0, 3.0];
        assert_eq!(percentile(&mut xs, 50.0), 3.0);
        assert_eq!(percentile(&mut xs, 0.0), 1.0);
        assert_eq!(percentile(&mut xs, 100.0), 5.0);
        assert_eq!(percentile(&mut [], 99.0), 0.0);
    }
}
