//! Colours and sizes that style a rendered screen.

use serde::{Deserialize, Serialize};

pub type Rgb = [u8; 3];

/// How far a navigation bar's ground, and a chosen chip or pill, lean toward the primary colour.
pub const BAR_TINT: f32 = 0.08;
pub const CHOSEN_TINT: f32 = 0.22;

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

impl Theme {
    /// The themes a world may use: light, dark, and light with other accent colours.
    pub fn variants() -> Vec<Theme> {
        let light = Theme::default();
        let dark = Theme {
            background: [18, 18, 20],
            surface: [32, 32, 36],
            primary: [96, 165, 250],
            on_primary: [10, 10, 12],
            text: [236, 236, 240],
            muted: [160, 160, 170],
            divider: [60, 60, 66],
            danger: [248, 113, 113],
        };
        let green = Theme { primary: [22, 163, 74], ..light.clone() };
        let plum = Theme { primary: [147, 51, 234], background: [252, 250, 255], ..light.clone() };
        vec![light, dark, green, plum]
    }

    /// The surface tinted toward the primary colour by `amount` (0–1): Material's tonal
    /// containers (a navigation bar, a chosen chip, an indicator pill).
    pub fn tint(&self, amount: f32) -> Rgb {
        std::array::from_fn(|i| (self.surface[i] as f32 + (self.primary[i] as f32 - self.surface[i] as f32) * amount).round() as u8)
    }

    /// A message bubble's ground, text and caption colours: the owner's in the primary colour,
    /// others' on a tinted surface.
    pub fn bubble(&self, mine: bool) -> (Rgb, Rgb, Rgb) {
        if mine {
            (self.primary, self.on_primary, self.on_primary)
        } else {
            (self.tint(CHOSEN_TINT), self.text, self.muted)
        }
    }

    /// A navigation bar destination's ink and the ground under its icon: the chosen one's pill,
    /// or the bar.
    pub fn destination(&self, selected: bool) -> (Rgb, Rgb) {
        if selected {
            (self.text, self.tint(CHOSEN_TINT))
        } else {
            (self.muted, self.tint(BAR_TINT))
        }
    }

    pub fn variant(index: usize) -> Theme {
        Theme::variants().into_iter().nth(index).unwrap_or_default()
    }
}
