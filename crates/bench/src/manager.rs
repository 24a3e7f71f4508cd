//! `guigym bench manager`: a manager process and worker processes on loopback, driven over
//! HTTP from this process: lease and hold thousands of sim instances, reset them, drive steps
//! from many concurrent clients, and read each process's memory.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use guigym_benchmark_phone as tasks;
use guigym_manager::auth;
use guigym_manager::client::ApiClient;
use serde::Serialize;
use serde_json::{json, Value};

use crate::percentile;

pub struct Settings {
    pub instances: usize,
    pub workers: usize,
    pub clients: usize,
    pub seconds: u64,
    /// The phone suite the instances are reset to.
    pub suite: String,
}

#[derive(Serialize)]
pub struct Latency {
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub samples: usize,
}

#[derive(Serialize)]
pub struct ManagerFigures {
    pub instances_leased: usize,
    /// The suite the instances were reset to, and its tasks (a worker keeps one initial state
    /// per task its instances hold).
    pub suite: String,
    pub tasks: usize,
    pub workers: usize,
    pub clients: usize,
    /// Leasing 1,000 instances that do not exist yet (created on the workers).
    pub fresh_1000_up_ms: f64,
    /// One lease request of 1,000 instances, under no other load.
    pub lease_request_1000: Latency,
    /// Single-instance lease requests while steps run.
    pub lease_request_under_load: Latency,
    pub reset_under_load: Latency,
    pub step_under_load: Latency,
    pub steps_per_second: f64,
    pub step_errors: u64,
    /// Resident memory of each process after every instance was leased and reset.
    pub rss_mib: Vec<(String, f64)>,
    pub rss_per_instance_kib: f64,
}

impl crate::Figures for ManagerFigures {
    fn text(&self) -> String {
        let l = |x: &Latency| format!("p50 {:>7.2} ms   p99 {:>7.2} ms   ({} samples)", x.p50_ms, x.p99_ms, x.samples);
        let mut out =
            format!("manager + {} worker processes on loopback, {} instances leased, {} clients\n", self.workers, self.instances_leased, self.clients);
        out.push_str(&format!("  instances reset to the {} tasks of suite {}\n", self.tasks, self.suite));
        out.push_str(&format!("  1,000 fresh instances up        {:>8.1} ms\n", self.fresh_1000_up_ms));
        out.push_str(&format!("  lease request (1,000)           {}\n", l(&self.lease_request_1000)));
        out.push_str(&format!("  lease request (1) under load    {}\n", l(&self.lease_request_under_load)));
        out.push_str(&format!("  reset under load                {}\n", l(&self.reset_under_load)));
        out.push_str(&format!("  step under load                 {}\n", l(&self.step_under_load)));
        out.push_str(&format!("  steps per second                {:>8.0}   (errors {})\n", self.steps_per_second, self.step_errors));
        for (name, mib) in &self.rss_mib {
            out.push_str(&format!("  RSS {:<28}{:>8.1} MiB\n", name, mib));
        }
        out.push_str(&format!("  RSS per leased instance         {:>8.1} KiB\n", self.rss_per_instance_kib));
        out
    }
}

/// A child process that prints `listening on URL` first; killed on drop.
struct Server {
    name: String,
    child: Child,
    url: String,
}

impl Server {
    fn start(name: &str, args: &[String]) -> anyhow::Result<Server> {
        let exe = std::env::current_exe().context("finding the guigym binary")?;
        let mut child = Command::new(exe).args(args).stdout(Stdio::piped()).stderr(Stdio::null()).spawn()?;
        let mut line = String::new();
        let stdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout from {name}"))?;
        BufReader::new(stdout).read_line(&mut line)?;
        let url = line.trim().strip_prefix("listening on ").ok_or_else(|| anyhow!("{name} did not start: {line:?}"))?.to_string();
        Ok(Server { name: name.to_string(), child, url })
    }

