//! `Buffer`: the trajectory buffer as a service holds it, with or without its journal. Every
//! change goes through `apply`, which runs it on the buffer in memory and hands what it changed
//! to the journal under the same lock (so the journal's order is the buffer's order), then
//! waits, without the lock, until that is on disk: whoever is answered after `apply` returns
//! is answered with what a crash cannot take back.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use super::journal::{Journal, JournalError, Restored};
use super::TrajectoryBuffer;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BufferError {
    /// The journal could not write: nothing is answered as done, and the buffer refuses
    /// changes until it is restarted.
    #[error("{0}")]
    Journal(String),
}

pub struct Buffer {
    state: Mutex<TrajectoryBuffer>,
    journal: Option<Journal>,
    /// Set once the journal failed.
    failed: Mutex<Option<String>>,
}

impl Buffer {
    /// A buffer in memory only: fast, and gone with its process.
    pub fn in_memory(buffer: TrajectoryBuffer) -> Buffer {
        Buffer { state: Mutex::new(buffer), journal: None, failed: Mutex::new(None) }
    }

    /// A buffer whose every change is journaled in `dir` before it is answered; what the
    /// journal holds from an earlier run is taken up (`configure` sets the limits and timeouts
    /// on the restored buffer).
    pub fn durable(dir: &Path, max_staleness: u64, configure: impl FnOnce(&mut TrajectoryBuffer)) -> Result<Buffer, JournalError> {
        Ok(Buffer::with_journal(Journal::open(dir)?, max_staleness, configure))
    }

    fn with_journal(opened: (Journal, Restored), max_staleness: u64, configure: impl FnOnce(&mut TrajectoryBuffer)) -> Buffer {
        let (journal, restored) = opened;
        let mut buffer = TrajectoryBuffer::restore(restored, max_staleness);
        configure(&mut buffer);
        Buffer { state: Mutex::new(buffer), journal: Some(journal), failed: Mutex::new(None) }
    }

    pub fn is_durable(&self) -> bool {
        self.journal.is_some()
    }

