//! Each instance's memory budget, watched. The machine has no memory cgroup for guigym to put an
//! instance in (cgroup v1, read-only here), so one thread looks, a few times a second, at what
//! the processes of each instance's account hold, and ends them all when the sum passes the
//! instance's budget (`GUIGYM_DESKTOP_MEMORY_MIB`). Without it, an agent's program that ate
//! memory (a command typed in the terminal) would take it from every other instance, and the
//! kernel's out-of-memory killer would pick its victim anywhere: in another instance, or in
//! this one's applications, whose death by a signal reads as an infrastructure failure (an
//! agent could raise its own application's `oom_score_adj` to have its failing attempt run
//! again). Ended by the watch, the episode is the agent's doing: it ends and is judged.
//!
//! What counts is a process's anonymous and shared memory, in memory or swapped out, and its
//! page tables (`RssAnon`, `RssShmem`, `VmSwap`, `VmPTE`), what the kernel cannot drop (pages of
//! files it maps can be read again, and the instance's files are bounded by its own file
//! system), and the System V objects the account made, which outlive their processes. A segment two processes
//! share counts for both: a budget errs on the side of the machine. Not counted: what the kernel
//! holds for the processes (pipe and socket buffers) and a `memfd` file written without being
//! mapped; only a memory cgroup would see those.
//!
//! A process of the instance found in a user namespace of its own ends them all too: there
//! (`unshare -Urm`, which this machine lets anyone do) a program may mount a file system in
//! memory of any size, and make System V objects no table here shows, held by no process. This
//! is a look, not a bar: a program that lives between two looks goes unseen (and may hand
//! another a way into what it mounted). Barring user namespaces needs a seccomp filter or a
//! user namespace of the instance's own whose limit is 0, neither of which guigym sets up yet.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

/// How often the watch looks. At a few GiB a second of writing, a program passes its budget by
/// well under a GiB before it is seen.
const TICK: Duration = Duration::from_millis(100);

/// An instance's budget: at most `limit` bytes held by the processes of `account`.
pub struct Budget {
    account: u32,
    limit: u64,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Bumped by each `clear`: a look that began before it must not act after it (on the next
    /// episode's processes).
    epoch: u64,
    /// Why the watch ended the account's processes, since the last `clear`.
    ended: Option<Ended>,
}

/// Why the watch ended an account's processes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ended {
    /// They held this many bytes, over the budget.
    OverBudget(u64),
    /// This program of theirs was in a user namespace of its own.
    UserNamespace(String),
}

/// What an account's processes hold, by one look.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Held {
    pub bytes: u64,
    /// The name of a program of theirs in a user namespace other than guigym's, where what it
    /// holds cannot be counted.
    pub in_own_user_namespace: Option<String>,
}

impl Budget {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Why the watch ended the account's processes, if it did since the last `clear`.
    pub fn ended(&self) -> Option<String> {
        self.state().ended.as_ref().map(|why| match why {
            Ended::OverBudget(bytes) => format!("the instance's programs held {} MiB, over its {} MiB of memory", bytes >> 20, self.limit >> 20),
            Ended::UserNamespace(program) => format!(
                "{program:?} entered a user namespace of its own, where the memory a program holds (a file system in memory, System V objects) cannot be counted against the instance's budget"
            ),
        })
    }

    /// Forgets that the budget was exceeded (a reset starts the next episode); waits for a kill
    /// under way to be done.
    pub fn clear(&self) {
        let mut state = self.state();
        state.epoch += 1;
        state.ended = None;
    }
}

/// The budgets being watched; a budget dropped with its instance is forgotten.
static WATCHED: Mutex<Vec<Weak<Budget>>> = Mutex::new(Vec::new());
/// Whether the thread that watches every budget runs (one for the whole process).
static WATCHING: Mutex<bool> = Mutex::new(false);

/// Watches the processes of `account`, holding them to `limit` bytes, for as long as the
/// returned budget lives. Fails where the watch cannot run: an instance without it would
/// have no budget at all.
pub fn watch(account: u32, limit: u64) -> Result<Arc<Budget>, String> {
    let mut watching = WATCHING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if !*watching {
        machine_user_namespace()?;
        let looks = || loop {
            std::thread::sleep(TICK);
            look_once();
        };
        std::thread::Builder::new().name("guigym-desktop-memory".into()).spawn(looks).map_err(|e| format!("cannot start the memory watch: {e}"))?;
        *watching = true;
    }
    let budget = Arc::new(Budget { account, limit, state: Mutex::default() });
    WATCHED.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(Arc::downgrade(&budget));
    Ok(budget)
}

