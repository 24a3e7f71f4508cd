//! Colours and sizes that style a rendered screen.

use serde::{Deserialize, Serialize};

pub type Rgb = [u8; 3];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Theme {
    pub background: Rgb,
    pub surface: Rgb,
    pub primary: Rgb,
    pub on_primary: Rgb,
    pub text: Rgb,
    pub muted: Rgb,
    pub divider: Rgb,
    pub danger: Rgb,
}

impl Default for Theme {
    fn default() -> Theme {
        Theme {
            background: [250, 250, 252],
            surface: [255, 255, 255],
            primary: [37, 99, 235],
            on_primary: [255, 255, 255],
            text: [24, 24, 27],
            muted: [113, 113, 122],
            divider: [228, 228, 231],
            danger: [220, 38, 38],
        }
    }
}
