//! Installing a world into the apps beyond the four core ones: catalogues (products, menus,
//! songs, places), the user's records (notes, files, orders, tickets, payments) and the
//! world's look. Every record is drawn from the world's facts, so the same people, places,
//! dates and amounts recur from app to app.

use guigym_core::Rng;

use crate::apps::ride::ride_price;
use crate::apps::train::{fare, timetable};
use crate::state::*;
use crate::time::{self, DAY};
use crate::world::{World, STATIONS, WORLD_PLACES};

pub const PRODUCTS: [(&str, &str, i64); 24] = [
    ("USB-C charger", "Electronics", 1999),
    ("Wireless earbuds", "Electronics", 4999),
    ("Phone case", "Electronics", 1299),
    ("Power bank", "Electronics", 2999),
    ("HDMI cable", "Electronics", 899),
    ("Desk lamp", "Home", 3499),
    ("Coffee mugs (set of 4)", "Home", 2499),
    ("Bath towel", "Home", 1599),
    ("Scented candle", "Home", 1199),
    ("Storage boxes", "Home", 2199),
    ("Packing tape", "Home", 499),
    ("Moving boxes (10)", "Home", 2999),
    ("Notebook", "Office", 599),
    ("Gel pens (12)", "Office", 899),
    ("Laptop stand", "Office", 3999),
    ("Travel adapter", "Travel", 1799),
    ("Luggage tag", "Travel", 699),
    ("Neck pillow", "Travel", 1499),
    ("Water bottle", "Sports", 1299),
    ("Yoga mat", "Sports", 2599),
    ("Running socks", "Sports", 999),
    ("Board game", "Toys", 3299),
    ("Birthday candles", "Party", 399),
    ("Gift wrap", "Party", 599),
];

