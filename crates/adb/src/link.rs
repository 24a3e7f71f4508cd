//! A way to one device: through an adb server (`host::ServerLink`) or straight to the device's
//! own transport (`client::DirectLink`). Either opens a service as a byte pipe; what is said on
//! it (shell protocol v2, raw `exec:` output, `sync:` files) is written once, here.

use std::time::Duration;

use async_trait::async_trait;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::device::{FileStat, ShellOutput};

#[derive(Debug, thiserror::Error)]
pub enum AdbError {
    /// `what`: the adb server, or a device reached directly.
    #[error("{what} at {addr}: {source}")]
    Connect { what: &'static str, addr: String, source: std::io::Error },
    #[error("adb: {0}")]
    Io(#[from] std::io::Error),
    #[error("adb refused {request:?}: {message}")]
    Refused { request: String, message: String },
    #[error("adb: no answer to {0:?} in time")]
    Timeout(String),
    #[error("adb: {0}")]
    Protocol(String),
}

/// A service's stream: bytes both ways.
pub trait Pipe: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Pipe for T {}

/// The largest piece of a file a push sends at once (the sync protocol's limit).
const SYNC_DATA_MAX: usize = 64 * 1024;

/// One device, and the services every caller needs of it. Each call has the link's deadline.
#[async_trait]
pub trait Link: Send + Sync {
    /// The device's name (its serial, or `HOST:PORT`), for messages.
    fn serial(&self) -> &str;
    /// How long one call may take.
    fn timeout(&self) -> Duration;
    /// A service opened on the device (`shell,v2,raw:…`, `exec:…`, `sync:`).
    async fn open(&self, service: &str) -> Result<Box<dyn Pipe>, AdbError>;

    /// Runs a command line on the device (shell protocol v2: stdout, stderr and the exit
    /// status apart).
    async fn shell(&self, command: &str) -> Result<ShellOutput, AdbError> {
        within(self.timeout(), command, async {
            let mut s = self.open(&format!("shell,v2,raw:{command}")).await?;
            read_shell_v2(&mut s, command).await
        })
        .await
    }

    /// A command's raw stdout (`adb exec-out`): what binary output (a screenshot) needs.
    async fn exec(&self, command: &str) -> Result<Vec<u8>, AdbError> {
        within(self.timeout(), command, async {
            let mut s = self.open(&format!("exec:{command}")).await?;
            let mut out = Vec::new();
            (&mut s).take(READ_MAX as u64 + 1).read_to_end(&mut out).await?;
            if out.len() > READ_MAX {
                return Err(too_much(command));
            }
            Ok(out)
        })
        .await
    }

    /// A file's bytes, through `sync:` (`adb pull`).
    async fn pull(&self, path: &str) -> Result<Vec<u8>, AdbError> {
        within(self.timeout(), path, async {
            let mut s = self.open("sync:").await?;
            s.write_all(&sync_request(b"RECV", path.as_bytes())).await?;
            let mut out = Vec::new();
            loop {
                let (id, len) = read_sync_header(&mut s).await?;
                match &id {
                    b"DATA" => {
                        if out.len() + len > READ_MAX {
                            return Err(too_much(path));
                        }
                        let start = out.len();
                        out.resize(start + len, 0);
                        s.read_exact(&mut out[start..]).await?;
                    }
                    b"DONE" => break,
                    b"FAIL" => return Err(sync_failure(&mut s, len, "pull", path).await),
                    other => return Err(AdbError::Protocol(format!("sync answer {:?}", String::from_utf8_lossy(other)))),
                }
            }
            let _ = s.write_all(&sync_request(b"QUIT", b"")).await;
            Ok(out)
        })
        .await
    }

    /// A file's unix mode, size and modification time (seconds), through `sync:` (`STAT`, version
    /// 1, which every device answers); `None` where there is no such file (mode 0).
    async fn stat(&self, path: &str) -> Result<Option<FileStat>, AdbError> {
        within(self.timeout(), path, async {
            let mut s = self.open("sync:").await?;
            s.write_all(&sync_request(b"STAT", path.as_bytes())).await?;
            let mut answer = [0u8; 16];
            s.read_exact(&mut answer).await?;
            if &answer[..4] != b"STAT" {
                return Err(AdbError::Protocol(format!("sync answer {:?}", String::from_utf8_lossy(&answer[..4]))));
            }
            let word = |i: usize| u32::from_le_bytes([answer[i], answer[i + 1], answer[i + 2], answer[i + 3]]);
            let _ = s.write_all(&sync_request(b"QUIT", b"")).await;
            Ok((word(4) != 0).then(|| FileStat { mode: word(4), size: word(8), mtime: word(12) }))
        })
        .await
    }

    /// Writes a file on the device, through `sync:` (`adb push`), with unix mode bits `mode`.
    async fn push(&self, path: &str, bytes: &[u8], mode: u32) -> Result<(), AdbError> {
        within(self.timeout(), path, async {
            let mut s = self.open("sync:").await?;
            s.write_all(&sync_request(b"SEND", format!("{path},{}", mode & 0o7777).as_bytes())).await?;
            for piece in bytes.chunks(SYNC_DATA_MAX) {
                s.write_all(&sync_request(b"DATA", piece)).await?;
            }
            let mtime = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as u32);
            let mut done = b"DONE".to_vec();
            done.extend_from_slice(&mtime.to_le_bytes());
            s.write_all(&done).await?;
            let (id, len) = read_sync_header(&mut s).await?;
            match &id {
                b"OKAY" => {
                    let _ = s.write_all(&sync_request(b"QUIT", b"")).await;
                    Ok(())
                }
                b"FAIL" => Err(sync_failure(&mut s, len, "push", path).await),
                other => Err(AdbError::Protocol(format!("sync answer {:?}", String::from_utf8_lossy(other)))),
            }
        })
        .await
    }
}

/// The most one call takes from a device (a pull, a command's output): a window dump is a few
/// hundred KiB, a 4K screen's raw pixels 33 MiB; a device that sends more is refused before it
/// fills this host's memory (a worker drives many devices at once).
const READ_MAX: usize = 64 << 20;

fn too_much(what: &str) -> AdbError {
    AdbError::Protocol(format!("{what}: the device sent over {} MiB", READ_MAX >> 20))
}

/// `f`, or a timeout naming `what`.
pub async fn within<T>(timeout: Duration, what: &str, f: impl std::future::Future<Output = Result<T, AdbError>>) -> Result<T, AdbError> {
    tokio::time::timeout(timeout, f).await.map_err(|_| AdbError::Timeout(what.to_string()))?
}

/// Shell protocol v2: packets of an id (1 stdout, 2 stderr, 3 exit), a little-endian length
/// and the data, until the exit packet.
async fn read_shell_v2(s: &mut (impl AsyncRead + Unpin), command: &str) -> Result<ShellOutput, AdbError> {
    let mut out = ShellOutput::default();
    loop {
        let mut header = [0u8; 5];
        match s.read_exact(&mut header).await {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(AdbError::Protocol(format!("the device closed {command:?} before its exit status")));
            }
            Err(e) => return Err(e.into()),
        }
        let len = u32::from_le_bytes([header[1], header[2], header[3], header[4]]) as usize;
        if out.stdout.len() + out.stderr.len() + len > READ_MAX {
            return Err(too_much(command));
        }
        let mut data = vec![0u8; len];
        s.read_exact(&mut data).await?;
        match header[0] {
            1 => out.stdout.extend(data),
            2 => out.stderr.extend(data),
            3 => {
                out.exit = data.first().copied().unwrap_or(0);
                return Ok(out);
            }
            _ => {}
        }
    }
}

/// A sync request: its id, the length of what follows, and that.
fn sync_request(id: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let mut out = id.to_vec();
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    out
}

async fn read_sync_header(s: &mut (impl AsyncRead + Unpin)) -> Result<([u8; 4], usize), AdbError> {
    let mut header = [0u8; 8];
    s.read_exact(&mut header).await?;
    Ok(([header[0], header[1], header[2], header[3]], u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize))
}

/// The device's reason for a `FAIL` of `len` bytes.
async fn sync_failure(s: &mut (impl AsyncRead + Unpin), len: usize, what: &str, path: &str) -> AdbError {
    let mut message = vec![0u8; len.min(4096)];
    if let Err(e) = s.read_exact(&mut message).await {
        return e.into();
    }
    AdbError::Refused { request: format!("{what} {path}"), message: String::from_utf8_lossy(&message).into_owned() }
}