/// One look at every watched account; ends the processes of those over their budget or in a
/// user namespace of their own, and removes their System V objects.
fn look_once() {
    let budgets: Vec<Arc<Budget>> = {
        let mut watched = WATCHED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        watched.retain(|b| b.strong_count() > 0);
        watched.iter().filter_map(Weak::upgrade).collect()
    };
    if budgets.is_empty() {
        return;
    }
    let epochs: Vec<u64> = budgets.iter().map(|b| b.state().epoch).collect();
    let held = held_by_account();
    for (budget, epoch) in budgets.iter().zip(epochs) {
        let why = match held.get(&budget.account) {
            Some(Held { in_own_user_namespace: Some(program), .. }) => Ended::UserNamespace(program.clone()),
            Some(Held { bytes, .. }) if *bytes > budget.limit => Ended::OverBudget(*bytes),
            _ => continue,
        };
        let mut state = budget.state();
        if state.epoch == epoch {
            state.ended = Some(why);
            crate::session::signal_account(budget.account);
            // (What fails here is tried again at the reset, which says so.)
            let _ = crate::session::remove_ipc_of(budget.account);
        }
    }
}

/// The user namespace guigym runs in (the link `/proc/self/ns/user` reads), which the
/// instance's processes share unless one made its own.
fn machine_user_namespace() -> Result<&'static std::path::Path, String> {
    static OURS: std::sync::OnceLock<Result<std::path::PathBuf, String>> = std::sync::OnceLock::new();
    let ours =
        OURS.get_or_init(|| std::fs::read_link("/proc/self/ns/user").map_err(|e| format!("cannot read guigym's own user namespace (/proc/self/ns/user): {e}")));
    ours.as_deref().map_err(Clone::clone)
}

/// Whether the process whose folder under /proc is `process` is in a user namespace other
/// than `ours`. One that ended since it was listed is not; one whose namespace cannot be read
/// for another reason is taken to be.
fn in_other_user_namespace(process: &std::path::Path, ours: &std::path::Path) -> bool {
    match std::fs::read_link(process.join("ns/user")) {
        Ok(theirs) => theirs != ours,
        Err(e) => e.kind() != std::io::ErrorKind::NotFound && e.raw_os_error() != Some(rustix::io::Errno::SRCH.raw_os_error()),
    }
}

/// What the processes of each account hold.
pub fn held_by_account() -> HashMap<u32, Held> {
    let mut held: HashMap<u32, Held> = HashMap::new();
    let ours = machine_user_namespace().ok();
    for pid in crate::session::all_pids() {
        let process = std::path::PathBuf::from(format!("/proc/{pid}"));
        // `status`, not the folder's owner: a process that made itself undumpable shows a
        // folder owned by root.
        let Ok(status) = std::fs::read_to_string(process.join("status")) else { continue };
        // A leader that ended before its threads shows no memory: a living thread does.
        let status = match status.contains("VmPTE:") {
            true => status,
            false => living_thread_status(&process).unwrap_or(status),
        };
        if let Some((uid, bytes)) = held_in(&status) {
            let account = held.entry(uid).or_default();
            account.bytes += bytes;
            // A process that ended and waits to be reaped holds nothing: its mounts and System V
            // objects went with its other namespaces (its user namespace, kept with its
            // credentials, still shows).
            let living = !crate::session::waits_to_be_reaped(&status);
            if let (true, None, Some(ours)) = (living, &account.in_own_user_namespace, ours) {
                if in_other_user_namespace(&process, ours) {
                    account.in_own_user_namespace = Some(program_name(&status));
                }
            }
        }
    }
    for (table, held_by) in [("shm", segment_held as fn(&str) -> Option<(u32, u64)>), ("sem", semaphores_held), ("msg", messages_held)] {
        for (uid, bytes) in std::fs::read_to_string(format!("/proc/sysvipc/{table}")).unwrap_or_default().lines().skip(1).filter_map(held_by) {
            held.entry(uid).or_default().bytes += bytes;
        }
    }
    held
}

/// The status of a living thread of a process, which shows its memory.
fn living_thread_status(process: &std::path::Path) -> Option<String> {
    std::fs::read_dir(process.join("task")).ok()?.flatten().find_map(|t| std::fs::read_to_string(t.path().join("status")).ok().filter(|s| s.contains("VmPTE:")))
}

