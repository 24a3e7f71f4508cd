//! The `openai` policy: any OpenAI-compatible chat-completions server (vLLM, SGLang, hosted
//! APIs). Images go as base64 data URLs; each trajectory sticks to one endpoint for its whole
//! life (rendezvous hashing on the trajectory id) and names itself in routing headers for
//! gateways; 5xx, 429 and timeouts are retried with backoff, and a server that stays down is
//! an infrastructure failure, never the agent's.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine;
use guigym_core::TaskSpec;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::prompt::{Part, Prompt, Role};
use crate::{Policy, PolicyError, PolicyFactory, PolicyInput, PolicyOutput, TokenData, Usage};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpenAiConfig {
    /// One or more base URLs, each ending in `/v1`.
    pub base_urls: Vec<String>,
    pub model: String,
    /// The environment variable that holds the API key (never the key itself).
    pub api_key_env: Option<String>,
    pub temperature: f32,
    pub max_tokens: u32,
    pub timeout_ms: u64,
    /// Retries after the first try, on 5xx, 429, timeouts and refused connections.
    pub max_retries: u32,
    pub backoff_ms: u64,
    /// Extra fields merged into every request body (`{"return_token_ids": true}`, …).
    pub extra_body: Value,
}

impl Default for OpenAiConfig {
    fn default() -> OpenAiConfig {
        OpenAiConfig {
            base_urls: vec!["http://127.0.0.1:8000/v1".into()],
            model: "default".into(),
            api_key_env: Some("OPENAI_API_KEY".into()),
            temperature: 0.0,
            max_tokens: 512,
            timeout_ms: 120_000,
            max_retries: 4,
            backoff_ms: 500,
            extra_body: Value::Null,
        }
    }
}

/// The endpoint a trajectory sticks to: highest rendezvous score of (trajectory, endpoint).
pub fn pick_endpoint<'a>(endpoints: &'a [String], trajectory_id: &str) -> Option<&'a str> {
    endpoints.iter().max_by_key(|e| fnv1a(&[trajectory_id.as_bytes(), b"\0", e.as_bytes()])).map(String::as_str)
}

fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= *b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    }
    // Finalize so that nearby inputs spread (FNV alone is weak in its high bits).
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// The chat-completions `messages` for a prompt.
pub fn wire_messages(prompt: &Prompt) -> Vec<Value> {
    prompt
        .messages
        .iter()
        .map(|m| {
            let has_image = m.parts.iter().any(|p| matches!(p, Part::Image(_)));
            if m.role == Role::User && has_image {
                let content: Vec<Value> = m
                    .parts
                    .iter()
                    .map(|p| match p {
                        Part::Text(t) => json!({"type": "text", "text": t}),
                        Part::Image(img) => json!({"type": "image_url", "image_url": {"url": data_url(&img.png)}}),
                    })
                    .collect();
                json!({"role": m.role.name(), "content": content})
            } else {
                let text: String = m.parts.iter().filter_map(|p| if let Part::Text(t) = p { Some(t.as_str()) } else { None }).collect();
                json!({"role": m.role.name(), "content": text})
            }
        })
        .collect()
}

fn data_url(png: &[u8]) -> String {
    format!("data:image/png;base64,{}", base64::engine::general_purpose::STANDARD.encode(png))
}

pub struct OpenAiFactory {
    config: Arc<OpenAiConfig>,
    client: reqwest::Client,
    api_key: Option<String>,
}

impl OpenAiFactory {
    pub fn new(config: OpenAiConfig) -> Result<OpenAiFactory, String> {
        if config.base_urls.is_empty() {
            return Err("openai policy: give at least one base URL".into());
        }
        for u in &config.base_urls {
            if !(u.starts_with("http://") || u.starts_with("https://")) {
                return Err(format!("openai policy: base URL {u:?} must start with http:// or https://"));
            }
        }
        let api_key = config.api_key_env.as_deref().and_then(|v| std::env::var(v).ok()).filter(|k| !k.is_empty());
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(64)
            .build()
            .map_err(|e| format!("openai policy: http client: {e}"))?;
        Ok(OpenAiFactory { config: Arc::new(config), client, api_key })
    }
}

impl PolicyFactory for OpenAiFactory {
    fn name(&self) -> String {
        format!("openai:{}", self.config.model)
    }

    fn for_attempt(&self, _task: &TaskSpec, _attempt: u32) -> Box<dyn Policy> {
        Box::new(OpenAiPolicy { config: self.config.clone(), client: self.client.clone(), api_key: self.api_key.clone() })
    }

    fn describe(&self) -> Value {
        // The key's variable is recorded; the key never is.
        json!({ "name": self.name(), "openai": *self.config })
    }
}

pub struct OpenAiPolicy {
    config: Arc<OpenAiConfig>,
    client: reqwest::Client,
    api_key: Option<String>,
}

enum Failure {
    Retry(String),
    Fatal(PolicyError),
}

impl OpenAiPolicy {
    async fn call(&self, url: &str, body: &Value, trajectory_id: &str) -> Result<Value, Failure> {
        let mut req = self
            .client
            .post(url)
            .timeout(Duration::from_millis(self.config.timeout_ms))
            .header("X-SMG-Routing-Key", trajectory_id)
            .header("X-Session-ID", trajectory_id)
            .json(body);
        if let Some(key) = &self.api_key {
            req = req.bearer_auth(key);
        }
        let resp = req.send().await.map_err(|e| Failure::Retry(describe_error(&e)))?;
        let status = resp.status();
        let text = resp.text().await.map_err(|e| Failure::Retry(describe_error(&e)))?;
        if status.is_server_error() || status.as_u16() == 429 {
            return Err(Failure::Retry(format!("HTTP {status}: {}", snippet(&text))));
        }
        if !status.is_success() {
            return Err(Failure::Fatal(PolicyError::Rejected(format!("HTTP {status}: {}", snippet(&text)))));
        }
        serde_json::from_str(&text).map_err(|e| Failure::Retry(format!("response is not JSON ({e}): {}", snippet(&text))))
    }
}

