//! Single-app families of the catalogue apps, and long ones: each a generator and a golden
//! (`spec::Spec`); the verifier is the shared expected-state one.

use guigym_core::Rng;
use serde_json::{json, Value};

use super::spec::{draft, id_param, int_param, str_param, Spec, Walk};
use super::{Draft, FamilyKind::*};
use guigym_phone::apps::settings::LANGUAGES;
use guigym_phone::apps::train::timetable;
use guigym_phone::apps::{files::FOLDERS, food, maps, music, reviews, ride, shop, social, train};
use guigym_phone::state::{Alarm, DeviceState, Note, Timer};
use guigym_phone::time::{self, DAY};
use guigym_phone::world::World;
use guigym_phone::{money, state::capitalize};

pub const FAMILIES: &[Spec] = &[
    Spec { name: "notes.create", kind: Action, apps: &["Notes"], generate: notes_create, golden: notes_create_golden },
    Spec { name: "notes.pin", kind: Action, apps: &["Notes"], generate: notes_pin, golden: notes_pin_golden },
    Spec { name: "notes.delete", kind: Action, apps: &["Notes"], generate: notes_delete, golden: notes_delete_golden },
    Spec { name: "files.rename", kind: Action, apps: &["Files"], generate: files_rename, golden: files_rename_golden },
    Spec { name: "files.move", kind: Action, apps: &["Files"], generate: files_move, golden: files_move_golden },
    Spec { name: "settings.toggle", kind: Action, apps: &["Settings"], generate: settings_toggle, golden: settings_toggle_golden },
    Spec { name: "settings.brightness", kind: Action, apps: &["Settings"], generate: brightness, golden: brightness_golden },
    Spec { name: "settings.language", kind: Action, apps: &["Settings"], generate: language, golden: language_golden },
    Spec { name: "clock.alarm", kind: Action, apps: &["Clock"], generate: alarm, golden: alarm_golden },
    Spec { name: "clock.disable_alarm", kind: Action, apps: &["Clock"], generate: disable_alarm, golden: disable_alarm_golden },
    Spec { name: "clock.timer", kind: Action, apps: &["Clock"], generate: timer, golden: timer_golden },
    Spec { name: "shop.buy", kind: Action, apps: &["Shop"], generate: shop_buy, golden: shop_buy_golden },
    Spec { name: "shop.return", kind: Action, apps: &["Shop"], generate: shop_return, golden: shop_return_golden },
    Spec { name: "food.order", kind: Action, apps: &["Food"], generate: food_order, golden: food_order_golden },
    Spec { name: "ride.book", kind: Action, apps: &["Ride"], generate: ride_book, golden: ride_book_golden },
    Spec { name: "train.book", kind: Action, apps: &["Trains"], generate: train_book, golden: train_book_golden },
    Spec { name: "train.refund", kind: Action, apps: &["Trains"], generate: train_refund, golden: train_refund_golden },
    Spec { name: "train.change", kind: Action, apps: &["Trains"], generate: train_change, golden: train_change_golden },
    Spec { name: "bank.transfer", kind: Action, apps: &["Bank"], generate: bank_transfer, golden: bank_transfer_golden },
    Spec { name: "maps.save", kind: Action, apps: &["Maps"], generate: maps_save, golden: maps_save_golden },
    Spec { name: "reviews.write", kind: Action, apps: &["Reviews"], generate: review_write, golden: review_write_golden },
    Spec { name: "social.post", kind: Action, apps: &["Social"], generate: social_post, golden: social_post_golden },
    Spec { name: "social.like", kind: Action, apps: &["Social"], generate: social_like, golden: social_like_golden },
    Spec { name: "music.play", kind: Action, apps: &["Music"], generate: music_play, golden: music_play_golden },
    Spec { name: "long.shopping_list", kind: Long, apps: &["Shop"], generate: shopping_list, golden: shopping_list_golden },
    Spec { name: "long.playlist", kind: Long, apps: &["Music"], generate: long_playlist, golden: long_playlist_golden },
    Spec { name: "long.train_group", kind: Long, apps: &["Trains"], generate: train_group, golden: train_book_golden },
];

