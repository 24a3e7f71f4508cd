//! The `openai` policy: any OpenAI-compatible chat-completions server (vLLM, SGLang, hosted
//! APIs). Images go as base64 data URLs; each trajectory sticks to one endpoint for its whole
//! life (rendezvous hashing on its opaque trajectory id) and names itself in routing headers
//! for gateways. Failures are sorted by type: 5xx, 408, 429, timeouts and refused
//! connections are retried with backoff, then the trajectory fails over to the next endpoint
//! in its rendezvous order and stays there (an endpoint that keeps failing is marked down for
//! a while, so other trajectories skip it); a context-length 400 ends the attempt (the
//! agent's failure); any other 4xx is a configuration error that stops the run.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    /// How long an endpoint that failed a whole round of retries is skipped by new
    /// trajectories.
    pub down_for_ms: u64,
    /// Extra fields merged into every request body (`{"return_token_ids": true}`,
    /// `{"mm_processor_kwargs": {…}}`, …).
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
            down_for_ms: 30_000,
            extra_body: Value::Null,
        }
    }
}

/// The endpoint a trajectory sticks to: highest rendezvous score of (trajectory, endpoint).
pub fn pick_endpoint<'a>(endpoints: &'a [String], trajectory_id: &str) -> Option<&'a str> {
    rendezvous_order(endpoints, trajectory_id).first().map(|i| endpoints[*i].as_str())
}

/// Endpoint indices by falling rendezvous score: where a trajectory goes, and where it fails
/// over to. Removing an endpoint moves only the trajectories that were on it.
pub fn rendezvous_order(endpoints: &[String], trajectory_id: &str) -> Vec<usize> {
    let mut order: Vec<usize> = (0..endpoints.len()).collect();
    order.sort_by_key(|i| std::cmp::Reverse(fnv1a(&[trajectory_id.as_bytes(), b"\0", endpoints[*i].as_bytes()])));
    order
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
    health: Arc<Health>,
    quiet: bool,
}

/// The largest response body read from a model server (a completion with every token's
/// log-probs is a few MiB).
const MAX_RESPONSE_BYTES: usize = 64 << 20;
/// The same for a model a caller names (`for_callers`): an attempt keeps every reply, and a
/// hostile endpoint answering the most at every step would hold the server's memory.
const MAX_CALLER_RESPONSE_BYTES: usize = 4 << 20;
/// The most endpoints a caller may name for one model (`for_callers`).
pub const MAX_CALLER_ENDPOINTS: usize = 4;

/// What every trajectory of a run knows about the endpoints: which are down until when, and
/// what happened, for the report.
#[derive(Default)]
struct Health {
    state: Mutex<HealthState>,
}

#[derive(Default)]
struct HealthState {
    down_until: BTreeMap<String, Instant>,
    /// Endpoint → times it was marked down.
    marked_down: BTreeMap<String, u64>,
    failovers: u64,
}

impl Health {
    fn lock(&self) -> std::sync::MutexGuard<'_, HealthState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
    fn is_down(&self, endpoint: &str) -> bool {
        self.lock().down_until.get(endpoint).is_some_and(|t| *t > Instant::now())
    }
    fn mark_down(&self, endpoint: &str, for_ms: u64) {
        let mut s = self.lock();
        s.down_until.insert(endpoint.to_string(), Instant::now() + Duration::from_millis(for_ms));
        *s.marked_down.entry(endpoint.to_string()).or_default() += 1;
    }
    fn mark_up(&self, endpoint: &str) {
        self.lock().down_until.remove(endpoint);
    }
}

impl OpenAiFactory {
    pub fn new(config: OpenAiConfig) -> Result<OpenAiFactory, String> {
        OpenAiFactory::build(config, None)
    }

