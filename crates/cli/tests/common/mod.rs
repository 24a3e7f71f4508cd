//! What the binary's tests share: the binary itself, scratch folders, and server processes
//! that print `listening on URL` first.

#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

pub fn guigym() -> Command {
    Command::new(env!("CARGO_BIN_EXE_guigym"))
}

/// An empty scratch folder, unique to this test process.
pub fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("guigym-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A `guigym` server process (serve, worker, policy-server, buffer serve), killed on drop.
pub struct Served {
    pub child: Child,
    pub url: String,
}

impl Served {
    pub fn start(args: &[&str]) -> Served {
        Served::start_with(args, &[])
    }

    /// With these environment variables set.
    pub fn start_with(args: &[&str], env: &[(&str, &str)]) -> Served {
        let mut child = guigym().args(args).envs(env.iter().copied()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("listening on ").expect("the server prints its address").to_string();
        Served { child, url }
    }
}

impl Drop for Served {
    /// SIGTERM first, so the server ends what it started (displays, applications, browsers);
    /// SIGKILL if it has not stopped within 10 s.
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Python of `scripts/setup.sh`'s venv (pyarrow, tokenizers, Pillow, miniwob).
pub fn venv_python() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache"));
    let python = cache.join("guigym/venv/bin/python");
    assert!(python.is_file(), "{} is missing: run ./scripts/setup.sh", python.display());
    python
}

/// Qwen's tokenizer.json as `scripts/setup.sh` fetched it.
pub fn tokenizer_json() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache"));
    cache.join("guigym/qwen-tokenizer.json")
}

/// One HTTP request through curl: the status and the JSON body (`Null` when it is not JSON).
pub fn http(method: &str, url: &str, token: Option<&str>, body: Option<&serde_json::Value>) -> (u16, serde_json::Value) {
    http_with(method, url, token, body, &[])
}

/// `http` with extra headers.
pub fn http_with(method: &str, url: &str, token: Option<&str>, body: Option<&serde_json::Value>, headers: &[(&str, &str)]) -> (u16, serde_json::Value) {
    let mut cmd = Command::new("curl");
    cmd.args(["-s", "--max-time", "30", "-o", "-", "-w", "\n%{http_code}", "-X", method, url]);
    for (name, value) in headers {
        cmd.args(["-H", &format!("{name}: {value}")]);
    }
    if let Some(t) = token {
        cmd.args(["-H", &format!("authorization: Bearer {t}")]);
    }
    if body.is_some() {
        cmd.args(["-H", "content-type: application/json", "--data-binary", "@-"]);
        cmd.stdin(Stdio::piped());
    }
    cmd.stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(b) = body {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b.to_string().as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let (body, code) = text.rsplit_once('\n').unwrap_or(("", "0"));
    (code.trim().parse().unwrap_or(0), serde_json::from_str(body).unwrap_or(serde_json::Value::Null))
}

/// A free loopback port (for a server that must come back on the same one).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The resident memory of a process, in bytes.
pub fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok()).unwrap_or(0) * 1024
}

/// `guigym collect --replay RUN` exports a game played by hand: one successful attempt, its
/// chat records and token samples, under the policy `human`.
pub fn assert_human_run_collects(store: &std::path::Path, run: &str, out: &std::path::Path) {
    let collected = guigym().args(["collect", "--replay", run, "--store"]).arg(store).arg("--out").arg(out).output().unwrap();
    assert!(collected.status.success(), "{}", String::from_utf8_lossy(&collected.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["policy"], "human", "{summary}");
    assert_eq!(summary["successful_attempts_kept"], 1, "{summary}");
    let sft = std::fs::read_to_string(out.join("sft.jsonl")).unwrap();
    assert!(sft.lines().count() >= 1 && sft.contains("\"assistant\""));
    assert!(std::fs::read_to_string(out.join("samples.jsonl")).unwrap().lines().count() >= 1);
}

/// The processes whose parent is `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The fields after the command (in parentheses): state, then the parent's pid.
        let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)).and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(pid) {
            out.push(child);
        }
    }
    out
}

