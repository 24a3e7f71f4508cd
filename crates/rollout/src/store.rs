//! The store: one SQLite file (WAL) per store folder, plus a content-addressed blob folder
//! for screenshots. Runs, attempts and steps are written as they happen, so a crash loses at
//! most the step in flight.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use guigym_core::{Attempt, Step};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::attempt::Recorder;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store database {path}: {source}")]
    Sqlite { path: String, source: rusqlite::Error },
    #[error("store folder {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("no run with id {0}")]
    NoRun(i64),
}

pub struct Store {
    db: Mutex<Connection>,
    path: PathBuf,
    blobs: PathBuf,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    suite TEXT NOT NULL,
    policy TEXT NOT NULL,
    backend TEXT NOT NULL,
    config TEXT NOT NULL,
    started_at REAL NOT NULL,
    finished_at REAL,
    report TEXT
);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    task_id TEXT NOT NULL,
    family TEXT NOT NULL,
    attempt_index INTEGER NOT NULL,
    try INTEGER NOT NULL,
    status TEXT NOT NULL,
    score REAL,
    success INTEGER,
    claimed_success INTEGER,
    verdict TEXT,
    error TEXT,
    started_at REAL NOT NULL,
    finished_at REAL
);
CREATE INDEX IF NOT EXISTS attempts_run ON attempts(run_id);
CREATE TABLE IF NOT EXISTS steps (
    attempt_id INTEGER NOT NULL REFERENCES attempts(id),
    idx INTEGER NOT NULL,
    screen TEXT NOT NULL,
    screenshot TEXT,
    raw_output TEXT NOT NULL,
    action TEXT,
    feedback TEXT,
    invalid INTEGER NOT NULL,
    policy_ms REAL NOT NULL,
    env_ms REAL NOT NULL,
    harness_ms REAL NOT NULL,
    usage TEXT,
    tokens TEXT,
    endpoint TEXT,
    prompt TEXT NOT NULL,
    PRIMARY KEY (attempt_id, idx)
);
CREATE TABLE IF NOT EXISTS train_runs (
    name TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    started_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS train_rounds (
    name TEXT NOT NULL,
    round INTEGER NOT NULL,
    stats TEXT NOT NULL,
    PRIMARY KEY (name, round)
);
CREATE TABLE IF NOT EXISTS task_stats (
    name TEXT NOT NULL,
    task_id TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    successes INTEGER NOT NULL,
    PRIMARY KEY (name, task_id)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    run_id INTEGER,
    attempt_id INTEGER,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    at REAL NOT NULL
);
";

/// Columns added after a store was first written: stores from earlier versions get them.
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('attempts')")?;
    let columns: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    for (column, kind) in [("trajectory_id", "TEXT"), ("ended_by", "TEXT"), ("tokens", "TEXT")] {
        if !columns.iter().any(|c| c == column) {
            conn.execute_batch(&format!("ALTER TABLE attempts ADD COLUMN {column} {kind}"))?;
        }
    }
    conn.execute_batch("CREATE UNIQUE INDEX IF NOT EXISTS attempts_trajectory ON attempts(trajectory_id)")
}

