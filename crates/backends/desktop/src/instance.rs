//! A running desktop instance, the device desktop benchmarks act on: its processes and
//! files (`session`), its display (`display`), launching an application and waiting until
//! its window is drawn, the windows, the user's files, a reset to a clean desktop, and whether
//! the instance broke under the agent. Blocking; the env calls it off the async threads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::a11y;
use crate::session::{OfficeToolkit, Session};
use crate::x11::{Display, WindowInfo};

/// Why a step or getter failed: the instance broke (retry elsewhere), or the task is wrong.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    Infra(String),
    BadTask(String),
}

/// The X resources of every display: a terminal (xterm) writes what its screen shows to a file
/// on a key only guigym presses (OSWorld's getter reads the focused terminal's text; xterm has
/// no accessibility tree to read it from).
const TERMINAL_RESOURCES: &str = "XTerm*printFileImmediate: /tmp/.guigym-terminal\n\
XTerm*printOptsImmediate: 1\n\
XTerm*printModeImmediate: 0\n\
XTerm*VT100.translations: #override Ctrl Shift Alt Super <Key>F12: print-immediate()\n";
/// Where a terminal writes its screen, a prefix (xterm adds the time).
const TERMINAL_SCREEN: &str = "/tmp/.guigym-terminal";

/// How long set-up waits for an application's first window.
const WINDOW_TIMEOUT: Duration = Duration::from_secs(30);
/// How long after a launched program ended without a window one may still appear (from the
/// running instance it handed its work to).
const HANDED_OVER: Duration = Duration::from_secs(2);
/// How long the window manager may take to start: on a machine's first start (caches cold,
/// two instances starting at once) 10 s was once too short.
const WM_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a new window may stay untitled before it is taken as ready anyway.
const UNTITLED_WAIT: Duration = Duration::from_secs(5);
/// Window titles an application shows while it is still starting: Thunderbird names its
/// window, then draws a "Home" tab, and only then selects its folder and names the window
/// after it (0.8, 1.6 and 1.9 s after its start here; 1.8, 3.7 and 4.6 s on a loaded machine).
const STARTING_TITLES: &[&str] = &["Mozilla Thunderbird", "Home - Mozilla Thunderbird"];
/// How long a window may keep such a title before it is taken as it is.
const STARTING_WAIT: Duration = Duration::from_secs(20);
/// How long a new window may stay one flat colour before it is taken as it is.
const BLANK_WAIT: Duration = Duration::from_secs(10);
/// A window showing this many colours or fewer may be drawn in part only.
const FEW_COLOURS: usize = 16;
/// How long the screen stays still before a window counts as drawn, and how long when it
/// shows few colours.
const QUIET: Duration = Duration::from_millis(100);
const LONG_QUIET: Duration = Duration::from_millis(600);
/// How long a drawn window may keep changing before it counts as busy by nature (playing).
const BUSY_WAIT: Duration = Duration::from_secs(3);

pub struct Instance {
    pub session: Session,
    pub display: Display,
    /// The home every reset starts from (skeleton folders, shell and application settings).
    template: PathBuf,
    /// When the agent's last input reached the X server.
    pub last_input: Instant,
    /// The user's files as the task's set-up left them (`files`), which an evaluator compares
    /// with what the agent left to find changes outside the task.
    at_start: Files,
}

/// The user's files: path relative to the home (a folder ends with `/`) → what it holds (see
/// `content_id`; empty for folders, the target for links). Hidden folders and files at the top
/// of the home (application settings, profiles, caches), LibreOffice's lock files and GIO's
/// files being saved are left out.
pub type Files = BTreeMap<String, String>;

/// How long after the agent's last input the evaluator first looks: applications (a shell
/// running a command, an editor saving) finish what the input started.
const QUIET_AFTER_INPUT: Duration = Duration::from_millis(500);