/// The account that made a set of System V semaphores and the kernel memory it holds (about
/// 64 bytes a semaphore), from its line in `/proc/sysvipc/sem` (key semid perms nsems uid gid
/// cuid ...).
fn semaphores_held(line: &str) -> Option<(u32, u64)> {
    Some((u32::try_from(column(line, 6)?).ok()?, column(line, 3)? * 64))
}

/// The account that made a System V message queue and the bytes of its messages, from its line
/// in `/proc/sysvipc/msg` (key msqid perms cbytes qnum lspid lrpid uid gid cuid ...).
fn messages_held(line: &str) -> Option<(u32, u64)> {
    Some((u32::try_from(column(line, 9)?).ok()?, column(line, 3)?))
}

/// The account that made a System V shared memory segment and the bytes it holds, from its
/// line in `/proc/sysvipc/shm` (key shmid perms size cpid lpid nattch uid gid cuid cgid atime
/// dtime ctime rss swap). Its creator, not its owner: an owner can give a segment away.
fn segment_held(line: &str) -> Option<(u32, u64)> {
    Some((u32::try_from(column(line, 9)?).ok()?, column(line, 14)? + column(line, 15)?))
}

/// The number in column `i` (from 0) of a line of a `/proc/sysvipc` table.
pub(crate) fn column(line: &str, i: usize) -> Option<u64> {
    line.split_whitespace().nth(i)?.parse().ok()
}

/// A process's program name, from its `/proc/PID/status`.
fn program_name(status: &str) -> String {
    status.lines().find_map(|l| l.strip_prefix("Name:")).unwrap_or_default().trim().to_string()
}

/// A process's real uid and the memory it holds, from its `/proc/PID/status`.
fn held_in(status: &str) -> Option<(u32, u64)> {
    let mut uid = None;
    let mut kib = 0;
    for line in status.lines() {
        if let Some(rest) = line.strip_prefix("Uid:") {
            uid = rest.split_whitespace().next()?.parse().ok();
        } else if let Some(rest) = ["RssAnon:", "RssShmem:", "VmSwap:", "VmPTE:"].iter().find_map(|field| line.strip_prefix(field)) {
            kib += rest.split_whitespace().next()?.parse::<u64>().ok()?;
        }
    }
    Some((uid?, kib * 1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_holds_its_anonymous_and_shared_memory() {
        let status = "Name:\tpython3\nUid:\t1900000003\t1900000003\t1900000003\t1900000003\nVmRSS:\t  900 kB\nRssAnon:\t  500 kB\nRssFile:\t  300 kB\nRssShmem:\t  100 kB\nVmSwap:\t  20 kB\n";
        assert_eq!(held_in(status), Some((1_900_000_003, 620 * 1024)));
        // A kernel thread has no memory lines: it holds nothing.
        assert_eq!(held_in("Name:\tkthreadd\nUid:\t0\t0\t0\t0\n"), Some((0, 0)));
        assert_eq!(held_in("Name:\tx\n"), None);
    }

    #[test]
    fn a_segment_counts_for_its_creator() {
        let line = "         0   12025907  1600            1073741824 11014 11049      2 1900000001 1900000001 1900000000 1900000000 1796272473 1796272473 1796272472              88301568                     4096";
        assert_eq!(segment_held(line), Some((1_900_000_000, 88_301_568 + 4096)));
        assert_eq!(segment_held("       key      shmid perms"), None);
        assert_eq!(
            semaphores_held("         0          3   666          5 1900000002 1900000002 1900000001 1900000001 0 1796272472"),
            Some((1_900_000_001, 320))
        );
        assert_eq!(
            messages_held("         0          7   666        900          2     0     0 1900000002 1900000002 1900000001 1900000001 0 0 1796272472"),
            Some((1_900_000_001, 900))
        );
    }

    #[test]
    fn this_process_is_seen_holding_memory() {
        let me = rustix::process::getuid().as_raw();
        let held = held_by_account();
        assert!(held.get(&me).is_some_and(|held| held.bytes > 0), "{held:?}");
        // This process is in guigym's user namespace (another of this account's, a browser's
        // sandbox, may not be).
        let ours = machine_user_namespace().unwrap();
        assert!(!in_other_user_namespace(std::path::Path::new("/proc/self"), ours));
        assert!(!in_other_user_namespace(std::path::Path::new("/proc/4294967295"), ours), "a process that ended is in none");
    }
}
