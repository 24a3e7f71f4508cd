//! The buffer's journal: an append-only log of every change (`Change`), synced to disk before
//! the buffer answers, from which a restarted buffer takes up its queue, its open leases, the
//! groups it accepted and the batches it saw acknowledged.
//!
//! Why a log of our own and not SQLite (the store's choice): the buffer is a queue, each
//! group's samples written once and read once. In SQLite they go through the WAL and again
//! into the database, a page at a time, and the index beside them needs a second sync when
//! they live in a file of their own; both halved the buffer's throughput. Here a batch of
//! changes is one sequential write and one `fdatasync`, and restoring is reading the log.
//!
//! Layout: `<dir>/<n>.log` files, each a sequence of records `[length u32 LE][crc32 u32 LE]
//! [JSON]`. A buffer writes a new file each time it starts. A record cut short by a crash
//! (its length or checksum does not hold) ends its file: it was never answered, since the
//! answer comes after the sync. When the log has grown well past what the buffer holds, the
//! buffer's whole state is written as a snapshot to a new file, which is synced before the
//! older files are deleted (compaction). A lock file keeps a second buffer off the log.
//!
//! One thread owns the log. Changes arrive as jobs; it takes every job that is waiting,
//! writes them at once and answers them all after the sync (group commit), so concurrent
//! producers share one sync.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use guigym_harness::packing::Sample;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{Change, Group};

/// A snapshot is asked for once the log is larger than this, and at least three quarters of it
/// are spent (groups consumed or dropped): a snapshot then writes at most a third of what it
/// deletes, and a buffer whose trainer has fallen behind is not made to copy its queue again
/// and again.
const COMPACT_FLOOR: u64 = 256 << 20;

#[derive(Debug, thiserror::Error)]
#[error("trajectory buffer journal {path}: {message}")]
pub struct JournalError {
    pub path: String,
    pub message: String,
}

/// The buffer's counts and its trainer's last word, as the journal keeps them.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub next_seq: u64,
    pub weight_version: u64,
    pub figures: Option<(u64, BTreeMap<String, f64>)>,
    pub consumed: u64,
    pub dropped_stale: u64,
    pub expired_batches: u64,
}

/// What a journal holds when it is opened.
#[derive(Debug, Default)]
pub struct Restored {
    pub queued: Vec<Group>,
    /// (batch, deadline in Unix ms, its groups) of every lease not yet acknowledged.
    pub leases: Vec<(String, u64, Vec<Group>)>,
    pub seen: HashSet<String>,
    pub acked: HashSet<String>,
    pub expired: HashSet<String>,
    pub tally: Tally,
}

/// The buffer's whole state, as a compaction writes it. The groups' samples are not in it:
/// the compaction copies each held group's record from the log as it is.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// The `seq` of every group held (queued or leased).
    pub groups: Vec<u64>,
    /// (batch, deadline in Unix ms, its groups' `seq`).
    pub leases: Vec<(String, u64, Vec<u64>)>,
    /// The ids of every group accepted and no longer held (consumed or stale).
    pub spent: Vec<String>,
    pub acked: Vec<String>,
    pub expired: Vec<String>,
    pub tally: Tally,
}

/// One record of the log, as JSON (`{"accepted": {…}}`: tagged outside, so that serde reads
/// the samples of `Accepted` as the borrowed text they were written as).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Record<'a> {
    Accepted {
        seq: u64,
        id: String,
        stale: bool,
        count: u64,
        #[serde(borrow, default)]
        samples: Option<&'a RawValue>,
    },
    Leased {
        batch: String,
        deadline_ms: u64,
        groups: Vec<u64>,
    },
    Acked {
        batch: String,
    },
    Expired {
        batch: String,
    },
    Dropped {
        groups: Vec<u64>,
    },
    Weights {
        version: u64,
    },
    Figures {
        version: u64,
        figures: BTreeMap<String, f64>,
    },
    /// A snapshot's accounting of what is no longer held; it opens the snapshot's file.
    Spent {
        ids: Vec<String>,
        acked: Vec<String>,
        expired: Vec<String>,
        next_seq: u64,
        consumed: u64,
        dropped_stale: u64,
        expired_batches: u64,
    },
}

type Reply = tokio::sync::oneshot::Sender<Result<(), String>>;

struct Job {
    changes: Vec<Change>,
    snapshot: Option<Snapshot>,
    reply: Reply,
}

