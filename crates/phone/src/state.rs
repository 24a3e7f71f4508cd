//! The whole state of a simulated phone: app data (what verifiers judge) and UI state (where
//! the user is). Plain serde data, so snapshot, restore, hash and diff come for free.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::time::Minutes;
use crate::world::World;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    pub name: String,
    pub phone: String,
    pub email: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub from_me: bool,
    pub text: String,
    pub time: Minutes,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    /// Display name (a contact's name, or the raw number).
    pub name: String,
    pub phone: String,
    pub messages: Vec<Message>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Folder {
    Inbox,
    Sent,
    Trash,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Email {
    pub from_name: String,
    pub from: String,
    pub to: String,
    pub subject: String,
    pub body: String,
    pub time: Minutes,
    pub folder: Folder,
    pub read: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub title: String,
    pub start: Minutes,
    pub duration_min: i64,
    pub location: String,
}

/// A collection keyed by stable ids, so a diff names the item that changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table<T> {
    pub next_id: u32,
    pub items: BTreeMap<u32, T>,
}

impl<T> Default for Table<T> {
    fn default() -> Table<T> {
        Table { next_id: 1, items: BTreeMap::new() }
    }
}

impl<T> Table<T> {
    pub fn insert(&mut self, item: T) -> u32 {
        let id = self.next_id;
        self.items.insert(id, item);
        self.next_id += 1;
        id
    }

    pub fn get(&self, id: u32) -> Option<&T> {
        self.items.get(&id)
    }

    pub fn get_mut(&mut self, id: u32) -> Option<&mut T> {
        self.items.get_mut(&id)
    }

    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.items.iter().map(|(k, v)| (*k, v))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub title: String,
    pub body: String,
    pub pinned: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    pub name: String,
    pub folder: String,
    pub size_kb: u32,
    pub starred: bool,
}

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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alarm {
    pub minute_of_day: i64,
    pub label: String,
    pub enabled: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timer {
    pub minutes: u32,
    pub label: String,
}

/// Something for sale (shop) or on a menu (food delivery).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Product {
    pub name: String,
    pub category: String,
    pub price_cents: i64,
}

