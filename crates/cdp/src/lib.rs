//! A thin Chrome DevTools Protocol client over one WebSocket: commands by id (optionally on
//! a flattened target session), answers routed back by id. Events are not needed and are
//! dropped. Everything is read leniently as JSON values, so fields and enum values that newer
//! Chromium versions add never break parsing.
//!
//! The web backend drives its browser with it, and OSWorld's Chrome steps and getters drive
//! the browser of a desktop instance (over a stream into the instance's own network).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CdpError {
    #[error("the browser connection is closed")]
    Closed,
    #[error("{method} timed out after {ms} ms")]
    Timeout { method: String, ms: u64 },
    #[error("{method}: {message}")]
    Protocol { method: String, message: String },
    #[error("cannot connect to the browser: {0}")]
    Connect(String),
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

#[derive(Clone)]
pub struct Cdp {
    out: mpsc::UnboundedSender<Message>,
    pending: Pending,
    next: Arc<AtomicU64>,
    alive: Arc<AtomicBool>,
    pub timeout: Duration,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the reader takes from a message: a command's answer by id; an event's method and
/// parameters are skipped unbuilt.
#[derive(serde::Deserialize)]
struct Incoming {
    id: Option<u64>,
    result: Option<Value>,
    /// Read leniently: an error of any shape is still the command's answer.
    error: Option<Value>,
}

impl Cdp {
    pub async fn connect(ws_url: &str, timeout: Duration) -> Result<Cdp, CdpError> {
        let (ws, _) = tokio_tungstenite::connect_async(ws_url).await.map_err(|e| CdpError::Connect(e.to_string()))?;
        Ok(Self::start(ws, timeout))
    }

    /// Speaks to the browser over a stream already connected to its DevTools port (a socket
    /// reached through another network namespace); `ws_url` names the endpoint.
    pub async fn connect_over<S>(stream: S, ws_url: &str, timeout: Duration) -> Result<Cdp, CdpError>
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let handshake = tokio_tungstenite::client_async(ws_url, stream);
        let (ws, _) = tokio::time::timeout(timeout, handshake)
            .await
            .map_err(|_| CdpError::Connect(format!("no WebSocket handshake within {} ms", timeout.as_millis())))?
            .map_err(|e| CdpError::Connect(e.to_string()))?;
        Ok(Self::start(ws, timeout))
    }

    fn start<S>(ws: WebSocketStream<S>, timeout: Duration) -> Cdp
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (mut sink, mut stream) = ws.split();
        let (out, mut rx) = mpsc::unbounded_channel::<Message>();
        let pending: Pending = Arc::new(Mutex::new(HashMap::new()));
        let alive = Arc::new(AtomicBool::new(true));
        tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                if sink.send(m).await.is_err() {
                    break;
                }
            }
        });
        let (p, a) = (pending.clone(), alive.clone());
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let incoming = match &msg {
                    Message::Text(t) => serde_json::from_str::<Incoming>(t.as_str()),
                    Message::Close(_) => break,
                    _ => continue,
                };
                // Events (no id) and messages that are no JSON are passed over.
                let Ok(Incoming { id: Some(id), result, error }) = incoming else { continue };
                if let Some(tx) = lock(&p).remove(&id) {
                    let answer = match error {
                        Some(e) => Err(e.get("message").or(Some(&e)).and_then(Value::as_str).map_or_else(|| e.to_string(), str::to_string)),
                        None => Ok(result.unwrap_or(Value::Null)),
                    };
                    let _ = tx.send(answer);
                }
            }
            // The socket is gone: the browser crashed or was closed.
            a.store(false, Ordering::SeqCst);
            lock(&p).clear();
        });
        Cdp { out, pending, next: Arc::new(AtomicU64::new(1)), alive, timeout }
    }

    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Sends a command and waits for its result, up to the connection's timeout.
    pub async fn call(&self, session: Option<&str>, method: &str, params: Value) -> Result<Value, CdpError> {
        self.call_within(session, method, params, self.timeout).await
    }

    /// `call`, waiting up to `timeout`.
    pub async fn call_within(&self, session: Option<&str>, method: &str, params: Value, timeout: Duration) -> Result<Value, CdpError> {
        if !self.is_alive() {
            return Err(CdpError::Closed);
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        if self.out.send(Message::Text(msg.to_string().into())).is_err() {
            lock(&self.pending).remove(&id);
            return Err(CdpError::Closed);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(message))) => Err(CdpError::Protocol { method: method.to_string(), message }),
            Ok(Err(_)) => Err(CdpError::Closed),
            Err(_) => {
                lock(&self.pending).remove(&id);
                Err(CdpError::Timeout { method: method.to_string(), ms: timeout.as_millis() as u64 })
            }
        }
    }
}
