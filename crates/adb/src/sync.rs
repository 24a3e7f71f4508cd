//! The `sync:` service, device side: what `adb pull`, `adb push` and `adb ls` speak. Each
//! request is a 4-letter id, a little-endian length and that many bytes (a path); replies
//! use the same framing. Version 1 of stat and list (`STAT`, `LIST`): this device does not
//! announce `stat_v2`, so hosts do not ask for version 2.

use crate::device::{Device, FileStat, StreamIo};
use crate::message::MessageError;

/// The largest `DATA` piece, as adb's sync protocol allows.
const SYNC_DATA_MAX: usize = 64 * 1024;
/// The longest path a request may carry (adb's own limit).
const PATH_MAX: usize = 1024;
/// The largest file a push may send: the device keeps files in memory.
pub const FILE_MAX: usize = 64 << 20;

fn frame(id: &[u8; 4], words: &[u32]) -> Vec<u8> {
    let mut out = id.to_vec();
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out
}

fn fail(message: &str) -> Vec<u8> {
    let mut out = frame(b"FAIL", &[message.len() as u32]);
    out.extend_from_slice(message.as_bytes());
    out
}

/// Answers requests until `QUIT`, the host closing the stream, or a request it cannot read.
pub async fn serve(device: &dyn Device, io: &mut StreamIo) -> Result<(), MessageError> {
    loop {
        let Some(header) = io.read_exact(8).await else { return Ok(()) };
        let id: [u8; 4] = [header[0], header[1], header[2], header[3]];
        let length = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
        if &id == b"QUIT" {
            return Ok(());
        }
        if length > PATH_MAX {
            return io.write(&fail("path too long")).await;
        }
        let Some(path) = io.read_exact(length).await else { return Ok(()) };
        let path = String::from_utf8_lossy(&path).into_owned();
        match &id {
            b"STAT" => {
                let st = device.stat(&path).await.unwrap_or(FileStat { mode: 0, size: 0, mtime: 0 });
                io.write(&frame(b"STAT", &[st.mode, st.size, st.mtime])).await?;
            }
            b"LIST" => {
                let mut out = Vec::new();
                for (name, st) in device.list(&path).await {
                    out.extend(frame(b"DENT", &[st.mode, st.size, st.mtime, name.len() as u32]));
                    out.extend_from_slice(name.as_bytes());
                }
                out.extend(frame(b"DONE", &[0, 0, 0, 0]));
                io.write(&out).await?;
            }
            b"RECV" => match device.read_file(&path).await {
                Ok(bytes) => {
                    let mut out = Vec::with_capacity(bytes.len() + 16);
                    for chunk in bytes.chunks(SYNC_DATA_MAX) {
                        out.extend(frame(b"DATA", &[chunk.len() as u32]));
                        out.extend_from_slice(chunk);
                    }
                    out.extend(frame(b"DONE", &[0]));
                    io.write(&out).await?;
                }
                Err(e) => io.write(&fail(&e)).await?,
            },
            b"SEND" => {
                // "PATH,MODE", then DATA pieces, then DONE with the file's time.
                let (target, mode) = match path.rsplit_once(',') {
                    Some((p, m)) => (p.to_string(), m.parse::<u32>().unwrap_or(0o100644)),
                    None => (path.clone(), 0o100644),
                };
                let mut bytes = Vec::new();
                loop {
                    let Some(h) = io.read_exact(8).await else { return Ok(()) };
                    let n = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
                    match &h[..4] {
                        b"DATA" if n <= SYNC_DATA_MAX => {
                            let Some(piece) = io.read_exact(n).await else { return Ok(()) };
                            if bytes.len() + piece.len() > FILE_MAX {
                                return io.write(&fail(&format!("file too large: at most {} MiB", FILE_MAX >> 20))).await;
                            }
                            bytes.extend_from_slice(&piece);
                        }
                        b"DONE" => break,
                        _ => return io.write(&fail("bad SEND piece")).await,
                    }
                }
                match device.write_file(&target, bytes, mode).await {
                    Ok(()) => io.write(&frame(b"OKAY", &[0])).await?,
                    Err(e) => io.write(&fail(&e)).await?,
                }
            }
            other => {
                let name = String::from_utf8_lossy(other).into_owned();
                return io.write(&fail(&format!("unknown sync request {name:?}"))).await;
            }
        }
    }
}