fn now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    pub id: i64,
    pub kind: String,
    pub suite: String,
    pub policy: String,
    pub backend: String,
    pub started_at: f64,
    pub finished_at: Option<f64>,
    pub attempts: i64,
    pub successes: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct StoredStep {
    pub task_id: String,
    pub attempt_index: u32,
    pub index: u32,
    /// The parsed action as canonical JSON; `None` when the output could not be parsed.
    pub action: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunDetail {
    pub run: RunRow,
    pub config: serde_json::Value,
    pub report: Option<serde_json::Value>,
    pub steps: i64,
    pub infra_failures: i64,
    /// Tokens over the run's scored attempts, and per family.
    pub tokens: crate::report::TokenTotals,
    pub tokens_by_family: std::collections::BTreeMap<String, crate::report::TokenTotals>,
}

/// Where an opaque trajectory id leads.
#[derive(Debug, Clone, Serialize)]
pub struct TrajectoryRow {
    pub trajectory_id: String,
    pub run_id: i64,
    pub task_id: String,
    pub family: String,
    pub attempt_index: u32,
    pub try_: u32,
    pub status: String,
}

impl Store {
    /// Opens (or creates) the store in a folder.
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let io = |source| StoreError::Io { path: dir.display().to_string(), source };
        std::fs::create_dir_all(dir.join("blobs")).map_err(io)?;
        let path = dir.join("guigym.sqlite");
        let sql = |source| StoreError::Sqlite { path: path.display().to_string(), source };
        let conn = Connection::open(&path).map_err(sql)?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(sql)?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(sql)?;
        conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(sql)?;
        conn.execute_batch(SCHEMA).map_err(sql)?;
        migrate(&conn).map_err(sql)?;
        Ok(Store { db: Mutex::new(conn), blobs: dir.join("blobs"), path })
    }

    fn err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Sqlite { path: self.path.display().to_string(), source }
    }

    fn with<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        let conn = self.db.lock().unwrap_or_else(|p| p.into_inner());
        f(&conn).map_err(|e| self.err(e))
    }

    pub fn create_run(&self, kind: &str, suite: &str, policy: &str, backend: &str, config: &serde_json::Value) -> Result<i64, StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO runs (kind, suite, policy, backend, config, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![kind, suite, policy, backend, config.to_string(), now()],
            )?;
            Ok(c.last_insert_rowid())
        })
    }

    pub fn finish_run(&self, run_id: i64, report: &serde_json::Value) -> Result<(), StoreError> {
        self.with(|c| c.execute("UPDATE runs SET finished_at = ?1, report = ?2 WHERE id = ?3", params![now(), report.to_string(), run_id]).map(|_| ()))
    }

    /// Starts a try of an attempt under its opaque trajectory id (what model servers see);
    /// the store is where that id maps back to run, task and attempt.
    pub fn begin_attempt(&self, run_id: i64, trajectory_id: &str, task_id: &str, family: &str, attempt_index: u32, try_: u32) -> Result<i64, StoreError> {
        self.with(|c| {
            c.execute(
                "INSERT INTO attempts (run_id, trajectory_id, task_id, family, attempt_index, try, status, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7)",
                params![run_id, trajectory_id, task_id, family, attempt_index, try_, now()],
            )?;
            Ok(c.last_insert_rowid())
        })
    }

    pub fn finish_attempt(&self, attempt_id: i64, attempt: &Attempt) -> Result<(), StoreError> {
        let verdict = serde_json::to_string(&attempt.verdict).unwrap_or_default();
        let tokens = crate::report::TokenTotals::of(&attempt.trajectory.steps);
        let tokens = serde_json::to_string(&tokens).unwrap_or_default();
        self.with(|c| {
            c.execute(
                "UPDATE attempts SET status = 'done', score = ?1, success = ?2, claimed_success = ?3, verdict = ?4, finished_at = ?5,
                        ended_by = ?6, tokens = ?7 WHERE id = ?8",
                params![attempt.verdict.score, attempt.verdict.success, attempt.claimed_success, verdict, now(), attempt.ended_by, tokens, attempt_id],
            )
            .map(|_| ())
        })
    }

    /// Marks a try as an infrastructure failure (it will be re-run, never scored).
    pub fn fail_attempt(&self, run_id: i64, attempt_id: i64, error: &str) -> Result<(), StoreError> {
        self.with(|c| {
            c.execute("UPDATE attempts SET status = 'infra', error = ?1, finished_at = ?2 WHERE id = ?3", params![error, now(), attempt_id])?;
            c.execute(
                "INSERT INTO events (run_id, attempt_id, kind, detail, at) VALUES (?1, ?2, 'infra_failure', ?3, ?4)",
                params![run_id, attempt_id, error, now()],
            )
            .map(|_| ())
        })
    }

    pub fn record_step(&self, attempt_id: i64, step: &Step, png: Option<&[u8]>) -> Result<(), StoreError> {
        if let (Some(hash), Some(png)) = (&step.screenshot, png) {
            self.put_blob(hash, png)?;
        }
        let action = step.action.as_ref().map(|a| a.to_json());
        let usage = step.usage.as_ref().map(|u| serde_json::to_string(u).unwrap_or_default());
        let tokens = (step.completion_ids.is_some() || step.logprobs.is_some())
            .then(|| serde_json::json!({ "completion_ids": step.completion_ids, "logprobs": step.logprobs }).to_string());
        self.with(|c| {
            c.execute(
                "INSERT OR REPLACE INTO steps (attempt_id, idx, screen, screenshot, raw_output, action, feedback, invalid, policy_ms, env_ms,
                                               harness_ms, usage, tokens, endpoint, prompt)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                params![
                    attempt_id,
                    step.index,
                    step.screen,
                    step.screenshot,
                    step.raw_output,
                    action,
                    step.feedback,
                    step.invalid,
                    step.policy_ms,
                    step.env_ms,
                    step.harness_ms,
                    usage,
                    tokens,
                    step.endpoint,
                    step.prompt
                ],
            )
            .map(|_| ())
        })
    }

    /// Writes a screenshot once, named by its hash. Safe when several attempts store the same
    /// screen at once: each writes its own temporary file, and the first rename wins.
    pub fn put_blob(&self, hash: &str, bytes: &[u8]) -> Result<(), StoreError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let dir = self.blobs.join(&hash[..2.min(hash.len())]);
        let path = dir.join(format!("{hash}.png"));
        if path.exists() {
            return Ok(());
        }
        let io = |source| StoreError::Io { path: path.display().to_string(), source };
        std::fs::create_dir_all(&dir).map_err(io)?;
        // Write then rename, so a crash never leaves a half blob under the final name.
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!("{hash}.tmp{}-{n}", std::process::id()));
        std::fs::write(&tmp, bytes).map_err(io)?;
        match std::fs::rename(&tmp, &path) {
            Ok(()) => Ok(()),
            Err(_) if path.exists() => {
                let _ = std::fs::remove_file(&tmp);
                Ok(())
            }
            Err(e) => Err(io(e)),
        }
    }

    pub fn blob_path(&self, hash: &str) -> PathBuf {
        self.blobs.join(&hash[..2.min(hash.len())]).join(format!("{hash}.png"))
    }

    pub fn list_runs(&self) -> Result<Vec<RunRow>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare(
                "SELECT r.id, r.kind, r.suite, r.policy, r.backend, r.started_at, r.finished_at,
                        (SELECT COUNT(*) FROM attempts a WHERE a.run_id = r.id AND a.status = 'done'),
                        (SELECT COUNT(*) FROM attempts a WHERE a.run_id = r.id AND a.success = 1)
                 FROM runs r ORDER BY r.id",
            )?;
            let rows = stmt.query_map([], row_to_run)?;
            rows.collect()
        })
    }

    pub fn show_run(&self, id: i64) -> Result<RunDetail, StoreError> {
        let found = self.with(|c| {
            c.query_row(
                "SELECT r.id, r.kind, r.suite, r.policy, r.backend, r.started_at, r.finished_at,
                        (SELECT COUNT(*) FROM attempts a WHERE a.run_id = r.id AND a.status = 'done'),
                        (SELECT COUNT(*) FROM attempts a WHERE a.run_id = r.id AND a.success = 1),
                        r.config, r.report,
                        (SELECT COUNT(*) FROM steps s JOIN attempts a ON s.attempt_id = a.id WHERE a.run_id = r.id),
                        (SELECT COUNT(*) FROM attempts a WHERE a.run_id = r.id AND a.status = 'infra')
                 FROM runs r WHERE r.id = ?1",
                [id],
                |row| {
                    let run = row_to_run(row)?;
                    let config: String = row.get(9)?;
                    let report: Option<String> = row.get(10)?;
                    Ok(RunDetail {
                        run,
                        config: serde_json::from_str(&config).unwrap_or(serde_json::Value::Null),
                        report: report.and_then(|r| serde_json::from_str(&r).ok()),
                        steps: row.get(11)?,
                        infra_failures: row.get(12)?,
                        tokens: Default::default(),
                        tokens_by_family: Default::default(),
                    })
                },
            )
            .optional()
        })?;
        let mut detail = found.ok_or(StoreError::NoRun(id))?;
        let rows: Vec<(String, Option<String>)> = self.with(|c| {
            let mut stmt = c.prepare("SELECT family, tokens FROM attempts WHERE run_id = ?1 AND status = 'done'")?;
            let rows = stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect()
        })?;
        for (family, tokens) in rows {
            let t: crate::report::TokenTotals = tokens.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
            for total in [&mut detail.tokens, detail.tokens_by_family.entry(family).or_default()] {
                total.merge(&t);
            }
        }
        Ok(detail)
    }

    /// The run, task and attempt behind an opaque trajectory id.
    pub fn find_trajectory(&self, trajectory_id: &str) -> Result<Option<TrajectoryRow>, StoreError> {
        self.with(|c| {
            c.query_row(
                "SELECT trajectory_id, run_id, task_id, family, attempt_index, try, status FROM attempts WHERE trajectory_id = ?1",
                [trajectory_id],
                |r| {
                    Ok(TrajectoryRow {
                        trajectory_id: r.get(0)?,
                        run_id: r.get(1)?,
                        task_id: r.get(2)?,
                        family: r.get(3)?,
                        attempt_index: r.get(4)?,
                        try_: r.get(5)?,
                        status: r.get(6)?,
                    })
                },
            )
            .optional()
        })
    }

    /// The steps stored for one run's scored attempts, in order.
    pub fn steps_of_run(&self, run_id: i64) -> Result<Vec<StoredStep>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare(
                "SELECT a.task_id, a.attempt_index, s.idx, s.action FROM steps s JOIN attempts a ON s.attempt_id = a.id
                 WHERE a.run_id = ?1 AND a.status = 'done' ORDER BY a.task_id, a.attempt_index, s.idx",
            )?;
            let rows = stmt.query_map([run_id], |r| Ok(StoredStep { task_id: r.get(0)?, attempt_index: r.get(1)?, index: r.get(2)?, action: r.get(3)? }))?;
            rows.collect()
        })
    }
}

