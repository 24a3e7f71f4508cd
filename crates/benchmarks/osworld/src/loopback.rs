//! Talking to a server on an instance's own loopback (Chrome's DevTools, VLC's web interface):
//! each instance has its own network, reached through a helper inside it (`Session::loopback`);
//! a session without its own network is reached on this machine's loopback.

use std::time::Duration;

use guigym_desktop::session::Session;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The longest answer read from an HTTP server in an instance.
const MAX_ANSWER: usize = 4 << 20;

pub trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// A stream to the port on the instance's loopback, and the helper process carrying it (it
/// ends when dropped).
pub async fn open_stream(session: &Session, port: u16) -> Result<(Box<dyn Io>, Option<tokio::process::Child>), String> {
    match session.loopback(port)? {
        None => {
            let socket = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.map_err(|e| format!("127.0.0.1:{port}: {e}"))?;
            Ok((Box::new(socket), None))
        }
        Some(helper) => {
            let mut child = tokio::process::Command::from(helper).kill_on_drop(true).spawn().map_err(|e| format!("cannot run socat: {e}"))?;
            let (Some(out), Some(input)) = (child.stdout.take(), child.stdin.take()) else { return Err("socat's pipes are missing".into()) };
            Ok((Box::new(tokio::io::join(out, input)), Some(child)))
        }
    }
}

/// An HTTP answer: its status code and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

/// One `GET` of `path` from the port on the instance's loopback, with `headers`, answered
/// within `wait` (whatever listens there may be the agent's, and slow or silent).
pub async fn get(session: &Session, port: u16, path: &str, headers: &[(&str, &str)], wait: Duration) -> Result<Answer, String> {
    let exchange = async {
        let (mut stream, _helper) = open_stream(session, port).await?;
        let extra: String = headers.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
        // HTTP/1.1 (Chrome's DevTools answer no 1.0), the connection closed after the answer.
        let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}Connection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.map_err(|e| e.to_string())?;
        let mut answer = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            let n = stream.read(&mut chunk).await.map_err(|e| e.to_string())?;
            if n == 0 {
                break;
            }
            answer.extend_from_slice(&chunk[..n]);
            if answer.len() > MAX_ANSWER {
                return Err(format!("the answer on port {port} is longer than {MAX_ANSWER} bytes"));
            }
            if complete_body(&answer).is_some() {
                break;
            }
        }
        parse_answer(&answer).ok_or_else(|| format!("no HTTP answer on port {port}"))
    };
    tokio::time::timeout(wait, exchange).await.map_err(|_| format!("no answer on port {port} within {} s", wait.as_secs()))?
}

/// The body of an HTTP answer once all of it (by its Content-Length) has arrived.
fn complete_body(answer: &[u8]) -> Option<&[u8]> {
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&answer[..end]).to_lowercase();
    let length: usize = head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse().ok())?;
    let body = &answer[end + 4..];
    (body.len() >= length).then(|| &body[..length])
}

/// An answer's status and body: the body by its Content-Length, in chunks, or all that came
/// before the server closed.
fn parse_answer(answer: &[u8]) -> Option<Answer> {
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&answer[..end]).to_lowercase();
    let mut parts = head.lines().next().unwrap_or_default().split_whitespace();
    let status = parts.next().filter(|v| v.starts_with("http/")).and(parts.next()).and_then(|c| c.parse().ok())?;
    let rest = &answer[end + 4..];
    let chunked = head.lines().any(|l| l.strip_prefix("transfer-encoding:").is_some_and(|v| v.trim() == "chunked"));
    let body = match complete_body(answer) {
        Some(body) => body.to_vec(),
        None if chunked => unchunk(rest),
        None => rest.to_vec(),
    };
    Some(Answer { status, body })
}

/// A chunked body's data (what arrived of it).
fn unchunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(line_end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = String::from_utf8_lossy(&rest[..line_end]);
        let Ok(size) = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16) else { break };
        let data = &rest[line_end + 2..];
        if size == 0 || data.len() < size {
            body.extend_from_slice(&data[..size.min(data.len())]);
            break;
        }
        body.extend_from_slice(&data[..size]);
        rest = data.get(size + 2..).unwrap_or_default();
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_by_their_length_or_to_their_end() {
        let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nabcdefgh";
        assert_eq!(complete_body(answer), Some(&b"abcde"[..]));
        assert_eq!(complete_body(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc"), None);
        let a = parse_answer(b"HTTP/1.0 401 Unauthorized\r\nWWW-Authenticate: Basic\r\n\r\nno").unwrap();
        assert_eq!((a.status, a.body.as_slice()), (401, &b"no"[..]));
        let a = parse_answer(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n").unwrap();
        assert_eq!(a.body, b"abcde");
        assert!(parse_answer(b"SSH-2.0-OpenSSH\r\n\r\n").is_none());
        assert!(parse_answer(b"HTTP/1.1 200 OK\r\n").is_none(), "an answer cut before its head ends is none");
    }
}
