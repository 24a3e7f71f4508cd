//! The task families of the four core apps: single-app actions, retrieval, cross-app
//! requests and infeasible ones.

use guigym_core::{Action, Check, Rng, TerminateStatus, Verdict};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::judge::{answer_is_phone, answer_is_time, new_ids, Judge};
use super::{Draft, EpisodeLog, Family, FamilyKind};
use crate::apps::messages;
use crate::state::{capitalize, Contact, DeviceState, Email, Event, Folder};
use crate::time::{self, DAY};
use crate::world::World;
use crate::{digits, normalize};

pub static ALL: &[&dyn Family] = &[
    &AddContact,
    &EditPhone,
    &DeleteContact,
    &SendMessage,
    &CreateEvent,
    &DeleteEvent,
    &DeleteEmail,
    &ReplyEmail,
    &EventTime,
    &ContactPhone,
    &MailTimeToMessage,
    &MailEventToCalendar,
    &EventPlaceToMessage,
    &DeleteMissingEvent,
    &MessageStranger,
    &AddManyContacts,
    &Broadcast,
];

// ---- walkthrough vocabulary ----

fn open(app: &str) -> Action {
    Action::click_element(format!("app:{app}"))
}

fn tap(id: impl Into<String>) -> Action {
    Action::click_element(id)
}

/// Tap a field, then type into it.
fn fill(field: &str, text: &str) -> [Action; 2] {
    [tap(field), Action::Type { text: text.to_string(), element: None, clear: false }]
}

/// Tap a field, then replace its text.
fn refill(field: &str, text: &str) -> [Action; 2] {
    [tap(field), Action::Type { text: text.to_string(), element: None, clear: true }]
}

fn finish(status: TerminateStatus) -> Action {
    Action::Terminate { status }
}

fn answer(text: impl Into<String>) -> Action {
    Action::Answer { text: text.into() }
}

/// Concatenates action groups into one walkthrough.
macro_rules! walk {
    ($($part:expr),* $(,)?) => {{
        let mut v: Vec<Action> = Vec::new();
        $( v.extend($part); )*
        v
    }};
}

fn one(a: Action) -> [Action; 1] {
    [a]
}

// ---- shared verifier pieces ----

fn params<T: DeserializeOwned>(v: &Value) -> Result<T, Verdict> {
    serde_json::from_value(v.clone())
        .map_err(|e| Verdict::from_checks(vec![Check::new("params", false, format!("malformed task parameters: {e}"))], vec![]))
}

/// Outgoing messages added to the conversation with a phone number.
fn sent_messages<'a>(j: &mut Judge<'a>, phone: &str) -> Vec<&'a str> {
    let want = digits(phone);
    let mut out = Vec::new();
    for (tid, t) in j.last.threads.iter() {
        if digits(&t.phone) != want {
            continue;
        }
        let before = j.initial.threads.get(tid).map(|t| t.messages.len()).unwrap_or(0);
        j.allow(format!("threads/items/{tid}"));
        j.allow("threads/next_id");
        out.extend(t.messages.iter().skip(before).filter(|m| m.from_me).map(|m| m.text.as_str()));
    }
    out
}

fn pick_contact<'a>(s: &'a DeviceState, rng: &mut Rng) -> (u32, &'a Contact) {
    let all: Vec<(u32, &Contact)> = s.data.contacts.iter().collect();
    *rng.pick(&all)
}

fn last_answer(log: &EpisodeLog) -> Option<&str> {
    log.answers.last().map(String::as_str)
}

const NEW_TITLES: [&str; 10] = [
    "Dentist appointment", "Yoga class", "Call with the bank", "Piano lesson", "Car service", "Book club",
    "Haircut", "Vet visit", "Swimming", "Parents evening",
];
const MESSAGES: [&str; 8] = [
    "Running ten minutes late", "Can you call me tonight?", "Thanks for yesterday", "Dinner on Friday?",
    "I left the keys with Sam", "Happy to help with that", "Let's catch up next week", "Got your parcel",
];
const REPLIES: [&str; 5] =
    ["Thanks, that works for me.", "Sounds good, see you there.", "I will confirm tomorrow.", "Could we move it by an hour?", "Noted, thank you."];

// ---- Contacts ----

pub struct AddContact;

