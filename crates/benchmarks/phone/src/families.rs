//! The task families of the four core apps (Contacts, Messages, Calendar, Mail): single-app
//! actions, retrieval, cross-app requests, infeasible and long ones. Data like the catalogue's
//! (`spec::Spec`): a generator and a golden each, judged by the one shared verifier.

use guigym_core::Rng;
use serde_json::{json, Value};

use super::spec::{draft, id_param, int_param, no_change, str_param, Spec, Walk};
use super::{Draft, FamilyKind::*};
use guigym_phone::apps::messages;
use guigym_phone::normalize;
use guigym_phone::state::{capitalize, Contact, DeviceState, Email, Event, Folder};
use guigym_phone::time::{self, DAY};
use guigym_phone::world::World;

pub const FAMILIES: &[Spec] = &[
    Spec { name: "contacts.add", kind: Action, apps: &["Contacts"], generate: add_contact, golden: add_contacts_golden },
    Spec { name: "contacts.edit_phone", kind: Action, apps: &["Contacts"], generate: edit_phone, golden: edit_phone_golden },
    Spec { name: "contacts.delete", kind: Action, apps: &["Contacts"], generate: delete_contact, golden: delete_contact_golden },
    Spec { name: "messages.send", kind: Action, apps: &["Messages"], generate: send_message, golden: send_golden },
    Spec { name: "calendar.create", kind: Action, apps: &["Calendar"], generate: create_event, golden: create_event_golden },
    Spec { name: "calendar.delete", kind: Action, apps: &["Calendar"], generate: delete_event, golden: delete_event_golden },
    Spec { name: "mail.delete", kind: Action, apps: &["Mail"], generate: delete_email, golden: delete_email_golden },
    Spec { name: "mail.reply", kind: Action, apps: &["Mail"], generate: reply_email, golden: reply_golden },
    Spec { name: "info.event_time", kind: Retrieval, apps: &["Calendar"], generate: event_time, golden: no_change },
    Spec { name: "info.contact_phone", kind: Retrieval, apps: &["Contacts"], generate: contact_phone, golden: no_change },
    Spec { name: "cross.mail_time_to_message", kind: CrossApp, apps: &["Mail", "Messages"], generate: mail_time_to_message, golden: mail_time_golden },
    Spec { name: "cross.mail_event_to_calendar", kind: CrossApp, apps: &["Mail", "Calendar"], generate: mail_event_to_calendar, golden: mail_event_golden },
    Spec {
        name: "cross.event_place_to_message",
        kind: CrossApp,
        apps: &["Calendar", "Messages"],
        generate: event_place_to_message,
        golden: event_place_golden,
    },
    Spec { name: "infeasible.delete_missing_event", kind: Infeasible, apps: &["Calendar"], generate: delete_missing_event, golden: no_change },
    Spec { name: "infeasible.message_stranger", kind: Infeasible, apps: &["Contacts", "Messages"], generate: message_stranger, golden: no_change },
    Spec { name: "long.add_contacts", kind: Long, apps: &["Contacts"], generate: add_many_contacts, golden: add_contacts_golden },
    Spec { name: "long.broadcast", kind: Long, apps: &["Messages"], generate: broadcast, golden: send_golden },
];

const NEW_TITLES: [&str; 10] = [
    "Dentist appointment",
    "Yoga class",
    "Call with the bank",
    "Piano lesson",
    "Car service",
    "Book club",
    "Haircut",
    "Vet visit",
    "Swimming",
    "Parents evening",
];
const MESSAGES: [&str; 8] = [
    "Running ten minutes late",
    "Can you call me tonight?",
    "Thanks for yesterday",
    "Dinner on Friday?",
    "I left the keys with Sam",
    "Happy to help with that",
    "Let's catch up next week",
    "Got your parcel",
];
const REPLIES: [&str; 5] =
    ["Thanks, that works for me.", "Sounds good, see you there.", "I will confirm tomorrow.", "Could we move it by an hour?", "Noted, thank you."];
const ABSENT_TITLES: [&str; 6] = ["Opera night", "Tax advisor", "Marathon training", "Wine tasting", "Chess club", "Pottery class"];

fn pick_contact<'a>(s: &'a DeviceState, rng: &mut Rng) -> (u32, &'a Contact) {
    let all: Vec<(u32, &Contact)> = s.data.contacts.iter().collect();
    *rng.pick(&all)
}

fn pick_event<'a>(s: &'a DeviceState, rng: &mut Rng) -> Option<(u32, &'a Event)> {
    let all: Vec<(u32, &Event)> = s.data.events.iter().collect();
    (!all.is_empty()).then(|| *rng.pick(&all))
}