const NOTE_TITLES: [&str; 6] = ["Shopping", "Ideas", "Books to read", "Parking spot", "Recipe", "Questions for the meeting"];
const NOTE_BODIES: [&str; 6] =
    ["Milk, eggs and bread", "Call the plumber on Monday", "Level 2, spot 48", "Ask about the budget", "Bring the charger", "Water the plants"];
const ADDRESSES: [&str; 5] = ["12 Elm Street", "4 Harbour Road", "77 Mill Lane", "9 Park Row", "31 Oak Drive"];
const POSTS: [&str; 5] = ["What a week!", "Coffee first, then everything else.", "Finally some sun today.", "Reading a great book.", "Who is up for a walk?"];
const REVIEW_TEXTS: [&str; 4] = ["Lovely place", "Quiet and clean", "Too crowded", "Friendly people"];

fn pick_id<T>(t: &guigym_phone::state::Table<T>, rng: &mut Rng, keep: impl Fn(&T) -> bool) -> Option<u32> {
    let ids: Vec<u32> = t.iter().filter(|(_, x)| keep(x)).map(|(id, _)| id).collect();
    (!ids.is_empty()).then(|| *rng.pick(&ids))
}

// ---- Notes ----

fn notes_create(_: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (title, body) = (*rng.pick(&NOTE_TITLES), *rng.pick(&NOTE_BODIES));
    draft(
        format!("Create a note titled \"{title}\" that says \"{body}\"."),
        json!({ "title": title, "body": body }),
        Walk::new().open("Notes").tap("new").fill("title", title).fill("body", body).tap("save").done(),
    )
}

fn notes_create_golden(p: &Value, s: &mut DeviceState) {
    s.data.notes.insert(Note { title: str_param(p, "title").into(), body: str_param(p, "body").into(), pinned: false });
}

fn notes_pin(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let id = pick_id(&s.data.notes, rng, |n| !n.pinned)?;
    let title = s.data.notes.get(id)?.title.clone();
    draft(format!("Pin my note \"{title}\"."), json!({ "note": id }), Walk::new().open("Notes").tap(format!("note:{id}")).tap("pin").done())
}

fn notes_pin_golden(p: &Value, s: &mut DeviceState) {
    if let Some(n) = s.data.notes.get_mut(id_param(p, "note")) {
        n.pinned = true;
    }
}

fn notes_delete(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let id = pick_id(&s.data.notes, rng, |_| true)?;
    let title = s.data.notes.get(id)?.title.clone();
    draft(
        format!("Delete the note \"{title}\"."),
        json!({ "note": id }),
        Walk::new().open("Notes").tap(format!("note:{id}")).tap("delete").tap("confirm_delete").done(),
    )
}

fn notes_delete_golden(p: &Value, s: &mut DeviceState) {
    s.data.notes.items.remove(&id_param(p, "note"));
}

// ---- Files ----

fn folder_tab(folder: &str) -> String {
    format!("tab:{}", FOLDERS.iter().position(|f| *f == folder).unwrap_or(0))
}

fn files_rename(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let id = pick_id(&s.data.files, rng, |_| true)?;
    let f = s.data.files.get(id)?;
    let ext = f.name.rsplit_once('.').map(|(_, e)| e).unwrap_or("txt");
    let name = format!("{} {}.{ext}", *rng.pick(&["Final", "Old", "Shared", "Backup"]), rng.range(1, 9));
    draft(
        format!("In Files, rename \"{}\" to \"{name}\".", f.name),
        json!({ "file": id, "name": name }),
        Walk::new().open("Files").tap(folder_tab(&f.folder)).tap(format!("file:{id}")).tap("rename").fill("name", &name).tap("save").done(),
    )
}

fn files_rename_golden(p: &Value, s: &mut DeviceState) {
    if let Some(f) = s.data.files.get_mut(id_param(p, "file")) {
        f.name = str_param(p, "name").into();
    }
}

fn files_move(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let id = pick_id(&s.data.files, rng, |_| true)?;
    let f = s.data.files.get(id)?;
    let to = *rng.pick(&FOLDERS.iter().filter(|d| **d != f.folder).copied().collect::<Vec<_>>());
    draft(
        format!("Move the file \"{}\" to the {to} folder.", f.name),
        json!({ "file": id, "folder": to }),
        Walk::new().open("Files").tap(folder_tab(&f.folder)).tap(format!("file:{id}")).tap("move").tap(format!("move_to:{to}")).done(),
    )
}

