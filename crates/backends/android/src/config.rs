//! Which devices the android backend drives and how each is put back before a task: a YAML
//! (or JSON) file named by `GUIGYM_ANDROID_CONFIG`, or, for the simple case, serials in
//! `GUIGYM_ANDROID_DEVICES`. A file:
//!
//! ```yaml
//! adb_server: 127.0.0.1:5037      # the adb server the `server` route goes through
//! adb_key: ~/.android/adbkey       # the key the `direct` route signs with (made if missing)
//! timeout_s: 30                    # one adb call's deadline
//! devices:
//!   - serial: emulator-5554
//!     reset:
//!       - snapshot: clean          # the emulator console's `avd snapshot load clean`
//!   - serial: 127.0.0.1:5556       # a ReDroid container
//!     reset:
//!       - command: docker restart redroid-1   # any host command; $GUIGYM_ANDROID_SERIAL is set
//!     ready: { timeout_s: 180 }
//!   - serial: R58M123ABC           # a phone on USB
//!     reset:
//!       - pm_clear: [com.android.contacts]
//!   - serial: 127.0.0.1:5555       # guigym adb-device
//!     route: direct                # no adb server: our own transport client
//!     control: http://127.0.0.1:7001
//! ```
//!
//! Before every task a device runs its `reset` steps in order, then the readiness check
//! (booted, package manager up, screen awake, lock screen gone), then, where it has a
//! `control` (a guigym device), the task is set up there.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The largest devices file read.
const CONFIG_MAX: u64 = 1 << 20;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AndroidConfig {
    #[serde(default = "default_server")]
    pub adb_server: String,
    /// The host key for `direct` devices [default: adb's, `~/.android/adbkey`].
    #[serde(default)]
    pub adb_key: Option<PathBuf>,
    #[serde(default = "default_timeout")]
    pub timeout_s: f64,
    pub devices: Vec<DeviceConfig>,
}

fn default_server() -> String {
    "127.0.0.1:5037".into()
}
fn default_timeout() -> f64 {
    30.0
}

/// How a device is reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Route {
    /// Through the adb server (USB devices, emulators, and `HOST:PORT` devices it connects).
    #[default]
    Server,
    /// Straight to a `HOST:PORT` device's transport, with no adb server.
    Direct,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// As adb names it: `emulator-5554`, a USB serial, or `HOST:PORT`.
    pub serial: String,
    #[serde(default)]
    pub route: Route,
    /// A guigym device's control API, which sets tasks up and judges them; without one, tasks
    /// start from what the reset steps leave and have no judge here.
    #[serde(default)]
    pub control: Option<String>,
    /// Run in order before every task.
    #[serde(default)]
    pub reset: Vec<ResetStep>,
    #[serde(default)]
    pub ready: Readiness,
    /// The emulator console for `snapshot` [default: 127.0.0.1 and the port in `emulator-PORT`].
    #[serde(default)]
    pub console: Option<String>,
    /// The console's token [default: the one in ~/.emulator_console_auth_token, if any].
    #[serde(default)]
    pub console_token: Option<String>,
    #[serde(default)]
    pub screencap: Screencap,
}

/// How a screenshot leaves the device.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Screencap {
    /// `screencap -p`: the device encodes a PNG (slow on a phone's CPU, few bytes to carry).
    #[default]
    Png,
    /// `screencap`: the raw pixels (4 bytes each), encoded here; faster where the link is fast
    /// (an emulator or ReDroid on this host, USB) and the device's CPU slow.
    Raw,
}

/// One way to put a device back.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ResetStep {
    /// `pm clear` each package: its data and caches gone, the app stopped.
    PmClear(Vec<String>),
    /// An emulator snapshot loaded through the emulator console (`adb emu avd snapshot load`).
    Snapshot(String),
    /// A command on this host, through `sh -c`, with `GUIGYM_ANDROID_SERIAL` set: a ReDroid
    /// container's golden `/data` put back, a VM restored. Its exit status must be 0.
    Command(String),
    /// A command line in the device's shell; its exit status must be 0.
    Shell(String),
}

/// What makes a device ready for a task, and how long it may take to get there.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Readiness {
    #[serde(default = "default_ready_timeout")]
    pub timeout_s: f64,
    /// Wake the screen and dismiss the lock screen (one without a PIN).
    #[serde(default = "yes")]
    pub unlock: bool,
}

fn default_ready_timeout() -> f64 {
    120.0
}
fn yes() -> bool {
    true
}

impl Default for Readiness {
    fn default() -> Readiness {
        Readiness { timeout_s: default_ready_timeout(), unlock: true }
    }
}