fn describe_error(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "request timed out".into()
    } else if e.is_connect() {
        format!("cannot connect: {e}")
    } else {
        e.to_string()
    }
}

fn snippet(s: &str) -> String {
    s.chars().take(200).collect()
}

/// Reads the reply, usage and token data from a chat completion, leniently.
pub fn read_completion(v: &Value) -> Result<(String, Option<Usage>, Option<TokenData>), String> {
    let choice = v.get("choices").and_then(|c| c.get(0)).ok_or("the response has no choices")?;
    let raw = choice.pointer("/message/content").and_then(Value::as_str).unwrap_or("").to_string();
    let usage = v.get("usage").map(|u| Usage {
        prompt_tokens: u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0) as u32,
        completion_tokens: u.get("completion_tokens").and_then(Value::as_u64).unwrap_or(0) as u32,
        cached_tokens: u.pointer("/prompt_tokens_details/cached_tokens").and_then(Value::as_u64).map(|c| c as u32),
    });
    let ids = |x: Option<&Value>| {
        x.and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_u64).map(|i| i as u32).collect::<Vec<u32>>())
    };
    let logprobs = choice
        .pointer("/logprobs/content")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|t| t.get("logprob").and_then(Value::as_f64)).map(|l| l as f32).collect::<Vec<f32>>());
    let tokens = TokenData { prompt_ids: ids(v.get("prompt_token_ids")), completion_ids: ids(choice.get("token_ids")), logprobs };
    let tokens = (tokens != TokenData::default()).then_some(tokens);
    Ok((raw, usage, tokens))
}

#[async_trait]
impl Policy for OpenAiPolicy {
    async fn act(&mut self, input: &PolicyInput<'_>) -> Result<PolicyOutput, PolicyError> {
        let endpoint = pick_endpoint(&self.config.base_urls, input.trajectory_id)
            .ok_or_else(|| PolicyError::Rejected("no endpoint configured".into()))?
            .to_string();
        let url = format!("{}/chat/completions", endpoint.trim_end_matches('/'));
        let mut body = json!({
            "model": self.config.model,
            "messages": wire_messages(input.prompt),
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
        });
        if let (Value::Object(b), Value::Object(extra)) = (&mut body, &self.config.extra_body) {
            for (k, v) in extra {
                b.insert(k.clone(), v.clone());
            }
        }
        let mut last = String::new();
        for attempt in 0..=self.config.max_retries {
            if attempt > 0 {
                let backoff = self.config.backoff_ms.saturating_mul(1 << (attempt - 1).min(6));
                tokio::time::sleep(Duration::from_millis(backoff)).await;
            }
            match self.call(&url, &body, input.trajectory_id).await {
                Ok(v) => {
                    let (raw, usage, tokens) = read_completion(&v).map_err(PolicyError::Unavailable)?;
                    return Ok(PolicyOutput { raw, usage, tokens, endpoint: Some(endpoint) });
                }
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry(why)) => {
                    tracing::warn!(endpoint = %endpoint, attempt, error = %why, "policy request failed");
                    last = why;
                }
            }
        }
        Err(PolicyError::Unavailable(format!("{endpoint}: {last} (after {} tries)", self.config.max_retries + 1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendezvous_sticks_and_spreads() {
        let eps: Vec<String> = (0..3).map(|i| format!("http://127.0.0.1:900{i}/v1")).collect();
        let mut counts = [0usize; 3];
        for t in 0..300 {
            let id = format!("run-1:task/{t}:0");
            let a = pick_endpoint(&eps, &id).unwrap();
            assert_eq!(a, pick_endpoint(&eps, &id).unwrap());
            counts[eps.iter().position(|e| e == a).unwrap()] += 1;
        }
        assert!(counts.iter().all(|c| *c > 60), "{counts:?}");
        // Removing an endpoint moves only the trajectories that were on it.
        let fewer = &eps[..2];
        for t in 0..300 {
            let id = format!("run-1:task/{t}:0");
            let before = pick_endpoint(&eps, &id).unwrap();
            if before != eps[2] {
                assert_eq!(pick_endpoint(fewer, &id).unwrap(), before);
            }
        }
    }

    #[test]
    fn reads_usage_tokens_and_logprobs() {
        let v = json!({
            "choices": [{"message": {"content": "hi"}, "token_ids": [5, 6], "logprobs": {"content": [{"logprob": -0.5}, {"logprob": -1.0}]}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 64}},
            "prompt_token_ids": [1, 2, 3]
        });
        let (raw, usage, tokens) = read_completion(&v).unwrap();
        assert_eq!(raw, "hi");
        assert_eq!(usage.unwrap().cached_tokens, Some(64));
        let t = tokens.unwrap();
        assert_eq!(t.completion_ids, Some(vec![5, 6]));
        assert_eq!(t.prompt_ids, Some(vec![1, 2, 3]));
        assert_eq!(t.logprobs, Some(vec![-0.5, -1.0]));
        assert!(read_completion(&json!({"error": "x"})).is_err());
    }
}
