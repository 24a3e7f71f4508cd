//! Counters and latency histograms in Prometheus text format.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Histogram bucket bounds in seconds.
const BUCKETS: [f64; 12] = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0, 5.0];

#[derive(Default)]
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
