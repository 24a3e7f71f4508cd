//! Reviews: places with their average rating, the reviews of a place, writing a review
//! (stars required, a short text), and deleting one's own review behind a confirmation.

use guigym_ui::{TextStyle, View};

use super::{confirm, open_item, screen, split_route, App, UiEvent};
use crate::state::{AppData, DeviceState};
use crate::world::World;
use crate::world::WORLD_PLACES;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    pub place: String,
    pub author: String,
    pub stars: u32,
    pub text: String,
}

/// Reviews of the places, by people of the world.
pub fn install(w: &World, d: &mut AppData, rng: &mut Rng) {
    for (i, name) in WORLD_PLACES.iter().enumerate() {
        for k in 0..2 {
            d.reviews.insert(Review {
                place: name.to_string(),
                author: w.person(i + k * 5).name(),
                stars: rng.range(2, 5) as u32,
                text: ["Friendly staff.", "A bit noisy.", "Great spot.", "Would come again.", "Fine for meetings."][rng.below(5)].into(),
            });
        }
    }
}

pub const APP: App = App { name: "Reviews", icon: guigym_ui::Pictogram::Star, color: [202, 138, 4], root: "list", view, handle };

/// Average stars of a place, in tenths (35 = 3.5), and the number of reviews.
pub fn rating(s: &DeviceState, place: &str) -> (u32, usize) {
    let stars: Vec<u32> = s.data.reviews.iter().filter(|(_, r)| r.place == place).map(|(_, r)| r.stars).collect();
    if stars.is_empty() {
        return (0, 0);
    }
    let sum: u32 = stars.iter().sum();
    ((sum * 10 + stars.len() as u32 / 2) / stars.len() as u32, stars.len())
}

pub fn stars_text(tenths: u32) -> String {
    format!("{}.{}", tenths / 10, tenths % 10)
}

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("place", Some(id)) => {
            let Some(p) = s.data.places.get(id) else { return screen("Place", vec![], None) };
            let dialog = (s.ui.dialog.as_deref().is_some_and(|d| d.starts_with("delete:")))
                .then(|| confirm("delete_dialog", "Delete your review?", "It will be removed for everyone.", "confirm_delete", "Delete"));
            let (avg, n) = rating(s, &p.name);
            screen(
                &p.name,
                vec![
                    View::text(format!("★ {} · {n} reviews", stars_text(avg))).id("rating"),
                    View::list(
                        "reviews",
                        s.scroll("reviews"),
                        s.data
                            .reviews
                            .iter()
                            .filter(|(_, r)| r.place == p.name)
                            .map(|(rid, r)| View::item_with(format!("review:{rid}"), &r.author, &r.text, "★".repeat(r.stars as usize))),
                    ),
                    View::button("write", "Write a review"),
                ],
                dialog,
            )
        }
        ("write", Some(_)) => {
            let stars: u32 = s.field("stars").parse().unwrap_or(0);
            screen(
                "Your review",
                vec![
                    View::styled(format!("Stars: {stars}"), TextStyle::Caption),
                    View::row((1..=5).map(|k| View::button(format!("star:{k}"), format!("{} {k}", if k <= stars { "★" } else { "☆" })))),
                    View::multiline_field("text", s.field("text"), "What did you think?", focus == Some("text")),
                    View::button("post", "Post review"),
                ],
                None,
            )
        }
        _ => {
            let q = crate::normalize(s.field("search"));
            screen(
                "Reviews",
                vec![
                    View::field("search", s.field("search"), "Search places", focus == Some("search")),
                    View::list(
                        "places",
                        s.scroll("places"),
                        s.data.places.iter().filter(|(_, p)| q.is_empty() || crate::normalize(&p.name).contains(&q)).map(|(id, p)| {
                            let (avg, n) = rating(s, &p.name);
                            View::item_with(format!("place:{id}"), &p.name, format!("{n} reviews"), format!("★ {}", stars_text(avg))).picture(&p.name)
                        }),
                    ),
                ],
                None,
            )
        }
    }
}

pub fn write(s: &mut DeviceState, place: &str, stars: u32, text: &str) {
    let author = s.user_name.clone();
    s.data.reviews.insert(Review { place: place.to_string(), author, stars, text: text.to_string() });
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(opened) = open_item(s, id, &[("place:", "place", "opened place")]) {
        return opened;
    }
    let place = arg.and_then(|pid| s.data.places.get(pid)).map(|p| p.name.clone()).unwrap_or_default();
    match (screen, id.as_str()) {
        ("place", "write") => {
            s.push(format!("write:{}", arg.unwrap_or(0)));
            "review form".into()
        }
        ("place", r) if r.starts_with("review:") => {
            let rid: u32 = r.trim_start_matches("review:").parse().unwrap_or(0);
            if s.data.reviews.get(rid).is_some_and(|rv| rv.author == s.user_name) {
                s.ui.dialog = Some(format!("delete:{rid}"));
                return "asked to confirm deletion".into();
            }
            "only your own reviews can be changed".into()
        }
        ("place", "confirm_delete") => {
            if let Some(rid) = s.ui.dialog.take().and_then(|d| d.trim_start_matches("delete:").parse::<u32>().ok()) {
                s.data.reviews.items.remove(&rid);
            }
            "review deleted".into()
        }
        ("write", star) if star.starts_with("star:") => {
            s.ui.fields.insert("stars".into(), star.trim_start_matches("star:").to_string());
            format!("{} stars", star.trim_start_matches("star:"))
        }
        ("write", "post") => {
            let stars: u32 = s.field("stars").parse().unwrap_or(0);
            let text = s.field("text").trim().to_string();
            if stars == 0 {
                s.ui.toast = Some("Choose 1 to 5 stars".into());
                return "not posted: choose 1 to 5 stars".into();
            }
            if text.chars().count() < 3 {
                s.ui.toast = Some("Write a few words".into());
                return "not posted: write a few words".into();
            }
            write(s, &place, stars, &text);
            s.pop();
            "review posted".into()
        }
        _ => String::new(),
    }
}