fn pick_inbox<'a>(s: &'a DeviceState, rng: &mut Rng) -> Option<(u32, &'a Email)> {
    let all: Vec<(u32, &Email)> = s.data.emails.iter().filter(|(_, e)| e.folder == Folder::Inbox).collect();
    (!all.is_empty()).then(|| *rng.pick(&all))
}

fn new_phone(rng: &mut Rng) -> String {
    format!("+1 555 {:03} {:04}", rng.range(200, 999), rng.range(1000, 9999))
}

fn send_walk(w: Walk, name: &str, text: &str) -> Walk {
    w.open("Messages").tap("new").fill("to", name).fill("body", text).tap("send")
}

fn answer(kind: &str, value: Value) -> Value {
    json!({ "kind": kind, "value": value })
}

// ---- Contacts ----

fn add_contact(w: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (first, last) = rng.pick(&w.strangers).clone();
    let name = format!("{first} {last}");
    let phone = new_phone(rng);
    draft(
        format!("Add a new contact named {name} with the phone number {phone}."),
        json!({ "contacts": [{ "name": name, "phone": phone }] }),
        Walk::new().open("Contacts").tap("add").fill("name", &name).fill("phone", &phone).tap("save").done(),
    )
}

/// Adds every contact of `contacts` (one for `contacts.add`, several for the long family).
fn add_contacts_golden(p: &Value, s: &mut DeviceState) {
    for c in p.get("contacts").and_then(Value::as_array).into_iter().flatten() {
        s.data.contacts.insert(Contact { name: str_param(c, "name").into(), phone: str_param(c, "phone").into(), email: String::new() });
    }
}

fn edit_phone(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (id, c) = pick_contact(s, rng);
    let phone = new_phone(rng);
    draft(
        format!("Change {}'s phone number to {phone}.", c.name),
        json!({ "contact_id": id, "name": c.name, "phone": phone }),
        Walk::new().open("Contacts").tap(format!("contact:{id}")).tap("edit").fill("phone", &phone).tap("save").done(),
    )
}

fn edit_phone_golden(p: &Value, s: &mut DeviceState) {
    if let Some(c) = s.data.contacts.get_mut(id_param(p, "contact_id")) {
        c.phone = str_param(p, "phone").into();
    }
}

fn delete_contact(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (id, c) = pick_contact(s, rng);
    draft(
        format!("Delete {} from my contacts.", c.name),
        json!({ "contact_id": id, "name": c.name }),
        Walk::new().open("Contacts").tap(format!("contact:{id}")).tap("delete").tap("confirm_delete").done(),
    )
}

fn delete_contact_golden(p: &Value, s: &mut DeviceState) {
    s.data.contacts.items.remove(&id_param(p, "contact_id"));
}

// ---- Messages ----

fn send_message(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (_, c) = pick_contact(s, rng);
    let text = rng.pick(&MESSAGES).to_string();
    draft(
        format!("Send a text message to {} saying \"{text}\".", c.name),
        json!({ "recipients": [[c.name, c.phone]], "text": text }),
        send_walk(Walk::new(), &c.name, &text).done(),
    )
}

/// Sends `text` to every one of `recipients` (`[name, phone]` pairs).
fn send_golden(p: &Value, s: &mut DeviceState) {
    for r in p.get("recipients").and_then(Value::as_array).into_iter().flatten() {
        let at = |i: usize| r.get(i).and_then(Value::as_str).unwrap_or("");
        messages::send(s, at(0), at(1), str_param(p, "text"));
    }
}

// ---- Calendar ----

fn create_event(w: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let title = rng.pick(&NEW_TITLES).to_string();
    let start = (w.now.div_euclid(DAY) + rng.range(1, 20)) * DAY + rng.range(16, 39) * 30;
    let (date, hm) = (time::date_iso(start), time::time_hm(start));
    draft(
        format!("Create a calendar event \"{title}\" on {date} at {hm}."),
        json!({ "title": title, "start": start }),
        Walk::new().open("Calendar").tap("new").fill("title", &title).fill("date", &date).fill("time", &hm).tap("save").done(),
    )
}

fn create_event_golden(p: &Value, s: &mut DeviceState) {
    s.data.events.insert(Event { title: str_param(p, "title").into(), start: int_param(p, "start"), duration_min: 60, location: String::new() });
}

fn delete_event(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (id, e) = pick_event(s, rng)?;
    draft(
        format!("Delete the \"{}\" event on {} from my calendar.", e.title, time::date_human(e.start)),
        json!({ "event_id": id, "title": e.title }),
        Walk::new().open("Calendar").tap(format!("event:{id}")).tap("delete").tap("confirm_delete").done(),
    )
}

fn delete_event_golden(p: &Value, s: &mut DeviceState) {
    s.data.events.items.remove(&id_param(p, "event_id"));
}

// ---- Mail ----