/// The handle to the journal's thread; dropping it ends the thread once it has written what
/// it was given (and frees the lock).
pub struct Journal {
    jobs: mpsc::Sender<Job>,
    /// Set by the journal's thread when a snapshot would shrink the log.
    wants_snapshot: Arc<AtomicBool>,
    pub dir: PathBuf,
}

/// The file being appended to.
struct Log {
    dir: PathBuf,
    number: u64,
    file: File,
    len: u64,
    /// All log files together.
    total: u64,
    /// Where the record of each group still held (queued or leased) is, by `seq`; their
    /// bytes together; and which groups each open lease holds.
    held: BTreeMap<u64, Place>,
    live: u64,
    batches: BTreeMap<String, Vec<u64>>,
    /// The log size below which no snapshot is asked for.
    floor: u64,
}

/// A record in the log: file number, offset, length (header included).
#[derive(Debug, Clone, Copy)]
struct Place {
    file: u64,
    offset: u64,
    len: u64,
}

fn log_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("{number:06}.log"))
}

/// The log files in `dir`, oldest first.
fn log_files(dir: &Path) -> std::io::Result<Vec<u64>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name();
        if let Some(n) = name.to_str().and_then(|n| n.strip_suffix(".log")).and_then(|n| n.parse().ok()) {
            out.push(n);
        }
    }
    out.sort_unstable();
    Ok(out)
}

impl Log {
    fn create(dir: &Path, number: u64) -> std::io::Result<File> {
        let file = std::fs::OpenOptions::new().create_new(true).append(true).open(log_path(dir, number))?;
        // The new name must survive a crash too.
        File::open(dir)?.sync_all()?;
        Ok(file)
    }

    /// Writes records and syncs them.
    fn append(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.file.write_all(bytes)?;
        self.file.sync_data()?;
        self.len += bytes.len() as u64;
        self.total += bytes.len() as u64;
        Ok(())
    }

    fn wants_snapshot(&self) -> bool {
        self.total > self.floor && self.live * 4 < self.total
    }

    /// Keeps track of where held groups' records are, as a change whose record is at `place`
    /// goes in.
    fn track(&mut self, change: &Change, place: Place) {
        let mut release = |held: &mut BTreeMap<u64, Place>, seq: &u64| {
            if let Some(p) = held.remove(seq) {
                self.live -= p.len;
            }
        };
        match change {
            Change::Accepted { group, stale: false } => {
                self.held.insert(group.seq, place);
                self.live += place.len;
            }
            Change::Leased { batch, groups, .. } => {
                self.batches.insert(batch.clone(), groups.clone());
            }
            Change::Acked { batch } => {
                for seq in self.batches.remove(batch).unwrap_or_default() {
                    release(&mut self.held, &seq);
                }
            }
            Change::Expired { batch } => {
                self.batches.remove(batch);
            }
            Change::Dropped { groups } => groups.iter().for_each(|seq| release(&mut self.held, seq)),
            _ => {}
        }
    }

    /// Writes a snapshot to a new file (each held group's record copied from where it is),
    /// syncs it, makes it the current one and deletes the older files.
    fn compact(&mut self, snapshot: &Snapshot) -> std::io::Result<()> {
        let number = self.number + 1;
        let mut bytes = Vec::new();
        encode_spent(snapshot, &mut bytes)?;
        let mut sources: BTreeMap<u64, File> = BTreeMap::new();
        let mut held = BTreeMap::new();
        for seq in &snapshot.groups {
            let Some(place) = self.held.get(seq).copied() else { continue };
            let source = match sources.entry(place.file) {
                std::collections::btree_map::Entry::Occupied(f) => f.into_mut(),
                std::collections::btree_map::Entry::Vacant(v) => v.insert(File::open(log_path(&self.dir, place.file))?),
            };
            let at = bytes.len();
            bytes.resize(at + place.len as usize, 0);
            std::os::unix::fs::FileExt::read_exact_at(source, &mut bytes[at..], place.offset)?;
            held.insert(*seq, Place { file: number, offset: at as u64, len: place.len });
        }
        encode_state(snapshot, &mut bytes)?;
        let mut file = Log::create(&self.dir, number)?;
        file.write_all(&bytes)?;
        file.sync_data()?;
        drop(sources);
        let older: Vec<u64> = log_files(&self.dir)?.into_iter().filter(|n| *n < number).collect();
        for n in older {
            std::fs::remove_file(log_path(&self.dir, n))?;
        }
        File::open(&self.dir)?.sync_all()?;
        (self.number, self.file, self.len, self.total) = (number, file, bytes.len() as u64, bytes.len() as u64);
        self.live = held.values().map(|p| p.len).sum();
        self.held = held;
        Ok(())
    }
}

