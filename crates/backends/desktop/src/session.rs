//! One desktop instance's processes and files: an Xvfb display, a window manager (openbox),
//! a session D-Bus, a home folder, and the applications a task starts. Each process runs in
//! its own process group, so ending an application ends everything it started; dropping the
//! session ends them all and removes its folder.
//!
//! Where the machine allows it (root, or the capability to make mount namespaces), the
//! applications and commands of an instance run in its own mount namespace, in which `/home`
//! holds only the instance's home, as `/home/user`, and `/tmp` and `/var/tmp` are the
//! instance's own (emptied at each reset): they see the paths the task names, and no other
//! instance's files. Elsewhere the instance's home keeps its real path, and task paths are
//! rewritten to it.
//!
//! Where guigym runs as root, each instance's applications run as an account of their own
//! (`user` inside the namespace), so that no instance's agent can read another's files, signal
//! or trace its processes; and each display asks for its own cookie, so that none can connect
//! to another's screen.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use std::os::unix::process::CommandExt;

use crate::memory;
use crate::x11::Display;

/// The home folder OSWorld's tasks name; paths under it are the instance's own home.
pub const TASK_HOME: &str = "/home/user";

/// What a command run inside the instance printed.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

pub struct Session {
    /// The instance's own folder (home, runtime dir, fetched files); removed on drop.
    pub dir: PathBuf,
    pub home: PathBuf,
    pub display_name: String,
    pub bus_address: String,
    /// The display's size, and its server (started anew at each reset).
    size: (u32, u32),
    xvfb: Option<Child>,
    wm: Option<Child>,
    bus: Option<Child>,
    /// The process holding the instance's mount namespace (applications join it), where the
    /// machine allows one.
    namespace: Option<Child>,
    /// The process holding the instance's network namespace, new at each reset (beside the
    /// mount namespace): nothing of an episode's network (a port left in TIME_WAIT, which a
    /// next task's server could not bind) reaches the next.
    network: Option<Child>,
    /// The account applications and commands run as (its uid and gid), where it is not
    /// guigym's own.
    account: Option<u32>,
    /// The secret an X client shows to connect to the display (MIT-MAGIC-COOKIE-1).
    cookie: [u8; 16],
    /// The toolkit LibreOffice draws with.
    pub office: OfficeToolkit,
    /// Applications a task launched.
    apps: Vec<App>,
    /// What the account's processes may hold, watched (`memory`), where there is an account.
    memory: Option<Arc<memory::Budget>>,
    /// Process groups of commands that ran to their end (what they left running dies with them
    /// at the next reset).
    finished: Vec<u32>,
}

/// An application a task launched.
struct App {
    program: String,
    child: Child,
    /// Where its sandbox's wrapper writes what it has to say (see `Role::Resident`).
    said: Option<PathBuf>,
}

/// How a process of the instance lives beside the others.
#[derive(Clone, Copy)]
enum Role {
    /// A command run to its end (a set-up step, a getter, a file helper), with at most so many
    /// processes running as the account when it starts.
    Command(u32),
    /// What stays up through an episode (an application, the window manager, the session bus),
    /// with at most so many processes running as the account when it starts. Inside the
    /// instance's namespace it is the first process of a PID namespace of its own, with a
    /// `/proc` showing only that namespace, so that nothing the agent makes it run (a shell in
    /// the terminal, a macro, a program the file manager opens) sees, signals or traces another
    /// application or the desktop, or ends it by a signal: from inside, the kernel lets such a
    /// process take only the signals it handles. Its death by a signal is then an outside cause
    /// (a crash, the machine, an operator): an infrastructure failure, which an agent cannot
    /// fake to have a failed attempt run again.
    Resident(u32),
}

/// Where instance folders live: tmpfs when there is one (resets copy a home folder).
pub fn base_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        shm.join("guigym-desktop")
    } else {
        std::env::temp_dir().join("guigym-desktop")
    }
}

/// The first of the accounts instances' applications run as where guigym is root, one per
/// instance: past the ranges Debian and systemd hand out (systemd leaves 1879048192 and up
/// unused), and never one `/etc/passwd` or `/etc/group` names.
const FIRST_ACCOUNT: u32 = 1_900_000_000;
const ACCOUNTS: u32 = 65_536;

/// The uids instances' accounts are drawn from.
fn account_range() -> std::ops::Range<u32> {
    FIRST_ACCOUNT..FIRST_ACCOUNT + ACCOUNTS
}

/// A new instance folder, naming the process that owns it, and the account its applications
/// run as. Where guigym is root the folder is named after the account, and making it (which
/// fails for a name that exists) claims the account: two guigym processes never share one.
fn fresh_dir() -> std::io::Result<(PathBuf, Option<u32>)> {
    let base = base_dir();
    std::fs::create_dir_all(&base)?;
    // Others may pass through (an application reads its own folder by its real path), not list.
    set_mode(&base, 0o711);
    let (dir, account) = if rustix::process::geteuid().is_root() && accounts_exist() {
        let taken = named_ids();
        let claimed = account_range().filter(|id| !taken.contains(id)).find_map(|id| {
            let dir = base.join(id.to_string());
            match std::fs::create_dir(&dir) {
                Ok(()) => Some(Ok((dir, Some(id)))),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => None,
                Err(e) => Some(Err(e)),
            }
        });
        let (dir, account) = claimed.unwrap_or_else(|| Err(std::io::Error::other(format!("all {ACCOUNTS} instance accounts are taken"))))?;
        if let Err(e) = give_own_space(&dir) {
            let _ = std::fs::remove_dir(&dir);
            return Err(std::io::Error::other(format!("cannot give {} a file system of its own: {e}", dir.display())));
        }
        (dir, account)
    } else {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
        let name: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let dir = base.join(name);
        std::fs::create_dir_all(&dir)?;
        (dir, None)
    };
    set_mode(&dir, 0o711);
    std::fs::write(dir.join(OWNER), std::process::id().to_string())?;
    Ok((dir, account))
}

/// Mounts a file system of its own on an instance folder, as large as the instance may
/// store (`SPACE_MIB`): the machine's /dev/shm is memory, and an agent that filled it (a
/// command typed in the terminal) would take it from every other instance and the machine.
fn give_own_space(dir: &Path) -> std::io::Result<()> {
    use rustix::mount::{mount, MountFlags};
    let mib = mib_from_env("GUIGYM_DESKTOP_SPACE_MIB", SPACE_MIB).map_err(std::io::Error::other)?;
    // Inodes too: a million empty files would take kernel memory outside `size`.
    let options = std::ffi::CString::new(format!("size={mib}m,nr_inodes=131072,mode=0711")).map_err(std::io::Error::other)?;
    mount("guigym-desktop", dir, "tmpfs", MountFlags::NOSUID | MountFlags::NODEV, Some(options.as_c_str()))?;
    Ok(())
}

/// A size in MiB from the environment variable `name`, or `default` where it is unset.
fn mib_from_env(name: &str, default: u64) -> Result<u64, String> {
    match std::env::var(name) {
        Ok(text) => text.trim().parse::<u64>().ok().filter(|m| *m > 0).ok_or_else(|| format!("{name}={text:?}: expected a number of MiB")),
        Err(_) => Ok(default),
    }
}

/// Where the getters of the instance whose folder is `dir` keep their files: beside the
/// instance folders, out of the instance's own space.
fn fetched_of(dir: &Path) -> PathBuf {
    dir.parent().unwrap_or(dir).join(FETCHED).join(marker_of(dir))
}

/// Removes an instance folder, and the file system mounted on it, if any (detached: a process
/// still inside keeps it until it ends).
fn remove_instance_dir(dir: &Path) {
    let _ = rustix::mount::unmount(dir, rustix::mount::UnmountFlags::DETACH);
    let _ = std::fs::remove_dir_all(dir);
}

fn set_mode(path: &Path, mode: u32) {
    let _ = std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode));
}

/// Whether this machine has the instances' accounts: root of a user namespace (a rootless
/// container) may have only a few uids. Without them applications run as guigym does.
fn accounts_exist() -> bool {
    let map = |file: &str| {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        text.lines().any(|line| {
            let fields: Vec<u64> = line.split_whitespace().filter_map(|f| f.parse().ok()).collect();
            matches!(fields[..], [inside, _, count] if inside <= u64::from(FIRST_ACCOUNT) && u64::from(FIRST_ACCOUNT) + u64::from(ACCOUNTS) <= inside + count)
        })
    };
    let exist = map("/proc/self/uid_map") && map("/proc/self/gid_map");
    static WARNED: std::sync::Once = std::sync::Once::new();
    if !exist {
        WARNED.call_once(|| {
            eprintln!("guigym: this user namespace maps no uids {FIRST_ACCOUNT} and up: desktop applications run as guigym does, not as accounts of their own")
        });
    }
    exist
}

/// The uids and gids the machine's accounts and groups use.
fn named_ids() -> std::collections::HashSet<u32> {
    let mut ids = std::collections::HashSet::new();
    for file in ["/etc/passwd", "/etc/group"] {
        for line in std::fs::read_to_string(file).unwrap_or_default().lines() {
            ids.extend(line.split(':').nth(2).and_then(|id| id.parse::<u32>().ok()));
        }
    }
    ids
}

