//! Families that ask more than following a recipe: information retrieval answered with
//! `answer` (compared by type), relative dates, details only the user knows (`ask_user`),
//! and requests the apps cannot honour (`terminate(infeasible)`).

use guigym_core::Rng;
use serde_json::{json, Value};

use super::everyday::{bank_transfer_golden, food_order_golden, food_walk, ride_book_golden, train_book_golden, train_booking, transfer_walk, upcoming_ticket};
use super::spec::{draft, id_param, int_param, no_change, str_param, Spec, Walk};
use super::{Draft, FamilyKind::*};
use guigym_phone::apps::ride::ride_price;
use guigym_phone::apps::{maps::MODES, music, reviews};
use guigym_phone::state::{DeviceState, Event};
use guigym_phone::time::{self, DAY};
use guigym_phone::world::World;
use guigym_phone::{money, normalize};

pub const FAMILIES: &[Spec] = &[
    Spec { name: "info.balance", kind: Retrieval, apps: &["Bank"], generate: balance, golden: no_change },
    Spec { name: "info.order_total", kind: Retrieval, apps: &["Shop"], generate: order_total, golden: no_change },
    Spec { name: "info.route_time", kind: Retrieval, apps: &["Maps"], generate: route_time, golden: no_change },
    Spec { name: "info.place_rating", kind: Retrieval, apps: &["Reviews"], generate: place_rating, golden: no_change },
    Spec { name: "info.door_code", kind: Retrieval, apps: &["Notes"], generate: door_code, golden: no_change },
    Spec { name: "info.file_size", kind: Retrieval, apps: &["Files"], generate: file_size, golden: no_change },
    Spec { name: "info.train_time", kind: Retrieval, apps: &["Trains"], generate: train_time, golden: no_change },
    Spec { name: "info.song_artist", kind: Retrieval, apps: &["Music"], generate: song_artist, golden: no_change },
    Spec { name: "info.last_payment", kind: Retrieval, apps: &["Bank"], generate: last_payment, golden: no_change },
    Spec { name: "info.ride_price", kind: Retrieval, apps: &["Ride"], generate: ride_quote, golden: no_change },
    Spec { name: "date.friday_after_next", kind: RelativeDate, apps: &["Calendar"], generate: friday_after_next, golden: event_golden },
    Spec { name: "date.coming_weekday", kind: RelativeDate, apps: &["Calendar"], generate: coming_weekday, golden: event_golden },
    Spec { name: "date.train_in_days", kind: RelativeDate, apps: &["Trains"], generate: train_in_days, golden: train_book_golden },
    Spec { name: "date.whats_on", kind: RelativeDate, apps: &["Calendar"], generate: whats_on, golden: no_change },
    Spec { name: "date.days_until", kind: RelativeDate, apps: &["Calendar"], generate: days_until, golden: no_change },
    Spec { name: "ask.food_order", kind: Interactive, apps: &["Food"], generate: ask_food, golden: food_order_golden },
    Spec { name: "ask.alarm", kind: Interactive, apps: &["Clock"], generate: ask_alarm, golden: ask_alarm_golden },
    Spec { name: "ask.ride_class", kind: Interactive, apps: &["Ride"], generate: ask_ride, golden: ride_book_golden },
    Spec { name: "ask.transfer_amount", kind: Interactive, apps: &["Bank"], generate: ask_transfer, golden: bank_transfer_golden },
    Spec { name: "ask.playlist_name", kind: Interactive, apps: &["Music"], generate: ask_playlist, golden: ask_playlist_golden },
    Spec { name: "infeasible.overdraft", kind: Infeasible, apps: &["Bank"], generate: overdraft, golden: no_change },
    Spec { name: "infeasible.unknown_station", kind: Infeasible, apps: &["Trains"], generate: unknown_station, golden: no_change },
    Spec { name: "infeasible.missing_setting", kind: Infeasible, apps: &["Settings"], generate: missing_setting, golden: no_change },
    Spec { name: "infeasible.missing_song", kind: Infeasible, apps: &["Music"], generate: missing_song, golden: no_change },
];

