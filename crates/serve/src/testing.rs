//! What the routers' in-process tests share: one request sent through a router (tower's
//! `oneshot`, no socket), and a fixture benchmark whose tasks hide a secret.

use axum::body::{Body, Bytes};
use axum::http::{request, Request, StatusCode};
use axum::Router;
use guigym_core::{Action, Benchmark, TaskSpec, TerminateStatus};
use serde_json::{json, Value};
use tower::ServiceExt;

/// A request to `path`, with the bearer `token` if one is given.
pub fn request(method: &str, path: &str, token: Option<&str>) -> request::Builder {
    let req = Request::builder().method(method).uri(path);
    match token {
        Some(t) => req.header("authorization", format!("Bearer {t}")),
        None => req,
    }
}

/// The router's answer to one request: its status and body.
pub async fn send(router: &Router, req: Request<Body>) -> (StatusCode, Bytes) {
    let resp = router.clone().oneshot(req).await.expect("a router's service never fails");
    let status = resp.status();
    (status, axum::body::to_bytes(resp.into_body(), usize::MAX).await.expect("the body is read whole"))
}

/// The answer as text.
pub async fn send_text(router: &Router, req: Request<Body>) -> (StatusCode, String) {
    let (status, bytes) = send(router, req).await;
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// The answer as JSON (`null` when it is not JSON).
pub async fn send_json(router: &Router, req: Request<Body>) -> (StatusCode, Value) {
    let (status, bytes) = send(router, req).await;
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// One suite (`smoke`) of two tasks, `secret/0` and `secret/1` ("Say the word."), each with
/// a secret in its hidden parameters and walkthrough.
pub struct Secrets;

impl Benchmark for Secrets {
    fn name(&self) -> &str {
        "secrets"
    }
    fn suites(&self) -> Vec<String> {
        vec!["smoke".into()]
    }
    fn suite(&self, _name: &str) -> Result<Vec<TaskSpec>, String> {
        Ok((0..2).filter_map(|i| self.task(&format!("secret/{i}"))).collect())
    }
    fn task(&self, id: &str) -> Option<TaskSpec> {
        id.strip_prefix("secret/")?;
        Some(TaskSpec {
            id: id.into(),
            benchmark: "secrets".into(),
            family: "secret".into(),
            instruction: "Say the word.".into(),
            apps: vec!["Notes".into()],
            world_seed: 1,
            step_budget: 5,
            difficulty: 1,
            params: json!({ "answer": "hidden-answer" }),
            walkthrough: vec![Action::Answer { text: "hidden-walkthrough".into() }, Action::Terminate { status: TerminateStatus::Success }],
        })
    }
    fn split(&self, _task: &TaskSpec) -> Option<String> {
        Some("test".into())
    }
}

pub static SECRETS: Secrets = Secrets;
