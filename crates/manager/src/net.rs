//! The manager's and workers' HTTP server loop, bounded against slow and idle clients: a
//! header-read timeout (which also closes keep-alive connections idle that long), a cap on
//! open connections (the excess is closed at once, before it can hold a file descriptor),
//! and the process's open-file limit raised to its hard limit at start. Bodies are bounded by
//! `api::finish` (size at once, arrival within a timeout).

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections open at once; more are closed as they arrive.
    pub max_connections: usize,
    /// Time a client has to send a request's headers, and the longest a connection may sit
    /// idle between requests.
    pub header_read: Duration,
}

impl Limits {
    /// Defaults for this process: connections up to the open-file limit less a reserve for
    /// instances (browsers, files, outgoing connections).
    pub fn for_process() -> Limits {
        let files = open_file_limit() as usize;
        Limits { max_connections: (files.saturating_sub(256) / 2).clamp(64, 65_536), header_read: Duration::from_secs(10) }
    }
}

/// Raises the soft open-file limit to the hard limit; returns (before, after).
pub fn raise_open_file_limit() -> (u64, u64) {
    let Ok((soft, hard)) = rlimit::Resource::NOFILE.get() else { return (0, 0) };
    let target = hard.min(1 << 20);
    if target > soft && rlimit::Resource::NOFILE.set(target, hard).is_ok() {
        return (soft, target);
    }
    (soft, soft)
}

fn open_file_limit() -> u64 {
    rlimit::Resource::NOFILE.get().map(|(soft, _)| soft).unwrap_or(1024)
}

/// Serves `router` on `listener` until the process ends.
pub async fn serve(listener: TcpListener, router: Router, limits: Limits) -> std::io::Result<()> {
    let open = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of descriptors or a connection reset before accept: wait a moment.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            drop(stream); // over the cap: refused at once
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read)
                .serve_connection(TokioIo::new(stream), service);
            let _ = connection.await;
            drop(permit);
        });
    }
}
