//! Ride hailing: a destination (typed or picked from places), ride classes with prices, a
//! booking confirmation, and trips that can be cancelled while booked. Nothing real happens.

use guigym_core::Rng;
use guigym_ui::{TextStyle, View};

use super::{confirm, id_after, open_item, screen, split_route, App, UiEvent};
use crate::money;
use crate::state::{AppData, DeviceState};
use crate::time::Minutes;
use crate::time::DAY;
use crate::world::World;
use crate::world::WORLD_PLACES;
use serde::{Deserialize, Serialize};

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

/// A past ride.
pub fn install(w: &World, d: &mut AppData, rng: &mut Rng) {
    let past = WORLD_PLACES[rng.below(10)];
    d.rides.insert(Ride {
        pickup: "Current location".into(),
        destination: past.into(),
        class: "Standard".into(),
        price_cents: ride_price(past, "Standard"),
        status: "completed".into(),
        time: w.now - 2 * DAY,
    });
}

pub const APP: App = App { name: "Ride", icon: guigym_ui::Pictogram::Car, color: [17, 24, 39], root: "home", view, handle };

fn place_named(s: &DeviceState, name: &str) -> Option<u32> {
    let want = crate::normalize(name);
    s.data.places.iter().find(|(_, p)| crate::normalize(&p.name) == want).map(|(id, _)| id)
}

fn view(s: &DeviceState, route: &str) -> View {
    match split_route(route) {
        ("options", Some(pid)) => {
            let Some(p) = s.data.places.get(pid) else { return screen("Ride", vec![View::text("Unknown place.")], None) };
            let dialog = s.ui.dialog.as_deref().and_then(|d| d.strip_prefix("book:")).map(|class| {
                confirm("book_dialog", "Book this ride?", &format!("{class} to {} for {}.", p.name, money(ride_price(&p.name, class))), "confirm_ride", "Book")
            });
            screen(
                &format!("To {}", p.name),
                vec![
                    View::styled(&p.address, TextStyle::Caption),
                    View::list(
                        "classes",
                        0,
                        RIDE_CLASSES.iter().map(|(c, _)| View::item_with(format!("class:{c}"), *c, "Pickup in 4 min", money(ride_price(&p.name, c))).card()),
                    ),
                ],
                dialog,
            )
        }
        ("trips", _) => screen(
            "Your trips",
            vec![View::list(
                "rides",
                s.scroll("rides"),
                s.data
                    .rides
                    .iter()
                    .map(|(id, r)| View::item_with(format!("ride:{id}"), format!("{} to {}", r.class, r.destination), &r.status, money(r.price_cents))),
            )],
            None,
        ),
        ("ride", Some(id)) => match s.data.rides.get(id) {
            Some(r) => {
                let dialog = (s.ui.dialog.as_deref() == Some("cancel"))
                    .then(|| confirm("cancel_dialog", "Cancel ride?", "Your driver will be told.", "confirm_cancel", "Cancel ride"));
                let mut body = vec![
                    View::text(format!("From {} to {}", r.pickup, r.destination)),
                    View::text(format!("{} · {} · {}", r.class, money(r.price_cents), r.status)).id("status"),
                ];
                if r.status == "booked" {
                    body.push(View::danger_button("cancel", "Cancel ride"));
                }
                screen("Trip", body, dialog)
            }
            None => screen("Trip", vec![View::text("No such trip.")], None),
        },
        _ => {
            let q = crate::normalize(s.field("destination"));
            screen(
                "Where to?",
                vec![
                    View::field("destination", s.field("destination"), "Destination", s.ui.focus.as_deref() == Some("destination")),
                    View::list(
                        "places",
                        s.scroll("places"),
                        s.data
                            .places
                            .iter()
                            .filter(|(_, p)| q.is_empty() || crate::normalize(&p.name).contains(&q))
                            .map(|(id, p)| View::item(format!("dest:{id}"), &p.name, &p.address)),
                    ),
                    View::row([View::button("search_rides", "See rides"), View::button("trips", "Trips")]),
                ],
                None,
            )
        }
    }
}

pub fn book(s: &mut DeviceState, destination: &str, class: &str) -> u32 {
    let time = s.now();
    s.data.rides.insert(Ride {
        pickup: "Current location".into(),
        destination: destination.to_string(),
        class: class.to_string(),
        price_cents: ride_price(destination, class),
        status: "booked".into(),
        time,
    })
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(pid) = id_after(id, "dest:") {
        let name = s.data.places.get(pid).map(|p| p.name.clone()).unwrap_or_default();
        s.ui.fields.insert("destination".into(), name.clone());
        return format!("destination {name}");
    }
    if let Some(opened) = open_item(s, id, &[("ride:", "ride", "opened trip")]) {
        return opened;
    }
    match (screen, id.as_str()) {
        ("home", "search_rides") => match place_named(s, s.field("destination")) {
            Some(pid) => {
                s.push(format!("options:{pid}"));
                "ride options".into()
            }
            None => {
                s.ui.toast = Some("Pick a destination from the list".into());
                "no rides: pick a destination from the list".into()
            }
        },
        ("home", "trips") => {
            s.push("trips");
            "trips".into()
        }
        ("options", class) if class.starts_with("class:") => {
            s.ui.dialog = Some(format!("book:{}", class.trim_start_matches("class:")));
            "asked to confirm".into()
        }
        ("options", "confirm_ride") => {
            let class = s.ui.dialog.take().and_then(|d| d.strip_prefix("book:").map(str::to_string)).unwrap_or_default();
            let Some(dest) = arg.and_then(|pid| s.data.places.get(pid)).map(|p| p.name.clone()) else { return String::new() };
            let rid = book(s, &dest, &class);
            // The trip, above the trips list, above the app's home: Back leads to the list and
            // then to booking again (not out of the app).
            s.reset_to("home");
            s.push("trips");
            s.push(format!("ride:{rid}"));
            "ride booked".into()
        }
        ("ride", "cancel") => {
            s.ui.dialog = Some("cancel".into());
            "asked to confirm".into()
        }
        ("ride", "confirm_cancel") => {
            if let Some(r) = arg.and_then(|rid| s.data.rides.get_mut(rid)) {
                r.status = "cancelled".into();
            }
            s.ui.dialog = None;
            "ride cancelled".into()
        }
        _ => String::new(),
    }
}

/// Ride classes and their price factors (percent of Standard).
pub const RIDE_CLASSES: [(&str, i64); 3] = [("Standard", 100), ("Comfort", 135), ("XL", 170)];

/// A ride's price to a destination in a class.
pub fn ride_price(destination: &str, class: &str) -> i64 {
    let base = 600 + (Rng::derive(0, destination).next_u64() % 1800) as i64;
    let factor = RIDE_CLASSES.iter().find(|(c, _)| *c == class).map(|(_, f)| *f).unwrap_or(100);
    (base * factor / 100 / 5) * 5
}
