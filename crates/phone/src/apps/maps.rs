//! Maps: place search, place pages, directions by walking, transit or car, and saved
//! places with a label (saving asks which, removing asks to confirm).

use guigym_ui::{Kind, TextStyle, View};

use super::{confirm, open_item, screen, split_route, App, UiEvent};
use crate::state::{AppData, DeviceState, Table};
use crate::world::World;
use crate::world::WORLD_PLACES;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

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

const CATEGORIES: [&str; 10] = ["Meeting room", "Cafe", "Office", "Library", "Studio", "Park", "Hotel", "Meeting room", "Government", "Restaurant"];

const STREETS: [&str; 8] = ["Elm Street", "Harbour Road", "King's Avenue", "Mill Lane", "Station Square", "Park Row", "Oak Drive", "Bridge Street"];

/// Places: the world's meeting places, with addresses and travel times.
pub fn install(w: &World, d: &mut AppData, rng: &mut Rng) {
    let mut places = Table::default();
    for (i, name) in WORLD_PLACES.iter().enumerate() {
        let walk = rng.range(6, 45) as u32;
        places.insert(Place {
            name: name.to_string(),
            address: format!("{} {}", rng.range(2, 180), STREETS[(i + w.seed as usize) % STREETS.len()]),
            category: CATEGORIES[i].to_string(),
            walk_min: walk,
            transit_min: (walk / 2).max(4) + rng.range(0, 5) as u32,
            drive_min: (walk / 3).max(3) + rng.range(0, 3) as u32,
        });
    }
    d.places = std::sync::Arc::new(places);
    d.saved_places.insert(SavedPlace { place: WORLD_PLACES[(w.seed % 10) as usize].to_string(), label: "Work".into() });
}

pub const APP: App = App { name: "Maps", icon: guigym_ui::Pictogram::Pin, color: [34, 197, 94], root: "search", view, handle };

pub const LABELS: [&str; 3] = ["Home", "Work", "Favourite"];
pub const MODES: [&str; 3] = ["walk", "transit", "drive"];

fn saved_id(s: &DeviceState, place: &str) -> Option<u32> {
    s.data.saved_places.iter().find(|(_, p)| p.place == place).map(|(id, _)| id)
}

