//! The host side: a client of an adb server (`adb start-server`, port 5037 by default), as
//! `adb` itself and every ADB library talk to it. Each request is a TCP connection that
//! sends `LLLLrequest` (the length in four hex digits) and reads `OKAY` or `FAIL` with a
//! message; a request for a device first switches the connection to it
//! (`host:transport:SERIAL`), then opens a service (`shell,v2,raw:…`, `exec:…`, `sync:`).
//! Every call has a deadline; a device that is gone or a server that does not answer is an
//! `AdbError`, which callers treat as the infrastructure's failure, never an agent's.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::device::ShellOutput;

#[derive(Debug, thiserror::Error)]
pub enum AdbError {
    #[error("adb server at {addr}: {source}")]
    Connect { addr: String, source: std::io::Error },
    #[error("adb: {0}")]
    Io(#[from] std::io::Error),
    #[error("adb refused {request:?}: {message}")]
    Refused { request: String, message: String },
    #[error("adb: no answer to {0:?} in time")]
    Timeout(String),
    #[error("adb: {0}")]
    Protocol(String),
}

/// An adb server's address and the deadline each call gets.
#[derive(Debug, Clone)]
pub struct AdbServer {
    pub addr: String,
    pub timeout: Duration,
}

impl Default for AdbServer {
    fn default() -> AdbServer {
        AdbServer { addr: "127.0.0.1:5037".into(), timeout: Duration::from_secs(30) }
    }
}

/// One device as listed by `host:devices`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub serial: String,
    /// `device`, `offline`, `unauthorized`, …
    pub state: String,
}

async fn write_request(socket: &mut (impl AsyncWrite + Unpin), request: &str) -> Result<(), AdbError> {
    if request.len() > 0xffff {
        return Err(AdbError::Protocol(format!("a request of {} bytes is too long", request.len())));
    }
    socket.write_all(format!("{:04x}{request}", request.len()).as_bytes()).await?;
    Ok(())
}

/// A hex-length-prefixed string, as the server sends lists and messages.
async fn read_prefixed(socket: &mut (impl AsyncRead + Unpin)) -> Result<String, AdbError> {
    let mut len = [0u8; 4];
    socket.read_exact(&mut len).await?;
    let len = usize::from_str_radix(std::str::from_utf8(&len).map_err(|_| AdbError::Protocol("bad length".into()))?, 16)
        .map_err(|_| AdbError::Protocol(format!("bad length {len:?}")))?;
    let mut text = vec![0u8; len];
    socket.read_exact(&mut text).await?;
    Ok(String::from_utf8_lossy(&text).into_owned())
}

/// Reads the server's `OKAY`, or its `FAIL` and reason.
async fn read_status(socket: &mut (impl AsyncRead + Unpin), request: &str) -> Result<(), AdbError> {
    let mut status = [0u8; 4];
    socket.read_exact(&mut status).await?;
    match &status {
        b"OKAY" => Ok(()),
        b"FAIL" => Err(AdbError::Refused { request: request.to_string(), message: read_prefixed(socket).await.unwrap_or_default() }),
        other => Err(AdbError::Protocol(format!("answer {:?} to {request:?}", String::from_utf8_lossy(other)))),
    }
}

impl AdbServer {
    pub fn new(addr: impl Into<String>) -> AdbServer {
        AdbServer { addr: addr.into(), ..AdbServer::default() }
    }

    async fn within<T>(&self, what: &str, f: impl std::future::Future<Output = Result<T, AdbError>>) -> Result<T, AdbError> {
        tokio::time::timeout(self.timeout, f).await.map_err(|_| AdbError::Timeout(what.to_string()))?
    }

    async fn socket(&self) -> Result<TcpStream, AdbError> {
        let socket = TcpStream::connect(&self.addr).await.map_err(|source| AdbError::Connect { addr: self.addr.clone(), source })?;
        let _ = socket.set_nodelay(true);
        Ok(socket)
    }

    /// A request to the server itself (`host:…`) that answers with one string.
    pub async fn host(&self, request: &str) -> Result<String, AdbError> {
        self.within(request, async {
            let mut s = self.socket().await?;
            write_request(&mut s, request).await?;
            read_status(&mut s, request).await?;
            read_prefixed(&mut s).await
        })
        .await
    }

    /// The devices the server knows.
    pub async fn devices(&self) -> Result<Vec<Listed>, AdbError> {
        let text = self.host("host:devices").await?;
        Ok(text
            .lines()
            .filter_map(|l| {
                let (serial, state) = l.split_once('\t')?;
                Some(Listed { serial: serial.to_string(), state: state.trim().to_string() })
            })
            .collect())
    }

    /// `adb connect HOST:PORT`; the server's message says whether it worked.
    pub async fn connect(&self, target: &str) -> Result<String, AdbError> {
        let said = self.host(&format!("host:connect:{target}")).await?;
        if said.contains("connected to") {
            Ok(said)
        } else {
            Err(AdbError::Refused { request: format!("connect {target}"), message: said })
        }
    }

    /// A connection switched to a device, with `service` open on it.
    async fn open(&self, serial: &str, service: &str) -> Result<TcpStream, AdbError> {
        let mut s = self.socket().await?;
        let transport = format!("host:transport:{serial}");
        write_request(&mut s, &transport).await?;
        read_status(&mut s, &transport).await?;
        write_request(&mut s, service).await?;
        read_status(&mut s, service).await?;
        Ok(s)
    }

    /// Runs a command line on a device (shell protocol v2: stdout, stderr and the exit status
    /// apart).
    pub async fn shell(&self, serial: &str, command: &str) -> Result<ShellOutput, AdbError> {
        self.within(command, async {
            let mut s = self.open(serial, &format!("shell,v2,raw:{command}")).await?;
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
        })
        .await
    }

    /// A command's raw stdout (`adb exec-out`): what binary output (a screenshot) needs.
    pub async fn exec(&self, serial: &str, command: &str) -> Result<Vec<u8>, AdbError> {
        self.within(command, async {
            let mut s = self.open(serial, &format!("exec:{command}")).await?;
            let mut out = Vec::new();
            s.read_to_end(&mut out).await?;
            Ok(out)
        })
        .await
    }

    /// A file's bytes, through `sync:` (`adb pull`).
    pub async fn pull(&self, serial: &str, path: &str) -> Result<Vec<u8>, AdbError> {
        self.within(path, async {
            let mut s = self.open(serial, "sync:").await?;
            let mut request = b"RECV".to_vec();
            request.extend_from_slice(&(path.len() as u32).to_le_bytes());
            request.extend_from_slice(path.as_bytes());
            s.write_all(&request).await?;
            let mut out = Vec::new();
            loop {
                let mut header = [0u8; 8];
                s.read_exact(&mut header).await?;
                let len = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
                match &header[..4] {
                    b"DATA" => {
                        let start = out.len();
                        out.resize(start + len, 0);
                        s.read_exact(&mut out[start..]).await?;
                    }
                    b"DONE" => break,
                    b"FAIL" => {
                        let mut message = vec![0u8; len.min(4096)];
                        s.read_exact(&mut message).await?;
                        return Err(AdbError::Refused { request: format!("pull {path}"), message: String::from_utf8_lossy(&message).into_owned() });
                    }
                    other => return Err(AdbError::Protocol(format!("sync answer {:?}", String::from_utf8_lossy(other)))),
                }
            }
            let mut quit = b"QUIT".to_vec();
            quit.extend_from_slice(&0u32.to_le_bytes());
            let _ = s.write_all(&quit).await;
            Ok(out)
        })
        .await
    }
}