#[derive(Serialize, Deserialize)]
struct NewContact {
    name: String,
    phone: String,
}

impl Family for AddContact {
    fn name(&self) -> &'static str {
        "contacts.add"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Action
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Contacts"]
    }
    fn generate(&self, w: &World, _s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (first, last) = rng.pick(&w.strangers).clone();
        let name = format!("{first} {last}");
        let phone = format!("+1 555 {:03} {:04}", rng.range(200, 999), rng.range(1000, 9999));
        Some(Draft {
            instruction: format!("Add a new contact named {name} with the phone number {phone}."),
            params: json!({ "name": name, "phone": phone }),
            walkthrough: walk![one(open("Contacts")), one(tap("add")), fill("name", &name), fill("phone", &phone), one(tap("save")), one(finish(TerminateStatus::Success))],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<NewContact>(p.clone()) {
            s.data.contacts.insert(Contact { name: p.name, phone: p.phone, email: String::new() });
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: NewContact = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        let added: Vec<u32> = new_ids(&initial.data.contacts, &last.data.contacts);
        let found = added.iter().find(|id| last.data.contacts.get(**id).is_some_and(|c| normalize(&c.name) == normalize(&p.name)));
        j.check("contact_added", found.is_some(), format!("no new contact named {}", p.name));
        if let Some(id) = found {
            j.allow(format!("contacts/items/{id}"));
            j.allow("contacts/next_id");
            let phone = last.data.contacts.get(*id).map(|c| c.phone.clone()).unwrap_or_default();
            j.check("phone_matches", digits(&phone) == digits(&p.phone), format!("phone is \"{phone}\""));
        }
        j.finish()
    }
}

pub struct EditPhone;

#[derive(Serialize, Deserialize)]
struct ContactChange {
    contact_id: u32,
    name: String,
    phone: String,
}

impl Family for EditPhone {
    fn name(&self) -> &'static str {
        "contacts.edit_phone"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Action
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Contacts"]
    }
    fn generate(&self, _w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (id, c) = pick_contact(s, rng);
        let phone = format!("+1 555 {:03} {:04}", rng.range(200, 999), rng.range(1000, 9999));
        Some(Draft {
            instruction: format!("Change {}'s phone number to {phone}.", c.name),
            params: json!({ "contact_id": id, "name": c.name, "phone": phone }),
            walkthrough: walk![
                one(open("Contacts")),
                one(tap(format!("contact:{id}"))),
                one(tap("edit")),
                refill("phone", &phone),
                one(tap("save")),
                one(finish(TerminateStatus::Success))
            ],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<ContactChange>(p.clone()) {
            if let Some(c) = s.data.contacts.get_mut(p.contact_id) {
                c.phone = p.phone;
            }
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: ContactChange = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        j.allow(format!("contacts/items/{}/phone", p.contact_id));
        let now = last.data.contacts.get(p.contact_id).map(|c| c.phone.clone());
        j.check("contact_kept", now.is_some(), format!("{} was deleted", p.name));
        let now = now.unwrap_or_default();
        j.check("phone_changed", digits(&now) == digits(&p.phone), format!("phone is \"{now}\""));
        j.finish()
    }
}

pub struct DeleteContact;

#[derive(Serialize, Deserialize)]
struct ContactRef {
    contact_id: u32,
    name: String,
}

impl Family for DeleteContact {
    fn name(&self) -> &'static str {
        "contacts.delete"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Action
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Contacts"]
    }
    fn generate(&self, _w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (id, c) = pick_contact(s, rng);
        Some(Draft {
            instruction: format!("Delete {} from my contacts.", c.name),
            params: json!({ "contact_id": id, "name": c.name }),
            walkthrough: walk![
                one(open("Contacts")),
                one(tap(format!("contact:{id}"))),
                one(tap("delete")),
                one(tap("confirm_delete")),
                one(finish(TerminateStatus::Success))
            ],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<ContactRef>(p.clone()) {
            s.data.contacts.items.remove(&p.contact_id);
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: ContactRef = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        j.allow(format!("contacts/items/{}", p.contact_id));
        j.check("contact_deleted", last.data.contacts.get(p.contact_id).is_none(), format!("{} is still there", p.name));
        j.finish()
    }
}

// ---- Messages ----

pub struct SendMessage;

#[derive(Serialize, Deserialize)]
struct Text {
    name: String,
    phone: String,
    text: String,
}

impl Family for SendMessage {
    fn name(&self) -> &'static str {
        "messages.send"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Action
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Messages"]
    }
    fn generate(&self, _w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (_, c) = pick_contact(s, rng);
        let text = rng.pick(&MESSAGES).to_string();
        Some(Draft {
            instruction: format!("Send a text message to {} saying \"{text}\".", c.name),
            params: json!({ "name": c.name, "phone": c.phone, "text": text }),
            walkthrough: walk![
                one(open("Messages")),
                one(tap("new")),
                fill("to", &c.name),
                fill("body", &text),
                one(tap("send")),
                one(finish(TerminateStatus::Success))
            ],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<Text>(p.clone()) {
            messages::send(s, &p.name, &p.phone, &p.text);
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: Text = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        let sent = sent_messages(&mut j, &p.phone);
        j.check("message_sent", !sent.is_empty(), format!("no new message to {}", p.name));
        // Exactly the message asked for: a second one (a correction, a contradiction) fails.
        let exact = sent.len() == 1 && sent.iter().all(|m| normalize(m) == normalize(&p.text));
        j.check("text_matches", exact, format!("sent {:?}", sent));
        j.finish()
    }
}

// ---- Calendar ----

pub struct CreateEvent;

#[derive(Serialize, Deserialize)]
struct NewEvent {
    title: String,
    start: i64,
}

impl Family for CreateEvent {
    fn name(&self) -> &'static str {
        "calendar.create"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Action
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Calendar"]
    }
    fn generate(&self, w: &World, _s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let title = rng.pick(&NEW_TITLES).to_string();
        let start = (w.now.div_euclid(DAY) + rng.range(1, 20)) * DAY + rng.range(16, 39) * 30;
        let (date, hm) = (time::date_iso(start), time::time_hm(start));
        Some(Draft {
            instruction: format!("Create a calendar event \"{title}\" on {date} at {hm}."),
            params: json!({ "title": title, "start": start }),
            walkthrough: walk![
                one(open("Calendar")),
                one(tap("new")),
                fill("title", &title),
                fill("date", &date),
                fill("time", &hm),
                one(tap("save")),
                one(finish(TerminateStatus::Success))
            ],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<NewEvent>(p.clone()) {
            s.data.events.insert(Event { title: p.title, start: p.start, duration_min: 60, location: String::new() });
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: NewEvent = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        new_event_verdict(initial, last, |t| normalize(t) == normalize(&p.title), &p.title, p.start)
    }
}

/// A new event whose title passes `title_ok` starts at `start`; nothing else changed.
fn new_event_verdict(initial: &DeviceState, last: &DeviceState, title_ok: impl Fn(&str) -> bool, title: &str, start: i64) -> Verdict {
    let mut j = Judge::new(&initial.data, &last.data);
    let added = new_ids(&initial.data.events, &last.data.events);
    let found = added.iter().find(|id| last.data.events.get(**id).is_some_and(|e| title_ok(&e.title)));
    j.check("event_created", found.is_some(), format!("no new event titled like \"{title}\""));
    if let Some(id) = found {
        j.allow(format!("events/items/{id}"));
        j.allow("events/next_id");
        let got = last.data.events.get(*id).map(|e| e.start).unwrap_or_default();
        j.check("date_matches", got.div_euclid(DAY) == start.div_euclid(DAY), format!("on {}", time::date_iso(got)));
        j.check("time_matches", got.rem_euclid(DAY) == start.rem_euclid(DAY), format!("at {}", time::time_hm(got)));
    }
    j.finish()
}

pub struct DeleteEvent;

#[derive(Serialize, Deserialize)]
struct EventRef {
    event_id: u32,
    title: String,
}

fn pick_event<'a>(s: &'a DeviceState, rng: &mut Rng) -> Option<(u32, &'a Event)> {
    let all: Vec<(u32, &Event)> = s.data.events.iter().collect();
    (!all.is_empty()).then(|| *rng.pick(&all))
}

impl Family for DeleteEvent {
    fn name(&self) -> &'static str {
        "calendar.delete"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Action
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Calendar"]
    }
    fn generate(&self, _w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (id, e) = pick_event(s, rng)?;
        Some(Draft {
            instruction: format!("Delete the \"{}\" event on {} from my calendar.", e.title, time::date_human(e.start)),
            params: json!({ "event_id": id, "title": e.title }),
            walkthrough: walk![
                one(open("Calendar")),
                one(tap(format!("event:{id}"))),
                one(tap("delete")),
                one(tap("confirm_delete")),
                one(finish(TerminateStatus::Success))
            ],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<EventRef>(p.clone()) {
            s.data.events.items.remove(&p.event_id);
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: EventRef = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        j.allow(format!("events/items/{}", p.event_id));
        j.check("event_deleted", last.data.events.get(p.event_id).is_none(), format!("\"{}\" is still there", p.title));
        j.finish()
    }
}

// ---- Mail ----

#[derive(Serialize, Deserialize)]
struct EmailRef {
    email_id: u32,
    #[serde(default)]
    text: String,
}

fn pick_inbox<'a>(s: &'a DeviceState, rng: &mut Rng) -> Option<(u32, &'a Email)> {
    let all: Vec<(u32, &Email)> = s.data.emails.iter().filter(|(_, e)| e.folder == Folder::Inbox).collect();
    (!all.is_empty()).then(|| *rng.pick(&all))
}

pub struct DeleteEmail;

impl Family for DeleteEmail {
    fn name(&self) -> &'static str {
        "mail.delete"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Action
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Mail"]
    }
    fn generate(&self, _w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (id, e) = pick_inbox(s, rng)?;
        Some(Draft {
            instruction: format!("Delete the email from {} with the subject \"{}\".", e.from_name, e.subject),
            params: json!({ "email_id": id }),
            walkthrough: walk![one(open("Mail")), one(tap(format!("email:{id}"))), one(tap("delete")), one(finish(TerminateStatus::Success))],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<EmailRef>(p.clone()) {
            if let Some(e) = s.data.emails.get_mut(p.email_id) {
                e.folder = Folder::Trash;
            }
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: EmailRef = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        j.allow(format!("emails/items/{}/folder", p.email_id));
        let folder = last.data.emails.get(p.email_id).map(|e| e.folder);
        j.check("email_in_trash", folder == Some(Folder::Trash), format!("folder is {folder:?}"));
        j.finish()
    }
}

pub struct ReplyEmail;

impl Family for ReplyEmail {
    fn name(&self) -> &'static str {
        "mail.reply"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Action
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Mail"]
    }
    fn generate(&self, _w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (id, e) = pick_inbox(s, rng)?;
        let text = rng.pick(&REPLIES).to_string();
        Some(Draft {
            instruction: format!("Reply to {}'s email \"{}\" with: {text}", e.from_name, e.subject),
            params: json!({ "email_id": id, "text": text }),
            walkthrough: walk![
                one(open("Mail")),
                one(tap(format!("email:{id}"))),
                one(tap("reply")),
                fill("body", &text),
                one(tap("send")),
                one(finish(TerminateStatus::Success))
            ],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        let Ok(p) = serde_json::from_value::<EmailRef>(p.clone()) else { return };
        let Some(e) = s.data.emails.get(p.email_id).cloned() else { return };
        let reply = Email {
            from_name: s.user_name.clone(),
            from: s.user_email.clone(),
            to: e.from,
            subject: format!("Re: {}", e.subject),
            body: p.text,
            time: s.now(),
            folder: Folder::Sent,
            read: true,
        };
        s.data.emails.insert(reply);
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: EmailRef = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let Some(original) = initial.data.emails.get(p.email_id) else {
            return Verdict::from_checks(vec![Check::new("params", false, "the email to reply to is missing")], vec![]);
        };
        let mut j = Judge::new(&initial.data, &last.data);
        let replies: Vec<u32> = new_ids(&initial.data.emails, &last.data.emails)
            .into_iter()
            .filter(|id| last.data.emails.get(*id).is_some_and(|e| e.folder == Folder::Sent && normalize(&e.to) == normalize(&original.from)))
            .collect();
        j.check("reply_sent", replies.len() == 1, format!("{} emails sent to {} (one reply is asked for)", replies.len(), original.from));
        for id in &replies {
            j.allow(format!("emails/items/{id}"));
        }
        j.allow("emails/next_id");
        let bodies: Vec<&Email> = replies.iter().filter_map(|id| last.data.emails.get(*id)).collect();
        j.check(
            "subject_matches",
            bodies.iter().any(|e| normalize(&e.subject).contains(&normalize(&original.subject))),
            "the reply's subject does not name the original",
        );
        // The reply says the text, and nothing else (a contradicting sentence after it fails).
        let says = |body: &str| normalize(body) == normalize(&p.text);
        j.check("text_matches", bodies.iter().all(|e| says(&e.body)) && !bodies.is_empty(), "the reply does not say exactly the text");
        j.finish()
    }
}

// ---- Retrieval ----

pub struct EventTime;

impl Family for EventTime {
    fn name(&self) -> &'static str {
        "info.event_time"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Retrieval
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Calendar"]
    }
    fn generate(&self, _w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (id, e) = pick_event(s, rng)?;
        Some(Draft {
            instruction: format!("What time does my \"{}\" on {} start? Answer with the time.", e.title, time::date_human(e.start)),
            params: json!({ "event_id": id, "title": e.title }),
            walkthrough: walk![one(open("Calendar")), one(tap(format!("event:{id}"))), one(answer(time::time_hm(e.start))), one(finish(TerminateStatus::Success))],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<EventRef>(p.clone()) {
            if let Some(e) = s.data.events.get(p.event_id) {
                log.answers.push(time::time_hm(e.start));
                log.terminated = Some(TerminateStatus::Success);
            }
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict {
        let p: EventRef = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        // The truth is read from the calendar itself, not from the task's parameters.
        let start = initial.data.events.get(p.event_id).map(|e| e.start.rem_euclid(DAY));
        let ans = last_answer(log);
        if j.check("answered", ans.is_some(), "no answer was given") {
            let ok = start.is_some_and(|t| answer_is_time(ans.unwrap_or(""), t));
            j.check("answer_is_start_time", ok, format!("answered {:?}", ans.unwrap_or("")));
        }
        j.finish()
    }
}

pub struct ContactPhone;

impl Family for ContactPhone {
    fn name(&self) -> &'static str {
        "info.contact_phone"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Retrieval
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Contacts"]
    }
    fn generate(&self, _w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (id, c) = pick_contact(s, rng);
        Some(Draft {
            instruction: format!("What is {}'s phone number? Answer with the number.", c.name),
            params: json!({ "contact_id": id, "name": c.name }),
            walkthrough: walk![one(open("Contacts")), one(tap(format!("contact:{id}"))), one(answer(c.phone.clone())), one(finish(TerminateStatus::Success))],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<ContactRef>(p.clone()) {
            if let Some(c) = s.data.contacts.get(p.contact_id) {
                log.answers.push(c.phone.clone());
                log.terminated = Some(TerminateStatus::Success);
            }
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict {
        let p: ContactRef = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        let phone = initial.data.contacts.get(p.contact_id).map(|c| c.phone.clone()).unwrap_or_default();
        let ans = last_answer(log);
        if j.check("answered", ans.is_some(), "no answer was given") {
            let ans = ans.unwrap_or("");
            j.check("answer_is_phone", answer_is_phone(ans, &phone), format!("answered {ans:?}"));
        }
        j.finish()
    }
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

pub struct MailTimeToMessage;

#[derive(Serialize, Deserialize)]
struct Relay {
    /// Where the fact lives (an email or an event).
    source_id: u32,
    name: String,
    phone: String,
}

fn happening_email<'a>(s: &'a DeviceState, w: &World, rng: &mut Rng, in_calendar: Option<bool>) -> Option<(u32, &'a Email, String)> {
    let fits: Vec<&crate::world::Happening> =
        w.happenings.iter().filter(|h| in_calendar.is_none_or(|c| h.in_calendar == c)).collect();
    let h = *rng.pick(&fits);
    let subject = capitalize(&h.topic);
    s.data.emails.iter().find(|(_, e)| e.subject == subject).map(|(id, e)| (id, e, h.topic.clone()))
}

impl Family for MailTimeToMessage {
    fn name(&self) -> &'static str {
        "cross.mail_time_to_message"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::CrossApp
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Mail", "Messages"]
    }
    fn generate(&self, w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (id, e, topic) = happening_email(s, w, rng, None)?;
        let (_, c) = s.contact_named(&e.from_name)?;
        let hm = time::time_hm(*time::times_in_text(&e.body).first()?);
        let text = format!("The {topic} starts at {hm}.");
        Some(Draft {
            instruction: format!("Text {} the start time of the {topic} they emailed me about.", c.name),
            params: json!({ "source_id": id, "name": c.name, "phone": c.phone }),
            walkthrough: walk![
                one(open("Mail")),
                one(tap(format!("email:{id}"))),
                one(Action::Home),
                one(open("Messages")),
                one(tap("new")),
                fill("to", &c.name),
                fill("body", &text),
                one(tap("send")),
                one(finish(TerminateStatus::Success))
            ],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        let Ok(p) = serde_json::from_value::<Relay>(p.clone()) else { return };
        let Some(t) = s.data.emails.get(p.source_id).and_then(|e| time::times_in_text(&e.body).first().copied()) else { return };
        messages::send(s, &p.name, &p.phone, &format!("It starts at {}.", time::time_hm(t)));
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: Relay = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        // The time comes from the email as it stood at reset.
        let truth = initial.data.emails.get(p.source_id).and_then(|e| time::times_in_text(&e.body).first().copied());
        let sent = sent_messages(&mut j, &p.phone);
        j.check("message_sent", !sent.is_empty(), format!("no new message to {}", p.name));
        let ok = sent.len() == 1 && truth.is_some_and(|t| sent.iter().all(|m| answer_is_time(m, t)));
        j.check("mentions_start_time", ok, format!("sent {sent:?}"));
        j.finish()
    }
}

pub struct MailEventToCalendar;

impl Family for MailEventToCalendar {
    fn name(&self) -> &'static str {
        "cross.mail_event_to_calendar"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::CrossApp
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Mail", "Calendar"]
    }
    fn generate(&self, w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (id, e, topic) = happening_email(s, w, rng, Some(false))?;
        let t = *time::times_in_text(&e.body).first()?;
        let date = date_in_text(&e.body, e.time)?;
        let title = capitalize(&topic);
        Some(Draft {
            instruction: format!("Add the {topic} that {} emailed me about to my calendar, on the date and time given in the email.", e.from_name),
            params: json!({ "source_id": id, "topic": topic }),
            walkthrough: walk![
                one(open("Mail")),
                one(tap(format!("email:{id}"))),
                one(Action::Home),
                one(open("Calendar")),
                one(tap("new")),
                fill("title", &title),
                fill("date", &time::date_iso(date)),
                fill("time", &time::time_hm(t)),
                one(tap("save")),
                one(finish(TerminateStatus::Success))
            ],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        let Ok(p) = serde_json::from_value::<MailTopic>(p.clone()) else { return };
        let Some(start) = s.data.emails.get(p.source_id).and_then(email_start) else { return };
        s.data.events.insert(Event { title: capitalize(&p.topic), start, duration_min: 60, location: String::new() });
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: MailTopic = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let Some(start) = initial.data.emails.get(p.source_id).and_then(email_start) else {
            return Verdict::from_checks(vec![Check::new("source", false, "the email has no date and time")], vec![]);
        };
        let topic = normalize(&p.topic);
        new_event_verdict(initial, last, |t| normalize(t).contains(&topic), &p.topic, start)
    }
}

#[derive(Serialize, Deserialize)]
struct MailTopic {
    source_id: u32,
    topic: String,
}

/// The date and time an email gives for its happening.
fn email_start(e: &Email) -> Option<i64> {
    Some(date_in_text(&e.body, e.time)? + time::times_in_text(&e.body).first()?)
}

pub struct EventPlaceToMessage;

impl Family for EventPlaceToMessage {
    fn name(&self) -> &'static str {
        "cross.event_place_to_message"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::CrossApp
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Calendar", "Messages"]
    }
    fn generate(&self, w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (id, e) = pick_event(s, rng)?;
        let who = w.happenings.iter().find(|h| h.topic == e.title).map(|h| w.person(h.with))?;
        let (_, c) = s.contact_named(&who.name())?;
        let text = format!("The {} is at {}.", e.title, e.location);
        Some(Draft {
            instruction: format!("Text {} where my \"{}\" takes place.", c.name, e.title),
            params: json!({ "source_id": id, "name": c.name, "phone": c.phone }),
            walkthrough: walk![
                one(open("Calendar")),
                one(tap(format!("event:{id}"))),
                one(Action::Home),
                one(open("Messages")),
                one(tap("new")),
                fill("to", &c.name),
                fill("body", &text),
                one(tap("send")),
                one(finish(TerminateStatus::Success))
            ],
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        let Ok(p) = serde_json::from_value::<Relay>(p.clone()) else { return };
        let Some(place) = s.data.events.get(p.source_id).map(|e| e.location.clone()) else { return };
        messages::send(s, &p.name, &p.phone, &format!("It is at {place}."));
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: Relay = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        let place = initial.data.events.get(p.source_id).map(|e| normalize(&e.location)).unwrap_or_default();
        let sent = sent_messages(&mut j, &p.phone);
        j.check("message_sent", !sent.is_empty(), format!("no new message to {}", p.name));
        let ok = !place.is_empty() && sent.len() == 1 && sent.iter().all(|m| normalize(m).contains(&place));
        j.check("mentions_place", ok, format!("sent {sent:?}"));
        j.finish()
    }
}

// ---- Infeasible ----

/// The right move is to say it cannot be done, and to change nothing.
fn infeasible_verdict(initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict {
    let mut j = Judge::new(&initial.data, &last.data);
    j.check(
        "reported_infeasible",
        log.terminated == Some(TerminateStatus::Infeasible),
        format!("terminated with {:?}", log.terminated),
    );
    j.finish()
}

pub struct DeleteMissingEvent;

const ABSENT_TITLES: [&str; 6] = ["Opera night", "Tax advisor", "Marathon training", "Wine tasting", "Chess club", "Pottery class"];

impl Family for DeleteMissingEvent {
    fn name(&self) -> &'static str {
        "infeasible.delete_missing_event"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Infeasible
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Calendar"]
    }
    fn generate(&self, _w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let title = rng.pick(&ABSENT_TITLES).to_string();
        if s.data.events.iter().any(|(_, e)| normalize(&e.title) == normalize(&title)) {
            return None;
        }
        Some(Draft {
            instruction: format!("Delete the \"{title}\" event from my calendar."),
            params: json!({ "title": title }),
            walkthrough: walk![one(open("Calendar")), one(finish(TerminateStatus::Infeasible))],
        })
    }
    fn golden(&self, _p: &Value, _s: &mut DeviceState, log: &mut EpisodeLog) {
        log.terminated = Some(TerminateStatus::Infeasible);
    }
    fn verify(&self, _p: &Value, initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict {
        infeasible_verdict(initial, last, log)
    }
}

pub struct MessageStranger;

impl Family for MessageStranger {
    fn name(&self) -> &'static str {
        "infeasible.message_stranger"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Infeasible
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Contacts", "Messages"]
    }
    fn generate(&self, w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let (first, last) = rng.pick(&w.strangers).clone();
        let name = format!("{first} {last}");
        if s.contact_named(&name).is_some() {
            return None;
        }
        let text = rng.pick(&MESSAGES).to_string();
        Some(Draft {
            instruction: format!("Send a text message to {name} saying \"{text}\"."),
            params: json!({ "name": name }),
            walkthrough: walk![one(open("Contacts")), one(finish(TerminateStatus::Infeasible))],
        })
    }
    fn golden(&self, _p: &Value, _s: &mut DeviceState, log: &mut EpisodeLog) {
        log.terminated = Some(TerminateStatus::Infeasible);
    }
    fn verify(&self, _p: &Value, initial: &DeviceState, last: &DeviceState, log: &EpisodeLog) -> Verdict {
        infeasible_verdict(initial, last, log)
    }
}

// ---- Long tasks (walkthroughs of 20+ steps) ----

pub struct AddManyContacts;

#[derive(Serialize, Deserialize)]
struct ManyContacts {
    contacts: Vec<NewContact>,
}

impl Family for AddManyContacts {
    fn name(&self) -> &'static str {
        "long.add_contacts"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Long
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Contacts"]
    }
    fn generate(&self, w: &World, _s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let mut strangers = w.strangers.clone();
        rng.shuffle(&mut strangers);
        let contacts: Vec<NewContact> = strangers
            .iter()
            .take(3)
            .map(|(f, l)| NewContact { name: format!("{f} {l}"), phone: format!("+1 555 {:03} {:04}", rng.range(200, 999), rng.range(1000, 9999)) })
            .collect();
        let listed: Vec<String> = contacts.iter().map(|c| format!("{} ({})", c.name, c.phone)).collect();
        let mut walkthrough = vec![open("Contacts")];
        for c in &contacts {
            // After saving, the new contact's page is open: back to the list first.
            walkthrough.extend(walk![one(tap("add")), fill("name", &c.name), fill("phone", &c.phone), one(tap("save")), one(Action::Back)]);
        }
        walkthrough.push(finish(TerminateStatus::Success));
        Some(Draft {
            instruction: format!("Add these new contacts: {}.", listed.join(", ")),
            params: serde_json::to_value(ManyContacts { contacts }).ok()?,
            walkthrough,
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<ManyContacts>(p.clone()) {
            for c in p.contacts {
                s.data.contacts.insert(Contact { name: c.name, phone: c.phone, email: String::new() });
            }
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: ManyContacts = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        let added = new_ids(&initial.data.contacts, &last.data.contacts);
        j.allow("contacts/next_id");
        for want in &p.contacts {
            let found = added.iter().find(|id| last.data.contacts.get(**id).is_some_and(|c| normalize(&c.name) == normalize(&want.name)));
            j.check(&format!("added {}", want.name), found.is_some(), "missing");
            if let Some(id) = found {
                j.allow(format!("contacts/items/{id}"));
                let phone = last.data.contacts.get(*id).map(|c| c.phone.clone()).unwrap_or_default();
                j.check(&format!("phone of {}", want.name), digits(&phone) == digits(&want.phone), format!("phone is \"{phone}\""));
            }
        }
        j.finish()
    }
}

pub struct Broadcast;

#[derive(Serialize, Deserialize)]
struct BroadcastParams {
    recipients: Vec<(String, String)>,
    text: String,
}

impl Family for Broadcast {
    fn name(&self) -> &'static str {
        "long.broadcast"
    }
    fn kind(&self) -> FamilyKind {
        FamilyKind::Long
    }
    fn apps(&self) -> &'static [&'static str] {
        &["Messages"]
    }
    fn generate(&self, _w: &World, s: &DeviceState, rng: &mut Rng) -> Option<Draft> {
        let mut all: Vec<&Contact> = s.data.contacts.items.values().collect();
        rng.shuffle(&mut all);
        let recipients: Vec<(String, String)> = all.iter().take(3).map(|c| (c.name.clone(), c.phone.clone())).collect();
        let text = rng.pick(&MESSAGES).to_string();
        let names: Vec<&str> = recipients.iter().map(|r| r.0.as_str()).collect();
        let mut walkthrough = vec![open("Messages")];
        for (name, _) in &recipients {
            // Sending opens the conversation: back to the list before the next one.
            walkthrough.extend(walk![one(tap("new")), fill("to", name), fill("body", &text), one(tap("send")), one(Action::Back)]);
        }
        walkthrough.push(finish(TerminateStatus::Success));
        Some(Draft {
            instruction: format!("Send each of {} the text message \"{text}\".", names.join(", ")),
            params: serde_json::to_value(BroadcastParams { recipients, text }).ok()?,
            walkthrough,
        })
    }
    fn golden(&self, p: &Value, s: &mut DeviceState, _log: &mut EpisodeLog) {
        if let Ok(p) = serde_json::from_value::<BroadcastParams>(p.clone()) {
            for (name, phone) in &p.recipients {
                messages::send(s, name, phone, &p.text);
            }
        }
    }
    fn verify(&self, p: &Value, initial: &DeviceState, last: &DeviceState, _log: &EpisodeLog) -> Verdict {
        let p: BroadcastParams = match params(p) {
            Ok(p) => p,
            Err(v) => return v,
        };
        let mut j = Judge::new(&initial.data, &last.data);
        for (name, phone) in &p.recipients {
            let sent = sent_messages(&mut j, phone);
            let once = sent.len() == 1 && sent.iter().all(|m| normalize(m) == normalize(&p.text));
            j.check(&format!("sent to {name}"), once, format!("sent {sent:?}"));
        }
        j.finish()
    }
}