fn answer(kind: &str, value: impl Into<Value>) -> Value {
    json!({ "kind": kind, "value": value.into() })
}

/// A number answer in a unit: other units of the same kind are converted (`1 week` is 7
/// days, `0.1 MB` about 102 KB), numbers in other kinds of unit are not answers.
fn amount(value: impl Into<Value>, unit: &str) -> Value {
    json!({ "kind": "number", "value": value.into(), "unit": unit })
}

// ---- Retrieval ----

fn balance(_: &World, s: &DeviceState, _: &mut Rng) -> Option<Draft> {
    let cents = s.data.balance_cents;
    draft("What is my bank balance?".into(), json!({ "answer": answer("money", cents) }), Walk::new().open("Bank").answer(money(cents)).done())
}

fn order_total(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let ids: Vec<u32> = s.data.orders.iter().map(|(id, _)| id).collect();
    let id = *rng.pick(&ids);
    let o = s.data.orders.get(id)?;
    draft(
        format!("How much did my Shop order {} cost in total?", o.number),
        json!({ "answer": answer("money", o.total_cents) }),
        Walk::new().open("Shop").tap("orders").tap(format!("order:{id}")).answer(money(o.total_cents)).done(),
    )
}

fn route_time(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let pid = 1 + rng.below(s.data.places.items.len()) as u32;
    let p = s.data.places.get(pid)?;
    let mode = rng.below(3);
    let minutes = [p.walk_min, p.transit_min, p.drive_min][mode];
    let verb = ["walk", "take public transport", "drive"][mode];
    draft(
        format!("How many minutes does it take me to {verb} to {}, according to Maps?", p.name),
        json!({ "answer": answer("duration", minutes) }),
        Walk::new().open("Maps").tap(format!("place:{pid}")).tap("directions").tap(format!("mode:{}", MODES[mode])).answer(format!("{minutes} min")).done(),
    )
}

fn place_rating(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let pid = 1 + rng.below(s.data.places.items.len()) as u32;
    let name = s.data.places.get(pid)?.name.clone();
    let (tenths, n) = reviews::rating(s, &name);
    (n > 0).then_some(())?;
    let text = reviews::stars_text(tenths);
    draft(
        format!("What is the average star rating of {name} in Reviews?"),
        json!({ "answer": amount(tenths as f64 / 10.0, "stars") }),
        Walk::new().open("Reviews").tap(format!("place:{pid}")).answer(text).done(),
    )
}

fn door_code(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (place, code) = rng.pick(&w.codes).clone();
    let id = s.data.notes.iter().find(|(_, n)| n.body.contains(&code)).map(|(id, _)| id)?;
    draft(
        format!("What is the door code for {place}? It's in my notes."),
        json!({ "answer": { "kind": "text", "value": code, "about": [place] } }),
        Walk::new().open("Notes").tap(format!("note:{id}")).answer(code).done(),
    )
}

fn file_size(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let ids: Vec<u32> = s.data.files.iter().map(|(id, _)| id).collect();
    let id = *rng.pick(&ids);
    let f = s.data.files.get(id)?;
    let tab = guigym_phone::apps::files::FOLDERS.iter().position(|d| *d == f.folder).unwrap_or(0);
    draft(
        format!("How large is the file \"{}\", in KB?", f.name),
        json!({ "answer": amount(f.size_kb, "KB") }),
        Walk::new().open("Files").tap(format!("tab:{tab}")).tap(format!("file:{id}")).answer(format!("{} KB", f.size_kb)).done(),
    )
}

fn train_time(_: &World, s: &DeviceState, _: &mut Rng) -> Option<Draft> {
    let id = upcoming_ticket(s)?;
    let t = s.data.tickets.get(id)?;
    draft(
        format!("What time does my upcoming train to {} leave?", t.to),
        json!({ "answer": { "kind": "time", "value": t.depart, "day": t.depart.div_euclid(DAY) * DAY } }),
        Walk::new().open("Trains").tap("tab_tickets").tap(format!("ticket:{id}")).answer(time::time_hm(t.depart)).done(),
    )
}

