//! Counters and latency histograms in Prometheus text format, and their recent history
//! (snapshots taken by the control loop) for the fleet page's plots over time.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Histogram bucket bounds in seconds.
const BUCKETS: [f64; 12] = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0, 5.0];

/// The last bucket's bound in milliseconds: a p99 above it is only known to be above it.
pub const LAST_BUCKET_MS: f64 = BUCKETS[BUCKETS.len() - 1] * 1000.0;

#[derive(Default, Clone)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    sum: f64,
    count: u64,
}

#[derive(Default)]
pub struct Metrics {
    pub infra_failures: AtomicU64,
    pub recycles: AtomicU64,
    pub quarantined: AtomicU64,
    pub leases_granted: AtomicU64,
    pub leases_expired: AtomicU64,
    pub evictions: AtomicU64,
    ops: Mutex<BTreeMap<&'static str, Histogram>>,
    history: Mutex<History>,
}

/// How often the control loop snapshots the figures, and how many snapshots are kept (an hour).
pub const SAMPLE_EVERY: Duration = Duration::from_secs(10);
const SAMPLES_KEPT: usize = 360;

#[derive(Default)]
struct History {
    started: Option<Instant>,
    samples: VecDeque<Sample>,
}

/// The cumulative figures at one moment.
#[derive(Clone)]
struct Sample {
    at: Instant,
    ops: BTreeMap<&'static str, Histogram>,
    infra_failures: u64,
    quarantined: u64,
}

/// What happened between two snapshots: for each operation, how many ran, their mean and
/// (from the histogram's buckets) an upper bound of their 99th percentile.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    /// The interval's end, in seconds since the first snapshot.
    pub end_secs: f64,
    pub seconds: f64,
    pub ops: BTreeMap<String, OpFigures>,
    pub infra_failures: u64,
    pub quarantined: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OpFigures {
    pub count: u64,
    pub mean_ms: f64,
    /// The upper bound of the bucket the 99th percentile falls in (∞ above the last bucket).
    pub p99_ms: f64,
}

impl Metrics {
    pub fn observe(&self, op: &'static str, took: Duration) {
        let secs = took.as_secs_f64();
        let mut ops = self.ops.lock().unwrap_or_else(|p| p.into_inner());
        let h = ops.entry(op).or_default();
        for (i, b) in BUCKETS.iter().enumerate() {
            if secs <= *b {
                h.counts[i] += 1;
            }
        }
        h.sum += secs;
        h.count += 1;
    }

    fn sample(&self, at: Instant) -> Sample {
        Sample {
            at,
            ops: self.ops.lock().unwrap_or_else(|p| p.into_inner()).clone(),
            infra_failures: self.infra_failures.load(Ordering::Relaxed),
            quarantined: self.quarantined.load(Ordering::Relaxed),
        }
    }

    /// Takes a snapshot when the last one is `SAMPLE_EVERY` old (the control loop calls this
    /// on every tick); the first call takes one at once.
    pub fn sample_if_due(&self, now: Instant) {
        let due = {
            let history = self.history.lock().unwrap_or_else(|p| p.into_inner());
            history.samples.back().is_none_or(|s| now.duration_since(s.at) >= SAMPLE_EVERY)
        };
        if due {
            let sample = self.sample(now);
            let mut history = self.history.lock().unwrap_or_else(|p| p.into_inner());
            history.started.get_or_insert(now);
            history.samples.push_back(sample);
            while history.samples.len() > SAMPLES_KEPT {
                history.samples.pop_front();
            }
        }
    }

    /// The intervals between the kept snapshots, the last one ending `now` (so what happened
    /// since the last snapshot shows too).
    pub fn history(&self, now: Instant) -> Vec<Interval> {
        let current = self.sample(now);
        let history = self.history.lock().unwrap_or_else(|p| p.into_inner());
        let Some(started) = history.started else { return Vec::new() };
        let samples: Vec<&Sample> = history.samples.iter().chain(std::iter::once(&current)).collect();
        samples
            .windows(2)
            .filter(|w| w[1].at > w[0].at)
            .map(|w| {
                let (a, b) = (w[0], w[1]);
                let ops = b
                    .ops
                    .iter()
                    .filter_map(|(op, h)| {
                        let before = a.ops.get(op).cloned().unwrap_or_default();
                        let count = h.count.saturating_sub(before.count);
                        (count > 0).then(|| {
                            let mean_ms = (h.sum - before.sum) / count as f64 * 1000.0;
                            let needed = (count as f64 * 0.99).ceil() as u64;
                            let p99 = BUCKETS
                                .iter()
                                .zip(h.counts.iter().zip(before.counts.iter()))
                                .find(|(_, (now, then))| now.saturating_sub(**then) >= needed)
                                .map_or(f64::INFINITY, |(b, _)| b * 1000.0);
                            (op.to_string(), OpFigures { count, mean_ms, p99_ms: p99 })
                        })
                    })
                    .collect();
                Interval {
                    end_secs: b.at.duration_since(started).as_secs_f64(),
                    seconds: b.at.duration_since(a.at).as_secs_f64(),
                    ops,
                    infra_failures: b.infra_failures.saturating_sub(a.infra_failures),
                    quarantined: b.quarantined.saturating_sub(a.quarantined),
                }
            })
            .collect()
    }

