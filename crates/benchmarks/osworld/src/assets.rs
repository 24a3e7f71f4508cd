//! The files OSWorld's tasks download, fetched into OSWorld's cache layout so that the tasks
//! import and run offline: a `download` set-up step's file at `<cache>/<task id>/<uuid5 of
//! its URL>_<file name>`, a `cloud_file` getter's at `<cache>/<task id>/<dest>`.
//!
//! Fetching is resumable (a partial `.part` file is continued with an HTTP range request
//! when the server confirms, by `If-Range`, that the file is the version the part began; a
//! finished file is not fetched again) and every file's SHA-256 is recorded in
//! `<cache>/guigym-assets.json`, so a file that changed on disk since is fetched again. One
//! URL named by several tasks is fetched once and copied.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Digest as _;

use crate::runner::uuid5_url;
use crate::task::OsWorldTask;

/// Where the record of fetched files is kept, in the cache folder.
pub const MANIFEST: &str = "guigym-assets.json";

/// One file a task needs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Asset {
    /// The task's id: the cache's folder for it.
    pub task: String,
    /// The file's name in that folder.
    pub name: String,
    pub url: String,
}

impl Asset {
    pub fn path(&self, cache: &Path) -> PathBuf {
        cache.join(&self.task).join(&self.name)
    }

    fn key(&self) -> String {
        format!("{}/{}", self.task, self.name)
    }
}

/// What the manifest records of one fetched file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    pub url: String,
    pub sha256: String,
    pub bytes: u64,
}

/// Whether a name is one plain file or folder name: a task's id or a file's name from a task
/// file must not reach outside the cache (`../x`, `/etc/x`).
pub fn plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

/// Every asset the task files under `dir` name (each once), and what cannot be fetched: a URL
/// that is not http(s), a name that would leave the cache. Files that are not tasks are left
/// to the importer to report.
pub fn list(dir: &Path) -> Result<(Vec<Asset>, Vec<String>), String> {
    let mut files = Vec::new();
    crate::import::task_files(dir, &mut files)?;
    let mut assets = Vec::new();
    let mut refused = Vec::new();
    for file in files {
        let Ok(text) = crate::import::read_task_file(&file) else { continue };
        let Ok(task) = OsWorldTask::parse(&text) else { continue };
        let named = named(&task);
        // One file, two sources: which one the task means cannot be known, and each run would
        // fetch the other.
        if let Some((url, name)) = named.iter().find(|(u, n)| named.iter().any(|(u2, n2)| n2 == n && u2 != u)) {
            refused.push(format!("{}: {:?} is named for {url} and for another URL", file.display(), name));
            continue;
        }
        for (url, name) in named {
            let asset = Asset { task: task.id.clone(), name, url };
            if !plain_name(&asset.task) || !plain_name(&asset.name) {
                refused.push(format!("{}: {} → {:?} is not a plain file name in a task's folder", file.display(), asset.url, asset.key()));
            } else if !(asset.url.starts_with("http://") || asset.url.starts_with("https://")) {
                refused.push(format!("{}: {} is not an http(s) URL", file.display(), asset.url));
            } else {
                assets.push(asset);
            }
        }
    }
    assets.sort();
    assets.dedup();
    Ok((assets, refused))
}

/// The (URL, cache file name) pairs a task downloads: its set-up and post-config `download`
/// steps and its `cloud_file` getters (one file, or `multi` lists of paths and dests).
fn named(task: &OsWorldTask) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for step in task.config.iter().chain(&task.evaluator.postconfig).filter(|s| s.kind == "download") {
        for f in step.parameters.get("files").and_then(Value::as_array).into_iter().flatten() {
            let (Some(url), Some(path)) = (f.get("url").and_then(Value::as_str), f.get("path").and_then(Value::as_str)) else { continue };
            let base = Path::new(path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            out.push((url.to_string(), format!("{}_{base}", uuid5_url(url))));
        }
    }
    let getters = [&task.evaluator.result, &task.evaluator.expected].into_iter().flatten().flat_map(|g| g.to_vec());
    for getter in getters.filter(|g| g.get("type").and_then(Value::as_str) == Some("cloud_file")) {
        let strings = |k: &str| match getter.get(k) {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) => a.iter().filter_map(|v| v.as_str().map(String::from)).collect(),
            _ => Vec::new(),
        };
        out.extend(strings("path").into_iter().zip(strings("dest")));
    }
    out
}

/// How one asset ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Fetched now (or copied from another task's copy of the same URL).
    Fetched(Recorded),
    /// Already in the cache, as recorded.
    Kept(Recorded),
    Failed(String),
}

/// How fetching behaves.
#[derive(Debug, Clone)]
pub struct Fetch {
    /// Downloads at once.
    pub parallel: usize,
    /// Tries per file (each resumes the last).
    pub tries: u32,
    /// The longest wait for a connection, and for the next bytes of a body.
    pub timeout: Duration,
}