/// Appends one framed record.
fn frame(json: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(json).to_le_bytes());
    out.extend_from_slice(json);
}

fn record(r: &Record<'_>, out: &mut Vec<u8>) -> std::io::Result<()> {
    frame(&serde_json::to_vec(r)?, out);
    Ok(())
}

/// A group as an `Accepted` record: its samples' text as it arrived (else written out now),
/// put in as it is rather than parsed again to be written.
fn accepted(group: &Group, stale: bool, out: &mut Vec<u8>) -> std::io::Result<()> {
    let written;
    let samples: &str = match (stale, &group.json) {
        (true, _) => "null",
        (false, Some(json)) => json,
        (false, None) => {
            written = serde_json::to_string(&*group.samples)?;
            &written
        }
    };
    let mut json = Vec::with_capacity(samples.len() + group.id.len() + 96);
    json.extend_from_slice(b"{\"accepted\":{\"id\":");
    serde_json::to_writer(&mut json, &group.id)?;
    write!(json, ",\"seq\":{},\"stale\":{stale},\"count\":{},\"samples\":", group.seq, group.samples.len())?;
    json.extend_from_slice(samples.as_bytes());
    json.extend_from_slice(b"}}");
    frame(&json, out);
    Ok(())
}

fn encode(change: &Change, out: &mut Vec<u8>) -> std::io::Result<()> {
    match change {
        Change::Accepted { group, stale } => accepted(group, *stale, out),
        Change::Leased { batch, deadline_ms, groups } => {
            record(&Record::Leased { batch: batch.clone(), deadline_ms: *deadline_ms, groups: groups.clone() }, out)
        }
        Change::Acked { batch } => record(&Record::Acked { batch: batch.clone() }, out),
        Change::Expired { batch } => record(&Record::Expired { batch: batch.clone() }, out),
        Change::Dropped { groups } => record(&Record::Dropped { groups: groups.clone() }, out),
        Change::Weights { version } => record(&Record::Weights { version: *version }, out),
        Change::Figures { version, figures } => record(&Record::Figures { version: *version, figures: figures.clone() }, out),
    }
}

/// What opens a snapshot: the groups no longer held and the counts.
fn encode_spent(s: &Snapshot, out: &mut Vec<u8>) -> std::io::Result<()> {
    let spent = Record::Spent {
        ids: s.spent.clone(),
        acked: s.acked.clone(),
        expired: s.expired.clone(),
        next_seq: s.tally.next_seq,
        consumed: s.tally.consumed,
        dropped_stale: s.tally.dropped_stale,
        expired_batches: s.tally.expired_batches,
    };
    record(&spent, out)
}

/// What ends a snapshot, after the held groups: the leases, weights and figures.
fn encode_state(s: &Snapshot, out: &mut Vec<u8>) -> std::io::Result<()> {
    for (batch, deadline_ms, groups) in &s.leases {
        record(&Record::Leased { batch: batch.clone(), deadline_ms: *deadline_ms, groups: groups.clone() }, out)?;
    }
    record(&Record::Weights { version: s.tally.weight_version }, out)?;
    if let Some((version, figures)) = &s.tally.figures {
        record(&Record::Figures { version: *version, figures: figures.clone() }, out)?;
    }
    Ok(())
}

impl Journal {
    /// Opens (or creates) the journal in `dir` and reads back what it holds.
    pub fn open(dir: &Path) -> Result<(Journal, Restored), JournalError> {
        Journal::open_compacting_past(dir, COMPACT_FLOOR)
    }

