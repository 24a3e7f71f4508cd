//! Settings: switches for radios and do-not-disturb, a display page (dark mode, brightness
//! with validation) and a language page behind a confirmation.

use guigym_ui::{TextStyle, View};

use super::{screen, App, UiEvent};
use crate::state::{AppData, DeviceState};
use crate::world::World;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub wifi: bool,
    pub bluetooth: bool,
    pub airplane_mode: bool,
    pub do_not_disturb: bool,
    pub dark_mode: bool,
    /// Percent, 0 to 100.
    pub brightness: u32,
    pub language: String,
}

/// Factory settings, before a world's installer changes some.
impl Default for Settings {
    fn default() -> Settings {
        Settings { wifi: true, bluetooth: false, airplane_mode: false, do_not_disturb: false, dark_mode: false, brightness: 60, language: "English".into() }
    }
}

pub fn install(_w: &World, d: &mut AppData, rng: &mut Rng) {
    d.settings.brightness = rng.range(3, 9) as u32 * 10;
    d.settings.bluetooth = rng.chance(0.5);
}

pub const APP: App = App { name: "Settings", icon: guigym_ui::Pictogram::Gear, color: [75, 85, 99], root: "main", view, handle };

fn view(s: &DeviceState, route: &str) -> View {
    let st = &s.data.settings;
    match route {
        "display" => screen(
            "Display",
            vec![
                View::switch("dark_mode", "Dark mode", st.dark_mode),
                View::text(format!("Brightness: {}%", st.brightness)).id("brightness"),
                View::row([View::button("brightness_down", "−10%"), View::button("brightness_up", "+10%")]),
                View::field("brightness_value", s.field("brightness_value"), "Brightness (0-100)", s.ui.focus.as_deref() == Some("brightness_value")),
                View::button("apply", "Apply"),
            ],
            None,
        ),
        "language" => {
            let dialog =
                s.ui.dialog
                    .as_deref()
                    .and_then(|d| d.strip_prefix("lang:"))
                    .map(|l| super::confirm("language_dialog", "Change language?", &format!("The phone will use {l}."), "confirm_language", "Change"));
            screen(
                "Language",
                vec![
                    View::styled(format!("Current: {}", st.language), TextStyle::Caption),
                    View::list("languages", s.scroll("languages"), LANGUAGES.iter().map(|l| View::item(format!("lang:{l}"), *l, ""))),
                ],
                dialog,
            )
        }
        _ => screen(
            "Settings",
            vec![
                View::switch("wifi", "Wi-Fi", st.wifi),
                View::switch("bluetooth", "Bluetooth", st.bluetooth),
                View::switch("airplane_mode", "Airplane mode", st.airplane_mode),
                View::switch("do_not_disturb", "Do not disturb", st.do_not_disturb),
                View::item("display", "Display", format!("Brightness {}%, dark mode {}", st.brightness, if st.dark_mode { "on" } else { "off" })),
                View::item("language", "Language", &st.language),
            ],
            None,
        ),
    }
}

/// Airplane mode turns the radios off, as on a real phone.
pub fn set_airplane(s: &mut DeviceState, on: bool) {
    s.data.settings.airplane_mode = on;
    if on {
        s.data.settings.wifi = false;
        s.data.settings.bluetooth = false;
    }
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let st = &mut s.data.settings;
    let flip = |b: &mut bool, name: &str| {
        *b = !*b;
        format!("{name} {}", if *b { "on" } else { "off" })
    };
    match (route, id.as_str()) {
        ("main", "wifi") => flip(&mut st.wifi, "Wi-Fi"),
        ("main", "bluetooth") => flip(&mut st.bluetooth, "Bluetooth"),
        ("main", "do_not_disturb") => flip(&mut st.do_not_disturb, "do not disturb"),
        ("main", "airplane_mode") => {
            let on = !st.airplane_mode;
            set_airplane(s, on);
            format!("airplane mode {}", if on { "on" } else { "off" })
        }
        ("main", "display" | "language") => {
            s.push(id.clone());
            format!("opened {id}")
        }
        ("display", "dark_mode") => flip(&mut st.dark_mode, "dark mode"),
        ("display", "brightness_down") => {
            st.brightness = st.brightness.saturating_sub(10);
            format!("brightness {}%", st.brightness)
        }
        ("display", "brightness_up") => {
            st.brightness = (st.brightness + 10).min(100);
            format!("brightness {}%", st.brightness)
        }
        ("display", "apply") => match s.field("brightness_value").trim().trim_end_matches('%').parse::<u32>() {
            Ok(v) if v <= 100 => {
                s.data.settings.brightness = v;
                s.ui.fields.remove("brightness_value");
                format!("brightness {v}%")
            }
            _ => {
                s.ui.toast = Some("Brightness must be a number from 0 to 100".into());
                "not applied: brightness must be a number from 0 to 100".into()
            }
        },
        ("language", other) if other.starts_with("lang:") => {
            s.ui.dialog = Some(other.to_string());
            "asked to confirm the language".into()
        }
        ("language", "confirm_language") => {
            let lang = s.ui.dialog.take().and_then(|d| d.strip_prefix("lang:").map(str::to_string)).unwrap_or_default();
            s.data.settings.language = lang.clone();
            format!("language set to {lang}")
        }
        _ => String::new(),
    }
}

/// The languages the phone offers.
pub const LANGUAGES: [&str; 6] = ["English", "Español", "Français", "Deutsch", "Italiano", "Português"];
