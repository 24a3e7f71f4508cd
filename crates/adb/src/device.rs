//! The device side of ADB's transport: what `adbd` does on a phone, over TCP, so that
//! `adb connect HOST:PORT` (Debian's adb, or any client of the protocol) reaches a `Device`.
//! A connection opens with CNXN (and AUTH when keys are required); then the host opens
//! streams to services, each answered by a task of its own:
//! - `shell:CMD` (raw output), `shell,v2,…:CMD` (framed stdout, stderr and exit code),
//!   `shell:` alone (one command per line until `exit`);
//! - `exec:CMD` (raw stdout, as `adb exec-out` reads it);
//! - `sync:` (stat, list, pull and push of files).
//!
//! Anything else is refused by closing the stream, as adbd refuses a service it lacks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::auth::AuthKeys;
use crate::message::{Message, MessageError, AUTH, AUTH_SIGNATURE, AUTH_TOKEN, CLSE, CNXN, MAX_PAYLOAD, OKAY, OPEN, VERSION, WRTE};
use crate::sync;

/// What a shell command printed and its exit status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit: u8,
}

impl ShellOutput {
    pub fn ok(stdout: impl Into<Vec<u8>>) -> ShellOutput {
        ShellOutput { stdout: stdout.into(), stderr: Vec::new(), exit: 0 }
    }

    pub fn fail(exit: u8, stderr: impl Into<Vec<u8>>) -> ShellOutput {
        ShellOutput { stdout: Vec::new(), stderr: stderr.into(), exit }
    }
}

/// A file on the device, as `sync:` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// Unix mode bits with the file type (`0o100644`, `0o040755`).
    pub mode: u32,
    pub size: u32,
    /// Seconds since the epoch.
    pub mtime: u32,
}

/// What an ADB device answers.
#[async_trait]
pub trait Device: Send + Sync + 'static {
    /// The identity sent with CNXN: `device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…`.
    fn banner(&self) -> String;
    /// Runs one command line to completion.
    async fn shell(&self, command: &str) -> ShellOutput;
    /// A path's type and size; `None` when nothing is there.
    async fn stat(&self, path: &str) -> Option<FileStat>;
    /// A directory's entries (names and stats).
    async fn list(&self, path: &str) -> Vec<(String, FileStat)>;
    /// A file's bytes.
    async fn read_file(&self, path: &str) -> Result<Vec<u8>, String>;
    /// Writes a file (what `adb push` sends).
    async fn write_file(&self, path: &str, bytes: Vec<u8>, mode: u32) -> Result<(), String>;
}

/// Serves `device` to every connection on `listener`, until the listener fails. `keys`
/// set: only hosts that sign with one of these keys are let in.
pub async fn serve(listener: TcpListener, device: Arc<dyn Device>, keys: Option<Arc<AuthKeys>>) -> std::io::Result<()> {
    loop {
        let (socket, peer) = listener.accept().await?;
        let _ = socket.set_nodelay(true);
        let (device, keys) = (device.clone(), keys.clone());
        tokio::spawn(async move {
            let (read, write) = socket.into_split();
            if let Err(e) = connection(read, write, device, keys).await {
                tracing::debug!("adb connection from {peer} ended: {e}");
            }
        });
    }
}

/// One host's connection: the handshake, then messages routed to streams.
pub async fn connection(
    mut read: impl AsyncRead + Unpin + Send,
    write: impl AsyncWrite + Unpin + Send + 'static,
    device: Arc<dyn Device>,
    keys: Option<Arc<AuthKeys>>,
) -> Result<(), MessageError> {
    let (out, mut outgoing) = mpsc::channel::<Message>(64);
    // One writer owns the socket's write half: streams send whole messages through it.
    let writer = tokio::spawn(async move {
        let mut write = write;
        while let Some(m) = outgoing.recv().await {
            if m.write(&mut write).await.is_err() {
                break;
            }
        }
    });
    let result = handshake_and_route(&mut read, &out, device, keys).await;
    drop(out);
    let _ = writer.await;
    result
}