fn delete_email(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (id, e) = pick_inbox(s, rng)?;
    draft(
        format!("Delete the email from {} with the subject \"{}\".", e.from_name, e.subject),
        json!({ "email_id": id }),
        Walk::new().open("Mail").tap(format!("email:{id}")).tap("delete").done(),
    )
}

fn delete_email_golden(p: &Value, s: &mut DeviceState) {
    if let Some(e) = s.data.emails.get_mut(id_param(p, "email_id")) {
        e.folder = Folder::Trash;
    }
}

fn reply_email(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (id, e) = pick_inbox(s, rng)?;
    let text = rng.pick(&REPLIES).to_string();
    draft(
        format!("Reply to {}'s email \"{}\" with: {text}", e.from_name, e.subject),
        json!({ "email_id": id, "text": text }),
        Walk::new().open("Mail").tap(format!("email:{id}")).tap("reply").fill("body", &text).tap("send").done(),
    )
}

fn reply_golden(p: &Value, s: &mut DeviceState) {
    let Some(e) = s.data.emails.get(id_param(p, "email_id")).cloned() else { return };
    let reply = Email {
        from_name: s.user_name.clone(),
        from: s.user_email.clone(),
        to: e.from,
        subject: format!("Re: {}", e.subject),
        body: str_param(p, "text").into(),
        time: s.now(),
        folder: Folder::Sent,
        read: true,
    };
    s.data.emails.insert(reply);
}

// ---- Retrieval ----

fn event_time(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (id, e) = pick_event(s, rng)?;
    let hm = time::time_hm(e.start);
    draft(
        format!("What time does my \"{}\" on {} start? Answer with the time.", e.title, time::date_human(e.start)),
        json!({ "event_id": id, "title": e.title, "answer": { "kind": "time", "value": e.start.rem_euclid(DAY), "day": e.start.div_euclid(DAY) * DAY } }),
        Walk::new().open("Calendar").tap(format!("event:{id}")).answer(hm).done(),
    )
}

fn contact_phone(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (id, c) = pick_contact(s, rng);
    draft(
        format!("What is {}'s phone number? Answer with the number.", c.name),
        json!({ "contact_id": id, "name": c.name, "answer": answer("phone", json!(c.phone)) }),
        Walk::new().open("Contacts").tap(format!("contact:{id}")).answer(c.phone.clone()).done(),
    )
}

// ---- Cross-app ----

/// The first date written as `5 Mar` in a text, in the year that puts it nearest after
/// `reference` (midnight, in minutes).
pub fn date_in_text(text: &str, reference: i64) -> Option<i64> {
    const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    let words: Vec<String> = text.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).collect();
    for pair in words.windows(2) {
        let (Ok(day), Some(month)) = (pair[0].parse::<u32>(), MONTHS.iter().position(|m| pair[1].starts_with(m))) else {
            continue;
        };
        let (ref_year, _, _) = time::civil_from_days(reference.div_euclid(DAY));
        for year in [ref_year, ref_year + 1] {
            if let Some(t) = time::parse_date(&format!("{year:04}-{:02}-{day:02}", month + 1)) {
                if t + DAY > reference - 60 * DAY {
                    return Some(t);
                }
            }
        }
    }
    None
}

/// The date and time an email gives for its happening.
fn email_start(e: &Email) -> Option<i64> {
    Some(date_in_text(&e.body, e.time)? + time::times_in_text(&e.body).first()?)
}

fn happening_email<'a>(s: &'a DeviceState, w: &World, rng: &mut Rng, in_calendar: Option<bool>) -> Option<(u32, &'a Email, String)> {
    let fits: Vec<&guigym_phone::world::Happening> = w.happenings.iter().filter(|h| in_calendar.is_none_or(|c| h.in_calendar == c)).collect();
    let h = *rng.pick(&fits);
    let subject = capitalize(&h.topic);
    s.data.emails.iter().find(|(_, e)| e.subject == subject).map(|(id, e)| (id, e, h.topic.clone()))
}

fn mail_time_to_message(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (id, e, topic) = happening_email(s, w, rng, None)?;
    let (_, c) = s.contact_named(&e.from_name)?;
    let hm = time::time_hm(*time::times_in_text(&e.body).first()?);
    let text = format!("The {topic} starts at {hm}.");
    draft(
        format!("Text {} the start time of the {topic} they emailed me about.", c.name),
        // The message may say the time in any sentence and format: the golden writes the
        // bare fact and `free_text` judges the agent's words by it.
        json!({ "source_id": id, "name": c.name, "phone": c.phone, "free_text": { "field": "text", "kind": "time" } }),
        send_walk(Walk::new().open("Mail").tap(format!("email:{id}")), &c.name, &text).done(),
    )
}