impl AndroidConfig {
    /// A file's settings; an error names the file and what is wrong. `adb_key` is read as a
    /// path: `~/` is the home folder, and a relative path is taken from the file's folder.
    pub fn load(path: &Path) -> Result<AndroidConfig, String> {
        let shown = path.display();
        // A FIFO or a device would block the read (or never end): only a plain file is read.
        match std::fs::metadata(path) {
            Ok(meta) if !meta.is_file() => return Err(format!("{shown}: not a regular file")),
            Ok(_) => {}
            Err(e) => return Err(format!("{shown}: {e}")),
        }
        let bytes = guigym_core::read_at_most(path, CONFIG_MAX)
            .map_err(|e| format!("{shown}: {e}"))?
            .ok_or_else(|| format!("{shown}: over {} KiB: not a devices file", CONFIG_MAX >> 10))?;
        let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8 text"))?;
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        let mut config: AndroidConfig = match extension.as_str() {
            "yaml" | "yml" => serde_saphyr::from_str(&text).map_err(|e| format!("{shown}: {e}"))?,
            "json" => serde_json::from_str(&text).map_err(|e| format!("{shown}: {e}"))?,
            _ => return Err(format!("{shown}: a devices file is .yaml, .yml or .json")),
        };
        if let Some(key) = config.adb_key.as_ref().filter(|k| !k.as_os_str().is_empty()) {
            config.adb_key = Some(resolve_path(key, path.parent().unwrap_or(Path::new("."))).map_err(|e| format!("{shown}: adb_key: {e}"))?);
        }
        config.check().map_err(|e| format!("{shown}: {e}"))?;
        Ok(config)
    }

    /// Serials alone: each through the adb server, judged by `control` where it is given.
    pub fn from_serials(serials: &str, control: Option<String>, adb_server: Option<String>) -> AndroidConfig {
        let devices = serials
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|serial| DeviceConfig {
                serial: serial.to_string(),
                route: Route::Server,
                control: control.clone(),
                reset: Vec::new(),
                ready: Readiness::default(),
                console: None,
                console_token: None,
                screencap: Screencap::Png,
            })
            .collect();
        AndroidConfig { adb_server: adb_server.unwrap_or_else(default_server), adb_key: None, timeout_s: default_timeout(), devices }
    }

    /// Settings that cannot work: none or twice the same device, a `direct` device that is
    /// not `HOST:PORT`, a snapshot without a console to load it, an address or URL that is
    /// none, a name or token that would break the console's line protocol, deadlines out of
    /// range. Values are shown cut short, so an error never echoes a file.
    pub fn check(&self) -> Result<(), String> {
        if self.devices.is_empty() {
            return Err("devices: list at least one device".into());
        }
        if !is_host_port(&self.adb_server) {
            return Err(format!("adb_server: {} is not HOST:PORT", brief(&self.adb_server)));
        }
        if let Some(key) = &self.adb_key {
            check_key_path(key).map_err(|e| format!("adb_key: {e}"))?;
        }
        if !(0.1..=3600.0).contains(&self.timeout_s) {
            return Err(format!("timeout_s: {:?} is not within 0.1..=3600", self.timeout_s));
        }
        for (i, d) in self.devices.iter().enumerate() {
            if d.serial.is_empty() || d.serial.len() > 256 || d.serial.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(format!("devices[{i}].serial: {} is not a device's serial", brief(&d.serial)));
            }
            let at = format!("devices[{i}] ({})", d.serial);
            if self.devices[..i].iter().any(|e| e.serial == d.serial) {
                return Err(format!("{at}: listed twice"));
            }
            if d.route == Route::Direct && !is_host_port(&d.serial) {
                return Err(format!("{at}.route: direct needs the serial to be HOST:PORT"));
            }
            if let Some(url) = &d.control {
                check_url(url).map_err(|e| format!("{at}.control: {e}"))?;
            }
            if let Some(console) = &d.console {
                if !is_host_port(console) {
                    return Err(format!("{at}.console: {} is not HOST:PORT", brief(console)));
                }
            }
            if let Some(token) = &d.console_token {
                if !is_word(token) {
                    return Err(format!("{at}.console_token: {} is not a console token (printable, no spaces)", brief(token)));
                }
            }
            if !(1.0..=3600.0).contains(&d.ready.timeout_s) {
                return Err(format!("{at}.ready.timeout_s: {:?} is not within 1..=3600", d.ready.timeout_s));
            }
            if d.reset.iter().any(|s| matches!(s, ResetStep::Snapshot(_))) && d.console_addr().is_none() {
                return Err(format!("{at}.console: a snapshot needs the emulator console's HOST:PORT (the serial is not emulator-PORT)"));
            }
            for step in &d.reset {
                match step {
                    ResetStep::PmClear(packages) => {
                        if packages.is_empty() {
                            return Err(format!("{at}.reset.pm_clear: list the packages to clear"));
                        }
                        if let Some(bad) = packages.iter().find(|p| !is_package(p)) {
                            return Err(format!("{at}.reset.pm_clear: {} is not a package name (com.example.app)", brief(bad)));
                        }
                    }
                    ResetStep::Snapshot(name) if !is_word(name) => {
                        return Err(format!("{at}.reset.snapshot: {} is not a snapshot's name (printable, no spaces)", brief(name)));
                    }
                    ResetStep::Command(c) | ResetStep::Shell(c) if c.trim().is_empty() => return Err(format!("{at}.reset: an empty command")),
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// A value as an error shows it: quoted, and cut at 64 characters.
fn brief(value: &str) -> String {
    if value.chars().count() <= 64 {
        format!("{value:?}")
    } else {
        format!("{:?}… ({} bytes)", value.chars().take(64).collect::<String>(), value.len())
    }
}

/// A name or token that travels as one word of a console line: 1 to 256 printable characters,
/// no spaces (a line break would end the command and start another).
fn is_word(s: &str) -> bool {
    (1..=256).contains(&s.len()) && s.chars().all(|c| !c.is_whitespace() && !c.is_control())
}

/// A control API's URL: http or https, with a host.
fn check_url(url: &str) -> Result<(), String> {
    if url.len() > 2048 {
        return Err(format!("{} is too long for a URL", brief(url)));
    }
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("{}: {e}", brief(url)))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!("{} is not an http(s) URL with a host", brief(url)));
    }
    Ok(())
}

