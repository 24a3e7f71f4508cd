//! ADB, Android's debug bridge, as guigym speaks it: the transport messages (`message`), the
//! device side that `adb connect` reaches (`device`, with `sync` for files and `auth` for RSA
//! keys), a client of an adb server (`host`), a device shell's command lines (`shell`), and any guigym instance served as an
//! Android device (`env_device`), so agent frameworks that drive phones over ADB drive
//! guigym's instances unchanged.

pub mod auth;
pub mod client;
pub mod console;
pub mod device;
pub mod env_device;
pub mod host;
pub mod link;
pub mod message;
pub mod shell;
pub mod sync;

pub use device::{serve, Device, FileStat, ShellOutput};
pub use env_device::{package_of, EnvDevice, Identity};
pub use link::{AdbError, Link};
