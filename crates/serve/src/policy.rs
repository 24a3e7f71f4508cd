//! A scripted OpenAI-compatible policy (`POST /v1/chat/completions`), for testing a harness end
//! to end without a model: it reads the task line and the UI tree the harness wrote and answers
//! with the walkthrough's next action in any codec, or fails in the ways real servers do (errors,
//! flakes with `Retry-After`, slowness, unknown models, context overflow), and reports vLLM's
//! token ids and log-probs when asked. `guigym policy-server` serves it on loopback.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use guigym_core::{Bounds, Observation, TaskSpec, UiNode};
use guigym_harness::tokenizer::Tokenizer;
use guigym_harness::{Codec, GoldenPolicy};
use serde_json::{json, Value};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Answer with the walkthrough's next action.
    Golden,
    /// Answer with text that holds no action.
    Garbage,
    /// Answer every request with HTTP 500.
    Error,
    /// Answer the first try of every third distinct request with HTTP 500; its retry (the
    /// same request again) is answered normally, so a client that retries always recovers.
    Flaky,
    /// Wait `--delay-ms` before answering normally.
    Slow,
    /// A dishonest server: it never reads the screen or the task line, only the request's
    /// headers, and plays the golden walkthrough of any task id it finds there. Against an
    /// honest harness it can do no better than chance.
    Cheat,
}

impl Mode {
    pub const ALL: [Mode; 6] = [Mode::Golden, Mode::Garbage, Mode::Error, Mode::Flaky, Mode::Slow, Mode::Cheat];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Golden => "golden",
            Mode::Garbage => "garbage",
            Mode::Error => "error",
            Mode::Flaky => "flaky",
            Mode::Slow => "slow",
            Mode::Cheat => "cheat",
        }
    }

    pub fn named(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// How the server answers.
pub struct Config {
    /// The codec the answers are written in.
    pub codec: Codec,
    pub mode: Mode,
    /// How long `Mode::Slow` waits before answering.
    pub delay: Duration,
    /// Answer with structured `tool_calls` (content null), as servers with a tool parser do.
    pub tool_calls: bool,
    /// Refuse any request whose `model` is not this name with a 404, as vLLM does.
    pub served_model: Option<String>,
    /// Refuse prompts over this many tokens (about 4 bytes of request a token) with vLLM's
    /// context-length 400.
    pub context_limit: Option<usize>,
    /// Append every request (headers and body) to this file as JSON lines.
    pub record: Option<std::fs::File>,
    /// In flaky mode, answer 429 with this Retry-After (seconds) instead of 500, and refuse a
    /// retry that comes sooner.
    pub retry_after: Option<u64>,
    /// Report this weight version with every answer (`X-Weight-Version`).
    pub weight_version: Option<String>,
    /// For `return_token_ids` and `logprobs` requests.
    pub tokenizer: Option<Tokenizer>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            codec: Codec::CANONICAL,
            mode: Mode::Golden,
            delay: Duration::from_secs(2),
            tool_calls: false,
            served_model: None,
            context_limit: None,
            record: None,
            retry_after: None,
            weight_version: None,
            tokenizer: None,
        }
    }
}

/// The server's routes, answering for the tasks given.
pub fn router(config: Config, tasks: Vec<TaskSpec>) -> Router {
    let server = Arc::new(Server {
        codec: config.codec,
        mode: config.mode,
        delay: config.delay,
        tool_calls: config.tool_calls,
        served_model: config.served_model,
        context_limit: config.context_limit,
        record: config.record.map(Mutex::new),
        by_id: tasks.iter().map(|t| (t.id.clone(), t.clone())).collect(),
        tasks: tasks.into_iter().map(|t| (t.instruction.clone(), t)).collect(),
        sessions: Mutex::new(HashMap::new()),
        requests: AtomicU64::new(0),
        flaked: Mutex::new(HashMap::new()),
        retry_after: config.retry_after,
        weight_version: config.weight_version,
        tokenizer: config.tokenizer,
    });
    // Prompts with a window of screenshots run to megabytes.
    Router::new().route("/v1/chat/completions", post(complete)).layer(axum::extract::DefaultBodyLimit::max(512 << 20)).with_state(server)
}

