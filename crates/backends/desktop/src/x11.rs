//! One X display, spoken to over the X protocol (x11rb, pure Rust): input through XTEST,
//! screenshots from the root window, and the window map (EWMH properties the window manager
//! keeps). Blocking calls; the env runs them off the async threads.

use std::collections::HashMap;

use x11rb::connection::Connection;
use x11rb::protocol::damage::{ConnectionExt as _, ReportLevel};
use x11rb::protocol::shm::ConnectionExt as _;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConnectionExt as _, EventMask, ImageFormat, Keycode, Keysym, PropMode, Window, BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT,
    KEY_PRESS_EVENT, KEY_RELEASE_EVENT, MOTION_NOTIFY_EVENT,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::{DefaultStream, PollMode, Stream};

/// How long the display may leave guigym waiting (for an answer, or to take a request): past
/// it, a client holds the server to itself (`XGrabServer`, which any client may ask for and
/// which an agent's program in the terminal can keep for ever), and guigym's calls fail instead
/// of waiting. Generous: a loaded machine answers within it.
pub const ANSWER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// The connection to the X server, over a socket whose waits end (`TimedStream`).
type RustConnection = x11rb::rust_connection::RustConnection<TimedStream>;

/// The socket to the X server, whose waits last at most `ANSWER_TIMEOUT`. Once one has run out
/// the server is held by another client: every later wait fails at once (the connection is
/// left mid-request; a reset makes a new server and a new connection).
pub struct TimedStream {
    inner: DefaultStream,
    stalled: std::sync::atomic::AtomicBool,
}