fn mail_time_golden(p: &Value, s: &mut DeviceState) {
    let Some(t) = s.data.emails.get(id_param(p, "source_id")).and_then(|e| time::times_in_text(&e.body).first().copied()) else { return };
    messages::send(s, str_param(p, "name"), str_param(p, "phone"), &time::time_hm(t));
}

fn mail_event_to_calendar(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (id, e, topic) = happening_email(s, w, rng, Some(false))?;
    let t = *time::times_in_text(&e.body).first()?;
    let date = date_in_text(&e.body, e.time)?;
    let title = capitalize(&topic);
    draft(
        format!("Add the {topic} that {} emailed me about to my calendar as \"{title}\", on the date and time given in the email.", e.from_name),
        json!({ "source_id": id, "title": title }),
        Walk::new()
            .open("Mail")
            .tap(format!("email:{id}"))
            .open("Calendar")
            .tap("new")
            .fill("title", &title)
            .fill("date", &time::date_iso(date))
            .fill("time", &time::time_hm(t))
            .tap("save")
            .done(),
    )
}

fn mail_event_golden(p: &Value, s: &mut DeviceState) {
    let Some(start) = s.data.emails.get(id_param(p, "source_id")).and_then(email_start) else { return };
    s.data.events.insert(Event { title: str_param(p, "title").into(), start, duration_min: 60, location: String::new() });
}

fn event_place_to_message(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (id, e) = pick_event(s, rng)?;
    let who = w.happenings.iter().find(|h| h.topic == e.title).map(|h| w.person(h.with))?;
    let (_, c) = s.contact_named(&who.name())?;
    let text = format!("The {} is at {}.", e.title, e.location);
    draft(
        format!("Text {} where my \"{}\" takes place.", c.name, e.title),
        json!({ "source_id": id, "name": c.name, "phone": c.phone, "free_text": { "field": "text", "kind": "place" } }),
        send_walk(Walk::new().open("Calendar").tap(format!("event:{id}")), &c.name, &text).done(),
    )
}

fn event_place_golden(p: &Value, s: &mut DeviceState) {
    let Some(place) = s.data.events.get(id_param(p, "source_id")).map(|e| e.location.clone()) else { return };
    messages::send(s, str_param(p, "name"), str_param(p, "phone"), &place);
}

// ---- Infeasible ----

fn delete_missing_event(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let title = rng.pick(&ABSENT_TITLES).to_string();
    if s.data.events.iter().any(|(_, e)| normalize(&e.title) == normalize(&title)) {
        return None;
    }
    draft(format!("Delete the \"{title}\" event from my calendar."), json!({ "title": title, "infeasible": true }), Walk::new().open("Calendar").infeasible())
}

fn message_stranger(w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let (first, last) = rng.pick(&w.strangers).clone();
    let name = format!("{first} {last}");
    if s.contact_named(&name).is_some() {
        return None;
    }
    let text = rng.pick(&MESSAGES).to_string();
    draft(format!("Send a text message to {name} saying \"{text}\"."), json!({ "name": name, "infeasible": true }), Walk::new().open("Contacts").infeasible())
}

// ---- Long tasks (walkthroughs of 20+ steps) ----

fn add_many_contacts(w: &World, _: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let mut strangers = w.strangers.clone();
    rng.shuffle(&mut strangers);
    let contacts: Vec<(String, String)> = strangers.iter().take(3).map(|(f, l)| (format!("{f} {l}"), new_phone(rng))).collect();
    let listed: Vec<String> = contacts.iter().map(|(name, phone)| format!("{name} ({phone})")).collect();
    let mut walk = Walk::new().open("Contacts");
    for (name, phone) in &contacts {
        // After saving, the new contact's page is open: back to the list first.
        walk = walk.tap("add").fill("name", name).fill("phone", phone).tap("save").back();
    }
    let contacts: Vec<Value> = contacts.iter().map(|(name, phone)| json!({ "name": name, "phone": phone })).collect();
    draft(format!("Add these new contacts: {}.", listed.join(", ")), json!({ "contacts": contacts }), walk.done())
}

fn broadcast(_: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
    let mut all: Vec<&Contact> = s.data.contacts.items.values().collect();
    rng.shuffle(&mut all);
    let recipients: Vec<(String, String)> = all.iter().take(3).map(|c| (c.name.clone(), c.phone.clone())).collect();
    let text = rng.pick(&MESSAGES).to_string();
    let names: Vec<&str> = recipients.iter().map(|r| r.0.as_str()).collect();
    let mut walk = Walk::new().open("Messages");
    for (name, _) in &recipients {
        // Sending opens the conversation: back to the list before the next one.
        walk = walk.tap("new").fill("to", name).fill("body", &text).tap("send").back();
    }
    draft(format!("Send each of {} the text message \"{text}\".", names.join(", ")), json!({ "recipients": recipients, "text": text }), walk.done())
}
