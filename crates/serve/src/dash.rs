//! `guigym dash`: the store in the browser, server-rendered HTML with a little inline script
//! (no build step, nothing fetched from elsewhere). Runs with their figures and filters; a run
//! by family and attempt (filter by family, outcome, text in the model's output); a trajectory
//! step by step (← →) with each screenshot and the action drawn on it, the model's output, the
//! feedback, tokens and latency, and the verdict's checks; two runs compared task by task;
//! training rounds as tables and plots. Pages read the store on every request, so a run in
//! progress shows as it goes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use axum::extract::{FromRef, Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use guigym_core::{Catalogue, EnvProvider, TaskSpec};
use guigym_rollout::store::{AttemptRow, StepRow};
use guigym_rollout::Store;
use serde::Deserialize;
use serde_json::Value;

/// What the dashboard reads: the store, the catalogue (a task's instruction, the suites to
/// play from) and instances to play a task on by hand.
#[derive(Clone)]
pub struct Dash {
    pub store: Arc<Store>,
    pub catalogue: Arc<Catalogue>,
    pub instances: Instances,
}

/// Instances to play a task on by hand: the backend that runs its benchmark (its name is
/// stored with the run) and its provider at that backend's own screen. An error says why
/// none can run here.
pub type Instances = Arc<dyn Fn(&TaskSpec) -> Result<(String, Arc<dyn EnvProvider>), String> + Send + Sync>;

impl FromRef<Dash> for Arc<Store> {
    fn from_ref(dash: &Dash) -> Arc<Store> {
        dash.store.clone()
    }
}

impl FromRef<Dash> for Arc<Catalogue> {
    fn from_ref(dash: &Dash) -> Arc<Catalogue> {
        dash.catalogue.clone()
    }
}

/// The whole dashboard as `guigym dash` serves it: the store's pages and playing by hand,
/// with `/` sent to `/dash`. End the games with `Play::end_all` when the server stops.
pub fn app(dash: Dash) -> (Router, Arc<Play>) {
    let play = Arc::new(Play::new(dash.clone()));
    let app = routes(dash).merge(play_router(play.clone())).route("/", get(|| async { Redirect::to("/dash") }));
    (app, play)
}

/// The dashboard's pages under `/dash`.
pub fn routes(dash: Dash) -> Router {
    Router::new()
        .route("/dash", get(runs))
        .route("/dash/runs/{id}", get(run_page))
        .route("/dash/attempts/{id}", get(attempt_page))
        .route("/dash/compare", get(compare))
        .route("/dash/train", get(train_list))
        .route("/dash/train/{name}", get(train_page))
        .route("/dash/blobs/{hash}", get(blob))
        .with_state(dash)
}

/// The error page with its status.
type Failure = (StatusCode, Html<String>);
/// A page, or the error page.
type Page = Result<Html<String>, Failure>;

fn fail(status: StatusCode, message: impl std::fmt::Display) -> Failure {
    (status, Html(page("guigym · error", &format!("<p class=bad>{}</p>", esc(&message.to_string())))))
}

fn store_error(e: impl std::fmt::Display) -> Failure {
    fail(StatusCode::INTERNAL_SERVER_ERROR, e)
}

/// Text as HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

fn pct(x: Option<f64>) -> String {
    x.map(|v| format!("{:.1} %", v * 100.0)).unwrap_or_else(|| "–".into())
}