    /// A factory for a model that a caller of a server names (`POST /v1/rollouts`): each base
    /// URL must be one `egress` allows, every connection goes only where it allows, no API key
    /// of the server's is sent, and errors say what failed without what the endpoint answered
    /// (an endpoint that is really some other service must not have its answers relayed).
    pub fn for_callers(config: OpenAiConfig, egress: &crate::egress::Egress) -> Result<OpenAiFactory, String> {
        // Each endpoint gets its own round of retries: one endpoint under many spellings is one
        // endpoint, and a caller names a few at most. What is asked is what was checked, spelt
        // the way it was parsed.
        let mut urls: Vec<String> = Vec::new();
        let mut seen = Vec::new();
        for u in &config.base_urls {
            egress.check(u)?;
            let parsed = crate::egress::parse_endpoint(u)?;
            let key = crate::egress::normal(&parsed);
            if !seen.contains(&key) {
                seen.push(key);
                urls.push(parsed.to_string());
            }
        }
        if urls.len() > MAX_CALLER_ENDPOINTS {
            return Err(format!("name at most {MAX_CALLER_ENDPOINTS} model endpoints ({} different ones given)", urls.len()));
        }
        OpenAiFactory::build(OpenAiConfig { api_key_env: None, base_urls: urls, ..config }, Some(egress))
    }

    fn build(config: OpenAiConfig, egress: Option<&crate::egress::Egress>) -> Result<OpenAiFactory, String> {
        if config.base_urls.is_empty() {
            return Err("openai policy: give at least one base URL".into());
        }
        for u in &config.base_urls {
            crate::egress::parse_endpoint(u).map_err(|e| format!("openai policy: base URL {e}"))?;
        }
        let api_key = config.api_key_env.as_deref().and_then(|v| std::env::var(v).ok()).filter(|k| !k.is_empty());
        // A model server has no business redirecting: a redirect is answered as what it is.
        let mut builder = reqwest::Client::builder().pool_max_idle_per_host(64).redirect(reqwest::redirect::Policy::none());
        if let Some(egress) = egress {
            // No proxy from the server's environment either: the connection goes where checked.
            builder = builder.no_proxy().dns_resolver(egress.resolver());
        }
        let client = builder.build().map_err(|e| format!("openai policy: http client: {e}"))?;
        Ok(OpenAiFactory { config: Arc::new(config), client, api_key, health: Arc::default(), quiet: egress.is_some() })
    }
}

impl PolicyFactory for OpenAiFactory {
    fn name(&self) -> String {
        format!("openai:{}", self.config.model)
    }

    fn for_attempt(&self, _task: &TaskSpec, _attempt: u32) -> Box<dyn Policy> {
        Box::new(OpenAiPolicy {
            config: self.config.clone(),
            client: self.client.clone(),
            api_key: self.api_key.clone(),
            health: self.health.clone(),
            endpoint: None,
            quiet: self.quiet,
        })
    }

    fn describe(&self) -> Value {
        // The key's variable is recorded; the key never is.
        json!({ "name": self.name(), "openai": *self.config })
    }

    fn health(&self) -> Value {
        let s = self.health.lock();
        json!({
            "endpoints_marked_down": s.marked_down.keys().collect::<Vec<_>>(),
            "times_marked_down": s.marked_down,
            "failovers": s.failovers,
        })
    }
}

pub struct OpenAiPolicy {
    config: Arc<OpenAiConfig>,
    client: reqwest::Client,
    api_key: Option<String>,
    health: Arc<Health>,
    /// The endpoint this trajectory sticks to, once chosen (after a failover, the new one).
    endpoint: Option<usize>,
    /// Errors leave out what the server said.
    quiet: bool,
}

enum Failure {
    /// Worth another try; with the wait the server asked for (`Retry-After`), if it did.
    Retry(String, Option<Duration>),
    Fatal(PolicyError),
}

/// Whether a 400 says the prompt is over the model's context (vLLM, SGLang, OpenAI and
/// llama.cpp word it differently; the code, when given, decides).
fn is_context_length(body: &Value, text: &str) -> bool {
    if body.pointer("/error/code").and_then(Value::as_str) == Some("context_length_exceeded") {
        return true;
    }
    let t = text.to_lowercase();
    ["context length", "context_length", "maximum context", "context window", "too many tokens", "prompt is too long"].iter().any(|k| t.contains(k))
}