fn files_move_golden(p: &Value, s: &mut DeviceState) {
    if let Some(f) = s.data.files.get_mut(id_param(p, "file")) {
        f.folder = str_param(p, "folder").into();
    }
}

// ---- Settings ----

const SWITCHES: [(&str, &str); 3] = [("wifi", "Wi-Fi"), ("bluetooth", "Bluetooth"), ("do_not_disturb", "do not disturb")];

fn switch_value(s: &DeviceState, key: &str) -> bool {
    match key {
        "wifi" => s.data.settings.wifi,
        "bluetooth" => s.data.settings.bluetooth,
        _ => s.data.settings.do_not_disturb,
    }
}

fn settings_toggle(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (key, label) = *rng.pick(&SWITCHES);
    let on = !switch_value(s, key);
    draft(format!("Turn {} {label}.", if on { "on" } else { "off" }), json!({ "switch": key, "on": on }), Walk::new().open("Settings").tap(key).done())
}

fn settings_toggle_golden(p: &Value, s: &mut DeviceState) {
    let on = p.get("on").and_then(Value::as_bool).unwrap_or(false);
    match str_param(p, "switch") {
        "wifi" => s.data.settings.wifi = on,
        "bluetooth" => s.data.settings.bluetooth = on,
        "do_not_disturb" => s.data.settings.do_not_disturb = on,
        _ => {}
    }
}

fn brightness(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let level = loop {
        let v = rng.range(1, 19) as u32 * 5;
        if v != s.data.settings.brightness {
            break v;
        }
    };
    draft(
        format!("Set the screen brightness to {level}%."),
        json!({ "level": level }),
        Walk::new().open("Settings").tap("display").fill("brightness_value", &level.to_string()).tap("apply").done(),
    )
}

fn brightness_golden(p: &Value, s: &mut DeviceState) {
    s.data.settings.brightness = int_param(p, "level") as u32;
}

fn language(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let lang = *rng.pick(&LANGUAGES.iter().filter(|l| **l != s.data.settings.language).copied().collect::<Vec<_>>());
    draft(
        format!("Change the phone's language to {lang}."),
        json!({ "language": lang }),
        Walk::new().open("Settings").tap("language").tap(format!("lang:{lang}")).tap("confirm_language").done(),
    )
}

fn language_golden(p: &Value, s: &mut DeviceState) {
    s.data.settings.language = str_param(p, "language").into();
}

// ---- Clock ----

fn alarm(_: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let minute = rng.range(5 * 4, 22 * 4) * 15;
    let label = *rng.pick(&["Gym", "Pick up kids", "Call mum", "Stand-up", "Take a break"]);
    let hm = time::time_hm(minute);
    draft(
        format!("Set an alarm for {hm} labelled \"{label}\"."),
        json!({ "minute": minute, "label": label }),
        Walk::new().open("Clock").tap("new_alarm").fill("time", &hm).fill("label", label).tap("save").done(),
    )
}

fn alarm_golden(p: &Value, s: &mut DeviceState) {
    s.data.alarms.insert(Alarm { minute_of_day: int_param(p, "minute"), label: str_param(p, "label").into(), enabled: true });
}

fn disable_alarm(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let id = pick_id(&s.data.alarms, rng, |a| a.enabled)?;
    let a = s.data.alarms.get(id)?;
    draft(
        format!("Turn off my {} alarm \"{}\" (but keep it).", time::time_hm(a.minute_of_day), a.label),
        json!({ "alarm": id }),
        Walk::new().open("Clock").tap(format!("alarm:{id}")).tap("enabled").done(),
    )
}

fn disable_alarm_golden(p: &Value, s: &mut DeviceState) {
    if let Some(a) = s.data.alarms.get_mut(id_param(p, "alarm")) {
        a.enabled = false;
    }
}

fn timer(_: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let minutes = *rng.pick(&[3, 5, 10, 12, 20, 25, 45]);
    let label = *rng.pick(&["Tea", "Pasta", "Laundry", "Focus", "Oven"]);
    draft(
        format!("Start a {minutes}-minute timer called \"{label}\"."),
        json!({ "minutes": minutes, "label": label }),
        Walk::new().open("Clock").tap("tab_timers").tap("new_timer").fill("minutes", &minutes.to_string()).fill("label", label).tap("start").done(),
    )
}