fn page(title: &str, body: &str) -> String {
    format!(
        r#"<!doctype html><html><head><meta charset="utf-8"><title>{t}</title><style>
body{{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#111}} a{{color:#1d4ed8;text-decoration:none}}
table{{border-collapse:collapse;margin:.5em 0}} th,td{{border-bottom:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}}
th{{background:#f4f4f5}} .ok{{color:#15803d}} .bad{{color:#b91c1c}} .muted{{color:#6b7280}} nav a{{margin-right:1em}}
.step{{display:flex;gap:1em;border-top:1px solid #ddd;padding:1em 0}} .step.current{{background:#fefce8}}
.shot{{position:relative;width:360px;flex:none}} .shot img{{width:360px;display:block}} .shot svg{{position:absolute;left:0;top:0}}
pre{{white-space:pre-wrap;background:#f8f8f8;padding:.5em;max-width:60em}} form input,form select{{margin-right:.5em}}
</style></head><body><nav><a href="/dash">runs</a><a href="/dash/train">training</a><a href="/dash/play">play a task</a></nav><h1>{t}</h1>{body}</body></html>"#,
        t = esc(title)
    )
}

#[derive(Deserialize, Default)]
struct RunFilter {
    kind: Option<String>,
    suite: Option<String>,
    policy: Option<String>,
    backend: Option<String>,
}

/// Reloads a page that shows a run still going, so it follows the store as attempts land.
const LIVE: &str = "<p class=muted>a run is going: this page reloads every 5 s</p><script>setTimeout(()=>location.reload(),5000)</script>";

/// A run's harness in a few words: codec, observation and history (from its stored settings).
fn harness_summary(config: &Value) -> String {
    let h = config.pointer("/eval/harness").or_else(|| config.get("harness")).unwrap_or(&Value::Null);
    let word = |k: &str| h.get(k).and_then(Value::as_str).unwrap_or("");
    let history = match h.get("history") {
        Some(hist) => {
            let kind = hist.get("type").and_then(Value::as_str).unwrap_or("");
            match hist.get("k").and_then(Value::as_u64) {
                Some(k) => format!("{kind} {k}"),
                None => kind.to_string(),
            }
        }
        None => String::new(),
    };
    [word("codec"), word("observation"), history.as_str()].iter().filter(|w| !w.is_empty()).copied().collect::<Vec<_>>().join(" · ")
}

async fn runs(State(store): State<Arc<Store>>, Query(f): Query<RunFilter>) -> Page {
    let all = store.list_runs().map_err(store_error)?;
    let keep = |want: &Option<String>, have: &str| want.as_deref().is_none_or(|w| w.is_empty() || w == have);
    let mut body = String::from(
        "<form>kind <input name=kind size=8> suite <input name=suite size=10> policy <input name=policy size=10> backend <input name=backend size=8> <button>filter</button></form><table><tr><th>run</th><th>kind</th><th>suite</th><th>policy</th><th>backend</th><th>harness</th><th>attempts</th><th>success</th><th>pass@n</th><th>pass^n</th><th>infra</th><th>unscored</th><th>tokens</th><th>seconds</th></tr>",
    );
    for r in all.iter().rev().filter(|r| keep(&f.kind, &r.kind) && keep(&f.suite, &r.suite) && keep(&f.policy, &r.policy) && keep(&f.backend, &r.backend)) {
        let detail = store.show_run(r.id).map_err(store_error)?;
        let rep = detail.report.clone().unwrap_or(Value::Null);
        let num = |k: &str| rep.get(k).and_then(Value::as_f64);
        let tokens = detail.tokens.prompt_tokens + detail.tokens.completion_tokens;
        let secs = r.finished_at.map(|e| format!("{:.1}", e - r.started_at)).unwrap_or_else(|| "running".into());
        let _ = write!(
            body,
            "<tr><td><a href=\"/dash/runs/{id}\">{id}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{tokens}</td><td>{secs}</td></tr>",
            esc(&r.kind),
            esc(&r.suite),
            esc(&r.policy),
            esc(&r.backend),
            esc(&harness_summary(&detail.config)),
            r.attempts,
            pct(num("success_rate").or((r.attempts > 0).then(|| r.successes as f64 / r.attempts as f64))),
            pct(num("pass_at_n")),
            pct(num("pass_hat_n")),
            detail.infra_failures,
            rep.get("unscored").and_then(Value::as_u64).unwrap_or(0),
            id = r.id
        );
    }
    body.push_str("</table><form action=/dash/compare>compare run <input name=a size=4> with run <input name=b size=4> <button>compare</button></form>");
    if all.iter().any(|r| r.finished_at.is_none()) {
        body.push_str(LIVE);
    }
    Ok(Html(page("guigym · runs", &body)))
}

/// How an attempt ended, for filtering.
fn outcome(a: &AttemptRow) -> &'static str {
    match (a.status.as_str(), a.success, a.claimed_success) {
        ("done", Some(true), _) => "success",
        ("done", _, Some(true)) => "false completion",
        ("done", _, _) => "failure",
        ("infra", _, _) => "infra",
        _ => "running",
    }
}

#[derive(Deserialize, Default)]
struct AttemptFilter {
    family: Option<String>,
    outcome: Option<String>,
    q: Option<String>,
}

async fn run_page(State(store): State<Arc<Store>>, Path(id): Path<i64>, Query(f): Query<AttemptFilter>) -> Page {
    let detail = store.show_run(id).map_err(|e| fail(StatusCode::NOT_FOUND, e))?;
    let attempts = store.attempts_of_run(id).map_err(store_error)?;
    let mentioning: Option<Vec<i64>> = match f.q.as_deref().filter(|q| !q.is_empty()) {
        Some(q) => Some(store.attempts_mentioning(id, q).map_err(store_error)?),
        None => None,
    };
    let r = &detail.run;
    let mut body = format!(
        "<p>{} · suite {} · policy {} · backend {} · {} steps · <a href=\"/dash/compare?a={id}\">compare…</a></p>",
        esc(&r.kind),
        esc(&r.suite),
        esc(&r.policy),
        esc(&r.backend),
        detail.steps
    );
    if let Some(families) = detail.report.as_ref().and_then(|r| r.get("by_family")).and_then(Value::as_object) {
        body.push_str(
            "<h2>by family</h2><table><tr><th>family</th><th>attempts</th><th>success</th><th>pass@n</th><th>false completions</th><th>infra retries</th></tr>",
        );
        for (name, fam) in families {
            let n = |k: &str| fam.get(k).and_then(Value::as_f64);
            let _ = write!(
                body,
                "<tr><td><a href=\"?family={q}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(name),
                n("attempts").unwrap_or(0.0),
                pct(n("success_rate")),
                pct(n("pass_at_n")),
                n("false_complete").unwrap_or(0.0),
                n("infra_retries").unwrap_or(0.0),
                q = esc(name)
            );
        }
        body.push_str("</table>");
    }
    let _ = write!(
        body,
        "<h2>attempts</h2><form>family <input name=family value=\"{}\" size=14> outcome <select name=outcome><option></option><option>success</option><option>failure</option><option>false completion</option><option>invalid steps</option><option>infra</option></select> text in the model's output <input name=q value=\"{}\"> <button>filter</button></form>",
        esc(f.family.as_deref().unwrap_or("")),
        esc(f.q.as_deref().unwrap_or(""))
    );
    body.push_str("<table><tr><th>task</th><th>attempt</th><th>try</th><th>outcome</th><th>score</th><th>steps</th><th>invalid</th><th>seconds</th><th>first failure</th></tr>");
    for a in attempts.iter().filter(|a| {
        f.family.as_deref().is_none_or(|w| w.is_empty() || a.family == w)
            && f.outcome.as_deref().is_none_or(|w| w.is_empty() || w == outcome(a) || (w == "invalid steps" && a.invalid_steps > 0))
            && mentioning.as_ref().is_none_or(|ids| ids.contains(&a.id))
    }) {
        let class = if outcome(a) == "success" { "ok" } else { "bad" };
        let why = first_failure(&a.verdict).or_else(|| a.error.clone()).unwrap_or_default();
        let _ = write!(
            body,
            "<tr><td><a href=\"/dash/attempts/{}\">{}</a></td><td>{}</td><td>{}</td><td class={class}>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=muted>{}</td></tr>",
            a.id,
            esc(&a.task_id),
            a.attempt_index,
            a.try_,
            outcome(a),
            a.score.map(|s| format!("{s:.2}")).unwrap_or_default(),
            a.steps,
            a.invalid_steps,
            a.seconds.map(|s| format!("{s:.1}")).unwrap_or_default(),
            esc(&why)
        );
    }
    body.push_str("</table>");
    if detail.run.finished_at.is_none() {
        body.push_str(LIVE);
    }
    Ok(Html(page(&format!("run {id}"), &body)))
}

fn first_failure(verdict: &Value) -> Option<String> {
    let failed = verdict.get("checks")?.as_array()?.iter().find(|c| c.get("passed") == Some(&Value::Bool(false)));
    match failed {
        Some(c) => Some(format!("{}: {}", c.get("name")?.as_str()?, c.get("detail").and_then(Value::as_str).unwrap_or(""))),
        None => verdict.get("unexpected_side_effects")?.as_array()?.first()?.as_str().map(|p| format!("side effect at {p}")),
    }
}

/// The screenshot's size from its PNG header.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    (bytes.len() >= 24 && &bytes[1..4] == b"PNG").then(|| {
        let n = |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        (n(16), n(20))
    })
}

fn point(v: &Value) -> Option<(f64, f64)> {
    let a = v.as_array()?;
    Some((a.first()?.as_f64()?, a.get(1)?.as_f64()?))
}

/// The action drawn over its screenshot (pixels of the screenshot): a marker where a pointer
/// landed, an arrow for a drag or a scroll, the text typed or the key pressed.
fn overlay(action: &Value, (w, h): (u32, u32)) -> String {
    let kind = action.get("action").and_then(Value::as_str).unwrap_or("");
    let r = (w.max(h) as f64 / 60.0).max(6.0);
    let label = |text: &str| {
        format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"#b91c1c\" stroke=\"white\" stroke-width=\"{}\" paint-order=\"stroke\">{}</text>",
            w as f64 * 0.04,
            h as f64 * 0.96,
            r * 2.4,
            r / 3.0,
            esc(text)
        )
    };
    let shape = match kind {
        "click" | "double_click" | "long_press" | "right_click" => match action.get("at").and_then(point) {
            Some((x, y)) => format!("<circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\" fill=\"none\" stroke=\"#dc2626\" stroke-width=\"{}\"/><circle cx=\"{x}\" cy=\"{y}\" r=\"{}\" fill=\"#dc2626\"/>", r / 2.5, r / 4.0),
            None => label(&format!("{kind} {}", action.get("element").and_then(Value::as_str).unwrap_or(""))),
        },
        "drag" | "swipe" => match (action.get("from").and_then(point), action.get("to").and_then(point)) {
            (Some((x1, y1)), Some((x2, y2))) => format!("<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"#dc2626\" stroke-width=\"{}\" marker-end=\"url(#arrow)\"/>", r / 2.0),
            _ => label(kind),
        },
        "scroll" => {
            let (cx, cy) = action.get("at").and_then(point).unwrap_or((w as f64 / 2.0, h as f64 / 2.0));
            let d = h as f64 / 8.0;
            let (dx, dy) = match action.get("direction").and_then(Value::as_str).unwrap_or("down") {
                "up" => (0.0, -d),
                "left" => (-d, 0.0),
                "right" => (d, 0.0),
                _ => (0.0, d),
            };
            format!("<line x1=\"{cx}\" y1=\"{cy}\" x2=\"{}\" y2=\"{}\" stroke=\"#dc2626\" stroke-width=\"{}\" marker-end=\"url(#arrow)\"/>", cx + dx, cy + dy, r / 2.0)
        }
        "type" => label(&format!("type “{}”", action.get("text").and_then(Value::as_str).unwrap_or(""))),
        "" => String::new(),
        other => label(&format!("{other} {}", serde_json::to_string(action).unwrap_or_default().chars().take(60).collect::<String>())),
    };
    format!(
        "<svg viewBox=\"0 0 {w} {h}\" width=\"360\" height=\"{}\"><defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"5\" refY=\"5\" markerWidth=\"4\" markerHeight=\"4\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" fill=\"#dc2626\"/></marker></defs>{shape}</svg>",
        360.0 * h as f64 / w.max(1) as f64
    )
}

fn step_html(store: &Store, s: &StepRow) -> String {
    let shot = match &s.screenshot {
        Some(hash) if hash.chars().all(|c| c.is_ascii_hexdigit()) => {
            let size = std::fs::read(store.blob_path(hash)).ok().and_then(|b| png_size(&b)).unwrap_or((1080, 2400));
            format!("<div class=shot><img src=\"/dash/blobs/{hash}\" alt=\"step {}\">{}</div>", s.index, overlay(&s.action, size))
        }
        _ => "<div class=shot><p class=muted>no screenshot was kept for this step (run with --screenshots)</p></div>".into(),
    };
    let tokens = s
        .usage
        .get("prompt_tokens")
        .map(|p| format!("{} prompt / {} completion tokens · ", p, s.usage.get("completion_tokens").unwrap_or(&Value::Null)))
        .unwrap_or_default();
    format!(
        "<div class=step id=\"s{i}\">{shot}<div><h3>step {i} · {screen}</h3><p><b>action</b> <code>{action}</code>{invalid}</p><p><b>feedback</b> {feedback}</p><p class=muted>{tokens}policy {p:.0} ms · env {e:.0} ms · harness {h:.1} ms{endpoint}</p><details open><summary>model output</summary><pre>{raw}</pre></details></div></div>",
        i = s.index,
        screen = esc(&s.screen),
        action = if s.action.is_null() { "(none: the output held no action)".into() } else { esc(&s.action.to_string()) },
        invalid = if s.invalid { " <span class=bad>invalid</span>" } else { "" },
        feedback = esc(s.feedback.as_deref().unwrap_or("")),
        p = s.policy_ms,
        e = s.env_ms,
        h = s.harness_ms,
        endpoint = s.endpoint.as_deref().map(|e| format!(" · {}", esc(e))).unwrap_or_default(),
        raw = esc(&s.raw_output),
    )
}

async fn attempt_page(State(store): State<Arc<Store>>, State(catalogue): State<Arc<Catalogue>>, Path(id): Path<i64>) -> Page {
    let a = store.attempt(id).map_err(store_error)?.ok_or_else(|| fail(StatusCode::NOT_FOUND, format!("no attempt {id}")))?;
    let steps = store.attempt_steps(id).map_err(store_error)?;
    let task = catalogue.task(&a.task_id);
    let mut body = format!(
        "<p><a href=\"/dash/runs/{run}\">run {run}</a> · attempt {} · try {} · <span class={}>{}</span> · score {}</p><p><b>instruction</b> {}</p>",
        a.attempt_index,
        a.try_,
        if outcome(&a) == "success" { "ok" } else { "bad" },
        outcome(&a),
        a.score.map(|s| format!("{s:.2}")).unwrap_or_default(),
        esc(task.as_ref().map(|t| t.instruction.as_str()).unwrap_or("(not in this binary's benchmarks)")),
        run = a.run_id
    );
    if let Some(t) = &task {
        // Hidden from the policy; shown to the person debugging on request.
        let _ = write!(
            body,
            "<details><summary>hidden parameters and walkthrough</summary><pre>{}</pre><pre>{}</pre></details>",
            esc(&t.params.to_string()),
            esc(&serde_json::to_string(&t.walkthrough).unwrap_or_default())
        );
    }
    body.push_str("<h2>verdict</h2><table><tr><th>check</th><th>passed</th><th>detail</th></tr>");
    for c in a.verdict.get("checks").and_then(Value::as_array).into_iter().flatten() {
        let passed = c.get("passed") == Some(&Value::Bool(true));
        let _ = write!(
            body,
            "<tr><td>{}</td><td class={}>{}</td><td>{}</td></tr>",
            esc(c.get("name").and_then(Value::as_str).unwrap_or("")),
            if passed { "ok" } else { "bad" },
            if passed { "yes" } else { "no" },
            esc(c.get("detail").and_then(Value::as_str).unwrap_or(""))
        );
    }
    body.push_str("</table>");
    for side in a.verdict.get("unexpected_side_effects").and_then(Value::as_array).into_iter().flatten() {
        let _ = write!(body, "<p class=bad>unexpected side effect at {}</p>", esc(side.as_str().unwrap_or("")));
    }
    if let Some(e) = &a.error {
        let _ = write!(body, "<p class=bad>infrastructure failure: {}</p>", esc(e));
    }
    body.push_str("<h2>steps <span class=muted>(← → to move)</span></h2>");
    for s in &steps {
        body.push_str(&step_html(&store, s));
    }
    body.push_str(
        "<script>let i=-1;const s=[...document.querySelectorAll('.step')];function go(d){if(!s.length)return;if(i>=0)s[i].classList.remove('current');i=Math.max(0,Math.min(s.length-1,i+d));s[i].classList.add('current');s[i].scrollIntoView({block:'start'});}document.addEventListener('keydown',e=>{if(e.key==='ArrowRight')go(1);if(e.key==='ArrowLeft')go(-1);});</script>",
    );
    Ok(Html(page(&format!("{} · attempt {}", a.task_id, a.attempt_index), &body)))
}

#[derive(Deserialize)]
struct CompareQuery {
    a: Option<i64>,
    b: Option<i64>,
}

async fn compare(State(store): State<Arc<Store>>, Query(q): Query<CompareQuery>) -> Page {
    let (Some(a), Some(b)) = (q.a, q.b) else {
        return Ok(Html(page("compare runs", "<form>run <input name=a size=4> with run <input name=b size=4> <button>compare</button></form>")));
    };
    for run in [a, b] {
        store.show_run(run).map_err(|e| fail(StatusCode::NOT_FOUND, e))?;
    }
    let scored = |run: i64| -> Result<BTreeMap<(String, u32), AttemptRow>, Failure> {
        let rows = store.attempts_of_run(run).map_err(store_error)?;
        Ok(rows.into_iter().filter(|x| x.status == "done").map(|x| ((x.task_id.clone(), x.attempt_index), x)).collect())
    };
    let (left, right) = (scored(a)?, scored(b)?);
    let mut keys: Vec<&(String, u32)> = left.keys().chain(right.keys()).collect();
    keys.sort();
    keys.dedup();
    let (mut gained, mut lost) = (0, 0);
    let mut rows = String::new();
    for k in keys {
        let (x, y) = (left.get(k), right.get(k));
        let ok = |r: Option<&AttemptRow>| r.and_then(|r| r.success);
        let flipped = ok(x) != ok(y);
        gained += (flipped && ok(y) == Some(true)) as usize;
        lost += (flipped && ok(x) == Some(true)) as usize;
        let cell = |r: Option<&AttemptRow>| match r {
            Some(r) => format!("<a class={} href=\"/dash/attempts/{}\">{}</a>", if r.success == Some(true) { "ok" } else { "bad" }, r.id, outcome(r)),
            None => "<span class=muted>–</span>".into(),
        };
        let _ = write!(
            rows,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if flipped { " style=\"background:#fef3c7\"" } else { "" },
            esc(&k.0),
            k.1,
            cell(x),
            cell(y)
        );
    }
    let body = format!("<p>run {b} against run {a}: {gained} attempts flipped to success, {lost} flipped to failure (highlighted).</p><table><tr><th>task</th><th>attempt</th><th>run {a}</th><th>run {b}</th></tr>{rows}</table>");
    Ok(Html(page(&format!("compare runs {a} and {b}"), &body)))
}

async fn train_list(State(store): State<Arc<Store>>) -> Page {
    let names = store.train_runs().map_err(store_error)?;
    let mut body = String::from("<ul>");
    for n in names {
        let _ = write!(body, "<li><a href=\"/dash/train/{}\">{}</a></li>", esc(&n), esc(&n));
    }
    body.push_str("</ul>");
    Ok(Html(page("guigym · training", &body)))
}

/// A figure for a table: whole numbers as they are, small ones (a KL of 0.0004) in
/// scientific notation, others to four places.
fn figure(v: f64) -> String {
    if v.abs() >= 1e9 {
        format!("{v:.3e}")
    } else if v.fract() == 0.0 {
        format!("{v}")
    } else if v.abs() < 0.01 {
        format!("{v:.2e}")
    } else {
        format!("{v:.4}")
    }
}

/// A line plot of the series, as SVG, on the y range `lo..hi`; the x axis (from 0) is named
/// by `x_label` at its end.
fn plot(series: &[(String, Vec<(f64, f64)>)], (lo, hi): (f64, f64), h: f64, x_label: &str) -> String {
    let (w, pad) = (640.0, 30.0);
    // Where a value sits between lo and hi, halved first so that a range as wide as f64's
    // (a figure of 1e308 and one of -1e308) does not overflow.
    let frac = |y: f64| if hi > lo { (y / 2.0 - lo / 2.0) / (hi / 2.0 - lo / 2.0) } else { 0.0 };
    let max_x = series.iter().flat_map(|(_, s)| s.iter().map(|p| p.0)).fold(1.0f64, f64::max);
    let colors = ["#1d4ed8", "#dc2626", "#15803d", "#a21caf", "#ea580c", "#0891b2"];
    let mut out = format!(
        "<svg viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\"><rect x=\"{pad}\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" stroke=\"#ddd\"/>",
        w - pad,
        h - pad
    );
    for (i, (name, points)) in series.iter().enumerate() {
        let c = colors[i % colors.len()];
        let path: Vec<String> = points
            .iter()
            .map(|(x, y)| (pad + x / max_x * (w - pad), (1.0 - frac(*y)) * (h - pad)))
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        // A line needs two points: a lone one is drawn as a dot.
        if let [only] = path.as_slice() {
            let (cx, cy) = only.split_once(',').unwrap_or(("0", "0"));
            let _ = write!(out, "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"3\" fill=\"{c}\"/>");
        }
        let _ = write!(
            out,
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/><text x=\"{}\" y=\"{}\" fill=\"{c}\" font-size=\"12\">{}</text>",
            path.join(" "),
            pad + 6.0,
            14.0 + 14.0 * i as f64,
            esc(name)
        );
    }
    let label = figure;
    let _ = write!(
        out,
        "<text x=\"0\" y=\"12\" font-size=\"10\">{}</text><text x=\"0\" y=\"{}\" font-size=\"10\">{}</text><text x=\"{}\" y=\"{}\" font-size=\"10\">{} {}</text></svg>",
        label(hi),
        h - pad,
        label(lo),
        w - 110.0,
        h - 8.0,
        esc(x_label),
        label(max_x)
    );
    out
}

async fn train_page(State(store): State<Arc<Store>>, Path(name): Path<String>) -> Page {
    let rounds = store.train_rounds(&name).map_err(store_error)?;
    if rounds.is_empty() {
        return Err(fail(StatusCode::NOT_FOUND, format!("no rounds of a training run named {name}")));
    }
    // Every numeric figure a round reports is a column and is plotted: those within [0, 1]
    // (success, reward) together, each other one (KL, advantages, budgets, staleness) on a
    // scale of its own.
    let mut columns: Vec<String> = Vec::new();
    for (_, stats) in &rounds {
        for (k, v) in stats.as_object().into_iter().flatten() {
            if v.is_number() && !columns.contains(k) {
                columns.push(k.clone());
            }
        }
    }
    let points = |c: &str| -> Vec<(f64, f64)> { rounds.iter().filter_map(|(r, s)| Some((*r as f64, s.get(c)?.as_f64()?))).collect() };
    let unit = |c: &str| points(c).iter().all(|(_, v)| (0.0..=1.0).contains(v));
    let plotted = columns.iter().filter(|c| c.as_str() != "round");
    let series: Vec<(String, Vec<(f64, f64)>)> = plotted.clone().filter(|c| unit(c)).map(|c| (c.clone(), points(c))).collect();
    let mut body = plot(&series, (0.0, 1.0), 240.0, "round");
    for c in plotted.filter(|c| !unit(c)) {
        let p = points(c);
        let lo = p.iter().map(|(_, v)| *v).fold(f64::INFINITY, f64::min).min(0.0);
        let hi = p.iter().map(|(_, v)| *v).fold(f64::NEG_INFINITY, f64::max);
        body.push_str(&plot(&[(c.clone(), p)], (lo, hi), 120.0, "round"));
    }
    body.push_str("<table><tr><th>round</th>");
    columns.retain(|c| c != "round");
    for c in &columns {
        let _ = write!(body, "<th>{}</th>", esc(c));
    }
    body.push_str("</tr>");
    for (r, stats) in &rounds {
        let _ = write!(body, "<tr><td>{r}</td>");
        for c in &columns {
            let v = stats.get(c.as_str()).and_then(Value::as_f64).map(figure).unwrap_or_default();
            let _ = write!(body, "<td>{v}</td>");
        }
        body.push_str("</tr>");
    }
    body.push_str("</table>");
    Ok(Html(page(&format!("training · {name}"), &body)))
}

async fn blob(State(store): State<Arc<Store>>, Path(hash): Path<String>) -> Response {
    if hash.is_empty() || !hash.chars().all(|c| c.is_ascii_hexdigit()) {
        return (StatusCode::BAD_REQUEST, "a blob is named by its sha256").into_response();
    }
    match std::fs::read(store.blob_path(&hash)) {
        Ok(png) => ([(header::CONTENT_TYPE, "image/png"), (header::CACHE_CONTROL, "max-age=31536000, immutable")], png).into_response(),
        Err(_) => (StatusCode::NOT_FOUND, "no such blob").into_response(),
    }
}

/// The fleet page `guigym serve` mounts at `/dash/fleet` (operators' credential): workers,
/// instances by state, leases, warm targets, and the manager's counters and latencies (its
/// Prometheus text). A browser signs in once at `/dash/login?token=…` (a same-site cookie).
pub fn fleet_routes(manager: Arc<guigym_manager::Manager>) -> Router {
    Router::new()
        .route("/dash/fleet", get(fleet))
        .route(
            "/dash/login",
            get(|Query(q): Query<BTreeMap<String, String>>| async move {
                let token = q.get("token").cloned().unwrap_or_default();
                let cookie = format!("guigym_token={}; Path=/dash; HttpOnly; SameSite=Strict", token.replace([';', ',', ' '], ""));
                ([(header::SET_COOKIE, cookie)], Redirect::to("/dash/fleet")).into_response()
            }),
        )
        .with_state(manager)
}

/// Whether a browser request carries the operators' credential: a bearer token, or the
/// cookie `/dash/login` set.
fn operator(creds: &guigym_manager::auth::Credentials, headers: &axum::http::HeaderMap) -> Result<(), Failure> {
    let bearer = guigym_manager::auth::bearer(headers).map(str::to_string);
    let cookie = headers
        .get(header::COOKIE)
        .and_then(|v| v.to_str().ok())
        .and_then(|c| c.split(';').find_map(|kv| kv.trim().strip_prefix("guigym_token=").map(str::to_string)));
    creds
        .check(guigym_manager::auth::Role::Operator, bearer.or(cookie).as_deref())
        .map_err(|e| fail(e.status, format!("{} — sign in at /dash/login?token=OPERATOR_TOKEN", e.message)))
}

/// The store's pages (and playing by hand) behind the operators' credential, as `guigym serve
/// --store` mounts them.
pub fn guarded_store_routes(dash: Dash, creds: Arc<guigym_manager::auth::Credentials>) -> Router {
    let pages = routes(dash.clone()).merge(play_router(Arc::new(Play::new(dash))));
    pages.layer(axum::middleware::from_fn(move |req: axum::extract::Request, next: axum::middleware::Next| {
        let creds = creds.clone();
        async move {
            match operator(&creds, req.headers()) {
                Ok(()) => next.run(req).await,
                Err(e) => e.into_response(),
            }
        }
    }))
}

async fn fleet(
    State(m): State<Arc<guigym_manager::Manager>>,
    axum::Extension(creds): axum::Extension<Arc<guigym_manager::auth::Credentials>>,
    headers: axum::http::HeaderMap,
) -> Page {
    operator(&creds, &headers)?;
    let mut body = String::from("<h2>instances</h2><table><tr>");
    let gauges = m.gauges();
    for (state, _) in &gauges {
        let _ = write!(body, "<th>{}</th>", esc(state));
    }
    body.push_str("<th>leases</th></tr><tr>");
    for (_, v) in &gauges {
        let _ = write!(body, "<td>{v}</td>");
    }
    let _ = write!(body, "<td>{}</td></tr></table>", m.active_leases());
    body.push_str("<h2>workers</h2><table><tr><th>worker</th><th>address</th><th>alive</th><th>local</th><th>capacity</th><th>instances</th><th>leased</th><th>ready</th><th>seen</th></tr>");
    for w in m.workers() {
        let ready: usize = w.status.ready.values().sum();
        let _ = write!(
            body,
            "<tr><td>{}</td><td>{}</td><td class={}>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{ready}</td><td>{:.1} s ago</td></tr>",
            esc(&w.id),
            esc(&w.data_url),
            if w.alive { "ok" } else { "bad" },
            if w.alive { "alive" } else { "lost" },
            w.local,
            w.status.capacity,
            w.status.instances,
            w.status.leased,
            w.seconds_since_seen
        );
    }
    body.push_str("</table><h2>warm targets</h2><ul>");
    for (spec, n) in &m.config.warm {
        let _ = write!(body, "<li>{} × {n}</li>", esc(&spec.key()));
    }
    body.push_str("</ul>");
    body.push_str(&fleet_history(&m.metrics.history(std::time::Instant::now())));
    let _ = write!(body, "<h2>counters and latencies</h2><pre>{}</pre><script>setTimeout(()=>location.reload(),5000)</script>", esc(&m.metrics.render(&[])));
    Ok(Html(page("guigym · fleet", &body)))
}

/// The manager's recent figures as plots over time (x: seconds since the manager started):
/// per operation its mean and p99 latency and its rate, and infrastructure failures.
fn fleet_history(history: &[guigym_manager::metrics::Interval]) -> String {
    if history.is_empty() {
        return "<h2>over time</h2><p>no snapshot yet</p>".into();
    }
    /// One figure of an operation over an interval of so many seconds.
    type Figure = dyn Fn(&guigym_manager::metrics::OpFigures, f64) -> f64;
    let ops: std::collections::BTreeSet<&String> = history.iter().flat_map(|i| i.ops.keys()).collect();
    let series = |figure: &Figure| -> Vec<(String, Vec<(f64, f64)>)> {
        ops.iter()
            .map(|op| {
                let points = history.iter().filter_map(|i| i.ops.get(*op).map(|f| (i.end_secs, figure(f, i.seconds)))).filter(|(_, y)| y.is_finite()).collect();
                (op.to_string(), points)
            })
            .collect()
    };
    let top = |s: &[(String, Vec<(f64, f64)>)]| s.iter().flat_map(|(_, p)| p.iter().map(|(_, y)| *y)).fold(0.0f64, f64::max);
    let mut out = String::from("<h2>over time</h2>");
    let plots: [(&str, &Figure); 3] = [
        ("mean latency (ms)", &|f, _| f.mean_ms),
        // Above the histogram's last bucket the bound is unknown: drawn at that bucket (5 s).
        ("p99 latency (ms, bucket bound; above 5 s drawn at 5 s)", &|f, _| f.p99_ms.min(guigym_manager::metrics::LAST_BUCKET_MS)),
        ("operations per second", &|f, secs| f.count as f64 / secs.max(1e-9)),
    ];
    for (title, figure) in plots {
        let s = series(figure);
        let _ = write!(out, "<h3>{}</h3>{}", esc(title), plot(&s, (0.0, top(&s).max(1e-9)), 180.0, "seconds"));
    }
    let failures = vec![
        ("infra failures".to_string(), history.iter().map(|i| (i.end_secs, i.infra_failures as f64)).collect::<Vec<_>>()),
        ("quarantined".to_string(), history.iter().map(|i| (i.end_secs, i.quarantined as f64)).collect()),
    ];
    let _ = write!(out, "<h3>infra failures and quarantines per interval</h3>{}", plot(&failures, (0.0, top(&failures).max(1.0)), 120.0, "seconds"));
    out
}

/// Playing a task by hand: an instance in this process, driven from the browser. Each
/// episode is stored as a run with policy `human` (kind `play`), its steps with their
/// screenshots, so `collect` and the pages above treat it like any other.
pub struct Play {
    dash: Dash,
    sessions: tokio::sync::Mutex<BTreeMap<String, Session>>,
}

/// How long a game may sit without an action before its instance is released and its run
/// closed as abandoned.
const PLAY_IDLE: std::time::Duration = std::time::Duration::from_secs(15 * 60);
/// Games in play at once: each holds a live instance (a browser page, a desktop).
const PLAY_MAX: usize = 8;

struct Session {
    /// The game's instance; ended (and dropped, with its processes) once the game is over.
    env: Option<Box<dyn guigym_core::Env>>,
    last_active: std::time::Instant,
    task: guigym_core::TaskSpec,
    run_id: i64,
    attempt_id: i64,
    trajectory_id: String,
    steps: Vec<guigym_core::Step>,
    feedback: String,
    done: Option<guigym_core::Verdict>,
}

fn play_router(play: Arc<Play>) -> Router {
    Router::new()
        .route("/dash/play", get(play_pick))
        .route("/dash/play/start", get(play_start))
        .route("/dash/play/{sid}", get(play_page))
        .route("/dash/play/{sid}/screen.png", get(play_screen))
        .route("/dash/play/{sid}/act", axum::routing::post(play_act))
        .with_state(play)
}

#[derive(Deserialize)]
struct PickQuery {
    suite: Option<String>,
}

async fn play_pick(State(play): State<Arc<Play>>, Query(q): Query<PickQuery>) -> Page {
    let catalogue = &play.dash.catalogue;
    let suite = q.suite.unwrap_or_else(|| "smoke".into());
    let (_, tasks) = catalogue.suite(&suite).map_err(|e| fail(StatusCode::NOT_FOUND, e))?;
    let suites: Vec<String> = catalogue.benchmarks().iter().flat_map(|b| b.suites()).collect();
    let mut body = format!(
        "<form>suite <select name=suite>{}</select> <button>list</button></form><table><tr><th>task</th><th>instruction</th></tr>",
        suites.iter().map(|s| format!("<option{}>{}</option>", if *s == suite { " selected" } else { "" }, esc(s))).collect::<String>()
    );
    for t in tasks {
        let _ = write!(body, "<tr><td><a href=\"/dash/play/start?task={}\">{}</a></td><td>{}</td></tr>", esc(&t.id), esc(&t.id), esc(&t.instruction));
    }
    body.push_str("</table>");
    Ok(Html(page("play a task by hand", &body)))
}

#[derive(Deserialize)]
struct StartQuery {
    task: String,
}

impl Play {
    pub fn new(dash: Dash) -> Play {
        Play { dash, sessions: tokio::sync::Mutex::new(BTreeMap::new()) }
    }

    /// Ends every game: instances released (and dropped, with their processes), unfinished
    /// runs closed as abandoned for `reason`.
    pub async fn end_all(&self, reason: &str) {
        let mut sessions = self.sessions.lock().await;
        for (sid, s) in std::mem::take(&mut *sessions) {
            self.end_game(&sid, s, reason).await;
        }
    }

    /// Ends the games nobody has touched for `PLAY_IDLE` (finished ones included): their
    /// instances are released, and an unfinished one's run is closed as abandoned, so no run
    /// stays "running" for ever.
    async fn sweep(&self) {
        let mut sessions = self.sessions.lock().await;
        let idle: Vec<String> = sessions.iter().filter(|(_, s)| s.last_active.elapsed() >= PLAY_IDLE).map(|(k, _)| k.clone()).collect();
        let reason = format!("no action for {} minutes", PLAY_IDLE.as_secs() / 60);
        for sid in idle {
            if let Some(s) = sessions.remove(&sid) {
                self.end_game(&sid, s, &reason).await;
            }
        }
    }

    /// One game taken out of play: its instance released, its run closed as abandoned for
    /// `reason` unless it was finished.
    async fn end_game(&self, sid: &str, mut s: Session, reason: &str) {
        if let Some(mut env) = s.env.take() {
            let _ = env.release().await;
        }
        if s.done.is_none() {
            let report = serde_json::json!({ "attempts": 0, "abandoned": true, "steps": s.steps.len(), "reason": reason });
            if let Err(e) = self.dash.store.finish_run(s.run_id, &report) {
                tracing::warn!("closing game {sid}: {e}");
            }
        }
    }
}

async fn play_start(State(play): State<Arc<Play>>, Query(q): Query<StartQuery>) -> Result<Response, Failure> {
    play.sweep().await;
    if play.sessions.lock().await.values().filter(|s| s.done.is_none()).count() >= PLAY_MAX {
        return Err(fail(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{PLAY_MAX} games are in play; finish one or wait until one sits idle for {} minutes", PLAY_IDLE.as_secs() / 60),
        ));
    }
    let task = play.dash.catalogue.task(&q.task).ok_or_else(|| fail(StatusCode::NOT_FOUND, format!("no task {}", q.task)))?;
    let (backend, provider) = (play.dash.instances)(&task).map_err(|e| fail(StatusCode::SERVICE_UNAVAILABLE, e))?;
    let mut env = provider.create().await.map_err(|e| fail(StatusCode::SERVICE_UNAVAILABLE, e))?;
    env.reset(&task).await.map_err(|e| fail(StatusCode::BAD_REQUEST, e))?;
    let run_id = play.dash.store.create_run("play", &task.id, "human", &backend, &serde_json::json!({ "task": task.id })).map_err(store_error)?;
    let trajectory_id = guigym_rollout::new_trajectory_id();
    let attempt_id = play.dash.store.begin_attempt(run_id, &trajectory_id, &task.id, &task.family, 0, 0).map_err(store_error)?;
    let sid = trajectory_id.clone();
    let session = Session {
        env: Some(env),
        last_active: std::time::Instant::now(),
        task,
        run_id,
        attempt_id,
        trajectory_id,
        steps: Vec::new(),
        feedback: String::new(),
        done: None,
    };
    play.sessions.lock().await.insert(sid.clone(), session);
    Ok(Redirect::to(&format!("/dash/play/{sid}")).into_response())
}

async fn play_page(State(play): State<Arc<Play>>, Path(sid): Path<String>) -> Page {
    let sessions = play.sessions.lock().await;
    let s = sessions.get(&sid).ok_or_else(|| fail(StatusCode::NOT_FOUND, "no such game: start one at /dash/play"))?;
    let mut body = format!(
        "<p><b>instruction</b> {}</p><p class=muted>step {} of {} · {}</p>",
        esc(&s.task.instruction),
        s.steps.len(),
        s.task.step_budget,
        esc(&s.feedback)
    );
    if let Some(v) = &s.done {
        let _ = write!(
            body,
            "<p class={}>{} (score {:.2}) — stored as <a href=\"/dash/attempts/{}\">run {} · the trajectory</a></p>",
            if v.success { "ok" } else { "bad" },
            if v.success { "solved" } else { "not solved" },
            v.score,
            s.attempt_id,
            s.run_id
        );
    } else {
        body.push_str(
            &r#"<div style="display:flex;gap:1em"><img id=screen src="/dash/play/SID/screen.png" style="width:360px;cursor:crosshair;border:1px solid #ddd">
<div><p><button onclick="act({action:'back'})">back</button> <button onclick="act({action:'home'})">home</button>
<button onclick="act({action:'scroll',direction:'down'})">scroll down</button> <button onclick="act({action:'scroll',direction:'up'})">scroll up</button></p>
<p><input id=text size=30> <button onclick="act({action:'type',text:document.getElementById('text').value})">type</button>
<button onclick="act({action:'answer',text:document.getElementById('text').value})">answer</button></p>
<p><button onclick="act({action:'key',keys:['enter']})">enter</button>
<input id=keys size=14 placeholder="ctrl+s"> <button onclick="act({action:'key',keys:document.getElementById('keys').value.split('+').map(k=>k.trim()).filter(k=>k)})">press keys</button></p>
<p><button onclick="act({action:'terminate',status:'success'})">done</button> <button onclick="act({action:'terminate',status:'infeasible'})">impossible</button></p></div></div>
<script>
const img=document.getElementById('screen');
// A desktop's wide screen gets more room than a phone's.
const fit=()=>{img.style.width=(img.naturalWidth>img.naturalHeight?960:360)+'px'};if(img.complete)fit();else img.addEventListener('load',fit);
img.addEventListener('click',e=>{const r=img.getBoundingClientRect();const k=img.naturalWidth/r.width;act({action:'click',at:[Math.round((e.clientX-r.left)*k),Math.round((e.clientY-r.top)*k)]});});
function act(a){fetch('/dash/play/SID/act',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(a)}).then(()=>location.reload());}
</script>"#
                .replace("SID", &esc(&sid)),
        );
    }
    Ok(Html(page(&format!("play · {}", s.task.id), &body)))
}

async fn play_screen(State(play): State<Arc<Play>>, Path(sid): Path<String>) -> Response {
    let mut sessions = play.sessions.lock().await;
    let Some(s) = sessions.get_mut(&sid) else { return (StatusCode::NOT_FOUND, "no such game").into_response() };
    s.last_active = std::time::Instant::now();
    let Some(env) = s.env.as_mut() else { return (StatusCode::CONFLICT, "the game is over").into_response() };
    match env.observe(guigym_core::ObserveOptions { screenshot: true }).await {
        Ok(obs) => ([(header::CONTENT_TYPE, "image/png"), (header::CACHE_CONTROL, "no-store")], obs.screenshot.map(|x| x.png().to_vec()).unwrap_or_default())
            .into_response(),
        Err(e) => (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response(),
    }
}

/// One action from the browser: stored as a step (with the screenshot it was taken on), and
/// at the end (terminate, or the step budget) judged and stored as the attempt.
async fn play_act(State(play): State<Arc<Play>>, Path(sid): Path<String>, body: axum::body::Bytes) -> Response {
    let mut sessions = play.sessions.lock().await;
    let Some(s) = sessions.get_mut(&sid) else { return (StatusCode::NOT_FOUND, "no such game").into_response() };
    s.last_active = std::time::Instant::now();
    let Some(env) = s.env.as_mut().filter(|_| s.done.is_none()) else { return (StatusCode::CONFLICT, "the game is over").into_response() };
    let raw = String::from_utf8_lossy(&body).to_string();
    let action: Option<guigym_core::Action> = serde_json::from_str(&raw).ok();
    let before = match env.observe(guigym_core::ObserveOptions { screenshot: true }).await {
        Ok(o) => o,
        Err(e) => return (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response(),
    };
    let started = std::time::Instant::now();
    let (feedback, invalid, done) = match &action {
        Some(a) => match env.step(a).await {
            Ok(out) => (out.feedback, out.invalid, out.done),
            Err(e) => return (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response(),
        },
        None => (guigym_core::episode::invalid_feedback("not an action"), true, false),
    };
    let png = before.screenshot.as_ref().map(|x| x.png().to_vec());
    let step = guigym_core::Step {
        index: s.steps.len() as u32,
        screenshot: before.screenshot.as_ref().map(|x| x.sha256().to_string()),
        screen: before.screen.clone(),
        raw_output: raw,
        action: action.clone(),
        feedback: Some(feedback.clone()),
        invalid,
        policy_ms: 0.0,
        env_ms: started.elapsed().as_secs_f64() * 1e3,
        harness_ms: 0.0,
        usage: None,
        completion_ids: None,
        logprobs: None,
        weight_version: None,
        endpoint: Some("human".into()),
        prompt: String::new(),
    };
    if let Err(e) = play.dash.store.record_step(s.attempt_id, &step, png.as_deref()) {
        return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response();
    }
    s.steps.push(step);
    s.feedback = feedback;
    if done || s.steps.len() as u32 >= s.task.step_budget {
        let verdict = match env.evaluate().await {
            Ok(v) => v,
            Err(e) => return (StatusCode::SERVICE_UNAVAILABLE, e.to_string()).into_response(),
        };
        let claimed = matches!(action, Some(guigym_core::Action::Terminate { status: guigym_core::TerminateStatus::Success }));
        let attempt = guigym_core::Attempt {
            trajectory_id: s.trajectory_id.clone(),
            task_id: s.task.id.clone(),
            family: s.task.family.clone(),
            attempt_index: 0,
            trajectory: guigym_core::Trajectory { steps: s.steps.clone() },
            verdict: verdict.clone(),
            claimed_success: claimed,
            infra_retries: 0,
            ended_by: None,
        };
        let report = serde_json::json!({ "success_rate": if verdict.success { 1.0 } else { 0.0 }, "attempts": 1 });
        if let Err(e) = play.dash.store.finish_attempt(s.attempt_id, &attempt).and_then(|_| play.dash.store.finish_run(s.run_id, &report)) {
            return (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response();
        }
        let _ = env.release().await;
        // Dropping the instance ends its processes (a desktop's display, a browser).
        s.env = None;
        s.done = Some(verdict);
    }
    (StatusCode::OK, "ok").into_response()
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use guigym_manager::auth::Credentials;

    use super::*;
    use crate::testing::{request, send_text, SECRETS};

    /// A dashboard over a fresh store in which one run played `secret/0` and a task no
    /// benchmark here has; playing by hand finds no instances ("no backend here").
    fn dashboard(name: &str) -> (Dash, i64, i64) {
        let dir = std::env::temp_dir().join(format!("guigym-dash-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Arc::new(Store::open(&dir).unwrap());
        let run = store.create_run("eval", "secrets:smoke", "golden", "sim", &serde_json::json!({})).unwrap();
        let known = store.begin_attempt(run, "t-known", "secret/0", "secret", 0, 0).unwrap();
        let unknown = store.begin_attempt(run, "t-unknown", "gone/0", "gone", 1, 0).unwrap();
        let catalogue = Arc::new(Catalogue::new(vec![&SECRETS], |_| vec!["sim".into()]));
        let instances: Instances = Arc::new(|task: &TaskSpec| Err(format!("no backend here for {}", task.id)));
        (Dash { store, catalogue, instances }, known, unknown)
    }

    async fn get(router: &Router, path: &str, token: Option<&str>) -> (StatusCode, String) {
        send_text(router, request("GET", path, token).body(Body::empty()).unwrap()).await
    }

    #[tokio::test]
    async fn pages_read_the_store_and_tasks_come_from_the_catalogue() {
        let (dash, known, unknown) = dashboard("pages");
        let (app, _play) = app(dash);
        let (code, runs) = get(&app, "/dash", None).await;
        assert_eq!(code, StatusCode::OK, "{runs}");
        assert!(runs.contains("href=\"/dash/runs/1\"") && runs.contains("secrets:smoke"), "{runs}");
        let (code, page) = get(&app, &format!("/dash/attempts/{known}"), None).await;
        assert_eq!(code, StatusCode::OK, "{page}");
        assert!(page.contains("Say the word."), "the instruction is the catalogue's: {page}");
        // The operator's page shows what the task hides (the store's pages are the operator's).
        assert!(page.contains("hidden-answer"), "{page}");
        let (_, page) = get(&app, &format!("/dash/attempts/{unknown}"), None).await;
        assert!(page.contains("not in this binary"), "{page}");
        assert_eq!(get(&app, "/dash/attempts/999", None).await.0, StatusCode::NOT_FOUND);
        assert_eq!(get(&app, "/dash/runs/abc", None).await.0, StatusCode::BAD_REQUEST);
    }

    #[tokio::test]
    async fn playing_by_hand_lists_the_catalogues_suites_and_says_why_no_instance_runs() {
        let (dash, _, _) = dashboard("play");
        let (app, play) = app(dash);
        let (code, pick) = get(&app, "/dash/play?suite=secrets:smoke", None).await;
        assert_eq!(code, StatusCode::OK, "{pick}");
        assert!(pick.contains("secret/0") && pick.contains("secret/1"), "{pick}");
        assert_eq!(get(&app, "/dash/play?suite=nope", None).await.0, StatusCode::NOT_FOUND);
        let (code, refused) = get(&app, "/dash/play/start?task=secret/0", None).await;
        assert_eq!(code, StatusCode::SERVICE_UNAVAILABLE, "{refused}");
        assert!(refused.contains("no backend here for secret/0"), "{refused}");
        assert_eq!(get(&app, "/dash/play/start?task=nope/0", None).await.0, StatusCode::NOT_FOUND);
        assert_eq!(get(&app, "/dash/play/no-such-game", None).await.0, StatusCode::NOT_FOUND);
        play.end_all("the test ended").await;
    }

    #[tokio::test]
    async fn the_guarded_pages_ask_for_the_operators_credential() {
        let (dash, _, _) = dashboard("guarded");
        let creds = Arc::new(Credentials { operator: Some("op".into()), ..Credentials::open() });
        let app = guarded_store_routes(dash, creds);
        for path in ["/dash", "/dash/play"] {
            assert_eq!(get(&app, path, None).await.0, StatusCode::UNAUTHORIZED, "{path}");
            assert_eq!(get(&app, path, Some("wrong")).await.0, StatusCode::UNAUTHORIZED, "{path}");
            assert_eq!(get(&app, path, Some("op")).await.0, StatusCode::OK, "{path}");
        }
        let cookie = request("GET", "/dash", None).header("cookie", "guigym_token=op").body(Body::empty()).unwrap();
        assert_eq!(send_text(&app, cookie).await.0, StatusCode::OK);
    }

    #[test]
    fn plots_and_figures_stay_finite_and_short_at_the_extremes() {
        let svg = plot(&[("kl".into(), vec![(0.0, 1e308), (1.0, -1e308)])], (-1e308, 1e308), 120.0, "round");
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        assert!(svg.len() < 2000, "no 309-digit labels: {svg}");
        assert_eq!(figure(1e308), "1.000e308");
        assert_eq!(figure(0.0004), "4.00e-4");
        assert_eq!(figure(12.0), "12");
        assert!(plot(&[("one".into(), vec![(1.0, 0.5)])], (0.0, 1.0), 120.0, "round").contains("<circle"), "a lone point is a dot");
    }
}