/// The server's own message in an error body, or the body.
fn server_message(body: &Value, text: &str) -> String {
    body.pointer("/error/message")
        .or_else(|| body.get("message"))
        .or_else(|| body.get("detail"))
        .or_else(|| body.get("error").filter(|e| e.is_string()))
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| snippet(text))
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
        let mut resp = req.send().await.map_err(|e| Failure::Retry(describe_error(&e), None))?;
        let status = resp.status();
        let header = resp.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok());
        let retry_after = guigym_core::retry_after_ms(header).map(Duration::from_millis);
        // The weights that answered, when the server says (a header, or the body below).
        let served_version = resp.headers().get("x-weight-version").and_then(|v| v.to_str().ok()).map(str::to_string);
        let mut bytes = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| Failure::Retry(describe_error(&e), None))? {
            // A caller's endpoint (quiet) may send less.
            let limit = if self.quiet { MAX_CALLER_RESPONSE_BYTES } else { MAX_RESPONSE_BYTES };
            if bytes.len() + chunk.len() > limit {
                return Err(Failure::Retry(format!("the response is over {} MiB", limit >> 20), None));
            }
            bytes.extend_from_slice(&chunk);
        }
        let text = String::from_utf8_lossy(&bytes);
        // What the server said, unless it must not be relayed.
        let said = |what: String| if self.quiet { String::new() } else { format!(": {what}") };
        if status.is_server_error() || matches!(status.as_u16(), 408 | 429) {
            return Err(Failure::Retry(format!("HTTP {status}{}", said(snippet(&text))), retry_after));
        }
        if !status.is_success() {
            let parsed: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            let message = server_message(&parsed, &text);
            if matches!(status.as_u16(), 400 | 413 | 422) && is_context_length(&parsed, &text) {
                return Err(Failure::Fatal(PolicyError::ContextLength(if self.quiet { format!("HTTP {status}") } else { message })));
            }
            let hint = match status.as_u16() {
                404 if message.to_lowercase().contains("model") => format!(" (model {:?} is not served there: pass --model)", self.config.model),
                401 | 403 => " (check the API key: --api-key-env names the variable that holds it)".to_string(),
                300..=399 => " (redirects are not followed: give the URL it points to)".to_string(),
                _ => String::new(),
            };
            let hint = if self.quiet && status.as_u16() != 401 && status.as_u16() != 403 && !status.is_redirection() { String::new() } else { hint };
            return Err(Failure::Fatal(PolicyError::Config(format!("{url} answered HTTP {status}{}{hint}", said(message)))));
        }
        let mut v: Value = serde_json::from_str(&text).map_err(|e| Failure::Retry(format!("response is not JSON ({e}){}", said(snippet(&text))), None))?;
        if let (Some(version), Value::Object(m)) = (served_version, &mut v) {
            m.entry("weight_version").or_insert(Value::String(version));
        }
        Ok(v)
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

/// A token count as servers send it: an integer, or a float with no fraction (`1234.0`).
/// `Err` says what is wrong with anything else.
fn token_count(v: Option<&Value>, field: &str) -> Result<Option<u64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            if let Some(u) = n.as_u64() {
                return Ok(Some(u));
            }
            match n.as_f64() {
                Some(f) if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < 1.8e19 => Ok(Some(f as u64)),
                _ => Err(format!("{field} is {n}, not a whole non-negative number")),
            }
        }
        Some(other) => Err(format!("{field} is {other}, not a number")),
    }
}

/// Above this, a token count of one call is a broken report.
const IMPLAUSIBLE_TOKENS: u64 = 1_000_000_000_000;

/// The usage block of a completion, as faithfully as it can be read: `None` when the server
/// sent none (or `null`); odd values are kept out and named in `anomaly`.
pub fn read_usage(u: Option<&Value>) -> Option<Usage> {
    let u = u.filter(|u| u.is_object())?;
    let mut problems = Vec::new();
    let mut count = |field: &str, v: Option<&Value>| match token_count(v, field) {
        Ok(c) => c,
        Err(e) => {
            problems.push(e);
            None
        }
    };
    let prompt = count("prompt_tokens", u.get("prompt_tokens"));
    let completion = count("completion_tokens", u.get("completion_tokens"));
    // Some servers put the cached count at the top of the usage block.
    let cached_at = u.pointer("/prompt_tokens_details/cached_tokens").filter(|v| !v.is_null()).or_else(|| u.get("cached_tokens"));
    let mut cached = count("cached_tokens", cached_at);
    if prompt.is_none() && completion.is_none() && problems.is_empty() {
        // `{}`: a usage block that reports nothing is no usage.
        return None;
    }
    // No single call uses a trillion tokens: such a count is a broken report, kept out of totals.
    let (mut prompt, mut completion) = (prompt, completion);
    for (field, value) in [("prompt_tokens", &mut prompt), ("completion_tokens", &mut completion), ("cached_tokens", &mut cached)] {
        if value.is_some_and(|v| v > IMPLAUSIBLE_TOKENS) {
            problems.push(format!("{field} {} is not a plausible count", value.unwrap_or(0)));
            *value = None;
        }
    }
    if let (Some(c), Some(p)) = (cached, prompt) {
        if c > p {
            problems.push(format!("cached_tokens {c} exceeds prompt_tokens {p}"));
            cached = None;
        }
    }
    Some(Usage {
        prompt_tokens: prompt.unwrap_or(0),
        completion_tokens: completion.unwrap_or(0),
        cached_tokens: cached,
        anomaly: (!problems.is_empty()).then(|| problems.join("; ")),
    })
}