    /// The buffer for reading (figures, counts); changes go through `apply`.
    pub fn read(&self) -> MutexGuard<'_, TrajectoryBuffer> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the buffer and returns its result once every change it made (and every
    /// change made before it) is on disk.
    pub async fn apply<T>(&self, f: impl FnOnce(&mut TrajectoryBuffer) -> T) -> Result<T, BufferError> {
        if let Some(why) = self.failed.lock().unwrap_or_else(|p| p.into_inner()).clone() {
            return Err(BufferError::Journal(why));
        }
        let (result, written) = {
            let mut state = self.read();
            let result = f(&mut state);
            let changes = state.take_changes();
            // Now and then the whole state, so that the journal can let go of what is spent.
            let written = self.journal.as_ref().map(|j| j.write(changes, j.wants_snapshot().then(|| state.snapshot())));
            (result, written)
        };
        let Some(written) = written else { return Ok(result) };
        let outcome = written.await.unwrap_or_else(|_| Err("the journal's thread has ended".into()));
        if let Err(why) = outcome {
            *self.failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(why.clone());
            return Err(BufferError::Journal(why));
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::super::tests::group;
    use super::super::{Accepted, AckError, Acked};
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("guigym-journal-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn open(path: &Path) -> Buffer {
        Buffer::durable(path, 1, |b| b.lease_timeout = Duration::from_secs(60)).unwrap()
    }

    #[tokio::test]
    async fn a_reopened_journal_gives_back_the_queue_the_leases_and_what_was_consumed() {
        let path = scratch("reopen");
        let (first, second) = {
            let b = open(&path);
            for (id, n) in [("a", 2), ("b", 1), ("c", 3), ("d", 1)] {
                let (g, s) = group(id, 0, n);
                assert_eq!(b.apply(|x| x.push_group(&g, Some(n), s)).await.unwrap(), Ok(Accepted::Queued));
            }
            let (first, _) = b.apply(|x| x.lease(2, Instant::now())).await.unwrap().unwrap();
            let (second, _) = b.apply(|x| x.lease(1, Instant::now())).await.unwrap().unwrap();
            assert_eq!(b.apply(|x| x.ack(&first, Instant::now())).await.unwrap(), Ok(Acked::Consumed(2)));
            b.apply(|x| x.bump(3)).await.unwrap();
            (first, second)
        };
        // As after a crash: a new buffer on the same file.
        let b = open(&path);
        {
            let x = b.read();
            assert_eq!(x.weight_version, 3);
            assert_eq!(x.consumed, 2, "a's samples were consumed");
            assert_eq!(x.leased(), 1, "b is still leased");
            assert_eq!(x.len(), 0, "c and d were version 0, stale after the bump to 3");
            assert_eq!(x.dropped_stale, 4);
        }
        let (g, s) = group("a", 3, 2);
        assert_eq!(b.apply(|x| x.push_group(&g, Some(2), s)).await.unwrap(), Ok(Accepted::Duplicate), "accepted once, across restarts");
        assert_eq!(b.apply(|x| x.ack(&first, Instant::now())).await.unwrap(), Ok(Acked::Again));
        assert_eq!(b.apply(|x| x.ack(&second, Instant::now())).await.unwrap(), Ok(Acked::Consumed(1)), "a lease outlives the restart");
        assert_eq!(b.apply(|x| x.ack("batch-0", Instant::now())).await.unwrap(), Err(AckError::Unknown));
        drop(b);
        let b = open(&path);
        assert_eq!(b.read().consumed, 3);
        assert!(b.apply(|x| x.lease(100, Instant::now())).await.unwrap().is_none(), "nothing is served twice");
    }

    #[tokio::test]
    async fn an_unacknowledged_lease_comes_back_after_a_restart() {
        let path = scratch("expire");
        let batch = {
            let b = Buffer::durable(&path, 1, |b| b.lease_timeout = Duration::from_millis(1)).unwrap();
            let (g, s) = group("a", 0, 2);
            b.apply(|x| x.push_group(&g, Some(2), s)).await.unwrap().unwrap();
            b.apply(|x| x.lease(10, Instant::now())).await.unwrap().unwrap().0
        };
        std::thread::sleep(Duration::from_millis(5));
        let b = open(&path);
        let (again, groups) = b.apply(|x| x.lease(10, Instant::now())).await.unwrap().expect("served again once its lease ran out");
        assert_eq!(groups[0].id, "a");
        assert_eq!(groups[0].samples.len(), 2);
        assert_eq!(b.apply(|x| x.ack(&batch, Instant::now())).await.unwrap(), Err(AckError::Expired));
        assert_eq!(b.apply(|x| x.ack(&again, Instant::now())).await.unwrap(), Ok(Acked::Consumed(2)));
        assert_eq!(b.read().expired_batches, 1);
    }

    #[test]
    fn a_journal_is_held_by_one_buffer_at_a_time() {
        let path = scratch("held");
        let first = open(&path);
        let second = Buffer::durable(&path, 1, |_| {}).err().expect("the journal is taken");
        assert!(second.to_string().contains("another buffer holds this journal"), "{second}");
        drop(first);
        assert!(Buffer::durable(&path, 1, |_| {}).is_ok(), "free again once the first is gone");
    }

    #[tokio::test]
    async fn a_snapshot_replaces_the_log_and_holds_the_same_state() {
        let dir = scratch("snapshot");
        let open_small = || Buffer::with_journal(Journal::open_compacting_past(&dir, 4096).unwrap(), 1, |b| b.lease_timeout = Duration::from_secs(60));
        let (held, before) = {
            let b = open_small();
            for i in 0..40 {
                let (g, s) = group(&format!("g{i}"), 0, 3);
                b.apply(|x| x.push_group(&g, Some(3), s)).await.unwrap().unwrap();
                // Most groups are consumed at once; a few stay queued, one stays leased.
                if i % 10 != 9 {
                    let (batch, _) = b.apply(|x| x.lease(1, Instant::now())).await.unwrap().unwrap();
                    b.apply(|x| x.ack(&batch, Instant::now())).await.unwrap().unwrap();
                }
            }
            let (held, _) = b.apply(|x| x.lease(1, Instant::now())).await.unwrap().unwrap();
            b.apply(|x| x.bump(1)).await.unwrap();
            let x = b.read();
            (held, (x.len(), x.leased(), x.consumed, x.weight_version))
        };
        assert!(!dir.join("000001.log").exists(), "a snapshot replaced the first file");
        let b = open_small();
        let after = {
            let x = b.read();
            (x.len(), x.leased(), x.consumed, x.weight_version)
        };
        assert_eq!(after, before);
        let (g, s) = group("g3", 1, 3);
        assert_eq!(b.apply(|x| x.push_group(&g, Some(3), s)).await.unwrap(), Ok(Accepted::Duplicate), "a consumed group is still known");
        assert_eq!(b.apply(|x| x.ack(&held, Instant::now())).await.unwrap(), Ok(Acked::Consumed(3)), "the lease survived the snapshot");
    }

    #[tokio::test]
    async fn concurrent_writers_share_commits_and_lose_nothing() {
        let path = scratch("concurrent");
        let b = std::sync::Arc::new(open(&path));
        let mut tasks = Vec::new();
        for i in 0..200 {
            let b = b.clone();
            tasks.push(tokio::spawn(async move {
                let (g, s) = group(&format!("g{i}"), 0, 2);
                b.apply(|x| x.push_group(&g, Some(2), s)).await
            }));
        }
        for t in tasks {
            assert_eq!(t.await.unwrap().unwrap(), Ok(Accepted::Queued));
        }
        drop(b);
        assert_eq!(open(&path).read().len(), 400);
    }
}
