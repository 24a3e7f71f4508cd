//! Platforms (the form factor an agent sees) and screens.

use serde::{Deserialize, Serialize};

/// The form factor an agent sees: what a backend serves and what a manager is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// A phone: the simulated one, the same in Chromium, Android.
    Mobile,
    /// A computer's desktop with its applications.
    Desktop,
    /// Pages in a browser.
    Web,
}

impl Platform {
    pub const ALL: [Platform; 3] = [Platform::Mobile, Platform::Desktop, Platform::Web];

    /// The name specs and the command line spell it with.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Mobile => "mobile",
            Platform::Desktop => "desktop",
            Platform::Web => "web",
        }
    }
}

impl std::fmt::Display for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Screen size in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Screen {
    pub width: u32,
    pub height: u32,
}

impl Screen {
    /// The default phone: 1080×2400 px at density 3.
    pub const PHONE: Screen = Screen { width: 1080, height: 2400 };

    /// Pixels per dp, for a phone's layout (360 dp wide).
    pub fn scale(&self) -> f32 {
        self.width as f32 / 360.0
    }
}

impl Default for Screen {
    fn default() -> Screen {
        Screen::PHONE
    }
}