fn song_artist(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let ids: Vec<u32> = s.data.songs.iter().map(|(id, _)| id).collect();
    let id = *rng.pick(&ids);
    let song = s.data.songs.get(id)?;
    draft(
        format!("Who performs the song \"{}\" in my music library?", song.title),
        // The song's own title may stand in the answer ("City Rain is by Nova Lane").
        json!({ "answer": { "kind": "name", "value": song.artist, "about": [song.title] } }),
        Walk::new().open("Music").fill("search", &song.title).tap(format!("song:{id}")).answer(song.artist.clone()).done(),
    )
}

fn last_payment(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let outgoing: Vec<(u32, &guigym_phone::state::Transaction)> = s.data.transactions.iter().filter(|(_, t)| t.amount_cents < 0).collect();
    let (_, pick) = *rng.pick(&outgoing);
    let who = pick.counterparty.clone();
    // The most recent payment to that person.
    let (id, t) = outgoing.iter().filter(|(_, t)| t.counterparty == who).max_by_key(|(id, t)| (t.time, *id)).copied()?;
    draft(
        format!("How much did I pay {who} the last time I sent them money?"),
        json!({ "answer": { "kind": "money", "value": -t.amount_cents, "direction": "out" } }),
        Walk::new().open("Bank").tap("statement").tap("tab:2").tap(format!("txn:{id}")).answer(money(-t.amount_cents)).done(),
    )
}

fn ride_quote(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let pid = 1 + rng.below(s.data.places.items.len()) as u32;
    let place = s.data.places.get(pid)?.name.clone();
    let class = rng.pick(&guigym_phone::apps::ride::RIDE_CLASSES).0;
    let cents = ride_price(&place, class);
    draft(
        format!("How much would a {class} ride to {place} cost? Don't book it."),
        json!({ "answer": answer("money", cents) }),
        Walk::new().open("Ride").tap(format!("dest:{pid}")).tap("search_rides").answer(money(cents)).done(),
    )
}

// ---- Relative dates ----

const TITLES: [&str; 6] = ["Dentist", "Team lunch", "Piano lesson", "Car service", "Haircut", "Call with Sam"];
const WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// The first `weekday` (0 = Monday) strictly after the day of `now`, at midnight.
pub fn coming(now: i64, weekday: usize) -> i64 {
    let today = now.div_euclid(DAY);
    let ahead = (weekday as i64 - time::weekday(now) as i64 - 1).rem_euclid(7) + 1;
    (today + ahead) * DAY
}

fn new_event(title: &str, start: i64) -> Vec<guigym_core::Action> {
    Walk::new().open("Calendar").tap("new").fill("title", title).fill("date", &time::date_iso(start)).fill("time", &time::time_hm(start)).tap("save").done()
}

fn friday_after_next(w: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let title = *rng.pick(&TITLES);
    let start = coming(w.now, 4) + 7 * DAY + rng.range(18, 34) * 30;
    draft(
        format!("Put \"{title}\" in my calendar on the Friday after next at {}. (Next Friday is the coming one.)", time::time_hm(start)),
        json!({ "title": title, "start": start }),
        new_event(title, start),
    )
}

fn coming_weekday(w: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let title = *rng.pick(&TITLES);
    let day = rng.below(7);
    let start = coming(w.now, day) + rng.range(16, 38) * 30;
    draft(
        format!("Add \"{title}\" to my calendar this coming {} at {}.", WEEKDAYS[day], time::time_hm(start)),
        json!({ "title": title, "start": start }),
        new_event(title, start),
    )
}

fn event_golden(p: &Value, s: &mut DeviceState) {
    s.data.events.insert(Event { title: str_param(p, "title").into(), start: int_param(p, "start"), duration_min: 60, location: String::new() });
}

