//! The host side: a client of an adb server (`adb start-server`, port 5037 by default), as
//! `adb` itself and every ADB library talk to it. Each request is a TCP connection that
//! sends `LLLLrequest` (the length in four hex digits) and reads `OKAY` or `FAIL` with a
//! message; a request for a device first switches the connection to it
//! (`host:transport:SERIAL`), then opens a service (`shell,v2,raw:…`, `exec:…`, `sync:`).
//! Every call has a deadline; a device that is gone or a server that does not answer is an
//! `AdbError`, which callers treat as the infrastructure's failure, never an agent's. What is
//! said to a device once its service is open is `link`'s, the same for every way there.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::link::{AdbError, Link, Pipe};

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

    async fn socket(&self) -> Result<TcpStream, AdbError> {
        let socket = TcpStream::connect(&self.addr).await.map_err(|source| AdbError::Connect { what: "adb server", addr: self.addr.clone(), source })?;
        let _ = socket.set_nodelay(true);
        Ok(socket)
    }

    /// A request to the server itself (`host:…`) that answers with one string.
    pub async fn host(&self, request: &str) -> Result<String, AdbError> {
        crate::link::within(self.timeout, request, async {
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

    /// One device of this server's, to talk to.
    pub fn device(&self, serial: &str) -> ServerLink {
        ServerLink { server: self.clone(), serial: serial.to_string() }
    }
}

/// A device reached through an adb server: each service is a connection of its own,
/// switched to the device (`host:transport:SERIAL`) before the service is opened.
#[derive(Debug, Clone)]
pub struct ServerLink {
    server: AdbServer,
    serial: String,
}

#[async_trait::async_trait]
impl Link for ServerLink {
    fn serial(&self) -> &str {
        &self.serial
    }

    fn timeout(&self) -> Duration {
        self.server.timeout
    }

    async fn open(&self, service: &str) -> Result<Box<dyn Pipe>, AdbError> {
        let mut s = self.server.socket().await?;
        let transport = format!("host:transport:{}", self.serial);
        write_request(&mut s, &transport).await?;
        read_status(&mut s, &transport).await?;
        write_request(&mut s, service).await?;
        read_status(&mut s, service).await?;
        Ok(Box::new(s))
    }
}