/// `~/…` in the home folder; a relative path under `base`.
fn resolve_path(path: &Path, base: &Path) -> Result<PathBuf, String> {
    if let Ok(rest) = path.strip_prefix("~") {
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).ok_or("~ needs HOME to be set")?;
        return Ok(PathBuf::from(home).join(rest));
    }
    Ok(if path.is_relative() { base.join(path) } else { path.to_path_buf() })
}

/// A key path that names a file, whose folder exists: a key made there must not land in a
/// folder made by mistake (only adb's own `~/.android` is made when missing).
fn check_key_path(path: &Path) -> Result<(), String> {
    if path.as_os_str().is_empty() {
        return Err("is empty: name the key file".into());
    }
    if path.file_name().is_none() {
        return Err(format!("{} names no file", brief(&path.to_string_lossy())));
    }
    if path.is_dir() {
        return Err(format!("{} is a folder", brief(&path.to_string_lossy())));
    }
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !path.exists() && !folder.is_dir() {
        return Err(format!("{} does not exist, nor its folder {}, to make a key in", brief(&path.to_string_lossy()), brief(&folder.to_string_lossy())));
    }
    Ok(())
}

impl DeviceConfig {
    /// Where this device's emulator console listens.
    pub fn console_addr(&self) -> Option<String> {
        if let Some(c) = &self.console {
            return Some(c.clone());
        }
        let port: u16 = self.serial.strip_prefix("emulator-")?.parse().ok()?;
        Some(format!("127.0.0.1:{port}"))
    }
}

pub(crate) fn is_host_port(s: &str) -> bool {
    s.rsplit_once(':').is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0))
}