fn train_in_days(w: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let n = rng.range(2, 9);
    let day = (w.now.div_euclid(DAY) + n) * DAY;
    let (params, walk) = train_booking(&w.home_city, &w.trip_city, day, 0, "Second", &[0]);
    draft(format!("Book me a second class seat on the first train from {} to {} {n} days from today.", w.home_city, w.trip_city), params, walk.done())
}

/// How a person would name a day relative to today.
fn day_phrase(now: i64, day: i64) -> String {
    match day.div_euclid(DAY) - now.div_euclid(DAY) {
        1 => "tomorrow".into(),
        2 => "the day after tomorrow".into(),
        n => format!("in {n} days"),
    }
}

fn whats_on(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let now = s.now();
    let future: Vec<&Event> = s.data.events.iter().map(|(_, e)| e).filter(|e| e.start.div_euclid(DAY) > now.div_euclid(DAY)).collect();
    let e = *rng.pick(&future);
    let day = e.start.div_euclid(DAY);
    // The question must have one answer: the only event that day.
    (future.iter().filter(|x| x.start.div_euclid(DAY) == day).count() == 1).then_some(())?;
    draft(
        format!("What do I have in my calendar {}? Answer with the event's title.", day_phrase(now, e.start)),
        json!({ "answer": answer("text", e.title.clone()) }),
        Walk::new().open("Calendar").answer(e.title.clone()).done(),
    )
}

fn days_until(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let now = s.now();
    let future: Vec<&Event> = s.data.events.iter().map(|(_, e)| e).filter(|e| e.start.div_euclid(DAY) > now.div_euclid(DAY)).collect();
    let e = *rng.pick(&future);
    let n = e.start.div_euclid(DAY) - now.div_euclid(DAY);
    draft(
        format!("How many days from today until my {}?", e.title),
        json!({ "answer": amount(n, "days") }),
        Walk::new().open("Calendar").answer(format!("{n} days")).done(),
    )
}

// ---- Details only the user knows ----

fn ask_food(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let rid = 1 + rng.below(s.data.restaurants.items.len()) as u32;
    let r = s.data.restaurants.get(rid)?;
    let (a, b) = (rng.below(2), 2 + rng.below(2));
    let address = *rng.pick(&["12 Elm Street", "4 Harbour Road", "77 Mill Lane"]);
    let reply = format!("A {} and a {}, please.", r.menu[a].name, r.menu[b].name);
    draft(
        format!("Order my dinner from {} to {address}. Ask me what I'd like first.", r.name),
        json!({ "restaurant": rid, "dishes": [a, b], "address": address, "user_reply": reply, "must_ask": true }),
        food_walk(Walk::new().ask("What would you like?"), rid, &[a, b], address).done(),
    )
}

fn ask_alarm(_: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let minute = rng.range(18, 30) * 15;
    let label = *rng.pick(&["Airport", "Early train", "Run", "Interview"]);
    let reply = format!("Make it {}, and call it {label}.", time::time_hm(minute));
    draft(
        "Set an alarm for tomorrow morning. Ask me for the time and the label.".into(),
        json!({ "minute": minute, "label": label, "user_reply": reply, "must_ask": true }),
        Walk::new()
            .ask("What time, and what label?")
            .open("Clock")
            .tap("new_alarm")
            .fill("time", &time::time_hm(minute))
            .fill("label", label)
            .tap("save")
            .done(),
    )
}

fn ask_alarm_golden(p: &Value, s: &mut DeviceState) {
    s.data.alarms.insert(guigym_phone::state::Alarm { minute_of_day: int_param(p, "minute"), label: str_param(p, "label").into(), enabled: true });
}

fn ask_ride(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let pid = 1 + rng.below(s.data.places.items.len()) as u32;
    let place = s.data.places.get(pid)?.name.clone();
    let class = rng.pick(&guigym_phone::apps::ride::RIDE_CLASSES).0;
    draft(
        format!("Get me a ride to {place}. Check with me which class to book."),
        json!({ "place": place, "class": class, "user_reply": format!("{class}, please."), "must_ask": true }),
        Walk::new().ask("Which class?").open("Ride").tap(format!("dest:{pid}")).tap("search_rides").tap(format!("class:{class}")).tap("confirm_ride").done(),
    )
}

