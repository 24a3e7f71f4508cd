//! Cross-app families of the catalogue: a fact is read in one app (a message, a mail, an
//! event, a note, a statement) and acted on in another. Parameters name where the fact lives,
//! not only its value, so staging a different fact there changes what the verifier expects
//! only through the task's generation — and the tests check that the fact in the other app
//! is what the instruction depends on.

use guigym_core::Rng;
use serde_json::{json, Value};

use super::everyday::{food_order_golden, food_walk, train_book_golden, train_booking, transfer_walk, upcoming_ticket};
use super::judge::money_in_text;
use super::spec::{draft, id_param, int_param, str_param, Spec, Walk};
use super::{Draft, FamilyKind::CrossApp};
use guigym_phone::apps::messages;
use guigym_phone::money;
use guigym_phone::state::{Alarm, DeviceState, Event, Note};
use guigym_phone::time::{self, DAY};
use guigym_phone::world::World;

// Each golden reads its fact from the state it is given (the task's initial state when the
// verifier runs), so a fact staged differently in the source app changes what is expected.

pub const FAMILIES: &[Spec] = &[
    Spec { name: "cross.debt_to_bank", kind: CrossApp, apps: &["Messages", "Bank"], generate: debt_to_bank, golden: debt_golden },
    Spec { name: "cross.trip_train", kind: CrossApp, apps: &["Mail", "Trains"], generate: trip_train, golden: trip_train_golden },
    Spec { name: "cross.event_ride", kind: CrossApp, apps: &["Calendar", "Ride"], generate: event_ride, golden: event_ride_golden },
    Spec { name: "cross.event_place_save", kind: CrossApp, apps: &["Calendar", "Maps"], generate: event_place_save, golden: event_place_save_golden },
    Spec { name: "cross.event_alarm", kind: CrossApp, apps: &["Calendar", "Clock"], generate: event_alarm, golden: event_alarm_golden },
    Spec { name: "cross.code_to_message", kind: CrossApp, apps: &["Notes", "Messages"], generate: code_to_message, golden: code_message_golden },
    Spec { name: "cross.order_to_note", kind: CrossApp, apps: &["Shop", "Notes"], generate: order_to_note, golden: order_note_golden },
    Spec { name: "cross.trip_date_note", kind: CrossApp, apps: &["Mail", "Notes"], generate: trip_date_note, golden: trip_note_golden },
    Spec { name: "cross.walk_time_message", kind: CrossApp, apps: &["Maps", "Messages"], generate: walk_time_message, golden: walk_time_golden },
    Spec { name: "cross.event_post", kind: CrossApp, apps: &["Calendar", "Social"], generate: event_post, golden: event_post_golden },
    Spec { name: "cross.phone_to_transfer", kind: CrossApp, apps: &["Contacts", "Bank"], generate: phone_to_transfer, golden: phone_transfer_golden },
    Spec { name: "cross.song_to_message", kind: CrossApp, apps: &["Music", "Messages"], generate: song_to_message, golden: song_message_golden },
    Spec { name: "cross.rating_to_note", kind: CrossApp, apps: &["Reviews", "Notes"], generate: rating_to_note, golden: rating_note_golden },
    Spec { name: "cross.ticket_to_calendar", kind: CrossApp, apps: &["Trains", "Calendar"], generate: ticket_to_calendar, golden: ticket_event_golden },
    Spec { name: "cross.event_food", kind: CrossApp, apps: &["Calendar", "Food"], generate: event_food, golden: event_food_golden },
    Spec { name: "cross.balance_to_message", kind: CrossApp, apps: &["Bank", "Messages"], generate: balance_to_message, golden: balance_message_golden },
    Spec { name: "cross.last_ride_review", kind: CrossApp, apps: &["Ride", "Reviews"], generate: last_ride_review, golden: ride_review_golden },
];

fn send_text(p: &Value, s: &mut DeviceState, text: &str) {
    messages::send(s, str_param(p, "name"), str_param(p, "phone"), text);
}

fn add_note(s: &mut DeviceState, title: &str, body: &str) {
    s.data.notes.insert(Note { title: title.into(), body: body.into(), pinned: false });
}