/// The file in an instance folder that names its process.
const OWNER: &str = "owner";
/// The instance's runtime folder (`XDG_RUNTIME_DIR`) in its folder, and the X authority file in it.
const RUN: &str = "run";
const AUTHORITY: &str = "Xauthority";
/// The folders of an instance folder its namespace shows as `/tmp` and `/var/tmp`.
const TMP: &str = "tmp";
const VAR_TMP: &str = "var-tmp";
/// The files of an instance folder its namespace shows as `/etc/passwd` and `/etc/group`.
const PASSWD: &str = "passwd";
const GROUP: &str = "group";
/// The window manager's and the session bus's settings in an instance folder.
const WM_CONFIG: &str = "openbox.xml";
/// The folder of an instance folder with the stand-ins (`STAND_INS`), first on its `PATH`.
const STAND_IN_DIR: &str = "bin";

/// Programs by the names OSWorld's machine gives them, played by what this machine has: on
/// every instance's `PATH`, so that a task's commands, the agent's terminal and launchers all
/// find them.
const STAND_INS: &[StandIn] = &[
    StandIn { name: "google-chrome", program: "chromium", script: CHROME },
    StandIn { name: "google-chrome-stable", program: "chromium", script: CHROME },
    // GNOME's file manager and editor, played by the desktop's own (given a folder or files).
    StandIn { name: "nautilus", program: "pcmanfm", script: "#!/bin/sh\n# GNOME's Files, played by PCManFM (guigym).\nexec pcmanfm \"$@\"\n" },
    StandIn { name: "gedit", program: "mousepad", script: "#!/bin/sh\n# GNOME's text editor, played by Mousepad (guigym).\nexec mousepad \"$@\"\n" },
    StandIn { name: "vlc", program: "vlc", script: VLC },
    StandIn { name: "gimp", program: "gimp", script: GIMP },
    StandIn { name: "picard", program: "picard", script: PICARD },
];

struct StandIn {
    /// The name OSWorld's machine knows it by.
    name: &'static str,
    /// The program of this machine that plays it.
    program: &'static str,
    /// What runs under its name.
    script: &'static str,
}

/// The program of this machine that plays `name` in instances, where a stand-in does.
pub fn stand_in(name: &str) -> Option<&'static str> {
    STAND_INS.iter().find(|s| s.name == name).map(|s| s.program)
}

/// Google Chrome is not a Debian package: Chromium plays it, with its profile where Chrome
/// keeps one (`~/.config/google-chrome`, where OSWorld's getters read bookmarks, history and
/// preferences). Without its sandbox, which needs a user namespace, and an instance found in
/// one is ended (see `memory`); `--test-type` keeps the warning bar about that flag away.
/// Web pages are read by the accessibility tree too, as GNOME's screen reader would have it.
const CHROME: &str = "#!/bin/sh\n# OSWorld's google-chrome, played by Chromium (guigym).\nexport ACCESSIBILITY_ENABLED=1\nexec chromium --user-data-dir=\"$HOME/.config/google-chrome\" --no-sandbox --test-type --disable-gpu --no-first-run --no-default-browser-check --password-store=basic --disable-background-networking --disable-component-update --disable-sync --force-renderer-accessibility \"$@\"\n";
/// VLC as OSWorld's machine has it: its web interface on (on the instance's own loopback,
/// where the `vlc_playing_info` getter asks what it plays), and no first-run privacy question.
/// Given on the command line, not in `vlcrc`, so that no saving of preferences turns it off.
/// Qt shows its widgets to the accessibility bus only when asked.
const VLC: &str = "#!/bin/sh\n# VLC with its web interface on (guigym).\nexport QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1\nexec /usr/bin/vlc --extraintf=http --http-host=127.0.0.1 --http-port=8080 --http-password=password --no-qt-privacy-ask \"$@\"\n";
/// GIMP without its start-up splash: the splash is a window of its own, drawn and still, that
/// a launch would take for GIMP ready while keys the agent presses then are lost; GIMP's own
/// window shows once it takes them.
const GIMP: &str = "#!/bin/sh\n# GIMP without its splash (guigym).\nexec /usr/bin/gimp --no-splash \"$@\"\n";
/// MusicBrainz Picard, a Qt application: its widgets on the accessibility bus, as VLC's.
const PICARD: &str =
    "#!/bin/sh\n# MusicBrainz Picard with its accessibility on (guigym).\nexport QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1\nexec /usr/bin/picard \"$@\"\n";
/// The port of VLC's web interface in every instance (OSWorld's `vlc_port` default).
pub const VLC_HTTP_PORT: u16 = 8080;
const BUS_CONFIG_FILE: &str = "bus.conf";
/// Where getters keep the files they take out of the instances (a folder per instance, named
/// as its folder), guigym's alone: in the base folder, out of the instance's own space, which
/// its agent may have filled.
const FETCHED: &str = "fetched";
/// How much an instance may store, in MiB, where it gets a file system of its own (root):
/// its home, temporary and runtime folders together (`GUIGYM_DESKTOP_SPACE_MIB`).
const SPACE_MIB: u64 = 2048;
/// How much address space the X server may use (a 1920×1080 one uses about 260 MiB, and the
/// shared-memory segments its clients attach count too).
const XVFB_MEMORY_MIB: u64 = 4096;
/// The memory the processes of an instance may hold together (`GUIGYM_DESKTOP_MEMORY_MIB`;
/// see `memory`): LibreOffice with a document holds a few hundred MiB.
const MEMORY_MIB: u64 = 2048;
/// Where the namespace's own /dev/shm is made, in the instance folder, and how large it is.
const SHM: &str = "shm";
const SHM_MIB: u64 = 256;
/// The machine's /run/lock is the one other folder anyone may write that the namespace would
/// show: it gets one of its own, small (a lock file is empty).
const RUN_LOCK: &str = "if [ -d /run/lock ]; then mount -t tmpfs -o size=1m,nr_inodes=1024,mode=1777,nosuid,nodev guigym-lock /run/lock; fi";
/// The X server's socket folder under /tmp.
const X11_SOCKETS: &str = ".X11-unix";
/// How long reading or writing one of the instance's files may take.
const FILE_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a command's output may still flow once the command has ended.
const OUTPUT_SETTLES: Duration = Duration::from_millis(500);
/// A command's status, output and errors.
type RunOutput = (Option<i32>, Vec<u8>, Vec<u8>);
/// How many processes and threads an instance's account may run at once.
const MAX_PROCESSES: u32 = 4096;
/// How many more guigym's own helpers (reading and writing the instance's files) may run: an
/// agent that fills its account's share does not make them fail.
const HELPERS_MARGIN: u32 = 256;
const HELPER: Role = Role::Command(MAX_PROCESSES + HELPERS_MARGIN);
/// A task's command (a set-up step, a getter).
const COMMAND: Role = Role::Command(MAX_PROCESSES);
/// An application.
const APP: Role = Role::Resident(MAX_PROCESSES);
/// The window manager and the session bus: started again mid-episode (see
/// `Instance::check_health`) even where the agent filled its share, below the helpers' margin.
const DESKTOP: Role = Role::Resident(MAX_PROCESSES + HELPERS_MARGIN / 2);
/// The start of the names of the files where applications' sandboxes speak (`Role::Resident`).
const SAID: &str = "said-";

/// Removes the instance folders and templates of processes that are gone (killed before they
/// could clean up: the folders sit on tmpfs, in memory), and ends what those instances still
/// ran.
pub fn remove_stale() {
    let Ok(entries) = std::fs::read_dir(base_dir()) else { return };
    let alive = |pid: &str| pid.trim().parse::<u32>().is_ok_and(|p| Path::new(&format!("/proc/{p}")).exists());
    // Every process's marker, read once.
    let mut marked: std::collections::HashMap<String, Vec<u32>> = std::collections::HashMap::new();
    for pid in all_pids() {
        if let Some(marker) = process_marker(pid) {
            marked.entry(marker).or_default().push(pid);
        }
    }
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let stale = match name.strip_prefix("template-") {
            Some(pid) => !alive(pid),
            // A folder without an owner is being made, or belongs to an older guigym: left alone.
            None => std::fs::read_to_string(path.join(OWNER)).is_ok_and(|pid| !alive(&pid)),
        };
        if stale {
            for pid in marked.get(&name).into_iter().flatten() {
                kill(*pid);
            }
            // A folder named after its account: whatever still runs as the account was the
            // instance's (a process may clear its marker and leave the namespace's holder).
            if let Some(account) = name.parse::<u32>().ok().filter(|id| account_range().contains(id)) {
                let _ = kill_account(account);
            }
            let _ = std::fs::remove_dir_all(fetched_of(&path));
            remove_instance_dir(&path);
        }
    }
}

/// The toolkit LibreOffice draws with (`GUIGYM_OFFICE_TOOLKIT`): GTK 3 (`gtk3`, the default,
/// Debian's libreoffice-gtk3), whose accessibility bridge gives LibreOffice's windows their
/// tree (menus, toolbars, the document, the sheet), or its own X11 one (`gen`), which has no
/// bridge. The catalogue's walkthroughs are validated with GTK's (those through dialogs with
/// both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfficeToolkit {
    Gen,
    Gtk3,
}

