//! The task listing clients read (`GET /v1/suites`, `GET /v1/tasks?suite=S`), mounted by
//! `guigym serve`: every suite of every benchmark this binary knows, and each task's public
//! face (id, benchmark, family, apps, split, instruction, step budget) — never its hidden
//! parameters or walkthrough. A client resets an instance to a listed task by its id.

use axum::extract::Query;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use guigym_manager::api::{ApiError, As, Client};
use serde::Deserialize;
use serde_json::{json, Value};

pub fn routes() -> Router {
    Router::new().route("/v1/suites", get(suites)).route("/v1/tasks", get(tasks))
}

async fn suites(_: As<Client>) -> Json<Value> {
    let rows: Vec<Value> = crate::registry::benchmarks()
        .iter()
        .flat_map(|b| {
            let hosts: Vec<&str> = crate::registry::BACKENDS.iter().filter(|x| (x.hosts)(b.name())).map(|x| x.name).collect();
            b.suites().into_iter().map(move |s| json!({ "name": s, "benchmark": b.name(), "backends": hosts }))
        })
        .collect();
    Json(json!({ "suites": rows }))
}

#[derive(Deserialize)]
struct TasksQuery {
    suite: String,
}

async fn tasks(_: As<Client>, Query(q): Query<TasksQuery>) -> Result<Json<Value>, ApiError> {
    // Building a suite's tasks is pure work (worlds, walkthroughs): off the async threads.
    let suite = q.suite.clone();
    let found = tokio::task::spawn_blocking(move || crate::registry::suite(&suite).map(|(b, tasks)| (b, tasks)))
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    let (benchmark, tasks) = found.map_err(|e| ApiError::new(StatusCode::NOT_FOUND, "unknown_suite", e.to_string()))?;
    let rows: Vec<Value> = tasks
        .iter()
        .map(|t| {
            json!({
                "id": t.id, "benchmark": t.benchmark, "family": t.family, "apps": t.apps, "split": benchmark.split(t),
                "instruction": t.instruction, "step_budget": t.step_budget, "difficulty": t.difficulty,
            })
        })
        .collect();
    Ok(Json(json!({ "suite": q.suite, "benchmark": benchmark.name(), "tasks": rows })))
}