struct Server {
    codec: Codec,
    mode: Mode,
    delay: Duration,
    tool_calls: bool,
    served_model: Option<String>,
    context_limit: Option<usize>,
    record: Option<Mutex<std::fs::File>>,
    tasks: HashMap<String, TaskSpec>,
    /// Every task of the suite by id, for the cheating mode.
    by_id: HashMap<String, TaskSpec>,
    sessions: Mutex<HashMap<String, (GoldenPolicy, String)>>,
    requests: AtomicU64,
    /// Requests that already failed once (flaky mode), by a hash of their body.
    flaked: Mutex<HashMap<u64, std::time::Instant>>,
    /// Flaky mode with this: answer 429 with `Retry-After`, and again 429 to a retry that
    /// comes sooner than asked.
    retry_after: Option<u64>,
    weight_version: Option<String>,
    /// Present when a tokenizer was found: replies then carry sampled token ids and log-probs
    /// on request, as vLLM's do.
    tokenizer: Option<Tokenizer>,
}

/// The log-prob this server reports for the token `id` at `position` in its reply: a fixed
/// function, so a test can check that every trained token carries the server's own value.
pub fn scripted_logprob(id: u32, position: usize) -> f32 {
    -((((id as u64) * 31 + (position as u64) * 17) % 997) as f32 + 1.0) / 1000.0
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({"error": {"message": message}}))).into_response()
}