impl Instance {
    pub fn start(width: u32, height: u32, template: PathBuf, office: OfficeToolkit) -> Result<Instance, String> {
        let mut session = Session::start(width, height)?;
        session.office = office;
        let display = Display::connect(&session.display_name, session.x_auth()).map_err(|e| e.to_string())?;
        session.wait_for_wm(&display, WM_TIMEOUT)?;
        Ok(Instance { session, display, template, last_input: Instant::now(), at_start: Files::new() })
    }

    /// The screen's size in pixels.
    pub fn screen(&self) -> (u32, u32) {
        (self.display.width as u32, self.display.height as u32)
    }

    /// A clean desktop: ends the applications, the window manager, the session bus and the X
    /// server (a new one, with a new cookie, has none of the episode's settings, `xhost`,
    /// `xset`, `xmodmap`, resources, keyboard locks, or clients), restores the home folder and
    /// starts them anew. What the episode left broken is started anew with the rest. A task's
    /// set-up comes next (its benchmark's), then `begin`.
    pub fn reset(&mut self) -> Result<(), Failure> {
        let managed = self.session.display_alive() && self.session.wm_alive();
        self.session.end_apps();
        if managed {
            self.wait_for(|w| w.is_empty(), Duration::from_secs(10))
                .map_err(|_| Failure::Infra("windows stayed open after their applications ended".into()))?;
        }
        self.session.end_desktop().map_err(Failure::Infra)?;
        self.session.restore(&self.template).map_err(Failure::Infra)?;
        self.reconnect()?;
        self.display.set_resources(TERMINAL_RESOURCES).map_err(|e| Failure::Infra(e.to_string()))?;
        self.session.wait_for_wm(&self.display, WM_TIMEOUT).map_err(Failure::Infra)
    }

    /// The episode starts (the task's set-up is done): the user's files are taken as they are.
    pub fn begin(&mut self) -> Result<(), Failure> {
        // The agent has done nothing yet: a budget passed here is the task's or the machine's.
        if let Some(why) = self.session.memory_ended() {
            return Err(Failure::Infra(format!("during the task's set-up, {why}")));
        }
        self.at_start = self.files();
        Ok(())
    }

    /// The user's files as the episode started.
    pub fn files_at_start(&self) -> &Files {
        &self.at_start
    }

    /// Fails when the instance broke under the agent: an application crashed, or the X server
    /// died. A window manager that ended (the agent may end it: it is an X client like any,
    /// and the terminals it opens run beside it) is started again, and it manages the windows
    /// anew: the episode goes on. Where it cannot start (the agent's own client holds the
    /// screen's window management), the episode goes on without one: the agent's doing.
    pub fn check_health(&mut self) -> Result<(), Failure> {
        // Ended by the memory watch, the instance's processes were all ended: by the agent's doing
        // (what went with them, the window manager included, is the episode's end, not a fault).
        if self.session.memory_ended().is_some() {
            return Ok(());
        }
        self.check_display()?;
        // Any client may close another's connection (`XKillClient`), guigym's too: connect anew.
        // (A round trip that ran out is a held server, which the env ends the episode on.)
        if !self.display.answers() && !self.display.stalled() {
            self.reconnect()?;
        }
        if !self.session.wm_alive() {
            self.session.start_wm().map_err(Failure::Infra)?;
            let _ = self.session.wait_for_wm(&self.display, Duration::from_secs(2));
        }
        match self.session.crashed() {
            Some(why) => Err(Failure::Infra(why)),
            None => Ok(()),
        }
    }

    /// Why the episode ends by the agent's doing, if it must: a program of the agent's holds
    /// the X server to itself (no other does), or the memory watch ended the instance's
    /// processes (over its budget, or in a user namespace of their own). It is judged on what the agent left: an infrastructure failure
    /// would let an agent have its failing attempts run again.
    pub fn ended_by_agent(&self) -> Option<String> {
        if self.display.stalled() {
            return Some("the display stopped answering (a program holds the X server to itself); the episode ends".into());
        }
        let why = self.session.memory_ended()?;
        Some(format!("{why}: its programs were ended, and the episode ends"))
    }

