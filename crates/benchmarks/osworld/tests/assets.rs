//! Filling OSWorld's asset cache from a loopback HTTP server: every file the task files name
//! lands where OSWorld's runner (and our importer) looks for it, with its checksum recorded; a
//! download cut off is resumed with a range request; a second run fetches nothing; a file
//! changed on disk is fetched again; a missing file and a name that would leave the cache are
//! reported, not written.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use guigym_benchmark_osworld::assets::{self, Fetch, Outcome, MANIFEST};
use guigym_benchmark_osworld::import;
use guigym_benchmark_osworld::runner::uuid5_url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A file server on loopback that honours `Range: bytes=N-`, and cuts the first response for
/// paths in `cut` halfway through. It logs each request's path and range.
struct Server {
    url: String,
    log: Arc<Mutex<Vec<String>>>,
}

fn serve(files: HashMap<String, Vec<u8>>, cut: Vec<String>) -> Server {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let (files, cut, log2) = (Arc::new(files), Arc::new(Mutex::new(cut)), log.clone());
    tokio::spawn(async move {
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let (files, cut, log) = (files.clone(), cut.clone(), log2.clone());
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && socket.read(&mut byte).await.unwrap_or(0) == 1 {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let header = |name: &str| head.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix(name).map(|v| v.trim().to_string()));
                // A range is given only for the version the client names (If-Range), as a
                // careful server does.
                let same_version = header("if-range:").is_some_and(|v| v == "\"v1\"");
                let from: u64 = header("range: bytes=").filter(|_| same_version).and_then(|r| r.trim_end_matches('-').parse().ok()).unwrap_or(0);
                log.lock().unwrap().push(format!("{path} from {from}"));
                let Some(body) = files.get(&path) else {
                    let _ = socket.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
                    return;
                };
                let rest = &body[from as usize..];
                let status = if from > 0 {
                    format!("206 Partial Content\r\ncontent-range: bytes {from}-{}/{}", body.len() - 1, body.len())
                } else {
                    "200 OK".to_string()
                };
                let head = format!("HTTP/1.1 {status}\r\netag: \"v1\"\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", rest.len());
                let _ = socket.write_all(head.as_bytes()).await;
                let cut_now = {
                    let mut cut = cut.lock().unwrap();
                    let hit = cut.iter().position(|c| *c == path);
                    hit.map(|i| cut.remove(i)).is_some()
                };
                let send = if cut_now { &rest[..rest.len() / 2] } else { rest };
                let _ = socket.write_all(send).await;
            });
        }
    });
    Server { url, log }
}

fn task(id: &str, download: &[(&str, &str)], cloud: &[(&str, &str)]) -> String {
    let files: Vec<serde_json::Value> = download.iter().map(|(url, path)| serde_json::json!({"url": url, "path": path})).collect();
    let evaluator = match cloud {
        [(url, dest)] => serde_json::json!({
            "func": "compare_text_file",
            "result": {"type": "vm_file", "path": format!("/home/user/{dest}"), "dest": dest},
            "expected": {"type": "cloud_file", "path": url, "dest": dest}
        }),
        _ => {
            serde_json::json!({"func": "exact_match", "result": {"type": "vm_command_line", "command": "echo"}, "expected": {"type": "rule", "rules": {"expected": "x"}}})
        }
    };
    serde_json::json!({
        "id": id,
        "instruction": "x",
        "config": [{"type": "download", "parameters": {"files": files}}],
        "related_apps": ["os"],
        "evaluator": evaluator
    })
    .to_string()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guigym-assets-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir.join(name).parent().unwrap()).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