impl Store {
    /// Registers a training run; false when one of that name exists already.
    pub fn create_train_run(&self, name: &str, config: &serde_json::Value) -> Result<bool, StoreError> {
        self.with(|c| {
            let n = c.execute("INSERT OR IGNORE INTO train_runs (name, config, started_at) VALUES (?1, ?2, ?3)", params![name, config.to_string(), now()])?;
            Ok(n == 1)
        })
    }

    /// Records a finished round and the running task statistics, in one transaction, so a
    /// resumed run starts from a consistent point.
    pub fn finish_train_round(&self, name: &str, round: u32, stats: &serde_json::Value, tasks: &[(String, u64, u64)]) -> Result<(), StoreError> {
        let mut conn = self.db.lock().unwrap_or_else(|p| p.into_inner());
        let tx = conn.transaction().map_err(|e| self.err(e))?;
        tx.execute("INSERT OR REPLACE INTO train_rounds (name, round, stats) VALUES (?1, ?2, ?3)", params![name, round, stats.to_string()])
            .map_err(|e| self.err(e))?;
        for (task, attempts, successes) in tasks {
            tx.execute(
                "INSERT OR REPLACE INTO task_stats (name, task_id, attempts, successes) VALUES (?1, ?2, ?3, ?4)",
                params![name, task, attempts, successes],
            )
            .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// Rounds finished so far, in order.
    pub fn train_rounds(&self, name: &str) -> Result<Vec<(u32, serde_json::Value)>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare("SELECT round, stats FROM train_rounds WHERE name = ?1 ORDER BY round")?;
            let rows = stmt.query_map([name], |r| {
                let stats: String = r.get(1)?;
                Ok((r.get::<_, u32>(0)?, serde_json::from_str(&stats).unwrap_or(serde_json::Value::Null)))
            })?;
            rows.collect()
        })
    }

    pub fn task_stats(&self, name: &str) -> Result<Vec<(String, u64, u64)>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare("SELECT task_id, attempts, successes FROM task_stats WHERE name = ?1")?;
            let rows = stmt.query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect()
        })
    }

    /// Every step of a run's scored attempts, with what the policy said and used.
    pub fn step_details(&self, run_id: i64) -> Result<Vec<serde_json::Value>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare(
                "SELECT a.task_id, a.attempt_index, s.idx, s.screen, s.raw_output, s.action, s.feedback, s.invalid,
                        s.policy_ms, s.env_ms, s.harness_ms, s.usage, s.endpoint, a.trajectory_id
                 FROM steps s JOIN attempts a ON s.attempt_id = a.id
                 WHERE a.run_id = ?1 AND a.status = 'done' ORDER BY a.task_id, a.attempt_index, s.idx",
            )?;
            let rows = stmt.query_map([run_id], |r| {
                let json = |i: usize| -> rusqlite::Result<serde_json::Value> {
                    let t: Option<String> = r.get(i)?;
                    Ok(t.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(serde_json::Value::Null))
                };
                Ok(serde_json::json!({
                    "task_id": r.get::<_, String>(0)?,
                    "attempt_index": r.get::<_, u32>(1)?,
                    "index": r.get::<_, u32>(2)?,
                    "screen": r.get::<_, String>(3)?,
                    "raw_output": r.get::<_, String>(4)?,
                    "action": json(5)?,
                    "feedback": r.get::<_, Option<String>>(6)?,
                    "invalid": r.get::<_, bool>(7)?,
                    "policy_ms": r.get::<_, f64>(8)?,
                    "env_ms": r.get::<_, f64>(9)?,
                    "harness_ms": r.get::<_, f64>(10)?,
                    "usage": json(11)?,
                    "endpoint": r.get::<_, Option<String>>(12)?,
                    "trajectory_id": r.get::<_, Option<String>>(13)?,
                }))
            })?;
            rows.collect()
        })
    }
}