fn timer_golden(p: &Value, s: &mut DeviceState) {
    s.data.timers.insert(Timer { minutes: int_param(p, "minutes") as u32, label: str_param(p, "label").into() });
}

// ---- Shop ----

/// Opening a product, setting its quantity and adding it to the cart.
fn add_product(mut w: Walk, id: u32, qty: u32) -> Walk {
    w = w.tap(format!("product:{id}"));
    for _ in 1..qty {
        w = w.tap("qty_plus");
    }
    w.tap("add_to_cart").back()
}

fn checkout(w: Walk, address: &str) -> Vec<guigym_core::Action> {
    w.tap("cart").tap("checkout").fill("address", address).tap("place_order").tap("confirm_pay").done()
}

fn shop_buy(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let id = pick_id(&s.data.products, rng, |_| true)?;
    let p = s.data.products.get(id)?;
    let qty = rng.range(1, 3) as u32;
    let address = *rng.pick(&ADDRESSES);
    draft(
        format!("Order {qty} × \"{}\" from the Shop, delivered to {address}.", p.name),
        json!({ "items": [[id, qty]], "address": address }),
        checkout(add_product(Walk::new().open("Shop"), id, qty), address),
    )
}

fn shop_buy_golden(p: &Value, s: &mut DeviceState) {
    for line in p["items"].as_array().into_iter().flatten() {
        let (id, qty) = (line[0].as_u64().unwrap_or(0) as u32, line[1].as_u64().unwrap_or(1) as u32);
        if let Some(product) = s.data.products.get(id).cloned() {
            shop::add_to_cart(s, &product, qty);
        }
    }
    shop::place_order(s, str_param(p, "address"));
}

fn shop_return(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let id = pick_id(&s.data.orders, rng, |o| o.status == "delivered")?;
    let o = s.data.orders.get(id)?;
    let reason = rng.below(shop::RETURN_REASONS.len());
    draft(
        format!("Return my order {} (the {}); the reason: {}.", o.number, o.lines[0].item, shop::RETURN_REASONS[reason].to_lowercase()),
        json!({ "order": id, "reason": shop::RETURN_REASONS[reason] }),
        Walk::new().open("Shop").tap("orders").tap(format!("order:{id}")).tap("return").tap(format!("reason:{reason}")).done(),
    )
}

fn shop_return_golden(p: &Value, s: &mut DeviceState) {
    if let Some(o) = s.data.orders.get_mut(id_param(p, "order")) {
        o.status = "return requested".into();
        o.return_reason = str_param(p, "reason").to_string();
    }
}

fn shopping_list(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let mut ids: Vec<u32> = s.data.products.iter().map(|(id, _)| id).collect();
    rng.shuffle(&mut ids);
    let items: Vec<(u32, u32)> = ids.into_iter().take(4).map(|id| (id, rng.range(1, 2) as u32)).collect();
    let address = *rng.pick(&ADDRESSES);
    let list: Vec<String> = items.iter().map(|(id, q)| format!("{q} × {}", s.data.products.get(*id).map(|p| p.name.as_str()).unwrap_or(""))).collect();
    let mut w = Walk::new().open("Shop");
    for (id, qty) in &items {
        w = add_product(w, *id, *qty);
    }
    draft(
        format!("Buy everything on my list in one Shop order delivered to {address}: {}.", list.join(", ")),
        json!({ "items": items, "address": address }),
        checkout(w, address),
    )
}

fn shopping_list_golden(p: &Value, s: &mut DeviceState) {
    shop_buy_golden(p, s)
}

// ---- Food ----

fn food_order(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let rid = pick_id(&s.data.restaurants, rng, |_| true)?;
    let r = s.data.restaurants.get(rid)?;
    let (a, b) = (rng.below(2), 2 + rng.below(2));
    let address = *rng.pick(&ADDRESSES);
    draft(
        format!("Order a {} and a {} from {} to {address}.", r.menu[a].name, r.menu[b].name, r.name),
        json!({ "restaurant": rid, "dishes": [a, b], "address": address }),
        food_walk(Walk::new(), rid, &[a, b], address).done(),
    )
}

