//! The loopback app server: it serves each web instance's device shell as a page (the ui
//! crate's HTML), applies the browser's events to that instance's app state through the same
//! shell as the sim backend, and serves the files of the page benchmarks (MiniWoB++'s).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Path as UrlPath, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use guigym_core::{Action, Direction};
use guigym_sim::SimEnv;
use serde::Deserialize;
use serde_json::json;

use crate::pages::PageBenchmarks;

/// The script of every app page: browser events go to the server as shell actions, the
/// answer replaces the screen; `__guigym.settled()` resolves once nothing is in flight.
const SCRIPT: &str = r#"
(function () {
  const G = window.__guigym = { pending: 0, events: 0, last: null, waiters: [] };
  const base = location.pathname;
  function apply(r) {
    // The world's theme: replaced only when a reset brings another one.
    const theme = document.getElementById('theme');
    if (theme.textContent !== r.css) theme.textContent = r.css;
    document.getElementById('screen').innerHTML = r.html;
    if ('feedback' in r) G.last = { feedback: r.feedback, invalid: r.invalid };
    const f = document.querySelector('[data-focused]');
    if (f) { f.focus(); const n = f.value.length; f.setSelectionRange(n, n); }
  }
  function done() { G.pending--; if (!G.pending) G.waiters.splice(0).forEach(w => w(true)); }
  // Events go one at a time, in order: the server sees them as the user made them.
  let chain = Promise.resolve();
  function send(ev) {
    G.pending++; G.events++;
    chain = chain
      .then(() => fetch(base + '/event', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ev) }))
      .then(r => r.json()).then(apply).catch(() => {}).finally(done);
    return chain;
  }
  G.settled = () => G.pending ? new Promise(r => G.waiters.push(r)) : Promise.resolve(true);
  G.refresh = () => {
    G.pending++;
    chain = chain.then(() => fetch(base + '/html')).then(r => r.json()).then(apply).catch(() => {}).finally(done);
    return chain.then(() => true);
  };
  const TAPPABLE = ['button', 'listitem', 'checkbox', 'switch', 'tab', 'icon', 'textfield'];
  document.addEventListener('click', e => {
    const t = e.target.closest('[data-gid]');
    if (!t || t.getAttribute('aria-disabled') === 'true' || !TAPPABLE.includes(t.dataset.role)) return;
    send({ kind: 'tap', gid: t.dataset.gid });
  });
  document.addEventListener('input', e => {
    const t = e.target.closest('[data-gid]');
    if (t) send({ kind: 'input', gid: t.dataset.gid, value: t.value });
  });
  document.addEventListener('keydown', e => {
    if (e.key === 'Enter') { e.preventDefault(); send({ kind: 'key', keys: ['enter'] }); }
  });
  document.addEventListener('wheel', e => {
    const list = document.elementsFromPoint(e.clientX, e.clientY).find(x => x.dataset && x.dataset.role === 'list');
    if (!list) return;
    e.preventDefault();
    const amount = Math.max(1, Math.round(Math.abs(e.deltaY) / 240));
    send({ kind: 'scroll', gid: list.dataset.gid, direction: e.deltaY > 0 ? 'down' : 'up', amount: amount });
  }, { passive: false });
})();
"#;

/// One hosted instance: the app state lives in a `SimEnv`, the page shows it.
pub struct Hosted {
    pub sim: SimEnv,
}

pub struct AppServer {
    pub url: String,
    instances: Mutex<HashMap<u64, Arc<tokio::sync::Mutex<Hosted>>>>,
    next: AtomicU64,
    /// The page benchmarks it serves, and their files by benchmark name.
    pub pages: PageBenchmarks,
    files: HashMap<String, PathBuf>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[derive(Deserialize)]
struct Event {
    kind: String,
    #[serde(default)]
    gid: String,
    #[serde(default)]
    value: String,
    #[serde(default)]
    direction: String,
    #[serde(default)]
    amount: u32,
    #[serde(default)]
    keys: Vec<String>,
}

impl AppServer {
    /// Starts the server on a free loopback port, serving the files of the page benchmarks
    /// that are installed.
    pub async fn start(pages: &PageBenchmarks) -> std::io::Result<Arc<AppServer>> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let url = format!("http://{}", listener.local_addr()?);
        let files = pages.iter().filter_map(|b| Some((b.name().to_string(), b.files()?))).collect();
        let server = Arc::new(AppServer { url, instances: Mutex::new(HashMap::new()), next: AtomicU64::new(1), pages: pages.clone(), files });
        let app = Router::new()
            .route("/app/{id}", get(page))
            .route("/app/{id}/html", get(screen))
            .route("/app/{id}/event", post(event))
            .route("/bench/{name}/{*path}", get(benchmark_file))
            .with_state(server.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Ok(server)
    }

