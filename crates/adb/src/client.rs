//! Straight to a device's transport, with no adb server between: what `adb connect HOST:PORT`
//! does inside the server, done here. One TCP connection per device, opened on first use
//! (CNXN; AUTH by signing the device's token with our key, then offering the public key for
//! the user to accept on the phone) and opened again after it breaks. Each service is a
//! stream on it (OPEN, WRTE answered by OKAY, CLSE), one at a time, handed to the caller as a
//! byte pipe, so that `link` speaks the services the same way for both routes.
//!
//! The key is adb's own (`~/.android/adbkey`, PKCS#8 PEM, with `adbkey.pub` beside it): a
//! device that trusts the machine's adb trusts us. Where there is none, one is made and kept.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use rsa::{RsaPrivateKey, RsaPublicKey};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, Mutex};

use crate::auth;
use crate::link::{AdbError, Link, Pipe};
use crate::message::{Message, AUTH, AUTH_RSAPUBLICKEY, AUTH_SIGNATURE, AUTH_TOKEN, CLSE, CNXN, MAX_PAYLOAD, OKAY, OPEN, STLS, VERSION, WRTE};

/// The largest key file read.
const KEY_MAX: u64 = 64 * 1024;

/// The host's key, loaded from (or made at) `path`.
pub fn load_or_make_key(path: &Path) -> Result<RsaPrivateKey, String> {
    let shown = path.display();
    // A key file is a few KiB; anything larger is not one, and is not read further.
    match guigym_core::read_at_most(path, KEY_MAX) {
        Ok(None) => Err(format!("{shown}: over {} KiB: not an adb key", KEY_MAX >> 10)),
        Ok(Some(bytes)) => {
            let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not a PEM file"))?;
            RsaPrivateKey::from_pkcs8_pem(&text).map_err(|e| format!("{shown}: not a PKCS#8 RSA key: {e}"))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let key = auth::generate_key()?;
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            let pem = key.to_pkcs8_pem(LineEnding::LF).map_err(|e| e.to_string())?;
            write_private(path, pem.as_bytes()).map_err(|e| format!("{shown}: {e}"))?;
            let public = auth::encode_public_key(&RsaPublicKey::from(&key))?;
            let public_path = PathBuf::from(format!("{}.pub", path.display()));
            std::fs::write(&public_path, format!("{public} guigym@{}\n", host_name())).map_err(|e| format!("{}: {e}", public_path.display()))?;
            Ok(key)
        }
        Err(e) => Err(format!("{shown}: {e}")),
    }
}

/// Where adb keeps its key: `$ANDROID_USER_HOME` or `~/.android`, then `adbkey`.
pub fn default_key_path() -> PathBuf {
    let dir = std::env::var_os("ANDROID_USER_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".android")))
        .unwrap_or_else(|| PathBuf::from(".android"));
    dir.join("adbkey")
}

fn host_name() -> String {
    std::fs::read_to_string("/etc/hostname").map(|h| h.trim().to_string()).ok().filter(|h| !h.is_empty()).unwrap_or_else(|| "localhost".into())
}

/// A private key is readable by its owner only.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(bytes)
}

/// An open transport: where messages go, where they come from (a reader task fills it).
struct Connection {
    write: OwnedWriteHalf,
    incoming: mpsc::Receiver<Message>,
    /// The largest payload the device takes.
    max_payload: usize,
    next_local: u32,
}

/// A device reached at `HOST:PORT` on its own transport.
pub struct DirectLink {
    addr: String,
    key: Arc<RsaPrivateKey>,
    timeout: Duration,
    connection: Arc<Mutex<Option<Connection>>>,
}

impl DirectLink {
    pub fn new(addr: impl Into<String>, key: Arc<RsaPrivateKey>, timeout: Duration) -> DirectLink {
        DirectLink { addr: addr.into(), key, timeout, connection: Arc::default() }
    }

    /// CNXN and, when the device asks, AUTH: our signature first; if it is refused, our public
    /// key, which a phone shows its user to accept (the wait is the link's deadline).
    async fn connect(&self) -> Result<Connection, AdbError> {
        let socket = TcpStream::connect(&self.addr).await.map_err(|source| AdbError::Connect { what: "device", addr: self.addr.clone(), source })?;
        let _ = socket.set_nodelay(true);
        let (mut read, mut write) = socket.into_split();
        Message::new(CNXN, VERSION, MAX_PAYLOAD, b"host::features=shell_v2,cmd\0".to_vec()).write(&mut write).await.map_err(protocol)?;
        let mut signed = false;
        let mut offered = false;
        // Half the link's deadline to be let in, so that a refusal is told as one.
        let deadline = tokio::time::Instant::now() + self.timeout / 2;
        let max_payload = loop {
            let m = match tokio::time::timeout_at(deadline, Message::read(&mut read)).await {
                Ok(m) => m.map_err(protocol)?,
                Err(_) if offered => {
                    return Err(AdbError::Refused {
                        request: format!("connect {}", self.addr),
                        message: "the device does not trust our key: accept it on the device's screen, or add our adbkey.pub to the keys it trusts".into(),
                    })
                }
                Err(_) => return Err(AdbError::Timeout(format!("connect {}", self.addr))),
            };
            match (m.command, m.arg0) {
                (CNXN, _) => break (m.arg1 as usize).clamp(1024, MAX_PAYLOAD as usize),
                (AUTH, AUTH_TOKEN) if !signed => {
                    signed = true;
                    let signature = auth::sign(&self.key, &m.payload).map_err(AdbError::Protocol)?;
                    Message::new(AUTH, AUTH_SIGNATURE, 0, signature).write(&mut write).await.map_err(protocol)?;
                }
                (AUTH, AUTH_TOKEN) => {
                    let public = auth::encode_public_key(&RsaPublicKey::from(&*self.key)).map_err(AdbError::Protocol)?;
                    let offer = format!("{public} guigym@{}\0", host_name());
                    Message::new(AUTH, AUTH_RSAPUBLICKEY, 0, offer).write(&mut write).await.map_err(protocol)?;
                    offered = true;
                    tracing::info!("adb: {} does not know our key; accept it on the device", self.addr);
                }
                (STLS, _) => {
                    return Err(AdbError::Refused {
                        request: format!("connect {}", self.addr),
                        message: "the device wants TLS (Android 11's wireless debugging); pair it with `adb pair` and go through the adb server".into(),
                    });
                }
                _ => {}
            }
        };
        // A reader task, so that waiting for a message can be given up without losing one.
        let (tx, incoming) = mpsc::channel(64);
        tokio::spawn(async move {
            while let Ok(m) = Message::read(&mut read).await {
                if tx.send(m).await.is_err() {
                    break;
                }
            }
        });
        Ok(Connection { write, incoming, max_payload, next_local: 1 })
    }
}

