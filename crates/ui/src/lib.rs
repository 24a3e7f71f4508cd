//! Declarative view trees, their layout, hit testing, UI-tree export and PNG raster.
//!
//! Apps describe a screen as a `View` tree; this crate decides where everything goes
//! (`layout`), which node a pointer lands on (`Layout::hit`), what an agent reads
//! (`Layout::ui_tree`) and what a screenshot shows (`raster`). Layout works in screen pixels
//! from a density scale (`width / 360`), so a phone of 1080×2400 is a 360×800 dp screen.
//!
//! Invariant: the UI tree does not depend on the font; only pixels do, and the font is
//! embedded (DejaVu Sans), so screenshots are the same on every host.

pub mod html;
pub mod icons;
pub mod layout;
pub mod raster;
pub mod theme;
pub mod view;

pub use icons::{Pictogram, StatusIcons};
pub use layout::{Layout, Placed};
pub use raster::render_screenshot;
pub use theme::Theme;
pub use view::{Kind, TextStyle, View};

/// The screen layouts are made for (the one type, in core).
pub use guigym_core::Screen;