fn with<T>(p: &Value, key: &str, table: &guigym_phone::state::Table<T>) -> Option<T>
where
    T: Clone,
{
    table.get(id_param(p, key)).cloned()
}

fn debt_golden(p: &Value, s: &mut DeviceState) {
    let Some(t) = with(p, "thread", &s.data.threads) else { return };
    let asked = t.messages.iter().rev().find(|m| !m.from_me).map(|m| money_in_text(&m.text)).and_then(|c| c.first().copied());
    if let Some(cents) = asked {
        guigym_phone::apps::bank::transfer(s, &t.name, cents, "");
    }
}

/// The travel date an email gives (its first date).
fn mail_date(p: &Value, s: &DeviceState) -> Option<i64> {
    let e = with(p, "mail", &s.data.emails)?;
    guigym_phone::time::dates_in_text(&e.body, s.now()).first().map(|d| d * DAY)
}

fn trip_train_golden(p: &Value, s: &mut DeviceState) {
    let Some(day) = mail_date(p, s) else { return };
    let mut p = p.clone();
    p["day"] = json!(day);
    train_book_golden(&p, s);
}

fn event_ride_golden(p: &Value, s: &mut DeviceState) {
    if let Some(e) = with(p, "event", &s.data.events) {
        guigym_phone::apps::ride::book(s, &e.location, "Standard");
    }
}

fn event_place_save_golden(p: &Value, s: &mut DeviceState) {
    if let Some(e) = with(p, "event", &s.data.events) {
        guigym_phone::apps::maps::save(s, &e.location, "Favourite");
    }
}

fn event_alarm_golden(p: &Value, s: &mut DeviceState) {
    if let Some(e) = with(p, "event", &s.data.events) {
        s.data.alarms.insert(Alarm { minute_of_day: (e.start - 60).rem_euclid(DAY), label: e.title, enabled: true });
    }
}

fn code_message_golden(p: &Value, s: &mut DeviceState) {
    let Some(n) = with(p, "note", &s.data.notes) else { return };
    let code: String = n.body.split_whitespace().last().unwrap_or("").trim_end_matches('.').to_string();
    send_text(p, s, &code);
}

fn order_note_golden(_: &Value, s: &mut DeviceState) {
    if let Some(number) = s.data.orders.iter().max_by_key(|(id, o)| (o.time, *id)).map(|(_, o)| o.number.clone()) {
        add_note(s, "Order", &number);
    }
}

fn trip_note_golden(p: &Value, s: &mut DeviceState) {
    if let Some(day) = mail_date(p, s) {
        add_note(s, "Trip", &time::date_iso(day));
    }
}

fn walk_time_golden(p: &Value, s: &mut DeviceState) {
    if let Some(place) = with(p, "place", &s.data.places) {
        send_text(p, s, &format!("I'm {} minutes away", place.walk_min));
    }
}

fn event_post_golden(p: &Value, s: &mut DeviceState) {
    if let Some(e) = with(p, "event", &s.data.events) {
        guigym_phone::apps::social::publish(s, &format!("Heading to {}", e.location));
    }
}

fn phone_transfer_golden(p: &Value, s: &mut DeviceState) {
    if let Some(c) = with(p, "contact", &s.data.contacts) {
        guigym_phone::apps::bank::transfer(s, &c.name, int_param(p, "cents"), "Thanks");
    }
}

fn song_message_golden(p: &Value, s: &mut DeviceState) {
    let title = with(p, "playlist", &s.data.playlists).and_then(|pl| pl.songs.first().and_then(|id| s.data.songs.get(*id)).map(|x| x.title.clone()));
    if let Some(title) = title {
        send_text(p, s, &title);
    }
}

fn rating_note_golden(p: &Value, s: &mut DeviceState) {
    let Some(place) = with(p, "place", &s.data.places) else { return };
    let (tenths, _) = guigym_phone::apps::reviews::rating(s, &place.name);
    add_note(s, &format!("{} rating", place.name), &guigym_phone::apps::reviews::stars_text(tenths));
}