/// The world's map around a place (its streets drawn from the world's places, so each world has
/// its own town), maybe with the route to it.
fn map(s: &DeviceState, target: &str, route: bool, height: f32) -> View {
    let places: Vec<String> = s.data.places.iter().map(|(_, p)| p.name.clone()).collect();
    View::new(Kind::Map { key: places.join("|"), places, target: Some(target.to_string()), route, height })
}

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("place", Some(id)) => match s.data.places.get(id) {
            Some(p) => {
                let dialog = match s.ui.dialog.as_deref() {
                    Some("save") => Some(View::dialog(
                        "save_dialog",
                        "Save as",
                        LABELS.iter().map(|l| View::button(format!("label:{l}"), *l)).chain([View::button("dialog_cancel", "Cancel")]),
                    )),
                    Some("unsave") => Some(confirm("unsave_dialog", "Remove from saved?", &p.name, "confirm_unsave", "Remove")),
                    _ => None,
                };
                let saved = saved_id(s, &p.name).and_then(|i| s.data.saved_places.get(i));
                screen(
                    &p.name,
                    vec![
                        map(s, &p.name, false, 160.0),
                        View::text(&p.address).id("address"),
                        View::styled(&p.category, TextStyle::Caption),
                        View::text(saved.map(|sp| format!("Saved as {}", sp.label)).unwrap_or_else(|| "Not saved".into())).id("saved"),
                        View::row([
                            View::button("directions", "Directions"),
                            if saved.is_some() { View::button("unsave", "Unsave") } else { View::button("save", "Save") },
                        ]),
                    ],
                    dialog,
                )
            }
            None => screen("Place", vec![], None),
        },
        ("route", Some(id)) => {
            let Some(p) = s.data.places.get(id) else { return screen("Route", vec![], None) };
            let mode = MODES.iter().position(|m| *m == s.field("mode")).unwrap_or(0);
            let minutes = [p.walk_min, p.transit_min, p.drive_min][mode];
            screen(
                &format!("To {}", p.name),
                vec![
                    View::chips("modes", [("mode:walk", "Walk"), ("mode:transit", "Transit"), ("mode:drive", "Drive")], mode),
                    View::text(format!("{minutes} min by {}", MODES[mode])).id("duration"),
                    View::styled(format!("From your location to {}", p.address), TextStyle::Caption),
                    map(s, &p.name, true, 280.0),
                ],
                None,
            )
        }
        ("saved", _) => {
            let dialog =
                s.ui.dialog
                    .as_deref()
                    .and_then(|d| d.strip_prefix("remove:"))
                    .map(|_| confirm("remove_dialog", "Remove saved place?", "It will be removed from your list.", "confirm_remove", "Remove"));
            screen(
                "Saved places",
                vec![View::list(
                    "saved",
                    s.scroll("saved"),
                    s.data.saved_places.iter().map(|(id, sp)| View::item(format!("saved:{id}"), &sp.place, &sp.label)),
                )],
                dialog,
            )
        }
        _ => {
            let q = crate::normalize(s.field("search"));
            screen(
                "Maps",
                vec![
                    View::field("search", s.field("search"), "Search places", focus == Some("search")),
                    View::list(
                        "places",
                        s.scroll("places"),
                        s.data
                            .places
                            .iter()
                            .filter(|(_, p)| q.is_empty() || crate::normalize(&p.name).contains(&q) || crate::normalize(&p.category).contains(&q))
                            .map(|(id, p)| View::item(format!("place:{id}"), &p.name, format!("{} · {}", p.category, p.address))),
                    ),
                    View::button("saved", "Saved places"),
                ],
                None,
            )
        }
    }
}

pub fn save(s: &mut DeviceState, place: &str, label: &str) {
    s.data.saved_places.insert(SavedPlace { place: place.to_string(), label: label.to_string() });
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(opened) = open_item(s, id, &[("place:", "place", "opened place")]) {
        return opened;
    }
    let place = arg.and_then(|pid| s.data.places.get(pid)).map(|p| p.name.clone()).unwrap_or_default();
    match (screen, id.as_str()) {
        ("search", "saved") => {
            s.push("saved");
            "saved places".into()
        }
        ("place", "directions") => {
            s.push(format!("route:{}", arg.unwrap_or(0)));
            "directions".into()
        }
        ("place", "save") => {
            s.ui.dialog = Some("save".into());
            "choose a label".into()
        }
        ("place", "unsave") => {
            s.ui.dialog = Some("unsave".into());
            "asked to confirm".into()
        }
        ("place", label) if label.starts_with("label:") => {
            save(s, &place, label.trim_start_matches("label:"));
            s.ui.dialog = None;
            "place saved".into()
        }
        ("place", "confirm_unsave") => {
            if let Some(sid) = saved_id(s, &place) {
                s.data.saved_places.items.remove(&sid);
            }
            s.ui.dialog = None;
            "place removed".into()
        }
        ("route", mode) if mode.starts_with("mode:") => {
            s.ui.fields.insert("mode".into(), mode.trim_start_matches("mode:").to_string());
            format!("directions by {}", mode.trim_start_matches("mode:"))
        }
        ("saved", sp) if sp.starts_with("saved:") => {
            s.ui.dialog = Some(format!("remove:{}", sp.trim_start_matches("saved:")));
            "asked to confirm".into()
        }
        ("saved", "confirm_remove") => {
            if let Some(sid) = s.ui.dialog.take().and_then(|d| d.trim_start_matches("remove:").parse::<u32>().ok()) {
                s.data.saved_places.items.remove(&sid);
            }
            "place removed".into()
        }
        _ => String::new(),
    }
}