fn sha256(bytes: &[u8]) -> String {
    guigym_core::sha256_hex(bytes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cache_is_filled_resumed_checked_and_reported() {
    let big: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let files = HashMap::from([
        ("/data/report.xlsx".to_string(), big.clone()),
        ("/data/gold.txt".to_string(), b"gold\n".to_vec()),
        ("/data/shared.png".to_string(), b"png bytes".to_vec()),
    ]);
    // The big file's first response is cut halfway: the second try must continue it.
    let server = serve(files, vec!["/data/report.xlsx".into()]);
    let u = |p: &str| format!("{}{p}", server.url);
    let dir = temp("tasks");
    let (report, gold, shared, missing) = (u("/data/report.xlsx"), u("/data/gold.txt"), u("/data/shared.png"), u("/data/gone.txt"));
    write(&dir, "os/a.json", &task("task-a", &[(&report, "/home/user/report.xlsx"), (&shared, "/home/user/x.png")], &[(&gold, "gold.txt")]));
    write(&dir, "os/b.json", &task("task-b", &[(&shared, "/home/user/y.png")], &[]));
    write(&dir, "os/c.json", &task("task-c", &[(&missing, "/home/user/gone.txt")], &[]));
    write(&dir, "os/evil.json", &task("../escape", &[(&gold, "/home/user/g.txt")], &[]));
    write(&dir, "os/notes.json", "not a task");

    let (wanted, refused) = assets::list(&dir).unwrap();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(refused[0].contains("not a plain file name"), "{refused:?}");
    assert_eq!(wanted.len(), 5, "{wanted:#?}");

    let cache = temp("cache");
    // A part left by something else, of unknown version: not continued, fetched again whole.
    let junk = cache.join("task-a").join("gold.txt.part");
    std::fs::create_dir_all(junk.parent().unwrap()).unwrap();
    std::fs::write(&junk, b"JUNK").unwrap();
    let how = Fetch { parallel: 2, tries: 3, timeout: std::time::Duration::from_secs(10) };
    let ended = assets::fetch(&wanted, &cache, &how, |_, _| {}).await;
    let failed: Vec<&(assets::Asset, Outcome)> = ended.iter().filter(|(_, o)| matches!(o, Outcome::Failed(_))).collect();
    assert_eq!(failed.len(), 1, "{ended:#?}");
    assert_eq!(failed[0].0.task, "task-c");

    // OSWorld's layout: a download's file by the uuid5 of its URL, a cloud file by its dest.
    let at = |task: &str, name: &str| cache.join(task).join(name);
    assert_eq!(std::fs::read(at("task-a", &format!("{}_report.xlsx", uuid5_url(&report)))).unwrap(), big, "resumed whole");
    assert_eq!(std::fs::read(at("task-a", "gold.txt")).unwrap(), b"gold\n");
    assert_eq!(std::fs::read(at("task-b", &format!("{}_y.png", uuid5_url(&shared)))).unwrap(), b"png bytes");
    assert!(!cache.join("escape").exists() && !cache.parent().unwrap().join("escape").exists());
    let log = server.log.lock().unwrap().clone();
    assert!(log.iter().any(|l| l.starts_with("/data/report.xlsx from ") && !l.ends_with(" from 0")), "the cut download was resumed: {log:?}");
    assert_eq!(log.iter().filter(|l| l.starts_with("/data/shared.png")).count(), 1, "one URL, fetched once: {log:?}");
    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(cache.join(MANIFEST)).unwrap()).unwrap();
    assert_eq!(manifest["task-a/gold.txt"]["sha256"], sha256(b"gold\n"));
    assert_eq!(manifest[format!("task-a/{}_report.xlsx", uuid5_url(&report))]["bytes"], big.len());

    // Again: nothing is fetched; a file changed on disk since is fetched again.
    std::fs::write(at("task-a", "gold.txt"), b"tampered").unwrap();
    let before = server.log.lock().unwrap().len();
    let ended = assets::fetch(&wanted, &cache, &how, |_, _| {}).await;
    let fetched: Vec<String> = ended.iter().filter(|(_, o)| matches!(o, Outcome::Fetched(_))).map(|(a, _)| a.name.clone()).collect();
    assert_eq!(fetched, ["gold.txt"], "{ended:#?}");
    assert_eq!(server.log.lock().unwrap()[before..].iter().filter(|l| !l.starts_with("/data/gone.txt")).count(), 1);
    assert_eq!(std::fs::read(at("task-a", "gold.txt")).unwrap(), b"gold\n");

    // The importer finds what was fetched: the tasks whose files are all there are kept.
    let imported = import::import(&dir, Some(&cache)).unwrap();
    let mut kept: Vec<String> = imported.kept.iter().map(|t| t.id.clone()).collect();
    kept.sort();
    assert_eq!(kept, ["osworld/task-a", "osworld/task-b"], "{:#?}", imported.skipped);
}