fn ticket_event_golden(p: &Value, s: &mut DeviceState) {
    if let Some(t) = with(p, "ticket", &s.data.tickets) {
        s.data.events.insert(Event { title: format!("Train to {}", t.to), start: t.depart, duration_min: 60, location: String::new() });
    }
}

fn event_food_golden(p: &Value, s: &mut DeviceState) {
    if let Some(e) = with(p, "event", &s.data.events) {
        let mut p = p.clone();
        p["address"] = json!(e.location);
        food_order_golden(&p, s);
    }
}

fn balance_message_golden(p: &Value, s: &mut DeviceState) {
    let text = money(s.data.balance_cents);
    send_text(p, s, &text);
}

fn ride_review_golden(p: &Value, s: &mut DeviceState) {
    if let Some(r) = with(p, "ride", &s.data.rides) {
        guigym_phone::apps::reviews::write(s, &r.destination, int_param(p, "stars") as u32, "Nice place");
    }
}

/// A person of the world to write to: name and phone.
fn someone(w: &World, rng: &mut Rng) -> (String, String) {
    let p = w.person(rng.below(w.people.len()));
    (p.name(), p.phone.clone())
}

fn send_walk(w: Walk, name: &str, text: &str) -> Walk {
    w.open("Messages").tap("new").fill("to", name).fill("body", text).tap("send")
}

/// A calendar event with a place, and its id.
fn event_with_place<'a>(s: &'a DeviceState, rng: &mut Rng) -> Option<(u32, &'a Event)> {
    let now = s.now();
    let events: Vec<(u32, &Event)> = s.data.events.iter().filter(|(_, e)| !e.location.is_empty() && e.start > now).collect();
    (!events.is_empty()).then(|| *rng.pick(&events))
}

fn place_id(s: &DeviceState, name: &str) -> Option<u32> {
    s.data.places.iter().find(|(_, p)| p.name == name).map(|(id, _)| id)
}

fn debt_to_bank(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let debt = rng.pick(&w.debts).clone();
    let p = w.person(debt.with);
    let tid = s.data.threads.iter().find(|(_, t)| t.phone == p.phone).map(|(id, _)| id)?;
    (debt.cents < s.data.balance_cents).then_some(())?;
    draft(
        format!("{} asked me in Messages for some money. Send them exactly that amount from my bank, with no note.", p.name()),
        json!({ "to": p.name(), "cents": debt.cents, "note": "", "thread": tid }),
        transfer_walk(Walk::new().open("Messages").tap(format!("thread:{tid}")).open("Bank"), &p.name(), debt.cents, "").done(),
    )
}

fn trip_train(w: &World, s: &DeviceState, _: &mut Rng) -> Option<Draft> {
    let mail = s.data.emails.iter().find(|(_, e)| e.subject == "Travel plan").map(|(id, _)| id)?;
    let (mut params, walk) = train_booking(&w.home_city, &w.trip_city, w.trip_day, 0, "Second", &[0]);
    params["mail"] = json!(mail);
    let mut steps = Walk::new().open("Mail").tap(format!("email:{mail}")).done();
    steps.pop();
    let mut all = steps;
    all.push(guigym_core::Action::Home);
    all.extend(walk.done());
    draft("Book the train my \"Travel plan\" email asks for: the first train of that day, in the class it suggests, just for me.".into(), params, all)
}

fn event_ride(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (eid, e) = event_with_place(s, rng)?;
    let pid = place_id(s, &e.location)?;
    draft(
        format!("Book a Standard ride to wherever my \"{}\" event takes place.", e.title),
        json!({ "place": e.location, "class": "Standard", "event": eid }),
        Walk::new()
            .open("Calendar")
            .tap(format!("event:{eid}"))
            .open("Ride")
            .tap(format!("dest:{pid}"))
            .tap("search_rides")
            .tap("class:Standard")
            .tap("confirm_ride")
            .done(),
    )
}

fn event_place_save(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (eid, e) = event_with_place(s, rng)?;
    let pid = place_id(s, &e.location)?;
    (!s.data.saved_places.iter().any(|(_, sp)| sp.place == e.location)).then_some(())?;
    draft(
        format!("Save the place of my \"{}\" event in Maps as a Favourite.", e.title),
        json!({ "place": e.location, "label": "Favourite", "event": eid }),
        Walk::new().open("Calendar").tap(format!("event:{eid}")).open("Maps").tap(format!("place:{pid}")).tap("save").tap("label:Favourite").done(),
    )
}

