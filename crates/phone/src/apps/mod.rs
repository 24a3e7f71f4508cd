//! The mocked apps. Each app is one module that owns its data types, its installer (how a
//! world fills it, from the app's own random stream) and a pair of pure functions over the
//! device state: `view` draws the current route, `handle` reacts to a UI event. Navigation,
//! form fields, focus and scrolling are the shell's (see `crate::shell`), so an app only says
//! what its screens show and what their buttons do. This file is the registry: adding an app
//! is its module plus its lines here (`mod`, `APPS`, `INSTALLERS`, its fields of `AppData`).

use std::sync::Arc;

use guigym_ui::View;
use serde::{Deserialize, Serialize};

use crate::install::Installer;
use crate::state::{DeviceState, Shared, Table};

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
    pub icon: guigym_ui::Pictogram,
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

/// Every app's installer, by app. Run in this order (mail last: it
/// ties the other apps' records to the world); each draws from its own random stream.
pub const INSTALLERS: &[(&str, Installer)] = &[
    ("maps", maps::install),
    ("notes", notes::install),
    ("files", files::install),
    ("settings", settings::install),
    ("clock", clock::install),
    ("shop", shop::install),
    ("food", food::install),
    ("ride", ride::install),
    ("train", train::install),
    ("bank", bank::install),
    ("reviews", reviews::install),
    ("social", social::install),
    ("music", music::install),
    ("mail", mail::install),
];

/// Everything a verifier judges.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AppData {
    pub contacts: Shared<Table<contacts::Contact>>,
    pub threads: Shared<Table<messages::Thread>>,
    pub emails: Shared<Table<mail::Email>>,
    pub events: Shared<Table<calendar::Event>>,
    pub notes: Shared<Table<notes::Note>>,
    pub files: Shared<Table<files::FileEntry>>,
    pub settings: settings::Settings,
    pub alarms: Shared<Table<clock::Alarm>>,
    pub timers: Shared<Table<clock::Timer>>,
    /// Catalogues (products, menus, places, songs) never change in an episode: shared, so a
    /// reset or a new instance copies a pointer, not the catalogue.
    pub products: Arc<Table<shop::Product>>,
    /// The shop's cart: leaving something in it changes nothing in the world.
    pub cart: Vec<shop::Line>,
    pub orders: Shared<Table<shop::Order>>,
    pub restaurants: Arc<Table<food::Restaurant>>,
    pub basket: Vec<shop::Line>,
    pub basket_restaurant: Option<u32>,
    pub food_orders: Shared<Table<shop::Order>>,
    pub rides: Shared<Table<ride::Ride>>,
    pub tickets: Shared<Table<train::Ticket>>,
    /// People the train app may book for (the user first).
    pub passengers: Vec<String>,
    pub balance_cents: i64,
    pub transactions: Shared<Table<bank::Transaction>>,
    pub places: Arc<Table<maps::Place>>,
    pub saved_places: Shared<Table<maps::SavedPlace>>,
    pub reviews: Shared<Table<reviews::Review>>,
    pub posts: Shared<Table<social::Post>>,
    pub songs: Arc<Table<music::Song>>,
    pub playlists: Shared<Table<music::Playlist>>,
    pub player: music::Player,
}

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

/// A tap on a list item opens that item's screen: for the first `(id prefix, route, feedback)`
/// whose prefix the tapped id has, followed by a number N, pushes `route:N` and returns the
/// feedback. `None` when the tap is on no such item.
pub fn open_item(s: &mut DeviceState, id: &str, opens: &[(&str, &str, &str)]) -> Option<String> {
    opens.iter().find_map(|(prefix, route, feedback)| {
        let n = id_after(id, prefix)?;
        s.push(format!("{route}:{n}"));
        Some(feedback.to_string())
    })
}

/// A screen with an app bar over `body`, and the app's dialog on top when one is open.
pub fn screen(title: &str, body: Vec<View>, dialog: Option<View>) -> View {
    let page = View::column(std::iter::once(View::app_bar(title)).chain(body));
    match dialog {
        Some(d) => View::stack([page, d]),
        None => page,
    }
}

/// A thing's picture heading its page, `height` dp tall: the picture its list row shows, larger.
/// A decoration (no description): the page's title names the thing.
pub fn photo(name: &str, height: f32) -> View {
    let side = height - 16.0;
    let scene = guigym_ui::icons::picture_sized(name, side)
        .into_iter()
        .map(|(points, rgb)| (points.into_iter().map(|(x, y)| (x + 16.0, y + 8.0)).collect(), rgb))
        .collect();
    View::image("", height, scene)
}

/// A confirm dialog with Cancel and a danger button.
pub fn confirm(id: &str, title: &str, message: &str, ok_id: &str, ok_label: &str) -> View {
    View::dialog(id, title, [View::text(message), View::row([View::button("dialog_cancel", "Cancel"), View::danger_button(ok_id, ok_label)])])
}