fn ask_transfer(w: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let who = w.person(rng.below(w.people.len())).name();
    let cents = rng.range(10, 60) * 100 + 50;
    draft(
        format!("Pay {who} back for dinner from my bank account, with the note \"Dinner\". Ask me how much."),
        json!({ "to": who, "cents": cents, "note": "Dinner", "user_reply": format!("Send {}.", money(cents)), "must_ask": true }),
        transfer_walk(Walk::new().ask("How much?").open("Bank"), &who, cents, "Dinner").done(),
    )
}

fn ask_playlist(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let name = format!("{} {}", *rng.pick(&["Road trip", "Focus", "Sunday", "Party"]), w.seed % 97);
    let song = 1 + rng.below(s.data.songs.items.len()) as u32;
    let title = s.data.songs.get(song)?.title.clone();
    let pid = s.data.playlists.next_id;
    draft(
        format!("Make a new playlist with \"{title}\" in it. Ask me what to call it."),
        json!({ "name": name, "song": song, "user_reply": format!("Call it {name}."), "must_ask": true }),
        Walk::new()
            .ask("What should the playlist be called?")
            .open("Music")
            .tap("tab_playlists")
            .tap("new_playlist")
            .fill("name", &name)
            .tap("create")
            .back()
            .tap("tab_songs")
            .tap(format!("song:{song}"))
            .tap("add_to_playlist")
            .tap(format!("to_playlist:{pid}"))
            .done(),
    )
}

fn ask_playlist_golden(p: &Value, s: &mut DeviceState) {
    let pid = music::create_playlist(s, str_param(p, "name"));
    music::add_song(s, pid, id_param(p, "song"));
}

// ---- Infeasible ----

fn overdraft(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let who = w.person(rng.below(w.people.len())).name();
    let cents = (s.data.balance_cents / 100 + rng.range(100, 900)) * 100;
    draft(
        format!("Send {} to {who} from my bank account.", money(cents)),
        json!({ "infeasible": true }),
        Walk::new().open("Bank").tap("transfer").fill("to", &who).fill("amount", &format!("{}.00", cents / 100)).tap("continue").infeasible(),
    )
}

fn unknown_station(w: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let city = *rng.pick(&["Paris", "Oslo", "Lisbon", "Vienna", "Prague"]);
    let day = w.now.div_euclid(DAY) * DAY + DAY;
    draft(
        format!("Book a train from {} to {city} for tomorrow.", w.home_city),
        json!({ "infeasible": true }),
        super::everyday::train_search(Walk::new().open("Trains"), &w.home_city, city, day).infeasible(),
    )
}

fn missing_setting(_: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let what = *rng.pick(&["5G", "NFC", "the hotspot", "face unlock"]);
    draft(format!("Turn on {what} in Settings."), json!({ "infeasible": true }), Walk::new().open("Settings").tap("display").back().infeasible())
}

fn missing_song(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let title = *rng.pick(&["Yellow Submarine Sky", "Dancing Alone", "Ocean Avenue Nights", "Paper Planes Home"]);
    (!s.data.songs.iter().any(|(_, x)| normalize(&x.title) == normalize(title))).then_some(())?;
    draft(format!("Play \"{title}\" from my music library."), json!({ "infeasible": true }), Walk::new().open("Music").fill("search", title).infeasible())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coming_weekdays_are_within_a_week_and_never_today() {
        let monday = time::days_from_civil(2026, 6, 1) * DAY + 9 * 60;
        assert_eq!(time::weekday(monday), 0);
        assert_eq!(coming(monday, 0), monday.div_euclid(DAY) * DAY + 7 * DAY, "next Monday from a Monday is a week on");
        assert_eq!(coming(monday, 4), monday.div_euclid(DAY) * DAY + 4 * DAY);
        let friday_after_next = coming(monday, 4) + 7 * DAY;
        assert_eq!(time::date_iso(friday_after_next), "2026-06-12");
    }
}
