//! `guigym bench buffer`: the trajectory buffer's throughput over HTTP on loopback, groups per
//! second in (concurrent producers posting) and out (a trainer leasing and acknowledging),
//! with its journal on disk and in memory only, in one run.

use std::sync::Arc;
use std::time::Instant;

use guigym_rollout::buffer::{Buffer, TrajectoryBuffer};
use guigym_serve::buffer::{BufferService, Tokens};
use serde::Serialize;
use serde_json::json;

pub struct Settings {
    pub groups: usize,
    pub samples_per_group: usize,
    pub prompt_tokens: usize,
    pub response_tokens: usize,
    pub producers: usize,
    pub batch_samples: usize,
}

#[derive(Serialize)]
pub struct BufferFigures {
    pub groups: usize,
    pub samples_per_group: usize,
    pub group_bytes: usize,
    pub producers: usize,
    pub batch_samples: usize,
    pub in_memory: Side,
    pub durable: Side,
    /// Durable throughput as a share of in-memory, in and out.
    pub durable_share_in: f64,
    pub durable_share_out: f64,
    /// Where the journal was written.
    pub journal: String,
}

#[derive(Serialize)]
pub struct Side {
    pub groups_in_per_s: f64,
    pub groups_out_per_s: f64,
    pub post_p50_ms: f64,
    pub post_p99_ms: f64,
}

impl crate::Figures for BufferFigures {
    fn text(&self) -> String {
        let mut out = format!(
            "trajectory buffer over HTTP: {} groups of {} samples ({} KiB each, no images), {} producers, batches of {} samples\n",
            self.groups,
            self.samples_per_group,
            self.group_bytes / 1024,
            self.producers,
            self.batch_samples
        );
        out += "                 groups/s in  groups/s out   post p50   post p99\n";
        for (name, s) in [("in memory", &self.in_memory), ("durable", &self.durable)] {
            out += &format!("  {name:<13} {:>11.0} {:>13.0} {:>8.2} ms {:>8.2} ms\n", s.groups_in_per_s, s.groups_out_per_s, s.post_p50_ms, s.post_p99_ms);
        }
        out += &format!(
            "  durable / in memory: {:.0} % in, {:.0} % out (journal at {})\n",
            self.durable_share_in * 100.0,
            self.durable_share_out * 100.0,
            self.journal
        );
        out
    }
}

/// One group's body, as `guigym train` posts it.
fn group_body(id: &str, s: &Settings) -> Vec<u8> {
    let samples: Vec<serde_json::Value> = (0..s.samples_per_group)
        .map(|i| {
            json!({
                "trajectory_id": format!("{id}-t{i}"), "task_id": "bench/0", "window": 0, "first_step": 0, "last_step": 3,
                "prompt_ids": (0..s.prompt_tokens).map(|t| (t * 7919 % 151_000) as u32).collect::<Vec<_>>(),
                "response_ids": (0..s.response_tokens).map(|t| (t * 104_729 % 151_000) as u32).collect::<Vec<_>>(),
                "loss_mask": vec![1; s.response_tokens],
                "rollout_logprobs": vec![-0.25; s.response_tokens],
                "images": [], "image_positions": [], "reward": (i % 2) as f64, "advantage": if i % 2 == 0 { -1.0 } else { 1.0 },
                "group_id": id, "weight_version": 0, "status": "completed", "token_source": "server",
            })
        })
        .collect();
    json!({"group_id": id, "trajectories": s.samples_per_group, "samples": samples}).to_string().into_bytes()
}

async fn one_side(buffer: Buffer, bodies: &Arc<Vec<Vec<u8>>>, s: &Settings) -> anyhow::Result<Side> {
    let images = std::env::temp_dir().join(format!("guigym-bench-buffer-images-{}", std::process::id()));
    std::fs::create_dir_all(&images)?;
    let service = BufferService { buffer, images, max_body: 512 << 20, tokens: Tokens::default() };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let server = tokio::spawn(async move { axum::serve(listener, guigym_serve::buffer::router(Arc::new(service))).await });
    let http = reqwest::Client::builder().pool_max_idle_per_host(s.producers * 2).build()?;

    // In: every producer posts its share of the groups, one request at a time.
    let started = Instant::now();
    let mut tasks = Vec::new();
    for p in 0..s.producers {
        let (http, url, bodies) = (http.clone(), url.clone(), bodies.clone());
        let producers = s.producers;
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            for body in bodies.iter().skip(p).step_by(producers) {
                let t = Instant::now();
                let r = http.post(format!("{url}/v1/groups")).header("content-type", "application/json").body(body.clone()).send().await?;
                anyhow::ensure!(r.status().is_success(), "posting a group: {}", r.status());
                r.bytes().await?;
                latencies.push(t.elapsed().as_secs_f64() * 1e3);
            }
            Ok::<_, anyhow::Error>(latencies)
        }));
    }
    let mut latencies = Vec::new();
    for t in tasks {
        latencies.extend(t.await??);
    }
    let seconds_in = started.elapsed().as_secs_f64();

    // Out: a trainer leases batches and acknowledges each until the buffer is empty.
    let started = Instant::now();
    let mut groups_out = 0;
    // What a trainer reads of a batch here: its id and groups (the samples are parsed past).
    #[derive(serde::Deserialize)]
    struct Batch {
        batch_id: Option<String>,
        groups: Vec<serde::de::IgnoredAny>,
    }
    while groups_out < bodies.len() {
        let batch: Batch = http.get(format!("{url}/v1/batch?size={}&format=slime", s.batch_samples)).send().await?.json().await?;
        let Some(id) = batch.batch_id else { anyhow::bail!("the buffer ran dry after {groups_out} groups") };
        groups_out += batch.groups.len();
        let r = http.post(format!("{url}/v1/batch/{id}/ack")).send().await?;
        anyhow::ensure!(r.status().is_success(), "acknowledging: {}", r.status());
    }
    let seconds_out = started.elapsed().as_secs_f64();
    server.abort();
    Ok(Side {
        groups_in_per_s: bodies.len() as f64 / seconds_in,
        groups_out_per_s: groups_out as f64 / seconds_out,
        post_p50_ms: crate::percentile(&mut latencies, 50.0),
        post_p99_ms: crate::percentile(&mut latencies, 99.0),
    })
}

pub async fn run(s: Settings) -> anyhow::Result<BufferFigures> {
    let bodies: Arc<Vec<Vec<u8>>> = Arc::new((0..s.groups).map(|i| group_body(&format!("bench-{i}"), &s)).collect());
    let in_memory = one_side(Buffer::in_memory(TrajectoryBuffer::new(1)), &bodies, &s).await?;
    // The journal on the disk the temporary folder is on (not /dev/shm: memory would hide the
    // cost of syncing).
    let dir = std::env::temp_dir().join(format!("guigym-bench-buffer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let journal = dir.join("journal");
    let durable = one_side(Buffer::durable(&journal, 1, |_| {})?, &bodies, &s).await?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(BufferFigures {
        groups: s.groups,
        samples_per_group: s.samples_per_group,
        group_bytes: bodies.first().map_or(0, Vec::len),
        producers: s.producers,
        batch_samples: s.batch_samples,
        durable_share_in: durable.groups_in_per_s / in_memory.groups_in_per_s,
        durable_share_out: durable.groups_out_per_s / in_memory.groups_out_per_s,
        in_memory,
        durable,
        journal: journal.display().to_string(),
    })
}