    /// `open`, asking for snapshots once the log is larger than `floor` bytes.
    pub fn open_compacting_past(dir: &Path, floor: u64) -> Result<(Journal, Restored), JournalError> {
        let fail = |e: &dyn std::fmt::Display| JournalError { path: dir.display().to_string(), message: e.to_string() };
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
        // One buffer per journal: the first to open it holds the lock until its journal's
        // thread ends (a second one would answer from a queue the first changes under it).
        let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join("lock")).map_err(|e| fail(&e))?;
        wait_for_lock(&lock).map_err(|e| fail(&e))?;
        let (restored, read) = read(dir).map_err(|e| fail(&e))?;
        let number = read.last.map_or(1, |n| n + 1);
        let file = Log::create(dir, number).map_err(|e| fail(&e))?;
        let live = read.held.values().map(|p| p.len).sum();
        let log = Log { dir: dir.to_path_buf(), number, file, len: 0, total: read.total, held: read.held, live, batches: read.batches, floor };
        let wants_snapshot = Arc::new(AtomicBool::new(log.wants_snapshot()));
        let (jobs, rx) = mpsc::channel::<Job>();
        let (flag, name) = (wants_snapshot.clone(), dir.display().to_string());
        std::thread::Builder::new()
            .name("buffer-journal".into())
            .spawn(move || {
                write_loop(log, rx, flag, name);
                drop(lock);
            })
            .map_err(|e| fail(&e))?;
        Ok((Journal { jobs, wants_snapshot, dir: dir.to_path_buf() }, restored))
    }

    /// Hands changes to the journal's thread, in the order given (with a snapshot of the state
    /// they leave, when `wants_snapshot` said so); the receiver answers once they, and
    /// everything handed over before them, are on disk. An empty list is a barrier.
    pub fn write(&self, changes: Vec<Change>, snapshot: Option<Snapshot>) -> tokio::sync::oneshot::Receiver<Result<(), String>> {
        let (reply, rx) = tokio::sync::oneshot::channel();
        if snapshot.is_some() {
            self.wants_snapshot.store(false, Ordering::Relaxed);
        }
        if let Err(mpsc::SendError(job)) = self.jobs.send(Job { changes, snapshot, reply }) {
            let _ = job.reply.send(Err("the journal's thread has ended".into()));
        }
        rx
    }

    /// Whether the next write should carry a snapshot (the log has grown well past it).
    pub fn wants_snapshot(&self) -> bool {
        self.wants_snapshot.load(Ordering::Relaxed)
    }
}

/// Takes the journal's lock, waiting up to two seconds for a buffer that is just ending.
fn wait_for_lock(lock: &File) -> Result<(), String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(std::fs::TryLockError::WouldBlock) => return Err("another buffer holds this journal".into()),
            Err(std::fs::TryLockError::Error(e)) => return Err(format!("locking the journal: {e}")),
        }
    }
}

/// Takes every waiting job, writes them at once, syncs, answers them all. After a failed write
/// every later job fails too: the buffer in memory is then ahead of its journal, and only a
/// restart (which reads the journal) makes them agree again.
fn write_loop(mut log: Log, jobs: mpsc::Receiver<Job>, wants_snapshot: Arc<AtomicBool>, name: String) {
    let mut failed: Option<String> = None;
    let mut bytes = Vec::new();
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        while batch.len() < 4096 {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if failed.is_none() {
            let written = (|| {
                bytes.clear();
                for job in &mut batch {
                    for change in &job.changes {
                        let before = bytes.len();
                        encode(change, &mut bytes)?;
                        // `bytes` go at the end of the current file.
                        let place = Place { file: log.number, offset: log.len + before as u64, len: (bytes.len() - before) as u64 };
                        log.track(change, place);
                    }
                    // A snapshot holds everything up to here: what came before goes in the
                    // files it replaces, what follows after it in its own.
                    if let Some(snapshot) = job.snapshot.take() {
                        log.append(&bytes)?;
                        bytes.clear();
                        log.compact(&snapshot)?;
                    }
                }
                log.append(&bytes)
            })();
            if let Err(e) = written {
                tracing::error!(journal = %name, error = %e, "the trajectory buffer's journal failed; the buffer refuses changes until it restarts");
                failed = Some(format!("the buffer's journal {name} failed ({e}): restart the buffer"));
            }
            if log.wants_snapshot() {
                wants_snapshot.store(true, Ordering::Relaxed);
            }
        }
        for job in batch {
            let _ = job.reply.send(failed.clone().map_or(Ok(()), Err));
        }
    }
}

/// What reading the log found besides the state: its size, the last file's number, where each
/// held group's record is and the groups each lease holds (for `Log::track`).
struct LogRead {
    total: u64,
    last: Option<u64>,
    held: BTreeMap<u64, Place>,
    batches: BTreeMap<String, Vec<u64>>,
}

