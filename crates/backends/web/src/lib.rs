//! The `web` backend: real headless Chromium over the Chrome DevTools Protocol.
//!
//! One browser process hosts many instances, one browser context each. The mocked apps are
//! rendered to HTML by the ui crate and served on loopback; browser events reach the same
//! app state machines as the sim backend, so suites, goldens and verifiers carry over.
//! Page benchmarks (`pages`: MiniWoB++'s tasks, from its own crate) are served from the same
//! server and reset in place, without reloads.
//!
//! Invariant: the app state of a web instance is a `SimEnv`; CDP is spoken through `guigym-cdp`.

pub mod browser;
pub use guigym_cdp as cdp;
pub mod env;
pub mod pages;
pub mod server;
pub mod uitree;

pub use browser::find_chromium;
pub use env::{WebEnv, WebProvider};
pub use pages::{PageBenchmark, PageBenchmarks};
