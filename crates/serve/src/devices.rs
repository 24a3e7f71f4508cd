//! The control side of instances served through another protocol (`guigym adb-device` serves
//! them as ADB devices): an agent framework drives each instance its own way, and guigym
//! keeps the task and the verdict here. Routes, on loopback unless the operator says otherwise:
//! - `GET /v1/devices`: each device's serial and task;
//! - `POST /v1/devices/{n}/reset` `{"task": ID}` (or `{"spec": TASK}`, a whole task): the
//!   device in that task's initial state;
//! - `POST /v1/devices/{n}/step` `{"action": {…}}`: an action the protocol cannot carry (an
//!   answer, `terminate`), or any other;
//! - `GET /v1/devices/{n}/evaluate`: the verdict on the episode so far;
//! - `GET /v1/devices/{n}/heard`: the command lines the device was sent (its shell's and its
//!   console's), newest last, where the protocol keeps them.

use std::collections::VecDeque;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use guigym_core::{Action, Catalogue, Env, ObserveOptions, TaskSpec};
use guigym_manager::api::{ApiError, Body};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::Mutex;

/// One served instance.
pub struct Device {
    /// How the other protocol names it (`127.0.0.1:5555`).
    pub serial: String,
    pub env: Arc<Mutex<Box<dyn Env>>>,
    /// The task it was last reset to.
    pub task: Mutex<Option<TaskSpec>>,
    /// The command lines it was sent, where its protocol keeps them.
    pub heard: Option<Arc<std::sync::Mutex<VecDeque<String>>>>,
    /// What the protocol keeps beside the instance (files written to it) is cleared by this on
    /// every reset, so that a task starts as it always does.
    pub on_reset: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl Device {
    pub fn new(serial: String, env: Arc<Mutex<Box<dyn Env>>>) -> Device {
        Device { serial, env, task: Mutex::new(None), heard: None, on_reset: None }
    }

    /// Resets the instance to `task`, and what its protocol keeps with it.
    pub async fn reset(&self, task: &TaskSpec) -> Result<guigym_core::Observation, guigym_core::EnvError> {
        let mut env = self.env.lock().await;
        if let Some(clear) = &self.on_reset {
            clear();
        }
        let obs = env.reset(task).await?;
        *self.task.lock().await = Some(task.clone());
        Ok(obs)
    }
}

/// The served instances and the catalogue their tasks come from.
pub struct Devices {
    pub devices: Vec<Device>,
    pub catalogue: Arc<Catalogue>,
}

pub fn router(devices: Arc<Devices>) -> Router {
    Router::new()
        .route("/v1/devices", get(list))
        .route("/v1/devices/{n}/reset", post(reset))
        .route("/v1/devices/{n}/step", post(step))
        .route("/v1/devices/{n}/evaluate", get(evaluate))
        .route("/v1/devices/{n}/heard", get(heard))
        .with_state(devices)
}

fn device(devices: &Devices, n: usize) -> Result<&Device, ApiError> {
    devices.devices.get(n).ok_or_else(|| {
        ApiError::new(StatusCode::NOT_FOUND, "unknown_device", format!("no device {n}; devices are 0 to {}", devices.devices.len().saturating_sub(1)))
    })
}

/// An instance's failure is the server's, never the caller's.
fn env_error(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "device_failed", e.to_string())
}

async fn list(State(devices): State<Arc<Devices>>) -> Json<Value> {
    let mut rows = Vec::new();
    for (n, d) in devices.devices.iter().enumerate() {
        let task = d.task.lock().await.as_ref().map(|t| t.id.clone());
        rows.push(json!({ "device": n, "serial": d.serial, "task": task }));
    }
    Json(json!({ "devices": rows }))
}

/// A task by id (from the catalogue), or a whole task.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResetBody {
    task: Option<String>,
    spec: Option<guigym_core::TaskSpec>,
}