impl OfficeToolkit {
    /// From `GUIGYM_OFFICE_TOOLKIT`; an unknown name, or GTK 3 where LibreOffice is installed
    /// without it, is an error that says so.
    pub fn from_env() -> Result<OfficeToolkit, String> {
        let setting = std::env::var("GUIGYM_OFFICE_TOOLKIT").ok();
        OfficeToolkit::chosen(setting.as_deref(), Path::new(GTK3_PLUGIN).exists(), which("soffice").is_some())
    }

    /// The toolkit `setting` names (`None`: the default, GTK 3). Without LibreOffice at all
    /// the toolkit does not matter; with LibreOffice but not its GTK 3 toolkit, the default
    /// fails rather than quietly give observations without LibreOffice's tree.
    fn chosen(setting: Option<&str>, gtk3_installed: bool, office_installed: bool) -> Result<OfficeToolkit, String> {
        match setting {
            Some("gen") => Ok(OfficeToolkit::Gen),
            Some("gtk3") | None if gtk3_installed || !office_installed => Ok(OfficeToolkit::Gtk3),
            Some("gtk3") => Err(format!("GUIGYM_OFFICE_TOOLKIT=gtk3 needs Debian's libreoffice-gtk3 ({GTK3_PLUGIN} is missing; run ./scripts/setup.sh)")),
            None => Err(format!(
                "LibreOffice is installed without its GTK 3 toolkit, the default, which gives its windows their accessibility tree ({GTK3_PLUGIN} is missing): run ./scripts/setup.sh, or set GUIGYM_OFFICE_TOOLKIT=gen to go without"
            )),
            Some(other) => Err(format!("GUIGYM_OFFICE_TOOLKIT={other:?}: expected gtk3 or gen")),
        }
    }

    /// LibreOffice's name for it (`SAL_USE_VCLPLUGIN`).
    pub fn plugin(self) -> &'static str {
        match self {
            OfficeToolkit::Gen => "gen",
            OfficeToolkit::Gtk3 => "gtk3",
        }
    }
}

const GTK3_PLUGIN: &str = "/usr/lib/libreoffice/program/libvclplug_gtk3lo.so";

/// The session bus's settings: a usual session bus's, but root may connect too (guigym reads
/// the accessibility tree as root where the applications run as another account), and the
/// services it starts are only the system's: the usual bus also starts those described under
/// the home, which would let an agent leave a process of its own choosing running under the
/// bus, past every reset. It listens in the instance's runtime folder, by its real path: the
/// namespace's `/tmp`, where a usual bus listens, is out of guigym's sight.
fn bus_config_text(runtime: &Path) -> String {
    let folder = runtime.display().to_string().replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    BUS_CONFIG.replace("RUNTIME", &folder)
}

const BUS_CONFIG: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:dir=RUNTIME</listen>
  <auth>EXTERNAL</auth>
  <servicedir>/usr/local/share/dbus-1/services</servicedir>
  <servicedir>/usr/share/dbus-1/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
    <allow user="root"/>
  </policy>
</busconfig>
"#;

/// `/etc/passwd` or `/etc/group` as an instance's namespace shows it: the machine's, plus the
/// instance's account as `user` (OSWorld's account), whose home is `/home/user`.
fn with_user(file: &str, account: u32) -> String {
    let mut text = std::fs::read_to_string(file).unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if file.ends_with("passwd") {
        text.push_str(&format!("user:x:{account}:{account}:user:{TASK_HOME}:/bin/bash\n"));
    } else {
        text.push_str(&format!("user:x:{account}:\n"));
    }
    text
}

/// An X authority file holding one cookie for any display (family "wild", no display number):
/// Xvfb reads it to know the cookie, the instance's clients to show it.
fn xauthority(cookie: &[u8]) -> Vec<u8> {
    let mut file = 0xffffu16.to_be_bytes().to_vec();
    for field in [&b""[..], b"", X_AUTH_NAME.as_bytes(), cookie] {
        file.extend((field.len() as u16).to_be_bytes());
        file.extend(field);
    }
    file
}

/// Writes the instance's X authority file afresh, the account's alone: whatever the instance
/// left at its path (a link to a file of the machine, a folder) is removed, never followed.
fn write_authority(path: &Path, cookie: &[u8], account: Option<u32>) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    // `create_new` (O_EXCL) fails on a link that appears meanwhile rather than follow it.
    remove_entry(path)?;
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    file.write_all(&xauthority(cookie))?;
    if let Some(id) = account {
        std::os::unix::fs::fchown(&file, Some(id), Some(id))?;
    }
    Ok(())
}

/// Removes what is at `path`, a folder with its content, never following a link (a link is
/// removed itself); nothing there is fine.
fn remove_entry(path: &Path) -> std::io::Result<()> {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    };
    match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The instance folder's folders only the instance's account may enter: its runtime folder
/// (the display's cookie, the buses' sockets) and what its namespace shows as /tmp and
/// /var/tmp. Set again at each reset (the instance may have opened them to others).
fn give_private_folders(dir: &Path, account: Option<u32>) -> std::io::Result<()> {
    for name in [RUN, TMP, VAR_TMP] {
        // Entries of a folder only root may change: never a link the instance put there.
        let folder = dir.join(name);
        std::fs::create_dir_all(&folder)?;
        if let Some(id) = account {
            std::os::unix::fs::chown(&folder, Some(id), Some(id))?;
        }
        std::fs::set_permissions(&folder, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
    }
    Ok(())
}

/// The X authorization protocol the displays use.
pub const X_AUTH_NAME: &str = "MIT-MAGIC-COOKIE-1";

/// Gives a folder and everything under it to an account: links themselves, never their
/// targets. Folders are opened without following links and walked by descriptor, so a process
/// of the instance that swaps a folder for a link to `/etc` mid-walk gains nothing.
fn chown_tree(path: &Path, account: u32) {
    let (uid, gid) = (rustix::fs::Uid::from_raw(account), rustix::fs::Gid::from_raw(account));
    if let Ok(dir) = open_folder(rustix::fs::CWD, path) {
        let _ = rustix::fs::fchown(&dir, Some(uid), Some(gid));
        chown_below(&dir, uid, gid, 0);
    }
}

/// How deep the home's folders are followed (a deeper tree is left as it is, not overflowed).
pub const MAX_DEPTH: usize = 64;

fn open_folder<P: rustix::path::Arg>(at: impl std::os::fd::AsFd, path: P) -> rustix::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    rustix::fs::openat(at, path, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())
}

fn chown_below(dir: &std::os::fd::OwnedFd, uid: rustix::fs::Uid, gid: rustix::fs::Gid, depth: usize) {
    let Ok(entries) = rustix::fs::Dir::read_from(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        // A file with another name elsewhere (a hard link the agent made to a file of the
        // machine's) keeps its owner.
        let linked = rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|st| st.st_nlink > 1 && !rustix::fs::FileType::from_raw_mode(st.st_mode).is_dir());
        if linked {
            continue;
        }
        let _ = rustix::fs::chownat(dir, name, Some(uid), Some(gid), rustix::fs::AtFlags::SYMLINK_NOFOLLOW);
        if depth < MAX_DEPTH {
            if let Ok(sub) = open_folder(dir, name) {
                chown_below(&sub, uid, gid, depth + 1);
            }
        }
    }
}

/// The environment variable that marks an instance's processes.
const MARKER: &str = "GUIGYM_INSTANCE";

/// The window manager's settings: the system's (window switching, closing) plus Ctrl+Alt+T,
/// which opens a terminal in the home folder, as on the Ubuntu desktops OSWorld's tasks were
/// made on (the audit's change elsewhere uses it).
fn wm_config_text() -> String {
    let terminal = "<keybind key=\"C-A-t\"><action name=\"Execute\"><command>sh -c 'cd &amp;&amp; exec xterm'</command></action></keybind>";
    let system = std::fs::read_to_string("/etc/xdg/openbox/rc.xml").unwrap_or_default();
    if system.contains("<keyboard>") {
        system.replacen("<keyboard>", &format!("<keyboard>\n{terminal}"), 1)
    } else {
        format!("<?xml version=\"1.0\"?>\n<openbox_config xmlns=\"http://openbox.org/3.4/rc\"><keyboard>{terminal}</keyboard></openbox_config>\n")
    }
}

/// The programs an instance needs, and the Debian packages that bring them.
pub const REQUIRED: &[(&str, &str)] = &[("Xvfb", "xvfb"), ("openbox", "openbox"), ("dbus-daemon", "dbus"), ("setsid", "util-linux"), ("keyctl", "keyutils")];

pub fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(program)).find(|p| p.is_file())
}

/// Why instances cannot start here, if they cannot.
pub fn missing() -> Option<String> {
    let lacking: Vec<&str> = REQUIRED.iter().filter(|(p, _)| which(p).is_none()).map(|(_, pkg)| *pkg).collect();
    (!lacking.is_empty()).then(|| format!("the desktop backend needs Debian's {} (run ./scripts/setup.sh)", lacking.join(", ")))
}

pub fn all_pids() -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries.flatten().filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok()).collect()
}