/// The text of a message's content (a string, or the text parts of a list).
fn content_text(m: &Value) -> String {
    match m.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// Whether this request fails: every third new request; a retry of one that failed passes
/// (once any Retry-After it was given has passed).
fn first_try_to_flake(server: &Server, body: &Value, n: u64) -> bool {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    body.to_string().hash(&mut h);
    let key = h.finish();
    let mut flaked = server.flaked.lock().unwrap_or_else(|p| p.into_inner());
    let now = std::time::Instant::now();
    match flaked.get(&key) {
        Some(allowed_at) => *allowed_at > now,
        None if n % 3 == 2 => {
            flaked.insert(key, now + Duration::from_secs(server.retry_after.unwrap_or(0)));
            true
        }
        None => false,
    }
}

/// A structured `tool_calls` list for an encoded action: each `<tool_call>` block, or the
/// reply's JSON object, becomes one call.
fn as_tool_calls(text: &str) -> Value {
    let mut bodies: Vec<String> = guigym_harness::codec::tool_call_bodies(text).into_iter().map(str::to_string).collect();
    if bodies.is_empty() {
        bodies.push(guigym_harness::codec::first_json_object(text).unwrap_or(text).to_string());
    }
    let calls: Vec<Value> = bodies
        .iter()
        .enumerate()
        .map(|(i, body)| {
            let v: Value = serde_json::from_str(body.trim()).unwrap_or(Value::String(body.clone()));
            let (name, arguments) = match (v.get("name"), v.get("arguments")) {
                (Some(n), Some(a)) => (n.clone(), a.clone()),
                _ => (json!("computer"), v.clone()),
            };
            // The wire format carries arguments as a JSON string.
            let arguments = if let Value::String(s) = &arguments { s.clone() } else { arguments.to_string() };
            json!({"id": format!("call_{i}"), "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    Value::Array(calls)
}

async fn complete(State(server): State<Arc<Server>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let n = server.requests.fetch_add(1, Ordering::SeqCst);
    if let Some(file) = &server.record {
        let h: serde_json::Map<String, Value> = headers.iter().map(|(k, v)| (k.to_string(), json!(String::from_utf8_lossy(v.as_bytes())))).collect();
        let line = json!({"headers": h, "body": body}).to_string();
        let mut f = file.lock().unwrap_or_else(|p| p.into_inner());
        use std::io::Write;
        let _ = writeln!(f, "{line}");
    }
    if let Some(served) = &server.served_model {
        let asked = body.get("model").and_then(Value::as_str).unwrap_or("");
        if asked != served {
            return error(StatusCode::NOT_FOUND, &format!("The model `{asked}` does not exist."));
        }
    }
    if let Some(limit) = server.context_limit {
        let tokens = body.get("messages").map(|m| m.to_string().len() / 4).unwrap_or(0);
        if tokens > limit {
            return error(
                StatusCode::BAD_REQUEST,
                &format!("This model's maximum context length is {limit} tokens. However, you requested {tokens} tokens in the messages. Please reduce the length of the messages."),
            );
        }
    }
    match server.mode {
        Mode::Error => return error(StatusCode::INTERNAL_SERVER_ERROR, "scripted failure"),
        Mode::Flaky if first_try_to_flake(&server, &body, n) => {
            return match server.retry_after {
                Some(s) => {
                    let mut r = error(StatusCode::TOO_MANY_REQUESTS, "scripted rate limit");
                    if let Ok(v) = axum::http::HeaderValue::from_str(&s.to_string()) {
                        r.headers_mut().insert(axum::http::header::RETRY_AFTER, v);
                    }
                    r
                }
                None => error(StatusCode::INTERNAL_SERVER_ERROR, "scripted flake"),
            }
        }
        Mode::Slow => tokio::time::sleep(server.delay).await,
        _ => {}
    }
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return error(StatusCode::BAD_REQUEST, "the request has no messages");
    };
    let session = headers.get("x-session-id").and_then(|v| v.to_str().ok()).unwrap_or("default").to_string();
    let task = if server.mode == Mode::Cheat {
        // Only the headers: a task id anywhere in them names the task.
        let found =
            headers.values().filter_map(|v| v.to_str().ok()).find_map(|v| server.by_id.iter().find(|(id, _)| v.contains(id.as_str())).map(|(_, t)| t.clone()));
        match found {
            Some(t) => t,
            None => return Json(chat(n, &body, "I cannot tell what to do.", 0, 0)).into_response(),
        }
    } else {
        let instruction =
            messages.iter().map(content_text).find_map(|t| t.lines().find_map(|l| l.strip_prefix("Task: ").map(str::to_string))).unwrap_or_default();
        match server.tasks.get(&instruction) {
            Some(t) => t.clone(),
            None => return error(StatusCode::BAD_REQUEST, &format!("unknown task {instruction:?}")),
        }
    };
    let task = &task;
    let observation = messages.last().map(|m| parse_ui(&content_text(m))).unwrap_or_default();
    let serialized = Value::Array(messages.clone()).to_string();
    let (text, cached) = {
        let mut sessions = server.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let (golden, last) = sessions.entry(session).or_insert_with(|| (GoldenPolicy::new(task.walkthrough.clone()), String::new()));
        let cached = last.bytes().zip(serialized.bytes()).take_while(|(a, b)| a == b).count();
        *last = serialized.clone();
        let action = golden.decide(&observation);
        let text = if server.mode == Mode::Garbage {
            "Let me think about which button looks right.".to_string()
        } else {
            server.codec.encode(&action, &observation).unwrap_or_else(|| action.to_json())
        };
        (text, cached)
    };
    let mut reply = chat(n, &body, &text, serialized.len() / 4, cached / 4);
    // vLLM's extensions: the sampled ids (`return_token_ids`) and OpenAI's `logprobs`.
    let wants_ids = body.get("return_token_ids").and_then(Value::as_bool) == Some(true);
    let wants_logprobs = body.get("logprobs").and_then(Value::as_bool) == Some(true);
    if wants_ids || wants_logprobs {
        let Some(tok) = &server.tokenizer else {
            return error(StatusCode::BAD_REQUEST, "this server has no tokenizer for token ids or log-probs: pass --tokenizer");
        };
        let mut ids = tok.encode(&text);
        ids.extend(tok.special_id("<|im_end|>"));
        if wants_ids {
            reply["choices"][0]["token_ids"] = json!(ids);
        }
        if wants_logprobs {
            let content: Vec<Value> = ids
                .iter()
                .enumerate()
                .map(|(i, id)| json!({"token": format!("token_id:{id}"), "logprob": scripted_logprob(*id, i), "top_logprobs": []}))
                .collect();
            reply["choices"][0]["logprobs"] = json!({ "content": content });
        }
    }
    if server.tool_calls && server.mode != Mode::Garbage {
        reply["choices"][0]["message"] = json!({"role": "assistant", "content": null, "tool_calls": as_tool_calls(&text)});
        reply["choices"][0]["finish_reason"] = json!("tool_calls");
    }
    let mut response = Json(reply).into_response();
    if let Some(v) = server.weight_version.as_deref().and_then(|v| axum::http::HeaderValue::from_str(v).ok()) {
        response.headers_mut().insert("x-weight-version", v);
    }
    response
}

/// A chat completion with one text reply.
fn chat(n: u64, body: &Value, text: &str, prompt_tokens: usize, cached_tokens: usize) -> Value {
    json!({
        "id": format!("chatcmpl-{n}"),
        "object": "chat.completion",
        "model": body.get("model").cloned().unwrap_or(Value::Null),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": text.len() / 4 + 1,
            "total_tokens": prompt_tokens + text.len() / 4 + 1,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
        },
    })
}

/// Rebuilds the UI tree from the lines the harness writes (`3 [id] role "text" @(x,y,w,h) flags`).
pub fn parse_ui(text: &str) -> Observation {
    let mut nodes: Vec<UiNode> = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some((index, rest)) = line.split_once(' ') else { continue };
        let Ok(index) = index.parse::<usize>() else { continue };
        let Some(rest) = rest.strip_prefix('[') else { continue };
        let Some((id, rest)) = rest.split_once("] ") else { continue };
        let Some(at) = rest.rfind(" @(") else { continue };
        let (head, tail) = (&rest[..at], &rest[at + 3..]);
        let Some((nums, flags)) = tail.split_once(')') else { continue };
        let v: Vec<i32> = nums.split(',').filter_map(|n| n.trim().parse::<f32>().ok().map(|f| f as i32)).collect();
        if v.len() != 4 {
            continue;
        }
        let (head, hint) = match head.rfind(" hint=\"") {
            Some(at) => (&head[..at], head[at + 7..].trim_end_matches('"')),
            None => (head, ""),
        };
        let (role, label) = match head.split_once(' ') {
            Some((r, t)) => (r, t.trim_matches('"')),
            None => (head, ""),
        };
        if nodes.len() <= index {
            nodes.resize(index + 1, UiNode::default());
        }
        nodes[index] = UiNode {
            id: id.to_string(),
            role: role.to_string(),
            text: label.to_string(),
            hint: hint.to_string(),
            bounds: Bounds { x: v[0], y: v[1], w: v[2], h: v[3] },
            clickable: flags.contains("clickable"),
            scrollable: flags.contains("scrollable"),
            editable: flags.contains("editable"),
            enabled: !flags.contains("disabled"),
            ..Default::default()
        };
    }
    Observation { ui_tree: nodes, ..Default::default() }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use guigym_core::{Action, TerminateStatus};

    use super::*;

    fn task() -> TaskSpec {
        TaskSpec {
            id: "open.clock/0".into(),
            benchmark: "fixture".into(),
            family: "open.clock".into(),
            instruction: "Open the Clock app.".into(),
            apps: vec!["Clock".into()],
            world_seed: 0,
            step_budget: 5,
            difficulty: 1,
            params: json!({}),
            walkthrough: vec![Action::OpenApp { name: "Clock".into() }, Action::Terminate { status: TerminateStatus::Success }],
        }
    }

    /// A request as the harness sends it: the task line, then the screen.
    fn request(model: &str) -> Value {
        json!({"model": model, "messages": [
            {"role": "system", "content": "You operate a phone."},
            {"role": "user", "content": "Task: Open the Clock app.\n0 [home] button \"Home\" @(0,0,10,10) clickable"},
        ]})
    }

    async fn post(router: &Router, body: &Value, session: &str) -> (StatusCode, Value) {
        let req = crate::testing::request("POST", "/v1/chat/completions", None)
            .header("content-type", "application/json")
            .header("x-session-id", session)
            .body(Body::from(body.to_string()))
            .unwrap();
        crate::testing::send_json(router, req).await
    }

    fn reply_action(reply: &Value) -> Action {
        let text = reply["choices"][0]["message"]["content"].as_str().unwrap_or_default();
        Codec::CANONICAL.parse(text, &Observation::default()).unwrap()
    }

    #[tokio::test]
    async fn golden_answers_the_walkthrough_step_by_step_per_session() {
        let r = router(Config::default(), vec![task()]);
        let (code, first) = post(&r, &request("m"), "a").await;
        assert_eq!(code, StatusCode::OK, "{first}");
        assert_eq!(reply_action(&first), Action::OpenApp { name: "Clock".into() });
        assert_eq!(reply_action(&post(&r, &request("m"), "a").await.1), Action::Terminate { status: TerminateStatus::Success });
        // Another session starts at the walkthrough's beginning.
        assert_eq!(reply_action(&post(&r, &request("m"), "b").await.1), Action::OpenApp { name: "Clock".into() });
        let unknown = json!({"model": "m", "messages": [{"role": "user", "content": "Task: Something else."}]});
        assert_eq!(post(&r, &unknown, "c").await.0, StatusCode::BAD_REQUEST);
    }

    #[tokio::test]
    async fn it_fails_as_real_servers_do() {
        let named = router(Config { served_model: Some("qwen".into()), ..Config::default() }, vec![task()]);
        assert_eq!(post(&named, &request("other"), "a").await.0, StatusCode::NOT_FOUND);
        assert_eq!(post(&named, &request("qwen"), "a").await.0, StatusCode::OK);
        let error = router(Config { mode: Mode::Error, ..Config::default() }, vec![task()]);
        assert_eq!(post(&error, &request("m"), "a").await.0, StatusCode::INTERNAL_SERVER_ERROR);
        let small = router(Config { context_limit: Some(5), ..Config::default() }, vec![task()]);
        let (code, e) = post(&small, &request("m"), "a").await;
        assert_eq!(code, StatusCode::BAD_REQUEST);
        assert!(e["error"]["message"].as_str().unwrap_or_default().contains("maximum context length"), "{e}");
        // Flaky: the third distinct request fails once, and its retry passes.
        let flaky = router(Config { mode: Mode::Flaky, retry_after: Some(0), ..Config::default() }, vec![task()]);
        let codes: Vec<StatusCode> = futures_codes(&flaky).await;
        assert_eq!(codes, [StatusCode::OK, StatusCode::OK, StatusCode::TOO_MANY_REQUESTS, StatusCode::OK]);
    }

    /// Three distinct requests, then the third again.
    async fn futures_codes(r: &Router) -> Vec<StatusCode> {
        let mut codes = Vec::new();
        for (model, session) in [("a", "1"), ("b", "2"), ("c", "3"), ("c", "3")] {
            codes.push(post(r, &request(model), session).await.0);
        }
        codes
    }

    #[test]
    fn modes_are_named_as_the_command_line_spells_them() {
        for m in Mode::ALL {
            assert_eq!(Mode::named(m.name()), Some(m));
        }
        assert_eq!(Mode::named("nope"), None);
    }
}