/// Name, cuisine, and a menu of dishes with prices in cents.
type RestaurantSpec = (&'static str, &'static str, [(&'static str, i64); 4]);

const RESTAURANTS: [RestaurantSpec; 6] = [
    ("Luigi's Pizza", "Italian", [("Margherita", 1100), ("Pepperoni", 1350), ("Garlic bread", 500), ("Tiramisu", 650)]),
    ("Sakura Sushi", "Japanese", [("Salmon roll", 900), ("Miso soup", 350), ("Bento box", 1550), ("Edamame", 450)]),
    ("Green Bowl", "Salads", [("Caesar salad", 950), ("Quinoa bowl", 1150), ("Falafel wrap", 850), ("Lemonade", 350)]),
    ("Burger Barn", "American", [("Cheeseburger", 1050), ("Veggie burger", 1000), ("Fries", 400), ("Milkshake", 550)]),
    ("Spice Route", "Indian", [("Chicken curry", 1300), ("Dal", 900), ("Naan", 300), ("Mango lassi", 450)]),
    ("Taco Stand", "Mexican", [("Beef tacos", 950), ("Burrito", 1150), ("Nachos", 750), ("Churros", 500)]),
];

const SONGS: [(&str, &str); 24] = [
    ("Morning Light", "The Harbor Lights"),
    ("Paper Boats", "The Harbor Lights"),
    ("City Rain", "Nova Lane"),
    ("Echoes", "Nova Lane"),
    ("Golden Hour", "Nova Lane"),
    ("Slow River", "Ada Quill"),
    ("Northern Sky", "Ada Quill"),
    ("Runaway Train", "The Wires"),
    ("Static", "The Wires"),
    ("Blue Hours", "Mara Sol"),
    ("Salt and Honey", "Mara Sol"),
    ("Open Roads", "Jonah Fields"),
    ("Campfire", "Jonah Fields"),
    ("Neon Dreams", "Pixel Hearts"),
    ("Arcade", "Pixel Hearts"),
    ("Quiet Storm", "Lena Marsh"),
    ("Willow", "Lena Marsh"),
    ("First Snow", "The Cold Season"),
    ("Lanterns", "The Cold Season"),
    ("Satellite", "Orbit Club"),
    ("Gravity", "Orbit Club"),
    ("Sunday Best", "Ruby Gray"),
    ("Midnight Bus", "Ruby Gray"),
    ("Long Way Home", "Ruby Gray"),
];

const CATEGORIES: [&str; 10] = ["Meeting room", "Cafe", "Office", "Library", "Studio", "Park", "Hotel", "Meeting room", "Government", "Restaurant"];
const STREETS: [&str; 8] = ["Elm Street", "Harbour Road", "King's Avenue", "Mill Lane", "Station Square", "Park Row", "Oak Drive", "Bridge Street"];
const FOLDERS: [&str; 3] = ["Documents", "Downloads", "Pictures"];

/// Every table empty, settings at factory defaults.
pub fn empty_data() -> AppData {
    AppData {
        contacts: Table::default(),
        threads: Table::default(),
        emails: Table::default(),
        events: Table::default(),
        notes: Table::default(),
        files: Table::default(),
        settings: Settings {
            wifi: true,
            bluetooth: false,
            airplane_mode: false,
            do_not_disturb: false,
            dark_mode: false,
            brightness: 60,
            language: "English".into(),
        },
        alarms: Table::default(),
        timers: Table::default(),
        products: Default::default(),
        cart: Vec::new(),
        orders: Table::default(),
        restaurants: Default::default(),
        basket: Vec::new(),
        basket_restaurant: None,
        food_orders: Table::default(),
        rides: Table::default(),
        tickets: Table::default(),
        passengers: Vec::new(),
        balance_cents: 0,
        transactions: Table::default(),
        places: Default::default(),
        saved_places: Table::default(),
        reviews: Table::default(),
        posts: Table::default(),
        songs: Default::default(),
        playlists: Table::default(),
        player: Player::default(),
    }
}

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

/// Every app's installer, by app. Adding an app is one line here (and its function).
pub const INSTALLERS: &[(&str, Installer)] = &[
    ("maps", maps),
    ("notes", notes),
    ("files", files),
    ("settings", settings),
    ("clock", clock),
    ("shop", shop),
    ("food", food),
    ("ride", ride),
    ("train", train),
    ("bank", bank),
    ("reviews", reviews),
    ("social", social),
    ("music", music),
    ("mail", mail_and_messages),
];

fn person(w: &World, i: usize) -> String {
    w.person(i).name()
}

/// Places: the world's meeting places, with addresses and travel times.
fn maps(w: &World, d: &mut AppData, rng: &mut Rng) {
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

/// Notes: codes for places, a list for the scenario, an idea per person.
fn notes(w: &World, d: &mut AppData, _rng: &mut Rng) {
    for (place, code) in &w.codes {
        d.notes.insert(Note { title: format!("Code for {place}"), body: format!("The door code for {place} is {code}."), pinned: false });
    }
    d.notes.insert(Note {
        title: format!("{} checklist", capitalize(w.scenario.name())),
        body: w.happenings.iter().take(3).map(|h| format!("- {}", h.topic)).collect::<Vec<_>>().join("\n"),
        pinned: true,
    });
    d.notes.insert(Note { title: format!("Gift idea for {}", w.person(2).first), body: "A board game or a scented candle.".into(), pinned: false });
}

/// Files: documents of the scenario and a few downloads and pictures.
fn files(w: &World, d: &mut AppData, rng: &mut Rng) {
    let files = [
        (format!("{} plan.pdf", capitalize(w.scenario.name())), 0),
        (format!("Invoice {}.pdf", rng.range(1000, 9999)), 0),
        ("CV.docx".to_string(), 0),
        (format!("Ticket {}.pdf", w.trip_city), 1),
        ("setup.zip".to_string(), 1),
        ("Menu Luigi's.pdf".to_string(), 1),
        (format!("IMG_{}.jpg", rng.range(1000, 4999)), 2),
        (format!("IMG_{}.jpg", rng.range(5000, 9999)), 2),
        ("Screenshot.png".to_string(), 2),
    ];
    for (name, folder) in files {
        d.files.insert(FileEntry { name, folder: FOLDERS[folder].to_string(), size_kb: rng.range(12, 4800) as u32, starred: false });
    }
}

fn settings(_w: &World, d: &mut AppData, rng: &mut Rng) {
    d.settings.brightness = rng.range(3, 9) as u32 * 10;
    d.settings.bluetooth = rng.chance(0.5);
}

fn clock(_w: &World, d: &mut AppData, rng: &mut Rng) {
    d.alarms.insert(Alarm { minute_of_day: 7 * 60 + rng.range(0, 3) * 15, label: "Wake up".into(), enabled: true });
    d.alarms.insert(Alarm { minute_of_day: 13 * 60 + 30, label: "Medication".into(), enabled: rng.chance(0.5) });
}

/// Shop: the catalogue with seeded prices, and two past orders.
fn shop(w: &World, d: &mut AppData, rng: &mut Rng) {
    let mut products = Table::default();
    for (name, category, price) in PRODUCTS {
        let price = price + rng.range(-2, 4) * 50;
        products.insert(Product { name: name.into(), category: category.into(), price_cents: price });
    }
    d.products = std::sync::Arc::new(products);
    for k in 0..2 {
        let Some(p) = d.products.get(1 + rng.below(PRODUCTS.len()) as u32).cloned() else { continue };
        let qty = 1 + rng.below(2) as u32;
        d.orders.insert(Order {
            number: format!("A{}", rng.range(10000, 99999)),
            seller: "Shop".into(),
            lines: vec![Line { item: p.name.clone(), qty, price_cents: p.price_cents }],
            total_cents: p.price_cents * qty as i64,
            address: "Home".into(),
            status: "delivered".into(),
            time: w.now - (k + 2) * 3 * DAY,
            return_reason: String::new(),
        });
    }
}

fn food(_w: &World, d: &mut AppData, _rng: &mut Rng) {
    let mut restaurants = Table::default();
    for (name, cuisine, menu) in RESTAURANTS {
        let menu = menu.iter().map(|(dish, price)| Product { name: dish.to_string(), category: cuisine.into(), price_cents: *price }).collect();
        restaurants.insert(Restaurant { name: name.into(), cuisine: cuisine.into(), menu });
    }
    d.restaurants = std::sync::Arc::new(restaurants);
}

/// A past ride.
fn ride(w: &World, d: &mut AppData, rng: &mut Rng) {
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

/// Tickets: a past trip, and an upcoming family visit by train to refund, change or look up;
/// passengers are the user and the family.
fn train(w: &World, d: &mut AppData, rng: &mut Rng) {
    let day = w.now.div_euclid(DAY) * DAY;
    d.passengers.push(w.user.name());
    d.passengers.extend(w.people.iter().filter(|p| p.relation == "family").map(|p| p.name()));
    let back = day - 5 * DAY;
    if let Some(run) = timetable(&w.trip_city, &w.home_city, back).first() {
        d.tickets.insert(Ticket {
            train: run.train.clone(),
            from: w.trip_city.clone(),
            to: w.home_city.clone(),
            depart: run.depart,
            class: "Second".into(),
            passengers: vec![w.user.name()],
            price_cents: run.price_cents,
            status: "paid".into(),
        });
    }
    let visit = STATIONS.iter().find(|c| **c != w.home_city && **c != w.trip_city).copied().unwrap_or("Kingsley");
    let visit_day = day + rng.range(2, 6) * DAY;
    if let Some(run) = timetable(&w.home_city, visit, visit_day).get(1 + rng.below(3)) {
        let mut passengers = vec![w.user.name()];
        passengers.extend(d.passengers.get(1).cloned());
        d.tickets.insert(Ticket {
            train: run.train.clone(),
            from: w.home_city.clone(),
            to: visit.to_string(),
            depart: run.depart,
            class: "Second".into(),
            price_cents: fare(run, "Second", passengers.len()),
            passengers,
            status: "paid".into(),
        });
    }
}

/// Bank: a balance and a statement of payments with people of the world.
fn bank(w: &World, d: &mut AppData, rng: &mut Rng) {
    d.balance_cents = rng.range(800, 4200) * 100 + rng.range(0, 99);
    for k in 0..8i64 {
        let who = person(w, rng.below(w.people.len()));
        let cents = rng.range(5, 120) * 100 + rng.range(0, 3) * 25;
        let incoming = k % 3 == 0;
        d.transactions.insert(Transaction {
            counterparty: who,
            amount_cents: if incoming { cents } else { -cents },
            note: if incoming { "Thanks!".into() } else { "Shared costs".into() },
            time: w.now - (k + 1) * DAY - rng.range(0, 600),
        });
    }
}

/// Reviews of the places, by people of the world.
fn reviews(w: &World, d: &mut AppData, rng: &mut Rng) {
    for (i, name) in WORLD_PLACES.iter().enumerate() {
        for k in 0..2 {
            d.reviews.insert(Review {
                place: name.to_string(),
                author: person(w, i + k * 5),
                stars: rng.range(2, 5) as u32,
                text: ["Friendly staff.", "A bit noisy.", "Great spot.", "Would come again.", "Fine for meetings."][rng.below(5)].into(),
            });
        }
    }
}

/// Social feed: people of the world post about the scenario and its happenings.
fn social(w: &World, d: &mut AppData, rng: &mut Rng) {
    for (i, h) in w.happenings.iter().enumerate().take(6) {
        d.posts.insert(Post {
            author: person(w, h.with),
            text: format!("Looking forward to the {} at {}!", h.topic, h.place),
            likes: rng.range(0, 40) as u32,
            liked: false,
            comments: if i % 2 == 0 { vec![Comment { author: person(w, h.with + 1), text: "Same here!".into() }] } else { Vec::new() },
            time: w.now - (i as i64 + 1) * 95,
        });
    }
}

fn music(_w: &World, d: &mut AppData, rng: &mut Rng) {
    let mut songs = Table::default();
    for (title, artist) in SONGS {
        songs.insert(Song { title: title.into(), artist: artist.into(), seconds: rng.range(150, 300) as u32 });
    }
    d.songs = std::sync::Arc::new(songs);
    d.playlists.insert(Playlist { name: "Favourites".into(), songs: vec![1 + rng.below(8) as u32, 9 + rng.below(8) as u32] });
}

/// Mail and messages that tie the apps to the world.
fn mail_and_messages(w: &World, d: &mut AppData, _rng: &mut Rng) {
    d.emails.insert(Email {
        from_name: person(w, 0),
        from: w.person(0).email.clone(),
        to: w.user.email.clone(),
        subject: "Travel plan".into(),
        body: format!(
            "Hi {},\n\nFor the {}, please travel from {} to {} on {} ({}). Take the train, second class is fine.\n\nThanks,\n{}",
            w.user.first,
            w.scenario.name(),
            w.home_city,
            w.trip_city,
            time::date_human(w.trip_day),
            time::date_iso(w.trip_day),
            w.person(0).first
        ),
        time: w.now - 25,
        folder: Folder::Inbox,
        read: false,
    });
    for debt in &w.debts {
        let p = w.person(debt.with);
        let text = format!("Hey! Could you send me {} for {}? No rush.", crate::money(debt.cents), debt.reason);
        let msg = Message { from_me: false, text, time: w.now - 90 };
        match d.threads.items.iter_mut().find(|(_, t)| t.phone == p.phone) {
            Some((_, t)) => t.messages.push(msg),
            None => {
                d.threads.insert(Thread { name: p.name(), phone: p.phone.clone(), messages: vec![msg] });
            }
        }
    }
}

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
    use crate::apps::train::station_index;
    use crate::state::DeviceState;

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