/// A process's mount namespace (`mnt:[4026532…]`).
fn mount_namespace(pid: u32) -> Option<std::ffi::OsString> {
    std::fs::read_link(format!("/proc/{pid}/ns/mnt")).ok().map(PathBuf::into_os_string)
}

/// A process's PID namespace (`pid:[4026532…]`).
fn pid_namespace(pid: u32) -> Option<std::ffi::OsString> {
    std::fs::read_link(format!("/proc/{pid}/ns/pid")).ok().map(PathBuf::into_os_string)
}

/// The PID namespace a process's children are born in (a new one, for `unshare --pid`).
fn children_pid_namespace(pid: u32) -> Option<std::ffi::OsString> {
    std::fs::read_link(format!("/proc/{pid}/ns/pid_for_children")).ok().map(PathBuf::into_os_string)
}

/// Whether a PID namespace may have a `/proc` of its own here (a container in a user namespace
/// that masks parts of its /proc refuses the mount): checked once.
fn private_proc() -> bool {
    static PRIVATE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PRIVATE.get_or_init(|| {
        let mut probe = Command::new("unshare");
        probe.args(["--pid", "--fork", "--mount-proc", "true"]).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        let private = probe.status().is_ok_and(|s| s.success());
        if !private {
            eprintln!("guigym: this machine gives no PID namespace a /proc of its own: an instance's applications see the machine's processes (they still cannot signal them)");
        }
        private
    })
}

/// Whether a process is the first of its PID namespace (pid 1 there).
fn first_in_namespace(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("NSpid:")).and_then(|ids| ids.split_whitespace().last()) == Some("1")
}

/// Whether a child of ours still runs.
fn running(child: &mut Child) -> bool {
    matches!(child.try_wait(), Ok(None))
}

/// A process's group.
fn process_group(pid: u32) -> Option<u32> {
    // Field 5 of /proc/PID/stat is the process group (after the parenthesized name).
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.split_whitespace().nth(2)?.parse().ok()
}

/// Kills every process that runs as `account`: `kill -KILL -1` as the account itself, which
/// the kernel delivers to all of them at once (a process forking as fast as it can does not
/// slip between two reads of /proc), again while any is left, for a few seconds (a killed
/// process takes a moment to end on a loaded machine). Whether none is left.
fn kill_account(account: u32) -> bool {
    let any_left = || all_pids().into_iter().any(|pid| process_uid(pid) == Some(account));
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if !any_left() {
            return true;
        }
        signal_account(account);
        std::thread::sleep(Duration::from_millis(2));
    }
    !any_left()
}

/// Sends SIGKILL to every process that runs as `account`, once.
pub(crate) fn signal_account(account: u32) {
    let _ = Command::new("kill").args(["-9", "--", "-1"]).uid(account).gid(account).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status();
}

/// Removes the System V shared memory segments, semaphores and message queues `account` made
/// or owns, and its POSIX message queues: they outlive their processes (a segment stays in
/// memory until removed), and the machine's IPC namespace is every instance's (X's MIT-SHM
/// needs the server's). As root, System V objects by their ids: `ipcrm --all` as the account
/// skips what it made unreadable to itself.
pub(crate) fn remove_ipc_of(account: u32) -> Result<(), String> {
    let mut args = Vec::new();
    // The id is the 2nd column; the owner and creator are the 8th and 10th of shm and msg, the
    // 5th and 7th of sem.
    for (table, flag, owner, creator) in [("shm", "-m", 7, 9), ("sem", "-s", 4, 6), ("msg", "-q", 7, 9)] {
        for line in std::fs::read_to_string(format!("/proc/sysvipc/{table}")).unwrap_or_default().lines().skip(1) {
            let ours = [owner, creator].iter().any(|i| memory::column(line, *i) == Some(u64::from(account)));
            if let (true, Some(id)) = (ours, memory::column(line, 1)) {
                args.extend([flag.to_string(), id.to_string()]);
            }
        }
    }
    if !args.is_empty() {
        let _ = Command::new("ipcrm").args(args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status();
    }
    // POSIX message queues live in the IPC namespace too, seen only through an mqueue file
    // system: one mounted where no one else sees it lists them, and the account's go.
    let mut queues = Command::new("unshare");
    queues
        .args(["--mount", "--propagation", "private", "--", "/bin/sh", "-c"])
        .arg("mount -t mqueue guigym-mqueue /tmp && find /tmp -mindepth 1 -maxdepth 1 -user \"$1\" -exec rm -f -- {} +")
        .args(["sh".to_string(), account.to_string()]);
    succeeds(&mut queues, &format!("removing the POSIX message queues of the instance's account {account}"))
}

/// Empties the kernel keyrings of `account` (its user, user session and persistent keyrings):
/// they outlive its last process (since Linux 5.3), so an episode could leave the next a key.
/// The keys of the sessions its processes made go with those processes. Not a failure of the
/// reset where it cannot: the account may have taken every right on its keyring away, root's
/// too, and a reset that failed for it would fail for every later instance on the account.
/// What such a keyring holds no process can read either, unless the agent left it readable.
fn clear_keyrings(account: u32) {
    // The persistent keyring only its possessor may write: reached from a session keyring
    // that links the user keyring (`get_persistent` links it there, which the last clear undoes).
    let persistent = "keyctl link @u @s >/dev/null && p=$(keyctl get_persistent @u) && keyctl clear \"$p\"";
    let script = format!("keyctl session - sh -c '{persistent}'; keyctl clear @u; keyctl clear @us");
    let mut clear = Command::new("/bin/sh");
    clear.args(["-c", &script]).uid(account).gid(account);
    let _ = succeeds(&mut clear, "clearing the account's kernel keyrings");
}

/// Runs one of guigym's own commands, silently, and says `what` failed, and what it said, if
/// it did not succeed.
fn succeeds(command: &mut Command, what: &str) -> Result<(), String> {
    match command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!("{what}: {} ({})", out.status, String::from_utf8_lossy(&out.stderr).trim())),
        Err(e) => Err(format!("{what}: {e}")),
    }
}

/// The account a living process runs as (its real uid); `None` for one that ended and waits
/// to be reaped.
fn process_uid(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    if waits_to_be_reaped(&status) {
        return None;
    }
    status.lines().find_map(|l| l.strip_prefix("Uid:"))?.split_whitespace().next()?.parse().ok()
}

/// Whether the process whose `/proc/PID/status` this is has ended and waits to be reaped (a
/// zombie, which holds no memory).
pub(crate) fn waits_to_be_reaped(status: &str) -> bool {
    status.lines().find_map(|l| l.strip_prefix("State:")).is_some_and(|state| state.trim_start().starts_with(['Z', 'X']))
}

/// The marker of the instance whose folder is `dir` (its name).
fn marker_of(dir: &Path) -> String {
    dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The instance marker a process carries in its environment, if any.
fn process_marker(pid: u32) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{MARKER}=").into_bytes();
    environ.split(|b| *b == 0).find_map(|var| var.strip_prefix(prefix.as_slice())).map(|v| String::from_utf8_lossy(v).into_owned())
}

fn pid_of(pid: u32) -> Option<rustix::process::Pid> {
    i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw)
}

/// Kills a process.
fn kill(pid: u32) {
    if let Some(pid) = pid_of(pid) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
}