    pub fn inc(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The Prometheus text exposition, with extra gauges appended.
    pub fn render(&self, gauges: &[(&str, &str, f64)]) -> String {
        let mut out = String::new();
        let counter = |out: &mut String, name: &str, help: &str, v: &AtomicU64| {
            out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} counter\n{name} {}\n", v.load(Ordering::Relaxed)));
        };
        counter(&mut out, "guigym_infra_failures_total", "Operations that failed for infrastructure reasons.", &self.infra_failures);
        counter(&mut out, "guigym_recycles_total", "Instances retired after their episode budget.", &self.recycles);
        counter(&mut out, "guigym_quarantined_total", "Instances quarantined after a failure.", &self.quarantined);
        counter(&mut out, "guigym_leases_granted_total", "Leases granted.", &self.leases_granted);
        counter(&mut out, "guigym_leases_expired_total", "Leases reclaimed after their TTL.", &self.leases_expired);
        counter(&mut out, "guigym_evictions_total", "Ready instances retired to make room for another spec.", &self.evictions);
        let mut typed: Vec<&str> = Vec::new();
        for (name, labels, v) in gauges {
            if !typed.contains(name) {
                typed.push(name);
                out.push_str(&format!("# TYPE {name} gauge\n"));
            }
            out.push_str(&format!("{name}{labels} {v}\n"));
        }
        let ops = self.ops.lock().unwrap_or_else(|p| p.into_inner());
        if !ops.is_empty() {
            out.push_str("# HELP guigym_operation_seconds Latency of environment operations.\n# TYPE guigym_operation_seconds histogram\n");
        }
        for (op, h) in ops.iter() {
            for (i, b) in BUCKETS.iter().enumerate() {
                out.push_str(&format!("guigym_operation_seconds_bucket{{op=\"{op}\",le=\"{b}\"}} {}\n", h.counts[i]));
            }
            out.push_str(&format!("guigym_operation_seconds_bucket{{op=\"{op}\",le=\"+Inf\"}} {}\n", h.count));
            out.push_str(&format!("guigym_operation_seconds_sum{{op=\"{op}\"}} {}\n", h.sum));
            out.push_str(&format!("guigym_operation_seconds_count{{op=\"{op}\"}} {}\n", h.count));
        }
        out
    }
}

/// This process's resident memory (`VmRSS`), where the platform reports it.
pub fn process_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.trim().trim_end_matches("kB").trim().parse::<u64>().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_is_the_difference_between_snapshots() {
        let m = Metrics::default();
        let t0 = Instant::now();
        assert!(m.history(t0).is_empty(), "no snapshot yet");
        m.sample_if_due(t0);
        for ms in [1, 2, 3] {
            m.observe("step", Duration::from_millis(ms));
        }
        Metrics::inc(&m.infra_failures);
        m.sample_if_due(t0 + Duration::from_secs(1));
        let h = m.history(t0 + Duration::from_secs(2));
        assert_eq!(h.len(), 1, "a snapshot is taken only every SAMPLE_EVERY; the live interval shows");
        let step = &h[0].ops["step"];
        assert_eq!(step.count, 3);
        assert!((step.mean_ms - 2.0).abs() < 1e-9);
        assert_eq!(step.p99_ms, 5.0, "the bucket holding the slowest of three (≤ 5 ms)");
        assert_eq!(h[0].infra_failures, 1);
        m.sample_if_due(t0 + SAMPLE_EVERY);
        m.observe("step", Duration::from_secs(9));
        let h = m.history(t0 + SAMPLE_EVERY + Duration::from_secs(1));
        assert_eq!(h.len(), 2);
        assert_eq!(h[1].ops["step"].count, 1, "only what ran since the last snapshot");
        assert_eq!(h[1].ops["step"].p99_ms, f64::INFINITY, "above the last bucket");
        assert_eq!(h[1].infra_failures, 0);
        assert!((h[1].end_secs - 11.0).abs() < 1e-9);
    }
}