    /// Fails when the X server died: never the agent's doing (it runs as root, outside the
    /// instance's namespaces).
    pub fn check_display(&mut self) -> Result<(), Failure> {
        match self.session.display_alive() {
            true => Ok(()),
            false => Err(Failure::Infra("the X server died".into())),
        }
    }

    /// A new connection to the display (the X server is new, or another client closed ours).
    fn reconnect(&mut self) -> Result<(), Failure> {
        self.display = Display::connect(&self.session.display_name, self.session.x_auth()).map_err(|e| Failure::Infra(e.to_string()))?;
        Ok(())
    }

    /// The windows, their titles naming paths as the task does (`/home/user/…`), so every
    /// instance shows the same.
    pub fn windows(&self) -> Vec<WindowInfo> {
        let home = self.session.home.display().to_string();
        let mut windows = self.display.windows();
        for w in &mut windows {
            w.title = w.title.replace(&home, crate::session::TASK_HOME);
        }
        windows
    }

    fn wait_for(&self, ready: impl Fn(&[WindowInfo]) -> bool, timeout: Duration) -> Result<Vec<WindowInfo>, Failure> {
        let deadline = Instant::now() + timeout;
        loop {
            let windows = self.display.windows();
            if ready(&windows) {
                return Ok(windows);
            }
            if Instant::now() >= deadline {
                return Err(Failure::Infra(format!("no window was ready within {} s", timeout.as_secs())));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Starts an application and waits until the window manager maps a new window of it.
    pub fn launch(&mut self, command: &[String], shell: bool) -> Result<(), Failure> {
        let before: Vec<u32> = self.display.windows().iter().map(|w| w.id).collect();
        self.session.launch(command, shell).map_err(Failure::BadTask)?;
        // A program that ends without a window (`pkill`, or one that handed its work to a
        // running instance of itself, which may still open one) is waited for no longer.
        let deadline = Instant::now() + WINDOW_TIMEOUT;
        let mut ended_at = None;
        loop {
            if self.display.windows().iter().any(|w| !before.contains(&w.id)) {
                break;
            }
            if ended_at.is_none() && self.session.last_app_ended() {
                ended_at = Some(Instant::now());
            }
            if ended_at.is_some_and(|t| t.elapsed() >= HANDED_OVER) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Failure::Infra(format!("{} opened no window within {} s", command.join(" "), WINDOW_TIMEOUT.as_secs())));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // LibreOffice maps its window untitled and names it once the document is loaded; a
        // window that never gets a title is taken as it is after a while.
        let titled = |ws: &[WindowInfo]| ws.iter().filter(|w| !before.contains(&w.id)).all(|w| !w.title.is_empty());
        let _ = self.wait_for(titled, UNTITLED_WAIT);
        let started = |ws: &[WindowInfo]| ws.iter().filter(|w| !before.contains(&w.id)).all(|w| !STARTING_TITLES.contains(&w.title.as_str()));
        let starting = !started(&self.display.windows());
        let _ = self.wait_for(started, STARTING_WAIT);
        self.wait_drawn(&before)?;
        if starting {
            // What it shows next (Thunderbird's account page) still loads: a longer quiet moment.
            self.wait_still_screen(LONG_QUIET, WINDOW_TIMEOUT)?;
        }
        Ok(())
    }

    /// Waits until the windows not in `before` are drawn.
    fn wait_drawn(&self, before: &[u32]) -> Result<(), Failure> {
        // A mapped window may still be drawing (LibreOffice loads the document into it and
        // only then takes keys): ready when the screen stops changing and the new windows
        // show more than one flat colour. LibreOffice pauses between naming its window and
        // drawing its toolbars and document, long enough to pass for still: an agent's first
        // screenshot would be an empty grey window.
        let deadline = Instant::now() + BLANK_WAIT;
        let busy_deadline = Instant::now() + WINDOW_TIMEOUT;
        loop {
            let still = self.wait_still_screen(QUIET, BUSY_WAIT);
            let fresh: Vec<WindowInfo> = self.display.windows().into_iter().filter(|w| !before.contains(&w.id)).collect();
            let colours = self.fewest_colours(&fresh)?;
            match still {
                Ok(()) => {}
                // A window that plays something (a video, a song's clock) never stills: once
                // drawn, it is ready.
                Err(_) if colours > FEW_COLOURS => return Ok(()),
                Err(e) if Instant::now() >= busy_deadline => return Err(e),
                Err(_) => continue,
            }
            if Instant::now() >= deadline || colours > FEW_COLOURS {
                return Ok(());
            }
            if colours > 1 {
                // Drawn in part (LibreOffice's frame before its document, under load) or a
                // plain window (a terminal): a longer quiet moment tells them apart.
                return self.wait_still_screen(LONG_QUIET, WINDOW_TIMEOUT);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The fewest colours any of these windows shows, counted up to `FEW_COLOURS + 1` over
    /// every other pixel (1: one flat colour, mapped but not drawn yet).
    fn fewest_colours(&self, windows: &[WindowInfo]) -> Result<usize, Failure> {
        let screen = self.display.capture_rgb().map_err(|e| Failure::Infra(e.to_string()))?;
        let (sw, sh) = (self.display.width as i64, self.display.height as i64);
        let count = |w: &WindowInfo| {
            let (x0, y0) = (i64::from(w.x).clamp(0, sw), i64::from(w.y).clamp(0, sh));
            let (x1, y1) = ((i64::from(w.x) + i64::from(w.width)).clamp(0, sw), (i64::from(w.y) + i64::from(w.height)).clamp(0, sh));
            let mut seen: Vec<[u8; 3]> = Vec::new();
            for y in (y0..y1).step_by(2) {
                for x in (x0..x1).step_by(2) {
                    let at = ((y * sw + x) * 3) as usize;
                    let c = [screen[at], screen[at + 1], screen[at + 2]];
                    if !seen.contains(&c) {
                        seen.push(c);
                        if seen.len() > FEW_COLOURS {
                            return seen.len();
                        }
                    }
                }
            }
            seen.len().max(usize::from(x0 >= x1 || y0 >= y1) * (FEW_COLOURS + 1))
        };
        Ok(windows.iter().map(count).min().unwrap_or(FEW_COLOURS + 1))
    }

    /// Waits until nothing has been drawn for `quiet` (by the X server's DAMAGE reports, or
    /// else until two looks at the screen `quiet` apart are the same).
    fn wait_still_screen(&self, quiet: Duration, timeout: Duration) -> Result<(), Failure> {
        match self.display.wait_quiet(quiet, timeout) {
            Some(Ok(true)) => return Ok(()),
            Some(Ok(false)) => return Err(Failure::Infra(format!("the screen kept changing for {} s", timeout.as_secs()))),
            Some(Err(e)) => return Err(Failure::Infra(e.to_string())),
            None => {}
        }
        let deadline = Instant::now() + timeout;
        let look = || self.display.capture_rgb().map(|px| guigym_core::sha256_hex(&px)).map_err(|e| Failure::Infra(e.to_string()));
        let mut last = look()?;
        loop {
            std::thread::sleep(quiet);
            let now = look()?;
            if now == last {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(Failure::Infra(format!("the screen kept changing for {} s", timeout.as_secs())));
            }
            last = now;
        }
    }

    /// The whole accessibility tree, read afresh; `None` when the agent made it unreadable. The
    /// bus is out of the agent's reach, so its death is not the agent's doing (infrastructure);
    /// a bus that runs but cannot be read is (its socket sits in the runtime folder the
    /// account owns).
    pub fn accessibility_tree(&mut self) -> Result<Option<Vec<a11y::Node>>, Failure> {
        let address = self.session.bus_address.clone();
        let read = async move {
            let client = a11y::Client::connect(&address).await?;
            client.tree(&a11y::Limits::whole()).await
        };
        match block_on(read) {
            Ok(nodes) => Ok(Some(nodes)),
            Err(e) if !self.session.bus_alive() && self.session.memory_ended().is_none() => Err(Failure::Infra(format!("reading the accessibility tree: {e}"))),
            Err(_) => Ok(None),
        }
    }

    /// What the focused terminal shows (its visible screen, as text), when the active window is
    /// a terminal; `None` otherwise, or when it writes nothing (the agent changed its
    /// resources). The terminal writes it on a key combination of guigym's, which never reaches
    /// the program running in it.
    pub fn terminal_text(&mut self) -> Result<Option<String>, Failure> {
        let Some(window) = self.display.windows().into_iter().find(|w| w.active) else { return Ok(None) };
        if window.class != "XTerm" {
            return Ok(None);
        }
        let list = |session: &mut Session| -> Result<Vec<String>, Failure> {
            let script = format!("for f in {TERMINAL_SCREEN}*; do [ -f \"$f\" ] && printf '%s\\n' \"$f\"; done; true");
            let out = session.run(&["/bin/sh".into(), "-c".into(), script], false, Duration::from_secs(10)).map_err(Failure::Infra)?;
            Ok(out.stdout.lines().map(String::from).collect())
        };
        let clear = format!("rm -f -- {TERMINAL_SCREEN}*");
        self.session.run(&["/bin/sh".into(), "-c".into(), clear], false, Duration::from_secs(10)).map_err(Failure::Infra)?;
        self.display.chord(&["ctrl", "shift", "alt", "super", "F12"].map(String::from)).map_err(Failure::Infra)?;
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Some(file) = list(&mut self.session)?.into_iter().next() {
                // Written at once, but give it a moment to finish.
                std::thread::sleep(Duration::from_millis(100));
                let bytes = self.session.read_file(Path::new(&file), 1 << 20).map_err(Failure::Infra)?;
                return Ok(bytes.map(|b| String::from_utf8_lossy(&b).into_owned()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(None)
    }

    /// Where an evaluator keeps its copy of a file named `dest`: the instance's own folder, out
    /// of the agent's home.
    pub fn fetched(&self, dest: &str) -> Result<PathBuf, Failure> {
        let dir = self.session.fetched_dir().map_err(|e| Failure::Infra(format!("the getters' folder: {e}")))?;
        Ok(dir.join(Path::new(dest).file_name().unwrap_or_default()))
    }

    /// Waits until a moment has passed since the agent's last input and the user's files have
    /// stopped changing (an application finishing a save, a shell finishing a command): two
    /// equal looks in a row, at most a few seconds.
    pub fn settle(&self) {
        if let Some(rest) = QUIET_AFTER_INPUT.checked_sub(self.last_input.elapsed()) {
            std::thread::sleep(rest);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut last = self.files_hash();
        let mut same = 0;
        while same < 2 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(150));
            let now = self.files_hash();
            same = if now == last { same + 1 } else { 0 };
            last = now;
        }
    }

    /// The user's files now (see `Files`).
    pub fn files(&self) -> Files {
        let mut files = Files::new();
        walk(&self.session.home, &self.session.home, &mut files);
        files
    }

    /// A hash of the user's files (names and contents).
    pub fn files_hash(&self) -> String {
        let entries: Vec<String> = self.files().into_iter().map(|(path, hash)| format!("{path} {hash}")).collect();
        guigym_core::sha256_hex(entries.join("\n").as_bytes())
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Files) {
    walk_below(root, dir, out, 0);
}

fn walk_below(root: &Path, dir: &Path, out: &mut Files, depth: usize) {
    let Ok(read) = std::fs::read_dir(dir) else { return };
    for entry in read.flatten() {
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap_or(&path).display().to_string();
        if dir == root && rel.starts_with('.') {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        match entry.file_type() {
            Ok(t) if t.is_dir() => {
                out.insert(format!("{rel}/"), String::new());
                if depth < crate::session::MAX_DEPTH {
                    walk_below(root, &path, out, depth + 1);
                }
            }
            Ok(t) if t.is_symlink() => {
                let target = std::fs::read_link(&path).map(|t| t.display().to_string()).unwrap_or_default();
                out.insert(rel, format!("link to {target}"));
            }
            // Bookkeeping beside a document, not the user's data: LibreOffice's lock file
            // (`.~lock.name#`, the time it was opened) and GIO's file being saved.
            Ok(_) if name.starts_with(".~lock.") && name.ends_with('#') || name.starts_with(".goutputstream-") => {}
            Ok(_) => {
                out.insert(rel, content_id(&path));
            }
            Err(_) => {}
        }
    }
}

/// Files larger than this are told apart by size and time, not read.
const MAX_HASHED: u64 = 64 << 20;

/// What a file holds: the hash of a regular file's bytes, read without following a link or
/// waiting (a FIFO or a device an agent left in the home would hang or flood the evaluator,
/// which runs as root); anything else by its kind.
fn content_id(path: &Path) -> String {
    use rustix::fs::{FileType, Mode, OFlags};
    use std::io::Read;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let Ok(fd) = rustix::fs::open(path, flags, Mode::empty()) else { return "unreadable".into() };
    let Ok(stat) = rustix::fs::fstat(&fd) else { return "unreadable".into() };
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile if stat.st_size as u64 <= MAX_HASHED => {
            let mut bytes = Vec::new();
            let _ = std::fs::File::from(fd).take(MAX_HASHED).read_to_end(&mut bytes);
            guigym_core::sha256_hex(&bytes)
        }
        FileType::RegularFile => format!("{} bytes, modified at {}.{:09}", stat.st_size, stat.st_mtime, stat.st_mtime_nsec),
        other => format!("{other:?}"),
    }
}

/// Runs a future to its end from the blocking code of an instance: on the runtime the env
/// runs on when there is one (instances run on its blocking threads), else on a small one.
/// Runs a future to its end: on the caller's runtime, or on one of its own outside any.
pub fn block_on<T>(future: impl std::future::Future<Output = Result<T, String>>) -> Result<T, String> {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle.block_on(future),
        Err(_) => tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?.block_on(future),
    }
}

#[cfg(test)]
mod tests {
    use super::Files;

    #[test]
    fn odd_files_are_told_apart_without_being_read() {
        let home = std::env::temp_dir().join(format!("guigym-walk-{}", std::process::id()));
        std::fs::create_dir_all(home.join("Documents/deep")).unwrap();
        std::fs::write(home.join("Documents/a.txt"), "a").unwrap();
        std::fs::write(home.join("Documents/.~lock.a.txt#"), "lock").unwrap();
        std::fs::create_dir_all(home.join("Documents/.~lock.d")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", home.join("Documents/zero")).unwrap();
        let fifo = std::process::Command::new("mkfifo").arg(home.join("Documents/pipe")).status();
        let mut files = Files::new();
        // A FIFO read would block forever, /dev/zero never end: neither is read.
        super::walk(&home, &home, &mut files);
        std::fs::remove_dir_all(&home).unwrap();
        assert_eq!(files["Documents/a.txt"], guigym_core::sha256_hex(b"a"));
        assert_eq!(files["Documents/zero"], "link to /dev/zero");
        if fifo.is_ok_and(|s| s.success()) {
            assert_eq!(files["Documents/pipe"], "Fifo");
        }
        assert!(!files.contains_key("Documents/.~lock.a.txt#"), "LibreOffice's lock file is bookkeeping");
        assert!(files.contains_key("Documents/.~lock.d/"), "a folder is not a lock file");
    }
}