fn row_to_run(row: &rusqlite::Row<'_>) -> rusqlite::Result<RunRow> {
    Ok(RunRow {
        id: row.get(0)?,
        kind: row.get(1)?,
        suite: row.get(2)?,
        policy: row.get(3)?,
        backend: row.get(4)?,
        started_at: row.get(5)?,
        finished_at: row.get(6)?,
        attempts: row.get(7)?,
        successes: row.get(8)?,
    })
}

/// Writes one attempt's steps into the store as they happen.
pub struct StoreRecorder<'a> {
    pub store: &'a Store,
    pub attempt_id: i64,
    /// The first write error, reported once the attempt ends.
    pub error: Option<StoreError>,
}

impl Recorder for StoreRecorder<'_> {
    fn step(&mut self, step: &Step, png: Option<&[u8]>) {
        if let Err(e) = self.store.record_step(self.attempt_id, step, png) {
            tracing::error!(attempt = self.attempt_id, error = %e, "could not store step");
            self.error.get_or_insert(e);
        }
    }
}

/// One attempt as the dashboard lists it.
#[derive(Debug, Clone, Serialize)]
pub struct AttemptRow {
    pub id: i64,
    pub run_id: i64,
    pub trajectory_id: Option<String>,
    pub task_id: String,
    pub family: String,
    pub attempt_index: u32,
    pub try_: u32,
    /// `done` (scored), `infra` (a try lost to infrastructure), `running`.
    pub status: String,
    pub score: Option<f64>,
    pub success: Option<bool>,
    pub claimed_success: Option<bool>,
    pub verdict: serde_json::Value,
    pub error: Option<String>,
    pub ended_by: Option<String>,
    pub tokens: serde_json::Value,
    pub steps: i64,
    pub invalid_steps: i64,
    pub seconds: Option<f64>,
}