    fn rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with("VmRSS:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map(|kb| kb / 1024.0)
            .unwrap_or(0.0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn latency(mut samples: Vec<f64>) -> Latency {
    Latency { p50_ms: percentile(&mut samples, 50.0), p99_ms: percentile(&mut samples, 99.0), samples: samples.len() }
}

#[derive(Clone)]
struct Grant {
    lease: String,
    instance: u64,
    data: ApiClient,
}

async fn lease(manager: &ApiClient, http: &reqwest::Client, count: usize) -> anyhow::Result<Vec<Grant>> {
    let v: Value = manager
        .post("/v1/leases", &json!({ "spec": {"backend": "sim"}, "count": count, "ttl_ms": 3_600_000 }))
        .await
        .map_err(|e| anyhow!("leasing {count}: {e}"))?;
    let leases = v["leases"].as_array().ok_or_else(|| anyhow!("no leases in the answer"))?;
    Ok(leases
        .iter()
        .map(|g| Grant {
            lease: g["lease_id"].as_str().unwrap_or_default().to_string(),
            instance: g["instance_id"].as_u64().unwrap_or_default(),
            data: ApiClient::with_http(g["data_url"].as_str().unwrap_or_default(), None, Duration::from_secs(120), http.clone()),
        })
        .collect())
}

pub async fn run(s: Settings) -> anyhow::Result<ManagerFigures> {
    if s.instances < 1000 {
        bail!("--instances must be at least 1000");
    }
    let suite = Arc::new(tasks::suite(&s.suite).filter(|t| !t.is_empty()).ok_or_else(|| anyhow!("no phone suite {:?}", s.suite))?);

    let per_worker = s.instances.div_ceil(s.workers) + 1000;
    // Authentication on, as in a deployment: one credential per role.
    let (client, fleet, operator) = (auth::random_id("c"), auth::random_id("w"), auth::random_id("o"));
    let manager = Server::start(
        "manager",
        &["serve", "--port", "0", "--capacity", "0", "--token", &client, "--worker-token", &fleet, "--operator-token", &operator].map(String::from),
    )?;
    let mut workers = Vec::new();
    for i in 0..s.workers {
        let args: Vec<String> = ["worker", "--manager", &manager.url, "--port", "0", "--capacity", &per_worker.to_string(), "--worker-token", &fleet]
            .iter()
            .map(|x| x.to_string())
            .collect();
        workers.push(Server::start(&format!("worker {i}"), &args)?);
    }
    let http = reqwest::Client::builder().pool_max_idle_per_host(s.clients * 2).build()?;
    let api = ApiClient::with_http(&manager.url, Some(client), Duration::from_secs(300), http.clone());
    let ops = ApiClient::with_http(&manager.url, Some(operator), Duration::from_secs(30), http.clone());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let w: Value = ops.call(reqwest::Method::GET, "/v1/workers", None).await.map_err(|e| anyhow!("{e}"))?;
        if w.as_array().map(|a| a.iter().filter(|x| x["alive"] == true).count()).unwrap_or(0) >= s.workers {
            break;
        }
        if Instant::now() > deadline {
            bail!("workers did not register in time");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Fresh instances: the first 1,000 do not exist yet.
    let t = Instant::now();
    let mut grants = lease(&api, &http, 1000).await?;
    let fresh_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut batch_ms = vec![fresh_ms];
    while grants.len() < s.instances {
        let n = (s.instances - grants.len()).min(1000);
        let t = Instant::now();
        grants.extend(lease(&api, &http, n).await?);
        batch_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }

    // Reset every instance to a task, from all clients at once.
    let grants = Arc::new(grants);
    let next = Arc::new(AtomicU64::new(0));
    let resets = Arc::new(Mutex::new(Vec::new()));
    let mut handles = Vec::new();
    for _ in 0..s.clients {
        let (grants, next, resets, suite) = (grants.clone(), next.clone(), resets.clone(), suite.clone());
        handles.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                let Some(g) = grants.get(i) else { return Ok::<(), anyhow::Error>(()) };
                // The step load taps without end: no budget to run out of.
                let mut task = suite[i % suite.len()].clone();
                task.step_budget = u32::MAX;
                let task = &task;
                let t = Instant::now();
                let _: Value = g
                    .data
                    .post(&format!("/v1/instances/{}/reset", g.instance), &json!({"lease": g.lease, "task": task}))
                    .await
                    .map_err(|e| anyhow!("reset: {e}"))?;
                resets.lock().unwrap_or_else(|p| p.into_inner()).push(t.elapsed().as_secs_f64() * 1e3);
            }
        }));
    }
    for h in handles {
        h.await??;
    }
    let rss_mib: Vec<(String, f64)> = std::iter::once(&manager).chain(workers.iter()).map(|p| (p.name.clone(), p.rss_mib())).collect();
    let worker_rss: f64 = rss_mib.iter().skip(1).map(|r| r.1).sum();

    // Step load: every client taps on its instances in turn; one client also leases and
    // releases single instances to time the control path under load.
    let stop = Arc::new(AtomicBool::new(false));
    let steps = Arc::new(Mutex::new(Vec::new()));
    let errors = Arc::new(AtomicU64::new(0));
    let mut handles = Vec::new();
    for c in 0..s.clients {
        let (grants, stop, steps, errors) = (grants.clone(), stop.clone(), steps.clone(), errors.clone());
        let clients = s.clients;
        handles.push(tokio::spawn(async move {
            let mut i = c;
            let mut n = 0u64;
            let mut mine = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let g = &grants[i % grants.len()];
                let action = json!({"action": "click", "at": [135 + (n % 4) * 270, 300]});
                let t = Instant::now();
                let r: Result<Value, _> = g
                    .data
                    .post(&format!("/v1/instances/{}/step", g.instance), &json!({"lease": g.lease, "request_id": format!("b{c}-{n}"), "action": action}))
                    .await;
                if r.is_err() {
                    errors.fetch_add(1, Ordering::Relaxed);
                }
                mine.push(t.elapsed().as_secs_f64() * 1e3);
                i += clients;
                n += 1;
            }
            steps.lock().unwrap_or_else(|p| p.into_inner()).extend(mine);
        }));
    }
    let lease_samples = {
        let (stop, api, http) = (stop.clone(), api.clone(), http.clone());
        tokio::spawn(async move {
            let mut samples = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                if let Ok(g) = lease(&api, &http, 1).await {
                    samples.push(t.elapsed().as_secs_f64() * 1e3);
                    for x in g {
                        let _: Result<Value, _> = api.call(reqwest::Method::DELETE, &format!("/v1/leases/{}", x.lease), None).await;
                    }
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            samples
        })
    };
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(s.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.await?;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let lease_samples = lease_samples.await?;
    let step_samples = std::mem::take(&mut *steps.lock().unwrap_or_else(|p| p.into_inner()));
    let steps_per_second = step_samples.len() as f64 / elapsed;
    let reset_samples = std::mem::take(&mut *resets.lock().unwrap_or_else(|p| p.into_inner()));
    Ok(ManagerFigures {
        instances_leased: grants.len(),
        suite: s.suite.clone(),
        tasks: suite.len(),
        workers: s.workers,
        clients: s.clients,
        fresh_1000_up_ms: fresh_ms,
        lease_request_1000: latency(batch_ms),
        lease_request_under_load: latency(lease_samples),
        reset_under_load: latency(reset_samples),
        step_under_load: latency(step_samples),
        steps_per_second,
        step_errors: errors.load(Ordering::Relaxed),
        rss_per_instance_kib: worker_rss * 1024.0 / grants.len() as f64,
        rss_mib,
    })
}
