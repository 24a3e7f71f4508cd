//! A producer's side of a live trajectory buffer (`guigym buffer serve`): what `train` asks of
//! it and posts to it. Requests carry the producers' credential when one is set
//! (`GUIGYM_BUFFER_PRODUCER_TOKEN`); posting is idempotent (a group posted twice is a
//! duplicate), so a request that failed in transport, or met a buffer restarting, is sent again.

use std::time::Duration;

use guigym_harness::packing::Sample;

use crate::store::Store;

/// How many times a request is sent before the run gives up, and the first wait between.
const TRIES: u32 = 6;
const FIRST_WAIT: Duration = Duration::from_millis(200);

pub struct BufferClient {
    http: reqwest::Client,
    base: String,
    token: Option<String>,
}

impl BufferClient {
    /// A client of the buffer at `url`, with the producers' token from the environment.
    pub fn new(url: &str) -> BufferClient {
        let token = std::env::var("GUIGYM_BUFFER_PRODUCER_TOKEN").ok().filter(|t| !t.is_empty());
        BufferClient { http: reqwest::Client::new(), base: url.trim_end_matches('/').to_string(), token }
    }

    fn fail(&self, e: impl std::fmt::Display) -> String {
        format!("trajectory buffer {}: {e}", self.base)
    }

    /// Sends a request until it is answered by the buffer itself: transport failures and 5xx
    /// (a buffer restarting, a journal that failed) are tried again with backoff.
    async fn send(&self, build: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder) -> Result<reqwest::Response, String> {
        let mut wait = FIRST_WAIT;
        let mut last = String::new();
        for _ in 0..TRIES {
            let mut req = build(&self.http).timeout(Duration::from_secs(60));
            if let Some(t) = &self.token {
                req = req.bearer_auth(t);
            }
            match req.send().await {
                Ok(r) if !r.status().is_server_error() => return Ok(r),
                Ok(r) => last = format!("HTTP {}", r.status()),
                Err(e) => last = e.to_string(),
            }
            tokio::time::sleep(wait).await;
            wait *= 2;
        }
        Err(self.fail(format!("{last} ({TRIES} tries)")))
    }

    /// What the buffer reports of itself (`GET /v1/buffer`: its weight version, queued and
    /// leased samples, the trainer's figures).
    pub async fn state(&self) -> Result<serde_json::Value, String> {
        let r = self.send(|h| h.get(format!("{}/v1/buffer", self.base))).await?;
        let r = checked(r).await.map_err(|e| self.fail(e))?;
        r.json().await.map_err(|e| self.fail(e))
    }

    /// The weight version the buffer holds (what its trainer last announced).
    pub async fn version(&self) -> Result<u64, String> {
        self.state().await?["weight_version"].as_u64().ok_or_else(|| self.fail("no weight_version in /v1/buffer"))
    }

    /// Waits while the buffer holds `max` samples or more that the trainer has not consumed.
    pub async fn wait_for_trainer(&self, max: usize) -> Result<(), String> {
        let mut said = false;
        loop {
            let v = self.state().await?;
            let pending = v["queued"].as_u64().unwrap_or(0) + v["leased"].as_u64().unwrap_or(0);
            if (pending as usize) < max {
                return Ok(());
            }
            if !said {
                eprintln!("waiting for the trainer: {pending} samples not yet consumed (buffer_max_pending {max})");
                said = true;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// Posts one group, its screenshots first (each once: a `HEAD` says whether the buffer has
    /// it). A group the buffer already has (a resumed round, a retried post) is a duplicate.
    pub async fn post_group(&self, store: &Store, group_id: &str, trajectories: usize, samples: &[Sample]) -> Result<(), String> {
        let mut hashes: Vec<&String> = samples.iter().flat_map(|s| &s.images).collect();
        hashes.sort();
        hashes.dedup();
        for hash in hashes {
            let at = format!("{}/v1/images/{hash}", self.base);
            if self.send(|h| h.head(&at)).await?.status().is_success() {
                continue;
            }
            let png = std::fs::read(store.blob_path(hash)).map_err(|e| self.fail(format!("screenshot {hash} is not in the store: {e}")))?;
            let r = self.send(|h| h.put(&at).body(png.clone())).await?;
            checked(r).await.map_err(|e| self.fail(format!("uploading image {hash}: {e}")))?;
        }
        let body = serde_json::json!({ "group_id": group_id, "trajectories": trajectories, "samples": samples });
        let r = self.send(|h| h.post(format!("{}/v1/groups", self.base)).json(&body)).await?;
        checked(r).await.map_err(|e| self.fail(format!("posting group {group_id}: {e}")))?;
        Ok(())
    }
}

/// The response, or its status and the buffer's message.
async fn checked(r: reqwest::Response) -> Result<reqwest::Response, String> {
    if r.status().is_success() {
        return Ok(r);
    }
    let status = r.status();
    let body: serde_json::Value = r.json().await.unwrap_or_default();
    Err(format!("HTTP {status}: {}", body["error"]["message"].as_str().unwrap_or("(no message)")))
}