/// Those of `pids` still running after up to 5 s (a zombie waiting to be reaped is not).
pub fn still_running(pids: &[u32]) -> Vec<u32> {
    let running = |pid: &u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()).is_some_and(|state| state != "Z" && state != "X")
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let left: Vec<u32> = pids.iter().copied().filter(running).collect();
        if left.is_empty() || std::time::Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Stops a server with SIGTERM and checks that it stopped cleanly and that none of
/// `children` (the processes it had started) outlives it.
pub fn stop_leaving_nothing_behind(server: &mut Served, children: &[u32]) {
    assert!(Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().unwrap().success());
    assert!(server.child.wait().unwrap().success(), "a clean stop");
    let left = still_running(children);
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

/// A store holding a golden and a random run of four smoke tasks (with screenshots; the random
/// one fails them all) and the rounds of `configs/train-tiny.yaml`: what the dashboard tests show.
pub fn dashboard_store(dir: &std::path::Path) -> PathBuf {
    let store = dir.join("store");
    for policy in ["golden", "random"] {
        let out = guigym().args(["eval", "--suite", "smoke", "--limit", "4", "--screenshots", "--policy", policy, "--store"]).arg(&store).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // Not a terminal: plain progress lines, with the rate and the time left.
        let progress = String::from_utf8_lossy(&out.stderr);
        assert!(progress.contains("eval: 4/4 (100 %) · ") && progress.contains("ETA"), "{progress}");
    }
    let config = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/train-tiny.yaml"))
        .unwrap()
        .replace("output: .guigym/train-tiny", &format!("output: {}", dir.join("out").display()));
    std::fs::write(dir.join("tiny.yaml"), config).unwrap();
    assert!(guigym().args(["train", "--config"]).arg(dir.join("tiny.yaml")).arg("--store").arg(&store).output().unwrap().status.success());
    store
}

/// `guigym collect ARGS` into `dir/data`, its runs stored in `dir/store`; the collection must
/// succeed. Returns the data folder.
pub fn collect(dir: &std::path::Path, args: &[&str]) -> PathBuf {
    let data = dir.join("data");
    let out = guigym().arg("collect").args(args).arg("--out").arg(&data).arg("--store").arg(dir.join("store")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    data
}

/// `guigym ARGS`, which must succeed, and the JSON it printed.
pub fn guigym_json(args: &[&str]) -> serde_json::Value {
    let out = guigym().args(args).output().unwrap();
    assert!(out.status.success(), "guigym {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("guigym {}: not JSON ({e}): {}", args.join(" "), String::from_utf8_lossy(&out.stdout)))
}

/// A private adb server: its own port and home, killed at the end.
pub struct AdbServer {
    pub port: u16,
    pub home: PathBuf,
}

impl AdbServer {
    pub fn start(name: &str) -> AdbServer {
        let home = temp(&format!("adb-{name}"));
        let server = AdbServer { port: free_port(), home };
        let out = server.adb(&["start-server"]);
        assert!(out.status.success(), "adb start-server: {}", String::from_utf8_lossy(&out.stderr));
        server
    }

    pub fn adb(&self, args: &[&str]) -> Output {
        Command::new("adb").arg("-P").arg(self.port.to_string()).args(args).env("HOME", &self.home).output().expect("Debian's adb: run scripts/setup.sh")
    }
}

impl Drop for AdbServer {
    fn drop(&mut self) {
        let _ = self.adb(&["kill-server"]);
    }
}

/// The serials of `guigym adb-device`'s devices, from its control API.
pub fn device_serials(control: &str) -> Vec<String> {
    let (code, devices) = http("GET", &format!("{control}/v1/devices"), None, None);
    assert_eq!(code, 200, "{devices}");
    devices["devices"].as_array().unwrap().iter().map(|d| d["serial"].as_str().unwrap().to_string()).collect()
}
