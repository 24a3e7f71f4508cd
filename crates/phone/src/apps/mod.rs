//! The mocked apps. Each app is a pair of pure functions over the device state: `view`
//! draws the current route, `handle` reacts to a UI event. Navigation, form fields, focus
//! and scrolling are the shell's (see `crate::shell`), so an app only says what its screens
//! show and what their buttons do.

use guigym_ui::View;

use crate::state::DeviceState;

pub mod bank;
pub mod calendar;
pub mod clock;
pub mod contacts;
pub mod files;
pub mod food;
pub mod mail;
pub mod maps;
pub mod messages;
pub mod music;
pub mod notes;
pub mod reviews;
pub mod ride;
pub mod settings;
pub mod shop;
pub mod social;
pub mod train;

/// What the shell tells an app.
#[derive(Debug, Clone, PartialEq)]
pub enum UiEvent {
    /// A clickable node (button, item, tab, checkbox, switch) was tapped.
    Tap(String),
    /// A node was long-pressed.
    LongPress(String),
    /// A key was pressed with focus in this app (`enter`, `tab`…).
    Key(String),
}

pub struct App {
    pub name: &'static str,
    pub glyph: &'static str,
    pub color: [u8; 3],
    /// The route an app opens on.
    pub root: &'static str,
    /// The screen below the status bar for a route.
    pub view: fn(&DeviceState, &str) -> View,
    /// Applies an event on a route; returns feedback for the agent.
    pub handle: fn(&mut DeviceState, &str, &UiEvent) -> String,
}

/// Every app on the phone, in home-screen order.
pub const APPS: &[App] = &[
    contacts::APP,
    messages::APP,
    mail::APP,
    calendar::APP,
    notes::APP,
    files::APP,
    settings::APP,
    clock::APP,
    shop::APP,
    food::APP,
    ride::APP,
    train::APP,
    bank::APP,
    maps::APP,
    reviews::APP,
    social::APP,
    music::APP,
];

pub fn find(name: &str) -> Option<&'static App> {
    APPS.iter().find(|a| a.name.eq_ignore_ascii_case(name.trim()))
}

/// `contact:12` → `("contact", Some(12))`.
pub fn split_route(route: &str) -> (&str, Option<u32>) {
    match route.split_once(':') {
        Some((head, id)) => (head, id.parse().ok()),
        None => (route, None),
    }
}

/// `note:12` with prefix `note:` → `Some(12)`.
pub fn id_after(id: &str, prefix: &str) -> Option<u32> {
    id.strip_prefix(prefix).and_then(|n| n.parse().ok())
}

/// A screen with an app bar over `body`, and the app's dialog on top when one is open.
pub fn screen(title: &str, body: Vec<View>, dialog: Option<View>) -> View {
    let page = View::column(std::iter::once(View::app_bar(title)).chain(body));
    match dialog {
        Some(d) => View::stack([page, d]),
        None => page,
    }
}

/// A confirm dialog with Cancel and a danger button.
pub fn confirm(id: &str, title: &str, message: &str, ok_id: &str, ok_label: &str) -> View {
    View::dialog(id, title, [View::text(message), View::row([View::button("dialog_cancel", "Cancel"), View::danger_button(ok_id, ok_label)])])
}