/// Reads every log file in order and replays its records.
fn read(dir: &Path) -> Result<(Restored, LogRead), String> {
    let mut replay = Replay::default();
    let mut total = 0;
    let files = log_files(dir).map_err(|e| e.to_string())?;
    // The files are always a run of numbers (a buffer starts the next one; compaction deletes
    // every file before its snapshot): a gap is a file removed by hand, and what it held lost.
    if let Some(w) = files.windows(2).find(|w| w[1] != w[0] + 1) {
        return Err(format!(
            "the journal has {} but not {}: a file of it was removed, and what it held would be lost; put it back, or move the whole folder away to start empty",
            log_path(dir, w[1]).display(),
            log_path(dir, w[0] + 1).display()
        ));
    }
    for n in &files {
        let path = log_path(dir, *n);
        let mut bytes = Vec::new();
        std::fs::read(&path).map(|b| bytes = b).map_err(|e| format!("{}: {e}", path.display()))?;
        total += bytes.len() as u64;
        let mut at = 0;
        while at < bytes.len() {
            let Some(json) = next_record(&bytes, at) else {
                damaged_or_cut_short(&bytes, at).map_err(|e| format!("{}: {e}", path.display()))?;
                // Cut short by a crash before its sync: it was never answered.
                tracing::warn!(file = %path.display(), offset = at, "the journal ends in a record cut short; it is skipped");
                break;
            };
            let r: Record<'_> = serde_json::from_slice(json).map_err(|e| format!("{} at {at}: {e}", path.display()))?;
            replay.apply(r, Place { file: *n, offset: at as u64, len: 8 + json.len() as u64 }).map_err(|e| format!("{}: {e}", path.display()))?;
            at += 8 + json.len();
        }
    }
    let sizes = replay.sizes.clone();
    let batches: BTreeMap<String, Vec<u64>> = replay.leases.iter().map(|(b, (_, seqs))| (b.clone(), seqs.clone())).collect();
    let restored = replay.finish();
    let held = restored.queued.iter().chain(restored.leases.iter().flat_map(|l| &l.2)).filter_map(|g| Some((g.seq, *sizes.get(&g.seq)?))).collect();
    Ok((restored, LogRead { total, last: files.last().copied(), held, batches }))
}

