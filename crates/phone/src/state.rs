//! The whole state of a simulated phone: app data (what verifiers judge) and UI state (where
//! the user is). Plain serde data, so snapshot, restore, hash and diff come for free.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::time::Minutes;
use crate::world::World;

// Each app owns its data types (`apps::*`); they are named here too, where the state they
// make up is defined, so a verifier imports everything it judges from one place.
pub use crate::apps::bank::Transaction;
pub use crate::apps::calendar::Event;
pub use crate::apps::clock::{Alarm, Timer};
pub use crate::apps::contacts::Contact;
pub use crate::apps::files::FileEntry;
pub use crate::apps::food::Restaurant;
pub use crate::apps::mail::{Email, Folder};
pub use crate::apps::maps::{Place, SavedPlace};
pub use crate::apps::messages::{Message, Thread};
pub use crate::apps::music::{Player, Playlist, Song};
pub use crate::apps::notes::Note;
pub use crate::apps::reviews::Review;
pub use crate::apps::ride::Ride;
pub use crate::apps::settings::Settings;
pub use crate::apps::shop::{Line, Order, Product};
pub use crate::apps::social::{Comment, Post};
pub use crate::apps::train::Ticket;
pub use crate::apps::AppData;

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

/// App data shared by a task's initial state and every state reset from it, copied on the
/// first write: a reset or a new instance copies pointers, and an episode holds its own copy
/// only of the tables it changed. Reads go through `Deref`; a `&mut` borrow (`DerefMut`) takes
/// the copy, so code that changes a table reads as if it owned it.
#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Shared<T>(Arc<T>);

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared(Arc::new(value))
    }

    /// Whether both hold the same copy (then they are equal without a look inside).
    pub fn same_copy(&self, other: &Shared<T>) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> From<T> for Shared<T> {
    fn from(value: T) -> Shared<T> {
        Shared::new(value)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.0)
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Shared<T>) -> bool {
        self.same_copy(other) || *self.0 == *other.0
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
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
        let mut data = AppData::default();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_data_is_copied_on_first_write_and_travels_as_itself() {
        let mut initial: Shared<Table<String>> = Table::default().into();
        initial.insert("first".into());
        let mut a = initial.clone();
        let b = initial.clone();
        assert!(a.same_copy(&initial) && b.same_copy(&initial));
        // A read keeps the copy shared; a write makes one.
        assert_eq!(a.get(1).map(String::as_str), Some("first"));
        assert!(a.same_copy(&initial));
        a.insert("second".into());
        assert!(!a.same_copy(&initial));
        assert_eq!(initial.items.len(), 1);
        assert_eq!(b.items.len(), 1);
        assert_ne!(a, b);
        // Equal contents are equal whether or not they share a copy.
        let mut c = b.clone();
        c.get_mut(1).unwrap().push('!');
        c.get_mut(1).unwrap().pop();
        assert!(!c.same_copy(&b));
        assert_eq!(c, b);
        // The wire form is the table's own.
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, serde_json::to_string(&*a).unwrap());
        let back: Shared<Table<String>> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, a);
    }
}