impl Stream for TimedStream {
    fn poll(&self, mode: PollMode) -> std::io::Result<()> {
        use rustix::event::{poll, PollFd, PollFlags, Timespec};
        use std::sync::atomic::Ordering;
        let stalled = || std::io::Error::new(std::io::ErrorKind::TimedOut, format!("the X server did not answer within {} s", ANSWER_TIMEOUT.as_secs()));
        if self.stalled.load(Ordering::Relaxed) {
            return Err(stalled());
        }
        let mut flags = PollFlags::empty();
        if mode.readable() {
            flags |= PollFlags::IN;
        }
        if mode.writable() {
            flags |= PollFlags::OUT;
        }
        let mut fds = [PollFd::new(&self.inner, flags)];
        let deadline = std::time::Instant::now() + ANSWER_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let timeout = Timespec { tv_sec: left.as_secs() as i64, tv_nsec: i64::from(left.subsec_nanos()) };
            match poll(&mut fds, Some(&timeout)) {
                Ok(0) => {
                    self.stalled.store(true, Ordering::Relaxed);
                    return Err(stalled());
                }
                // The errors (POLLERR) show when reading or writing.
                Ok(_) => return Ok(()),
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    fn read(&self, buf: &mut [u8], fd_storage: &mut Vec<x11rb::utils::RawFdContainer>) -> std::io::Result<usize> {
        self.inner.read(buf, fd_storage)
    }

    fn write(&self, buf: &[u8], fds: &mut Vec<x11rb::utils::RawFdContainer>) -> std::io::Result<usize> {
        self.inner.write(buf, fds)
    }

    fn write_vectored(&self, bufs: &[std::io::IoSlice<'_>], fds: &mut Vec<x11rb::utils::RawFdContainer>) -> std::io::Result<usize> {
        self.inner.write_vectored(bufs, fds)
    }
}

use crate::keys;

#[derive(Debug, thiserror::Error)]
#[error("X display {display}: {message}")]
pub struct XError {
    pub display: String,
    pub message: String,
}

/// A top-level window as the window manager lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowInfo {
    pub id: u32,
    pub title: String,
    /// `WM_CLASS` instance and class (`mousepad`, `Mousepad`).
    pub instance: String,
    pub class: String,
    /// Position on the screen and size, in pixels.
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub active: bool,
}

pub struct Display {
    name: String,
    conn: RustConnection,
    root: Window,
    pub width: u16,
    pub height: u16,
    atoms: HashMap<&'static str, u32>,
    /// The keyboard map: keysyms per keycode, from `min_keycode`.
    min_keycode: Keycode,
    per_keycode: u8,
    keysyms: Vec<Keysym>,
    /// Keycodes with no symbol, lent to characters the map lacks (round robin).
    spare: Vec<Keycode>,
    next_spare: usize,
    /// A DAMAGE object on the root window (where the server has the extension): it reports
    /// when anything is drawn, so readiness is a quiet spell rather than comparing screenshots.
    damage: Option<u32>,
    /// The shared-memory segment screenshots go through, made on the first capture
    /// (`None` inside: the server cannot share one, so captures use the socket).
    shm: std::sync::OnceLock<Option<SharedImage>>,
}

/// A MIT-SHM segment backed by a file of our own in `/dev/shm`, handed to the server by
/// file descriptor (MIT-SHM 1.2). The server writes the image into it and we read it back
/// with `pread`: no socket transfer of 8 MB, and no `mmap` (so no `unsafe` here).
struct SharedImage {
    segment: u32,
    file: std::fs::File,
}

/// How much of the image is read back at once: a few rows, small enough to stay in the cache.
const READ_BLOCK: usize = 64 << 10;

impl SharedImage {
    fn attach(conn: &RustConnection, size: usize) -> Option<SharedImage> {
        let version = conn.shm_query_version().ok()?.reply().ok()?;
        if (version.major_version, version.minor_version) < (1, 2) {
            return None;
        }
        let dir = std::path::Path::new("/dev/shm");
        let dir = if dir.is_dir() { dir.to_path_buf() } else { std::env::temp_dir() };
        let path = dir.join(format!("guigym-shm-{}-{}", std::process::id(), NEXT_SEGMENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
        // guigym's alone (root's, where it runs as root) for the instant it has a name: the
        // screen of any display is read back through it.
        let file = std::os::unix::fs::OpenOptionsExt::mode(std::fs::OpenOptions::new().read(true).write(true).create_new(true), 0o600).open(&path).ok();
        // The name is only needed to open it: both ends keep their descriptors.
        let _ = std::fs::remove_file(&path);
        let file = file?;
        file.set_len(size as u64).ok()?;
        let fd = std::os::fd::OwnedFd::from(file.try_clone().ok()?);
        let segment = conn.generate_id().ok()?;
        conn.shm_attach_fd(segment, fd, false).ok()?.check().ok()?;
        Some(SharedImage { segment, file })
    }

    /// The screen into `into` as packed RGB.
    fn capture(&self, conn: &RustConnection, root: Window, width: u16, height: u16, into: &mut [u8]) -> Result<(), String> {
        use std::os::unix::fs::FileExt as _;
        let reply = conn
            .shm_get_image(root, 0, 0, width, height, !0, ImageFormat::Z_PIXMAP.into(), self.segment, 0)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        if reply.depth != 24 {
            return Err(format!("unexpected image depth {}", reply.depth));
        }
        let size = reply.size as usize;
        if size < into.len() / 3 * 4 {
            return Err(format!("unexpected image: {size} bytes for {} pixels", into.len() / 3));
        }
        // Read back in blocks that stay in the cache, converting each as it comes: the
        // image crosses memory once instead of three times.
        let mut block = vec![0u8; READ_BLOCK];
        let pixels = into.len() / 3;
        let mut done = 0;
        while done < pixels {
            let n = (block.len() / 4).min(pixels - done);
            self.file.read_exact_at(&mut block[..n * 4], (done * 4) as u64).map_err(|e| format!("reading the shared image: {e}"))?;
            bgrx_to_rgb(&block[..n * 4], &mut into[done * 3..(done + n) * 3]);
            done += n;
        }
        Ok(())
    }
}

/// 24-bit TrueColor in 32-bit pixels, little-endian (B, G, R, unused) to packed RGB.
fn bgrx_to_rgb(bgrx: &[u8], rgb: &mut [u8]) {
    for (out, px) in rgb.chunks_exact_mut(3).zip(bgrx.chunks_exact(4)) {
        out[0] = px[2];
        out[1] = px[1];
        out[2] = px[0];
    }
}

static NEXT_SEGMENT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

const ATOMS: [&str; 8] = [
    "_NET_SUPPORTING_WM_CHECK",
    "_NET_CLIENT_LIST",
    "_NET_ACTIVE_WINDOW",
    "_NET_WM_NAME",
    "UTF8_STRING",
    "_NET_CLOSE_WINDOW",
    "WM_CLASS",
    "_NET_FRAME_EXTENTS",
];

impl Display {
    /// Connects to the display `name` (`:N`), showing it `auth` (the authorization protocol's
    /// name and data, e.g. the session's cookie).
    pub fn connect(name: &str, auth: (&str, &[u8])) -> Result<Display, XError> {
        let err = |message: String| XError { display: name.to_string(), message };
        let (conn, screen) = Self::open(name, auth).map_err(|e| err(format!("cannot connect: {e}")))?;
        let (root, width, height) = {
            let s = &conn.setup().roots[screen];
            (s.root, s.width_in_pixels, s.height_in_pixels)
        };
        conn.xtest_get_version(2, 2).map_err(|e| err(e.to_string()))?.reply().map_err(|e| err(format!("no XTEST extension: {e}")))?;
        let mut atoms = HashMap::new();
        for a in ATOMS {
            let atom = conn.intern_atom(false, a.as_bytes()).map_err(|e| err(e.to_string()))?.reply().map_err(|e| err(e.to_string()))?.atom;
            atoms.insert(a, atom);
        }
        let (min, max) = (conn.setup().min_keycode, conn.setup().max_keycode);
        let map = conn.get_keyboard_mapping(min, max - min + 1).map_err(|e| err(e.to_string()))?.reply().map_err(|e| err(e.to_string()))?;
        let per = map.keysyms_per_keycode.max(1);
        let spare: Vec<Keycode> = (0..=(max - min))
            .filter(|i| map.keysyms[*i as usize * per as usize..(*i as usize + 1) * per as usize].iter().all(|k| *k == 0))
            .map(|i| min + i)
            .collect();
        let damage = Self::watch_damage(&conn, root);
        Ok(Display {
            name: name.to_string(),
            conn,
            root,
            width,
            height,
            atoms,
            min_keycode: min,
            per_keycode: per,
            keysyms: map.keysyms,
            spare,
            next_spare: 0,
            damage,
            shm: std::sync::OnceLock::new(),
        })
    }

    /// A connection to the display, by the first of its addresses that answers, with the given
    /// authorization (never one found in the environment: guigym serves many displays).
    fn open(name: &str, (auth_name, auth_data): (&str, &[u8])) -> Result<(RustConnection, usize), String> {
        let parsed = x11rb::reexports::x11rb_protocol::parse_display::parse_display(Some(name)).map_err(|e| e.to_string())?;
        let mut last = format!("{name} has no address");
        for address in parsed.connect_instruction() {
            match DefaultStream::connect(&address) {
                Ok((inner, _)) => {
                    let stream = TimedStream { inner, stalled: false.into() };
                    let screen = usize::from(parsed.screen);
                    let conn = RustConnection::connect_to_stream_with_auth_info(stream, screen, auth_name.as_bytes().to_vec(), auth_data.to_vec())
                        .map_err(|e| e.to_string())?;
                    return Ok((conn, screen));
                }
                Err(e) => last = e.to_string(),
            }
        }
        Err(last)
    }

    /// The first id of the resources this connection makes: what `XKillClient` names it by.
    pub fn resource_base(&self) -> u32 {
        self.conn.setup().resource_id_base
    }

    /// Whether the server answers a request (a round trip).
    pub fn answers(&self) -> bool {
        self.conn.get_input_focus().ok().and_then(|c| c.reply().ok()).is_some()
    }

    /// Whether a wait for the server ran out (see `TimedStream`): another client holds it.
    pub fn stalled(&self) -> bool {
        self.conn.stream().stalled.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn watch_damage(conn: &RustConnection, root: Window) -> Option<u32> {
        conn.damage_query_version(1, 1).ok()?.reply().ok()?;
        let id = conn.generate_id().ok()?;
        conn.damage_create(id, root, ReportLevel::NON_EMPTY).ok()?.check().ok()?;
        Some(id)
    }

    /// Waits until nothing has been drawn for `quiet`; false when drawing goes on past
    /// `timeout`. `None` when the server has no DAMAGE extension.
    pub fn wait_quiet(&self, quiet: std::time::Duration, timeout: std::time::Duration) -> Option<Result<bool, XError>> {
        let damage = self.damage?;
        let run = || -> Result<bool, XError> {
            let start = std::time::Instant::now();
            let mut last_drawn = start;
            // Re-arm: the next drawing sends a notification.
            self.conn.damage_subtract(damage, x11rb::NONE, x11rb::NONE).map_err(|e| self.err(e))?;
            self.conn.flush().map_err(|e| self.err(e))?;
            loop {
                let mut drawn = false;
                while let Some(event) = self.conn.poll_for_event().map_err(|e| self.err(e))? {
                    drawn |= matches!(event, x11rb::protocol::Event::DamageNotify(_));
                }
                let now = std::time::Instant::now();
                if drawn {
                    last_drawn = now;
                    self.conn.damage_subtract(damage, x11rb::NONE, x11rb::NONE).map_err(|e| self.err(e))?;
                    self.conn.flush().map_err(|e| self.err(e))?;
                } else if now - last_drawn >= quiet {
                    return Ok(true);
                }
                if now - start >= timeout {
                    return Ok(false);
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        };
        Some(run())
    }

    fn err(&self, message: impl std::fmt::Display) -> XError {
        XError { display: self.name.clone(), message: message.to_string() }
    }

    /// Waits until the server has handled every request sent so far.
    pub fn sync(&self) -> Result<(), XError> {
        self.conn.get_input_focus().map_err(|e| self.err(e))?.reply().map_err(|e| self.err(e))?;
        Ok(())
    }

    fn fake(&self, kind: u8, detail: u8, x: i16, y: i16) -> Result<(), XError> {
        self.conn.xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, self.root, x, y, 0).map_err(|e| self.err(e))?;
        Ok(())
    }

    pub fn move_to(&self, x: i32, y: i32) -> Result<(), XError> {
        let (x, y) = self.clamp(x, y);
        self.fake(MOTION_NOTIFY_EVENT, 0, x, y)
    }

    fn clamp(&self, x: i32, y: i32) -> (i16, i16) {
        (x.clamp(0, self.width as i32 - 1) as i16, y.clamp(0, self.height as i32 - 1) as i16)
    }

    /// Presses and releases a button (1 left, 2 middle, 3 right, 4–7 wheel) `times` times.
    pub fn click(&self, x: i32, y: i32, button: u8, times: u32) -> Result<(), XError> {
        self.move_to(x, y)?;
        for _ in 0..times {
            self.fake(BUTTON_PRESS_EVENT, button, 0, 0)?;
            self.fake(BUTTON_RELEASE_EVENT, button, 0, 0)?;
        }
        self.sync()
    }

    pub fn button(&self, button: u8, down: bool) -> Result<(), XError> {
        self.fake(if down { BUTTON_PRESS_EVENT } else { BUTTON_RELEASE_EVENT }, button, 0, 0)?;
        self.sync()
    }

    /// A drag in small moves, so applications that track motion see a path.
    pub fn drag(&self, from: (i32, i32), to: (i32, i32)) -> Result<(), XError> {
        self.move_to(from.0, from.1)?;
        self.fake(BUTTON_PRESS_EVENT, 1, 0, 0)?;
        let steps = 12;
        for i in 1..=steps {
            let x = from.0 + (to.0 - from.0) * i / steps;
            let y = from.1 + (to.1 - from.1) * i / steps;
            self.move_to(x, y)?;
            self.sync()?;
        }
        self.fake(BUTTON_RELEASE_EVENT, 1, 0, 0)?;
        self.sync()
    }

    /// The keycode and whether Shift is needed for a keysym; a spare keycode is remapped to
    /// a keysym the map lacks (any Unicode character can be typed).
    fn keycode_for(&mut self, keysym: Keysym) -> Result<(Keycode, bool), XError> {
        let per = self.per_keycode as usize;
        for (i, chunk) in self.keysyms.chunks(per).enumerate() {
            for (level, k) in chunk.iter().take(2).enumerate() {
                if *k == keysym {
                    return Ok((self.min_keycode + i as u8, level == 1));
                }
            }
        }
        if self.spare.is_empty() {
            return Err(self.err(format!("no spare keycode to map keysym {keysym:#x}")));
        }
        let code = self.spare[self.next_spare % self.spare.len()];
        self.next_spare += 1;
        let mut syms = vec![0; per];
        syms[0] = keysym;
        if per > 1 {
            syms[1] = keysym;
        }
        self.conn.change_keyboard_mapping(1, code, per as u8, &syms).map_err(|e| self.err(e))?;
        let at = (code - self.min_keycode) as usize * per;
        self.keysyms[at..at + per].copy_from_slice(&syms);
        self.sync()?;
        Ok((code, false))
    }

    fn key_event(&self, code: Keycode, down: bool) -> Result<(), XError> {
        self.fake(if down { KEY_PRESS_EVENT } else { KEY_RELEASE_EVENT }, code, 0, 0)
    }

    /// Presses keys together (a chord, `ctrl`+`s`) and releases them in reverse order.
    pub fn chord(&mut self, names: &[String]) -> Result<(), String> {
        let mut codes = Vec::new();
        for name in names {
            let sym = keys::keysym(name).ok_or_else(|| format!("unknown key \"{name}\""))?;
            let (code, shift) = self.keycode_for(sym).map_err(|e| e.to_string())?;
            if shift && names.len() == 1 {
                codes.push(self.keycode_for(keys::SHIFT).map_err(|e| e.to_string())?.0);
            }
            codes.push(code);
        }
        for c in &codes {
            self.key_event(*c, true).map_err(|e| e.to_string())?;
        }
        for c in codes.iter().rev() {
            self.key_event(*c, false).map_err(|e| e.to_string())?;
        }
        self.sync().map_err(|e| e.to_string())
    }

    /// Types text character by character (Shift where the map needs it).
    pub fn type_text(&mut self, text: &str) -> Result<(), XError> {
        let shift = self.keycode_for(keys::SHIFT)?.0;
        let mut previous = None;
        for ch in text.chars() {
            let (code, shifted) = self.keycode_for(keys::char_keysym(ch))?;
            // The same key again at once reads as the key's auto-repeat to some toolkits
            // (LibreOffice drops it): the second press comes a few milliseconds later.
            if previous == Some(code) {
                std::thread::sleep(std::time::Duration::from_millis(15));
            }
            previous = Some(code);
            if shifted {
                self.key_event(shift, true)?;
            }
            self.key_event(code, true)?;
            self.key_event(code, false)?;
            if shifted {
                self.key_event(shift, false)?;
            }
            // One round trip per character: clients read each key against the map it was
            // typed with, even when the next character remaps a spare keycode.
            self.sync()?;
        }
        Ok(())
    }

    /// The whole screen as packed RGB: through a shared-memory segment where the server
    /// offers MIT-SHM with file descriptors, else through the socket (GetImage).
    pub fn capture_rgb(&self) -> Result<Vec<u8>, XError> {
        let pixels = self.width as usize * self.height as usize;
        let mut rgb = vec![0u8; pixels * 3];
        match self.shared_image() {
            Some(shm) => shm.capture(&self.conn, self.root, self.width, self.height, &mut rgb).map_err(|e| self.err(e))?,
            None => {
                let bgrx = self.capture_through_socket()?;
                if bgrx.len() < pixels * 4 {
                    return Err(self.err(format!("unexpected image: {} bytes for {pixels} pixels", bgrx.len())));
                }
                bgrx_to_rgb(&bgrx, &mut rgb);
            }
        }
        Ok(rgb)
    }

    /// Whether captures go through a shared-memory segment (made on the first capture).
    pub fn shares_memory(&self) -> bool {
        self.shared_image().is_some()
    }

    fn shared_image(&self) -> Option<&SharedImage> {
        let bytes = self.width as usize * self.height as usize * 4;
        self.shm.get_or_init(|| SharedImage::attach(&self.conn, bytes)).as_ref()
    }

    /// The screen as the server's 32-bit pixels, copied through the socket (GetImage).
    pub fn capture_through_socket(&self) -> Result<Vec<u8>, XError> {
        let reply = self
            .conn
            .get_image(ImageFormat::Z_PIXMAP, self.root, 0, 0, self.width, self.height, !0)
            .map_err(|e| self.err(e))?
            .reply()
            .map_err(|e| self.err(e))?;
        if reply.depth != 24 {
            return Err(self.err(format!("unexpected image depth {}", reply.depth)));
        }
        Ok(reply.data)
    }

    /// The screen as PNG (fast compression: a screenshot is taken every step).
    pub fn screenshot_png(&self) -> Result<Vec<u8>, XError> {
        let rgb = self.capture_rgb()?;
        guigym_core::screenshot::encode_rgb_png(self.width as u32, self.height as u32, &rgb).map_err(|e| self.err(e))
    }

    fn property(&self, window: Window, name: &'static str, kind: u32) -> Option<Vec<u8>> {
        let atom = *self.atoms.get(name)?;
        let reply = self.conn.get_property(false, window, atom, kind, 0, 1 << 16).ok()?.reply().ok()?;
        (reply.format != 0).then_some(reply.value)
    }

    fn window_list(&self, name: &'static str) -> Vec<Window> {
        self.property(self.root, name, AtomEnum::WINDOW.into())
            .map(|v| v.chunks_exact(4).map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect())
            .unwrap_or_default()
    }

    /// Whether a window manager runs: it names its check window on the root, and the window
    /// names itself (EWMH), which tells a running one from one that died and left the root's
    /// property behind.
    pub fn wm_running(&self) -> bool {
        let Some(check) = self.window_list("_NET_SUPPORTING_WM_CHECK").first().copied() else { return false };
        let names_itself = self.property(check, "_NET_SUPPORTING_WM_CHECK", AtomEnum::WINDOW.into());
        names_itself.is_some_and(|v| v.len() >= 4 && u32::from_ne_bytes([v[0], v[1], v[2], v[3]]) == check)
    }

    /// The managed top-level windows, oldest first, as the window manager lists them.
    pub fn windows(&self) -> Vec<WindowInfo> {
        let active = self.window_list("_NET_ACTIVE_WINDOW").first().copied();
        let utf8 = self.atoms["UTF8_STRING"];
        let mut out = Vec::new();
        for w in self.window_list("_NET_CLIENT_LIST") {
            let title = self
                .property(w, "_NET_WM_NAME", utf8)
                .or_else(|| {
                    let reply = self.conn.get_property(false, w, AtomEnum::WM_NAME, AtomEnum::STRING, 0, 1 << 12).ok()?.reply().ok()?;
                    Some(reply.value)
                })
                .map(|v| String::from_utf8_lossy(&v).into_owned())
                .unwrap_or_default();
            let class = self.property(w, "WM_CLASS", AtomEnum::STRING.into()).unwrap_or_default();
            let mut parts = class.split(|b| *b == 0).map(|p| String::from_utf8_lossy(p).into_owned());
            let (instance, class) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
            let Some(geometry) = self.conn.get_geometry(w).ok().and_then(|c| c.reply().ok()) else { continue };
            let Some(at) = self.conn.translate_coordinates(w, self.root, 0, 0).ok().and_then(|c| c.reply().ok()) else { continue };
            out.push(WindowInfo {
                id: w,
                title,
                instance,
                class,
                x: at.dst_x as i32,
                y: at.dst_y as i32,
                width: geometry.width as u32,
                height: geometry.height as u32,
                active: Some(w) == active,
            });
        }
        out
    }

    fn client_message(&self, window: Window, name: &'static str, data: [u32; 5]) -> Result<(), XError> {
        let event = ClientMessageEvent::new(32, window, self.atoms[name], data);
        let mask = EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY;
        self.conn.send_event(false, self.root, mask, event).map_err(|e| self.err(e))?;
        self.conn.flush().map_err(|e| self.err(e))?;
        self.sync()
    }

    /// Sets the X resources every client of the display reads as it starts (the root window's
    /// `RESOURCE_MANAGER`, as `xrdb -load` would).
    pub fn set_resources(&self, text: &str) -> Result<(), XError> {
        use x11rb::wrapper::ConnectionExt as _;
        self.conn.change_property8(PropMode::REPLACE, self.root, AtomEnum::RESOURCE_MANAGER, AtomEnum::STRING, text.as_bytes()).map_err(|e| self.err(e))?;
        self.conn.flush().map_err(|e| self.err(e))?;
        self.sync()
    }

    /// Asks the window manager to raise and focus a window (as a pager would).
    pub fn activate(&self, window: Window) -> Result<(), XError> {
        self.client_message(window, "_NET_ACTIVE_WINDOW", [2, x11rb::CURRENT_TIME, 0, 0, 0])
    }

    /// Asks the window manager to close a window (as its close button would).
    pub fn close(&self, window: Window) -> Result<(), XError> {
        self.client_message(window, "_NET_CLOSE_WINDOW", [x11rb::CURRENT_TIME, 2, 0, 0, 0])
    }
}
