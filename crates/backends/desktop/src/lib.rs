//! The `desktop` backend: real Linux applications (LibreOffice, a text editor, a terminal, a
//! file manager) on a virtual X server, one isolated instance each: its own Xvfb display,
//! window manager, session bus, home folder and process groups. A reset restores the home
//! folder and restarts the applications, no virtual machine; what a task is (its set-up, its
//! golden, its verdict) is its benchmark's (`benchmark::DesktopBenchmark`: OSWorld's format and
//! our catalogue live in crates of their own).
//!
//! Layers, bottom up: `x11` (the X protocol: input, screenshots, windows), `a11y` (the
//! accessibility tree), `session` (the instance's processes and files, `memory` their budget),
//! `instance` (the device benchmarks act on: launching, windows, files, a clean reset), `env`
//! (the `Env` interface).

pub mod a11y;
pub mod benchmark;
pub mod env;
pub mod home;
pub mod instance;
pub mod keys;
pub mod memory;
pub mod session;
pub mod x11;

pub use benchmark::{DesktopBenchmark, DesktopBenchmarks};
pub use env::{DesktopEnv, DesktopProvider, DEFAULT_SIZE};
pub use session::{missing, OfficeToolkit};
