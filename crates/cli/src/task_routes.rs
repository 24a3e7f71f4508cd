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
            b.suites().into_iter().map(move |s| json!({ "qualified": format!("{}:{s}", b.name()), "name": s, "benchmark": b.name(), "backends": hosts }))
        })
        .collect();
    Json(json!({ "suites": rows }))
}

/// `?suite=S` lists a suite; `?id=ID` gives one task.
#[derive(Deserialize)]
struct TasksQuery {
    suite: Option<String>,
    id: Option<String>,
}

fn public(t: &guigym_core::TaskSpec, split: Option<String>) -> Value {
    json!({
        "id": t.id, "benchmark": t.benchmark, "family": t.family, "apps": t.apps, "split": split,
        "instruction": t.instruction, "step_budget": t.step_budget, "difficulty": t.difficulty,
    })
}

async fn tasks(_: As<Client>, Query(q): Query<TasksQuery>) -> Result<Json<Value>, ApiError> {
    // Building tasks is pure work (worlds, walkthroughs): off the async threads.
    let listed = tokio::task::spawn_blocking(move || match (q.suite, q.id) {
        (Some(suite), None) => {
            let (benchmark, tasks) = crate::registry::suite(&suite).map_err(|e| ApiError::new(StatusCode::NOT_FOUND, "unknown_suite", e.to_string()))?;
            let rows: Vec<Value> = tasks.iter().map(|t| public(t, benchmark.split(t))).collect();
            Ok(json!({ "suite": suite, "benchmark": benchmark.name(), "tasks": rows }))
        }
        (None, Some(id)) => {
            let task = crate::registry::find_task(&id).ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "unknown_task", format!("no task \"{id}\"")))?;
            let split = crate::registry::benchmarks().iter().find(|b| b.name() == task.benchmark).and_then(|b| b.split(&task));
            Ok(json!({ "tasks": [public(&task, split)] }))
        }
        _ => Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "give ?suite=NAME (a suite's tasks) or ?id=TASK (one task)")),
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    listed.map(Json)
}
