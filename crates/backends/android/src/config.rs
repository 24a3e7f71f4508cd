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
    /// A file's settings; an error names the file and what is wrong.
    pub fn load(path: &Path) -> Result<AndroidConfig, String> {
        let shown = path.display();
        let bytes = guigym_core::read_at_most(path, CONFIG_MAX)
            .map_err(|e| format!("{shown}: {e}"))?
            .ok_or_else(|| format!("{shown}: over {} KiB: not a devices file", CONFIG_MAX >> 10))?;
        let text = String::from_utf8(bytes).map_err(|_| format!("{shown}: not UTF-8 text"))?;
        let yaml = matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"));
        let config: AndroidConfig = if yaml {
            serde_saphyr::from_str(&text).map_err(|e| format!("{shown}: {e}"))?
        } else {
            serde_json::from_str(&text).map_err(|e| format!("{shown}: {e}"))?
        };
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
    /// not `HOST:PORT`, a snapshot without a console to load it, deadlines out of range.
    pub fn check(&self) -> Result<(), String> {
        if self.devices.is_empty() {
            return Err("devices: list at least one device".into());
        }
        if !(0.1..=3600.0).contains(&self.timeout_s) {
            return Err(format!("timeout_s: {} is not within 0.1..=3600", self.timeout_s));
        }
        for (i, d) in self.devices.iter().enumerate() {
            let at = format!("devices[{i}] ({})", d.serial);
            if d.serial.is_empty() || d.serial.len() > 256 || d.serial.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(format!("devices[{i}].serial: {:?} is not a device's serial", d.serial));
            }
            if self.devices[..i].iter().any(|e| e.serial == d.serial) {
                return Err(format!("{at}: listed twice"));
            }
            if d.route == Route::Direct && !is_host_port(&d.serial) {
                return Err(format!("{at}.route: direct needs the serial to be HOST:PORT"));
            }
            if !(1.0..=3600.0).contains(&d.ready.timeout_s) {
                return Err(format!("{at}.ready.timeout_s: {} is not within 1..=3600", d.ready.timeout_s));
            }
            if d.reset.iter().any(|s| matches!(s, ResetStep::Snapshot(_))) && d.console_addr().is_none() {
                return Err(format!("{at}.console: a snapshot needs the emulator console's HOST:PORT (the serial is not emulator-PORT)"));
            }
            for step in &d.reset {
                match step {
                    ResetStep::PmClear(packages) if packages.is_empty() || packages.iter().any(|p| !is_package(p)) => {
                        return Err(format!("{at}.reset.pm_clear: {packages:?} must be package names (com.example.app)"));
                    }
                    ResetStep::Snapshot(name) if name.is_empty() || name.contains(char::is_whitespace) => {
                        return Err(format!("{at}.reset.snapshot: {name:?} is not a snapshot's name"));
                    }
                    ResetStep::Command(c) | ResetStep::Shell(c) if c.trim().is_empty() => return Err(format!("{at}.reset: an empty command")),
                    _ => {}
                }
            }
        }
        Ok(())
    }
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
        let from_env = AndroidConfig::from_serials(" a , 127.0.0.1:5555,", Some("http://c".into()), None);
        assert_eq!(from_env.devices.iter().map(|d| d.serial.as_str()).collect::<Vec<_>>(), ["a", "127.0.0.1:5555"]);
        assert!(from_env.check().is_ok());
    }
}
