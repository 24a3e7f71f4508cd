//! What the binary's tests share: the binary itself, scratch folders, and server processes
//! that print `listening on URL` first.

#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

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
        let mut child = guigym().args(args).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line.trim().strip_prefix("listening on ").expect("the server prints its address").to_string();
        Served { child, url }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
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