/// Ordering dishes of one restaurant to an address, from wherever the walk is.
pub fn food_walk(w: Walk, restaurant: u32, dishes: &[usize], address: &str) -> Walk {
    let mut w = w.open("Food").tap(format!("restaurant:{restaurant}"));
    for d in dishes {
        w = w.tap(format!("dish:{d}"));
    }
    w.tap("basket").fill("address", address).tap("order")
}

pub fn food_order_golden(p: &Value, s: &mut DeviceState) {
    let rid = id_param(p, "restaurant");
    s.data.basket.clear();
    for d in p["dishes"].as_array().into_iter().flatten() {
        food::add_dish(s, rid, d.as_u64().unwrap_or(0) as usize);
    }
    food::place(s, str_param(p, "address"));
}

// ---- Ride ----

fn ride_book(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let pid = pick_id(&s.data.places, rng, |_| true)?;
    let place = s.data.places.get(pid)?.name.clone();
    let class = rng.pick(&guigym_phone::apps::ride::RIDE_CLASSES).0;
    draft(
        format!("Book a {class} ride to {place}."),
        json!({ "place": place, "class": class }),
        Walk::new().open("Ride").tap(format!("dest:{pid}")).tap("search_rides").tap(format!("class:{class}")).tap("confirm_ride").done(),
    )
}

pub fn ride_book_golden(p: &Value, s: &mut DeviceState) {
    ride::book(s, str_param(p, "place"), str_param(p, "class"));
}

// ---- Trains ----

/// Searching a route on a day, from the search tab.
pub fn train_search(w: Walk, from: &str, to: &str, day: i64) -> Walk {
    w.tap("tab_search").fill("from", from).fill("to", to).fill("date", &time::date_iso(day)).tap("search")
}

/// A booking: route, day, which train of the day, class, passengers (indices into the
/// passenger list; the user, 0, is ticked already).
pub fn train_booking(from: &str, to: &str, day: i64, k: usize, class: &str, passengers: &[usize]) -> (Value, Walk) {
    let mut w = train_search(Walk::new().open("Trains"), from, to, day).tap(format!("run:{k}")).tap(format!("seat:{class}"));
    if !passengers.contains(&0) {
        w = w.tap("passenger:0");
    }
    for i in passengers.iter().filter(|i| **i != 0) {
        w = w.tap(format!("passenger:{i}"));
    }
    let params = json!({ "from": from, "to": to, "day": day, "train": k, "class": class, "passengers": passengers });
    (params, w.tap("pay").tap("confirm_pay"))
}

fn train_book(w: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let to = *rng.pick(&guigym_phone::world::STATIONS.iter().filter(|c| **c != w.home_city).copied().collect::<Vec<_>>());
    let day = (w.now.div_euclid(DAY) + rng.range(1, 14)) * DAY;
    let runs = timetable(&w.home_city, to, day);
    let k = rng.below(runs.len());
    let class = rng.pick(&guigym_phone::apps::train::SEAT_CLASSES).0;
    let (params, walk) = train_booking(&w.home_city, to, day, k, class, &[0]);
    draft(
        format!(
            "Book me a {} class train ticket from {} to {to} on {}, on the {} train ({}).",
            class.to_lowercase(),
            w.home_city,
            time::date_iso(day),
            time::time_hm(runs[k].depart),
            runs[k].train
        ),
        params,
        walk.done(),
    )
}

pub fn train_book_golden(p: &Value, s: &mut DeviceState) {
    let (from, to, day) = (str_param(p, "from"), str_param(p, "to"), int_param(p, "day"));
    let Some(run) = timetable(from, to, day).into_iter().nth(int_param(p, "train") as usize) else { return };
    let names = p["passengers"].as_array().into_iter().flatten().filter_map(|i| s.data.passengers.get(i.as_u64().unwrap_or(99) as usize).cloned()).collect();
    train::buy(s, from, to, &run, str_param(p, "class"), names);
}