fn event_alarm(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let now = s.now();
    let events: Vec<(u32, &Event)> = s.data.events.iter().filter(|(_, e)| e.start > now).collect();
    let (eid, e) = *rng.pick(&events);
    let minute = (e.start - 60).rem_euclid(DAY);
    draft(
        format!("Set an alarm one hour before my \"{}\" event starts, labelled \"{}\".", e.title, e.title),
        json!({ "minute": minute, "label": e.title, "event": eid }),
        Walk::new()
            .open("Calendar")
            .tap(format!("event:{eid}"))
            .open("Clock")
            .tap("new_alarm")
            .fill("time", &time::time_hm(minute))
            .fill("label", &e.title)
            .tap("save")
            .done(),
    )
}

fn code_to_message(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (place, code) = rng.pick(&w.codes).clone();
    let nid = s.data.notes.iter().find(|(_, n)| n.body.contains(&code)).map(|(id, _)| id)?;
    let (name, phone) = someone(w, rng);
    draft(
        format!("Text {name} the door code for {place} from my notes (the message is just the code)."),
        json!({ "name": name, "phone": phone, "text": code, "note": nid }),
        send_walk(Walk::new().open("Notes").tap(format!("note:{nid}")), &name, &code).done(),
    )
}

fn order_to_note(_: &World, s: &DeviceState, _: &mut Rng) -> Option<Draft> {
    let (oid, o) = s.data.orders.iter().max_by_key(|(id, o)| (o.time, *id))?;
    draft(
        "Create a note titled \"Order\" whose text is just the number of my most recent Shop order.".into(),
        json!({ "order": oid }),
        Walk::new()
            .open("Shop")
            .tap("orders")
            .tap(format!("order:{oid}"))
            .open("Notes")
            .tap("new")
            .fill("title", "Order")
            .fill("body", &o.number)
            .tap("save")
            .done(),
    )
}

fn trip_date_note(w: &World, s: &DeviceState, _: &mut Rng) -> Option<Draft> {
    let mail = s.data.emails.iter().find(|(_, e)| e.subject == "Travel plan").map(|(id, _)| id)?;
    let date = time::date_iso(w.trip_day);
    draft(
        "Create a note titled \"Trip\" whose text is the travel date from my \"Travel plan\" email, written as YYYY-MM-DD.".into(),
        json!({ "mail": mail }),
        Walk::new().open("Mail").tap(format!("email:{mail}")).open("Notes").tap("new").fill("title", "Trip").fill("body", &date).tap("save").done(),
    )
}

fn walk_time_message(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let pid = 1 + rng.below(s.data.places.items.len()) as u32;
    let place = s.data.places.get(pid)?;
    let text = format!("I'm {} minutes away", place.walk_min);
    let (name, phone) = someone(w, rng);
    draft(
        format!("Text {name} \"I'm N minutes away\", with N the walking time to {} in Maps.", place.name),
        json!({ "name": name, "phone": phone, "text": text, "place": pid }),
        send_walk(Walk::new().open("Maps").tap(format!("place:{pid}")).tap("directions").tap("mode:walk"), &name, &text).done(),
    )
}

fn event_post(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (eid, e) = event_with_place(s, rng)?;
    let text = format!("Heading to {}", e.location);
    draft(
        format!("Post \"Heading to PLACE\" on Social, where PLACE is where my \"{}\" event takes place.", e.title),
        json!({ "text": text, "event": eid }),
        Walk::new().open("Calendar").tap(format!("event:{eid}")).open("Social").tap("compose").fill("text", &text).tap("publish").done(),
    )
}

fn phone_to_transfer(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let contacts: Vec<(u32, &guigym_phone::state::Contact)> = s.data.contacts.iter().collect();
    let (cid, c) = *rng.pick(&contacts);
    let cents = rng.range(5, 60) * 100;
    draft(
        format!("Send {} from my bank to whoever in my contacts has the number {}. Use the note \"Thanks\".", money(cents), c.phone),
        json!({ "to": c.name, "cents": cents, "note": "Thanks", "contact": cid }),
        transfer_walk(Walk::new().open("Contacts").tap(format!("contact:{cid}")).open("Bank"), &c.name, cents, "Thanks").done(),
    )
}