/// Structured `tool_calls` as text the codecs read: one `<tool_call>` block per call (so a
/// reply with two calls is seen as two actions, never as the first one).
fn tool_calls_text(message: &Value) -> Option<String> {
    let calls = message.get("tool_calls").and_then(Value::as_array).filter(|c| !c.is_empty())?;
    let blocks: Vec<String> = calls
        .iter()
        .map(|c| {
            let f = c.get("function").unwrap_or(c);
            let name = f.get("name").cloned().unwrap_or(Value::Null);
            let arguments = match f.get("arguments") {
                Some(Value::String(s)) => serde_json::from_str::<Value>(s).unwrap_or_else(|_| Value::String(s.clone())),
                Some(v) => v.clone(),
                None => Value::Null,
            };
            format!("<tool_call>{}</tool_call>", json!({"name": name, "arguments": arguments}))
        })
        .collect();
    Some(blocks.join("\n"))
}

/// Reads the reply, usage and token data from a chat completion, leniently. A reply whose
/// action came as structured `tool_calls` (content `null`) is written out as `<tool_call>`
/// blocks after any text.
pub fn read_completion(v: &Value) -> Result<(String, Option<Usage>, Option<TokenData>), String> {
    let Some(choice) = v.get("choices").and_then(|c| c.get(0)) else {
        // Some servers answer 200 with an error object: keep their message.
        let said = server_message(v, "");
        return Err(if said.is_empty() { "the response has no choices".to_string() } else { format!("the response has no choices: {said}") });
    };
    let message = choice.get("message").unwrap_or(&Value::Null);
    let content = message.get("content").and_then(Value::as_str).unwrap_or("");
    let raw = match tool_calls_text(message) {
        Some(calls) if content.trim().is_empty() => calls,
        Some(calls) => format!("{content}\n{calls}"),
        None => content.to_string(),
    };
    let usage = read_usage(v.get("usage"));
    let ids = |x: Option<&Value>| x.and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_u64).map(|i| i as u32).collect::<Vec<u32>>());
    let logprobs = choice
        .pointer("/logprobs/content")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|t| t.get("logprob").and_then(Value::as_f64)).map(|l| l as f32).collect::<Vec<f32>>());
    // The weight version that sampled the reply: a header (folded into the body by `call`),
    // a top-level field, or SGLang-style `meta_info`.
    let version = [v.get("weight_version"), v.pointer("/meta_info/weight_version"), choice.pointer("/meta_info/weight_version")]
        .into_iter()
        .flatten()
        .find_map(|x| match x {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
    let tokens = TokenData { prompt_ids: ids(v.get("prompt_token_ids")), completion_ids: ids(choice.get("token_ids")), logprobs, weight_version: version };
    let tokens = (tokens != TokenData::default()).then_some(tokens);
    Ok((raw, usage, tokens))
}

impl OpenAiPolicy {
    /// The endpoint to use now: the one this trajectory is on, else the first of its
    /// rendezvous order that is not marked down (or the first, when all are).
    fn current_endpoint(&mut self, order: &[usize]) -> usize {
        if let Some(e) = self.endpoint {
            return e;
        }
        let endpoints = &self.config.base_urls;
        let chosen = order.iter().copied().find(|i| !self.health.is_down(&endpoints[*i])).unwrap_or(order[0]);
        self.endpoint = Some(chosen);
        chosen
    }
}

#[async_trait]
impl Policy for OpenAiPolicy {
    async fn act(&mut self, input: &PolicyInput<'_>) -> Result<PolicyOutput, PolicyError> {
        if self.config.base_urls.is_empty() {
            return Err(PolicyError::Config("no endpoint configured".into()));
        }
        let order = rendezvous_order(&self.config.base_urls, input.trajectory_id);
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
        if let (Some((min_pixels, max_pixels)), Value::Object(b)) = (input.prompt.server_resize, &mut body) {
            // The server resizes the images: it must do so to the size the prompt states, so
            // the harness's budget wins over any given in --extra-body (other processor
            // settings there are kept).
            let kwargs = b.entry("mm_processor_kwargs").or_insert_with(|| json!({}));
            if !kwargs.is_object() {
                *kwargs = json!({});
            }
            kwargs["min_pixels"] = json!(min_pixels);
            kwargs["max_pixels"] = json!(max_pixels);
        }
        let mut errors = Vec::new();
        // Each endpoint gets a full round of retries; then the trajectory moves on and stays.
        for _ in 0..order.len() {
            let index = self.current_endpoint(&order);
            let endpoint = self.config.base_urls[index].clone();
            let url = format!("{}/chat/completions", endpoint.trim_end_matches('/'));
            let mut last = String::new();
            let mut asked_wait: Option<Duration> = None;
            for attempt in 0..=self.config.max_retries {
                if attempt > 0 {
                    let backoff = Duration::from_millis(self.config.backoff_ms.saturating_mul(1 << (attempt - 1).min(6)));
                    // The server's Retry-After, when longer than our own backoff.
                    tokio::time::sleep(asked_wait.take().map_or(backoff, |w| w.max(backoff))).await;
                }
                match self.call(&url, &body, input.trajectory_id).await {
                    Ok(v) => {
                        let (raw, usage, tokens) = read_completion(&v).map_err(|e| {
                            // A 200 with an error in it: its message is the server's words.
                            PolicyError::Unavailable(if self.quiet { "the response has no choices".into() } else { e })
                        })?;
                        self.health.mark_up(&endpoint);
                        return Ok(PolicyOutput { raw, usage, tokens, endpoint: Some(endpoint) });
                    }
                    Err(Failure::Fatal(e)) => return Err(e),
                    Err(Failure::Retry(why, wait)) => {
                        tracing::warn!(endpoint = %endpoint, attempt, error = %why, "policy request failed");
                        last = why;
                        asked_wait = wait;
                    }
                }
            }
            errors.push(format!("{endpoint}: {last} (after {} tries)", self.config.max_retries + 1));
            self.health.mark_down(&endpoint, self.config.down_for_ms);
            // Fail over: the next endpoint of this trajectory's order not yet tried now.
            let pos = order.iter().position(|i| *i == index).unwrap_or(0);
            let next = order[pos + 1..]
                .iter()
                .chain(order[..pos].iter())
                .copied()
                .find(|i| !errors.iter().any(|e| e.starts_with(&format!("{}:", self.config.base_urls[*i]))));
            match next {
                Some(n) => {
                    self.health.lock().failovers += 1;
                    self.endpoint = Some(n);
                }
                None => break,
            }
        }
        Err(PolicyError::Unavailable(errors.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_names_an_endpoint_once_whatever_its_spelling_and_a_few_at_most() {
        let listed: Vec<String> = (0..6).map(|i| format!("http://127.0.0.1:1880{i}/v1")).collect();
        let egress = crate::egress::Egress::new(&listed).unwrap();
        let spellings = [
            "http://127.0.0.1:18801/v1",
            "http://127.0.0.1:18801/v1/",
            "HTTP://127.0.0.1:18801/v1",
            "http://127.1:18801/v1",
            "http://2130706433:18801/v1",
            "http://0x7f.1:18801/v1",
            "http://127.0.0.1:18801/x/../v1",
            "http://127.0.0.1:18801/./v1",
        ];
        let config = |urls: Vec<String>| OpenAiConfig { base_urls: urls, ..OpenAiConfig::default() };
        let one = OpenAiFactory::for_callers(config(spellings.iter().map(|s| s.to_string()).collect()), &egress).unwrap();
        assert_eq!(one.describe()["openai"]["base_urls"], json!(["http://127.0.0.1:18801/v1"]));
        let four = OpenAiFactory::for_callers(config(listed[..4].to_vec()), &egress).unwrap();
        assert_eq!(four.describe()["openai"]["base_urls"].as_array().map(Vec::len), Some(4));
        let e = OpenAiFactory::for_callers(config(listed.clone()), &egress).err().unwrap();
        assert!(e.contains("at most 4"), "{e}");
    }

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

    #[test]
    fn usage_is_read_faithfully_at_the_edges() {
        let usage = |u: Value| read_usage(Some(&u));
        assert_eq!(usage(json!(null)), None, "null usage is no usage, not zero");
        assert_eq!(read_usage(None), None);
        let u = usage(json!({"prompt_tokens": 1234.0, "completion_tokens": 5}));
        assert_eq!((u.as_ref().unwrap().prompt_tokens, u.as_ref().unwrap().anomaly.clone()), (1234, None), "whole floats are counts");
        let big = usage(json!({"prompt_tokens": 5_000_000_000u64, "completion_tokens": 1})).unwrap();
        assert_eq!(big.prompt_tokens, 5_000_000_000, "no wrap at u32");
        let over = usage(json!({"prompt_tokens": 100, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 900}})).unwrap();
        assert_eq!(over.cached_tokens, None);
        assert!(over.anomaly.unwrap().contains("exceeds"), "the violation is recorded as such");
        let odd = usage(json!({"prompt_tokens": -3, "completion_tokens": 2.5})).unwrap();
        assert_eq!((odd.prompt_tokens, odd.completion_tokens), (0, 0));
        assert!(odd.anomaly.unwrap().contains("prompt_tokens"));
        assert_eq!(usage(json!({})), None, "a usage block that reports nothing is no usage");
        let top = usage(json!({"prompt_tokens": 100, "completion_tokens": 1, "cached_tokens": 500})).unwrap();
        assert!(top.anomaly.is_some() && top.cached_tokens.is_none(), "cached tokens at the top are checked too");
        let absurd = usage(json!({"prompt_tokens": 9_223_372_036_854_775_808u64, "completion_tokens": 1})).unwrap();
        assert_eq!(absurd.prompt_tokens, 0);
        assert!(absurd.anomaly.unwrap().contains("plausible"));
        assert!(read_completion(&json!({"object": "error", "message": "internal"})).unwrap_err().contains("internal"));
        let partial = usage(json!({"completion_tokens": 7, "prompt_tokens_details": null})).unwrap();
        assert_eq!((partial.completion_tokens, partial.cached_tokens, partial.anomaly), (7, None, None));
    }

    #[test]
    fn tool_calls_become_tool_call_blocks() {
        let v = json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "mobile_use", "arguments": "{\"action\": \"system_button\", \"button\": \"Back\"}"}}
        ]}}]});
        let (raw, _, _) = read_completion(&v).unwrap();
        assert_eq!(crate::Codec::QWEN.parse(&raw, &Default::default()).unwrap(), guigym_core::Action::Back);
        // Two calls are two actions: an invalid step, not the first one silently.
        let two = json!({"choices": [{"message": {"content": "", "tool_calls": [
            {"function": {"name": "mobile_use", "arguments": {"action": "system_button", "button": "Back"}}},
            {"function": {"name": "mobile_use", "arguments": {"action": "system_button", "button": "Home"}}}
        ]}}]});
        let (raw, _, _) = read_completion(&two).unwrap();
        let err = crate::Codec::QWEN.parse(&raw, &Default::default()).unwrap_err();
        assert!(err.message.contains("2 actions"), "{}", err.message);
    }

    #[test]
    fn errors_are_sorted_by_type() {
        assert!(is_context_length(&json!({"error": {"code": "context_length_exceeded"}}), ""));
        assert!(is_context_length(&Value::Null, "This model's maximum context length is 32768 tokens. However, you requested 40000"));
        assert!(is_context_length(&Value::Null, "The input (50000 tokens) is longer than the model's context length (32768 tokens)."));
        assert!(!is_context_length(&Value::Null, "The model `x` does not exist."));
        assert_eq!(server_message(&json!({"error": {"message": "nope"}}), "raw"), "nope");
        assert_eq!(server_message(&json!({"detail": "bad"}), "raw"), "bad");
        assert_eq!(server_message(&Value::Null, "plain text"), "plain text");
    }

    #[test]
    fn failover_order_is_the_rendezvous_order() {
        let eps: Vec<String> = (0..4).map(|i| format!("http://127.0.0.1:900{i}/v1")).collect();
        for t in 0..50 {
            let id = format!("{t:032x}");
            let order = rendezvous_order(&eps, &id);
            assert_eq!(eps[order[0]], pick_endpoint(&eps, &id).unwrap());
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, vec![0, 1, 2, 3]);
        }
    }
}