/// Kills every member of a process group.
fn kill_members(group: u32) {
    if let Some(group) = pid_of(group) {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

fn kill_group(child: &mut Child) {
    kill_members(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

impl Session {
    /// Starts a display of `width`×`height`, its window manager and its session bus.
    pub fn start(width: u32, height: u32) -> Result<Session, String> {
        if let Some(why) = missing() {
            return Err(why);
        }
        let (dir, account) = fresh_dir().map_err(|e| format!("cannot make the instance folder: {e}"))?;
        // `homes/` is what the namespace shows as `/home`: a reset replaces `homes/user`, and
        // the namespace sees the new folder.
        let home = dir.join("homes").join("user");
        let runtime = dir.join(RUN);
        let made = (|| -> std::io::Result<()> {
            std::fs::create_dir_all(&home)?;
            if let Some(id) = account {
                for (file, seen) in [("/etc/passwd", PASSWD), ("/etc/group", GROUP)] {
                    std::fs::write(dir.join(seen), with_user(file, id))?;
                }
            }
            std::fs::write(dir.join(WM_CONFIG), wm_config_text())?;
            let stand_ins = dir.join(STAND_IN_DIR);
            std::fs::create_dir_all(&stand_ins)?;
            for s in STAND_INS {
                std::fs::write(stand_ins.join(s.name), s.script)?;
                set_mode(&stand_ins.join(s.name), 0o755);
            }
            set_mode(&stand_ins, 0o755);
            std::fs::write(dir.join(BUS_CONFIG_FILE), bus_config_text(&runtime))?;
            give_private_folders(&dir, account)
        })();
        if let Err(e) = made {
            remove_instance_dir(&dir);
            return Err(format!("cannot make the instance folder {}: {e}", dir.display()));
        }
        // From here on, dropping the session ends what it started and removes its folder.
        let mut session = Session {
            dir,
            home,
            size: (width, height),
            display_name: String::new(),
            bus_address: String::new(),
            wm: None,
            xvfb: None,
            bus: None,
            namespace: None,
            network: None,
            account,
            cookie: [0; 16],
            office: OfficeToolkit::Gtk3,
            apps: Vec::new(),
            finished: Vec::new(),
            memory: None,
        };
        session.namespace = session.enter_namespace();
        session.new_network()?;
        if session.account.is_some() && !session.namespaced() {
            // Without it the applications would see the machine's /tmp and the other homes.
            return Err("guigym runs as root but cannot make a mount namespace for the instance (util-linux's unshare and nsenter are needed)".into());
        }
        if let Some(id) = session.account {
            session.memory = Some(memory::watch(id, mib_from_env("GUIGYM_DESKTOP_MEMORY_MIB", MEMORY_MIB)? << 20)?);
        }
        session.give_home();
        session.start_desktop()?;
        Ok(session)
    }

    /// Starts the display, the session bus and the window manager, anew at each reset: nothing
    /// an episode did to them (a setting of the X server, a client it left connected, a
    /// setting of the bus, a process traced and changed) reaches the next.
    fn start_desktop(&mut self) -> Result<(), String> {
        self.start_display()?;
        // The session bus: applications that look for one find it here, never the host's. It
        // runs as the applications do, so that the accessibility bus it starts does too. It
        // leads a session of its own (`setsid`, which does not fork for a process that leads
        // no group: the bus keeps the pid we know where it runs unwrapped).
        let bus_argv = [
            "setsid".to_string(),
            "dbus-daemon".into(),
            format!("--config-file={}", self.dir.join(BUS_CONFIG_FILE).display()),
            "--nofork".into(),
            "--nopidfile".into(),
            "--print-address=1".into(),
        ];
        let mut bus = self
            .spawnable(&bus_argv, false, DESKTOP)?
            .process_group(rustix::process::getpgrp().as_raw_nonzero().get())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start dbus-daemon: {e}"))?;
        let mut address = String::new();
        if let Some(out) = bus.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut address);
        }
        self.bus_address = address.trim().to_string();
        self.bus = Some(bus);
        self.start_wm()
    }

    /// Starts the window manager like an application, so that what it starts (a terminal by
    /// its key) sees the task's paths and runs as the applications do.
    pub fn start_wm(&mut self) -> Result<(), String> {
        if let Some(mut old) = self.wm.take() {
            kill_group(&mut old);
        }
        let wm_argv = ["openbox".to_string(), "--sm-disable".into(), "--config-file".into(), self.dir.join(WM_CONFIG).display().to_string()];
        self.wm = Some(self.spawnable(&wm_argv, false, DESKTOP)?.spawn().map_err(|e| format!("cannot start openbox: {e}"))?);
        Ok(())
    }

    /// Starts Xvfb with a new cookie. It picks a free display and writes its number on the
    /// descriptor we name (stdout); it lets in only clients that show the cookie: without it,
    /// any local process (another instance's agent) could watch and drive the screen.
    fn start_display(&mut self) -> Result<(), String> {
        getrandom::fill(&mut self.cookie).map_err(|e| format!("cannot draw the display's cookie: {e}"))?;
        let authority = self.dir.join(RUN).join(AUTHORITY);
        write_authority(&authority, &self.cookie, self.account).map_err(|e| format!("{}: {e}", authority.display()))?;
        let (width, height) = self.size;
        // Its memory is bounded: a client may make it allocate (pixmaps without end), and the
        // server then answers BadAlloc rather than taking the machine's memory.
        let mut xvfb = Command::new("prlimit")
            .env(MARKER, self.marker())
            .args([format!("--as={}", XVFB_MEMORY_MIB << 20), "--".into(), "Xvfb".into()])
            .args(["-displayfd", "1", "-screen", "0", &format!("{width}x{height}x24"), "-nolisten", "tcp", "-noreset", "+extension", "XTEST", "-auth"])
            .arg(&authority)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start Xvfb: {e}"))?;
        let mut line = String::new();
        if let Some(out) = xvfb.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        let Ok(number) = line.trim().parse::<u32>() else {
            kill_group(&mut xvfb);
            return Err(format!("Xvfb did not report a display (it said {line:?})"));
        };
        self.display_name = format!(":{number}");
        self.xvfb = Some(xvfb);
        Ok(())
    }

    /// What an X client shows the display to be let in: the protocol's name and the cookie.
    pub fn x_auth(&self) -> (&'static str, &[u8]) {
        (X_AUTH_NAME, &self.cookie)
    }

    /// The environment every process of the instance gets: its display, home, bus and
    /// runtime folder, nothing of the host's session.
    pub fn env(&self) -> Vec<(String, String)> {
        let home = self.seen_home();
        let real = self.home.display();
        let mut env = vec![
            ("DISPLAY".to_string(), self.display_name.clone()),
            ("HOME".into(), home.clone()),
            ("USER".into(), "user".into()),
            ("LOGNAME".into(), "user".into()),
            ("SHELL".into(), "/bin/bash".into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("XDG_RUNTIME_DIR".into(), self.dir.join(RUN).display().to_string()),
            ("XAUTHORITY".into(), self.dir.join(RUN).join(AUTHORITY).display().to_string()),
            // By their real paths (the same folders as under /home/user): LibreOffice names
            // its single-instance pipe in /tmp after its profile's path, so with every
            // instance's profile at /home/user/.config a second instance's soffice handed its
            // document to the first one's window.
            ("XDG_CONFIG_HOME".into(), format!("{real}/.config")),
            ("XDG_CACHE_HOME".into(), format!("{real}/.cache")),
            // By the path the applications see: the trash is in it, and a file is moved there
            // by a rename, which fails between two mounts of one folder (the home's real path
            // and its /home/user), so that nothing could be trashed.
            ("XDG_DATA_HOME".into(), format!("{home}/.local/share")),
            // GTK 2 applications (the file manager) load their accessibility bridge only
            // when asked; GTK 3 ones always do. The bus is the session's own (see `a11y`).
            ("GTK_MODULES".into(), "gail:atk-bridge".into()),
            // GTK 3 draws a window through offscreen surfaces the X server composes, by
            // software on Xvfb: LibreOffice's first window took 1.25 s to map that way, 1.0 s
            // when GTK draws into images of its own (`bench desktop`). (`recording` was faster
            // still, but LibreOffice's toolbar icons stayed blank.)
            ("GDK_RENDERING".into(), "image".into()),
            ("SAL_USE_VCLPLUGIN".into(), self.office.plugin().into()),
            // Thunderbird takes the profile `profiles.ini` marks the default (the home
            // template's, or the one a task's archive brings, as OSWorld's Thunderbird tasks
            // do), not a new one per installation.
            ("MOZ_LEGACY_PROFILES".into(), "1".into()),
            // Nor does it sandbox its processes in user namespaces of their own, where the
            // memory they hold escapes the instance's budget (see `memory`; Chromium runs
            // without its sandbox for the same reason).
            ("MOZ_ASSUME_USER_NS".into(), "0".into()),
            ("MOZ_DISABLE_CONTENT_SANDBOX".into(), "1".into()),
            ("MOZ_DISABLE_GMP_SANDBOX".into(), "1".into()),
            ("MOZ_DISABLE_RDD_SANDBOX".into(), "1".into()),
            ("MOZ_DISABLE_SOCKET_PROCESS_SANDBOX".into(), "1".into()),
            ("MOZ_DISABLE_UTILITY_SANDBOX".into(), "1".into()),
            (
                "PATH".into(),
                format!("{}:{}", self.dir.join(STAND_IN_DIR).display(), std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into())),
            ),
            // Marks every process of the instance, those it starts included, so that a reset
            // finds what escaped its process group (a terminal the window manager opened, a
            // job a shell put in the background).
            (MARKER.into(), self.marker()),
        ];
        if !self.bus_address.is_empty() {
            env.push(("DBUS_SESSION_BUS_ADDRESS".into(), self.bus_address.clone()));
        }
        env
    }

    /// A task's command as the instance runs it: inside its namespace (or with task paths
    /// rewritten), as its account, with its environment, its home as working folder, in a
    /// process group of its own, living as `role` says.
    fn spawnable(&self, command: &[String], shell: bool, role: Role) -> Result<Command, String> {
        let argv = self.inside(command, shell, role);
        let Some((program, args)) = argv.split_first() else { return Err("an empty command".into()) };
        let mut c = Command::new(program);
        c.args(args).env_clear().envs(self.env()).current_dir(&self.home).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).process_group(0);
        if let Role::Command(_) = role {
            // A task's commands run as the account whose home the agent wrote: Python must not
            // load what it left under its user site folder (a `.pth` runs at every start, and
            // could print a getter's passing result), nor a module it left in the working
            // folder (the home: `python3 -c` looks there first).
            c.env("PYTHONNOUSERSITE", "1").env("PYTHONSAFEPATH", "1");
        }
        // Entering the namespace needs root: `nsenter` changes the account after it.
        if let (Some(account), false) = (self.account, self.namespaced()) {
            c.uid(account).gid(account);
        }
        Ok(c)
    }

    /// Gives the home folder to the instance's account, and to it alone: what guigym wrote
    /// there (the template, a task's files) must be the applications' to change (LibreOffice
    /// opens a file it cannot write read-only).
    pub fn give_home(&self) {
        if let Some(account) = self.account {
            chown_tree(&self.home, account);
        }
        set_mode(&self.home, 0o700);
    }

    /// The instance as a reset leaves it, once `end_desktop` has ended everything of it: the
    /// home folder a copy of `template`; `/tmp` and `/var/tmp` empty, the runtime folder and the
    /// getters' folder new (nothing an episode left there reaches the next); the private
    /// folders closed to others again; the namespace's /dev/shm and /run/lock new; then a new
    /// display (with a new cookie), session bus and window manager.
    pub fn restore(&mut self, template: &Path) -> Result<(), String> {
        let files = || -> std::io::Result<()> {
            // What the episode stored goes first: a full space has room for the template again.
            self.renew_shared_folders().map_err(std::io::Error::other)?;
            remove_entry(&self.dir.join(RUN))?;
            remove_entry(&fetched_of(&self.dir))?;
            for scratch in [TMP, VAR_TMP] {
                // Emptied, not replaced: the namespace shows this very folder (and the
                // display's sockets at its .X11-unix).
                for entry in std::fs::read_dir(self.dir.join(scratch))? {
                    let path = entry?.path();
                    if path.file_name().is_some_and(|n| n == X11_SOCKETS) {
                        continue;
                    }
                    // What is gone meanwhile is fine.
                    remove_entry(&path)?;
                }
            }
            restore_tree(template, &self.home)?;
            give_private_folders(&self.dir, self.account)
        };
        files().map_err(|e| format!("restoring the instance's files: {e}"))?;
        self.give_home();
        self.new_network()?;
        self.start_desktop()
    }

    /// Gives the instance a new network namespace, with only its own loopback (where the
    /// machine allows namespaces): the processes of the instance join it, and the old one goes
    /// with its holder.
    fn new_network(&mut self) -> Result<(), String> {
        if self.namespace.is_none() {
            return Ok(());
        }
        if let Some(mut old) = self.network.take() {
            kill_group(&mut old);
        }
        let mut holder = Command::new("unshare")
            .env(MARKER, self.marker())
            .args(["--net", "--", "/bin/sh", "-c", "(ip link set lo up 2>/dev/null; true) && echo ready && exec sleep infinity"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot make the instance's network: {e}"))?;
        let mut line = String::new();
        if let Some(out) = holder.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        if line.trim() != "ready" {
            kill_group(&mut holder);
            return Err("cannot make the instance's network namespace".into());
        }
        self.network = Some(holder);
        Ok(())
    }

    /// The folder where getters keep what they take out of the instance: guigym's alone (it
    /// holds expected files too), emptied at each reset.
    pub fn fetched_dir(&self) -> std::io::Result<PathBuf> {
        let dir = fetched_of(&self.dir);
        for folder in [dir.parent().unwrap_or(&dir), &dir] {
            std::fs::create_dir_all(folder)?;
            std::fs::set_permissions(folder, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
        }
        Ok(dir)
    }

    /// The argv of a task's command: a list, or one string run by the shell.
    fn argv(command: &[String], shell: bool) -> Vec<String> {
        if shell || command.len() == 1 && command[0].contains(' ') {
            vec!["/bin/sh".into(), "-c".into(), command.join(" ")]
        } else {
            command.to_vec()
        }
    }

    /// Makes the instance's namespaces: a holder process, in a mount and a network namespace of
    /// its own, mounts a private `/home` holding only this instance's homes, its own `/tmp`
    /// (showing the displays' sockets, read-only) and `/var/tmp`, and (where the instance has an
    /// account) `/etc/passwd` and `/etc/group` naming it `user`, says so, and sleeps. The
    /// network namespace has only its own loopback: the instance reaches no service of the
    /// machine (the manager's API, a model server) and no other instance's. `None` where the
    /// machine does not allow it (no capability, no `unshare`).
    fn enter_namespace(&self) -> Option<Child> {
        which("unshare")?;
        which("nsenter")?;
        let homes = self.home.parent()?.to_path_buf();
        std::fs::create_dir_all(&self.home).ok()?;
        let accounts = if self.account.is_some() { " && mount --bind \"$4\" /etc/passwd && mount --bind \"$5\" /etc/group" } else { "" };
        // X clients reach the display by its socket file: the abstract one is the machine's
        // network namespace's.
        let sockets =
            format!("if [ -d /tmp/{X11_SOCKETS} ]; then mkdir -p \"$2/{X11_SOCKETS}\" && mount -o bind,ro /tmp/{X11_SOCKETS} \"$2/{X11_SOCKETS}\"; fi");
        // The machine's /dev/shm is memory anyone may fill, and shows every instance's folder:
        // the namespace gets one of its own, small, that shows only this instance's folder, at
        // its real path (the environment names it: the runtime folder, the X authority file).
        let shm = self.own_shm("$6").map(|mounts| format!(" && {mounts}")).unwrap_or_default();
        let script = format!(
            "umask 022 && mount --make-rprivate / && {sockets} && (ip link set lo up 2>/dev/null; true) && mount --bind \"$1\" /home && mount --rbind \"$2\" /tmp && mount --bind \"$3\" /var/tmp{accounts}{shm} && {RUN_LOCK} && echo ready && exec sleep infinity"
        );
        let mut holder = Command::new("unshare")
            .env(MARKER, self.marker())
            .args(["--mount", "--net", "--propagation", "private", "--", "/bin/sh", "-c", &script, "sh"])
            .arg(&homes)
            .args([TMP, VAR_TMP, PASSWD, GROUP].map(|name| self.dir.join(name)))
            .arg(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .ok()?;
        let mut line = String::new();
        if let Some(out) = holder.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        if line.trim() == "ready" {
            Some(holder)
        } else {
            kill_group(&mut holder);
            None
        }
    }

    /// The commands that give the namespace a /dev/shm of its own, small, that shows only the
    /// instance's folder (named by the shell word `dir`) at its real path; `None` where the
    /// folder is not under the machine's /dev/shm.
    fn own_shm(&self, dir: &str) -> Option<String> {
        let inside = self.dir.strip_prefix("/dev/shm").ok()?.display();
        Some(format!(
            "mkdir -p \"{dir}/{SHM}\" && mount -t tmpfs -o size={SHM_MIB}m,nr_inodes=16384,mode=1777,nosuid,nodev guigym-shm \"{dir}/{SHM}\" && mkdir -p \"{dir}/{SHM}/{inside}\" && mount --bind \"{dir}\" \"{dir}/{SHM}/{inside}\" && mount --move \"{dir}/{SHM}\" /dev/shm"
        ))
    }

    /// Gives the namespace a new, empty /dev/shm and /run/lock: what an episode left there
    /// (files, POSIX shared memory and semaphores, locks) does not reach the next. The old ones
    /// are let go lazily (their memory returns once nothing holds them open), and only where
    /// they are guigym's: after a renewal that failed half-way, the machine's folder shows
    /// there, and stays.
    fn renew_shared_folders(&self) -> Result<(), String> {
        let Some(holder) = &self.namespace else { return Ok(()) };
        let release = |folder: &str, source: &str| {
            format!("if [ \"$(findmnt -rn -o SOURCE --mountpoint {folder} | tail -n 1)\" = {source} ]; then umount --recursive --lazy {folder}; fi")
        };
        let shm = self.own_shm("$1").map(|mounts| format!("{} && {mounts} && ", release("/dev/shm", "guigym-shm"))).unwrap_or_default();
        let mut renew = Command::new("nsenter");
        renew
            .args([format!("--target={}", holder.id()), "--mount".into(), "--".into(), "/bin/sh".into(), "-c".into()])
            .arg(format!("{shm}{} && {RUN_LOCK}", release("/run/lock", "guigym-lock")))
            .args([std::ffi::OsStr::new("sh"), self.dir.as_os_str()]);
        succeeds(&mut renew, "giving the instance's namespace a new /dev/shm and /run/lock")
    }

    /// Whether applications see the task's paths as they are (`/home/user`).
    pub fn namespaced(&self) -> bool {
        self.namespace.is_some()
    }

    /// The home folder as the instance's applications see it.
    fn seen_home(&self) -> String {
        if self.namespaced() {
            TASK_HOME.to_string()
        } else {
            self.home.display().to_string()
        }
    }

    /// A task's command as it runs: inside the instance's namespace, or with its paths
    /// rewritten to the instance's home.
    fn inside(&self, command: &[String], shell: bool, role: Role) -> Vec<String> {
        let Some(holder) = &self.namespace else { return Self::argv(&self.in_home(command), shell) };
        // The instance's own paths (an `open` step's file) as the namespace shows them.
        let host = self.home.display().to_string();
        let command: Vec<String> = command.iter().map(|a| a.replace(&host, TASK_HOME)).collect();
        let (Role::Command(processes) | Role::Resident(processes)) = role;
        let mut argv = Vec::new();
        if self.account.is_some() {
            // At most so many processes (threads included) run as the account: an agent's
            // fork bomb stops there, not at the machine's limit.
            argv.extend(["prlimit".to_string(), format!("--nproc={processes}"), "--".into()]);
        }
        // `--wdns`: the home as the namespace shows it (`--wd` opens the machine's folder of that
        // name, before entering).
        let network = self.network.as_ref().map_or_else(|| "--net".to_string(), |n| format!("--net=/proc/{}/ns/net", n.id()));
        argv.extend(["nsenter".to_string(), format!("--target={}", holder.id()), "--mount".into(), network, format!("--wdns={TASK_HOME}")]);
        let account = self.account.map(|id| [format!("--setuid={id}"), format!("--setgid={id}")]).into_iter().flatten();
        match role {
            Role::Command(_) => {
                argv.extend(account);
                argv.push("--".into());
            }
            Role::Resident(_) => {
                // `unshare` forks the resident as the first process of a PID namespace and
                // waits for it (as root: no process of the account can signal it). It passes
                // the resident's death by a signal on as its own, but for SIGKILL, which it
                // cannot raise on itself: then it says so on its error output and exits 1.
                // The resident's own error output goes elsewhere, so that only the wrapper
                // speaks there.
                argv.extend(["--".to_string(), "unshare".into(), "--pid".into(), "--fork".into()]);
                if private_proc() {
                    argv.push("--mount-proc".into());
                }
                argv.extend(account);
                argv.extend(["--".to_string(), "/bin/sh".into(), "-c".into(), "exec \"$@\" 2>/dev/null".into(), "sh".into()]);
            }
        }
        argv.extend(Self::argv(&command, shell));
        argv
    }

    /// Starts an application and leaves it running (until the next reset).
    pub fn launch(&mut self, command: &[String], shell: bool) -> Result<(), String> {
        let program = command.first().cloned().unwrap_or_default();
        let mut spawnable = self.spawnable(command, shell, APP)?;
        // Root's alone, in the instance's folder, which the account may not list.
        let said = self.namespaced().then(|| self.dir.join(format!("{SAID}{}", self.apps.len())));
        if let Some(path) = &said {
            let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
            spawnable.stderr(file);
        }
        let child = spawnable.spawn().map_err(|e| format!("cannot launch {program}: {e}"))?;
        self.apps.push(App { program, child, said });
        Ok(())
    }

    /// How to reach a TCP port on the instance's own loopback, where its applications listen
    /// out of the machine's reach (a browser's DevTools port): a helper inside its network
    /// namespace, joined to the caller by its standard input and output (socat, as the
    /// account). `None` where instances share the machine's network: connect to 127.0.0.1.
    pub fn loopback(&self, port: u16) -> Result<Option<Command>, String> {
        if !self.namespaced() {
            return Ok(None);
        }
        if which("socat").is_none() {
            return Err("reaching an instance's loopback needs Debian's socat (run ./scripts/setup.sh)".into());
        }
        let argv = ["socat".to_string(), "STDIO".into(), format!("TCP:127.0.0.1:{port}")];
        let mut helper = self.spawnable(&argv, false, HELPER)?;
        helper.stdin(Stdio::piped()).stdout(Stdio::piped());
        Ok(Some(helper))
    }

    /// The program of the instance's process that listens on TCP `port` in its network (as
    /// `/proc/<pid>/exe` names it), if any does: a getter asks an application's server only
    /// when the application itself serves the port, not a server the agent started there.
    pub fn listener(&self, port: u16) -> Option<PathBuf> {
        let table_of = self.network.as_ref().map_or_else(|| "/proc/self/net".to_string(), |holder| format!("/proc/{}/net", holder.id()));
        // Lines of `tcp` and `tcp6`: `sl local rem st … inode`, the port in hex after `:`, LISTEN is 0A.
        let mut sockets = Vec::new();
        for table in ["tcp", "tcp6"] {
            let text = std::fs::read_to_string(format!("{table_of}/{table}")).unwrap_or_default();
            for line in text.lines().skip(1) {
                let fields: Vec<&str> = line.split_whitespace().collect();
                let local_port = fields.get(1).and_then(|a| a.rsplit(':').next()).and_then(|p| u16::from_str_radix(p, 16).ok());
                if local_port == Some(port) && fields.get(3) == Some(&"0A") {
                    if let Some(inode) = fields.get(9) {
                        sockets.push(format!("socket:[{inode}]"));
                    }
                }
            }
        }
        if sockets.is_empty() {
            return None;
        }
        self.pids().into_iter().find_map(|pid| {
            let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
            let holds = fds.flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| sockets.iter().any(|s| l.as_os_str() == s.as_str())));
            holds.then(|| std::fs::read_link(format!("/proc/{pid}/exe")).ok()).flatten()
        })
    }

    /// Whether the application launched last has ended (a program that opens no window, such
    /// as `pkill`, or one that handed its work to a running instance of itself).
    pub fn last_app_ended(&mut self) -> bool {
        self.apps.last_mut().is_some_and(|app| matches!(app.child.try_wait(), Ok(Some(_))))
    }

    /// Runs a command to its end (or `timeout`, when it is killed) and returns what it printed.
    pub fn run(&mut self, command: &[String], shell: bool, timeout: Duration) -> Result<Output, String> {
        let (status, stdout, stderr) = self.run_bytes(command, shell, timeout, None, 16 << 20, COMMAND)?;
        let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
        Ok(Output { status, stdout: text(stdout), stderr: text(stderr) })
    }

    /// A file as the instance's account reads it, inside its namespace: links resolve as they
    /// do for the applications, and nothing the account may not read is read (a link the agent
    /// left to another instance's file or the machine's gives nothing). Its bytes; `None` where
    /// it is missing, not a regular file (a FIFO never blocks the evaluator), unreadable or
    /// larger than `limit`.
    pub fn read_file(&mut self, path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
        let script = format!("[ -f \"$1\" ] && exec head -c {} -- \"$1\"", limit + 1);
        let argv = ["/bin/sh".to_string(), "-c".into(), script, "sh".into(), path.display().to_string()];
        let (status, bytes, _) = self.run_bytes(&argv, false, FILE_TIMEOUT, None, limit + 1, HELPER)?;
        Ok((status == Some(0) && bytes.len() as u64 <= limit).then_some(bytes))
    }

    /// Writes a file as the instance's account, inside its namespace, making its folder: what
    /// a task puts in the home is written as the applications would write it, and a link the
    /// agent left on the way cannot make root write through it.
    pub fn write_file(&mut self, path: &Path, bytes: Vec<u8>) -> Result<(), String> {
        let script = "mkdir -p -- \"$(dirname -- \"$1\")\" && exec cat > \"$1\"".to_string();
        let argv = ["/bin/sh".to_string(), "-c".into(), script, "sh".into(), path.display().to_string()];
        match self.run_bytes(&argv, false, FILE_TIMEOUT, Some(bytes), 0, HELPER)? {
            (Some(0), _, _) => Ok(()),
            (_, _, stderr) => Err(format!("writing {}: {}", path.display(), String::from_utf8_lossy(&stderr).trim())),
        }
    }

    /// Runs a command to its end (or `timeout`), feeding it `input`, and returns its status and
    /// what it printed (at most `limit` bytes of its output, 1 MiB of its errors).
    fn run_bytes(&mut self, command: &[String], shell: bool, timeout: Duration, input: Option<Vec<u8>>, limit: u64, role: Role) -> Result<RunOutput, String> {
        let program = command.first().cloned().unwrap_or_default();
        let mut spawnable = self.spawnable(command, shell, role)?;
        if input.is_some() {
            spawnable.stdin(Stdio::piped());
        }
        let mut child = spawnable.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| format!("cannot run {program}: {e}"))?;
        if let (Some(mut stdin), Some(input)) = (child.stdin.take(), input) {
            std::thread::spawn(move || {
                use std::io::Write;
                let _ = stdin.write_all(&input);
            });
        }
        let stdout = Drain::start(child.stdout.take(), limit);
        let stderr = Drain::start(child.stderr.take(), 1 << 20);
        let deadline = Instant::now() + timeout;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status.code(),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
                _ => {
                    kill_group(&mut child);
                    break None;
                }
            }
        };
        // What the command left running in its group (a daemon it started) stays an app of
        // the instance, ended at the next reset. It may hold the command's output open (a job
        // put in the background without redirection): what it wrote in the moment after the
        // command ended is kept, and nobody waits for the rest.
        let settled = Instant::now() + OUTPUT_SETTLES;
        let (stdout, stderr) = (stdout.take(settled), stderr.take(settled));
        self.finished.push(child.id());
        Ok((status, stdout, stderr))
    }

    /// OSWorld's paths (`/home/user/...`) as this instance's.
    pub fn in_home(&self, command: &[String]) -> Vec<String> {
        command.iter().map(|a| self.path_text(a)).collect()
    }

    pub fn path_text(&self, text: &str) -> String {
        text.replace(TASK_HOME, &self.home.display().to_string())
    }

    /// A task path as a path of this instance (`~` and `/home/user` are its home).
    pub fn path(&self, path: &str) -> PathBuf {
        if let Some(rest) = path.strip_prefix("~/") {
            return self.home.join(rest);
        }
        PathBuf::from(self.path_text(path))
    }

    /// Ends every application of the instance (and whatever each started): the process groups
    /// of what tasks launched and ran, then the instance's other processes (`owns`) but its
    /// infrastructure (the window manager and the bus go in `restore`, once the windows have
    /// closed under the window manager's eye).
    pub fn end_apps(&mut self) {
        for mut app in self.apps.drain(..) {
            kill_group(&mut app.child);
            if let Some(said) = app.said {
                let _ = std::fs::remove_file(said);
            }
        }
        for group in self.finished.drain(..) {
            kill_members(group);
        }
        let keep: Vec<u32> = [self.wm.as_ref(), self.bus.as_ref()].into_iter().flatten().map(Child::id).collect();
        self.end_the_rest(&keep);
    }

    /// Ends the instance's processes (`owns`) but its display, its namespace's holder and
    /// `keep`, with the first process of each one's PID namespace (`Role::Resident`: what it
    /// started, a terminal the window manager opened, ends).
    fn end_the_rest(&self, keep: &[u32]) {
        let own = pid_namespace(std::process::id());
        let kept: Vec<_> = keep.iter().filter_map(|pid| children_pid_namespace(*pid)).filter(|ns| Some(ns) != own.as_ref()).collect();
        let mut keep = keep.to_vec();
        keep.extend([self.xvfb.as_ref(), self.namespace.as_ref(), self.network.as_ref()].into_iter().flatten().map(Child::id));
        let owns = self.owns();
        let first_of_kept = |pid: u32| pid_namespace(pid).is_some_and(|ns| kept.contains(&ns)) && first_in_namespace(pid);
        let ends = |pid: &u32| owns(*pid) && !keep.contains(pid) && !first_of_kept(*pid);
        // Twice: a process may have forked while the first sweep ran.
        for _ in 0..2 {
            for pid in all_pids().into_iter().filter(ends) {
                kill(pid);
            }
        }
    }

    /// Ends the window manager, the session bus, the display and everything else of the
    /// instance but its namespace (a reset does, once the applications' windows have closed).
    pub fn end_desktop(&mut self) -> Result<(), String> {
        for mut child in [self.wm.take(), self.bus.take(), self.xvfb.take()].into_iter().flatten() {
            kill_group(&mut child);
        }
        self.bus_address.clear();
        self.end_the_rest(&[]);
        if let Some(account) = self.account {
            if !kill_account(account) {
                return Err(format!("processes of the instance's account {account} would not end"));
            }
            remove_ipc_of(account)?;
            clear_keyrings(account);
        }
        if let Some(budget) = &self.memory {
            budget.clear();
        }
        Ok(())
    }

    /// Why the memory watch ended all the instance's processes, if it did since the desktop
    /// last started (`memory`).
    pub fn memory_ended(&self) -> Option<String> {
        self.memory.as_ref()?.ended()
    }

    /// The display, the window manager, the session bus and the namespace holder.
    fn infrastructure(&self) -> Vec<u32> {
        [self.xvfb.as_ref(), self.wm.as_ref(), self.bus.as_ref(), self.namespace.as_ref()].into_iter().flatten().map(Child::id).collect()
    }

    /// `GUIGYM_INSTANCE=<this instance's folder name>`, as it appears in a process's environment.
    fn marker(&self) -> String {
        marker_of(&self.dir)
    }

    /// Whether a process is the instance's: its environment carries the instance's marker, it
    /// runs in the instance's mount namespace (a process that cleared its environment is still
    /// there), or as the instance's account.
    fn owns(&self) -> impl Fn(u32) -> bool {
        let marker = self.marker();
        let namespace = self.namespace.as_ref().and_then(|holder| mount_namespace(holder.id()));
        let account = self.account;
        move |pid| {
            process_marker(pid).as_deref() == Some(marker.as_str())
                || namespace.is_some() && mount_namespace(pid) == namespace
                || account.is_some() && process_uid(pid) == account
        }
    }

    /// An application that died of a signal (a crash, or killed from outside): not the
    /// agent's doing (see `Role::Resident`), so the attempt cannot be judged.
    pub fn crashed(&mut self) -> Option<String> {
        use std::os::unix::process::ExitStatusExt;
        for app in &mut self.apps {
            let Ok(Some(status)) = app.child.try_wait() else { continue };
            let pid = app.child.id();
            if let Some(signal) = status.signal() {
                return Some(format!("{} (pid {pid}) died of signal {signal}", app.program));
            }
            // The sandbox's wrapper speaks only when it could not pass a signal on.
            let said = app.said.as_ref().and_then(|path| std::fs::read_to_string(path).ok()).unwrap_or_default();
            if !status.success() && !said.trim().is_empty() {
                return Some(format!("{} (pid {pid}) was ended from outside: {}", app.program, said.trim()));
            }
        }
        None
    }

    /// Every process of the instance: the members of its process groups, and its other
    /// processes (`owns`).
    pub fn pids(&self) -> Vec<u32> {
        let mut groups = self.infrastructure();
        groups.extend(self.apps.iter().map(|app| app.child.id()));
        groups.extend(&self.finished);
        let owns = self.owns();
        all_pids().into_iter().filter(|pid| process_group(*pid).is_some_and(|g| groups.contains(&g)) || owns(*pid)).collect()
    }

    /// The instance's memory: the proportional set size of all its processes, in bytes.
    pub fn memory_pss(&self) -> u64 {
        self.pids()
            .iter()
            .filter_map(|pid| {
                let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
                let line = rollup.lines().find(|l| l.starts_with("Pss:"))?;
                line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
            })
            .sum()
    }

    /// Whether the X server still runs.
    pub fn display_alive(&mut self) -> bool {
        self.xvfb.as_mut().is_some_and(running)
    }

    /// Whether the session bus still runs.
    pub fn bus_alive(&mut self) -> bool {
        self.bus.as_mut().is_some_and(running)
    }

    /// Whether the window manager still runs.
    pub fn wm_alive(&mut self) -> bool {
        self.wm.as_mut().is_some_and(running)
    }

    /// Waits for the window manager to manage the root window (EWMH check window set).
    pub fn wait_for_wm(&self, display: &Display, timeout: Duration) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if display.wm_running() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Err("the window manager did not start".into())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.end_apps();
        let ended = self.end_desktop();
        for holder in [self.namespace.as_mut(), self.network.as_mut()].into_iter().flatten() {
            kill_group(holder);
        }
        let _ = std::fs::remove_dir_all(fetched_of(&self.dir));
        match ended {
            Ok(()) => remove_instance_dir(&self.dir),
            // The folder keeps the account claimed (no new instance may run as it beside what
            // still runs) until a later guigym finds it stale and ends what is left.
            Err(e) => eprintln!("guigym: {e}; {} is left for a later start to remove", self.dir.display()),
        }
    }
}

