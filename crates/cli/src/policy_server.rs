//! `guigym policy-server`: a scripted OpenAI-compatible chat-completions server on loopback.
//! It reads each request as a model would (the task line and the UI elements of the last
//! observation), answers with the golden walkthrough's next action in a chosen codec, and
//! can be told to misbehave (garbage, 500s, slowness). It tests a harness, a network path or
//! a gateway end to end without a GPU.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, Context};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use clap::{Args, ValueEnum};
use guigym_apps::tasks;
use guigym_core::{Bounds, Observation, TaskSpec, UiNode};
use guigym_harness::{Codec, GoldenPolicy};
use serde_json::{json, Value};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
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
}

#[derive(Args)]
pub struct ServerArgs {
    /// The codec the answers are written in
    #[arg(long, value_enum, default_value = "canonical")]
    codec: CodecArg,
    #[arg(long, value_enum, default_value = "golden")]
    mode: Mode,
    /// Port on 127.0.0.1 (0 picks a free one; the address is printed)
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Suite whose tasks the server knows
    #[arg(long, default_value = "all")]
    suite: String,
    #[arg(long, default_value_t = 2000)]
    delay_ms: u64,
}

#[derive(Clone, Copy, ValueEnum, Debug)]
pub enum CodecArg {
    Canonical,
    Qwen,
    AndroidWorld,
    Anthropic,
    Pyautogui,
}

impl From<CodecArg> for Codec {
    fn from(c: CodecArg) -> Codec {
        match c {
            CodecArg::Canonical => Codec::Canonical,
            CodecArg::Qwen => Codec::Qwen,
            CodecArg::AndroidWorld => Codec::AndroidWorld,
            CodecArg::Anthropic => Codec::Anthropic,
            CodecArg::Pyautogui => Codec::Pyautogui,
        }
    }
}

struct Server {
    codec: Codec,
    mode: Mode,
    delay: Duration,
    tasks: HashMap<String, TaskSpec>,
    sessions: Mutex<HashMap<String, (GoldenPolicy, String)>>,
    requests: AtomicU64,
    /// Requests that already failed once (flaky mode), by a hash of their body.
    flaked: Mutex<std::collections::HashSet<u64>>,
}

pub async fn run(args: ServerArgs) -> anyhow::Result<std::process::ExitCode> {
    let suite = tasks::suite(&args.suite).ok_or_else(|| anyhow!("unknown suite \"{}\"", args.suite))?;
    let server = Arc::new(Server {
        codec: args.codec.into(),
        mode: args.mode,
        delay: Duration::from_millis(args.delay_ms),
        tasks: suite.into_iter().map(|t| (t.instruction.clone(), t)).collect(),
        sessions: Mutex::new(HashMap::new()),
        requests: AtomicU64::new(0),
        flaked: Mutex::new(std::collections::HashSet::new()),
    });
    // Prompts with a window of screenshots run to megabytes.
    let app = Router::new()
        .route("/v1/chat/completions", post(complete))
        .layer(axum::extract::DefaultBodyLimit::max(512 << 20))
        .with_state(server);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await.context("binding the policy server")?;
    println!("listening on http://{}/v1", listener.local_addr()?);
    use std::io::Write;
    std::io::stdout().flush()?;
    axum::serve(listener, app).await?;
    Ok(std::process::ExitCode::SUCCESS)
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

/// Whether this request fails: every third new request, never a retry of one that failed.
fn first_try_to_flake(server: &Server, body: &Value, n: u64) -> bool {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    body.to_string().hash(&mut h);
    let mut flaked = server.flaked.lock().unwrap_or_else(|p| p.into_inner());
    n % 3 == 2 && flaked.insert(h.finish())
}

async fn complete(State(server): State<Arc<Server>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let n = server.requests.fetch_add(1, Ordering::SeqCst);
    match server.mode {
        Mode::Error => return error(StatusCode::INTERNAL_SERVER_ERROR, "scripted failure"),
        Mode::Flaky if first_try_to_flake(&server, &body, n) => return error(StatusCode::INTERNAL_SERVER_ERROR, "scripted flake"),
        Mode::Slow => tokio::time::sleep(server.delay).await,
        _ => {}
    }
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return error(StatusCode::BAD_REQUEST, "the request has no messages");
    };
    let session = headers.get("x-session-id").and_then(|v| v.to_str().ok()).unwrap_or("default").to_string();
    let instruction = messages
        .iter()
        .map(content_text)
        .find_map(|t| t.strip_prefix("Task: ").map(str::to_string))
        .unwrap_or_default();
    let Some(task) = server.tasks.get(&instruction) else {
        return error(StatusCode::BAD_REQUEST, &format!("unknown task {instruction:?}"));
    };
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
    let prompt_tokens = serialized.len() / 4;
    Json(json!({
        "id": format!("chatcmpl-{n}"),
        "object": "chat.completion",
        "model": body.get("model").cloned().unwrap_or(Value::Null),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": text.len() / 4 + 1,
            "total_tokens": prompt_tokens + text.len() / 4 + 1,
            "prompt_tokens_details": {"cached_tokens": cached / 4},
        },
    }))
    .into_response()
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
