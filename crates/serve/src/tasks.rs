//! The task listing clients read (`GET /v1/suites`, `GET /v1/tasks?suite=S`, `?id=ID`), mounted by
//! `guigym serve` beside the manager's API: every suite of the catalogue it is given, and each
//! task's public face (id, benchmark, family, apps, split, instruction, step budget), never its
//! hidden parameters or walkthrough. A client resets an instance to a listed task by its id.

use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use guigym_core::{Catalogue, TaskSpec};
use guigym_manager::api::{ApiError, As, Client};
use serde::Deserialize;
use serde_json::{json, Value};

/// The routes, over a catalogue. They ask for the clients' credential (`As<Client>`), which the
/// router they are merged into puts in each request.
pub fn router(catalogue: Arc<Catalogue>) -> Router {
    Router::new().route("/v1/suites", get(suites)).route("/v1/tasks", get(tasks)).with_state(catalogue)
}

async fn suites(_: As<Client>, State(catalogue): State<Arc<Catalogue>>) -> Json<Value> {
    let rows: Vec<Value> = catalogue
        .benchmarks()
        .iter()
        .flat_map(|b| {
            let hosts = catalogue.hosts(b.name()).to_vec();
            b.suites().into_iter().map(move |s| json!({ "qualified": format!("{}:{s}", b.name()), "name": s, "benchmark": b.name(), "backends": hosts }))
        })
        .collect();
    Json(json!({ "suites": rows }))
}

/// `?suite=S` lists a suite; `?id=ID` gives one task.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TasksQuery {
    suite: Option<String>,
    id: Option<String>,
}

fn public(t: &TaskSpec, split: Option<String>) -> Value {
    json!({
        "id": t.id, "benchmark": t.benchmark, "family": t.family, "apps": t.apps, "split": split,
        "instruction": t.instruction, "step_budget": t.step_budget, "difficulty": t.difficulty,
    })
}

async fn tasks(_: As<Client>, State(catalogue): State<Arc<Catalogue>>, query: Result<Query<TasksQuery>, QueryRejection>) -> Result<Json<Value>, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_query", e.body_text()))?;
    // Building tasks is pure work (worlds, walkthroughs): off the async threads.
    let listed = tokio::task::spawn_blocking(move || match (q.suite, q.id) {
        (Some(suite), None) => {
            let (benchmark, tasks) = catalogue.suite(&suite).map_err(|e| ApiError::new(StatusCode::NOT_FOUND, "unknown_suite", e))?;
            let rows: Vec<Value> = tasks.iter().map(|t| public(t, benchmark.split(t))).collect();
            Ok(json!({ "suite": suite, "benchmark": benchmark.name(), "tasks": rows }))
        }
        (None, Some(id)) => {
            let task = catalogue.task(&id).ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "unknown_task", format!("no task \"{id}\"")))?;
            Ok(json!({ "tasks": [public(&task, catalogue.split(&task))] }))
        }
        _ => Err(ApiError::new(StatusCode::BAD_REQUEST, "bad_request", "give ?suite=NAME (a suite's tasks) or ?id=TASK (one task)")),
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", e.to_string()))?;
    listed.map(Json)
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use guigym_manager::auth::Credentials;

    use super::*;
    use crate::testing::{request, send_text, SECRETS};

    fn routes() -> Router {
        let catalogue = Catalogue::new(vec![&SECRETS], |_| vec!["sim".into()]);
        let creds = Arc::new(Credentials { client: Some("client-token".into()), ..Credentials::open() });
        router(Arc::new(catalogue)).layer(axum::Extension(creds))
    }

    async fn get(path: &str, token: Option<&str>) -> (StatusCode, String) {
        send_text(&routes(), request("GET", path, token).body(Body::empty()).unwrap()).await
    }

    #[tokio::test]
    async fn suites_and_tasks_are_listed_without_what_is_hidden() {
        let (code, body) = get("/v1/suites", Some("client-token")).await;
        assert_eq!(code, StatusCode::OK, "{body}");
        let suites: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(suites["suites"][0]["qualified"], "secrets:smoke");
        assert_eq!(suites["suites"][0]["backends"], json!(["sim"]));
        for path in ["/v1/tasks?suite=smoke", "/v1/tasks?suite=secrets:smoke", "/v1/tasks?id=secret/1"] {
            let (code, body) = get(path, Some("client-token")).await;
            assert_eq!(code, StatusCode::OK, "{path}: {body}");
            assert!(body.contains("Say the word.") && body.contains("\"split\":\"test\""), "{path}: {body}");
            assert!(!body.contains("hidden-answer") && !body.contains("hidden-walkthrough"), "{path} shows what is hidden: {body}");
        }
    }

    #[tokio::test]
    async fn the_listing_asks_for_the_clients_credential_and_says_what_is_wrong() {
        for token in [None, Some("wrong")] {
            assert_eq!(get("/v1/suites", token).await.0, StatusCode::UNAUTHORIZED);
            assert_eq!(get("/v1/tasks?suite=smoke", token).await.0, StatusCode::UNAUTHORIZED);
        }
        let (code, body) = get("/v1/tasks?suite=nope", Some("client-token")).await;
        assert_eq!(code, StatusCode::NOT_FOUND, "{body}");
        assert!(body.contains("secrets:smoke"), "{body}");
        assert_eq!(get("/v1/tasks?id=nope/0", Some("client-token")).await.0, StatusCode::NOT_FOUND);
        assert_eq!(get("/v1/tasks", Some("client-token")).await.0, StatusCode::BAD_REQUEST);
        assert_eq!(get("/v1/tasks?suite=smoke&id=secret/0", Some("client-token")).await.0, StatusCode::BAD_REQUEST);
        let (code, body) = get("/v1/tasks?sweet=1", Some("client-token")).await;
        assert_eq!(code, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.contains("bad_query"), "{body}");
    }
}
