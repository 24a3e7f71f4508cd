//! Installing a world into the apps beyond the four core ones (catalogues, the user's records)
//! and drawing the world's look. Each app's installer lives in its own module and is listed in
//! `apps::INSTALLERS`; this module runs them, each with its own random stream.

use guigym_core::Rng;

use crate::apps::INSTALLERS;
use crate::state::{AppData, Look};
use crate::world::World;

/// Fills the apps beyond the four core ones (and adds the mail and messages that tie them to
/// the world): each app's installer in turn, each drawing from its own random stream (derived
/// from the world's seed and the app's name), so adding an app, or changing how one app is
/// filled, never changes another app's data in any world.
pub fn every_app(w: &World, d: &mut AppData) {
    install_with(w, d, INSTALLERS);
}

/// Runs installers in order, each with its app's own random stream.
pub fn install_with(w: &World, d: &mut AppData, installers: &[(&str, Installer)]) {
    for (app, install) in installers {
        install(w, d, &mut Rng::derive(w.seed, &format!("install:{app}")));
    }
}

/// An app's installer: it fills its part of the data from the world, drawing from `rng`.
pub type Installer = fn(&World, &mut AppData, &mut Rng);

/// The world's look: theme, zoom, list order, ads and which apps greet with a pop-up.
pub fn look(w: &World) -> Look {
    let mut rng = Rng::derive(w.seed, "look");
    // Each app's pop-up is its own draw: a new app changes no other app's.
    let popups = crate::apps::APPS.iter().filter(|a| Rng::derive(w.seed, &format!("popup:{}", a.name)).chance(0.15)).map(|a| a.name.to_string()).collect();
    Look {
        theme: rng.below(guigym_ui::Theme::variants().len()),
        zoom_pct: *rng.pick(&[90, 100, 100, 115, 130]),
        reversed_lists: rng.chance(0.3),
        ads: rng.chance(0.3),
        popups,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::ride::ride_price;
    use crate::apps::train::{station_index, timetable};
    use crate::state::DeviceState;
    use crate::time::DAY;

    #[test]
    fn one_seed_gives_the_same_phone_and_seeds_differ() {
        let a = DeviceState::from_world(&World::generate(11));
        assert_eq!(a, DeviceState::from_world(&World::generate(11)));
        let b = DeviceState::from_world(&World::generate(12));
        assert_ne!(a.data, b.data);
        // Every app has something in it.
        let d = &a.data;
        let counts = [
            d.notes.items.len(),
            d.files.items.len(),
            d.alarms.items.len(),
            d.products.items.len(),
            d.orders.items.len(),
            d.restaurants.items.len(),
            d.rides.items.len(),
            d.tickets.items.len(),
            d.transactions.items.len(),
            d.places.items.len(),
            d.reviews.items.len(),
            d.posts.items.len(),
            d.songs.items.len(),
            d.playlists.items.len(),
        ];
        assert!(counts.iter().all(|n| *n > 0), "{counts:?}");
    }

    #[test]
    fn the_same_facts_recur_across_apps() {
        for seed in 0..30 {
            let w = World::generate(seed);
            let s = DeviceState::from_world(&w);
            // The trip in the mail is to a city the train app serves.
            let mail = s.data.emails.iter().find(|(_, e)| e.subject == "Travel plan").map(|(_, e)| e.body.clone()).unwrap();
            assert!(mail.contains(&w.trip_city) && mail.contains(&crate::time::date_iso(w.trip_day)));
            assert!(station_index(&w.trip_city).is_some());
            // Each debt is asked for by its person in Messages.
            for debt in &w.debts {
                let p = w.person(debt.with);
                let t = s.data.threads.iter().find(|(_, t)| t.phone == p.phone).map(|(_, t)| t).unwrap();
                assert!(t.messages.iter().any(|m| m.text.contains(&crate::money(debt.cents))));
            }
            // Meeting places are places on the map, reviewed by people of the world.
            for e in s.data.events.items.values() {
                assert!(s.data.places.iter().any(|(_, p)| p.name == e.location), "{}", e.location);
            }
            let people: Vec<String> = w.people.iter().map(|p| p.name()).collect();
            assert!(s.data.reviews.items.values().all(|r| people.contains(&r.author)));
            assert!(s.data.transactions.items.values().all(|t| people.contains(&t.counterparty)));
        }
    }

    #[test]
    fn timetables_and_prices_are_pure() {
        let day = crate::time::days_from_civil(2026, 5, 4) * DAY;
        assert_eq!(timetable("Northport", "Ashford", day), timetable("Northport", "Ashford", day + 600));
        assert_ne!(timetable("Northport", "Ashford", day), timetable("Northport", "Ashford", day + DAY));
        assert!(timetable("Northport", "Northport", day).is_empty());
        assert!(timetable("Northport", "Paris", day).is_empty());
        assert!(ride_price("Cafe Lumen", "XL") > ride_price("Cafe Lumen", "Standard"));
    }
}