/// Whether a record that does not hold at `at` is a crash's doing or damage. A crash can only cut
/// short what was written after the last sync: the file's tail, where writes that had not reached
/// the disk read as zeros. A whole record after bytes that are not all zeros was written before
/// them and synced with them, so those bytes were answered and are now damaged: the buffer refuses
/// to start rather than lose, or serve again, what they recorded.
fn damaged_or_cut_short(bytes: &[u8], at: usize) -> Result<(), String> {
    let next = (at + 1..bytes.len()).find(|&o| next_record(bytes, o).is_some_and(|json| serde_json::from_slice::<Record<'_>>(json).is_ok()));
    match next {
        Some(next) if bytes[at..next].iter().any(|b| *b != 0) => Err(format!(
            "the record at offset {at} is damaged ({} bytes up to a whole record at offset {next}): records written and synced after it would be lost; restore the file from a copy, or move the folder away to start empty",
            next - at
        )),
        _ => Ok(()),
    }
}

/// The record starting at `at`, when it is whole and its checksum holds.
fn next_record(bytes: &[u8], at: usize) -> Option<&[u8]> {
    let header = bytes.get(at..at + 8)?;
    let len = u32::from_le_bytes(header[..4].try_into().ok()?) as usize;
    let crc = u32::from_le_bytes(header[4..].try_into().ok()?);
    let json = bytes.get(at + 8..at + 8 + len)?;
    (crc32fast::hash(json) == crc).then_some(json)
}

/// The state records build up, group by `seq`.
#[derive(Default)]
struct Replay {
    held: BTreeMap<u64, Group>,
    /// Where each group's record is.
    sizes: BTreeMap<u64, Place>,
    /// Which batch holds a group.
    leased: BTreeMap<u64, String>,
    leases: BTreeMap<String, (u64, Vec<u64>)>,
    state: Restored,
}

impl Replay {
    /// Replays one record, found at `place`.
    fn apply(&mut self, r: Record<'_>, place: Place) -> Result<(), String> {
        let s = &mut self.state;
        match r {
            Record::Accepted { seq, id, stale, count, samples } => {
                s.tally.next_seq = s.tally.next_seq.max(seq + 1);
                s.seen.insert(id.clone());
                match (stale, samples) {
                    (false, Some(raw)) => {
                        let samples: Vec<Sample> = serde_json::from_str(raw.get()).map_err(|e| format!("group {id}: {e}"))?;
                        self.held.insert(seq, Group { id, samples: samples.into(), seq, json: None });
                        self.sizes.insert(seq, place);
                    }
                    _ => s.tally.dropped_stale += count,
                }
            }
            Record::Leased { batch, deadline_ms, groups } => {
                for seq in &groups {
                    self.leased.insert(*seq, batch.clone());
                }
                self.leases.insert(batch, (deadline_ms, groups));
            }
            Record::Acked { batch } => {
                for seq in self.leases.remove(&batch).map(|l| l.1).unwrap_or_default() {
                    self.leased.remove(&seq);
                    if let Some(g) = self.held.remove(&seq) {
                        s.tally.consumed += g.samples.len() as u64;
                    }
                }
                s.acked.insert(batch);
            }
            Record::Expired { batch } => {
                for seq in self.leases.remove(&batch).map(|l| l.1).unwrap_or_default() {
                    self.leased.remove(&seq);
                }
                s.tally.expired_batches += 1;
                s.expired.insert(batch);
            }
            Record::Dropped { groups } => {
                for seq in groups {
                    if let Some(g) = self.held.remove(&seq) {
                        s.tally.dropped_stale += g.samples.len() as u64;
                    }
                }
            }
            Record::Weights { version } => s.tally.weight_version = s.tally.weight_version.max(version),
            Record::Figures { version, figures } => s.tally.figures = Some((version, figures)),
            Record::Spent { ids, acked, expired, next_seq, consumed, dropped_stale, expired_batches } => {
                // A snapshot: everything before it is in it.
                *self = Replay::default();
                let s = &mut self.state;
                s.seen = ids.into_iter().collect();
                s.acked = acked.into_iter().collect();
                s.expired = expired.into_iter().collect();
                (s.tally.next_seq, s.tally.consumed, s.tally.dropped_stale, s.tally.expired_batches) = (next_seq, consumed, dropped_stale, expired_batches);
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Restored {
        let mut state = std::mem::take(&mut self.state);
        state.tally.next_seq = state.tally.next_seq.max(1);
        for (batch, (deadline_ms, seqs)) in self.leases {
            let groups = seqs.iter().filter_map(|seq| self.held.remove(seq)).collect();
            state.leases.push((batch, deadline_ms, groups));
        }
        // What no lease holds is queued, in the order it was accepted.
        state.queued = self.held.into_values().collect();
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_cut_short_or_damaged_ends_the_log_there() {
        let mut bytes = Vec::new();
        record(&Record::Weights { version: 3 }, &mut bytes).unwrap();
        let whole = bytes.len();
        record(&Record::Weights { version: 9 }, &mut bytes).unwrap();
        assert!(next_record(&bytes, 0).is_some() && next_record(&bytes, whole).is_some());
        assert!(next_record(&bytes[..bytes.len() - 1], whole).is_none(), "cut short");
        let mut damaged = bytes.clone();
        let last = damaged.len() - 3;
        damaged[last] ^= 1;
        assert!(next_record(&damaged, whole).is_none(), "its checksum fails");
    }

    #[test]
    fn damage_before_a_whole_record_is_refused_and_a_torn_tail_is_not() {
        let mut bytes = Vec::new();
        for version in 1..=3 {
            record(&Record::Weights { version }, &mut bytes).unwrap();
        }
        let second = next_record(&bytes, 0).unwrap().len() + 8;
        // A byte of the second record changed, with the third whole after it: damage.
        let mut damaged = bytes.clone();
        damaged[second + 9] ^= 0x20;
        assert!(next_record(&damaged, second).is_none());
        let e = damaged_or_cut_short(&damaged, second).unwrap_err();
        assert!(e.contains(&format!("offset {second}")), "{e}");
        // The last record cut short, or junk after the last whole one: a crash's tail.
        assert!(damaged_or_cut_short(&bytes[..bytes.len() - 2], second * 2).is_ok());
        let mut junk = bytes.clone();
        junk.extend((0..500u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8));
        assert!(damaged_or_cut_short(&junk, bytes.len()).is_ok());
        // Zeros where a record was (its write never reached the disk), a whole one after: a crash's too.
        let mut hole = bytes.clone();
        hole[second..second * 2].fill(0);
        assert!(damaged_or_cut_short(&hole, second).is_ok());
    }

    #[test]
    fn a_journal_file_missing_from_the_run_is_refused() {
        let dir = std::env::temp_dir().join(format!("guigym-journal-gap-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for n in [1, 3] {
            let mut bytes = Vec::new();
            record(&Record::Weights { version: n }, &mut bytes).unwrap();
            std::fs::write(log_path(&dir, n), bytes).unwrap();
        }
        let e = read(&dir).err().unwrap();
        assert!(e.contains("000002.log"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
