//! `POST /v1/rollouts`, mounted by `guigym serve`: one attempt of a task, played through the one rollout
//! path against a model the caller names, returned as training samples in a trainer's layout.
//! It is what a trainer's own agent loop calls (verl's `AgentLoopBase.run`, see
//! `integrations/verl_agent_loop.py`): the trainer owns the prompts' order and the grouping,
//! guigym owns the instance, the harness and the verdict.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use guigym_core::Catalogue;
use guigym_core::{EnvError, Observation, Step, TaskSpec};
use guigym_harness::openai::{OpenAiConfig, OpenAiFactory};
use guigym_harness::tokenizer::Tokenizer;
use guigym_harness::{Harness, HarnessConfig, HistoryPolicy, PolicyFactory, Prompt};
use guigym_manager::api::{ApiError, As, Body, Client};
use guigym_manager::{EnvSpec, ManagerProvider};
use guigym_rollout::attempt::{new_trajectory_id, run_attempt, AttemptError, Recorder};
use guigym_rollout::buffer::{to_slime, to_verl};
use guigym_rollout::train::pack_attempt;
use serde::Deserialize;
use serde_json::{json, Value};

/// The env spec a manager is asked for to run a backend (by its name), or why there is none.
pub type SpecOf = Arc<dyn Fn(&str) -> Result<EnvSpec, String> + Send + Sync>;

/// What the routes share: where tasks and instances come from and the tokenizer for packing.
pub struct Rollouts {
    /// Where a task named by its id is found.
    catalogue: Arc<Catalogue>,
    /// The instance a backend's name asks for.
    spec_of: SpecOf,
    /// The manager this server is (its own URL and token): attempts lease like any client.
    pub manager_url: String,
    pub token: Option<String>,
    /// Which model endpoints callers may name.
    egress: guigym_harness::egress::Egress,
    /// Packing needs it where the model server reports no token ids: loaded at the first
    /// rollout (a server that never plays one does not hold it), `None` when none was found.
    tokenizer: std::sync::OnceLock<Option<Tokenizer>>,
}

impl Rollouts {
    fn tokenizer(&self) -> Option<&Tokenizer> {
        let load = || guigym_harness::tokenizer::locate(None).ok().and_then(|p| Tokenizer::load(&p).ok());
        self.tokenizer.get_or_init(|| tokio::task::block_in_place(load)).as_ref()
    }
}

#[derive(Deserialize, Clone, Copy, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Format {
    /// verl's `AgentLoopOutput`: one sequence per attempt.
    #[default]
    Verl,
    /// slime's `Sample`s (one per window of the attempt).
    Slime,
    /// guigym's own sample records.
    Guigym,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RolloutRequest {
    /// A task id of the catalogue (`family/index`) or a full task spec.
    task: Value,
    /// The model that plays: any OpenAI-compatible chat server (vLLM, SGLang, a trainer's
    /// rollout servers, `guigym policy-server`).
    model: OpenAiConfig,
    #[serde(default)]
    harness: HarnessConfig,
    #[serde(default = "sim")]
    backend: String,
    #[serde(default)]
    format: Format,
    /// The trainer's group id (verl's `uid`), carried into the samples.
    #[serde(default)]
    group_id: Option<String>,
    /// The trainer's current weight version, when the model server reports none.
    #[serde(default)]
    weight_version: u64,
}

fn sim() -> String {
    "sim".into()
}

pub fn router(state: Arc<Rollouts>) -> Router {
    Router::new().route("/v1/rollouts", post(rollout)).with_state(state)
}

fn bad(code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, message)
}

/// The most steps a caller's own task spec may have: every step keeps a reply of the model's.
const MAX_CALLER_STEP_BUDGET: u32 = 200;

fn resolve(catalogue: &Catalogue, task: &Value) -> Result<TaskSpec, ApiError> {
    match task {
        Value::String(id) => catalogue
            .task(id)
            .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "unknown_task", format!("no task \"{id}\" in the catalogue (ids are family/index)"))),
        Value::Object(_) => {
            let spec: TaskSpec = serde_json::from_value(task.clone()).map_err(|e| bad("bad_task", format!("task: {e}")))?;
            if spec.step_budget == 0 || spec.step_budget > MAX_CALLER_STEP_BUDGET {
                return Err(bad("bad_task", format!("task.step_budget: {} is not 1 to {MAX_CALLER_STEP_BUDGET}", spec.step_budget)));
            }
            Ok(spec)
        }
        _ => Err(bad("bad_task", "task: a task id (string) or a task spec (object)")),
    }
}

