//! The `desktop` backend: real Linux applications (LibreOffice, a text editor, a terminal, a
//! file manager) on a virtual X server, one isolated instance each: its own Xvfb display,
//! window manager, session bus, home folder and process groups. Tasks are in OSWorld's format
//! (set-up steps, getters, metrics), run natively: a reset restores the home folder and
//! restarts the applications, no virtual machine.
//!
//! Layers, bottom up: `x11` (the X protocol: input, screenshots, windows), `session` (the
//! instance's processes and files, `memory` their budget), `instance` (set-up steps, getters, the evaluator),
//! `env` (the `Env` interface). `task` and `metrics` are OSWorld's task format and metric
//! functions; `catalogue` is our own desktop benchmark; `osworld` imports OSWorld's task files.

pub mod a11y;
pub mod catalogue;
pub mod env;
pub mod home;
pub mod instance;
pub mod keys;
pub mod memory;
pub mod metrics;
pub mod office;
pub mod osworld;
pub mod session;
pub mod task;
pub mod x11;

pub use catalogue::DesktopCatalogue;
pub use env::{DesktopEnv, DesktopProvider, DEFAULT_SIZE};
pub use osworld::ImportedOsWorld;
pub use session::{missing, OfficeToolkit};