fn train_group(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    if s.data.passengers.len() < 3 {
        return None;
    }
    let to = w.trip_city.clone();
    let day = (w.now.div_euclid(DAY) + rng.range(2, 20)) * DAY;
    let runs = timetable(&w.home_city, &to, day);
    let k = runs.len() - 1;
    let who: Vec<usize> = (0..s.data.passengers.len().min(4)).collect();
    let names: Vec<String> = who.iter().map(|i| s.data.passengers[*i].clone()).collect();
    let (params, walk) = train_booking(&w.home_city, &to, day, k, "First", &who);
    // Check the booking in My tickets before finishing.
    let walk = walk.back().tap(format!("ticket:{}", s.data.tickets.next_id));
    draft(
        format!(
            "Book first class seats on the last train of {} from {} to {to} for {}; then check it in My tickets.",
            time::date_iso(day),
            w.home_city,
            names.join(", ")
        ),
        params,
        walk.done(),
    )
}

/// The upcoming ticket of a world (a family visit), if any.
pub fn upcoming_ticket(s: &DeviceState) -> Option<u32> {
    s.data.tickets.iter().find(|(_, t)| t.status == "paid" && t.depart > s.now()).map(|(id, _)| id)
}

fn train_refund(_: &World, s: &DeviceState, _: &mut Rng) -> Option<Draft> {
    let id = upcoming_ticket(s)?;
    let t = s.data.tickets.get(id)?;
    draft(
        format!("I can't make my train to {} on {}: refund the ticket.", t.to, time::date_iso(t.depart)),
        json!({ "ticket": id }),
        Walk::new().open("Trains").tap("tab_tickets").tap(format!("ticket:{id}")).tap("refund").tap("confirm_refund").done(),
    )
}

fn train_refund_golden(p: &Value, s: &mut DeviceState) {
    if let Some(t) = s.data.tickets.get_mut(id_param(p, "ticket")) {
        t.status = "refunded".into();
    }
}

fn train_change(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let id = upcoming_ticket(s)?;
    let t = s.data.tickets.get(id)?;
    let day = t.depart.div_euclid(DAY) * DAY + rng.range(1, 4) * DAY;
    let runs = timetable(&t.from, &t.to, day);
    let k = rng.below(runs.len());
    draft(
        format!("Move my train ticket to {} to {} instead, on the {} train.", t.to, time::date_iso(day), time::time_hm(runs[k].depart)),
        json!({ "ticket": id, "day": day, "train": k }),
        Walk::new()
            .open("Trains")
            .tap("tab_tickets")
            .tap(format!("ticket:{id}"))
            .tap("change")
            .fill("date", &time::date_iso(day))
            .tap("find")
            .tap(format!("run:{k}"))
            .tap("confirm_change")
            .done(),
    )
}

fn train_change_golden(p: &Value, s: &mut DeviceState) {
    let tid = id_param(p, "ticket");
    let Some(t) = s.data.tickets.get(tid).cloned() else { return };
    if let Some(run) = timetable(&t.from, &t.to, int_param(p, "day")).into_iter().nth(int_param(p, "train") as usize) {
        train::change(s, tid, &run);
    }
}

// ---- Bank ----

pub fn transfer_walk(w: Walk, to: &str, cents: i64, note: &str) -> Walk {
    let amount = format!("{}.{:02}", cents / 100, cents % 100);
    let w = w.tap("transfer").fill("to", to).fill("amount", &amount);
    let w = if note.is_empty() { w } else { w.fill("note", note) };
    w.tap("continue").tap("confirm_transfer")
}

fn bank_transfer(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let who = w.person(rng.below(w.people.len())).name();
    let cents = rng.range(2, 80) * 100 + rng.range(0, 3) * 25;
    let note = *rng.pick(&["Rent", "Dinner", "Tickets", "Thanks"]);
    (cents < s.data.balance_cents).then_some(())?;
    draft(
        format!("Send {} to {who} from my bank with the note \"{note}\".", money(cents)),
        json!({ "to": who, "cents": cents, "note": note }),
        transfer_walk(Walk::new().open("Bank"), &who, cents, note).done(),
    )
}

pub fn bank_transfer_golden(p: &Value, s: &mut DeviceState) {
    guigym_phone::apps::bank::transfer(s, str_param(p, "to"), int_param(p, "cents"), str_param(p, "note"));
}

// ---- Maps, reviews, social, music ----