/// A Java package name: dotted words of letters, digits and `_`.
fn is_package(s: &str) -> bool {
    s.split('.').count() >= 2 && s.split('.').all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<AndroidConfig, String> {
        let config: AndroidConfig = serde_saphyr::from_str(yaml).map_err(|e| e.to_string())?;
        config.check()?;
        Ok(config)
    }

    #[test]
    fn every_reset_step_is_read_and_bad_settings_name_their_field() {
        let config = parse(
            "devices:\n  - serial: emulator-5554\n    reset:\n      - snapshot: clean\n      - pm_clear: [com.android.contacts, com.guigym.mail]\n      - command: docker restart redroid\n      - shell: settings put global auto_time 0\n    ready: { timeout_s: 30, unlock: false }\n  - serial: 127.0.0.1:5555\n    route: direct\n    control: http://127.0.0.1:7000\n",
        )
        .unwrap();
        assert_eq!(
            config.devices[0].reset,
            vec![
                ResetStep::Snapshot("clean".into()),
                ResetStep::PmClear(vec!["com.android.contacts".into(), "com.guigym.mail".into()]),
                ResetStep::Command("docker restart redroid".into()),
                ResetStep::Shell("settings put global auto_time 0".into()),
            ]
        );
        assert_eq!(config.devices[0].console_addr().as_deref(), Some("127.0.0.1:5554"));
        assert!(!config.devices[0].ready.unlock);
        assert_eq!(config.devices[1].route, Route::Direct);
        assert_eq!(config.adb_server, "127.0.0.1:5037");

        for (yaml, says) in [
            ("devices: []\n", "at least one device"),
            ("devices:\n  - serial: R58M\n    route: direct\n", "HOST:PORT"),
            ("devices:\n  - serial: R58M\n    reset: [ { snapshot: clean } ]\n", "console"),
            ("devices:\n  - serial: R58M\n    reset: [ { pm_clear: [\"rm -rf\"] } ]\n", "pm_clear"),
            ("devices:\n  - serial: R58M\n  - serial: R58M\n", "listed twice"),
            ("devices:\n  - serial: R58M\n    reset: [ { reboot: now } ]\n", "reboot"),
            ("devices:\n  - serial: R58M\n    colour: red\n", "colour"),
        ] {
            let e = parse(yaml).unwrap_err();
            assert!(e.contains(says), "{yaml}: {e}");
        }
        // What would break the console's lines, or is no address, is refused; a value too long
        // to show is cut short in the error.
        let device = "devices:\n  - serial: emulator-5554\n";
        for (extra, says) in [
            ("    console_token: \"a\\r\\nkill\"\n", "console_token"),
            ("    reset: [ { snapshot: \"clean\\nkill\" } ]\n", "snapshot"),
            ("    console: localhost\n", "console"),
            ("    control: ftp://example.org\n", "control"),
            ("    control: not a url\n", "control"),
        ] {
            let e = parse(&format!("{device}{extra}")).unwrap_err();
            assert!(e.contains(says), "{extra}: {e}");
        }
        assert!(parse(&format!("adb_server: nowhere\n{device}")).unwrap_err().contains("adb_server"));
        let e = parse(&format!("timeout_s: 1e308\n{device}")).unwrap_err();
        assert!(e.contains("timeout_s") && e.len() < 100, "{e}");
        assert!(parse(&format!("timeout_s: .nan\n{device}")).is_err());
        let e = parse(&format!("devices:\n  - serial: \"{}\"\n", "x".repeat(200_000))).unwrap_err();
        assert!(e.len() < 300, "the serial is cut short: {} bytes", e.len());

        let from_env = AndroidConfig::from_serials(" a , 127.0.0.1:5555,", Some("http://c".into()), None);
        assert_eq!(from_env.devices.iter().map(|d| d.serial.as_str()).collect::<Vec<_>>(), ["a", "127.0.0.1:5555"]);
        assert!(from_env.check().is_ok());
    }

    #[test]
    fn a_devices_file_is_read_by_its_extension_with_its_key_path_resolved() {
        let dir = std::env::temp_dir().join(format!("guigym-android-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let at = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        // A relative key path is the file's folder's; `~/` is the home folder's.
        let config = AndroidConfig::load(&at("DEVICES.YAML", "adb_key: keys/adbkey\ndevices:\n  - serial: a\n"));
        assert!(config.unwrap_err().contains("adb_key"), "a key whose folder does not exist is refused, not made");
        std::fs::create_dir_all(dir.join("keys")).unwrap();
        let config = AndroidConfig::load(&at("DEVICES.YAML", "adb_key: keys/adbkey\ndevices:\n  - serial: a\n")).unwrap();
        assert_eq!(config.adb_key, Some(dir.join("keys/adbkey")));
        let home = PathBuf::from(std::env::var_os("HOME").expect("HOME is set"));
        assert_eq!(resolve_path(Path::new("~/.android/adbkey"), &dir), Ok(home.join(".android/adbkey")));
        assert_eq!(resolve_path(Path::new("/k/adbkey"), &dir), Ok(PathBuf::from("/k/adbkey")));
        for (name, text, says) in [
            ("empty.yaml", "adb_key: \"\"\ndevices:\n  - serial: a\n", "adb_key: is empty"),
            ("folder.yaml", "adb_key: keys\ndevices:\n  - serial: a\n", "folder"),
            ("devices.conf", "devices: []\n", ".yaml, .yml or .json"),
        ] {
            let e = AndroidConfig::load(&at(name, text)).unwrap_err();
            assert!(e.contains(says) && e.contains(name), "{name}: {e}");
        }
        // A FIFO would block the read for ever: only a regular file is read.
        let fifo = dir.join("fifo.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert!(AndroidConfig::load(&fifo).unwrap_err().contains("not a regular file"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