fn song_to_message(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (pid, pl) = s.data.playlists.iter().find(|(_, p)| p.name == "Favourites")?;
    let title = s.data.songs.get(*pl.songs.first()?)?.title.clone();
    let (name, phone) = someone(w, rng);
    draft(
        format!("Text {name} the title of the first song in my Favourites playlist (just the title)."),
        json!({ "name": name, "phone": phone, "text": title, "playlist": pid }),
        send_walk(Walk::new().open("Music").tap("tab_playlists").tap(format!("playlist:{pid}")), &name, &title).done(),
    )
}

fn rating_to_note(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let pid = 1 + rng.below(s.data.places.items.len()) as u32;
    let name = s.data.places.get(pid)?.name.clone();
    let (tenths, n) = guigym_phone::apps::reviews::rating(s, &name);
    (n > 0).then_some(())?;
    let body = guigym_phone::apps::reviews::stars_text(tenths);
    let title = format!("{name} rating");
    draft(
        format!("Create a note titled \"{title}\" whose text is the average star rating of {name} in Reviews (like 3.5)."),
        json!({ "place": pid }),
        Walk::new().open("Reviews").tap(format!("place:{pid}")).open("Notes").tap("new").fill("title", &title).fill("body", &body).tap("save").done(),
    )
}

fn ticket_to_calendar(_: &World, s: &DeviceState, _: &mut Rng) -> Option<Draft> {
    let tid = upcoming_ticket(s)?;
    let t = s.data.tickets.get(tid)?;
    let title = format!("Train to {}", t.to);
    draft(
        format!("Add my upcoming train to {} to my calendar, titled \"{title}\", at its departure date and time.", t.to),
        json!({ "title": title, "start": t.depart, "ticket": tid }),
        Walk::new()
            .open("Trains")
            .tap("tab_tickets")
            .tap(format!("ticket:{tid}"))
            .open("Calendar")
            .tap("new")
            .fill("title", &title)
            .fill("date", &time::date_iso(t.depart))
            .fill("time", &time::time_hm(t.depart))
            .tap("save")
            .done(),
    )
}

fn event_food(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (eid, e) = event_with_place(s, rng)?;
    let rid = 1 + rng.below(s.data.restaurants.items.len()) as u32;
    let r = s.data.restaurants.get(rid)?;
    let dish = rng.below(r.menu.len());
    draft(
        format!("Order a {} from {} delivered to the place of my \"{}\" event (the place name is the address).", r.menu[dish].name, r.name, e.title),
        json!({ "restaurant": rid, "dishes": [dish], "address": e.location, "event": eid }),
        food_walk(Walk::new().open("Calendar").tap(format!("event:{eid}")), rid, &[dish], &e.location).done(),
    )
}

fn balance_to_message(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let text = money(s.data.balance_cents);
    let (name, phone) = someone(w, rng);
    draft(
        format!("Text {name} my current bank balance, written like $1234.56 and nothing else."),
        json!({ "name": name, "phone": phone, "text": text }),
        send_walk(Walk::new().open("Bank"), &name, &text).done(),
    )
}

fn last_ride_review(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (rid, ride) = s.data.rides.iter().filter(|(_, r)| r.status == "completed").max_by_key(|(id, r)| (r.time, *id))?;
    let pid = place_id(s, &ride.destination)?;
    let stars = rng.range(3, 5);
    draft(
        format!("Review the place my last completed ride took me to: {stars} stars, \"Nice place\"."),
        json!({ "place": ride.destination, "stars": stars, "text": "Nice place", "ride": rid }),
        Walk::new()
            .open("Ride")
            .tap("trips")
            .tap(format!("ride:{rid}"))
            .open("Reviews")
            .tap(format!("place:{pid}"))
            .tap("write")
            .tap(format!("star:{stars}"))
            .fill("text", "Nice place")
            .tap("post")
            .done(),
    )
}