fn maps_save(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let pid = pick_id(&s.data.places, rng, |p| !s.data.saved_places.iter().any(|(_, sp)| sp.place == p.name))?;
    let place = s.data.places.get(pid)?.name.clone();
    let label = *rng.pick(&maps::LABELS);
    draft(
        format!("Save {place} in Maps as {label}."),
        json!({ "place": place, "label": label }),
        Walk::new().open("Maps").tap(format!("place:{pid}")).tap("save").tap(format!("label:{label}")).done(),
    )
}

pub fn maps_save_golden(p: &Value, s: &mut DeviceState) {
    maps::save(s, str_param(p, "place"), str_param(p, "label"));
}

fn review_write(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let pid = pick_id(&s.data.places, rng, |_| true)?;
    let place = s.data.places.get(pid)?.name.clone();
    let stars = rng.range(1, 5);
    let text = *rng.pick(&REVIEW_TEXTS);
    draft(
        format!("Review {place}: {stars} star{}, \"{text}\".", if stars == 1 { "" } else { "s" }),
        json!({ "place": place, "stars": stars, "text": text }),
        Walk::new().open("Reviews").tap(format!("place:{pid}")).tap("write").tap(format!("star:{stars}")).fill("text", text).tap("post").done(),
    )
}

pub fn review_write_golden(p: &Value, s: &mut DeviceState) {
    reviews::write(s, str_param(p, "place"), int_param(p, "stars") as u32, str_param(p, "text"));
}

fn social_post(_: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let text = *rng.pick(&POSTS);
    draft(format!("Post \"{text}\" on Social."), json!({ "text": text }), Walk::new().open("Social").tap("compose").fill("text", text).tap("publish").done())
}

pub fn social_post_golden(p: &Value, s: &mut DeviceState) {
    social::publish(s, str_param(p, "text"));
}

fn social_like(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let id = pick_id(&s.data.posts, rng, |p| !p.liked)?;
    let p = s.data.posts.get(id)?;
    let topic = p.text.trim_start_matches("Looking forward to the ").split(" at ").next().unwrap_or(&p.text).to_string();
    draft(
        format!("Like {}'s post about the {topic}.", p.author),
        json!({ "post": id }),
        Walk::new().open("Social").tap(format!("post:{id}")).tap("like").done(),
    )
}

fn social_like_golden(p: &Value, s: &mut DeviceState) {
    if let Some(post) = s.data.posts.get_mut(id_param(p, "post")) {
        social::toggle_like(post);
    }
}

fn music_play(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let id = pick_id(&s.data.songs, rng, |_| true)?;
    let song = s.data.songs.get(id)?;
    draft(
        format!("Play \"{}\" by {}.", song.title, song.artist),
        json!({ "song": id }),
        Walk::new().open("Music").fill("search", &song.title).tap(format!("song:{id}")).tap("play").done(),
    )
}

fn music_play_golden(p: &Value, s: &mut DeviceState) {
    s.data.player.song = Some(id_param(p, "song"));
    s.data.player.playing = true;
}

fn long_playlist(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let name = format!("{} mix", capitalize(w.scenario.name()));
    let mut ids: Vec<u32> = s.data.songs.iter().map(|(id, _)| id).collect();
    rng.shuffle(&mut ids);
    ids.truncate(5);
    let titles: Vec<String> = ids.iter().filter_map(|id| s.data.songs.get(*id)).map(|x| format!("\"{}\"", x.title)).collect();
    let pid = s.data.playlists.next_id;
    let mut walk = Walk::new().open("Music").tap("tab_playlists").tap("new_playlist").fill("name", &name).tap("create").back().tap("tab_songs");
    for id in &ids {
        walk = walk.tap(format!("song:{id}")).tap("add_to_playlist").tap(format!("to_playlist:{pid}")).back();
    }
    draft(
        format!("Make a playlist called \"{name}\" with these songs in this order: {}.", titles.join(", ")),
        // The instruction asks for an order: the verifier compares lists in order.
        json!({ "name": name, "songs": ids, "ordered": true }),
        walk.done(),
    )
}

fn long_playlist_golden(p: &Value, s: &mut DeviceState) {
    let pid = music::create_playlist(s, str_param(p, "name"));
    for id in p["songs"].as_array().into_iter().flatten() {
        music::add_song(s, pid, id.as_u64().unwrap_or(0) as u32);
    }
}