/// One stored step, whole.
#[derive(Debug, Clone, Serialize)]
pub struct StepRow {
    pub index: u32,
    pub screen: String,
    /// The screenshot's hash (its PNG is `blob_path(hash)`).
    pub screenshot: Option<String>,
    pub raw_output: String,
    pub action: serde_json::Value,
    pub feedback: Option<String>,
    pub invalid: bool,
    pub policy_ms: f64,
    pub env_ms: f64,
    pub harness_ms: f64,
    pub usage: serde_json::Value,
    pub endpoint: Option<String>,
}

fn json_col(t: Option<String>) -> serde_json::Value {
    t.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(serde_json::Value::Null)
}

const ATTEMPT_COLUMNS: &str = "a.id, a.run_id, a.trajectory_id, a.task_id, a.family, a.attempt_index, a.try, a.status, a.score, a.success,
    a.claimed_success, a.verdict, a.error, a.ended_by, a.tokens,
    (SELECT COUNT(*) FROM steps s WHERE s.attempt_id = a.id), (SELECT COUNT(*) FROM steps s WHERE s.attempt_id = a.id AND s.invalid = 1),
    a.finished_at - a.started_at";

fn row_to_attempt(r: &rusqlite::Row<'_>) -> rusqlite::Result<AttemptRow> {
    Ok(AttemptRow {
        id: r.get(0)?,
        run_id: r.get(1)?,
        trajectory_id: r.get(2)?,
        task_id: r.get(3)?,
        family: r.get(4)?,
        attempt_index: r.get(5)?,
        try_: r.get(6)?,
        status: r.get(7)?,
        score: r.get(8)?,
        success: r.get(9)?,
        claimed_success: r.get(10)?,
        verdict: json_col(r.get(11)?),
        error: r.get(12)?,
        ended_by: r.get(13)?,
        tokens: json_col(r.get(14)?),
        steps: r.get(15)?,
        invalid_steps: r.get(16)?,
        seconds: r.get(17)?,
    })
}