/// Sends a message through the writer; a closed writer means the host is gone.
async fn send(out: &mpsc::Sender<Message>, m: Message) -> Result<(), MessageError> {
    out.send(m).await.map_err(|_| MessageError::Io(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the host hung up")))
}

/// Streams one connection may hold open at once; more are refused.
const MAX_STREAMS: usize = 64;
/// Bytes a host may send on a stream ahead of its service reading them; past that the stream
/// is closed (a host writing to a service that does not read cannot fill our memory).
const MAX_UNREAD: usize = 8 << 20;

/// A stream as the routing loop sees it: where the host's data goes (and how much of it is
/// still unread), and where its acknowledgements of our writes go.
struct StreamEnds {
    inbound: mpsc::UnboundedSender<Vec<u8>>,
    unread: Arc<AtomicUsize>,
    acks: mpsc::UnboundedSender<()>,
    remote: u32,
}

async fn handshake_and_route(
    read: &mut (impl AsyncRead + Unpin),
    out: &mpsc::Sender<Message>,
    device: Arc<dyn Device>,
    keys: Option<Arc<AuthKeys>>,
) -> Result<(), MessageError> {
    let mut max_payload = MAX_PAYLOAD;
    // Before the host is let in, only CNXN and AUTH mean anything.
    let mut token: Option<[u8; 20]> = None;
    loop {
        let m = Message::read(read).await?;
        match m.command {
            CNXN => {
                max_payload = m.arg1.clamp(4096, MAX_PAYLOAD);
                match &keys {
                    None => break,
                    Some(_) => {
                        let t = crate::auth::token();
                        token = Some(t);
                        send(out, Message::new(AUTH, AUTH_TOKEN, 0, t.to_vec())).await?;
                    }
                }
            }
            AUTH if m.arg0 == AUTH_SIGNATURE => {
                let (Some(keys), Some(t)) = (&keys, token) else { continue };
                if keys.verify(&t, &m.payload) {
                    break;
                }
                // A signature no key matches: a new token, as adbd asks for the next key.
                let t = crate::auth::token();
                token = Some(t);
                send(out, Message::new(AUTH, AUTH_TOKEN, 0, t.to_vec())).await?;
            }
            // A public key offered for the user to accept: nobody is there to accept it.
            AUTH => tracing::info!("adb: a host offered a key this device does not know; refused"),
            _ => {}
        }
    }
    send(out, Message::new(CNXN, VERSION, MAX_PAYLOAD, device.banner().into_bytes())).await?;

    let mut streams: HashMap<u32, StreamEnds> = HashMap::new();
    let mut next_id: u32 = 1;
    loop {
        let m = Message::read(read).await?;
        match m.command {
            OPEN => {
                let remote = m.arg0;
                let service = String::from_utf8_lossy(&m.payload).trim_end_matches('\0').to_string();
                streams.retain(|_, s| !s.inbound.is_closed());
                let parsed = if streams.len() < MAX_STREAMS { Service::parse(&service) } else { None };
                let Some(service) = parsed else {
                    tracing::debug!("adb: refused service {service:?}");
                    send(out, Message::new(CLSE, 0, remote, Vec::new())).await?;
                    continue;
                };
                let local = next_id;
                next_id = next_id.wrapping_add(1).max(1);
                let (inbound, inbound_rx) = mpsc::unbounded_channel();
                let (acks, acks_rx) = mpsc::unbounded_channel();
                let unread = Arc::new(AtomicUsize::new(0));
                streams.insert(local, StreamEnds { inbound, unread: unread.clone(), acks, remote });
                send(out, Message::new(OKAY, local, remote, Vec::new())).await?;
                let io = StreamIo { local, remote, max_payload, out: out.clone(), inbound: inbound_rx, unread, acks: acks_rx, pending: Vec::new() };
                tokio::spawn(service.run(device.clone(), io));
            }
            WRTE => {
                let Some(s) = streams.get(&m.arg1) else { continue };
                if s.unread.fetch_add(m.payload.len(), Ordering::SeqCst) + m.payload.len() > MAX_UNREAD {
                    tracing::debug!("adb: stream {} closed: its service left {MAX_UNREAD} bytes unread", m.arg1);
                    let remote = s.remote;
                    streams.remove(&m.arg1);
                    send(out, Message::new(CLSE, m.arg1, remote, Vec::new())).await?;
                    continue;
                }
                let _ = s.inbound.send(m.payload);
                send(out, Message::new(OKAY, m.arg1, m.arg0, Vec::new())).await?;
            }
            OKAY => {
                if let Some(s) = streams.get(&m.arg1) {
                    let _ = s.acks.send(());
                }
            }
            CLSE => {
                // Dropping the ends tells the service the host is done with the stream.
                streams.remove(&m.arg1);
            }
            CNXN => send(out, Message::new(CNXN, VERSION, MAX_PAYLOAD, device.banner().into_bytes())).await?,
            _ => {}
        }
        // Streams whose service has finished are forgotten.
        streams.retain(|_, s| !s.inbound.is_closed());
    }
}

/// One stream, as its service uses it: read what the host writes, write back with one write
/// in flight at a time (the host acknowledges each), close.
pub struct StreamIo {
    local: u32,
    remote: u32,
    max_payload: u32,
    out: mpsc::Sender<Message>,
    inbound: mpsc::UnboundedReceiver<Vec<u8>>,
    /// Bytes the host sent that are not read yet (the router's count, lowered as they are).
    unread: Arc<AtomicUsize>,
    acks: mpsc::UnboundedReceiver<()>,
    /// Bytes received but not yet read.
    pending: Vec<u8>,
}

impl StreamIo {
    /// Exactly `n` bytes from the host; `None` when the host closed the stream first.
    pub async fn read_exact(&mut self, n: usize) -> Option<Vec<u8>> {
        while self.pending.len() < n {
            let more = self.inbound.recv().await?;
            self.pending.extend_from_slice(&more);
        }
        self.unread.fetch_sub(n, Ordering::SeqCst);
        Some(self.pending.drain(..n).collect())
    }

    /// Whatever the host sends next; `None` when it closed the stream.
    pub async fn read_some(&mut self) -> Option<Vec<u8>> {
        let bytes = if self.pending.is_empty() { self.inbound.recv().await? } else { std::mem::take(&mut self.pending) };
        self.unread.fetch_sub(bytes.len(), Ordering::SeqCst);
        Some(bytes)
    }

    /// Sends bytes, cut to the agreed payload size, each piece acknowledged before the next.
    pub async fn write(&mut self, data: &[u8]) -> Result<(), MessageError> {
        for chunk in data.chunks(self.max_payload as usize) {
            send(&self.out, Message::new(WRTE, self.local, self.remote, chunk.to_vec())).await?;
            if self.acks.recv().await.is_none() {
                return Err(MessageError::Io(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the host closed the stream")));
            }
        }
        Ok(())
    }

    /// Closes the stream from this side.
    pub async fn close(self) {
        let _ = send(&self.out, Message::new(CLSE, self.local, self.remote, Vec::new())).await;
    }
}

/// Shell v2 packet kinds.
const V2_STDOUT: u8 = 1;
const V2_STDERR: u8 = 2;
const V2_EXIT: u8 = 3;

fn v2_packet(kind: u8, data: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(5 + data.len());
    p.push(kind);
    p.extend_from_slice(&(data.len() as u32).to_le_bytes());
    p.extend_from_slice(data);
    p
}

/// A service a stream was opened to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Service {
    /// `shell:CMD`: stdout and stderr as one raw stream; no exit status.
    Shell(String),
    /// `shell,v2,…:CMD`: framed stdout, stderr and the exit status.
    ShellV2(String),
    /// `exec:CMD`: raw stdout only.
    Exec(String),
    Sync,
}

impl Service {
    fn parse(service: &str) -> Option<Service> {
        let (name, rest) = service.split_once(':')?;
        let mut options = name.split(',');
        match options.next()? {
            "shell" if options.any(|o| o == "v2") => Some(Service::ShellV2(rest.to_string())),
            "shell" => Some(Service::Shell(rest.to_string())),
            "exec" => Some(Service::Exec(rest.to_string())),
            "sync" => Some(Service::Sync),
            _ => None,
        }
    }

    async fn run(self, device: Arc<dyn Device>, mut io: StreamIo) {
        let result = match self {
            Service::Shell(command) if command.trim().is_empty() => interactive(&*device, &mut io).await,
            Service::Shell(command) => {
                let o = device.shell(&command).await;
                let mut both = o.stdout;
                both.extend_from_slice(&o.stderr);
                io.write(&both).await
            }
            Service::ShellV2(command) => {
                let o = device.shell(&command).await;
                let mut framed = Vec::new();
                if !o.stdout.is_empty() {
                    framed.extend(v2_packet(V2_STDOUT, &o.stdout));
                }
                if !o.stderr.is_empty() {
                    framed.extend(v2_packet(V2_STDERR, &o.stderr));
                }
                framed.extend(v2_packet(V2_EXIT, &[o.exit]));
                io.write(&framed).await
            }
            Service::Exec(command) => io.write(&device.shell(&command).await.stdout).await,
            Service::Sync => sync::serve(&*device, &mut io).await,
        };
        if let Err(e) = result {
            tracing::debug!("adb stream {}: {e}", io.local);
        }
        io.close().await;
    }
}

/// `adb shell` without a command: one command per line, a prompt before each, until `exit`
/// or the host closes the stream.
async fn interactive(device: &dyn Device, io: &mut StreamIo) -> Result<(), MessageError> {
    const PROMPT: &[u8] = b"guigym:/ $ ";
    io.write(PROMPT).await?;
    let mut line = Vec::new();
    while let Some(bytes) = io.read_some().await {
        for b in bytes {
            if b != b'\n' && b != b'\r' {
                line.push(b);
                continue;
            }
            let command = String::from_utf8_lossy(&std::mem::take(&mut line)).trim().to_string();
            if command == "exit" {
                return Ok(());
            }
            if !command.is_empty() {
                let o = device.shell(&command).await;
                io.write(&o.stdout).await?;
                io.write(&o.stderr).await?;
            }
            io.write(PROMPT).await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_are_told_apart_by_name_and_options() {
        assert_eq!(Service::parse("shell:input tap 1 2"), Some(Service::Shell("input tap 1 2".into())));
        assert_eq!(Service::parse("shell,v2,TERM=xterm-256color,raw:ls"), Some(Service::ShellV2("ls".into())));
        assert_eq!(Service::parse("shell,v2,raw:echo a:b"), Some(Service::ShellV2("echo a:b".into())));
        assert_eq!(Service::parse("exec:screencap -p"), Some(Service::Exec("screencap -p".into())));
        assert_eq!(Service::parse("sync:"), Some(Service::Sync));
        assert_eq!(Service::parse("reverse:forward:tcp:1;tcp:2"), None);
        assert_eq!(Service::parse("nonsense"), None);
    }

    /// A device whose every command takes a second and prints nothing.
    struct Slow;

    #[async_trait]
    impl Device for Slow {
        fn banner(&self) -> String {
            "device::features=shell_v2".into()
        }
        async fn shell(&self, _: &str) -> ShellOutput {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            ShellOutput::default()
        }
        async fn stat(&self, _: &str) -> Option<FileStat> {
            None
        }
        async fn list(&self, _: &str) -> Vec<(String, FileStat)> {
            Vec::new()
        }
        async fn read_file(&self, _: &str) -> Result<Vec<u8>, String> {
            Err("none".into())
        }
        async fn write_file(&self, _: &str, _: Vec<u8>, _: u32) -> Result<(), String> {
            Ok(())
        }
    }

    /// The next message the device sends that is not an OKAY.
    async fn next_other_than_okay(r: &mut (impl AsyncRead + Unpin)) -> Message {
        loop {
            let m = Message::read(r).await.unwrap();
            if m.command != OKAY {
                return m;
            }
        }
    }

    #[tokio::test]
    async fn a_host_cannot_hold_unbounded_streams_or_unread_data() {
        let (host, device) = tokio::io::duplex(1 << 20);
        let (device_read, device_write) = tokio::io::split(device);
        tokio::spawn(connection(device_read, device_write, Arc::new(Slow), None));
        let (mut r, mut w) = tokio::io::split(host);
        Message::new(CNXN, VERSION, MAX_PAYLOAD, b"host::\0".to_vec()).write(&mut w).await.unwrap();
        assert_eq!(Message::read(&mut r).await.unwrap().command, CNXN);
        // Data written to a stream whose service never reads: the stream is closed.
        Message::new(OPEN, 1, 0, b"shell:sleep 1\0".to_vec()).write(&mut w).await.unwrap();
        let opened = Message::read(&mut r).await.unwrap();
        assert_eq!((opened.command, opened.arg1), (OKAY, 1));
        for _ in 0..40 {
            Message::new(WRTE, 1, opened.arg0, vec![0u8; 256 * 1024]).write(&mut w).await.unwrap();
        }
        let closed = next_other_than_okay(&mut r).await;
        assert_eq!((closed.command, closed.arg1), (CLSE, 1), "the flooded stream is closed");
        // Streams past the limit are refused.
        for id in 0..MAX_STREAMS as u32 + 1 {
            Message::new(OPEN, 100 + id, 0, b"shell:sleep 1\0".to_vec()).write(&mut w).await.unwrap();
        }
        let refused = next_other_than_okay(&mut r).await;
        assert_eq!((refused.command, refused.arg0, refused.arg1), (CLSE, 0, 100 + MAX_STREAMS as u32));
    }

    #[test]
    fn shell_v2_packets_carry_kind_and_length() {
        assert_eq!(v2_packet(V2_EXIT, &[127]), vec![3, 1, 0, 0, 0, 127]);
        assert_eq!(&v2_packet(V2_STDOUT, b"hi")[..5], &[1, 2, 0, 0, 0]);
    }
}