    /// The URL of a page benchmark's file.
    pub fn page_url(&self, benchmark: &str, path: &str) -> String {
        format!("{}/bench/{benchmark}/{path}", self.url)
    }

    /// Hosts a new instance; returns its id.
    pub fn host(&self, sim: SimEnv) -> (u64, Arc<tokio::sync::Mutex<Hosted>>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let hosted = Arc::new(tokio::sync::Mutex::new(Hosted { sim }));
        lock(&self.instances).insert(id, hosted.clone());
        (id, hosted)
    }

    pub fn unhost(&self, id: u64) {
        lock(&self.instances).remove(&id);
    }

    fn get(&self, id: u64) -> Option<Arc<tokio::sync::Mutex<Hosted>>> {
        lock(&self.instances).get(&id).cloned()
    }

    /// The screen's elements, and the stylesheet of the world's theme (a reset to another world
    /// changes it without reloading the page).
    fn body(&self, hosted: &Hosted) -> (String, String) {
        match hosted.sim.state() {
            Some(state) => {
                let view = guigym_phone::shell::view(state);
                let layout = guigym_phone::shell::layout(&view, state, hosted.sim.screen());
                let theme = guigym_phone::shell::theme(state);
                (guigym_ui::html::render_body(&layout, &theme), guigym_ui::html::stylesheet(&theme))
            }
            None => (String::new(), String::new()),
        }
    }
}

async fn page(State(s): State<Arc<AppServer>>, UrlPath(id): UrlPath<u64>) -> Response {
    let Some(h) = s.get(id) else { return (StatusCode::NOT_FOUND, "no such instance").into_response() };
    let (body, css) = s.body(&*h.lock().await);
    Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><style id=\"theme\">{css}</style></head>\
         <body><div id=\"screen\">{body}</div><script>{SCRIPT}</script></body></html>"
    ))
    .into_response()
}

async fn screen(State(s): State<Arc<AppServer>>, UrlPath(id): UrlPath<u64>) -> Response {
    let Some(h) = s.get(id) else { return (StatusCode::NOT_FOUND, "no such instance").into_response() };
    let (body, css) = s.body(&*h.lock().await);
    Json(json!({ "html": body, "css": css })).into_response()
}

async fn event(State(s): State<Arc<AppServer>>, UrlPath(id): UrlPath<u64>, Json(e): Json<Event>) -> Response {
    let Some(h) = s.get(id) else { return (StatusCode::NOT_FOUND, "no such instance").into_response() };
    let action = match e.kind.as_str() {
        "tap" => Action::click_element(e.gid),
        "input" => Action::Type { text: e.value, element: Some(e.gid), clear: true },
        "scroll" => Action::Scroll {
            at: None,
            element: Some(e.gid),
            direction: if e.direction == "up" { Direction::Up } else { Direction::Down },
            amount: e.amount.clamp(1, 20),
        },
        "key" => Action::Key { keys: e.keys },
        other => return (StatusCode::BAD_REQUEST, format!("unknown event {other:?}")).into_response(),
    };
    let mut hosted = h.lock().await;
    let (feedback, invalid) = match hosted.sim.apply_event(&action) {
        Ok(o) => (o.feedback, o.invalid),
        Err(e) => (e.to_string(), true),
    };
    let (body, css) = s.body(&hosted);
    Json(json!({ "html": body, "css": css, "feedback": feedback, "invalid": invalid })).into_response()
}

async fn benchmark_file(State(s): State<Arc<AppServer>>, UrlPath((name, path)): UrlPath<(String, String)>) -> Response {
    let Some(root) = s.files.get(&name) else { return (StatusCode::NOT_FOUND, format!("no files of a benchmark {name:?} here")).into_response() };
    let rel = Path::new(&path);
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return (StatusCode::BAD_REQUEST, "bad path").into_response();
    }
    let full = root.join(rel);
    match tokio::fs::read(&full).await {
        Ok(bytes) => {
            let mime = match full.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "application/javascript",
                Some("css") => "text/css",
                Some("png") => "image/png",
                Some("svg") => "image/svg+xml",
                Some("json") => "application/json",
                _ => "application/octet-stream",
            };
            ([(header::CONTENT_TYPE, mime)], bytes).into_response()
        }
        Err(_) => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}