impl Store {
    /// Every attempt of a run (every try, scored or not), in order.
    pub fn attempts_of_run(&self, run_id: i64) -> Result<Vec<AttemptRow>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare(&format!("SELECT {ATTEMPT_COLUMNS} FROM attempts a WHERE a.run_id = ?1 ORDER BY a.task_id, a.attempt_index, a.try"))?;
            let rows = stmt.query_map([run_id], row_to_attempt)?;
            rows.collect()
        })
    }

    pub fn attempt(&self, attempt_id: i64) -> Result<Option<AttemptRow>, StoreError> {
        self.with(|c| c.query_row(&format!("SELECT {ATTEMPT_COLUMNS} FROM attempts a WHERE a.id = ?1"), [attempt_id], row_to_attempt).optional())
    }

    /// An attempt's steps, in order.
    pub fn attempt_steps(&self, attempt_id: i64) -> Result<Vec<StepRow>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare(
                "SELECT idx, screen, screenshot, raw_output, action, feedback, invalid, policy_ms, env_ms, harness_ms, usage, endpoint
                 FROM steps WHERE attempt_id = ?1 ORDER BY idx",
            )?;
            let rows = stmt.query_map([attempt_id], |r| {
                Ok(StepRow {
                    index: r.get(0)?,
                    screen: r.get(1)?,
                    screenshot: r.get(2)?,
                    raw_output: r.get(3)?,
                    action: json_col(r.get(4)?),
                    feedback: r.get(5)?,
                    invalid: r.get(6)?,
                    policy_ms: r.get(7)?,
                    env_ms: r.get(8)?,
                    harness_ms: r.get(9)?,
                    usage: json_col(r.get(10)?),
                    endpoint: r.get(11)?,
                })
            })?;
            rows.collect()
        })
    }

    /// The attempts of a run whose model output mentions `text` (case-insensitive).
    pub fn attempts_mentioning(&self, run_id: i64, text: &str) -> Result<Vec<i64>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare(
                "SELECT DISTINCT a.id FROM attempts a JOIN steps s ON s.attempt_id = a.id WHERE a.run_id = ?1 AND instr(lower(s.raw_output), lower(?2)) > 0",
            )?;
            let rows = stmt.query_map(params![run_id, text], |r| r.get(0))?;
            rows.collect()
        })
    }

    /// The names of the training runs, in the order they started.
    pub fn train_runs(&self) -> Result<Vec<String>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare("SELECT name FROM train_runs ORDER BY started_at")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect()
        })
    }
}