async fn reset(State(devices): State<Arc<Devices>>, Path(n): Path<usize>, Body(b): Body<ResetBody>) -> Result<Json<Value>, ApiError> {
    let d = device(&devices, n)?;
    let task = match (b.task, b.spec) {
        (Some(id), None) => devices.catalogue.task(&id).ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "unknown_task", format!("no task \"{id}\"")))?,
        (None, Some(spec)) => spec,
        _ => return Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "give {\"task\": ID} or {\"spec\": TASK}")),
    };
    let obs = d.reset(&task).await.map_err(|e| match e {
        guigym_core::EnvError::BadTask(m) => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_task", m),
        other => env_error(other),
    })?;
    Ok(Json(json!({ "device": n, "serial": d.serial, "task": task.id, "instruction": task.instruction, "app": obs.app, "screen": obs.screen })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepBody {
    action: Action,
}

async fn step(State(devices): State<Arc<Devices>>, Path(n): Path<usize>, Body(b): Body<StepBody>) -> Result<Json<Value>, ApiError> {
    let d = device(&devices, n)?;
    if d.task.lock().await.is_none() {
        return Err(ApiError::new(StatusCode::CONFLICT, "no_task", "reset the device to a task first"));
    }
    let outcome = d.env.lock().await.step(&b.action).await.map_err(env_error)?;
    Ok(Json(serde_json::to_value(outcome).unwrap_or(Value::Null)))
}

async fn evaluate(State(devices): State<Arc<Devices>>, Path(n): Path<usize>) -> Result<Json<Value>, ApiError> {
    let d = device(&devices, n)?;
    let Some(task) = d.task.lock().await.as_ref().map(|t| t.id.clone()) else {
        return Err(ApiError::new(StatusCode::CONFLICT, "no_task", "reset the device to a task first"));
    };
    let mut env = d.env.lock().await;
    let verdict = env.evaluate().await.map_err(env_error)?;
    let steps = env.observe(ObserveOptions::default()).await.map_err(env_error)?.step;
    Ok(Json(json!({ "device": n, "task": task, "steps": steps, "verdict": verdict })))
}

async fn heard(State(devices): State<Arc<Devices>>, Path(n): Path<usize>) -> Result<Json<Value>, ApiError> {
    let d = device(&devices, n)?;
    let heard = d.heard.as_ref().ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "not_kept", "this device does not keep what it heard"))?;
    let lines: Vec<String> = heard.lock().unwrap_or_else(|p| p.into_inner()).iter().cloned().collect();
    Ok(Json(json!({ "device": n, "heard": lines })))
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use guigym_core::{EnvError, Observation, StepOutcome, TaskSpec, Verdict};

    use super::*;
    use crate::testing::{request, send_json, SECRETS};

    /// An instance that records what it is asked: its reset task, its steps.
    #[derive(Default)]
    struct Recorder {
        task: Option<String>,
        steps: u32,
        answered: bool,
    }

    #[async_trait::async_trait]
    impl Env for Recorder {
        async fn reset(&mut self, task: &TaskSpec) -> Result<Observation, EnvError> {
            *self = Recorder { task: Some(task.id.clone()), ..Recorder::default() };
            Ok(Observation { screen: "home".into(), ..Observation::default() })
        }
        async fn observe(&mut self, _: ObserveOptions) -> Result<Observation, EnvError> {
            Ok(Observation { step: self.steps, ..Observation::default() })
        }
        async fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
            self.steps += 1;
            self.answered |= matches!(action, Action::Answer { .. });
            Ok(StepOutcome::ok("done"))
        }
        async fn evaluate(&mut self) -> Result<Verdict, EnvError> {
            Ok(Verdict { success: self.answered && self.task.is_some(), ..Verdict::default() })
        }
        async fn state_hash(&mut self) -> Result<String, EnvError> {
            Ok(String::new())
        }
    }

    fn routes() -> Router {
        let env: Box<dyn Env> = Box::new(Recorder::default());
        let device = Device::new("127.0.0.1:5555".into(), Arc::new(Mutex::new(env)));
        let catalogue = Arc::new(Catalogue::new(vec![&SECRETS], |_| Vec::new()));
        router(Arc::new(Devices { devices: vec![device], catalogue }))
    }

    async fn call(router: &Router, method: &str, path: &str, body: &str) -> (StatusCode, Value) {
        let req = request(method, path, None).header("content-type", "application/json").body(Body::from(body.to_string())).unwrap();
        send_json(router, req).await
    }

    #[tokio::test]
    async fn a_device_is_reset_to_a_task_stepped_and_judged() {
        let r = routes();
        let (code, v) = call(&r, "GET", "/v1/devices/0/evaluate", "").await;
        assert_eq!((code, v["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("no_task")), "{v}");
        let (code, v) = call(&r, "POST", "/v1/devices/0/reset", r#"{"task": "secret/1"}"#).await;
        assert_eq!(code, StatusCode::OK, "{v}");
        assert_eq!((v["task"].as_str(), v["instruction"].as_str()), (Some("secret/1"), Some("Say the word.")));
        let (_, listed) = call(&r, "GET", "/v1/devices", "").await;
        assert_eq!(listed["devices"][0]["task"], "secret/1");
        assert_eq!(listed["devices"][0]["serial"], "127.0.0.1:5555");
        let (code, v) = call(&r, "POST", "/v1/devices/0/step", r#"{"action": {"action": "answer", "text": "word"}}"#).await;
        assert_eq!(code, StatusCode::OK, "{v}");
        let (code, v) = call(&r, "GET", "/v1/devices/0/evaluate", "").await;
        assert_eq!(code, StatusCode::OK, "{v}");
        assert_eq!((v["verdict"]["success"].as_bool(), v["steps"].as_u64()), (Some(true), Some(1)), "{v}");
    }

    #[tokio::test]
    async fn bad_requests_are_4xx_that_say_what_is_wrong() {
        let r = routes();
        assert_eq!(call(&r, "POST", "/v1/devices/3/reset", r#"{"task": "secret/1"}"#).await.0, StatusCode::NOT_FOUND);
        let (code, v) = call(&r, "GET", "/v1/devices/0/heard", "").await;
        assert_eq!((code, v["error"]["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_kept")), "a device that keeps no log says so: {v}");
        assert_eq!(call(&r, "POST", "/v1/devices/0/reset", r#"{"task": "nope/1"}"#).await.0, StatusCode::NOT_FOUND);
        for bad in ["", "{", "{}", r#"{"task": 3}"#, r#"{"task": "secret/1", "extra": 1}"#] {
            let (code, v) = call(&r, "POST", "/v1/devices/0/reset", bad).await;
            assert!(code.is_client_error(), "{bad}: {code} {v}");
        }
        call(&r, "POST", "/v1/devices/0/reset", r#"{"task": "secret/0"}"#).await;
        // As the manager's API answers it: well-formed JSON of the wrong shape is 422.
        let (code, v) = call(&r, "POST", "/v1/devices/0/step", r#"{"action": {"action": "fly"}}"#).await;
        assert_eq!((code, v["error"]["code"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("bad_json")), "{v}");
        assert_eq!(call(&r, "GET", "/v1/devices/x/evaluate", "").await.0, StatusCode::BAD_REQUEST);
        let huge = format!(r#"{{"task": "{}"}}"#, "x".repeat(3 << 20));
        let (code, v) = call(&r, "POST", "/v1/devices/0/reset", &huge).await;
        assert_eq!((code, v["error"]["code"].as_str()), (StatusCode::PAYLOAD_TOO_LARGE, Some("body_too_large")), "{v}");
    }
}