impl Default for Fetch {
    fn default() -> Fetch {
        Fetch { parallel: 4, tries: 3, timeout: Duration::from_secs(60) }
    }
}

fn read_manifest(cache: &Path) -> BTreeMap<String, Recorded> {
    std::fs::read_to_string(cache.join(MANIFEST)).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}

fn write_manifest(cache: &Path, manifest: &BTreeMap<String, Recorded>) -> Result<(), String> {
    let path = cache.join(MANIFEST);
    let part = cache.join(format!("{MANIFEST}.part"));
    let text = serde_json::to_string_pretty(manifest).map_err(|e| e.to_string())?;
    std::fs::write(&part, text).and_then(|()| std::fs::rename(&part, &path)).map_err(|e| format!("{}: {e}", path.display()))
}

fn sha256_of(path: &Path) -> Result<(String, u64), String> {
    use std::io::Read as _;
    let mut file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut hasher = sha2::Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buffer).map_err(|e| format!("{}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        bytes += n as u64;
    }
    Ok((hasher.finalize().iter().map(|b| format!("{b:02x}")).collect(), bytes))
}

/// Fetches every asset into `cache`, `on_done` told of each as it ends; the manifest is
/// written as files finish, so an interrupted run keeps what it fetched.
pub async fn fetch(assets: &[Asset], cache: &Path, how: &Fetch, on_done: impl Fn(&Asset, &Outcome)) -> Vec<(Asset, Outcome)> {
    let client = match reqwest::Client::builder().connect_timeout(how.timeout).read_timeout(how.timeout).user_agent("guigym").build() {
        Ok(c) => c,
        Err(e) => return assets.iter().map(|a| (a.clone(), Outcome::Failed(format!("an HTTP client: {e}")))).collect(),
    };
    let manifest = Arc::new(std::sync::Mutex::new(read_manifest(cache)));
    // One download per URL; the other tasks naming it get a copy.
    let mut by_url: BTreeMap<&str, Vec<&Asset>> = BTreeMap::new();
    for a in assets {
        by_url.entry(a.url.as_str()).or_default().push(a);
    }
    let limit = Arc::new(tokio::sync::Semaphore::new(how.parallel.max(1)));
    let mut running = tokio::task::JoinSet::new();
    for group in by_url.into_values() {
        let (client, cache, manifest, limit, how) = (client.clone(), cache.to_path_buf(), manifest.clone(), limit.clone(), how.clone());
        let group: Vec<Asset> = group.into_iter().cloned().collect();
        running.spawn(async move {
            let _held = limit.acquire_owned().await;
            let mut ended = Vec::new();
            let mut source: Option<PathBuf> = None;
            for asset in group {
                let outcome = one(&client, &asset, &cache, &manifest, &how, source.as_deref()).await;
                if matches!(outcome, Outcome::Fetched(_) | Outcome::Kept(_)) {
                    source = Some(asset.path(&cache));
                }
                ended.push((asset, outcome));
            }
            ended
        });
    }
    let mut out = Vec::new();
    while let Some(done) = running.join_next().await {
        let kept = manifest.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let recorded = write_manifest(cache, &kept);
        for (asset, mut outcome) in done.unwrap_or_default() {
            if let (Err(e), false) = (&recorded, matches!(outcome, Outcome::Failed(_))) {
                outcome = Outcome::Failed(format!("recording its checksum: {e}"));
            }
            on_done(&asset, &outcome);
            out.push((asset, outcome));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// One asset: kept where the cache holds it as recorded, copied from `source` (the same URL,
/// fetched for another task), or fetched.
async fn one(
    client: &reqwest::Client,
    asset: &Asset,
    cache: &Path,
    manifest: &std::sync::Mutex<BTreeMap<String, Recorded>>,
    how: &Fetch,
    source: Option<&Path>,
) -> Outcome {
    let path = asset.path(cache);
    let recorded = manifest.lock().unwrap_or_else(|p| p.into_inner()).get(&asset.key()).cloned();
    if path.is_file() {
        match (sha256_of(&path), recorded) {
            // As recorded: nothing to do.
            (Ok((sha, bytes)), Some(r)) if r.sha256 == sha && r.url == asset.url && r.bytes == bytes => return Outcome::Kept(r),
            // There, but never recorded (a cache filled by OSWorld's own runner): recorded now.
            (Ok((sha256, bytes)), None) => {
                let r = Recorded { url: asset.url.clone(), sha256, bytes };
                manifest.lock().unwrap_or_else(|p| p.into_inner()).insert(asset.key(), r.clone());
                return Outcome::Kept(r);
            }
            // Changed since it was recorded, or recorded for another URL: fetched again.
            _ => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    if let Some(parent) = path.parent() {
        if let Err(e) = std::fs::create_dir_all(parent) {
            return Outcome::Failed(format!("{}: {e}", parent.display()));
        }
    }
    let got = match source {
        Some(from) => std::fs::copy(from, &path).map(drop).map_err(|e| format!("copying {}: {e}", from.display())),
        None => download(client, &asset.url, &path, how).await,
    };
    if let Err(e) = got {
        return Outcome::Failed(e);
    }
    match sha256_of(&path) {
        Ok((sha256, bytes)) => {
            let r = Recorded { url: asset.url.clone(), sha256, bytes };
            manifest.lock().unwrap_or_else(|p| p.into_inner()).insert(asset.key(), r.clone());
            Outcome::Fetched(r)
        }
        Err(e) => Outcome::Failed(e),
    }
}

/// Downloads `url` to `path` through `path.part`, continuing what an earlier try left.
async fn download(client: &reqwest::Client, url: &str, path: &Path, how: &Fetch) -> Result<(), String> {
    let part = PathBuf::from(format!("{}.part", path.display()));
    let mut last = String::new();
    for attempt in 0..how.tries.max(1) {
        if attempt > 0 {
            tokio::time::sleep(Duration::from_millis(500 * u64::from(attempt))).await;
        }
        match try_download(client, url, &part).await {
            Ok(()) => {
                let _ = std::fs::remove_file(validator_path(&part));
                return std::fs::rename(&part, path).map_err(|e| format!("{}: {e}", path.display()));
            }
            Err(Stop::Final(e)) => return Err(format!("{url}: {e}")),
            Err(Stop::Again(e)) => last = e,
        }
    }
    Err(format!("{url}: {last} (after {} tries)", how.tries.max(1)))
}

enum Stop {
    /// Worth another try (a connection lost, a server error).
    Again(String),
    /// Not (the server says there is no such file).
    Final(String),
}

/// An HTTP error with its causes (a refused connection, a name not found), without the URL,
/// which the caller names once.
fn said(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(&e);
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    text
}

/// Where the version of the file a `.part` holds the start of is kept (its strong ETag or its
/// Last-Modified): a part is continued only with the server's word that the file is the same.
fn validator_path(part: &Path) -> PathBuf {
    PathBuf::from(format!("{}.validator", part.display()))
}

async fn try_download(client: &reqwest::Client, url: &str, part: &Path) -> Result<(), Stop> {
    let validator = std::fs::read_to_string(validator_path(part)).ok().filter(|v| !v.trim().is_empty());
    // A part whose version is not known (left by another tool, or by a server that names no
    // version) could be the start of another file: it is fetched again whole.
    if validator.is_none() {
        let _ = std::fs::remove_file(part);
    }
    let have = std::fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    let mut request = client.get(url);
    if let (true, Some(v)) = (have > 0, &validator) {
        request = request.header(reqwest::header::RANGE, format!("bytes={have}-")).header(reqwest::header::IF_RANGE, v.trim());
    }
    let mut response = request.send().await.map_err(|e| Stop::Again(said(e)))?;
    let status = response.status();
    // A range the server cannot give (the part is whole, or the file changed): from the start.
    if status == reqwest::StatusCode::RANGE_NOT_SATISFIABLE {
        let _ = std::fs::remove_file(part);
        return Err(Stop::Again("the partial file did not fit; starting over".to_string()));
    }
    if status.is_client_error() {
        return Err(Stop::Final(status.to_string()));
    }
    if !status.is_success() {
        return Err(Stop::Again(status.to_string()));
    }
    // 206 continues the part from where it ends; anything else is the whole file.
    let resumed = status == reqwest::StatusCode::PARTIAL_CONTENT
        && response
            .headers()
            .get(reqwest::header::CONTENT_RANGE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("bytes "))
            .and_then(|v| v.split('-').next())
            .and_then(|start| start.parse::<u64>().ok())
            == Some(have);
    if status == reqwest::StatusCode::PARTIAL_CONTENT && !resumed {
        let _ = std::fs::remove_file(part);
        return Err(Stop::Again("the server sent another range than asked; starting over".to_string()));
    }
    if !resumed {
        // A fresh start: the version this part will hold, as the server names it.
        let headers = response.headers();
        let strong_etag = headers.get(reqwest::header::ETAG).and_then(|v| v.to_str().ok()).filter(|v| !v.starts_with("W/"));
        let version = strong_etag.or_else(|| headers.get(reqwest::header::LAST_MODIFIED).and_then(|v| v.to_str().ok())).unwrap_or("");
        std::fs::write(validator_path(part), version).map_err(|e| Stop::Final(format!("{}: {e}", part.display())))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(resumed)
        .truncate(!resumed)
        .open(part)
        .map_err(|e| Stop::Final(format!("{}: {e}", part.display())))?;
    let expected = response.content_length().map(|n| n + if resumed { have } else { 0 });
    while let Some(chunk) = response.chunk().await.map_err(|e| Stop::Again(said(e)))? {
        file.write_all(&chunk).map_err(|e| Stop::Final(format!("{}: {e}", part.display())))?;
    }
    file.flush().map_err(|e| Stop::Final(format!("{}: {e}", part.display())))?;
    let written = std::fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    match expected {
        Some(n) if n != written => Err(Stop::Again(format!("{written} of {n} bytes arrived"))),
        _ => Ok(()),
    }
}