fn protocol(e: crate::message::MessageError) -> AdbError {
    match e {
        crate::message::MessageError::Io(io) => AdbError::Io(io),
        other => AdbError::Protocol(other.to_string()),
    }
}

fn gone() -> AdbError {
    AdbError::Io(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "the device closed the connection"))
}

#[async_trait]
impl Link for DirectLink {
    fn serial(&self) -> &str {
        &self.addr
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    async fn open(&self, service: &str) -> Result<Box<dyn Pipe>, AdbError> {
        // The connection is this stream's until it ends: streams take turns.
        let mut held = self.connection.clone().lock_owned().await;
        if held.is_none() {
            *held = Some(self.connect().await?);
        }
        let Some(c) = held.as_mut() else { return Err(gone()) };
        let local = c.next_local;
        c.next_local = c.next_local.wrapping_add(1).max(1);
        let mut service_bytes = service.as_bytes().to_vec();
        service_bytes.push(0);
        let opened = async {
            Message::new(OPEN, local, 0, service_bytes).write(&mut c.write).await.map_err(protocol)?;
            loop {
                let m = c.incoming.recv().await.ok_or_else(gone)?;
                match m.command {
                    OKAY if m.arg1 == local => return Ok(m.arg0),
                    CLSE if m.arg1 == local => return Err(AdbError::Refused { request: service.to_string(), message: "the device closed the stream".into() }),
                    // What is left of an earlier stream.
                    _ => {}
                }
            }
        };
        let remote = match opened.await {
            Ok(remote) => remote,
            Err(e) => {
                if !matches!(e, AdbError::Refused { .. }) {
                    *held = None;
                }
                return Err(e);
            }
        };
        let (ours, theirs) = tokio::io::duplex(MAX_PAYLOAD as usize);
        tokio::spawn(async move {
            let broken = pump(held.as_mut(), local, remote, theirs).await.is_err();
            if broken {
                // The transport is in an unknown state: the next call connects again.
                *held = None;
            }
        });
        Ok(Box::new(ours))
    }
}

/// Moves one stream's bytes between the transport and the caller's pipe until either side
/// closes: the device's writes into the pipe (each acknowledged), the caller's writes out in
/// pieces the device takes, one in flight at a time.
async fn pump(c: Option<&mut Connection>, local: u32, remote: u32, mut pipe: DuplexStream) -> Result<(), AdbError> {
    let Some(c) = c else { return Err(gone()) };
    let mut buffer = vec![0u8; c.max_payload];
    let mut in_flight = false;
    loop {
        tokio::select! {
            m = c.incoming.recv() => {
                let m = m.ok_or_else(gone)?;
                if m.arg1 != local {
                    continue;
                }
                match m.command {
                    WRTE => {
                        Message::new(OKAY, local, remote, Vec::new()).write(&mut c.write).await.map_err(protocol)?;
                        if pipe.write_all(&m.payload).await.is_err() {
                            // The caller is gone: close the stream.
                            Message::new(CLSE, local, remote, Vec::new()).write(&mut c.write).await.map_err(protocol)?;
                            return Ok(());
                        }
                    }
                    OKAY => in_flight = false,
                    CLSE => {
                        let _ = pipe.shutdown().await;
                        Message::new(CLSE, local, remote, Vec::new()).write(&mut c.write).await.map_err(protocol)?;
                        return Ok(());
                    }
                    _ => {}
                }
            }
            read = pipe.read(&mut buffer), if !in_flight => {
                match read {
                    Ok(0) | Err(_) => {
                        Message::new(CLSE, local, remote, Vec::new()).write(&mut c.write).await.map_err(protocol)?;
                        return Ok(());
                    }
                    Ok(n) => {
                        Message::new(WRTE, local, remote, buffer[..n].to_vec()).write(&mut c.write).await.map_err(protocol)?;
                        in_flight = true;
                    }
                }
            }
        }
    }
}