/// Keeps the attempt's prompts and its screenshots (by hash), for packing.
#[derive(Default)]
struct Kept {
    prompts: Vec<Prompt>,
    images: BTreeMap<String, Vec<u8>>,
}

impl Recorder for Kept {
    fn step(&mut self, step: &Step, png: Option<&[u8]>) {
        if let (Some(hash), Some(png)) = (&step.screenshot, png) {
            self.images.entry(hash.clone()).or_insert_with(|| png.to_vec());
        }
    }
    fn prompt(&mut self, prompt: &Prompt, _observation: &Observation) {
        self.prompts.push(prompt.clone());
    }
}

async fn rollout(_: As<Client>, State(s): State<Arc<Rollouts>>, Body(req): Body<RolloutRequest>) -> Result<Json<Value>, ApiError> {
    let task = resolve(&s.catalogue, &req.task)?;
    // Copied into every sample: a trainer's id, not a payload.
    if let Some(g) = &req.group_id {
        if g.is_empty() || g.len() > 256 {
            return Err(bad("bad_group_id", format!("group_id: 1 to 256 bytes ({} given)", g.len())));
        }
    }
    req.harness.check().map_err(|e| bad("bad_harness", format!("harness: {e}")))?;
    // verl trains one sequence per attempt: every step must stay in one window.
    if req.format == Format::Verl && !matches!(req.harness.history, HistoryPolicy::Window { k, .. } if k >= task.step_budget) {
        return Err(bad(
            "bad_harness",
            format!("format verl takes one sequence per attempt: use history {{type: window, k: {}}} or more (the task's step budget)", task.step_budget),
        ));
    }
    let Some(tokenizer) = s.tokenizer() else {
        return Err(ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "no_tokenizer", "this server has no Qwen tokenizer for packing: run ./scripts/setup.sh"));
    };
    // A caller-named model gets none of the server's secrets (its API keys), reaches only what
    // the operator allows, follows no redirect, and its answers are not relayed in errors; a
    // caller cannot hold the server's slots for long with its own retry settings.
    let model = OpenAiConfig {
        timeout_ms: req.model.timeout_ms.min(MAX_MODEL_TIMEOUT_MS),
        max_retries: req.model.max_retries.min(4),
        backoff_ms: req.model.backoff_ms.min(5_000),
        down_for_ms: req.model.down_for_ms.min(60_000),
        ..req.model.clone()
    };
    for u in &model.base_urls {
        s.egress.check(u).map_err(|e| ApiError::new(StatusCode::FORBIDDEN, "model_not_allowed", e))?;
    }
    let factory = OpenAiFactory::for_callers(model, &s.egress).map_err(|e| bad("bad_model", format!("model: {e}")))?;
    // The backend's own platform and screen (a desktop is not a phone).
    let spec = (s.spec_of)(&req.backend).map_err(|e| bad("bad_backend", e))?;
    let provider = ManagerProvider::new(&s.manager_url, s.token.clone(), spec, Duration::from_secs(600));
    let infra = |e: String| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "infrastructure", format!("{e} (not the agent's failure: retry)"));
    let mut env = guigym_core::EnvProvider::create(&provider).await.map_err(|e| match e {
        EnvError::BadTask(m) => bad("bad_spec", m),
        other => infra(other.to_string()),
    })?;
    let harness = Harness::new(req.harness.clone());
    let mut policy = factory.for_attempt(&task, 0);
    let trajectory_id = new_trajectory_id();
    let mut kept = Kept::default();
    let attempt = run_attempt(env.as_mut(), &task, policy.as_mut(), &harness, 0, &trajectory_id, &mut kept).await;
    let _ = env.release().await;
    let attempt = attempt.map_err(|e| match e {
        AttemptError::Env(EnvError::BadTask(m)) => bad("bad_task", m),
        e if e.is_retryable() => infra(e.to_string()),
        e => ApiError::new(StatusCode::BAD_GATEWAY, "model_error", e.to_string()),
    })?;
    let group_id = req.group_id.clone().unwrap_or_else(|| trajectory_id.clone());
    let samples = pack_attempt(tokenizer, req.harness.history, &attempt, &kept.prompts, &group_id, 0.0, req.weight_version);
    let layout: Vec<Value> = match req.format {
        Format::Verl => samples.iter().map(to_verl).collect(),
        Format::Slime => samples.iter().enumerate().map(|(i, x)| to_slime(x, i, 0)).collect(),
        Format::Guigym => samples.iter().map(|x| serde_json::to_value(x).unwrap_or(Value::Null)).collect(),
    };
    use base64::Engine;
    let images: BTreeMap<&String, String> = kept.images.iter().map(|(h, png)| (h, base64::engine::general_purpose::STANDARD.encode(png))).collect();
    Ok(Json(json!({
        "trajectory_id": attempt.trajectory_id,
        "task_id": attempt.task_id,
        "success": attempt.verdict.success,
        "reward": attempt.verdict.score,
        "verdict": attempt.verdict,
        "steps": attempt.trajectory.steps.len(),
        "ended_by": attempt.ended_by,
        "samples": layout,
        // Each screenshot a sample names (`images/<hash>.png`), as base64 PNG.
        "images": images,
    })))
}