/// A pipe read to its end (or a limit) on a thread of its own, into a buffer that can be taken
/// before the end comes.
struct Drain {
    read: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    ended: std::sync::mpsc::Receiver<()>,
}

impl Drain {
    fn start(pipe: Option<impl Read + Send + 'static>, limit: u64) -> Drain {
        let read = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (tell, ended) = std::sync::mpsc::channel();
        let buffer = read.clone();
        std::thread::spawn(move || {
            if let Some(mut pipe) = pipe {
                let mut chunk = [0u8; 8192];
                let mut left = limit;
                while left > 0 {
                    let want = chunk.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                    match pipe.read(&mut chunk[..want]) {
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if let Ok(mut b) = buffer.lock() {
                                b.extend_from_slice(&chunk[..n]);
                            }
                            left -= n as u64;
                        }
                    }
                }
            }
            let _ = tell.send(());
        });
        Drain { read, ended }
    }

    /// What was read by the pipe's end, or by `deadline` if it has not come.
    fn take(self, deadline: Instant) -> Vec<u8> {
        let _ = self.ended.recv_timeout(deadline.saturating_duration_since(Instant::now()));
        self.read.lock().map(|mut b| std::mem::take(&mut *b)).unwrap_or_default()
    }
}

/// Replaces a folder's content with a copy of `template` (files and folders; links as links).
pub fn restore_tree(template: &Path, target: &Path) -> std::io::Result<()> {
    if target.exists() {
        std::fs::remove_dir_all(target)?;
    }
    copy_tree(template, target)
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let dest = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &dest)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::OfficeToolkit;

    #[test]
    fn libreoffice_draws_with_gtk_unless_told_otherwise() {
        let chosen = OfficeToolkit::chosen;
        assert_eq!(chosen(None, true, true), Ok(OfficeToolkit::Gtk3));
        assert_eq!(chosen(Some("gen"), true, true), Ok(OfficeToolkit::Gen));
        assert_eq!(chosen(Some("gen"), false, true), Ok(OfficeToolkit::Gen));
        // Without LibreOffice the toolkit does not matter; with it but not its GTK toolkit,
        // the default says how to go on rather than drop LibreOffice's tree unasked.
        assert_eq!(chosen(None, false, false), Ok(OfficeToolkit::Gtk3));
        assert!(chosen(None, false, true).is_err_and(|e| e.contains("GUIGYM_OFFICE_TOOLKIT=gen")));
        assert!(chosen(Some("gtk3"), false, true).is_err_and(|e| e.contains("libreoffice-gtk3")));
        assert!(chosen(Some("qt6"), true, true).is_err_and(|e| e.contains("expected gtk3 or gen")));
    }
}