/// One line of a cart, basket or order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub item: String,
    pub qty: u32,
    pub price_cents: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub number: String,
    /// The shop, or the restaurant for food orders.
    pub seller: String,
    pub lines: Vec<Line>,
    pub total_cents: i64,
    pub address: String,
    /// `placed`, `delivered`, `return requested`, `cancelled`.
    pub status: String,
    pub time: Minutes,
    /// Why a return was requested (one of `shop::RETURN_REASONS`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub return_reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Restaurant {
    pub name: String,
    pub cuisine: String,
    pub menu: Vec<Product>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ride {
    pub pickup: String,
    pub destination: String,
    /// `Standard`, `Comfort`, `XL`.
    pub class: String,
    pub price_cents: i64,
    /// `booked`, `cancelled`, `completed`.
    pub status: String,
    pub time: Minutes,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ticket {
    pub train: String,
    pub from: String,
    pub to: String,
    pub depart: Minutes,
    /// `Second`, `First`, `Business`.
    pub class: String,
    pub passengers: Vec<String>,
    pub price_cents: i64,
    /// `paid`, `refunded`.
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transaction {
    pub counterparty: String,
    /// Negative when money leaves the account.
    pub amount_cents: i64,
    pub note: String,
    pub time: Minutes,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Place {
    pub name: String,
    pub address: String,
    pub category: String,
    /// Walking, transit and driving times in minutes.
    pub walk_min: u32,
    pub transit_min: u32,
    pub drive_min: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedPlace {
    pub place: String,
    /// `Home`, `Work`, `Favourite`.
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    pub place: String,
    pub author: String,
    pub stars: u32,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comment {
    pub author: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Post {
    pub author: String,
    pub text: String,
    pub likes: u32,
    pub liked: bool,
    pub comments: Vec<Comment>,
    pub time: Minutes,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Song {
    pub title: String,
    pub artist: String,
    pub seconds: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Playlist {
    pub name: String,
    /// Song ids, in play order.
    pub songs: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Player {
    pub song: Option<u32>,
    pub playing: bool,
    pub shuffle: bool,
}

/// Everything a verifier judges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppData {
    pub contacts: Table<Contact>,
    pub threads: Table<Thread>,
    pub emails: Table<Email>,
    pub events: Table<Event>,
    pub notes: Table<Note>,
    pub files: Table<FileEntry>,
    pub settings: Settings,
    pub alarms: Table<Alarm>,
    pub timers: Table<Timer>,
    /// Catalogues (products, menus, places, songs) never change in an episode: shared, so a
    /// reset or a new instance copies a pointer, not the catalogue.
    pub products: Arc<Table<Product>>,
    /// The shop's cart: leaving something in it changes nothing in the world.
    pub cart: Vec<Line>,
    pub orders: Table<Order>,
    pub restaurants: Arc<Table<Restaurant>>,
    pub basket: Vec<Line>,
    pub basket_restaurant: Option<u32>,
    pub food_orders: Table<Order>,
    pub rides: Table<Ride>,
    pub tickets: Table<Ticket>,
    /// People the train app may book for (the user first).
    pub passengers: Vec<String>,
    pub balance_cents: i64,
    pub transactions: Table<Transaction>,
    pub places: Arc<Table<Place>>,
    pub saved_places: Table<SavedPlace>,
    pub reviews: Table<Review>,
    pub posts: Table<Post>,
    pub songs: Arc<Table<Song>>,
    pub playlists: Table<Playlist>,
    pub player: Player,
}

/// How a world's phone looks: theme, text size, list order, ads and pop-ups. Varies per
/// world seed so that an agent cannot pass by remembering one screen.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Look {
    /// Index into `guigym_ui::Theme::variants`.
    pub theme: usize,
    /// Display zoom in percent (100 = default text and widget size).
    pub zoom_pct: u32,
    /// Lists sorted newest (or last) first instead of oldest (or first) first.
    pub reversed_lists: bool,
    /// A sponsored banner at the top of list screens.
    pub ads: bool,
    /// Apps that show a pop-up the first time they are opened, until it is dismissed.
    pub popups: Vec<String>,
}

/// Where the user is: foreground app, navigation, form fields, focus, scroll, dialogs.
/// Verifiers ignore it; resets restore it with the rest.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UiState {
    pub foreground: Option<String>,
    /// Per app, its stack of routes (`list`, `contact:3`, `edit:3`); the top is shown.
    pub routes: BTreeMap<String, Vec<String>>,
    /// Text field values of the current screen, by field id.
    pub fields: BTreeMap<String, String>,
    pub focus: Option<String>,
    /// Scroll offsets in dp of the current screen's lists, by list id.
    pub scroll: BTreeMap<String, i32>,
    /// The open dialog of the foreground app, if any.
    pub dialog: Option<String>,
    /// A transient message shown at the bottom (validation errors, confirmations).
    pub toast: Option<String>,
    #[serde(default)]
    pub look: Look,
    /// A dialog of the device itself over any app: a pop-up (`popup:Notes`) or an ad (`ad`).
    #[serde(default)]
    pub overlay: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceState {
    /// Virtual clock in milliseconds since the epoch.
    pub clock_ms: i64,
    pub user_name: String,
    pub user_email: String,
    pub data: AppData,
    pub ui: UiState,
}

impl DeviceState {
    pub fn now(&self) -> Minutes {
        self.clock_ms.div_euclid(60_000)
    }

    /// Installs a world: contacts, message threads, mail and calendar, all from its facts.
    pub fn from_world(w: &World) -> DeviceState {
        let mut data = crate::install::empty_data();
        let mut people: Vec<&crate::world::Person> = w.people.iter().collect();
        people.sort_by_key(|p| p.name());
        for p in &people {
            data.contacts.insert(Contact { name: p.name(), phone: p.phone.clone(), email: p.email.clone() });
        }
        for h in &w.happenings {
            if h.in_calendar {
                data.events.insert(Event { title: h.topic.clone(), start: h.start, duration_min: h.duration_min, location: h.place.clone() });
            }
        }
        // Mail: each happening is announced by the person it is with; older mail first.
        for (i, h) in w.happenings.iter().enumerate() {
            let who = w.person(h.with);
            data.emails.insert(Email {
                from_name: who.name(),
                from: who.email.clone(),
                to: w.user.email.clone(),
                subject: capitalize(&h.topic),
                body: format!(
                    "Hi {},\n\nLet's do the {} on {} at {} at {}. It should take about {} minutes.\n\nBest,\n{}",
                    w.user.first,
                    h.topic,
                    crate::time::date_human(h.start),
                    crate::time::time_hm(h.start),
                    h.place,
                    h.duration_min,
                    who.first
                ),
                // Spread over the last days, newest first.
                time: w.now - 40 - i as i64 * 11 * 60,
                folder: Folder::Inbox,
                read: i % 3 == 0,
            });
        }
        // Messages: short chats with the first few people about the scenario.
        for (i, p) in w.people.iter().take(4).enumerate() {
            let t = w.now - (i as i64 + 1) * 240;
            data.threads.insert(Thread {
                name: p.name(),
                phone: p.phone.clone(),
                messages: vec![
                    Message { from_me: false, text: format!("Any news about the {}?", w.scenario.name()), time: t },
                    Message { from_me: true, text: "Working on it, will let you know.".into(), time: t + 7 },
                ],
            });
        }
        crate::install::every_app(w, &mut data);
        DeviceState {
            clock_ms: w.now * 60_000,
            user_name: w.user.name(),
            user_email: w.user.email.clone(),
            data,
            ui: UiState { look: crate::install::look(w), ..UiState::default() },
        }
    }

    /// The value typed into a field of the current screen.
    pub fn field(&self, id: &str) -> &str {
        self.ui.fields.get(id).map(String::as_str).unwrap_or("")
    }

    pub fn scroll(&self, list: &str) -> i32 {
        self.ui.scroll.get(list).copied().unwrap_or(0)
    }

    /// The route shown for an app (its default when it was never opened).
    pub fn route(&self, app: &str) -> Option<&str> {
        self.ui.routes.get(app).and_then(|r| r.last()).map(String::as_str)
    }

    /// Leaves the current screen's transient UI (fields, focus, scroll, dialog) behind.
    pub fn clear_screen(&mut self) {
        self.ui.fields.clear();
        self.ui.focus = None;
        self.ui.scroll.clear();
        self.ui.dialog = None;
    }

    /// Opens a new screen in the foreground app.
    pub fn push(&mut self, route: impl Into<String>) {
        self.clear_screen();
        if let Some(app) = self.ui.foreground.clone() {
            self.ui.routes.entry(app).or_default().push(route.into());
        }
    }

    /// Replaces the foreground app's whole stack with one route.
    pub fn reset_to(&mut self, route: impl Into<String>) {
        self.clear_screen();
        if let Some(app) = self.ui.foreground.clone() {
            self.ui.routes.insert(app, vec![route.into()]);
        }
    }

    /// Goes back one screen; false when already at the app's root.
    pub fn pop(&mut self) -> bool {
        let Some(app) = self.ui.foreground.clone() else { return false };
        let stack = self.ui.routes.entry(app).or_default();
        if stack.len() > 1 {
            stack.pop();
            self.clear_screen();
            true
        } else {
            false
        }
    }

    /// Finds a contact by name, case-insensitively.
    pub fn contact_named(&self, name: &str) -> Option<(u32, &Contact)> {
        let want = crate::normalize(name);
        self.data.contacts.iter().find(|(_, c)| crate::normalize(&c.name) == want)
    }
}

pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