/// The longest a caller's model may take to answer one request.
const MAX_MODEL_TIMEOUT_MS: u64 = 600_000;

/// The state of the rollout routes for a server at `url` (the manager attempts lease from,
/// with its clients' `token`), whose callers may name the model endpoints `egress` allows.
pub fn state(catalogue: Arc<Catalogue>, spec_of: SpecOf, url: &str, token: Option<String>, egress: guigym_harness::egress::Egress) -> Arc<Rollouts> {
    Arc::new(Rollouts { catalogue, spec_of, manager_url: url.to_string(), token, egress, tokenizer: std::sync::OnceLock::new() })
}

#[cfg(test)]
mod tests {
    use guigym_manager::auth::Credentials;

    use super::*;

    fn routes() -> Router {
        let spec_of: SpecOf = Arc::new(|backend: &str| Err(format!("no backend {backend:?} here")));
        let egress = guigym_harness::egress::Egress::new(&["http://127.0.0.1:9/v1".to_string()]).unwrap();
        let state = state(Arc::new(Catalogue::default()), spec_of, "http://127.0.0.1:9", None, egress);
        let creds = Arc::new(Credentials { client: Some("client-token".into()), ..Credentials::open() });
        router(state).layer(axum::Extension(creds))
    }

    async fn post(body: &str, token: Option<&str>) -> (StatusCode, Value) {
        let req = crate::testing::request("POST", "/v1/rollouts", token).header("content-type", "application/json");
        crate::testing::send_json(&routes(), req.body(axum::body::Body::from(body.to_string())).unwrap()).await
    }

    #[tokio::test]
    async fn a_rollout_asks_for_the_clients_credential_and_a_known_task() {
        let body = r#"{"task": "nope/0", "model": {"base_urls": ["http://127.0.0.1:9/v1"]}}"#;
        assert_eq!(post(body, None).await.0, StatusCode::UNAUTHORIZED);
        assert_eq!(post(body, Some("wrong")).await.0, StatusCode::UNAUTHORIZED);
        let (code, e) = post(body, Some("client-token")).await;
        assert_eq!((code, e["error"]["code"].as_str()), (StatusCode::NOT_FOUND, Some("unknown_task")), "{e}");
        let (code, e) = post(r#"{"task": 7, "model": {"base_urls": []}}"#, Some("client-token")).await;
        assert_eq!((code, e["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("bad_task")), "{e}");
        let (code, _) = post(r#"{"task": "x/0", "model": {}, "extra": 1}"#, Some("client-token")).await;
        assert!(code.is_client_error(), "{code}");
        let spec = |budget: u32| {
            json!({"task": {"id": "mine/0", "benchmark": "mine", "family": "mine", "instruction": "Do it.", "apps": [], "world_seed": 0,
                "step_budget": budget, "difficulty": 1, "params": {}, "walkthrough": []},
                "model": {"base_urls": ["http://127.0.0.1:9/v1"]}, "group_id": "g"})
            .to_string()
        };
        for budget in [0, 201, u32::MAX] {
            let (code, e) = post(&spec(budget), Some("client-token")).await;
            assert_eq!((code, e["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("bad_task")), "{budget}: {e}");
        }
        let long_group = spec(10).replace(r#""group_id":"g""#, &format!(r#""group_id":"{}""#, "g".repeat(257)));
        let (code, e) = post(&long_group, Some("client-token")).await;
        assert_eq!((code, e["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("bad_group_id")), "{e}");
    }
}
