//! Mail: inbox, sent and trash tabs, reading a message, reply and compose forms, deleting to
//! the trash.

use guigym_ui::{TextStyle, View};

use super::messages::{Message, Thread};
use super::{screen, split_route, App, UiEvent};
use crate::state::{AppData, DeviceState};
use crate::time;
use crate::time::Minutes;
use crate::world::World;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Folder {
    Inbox,
    Sent,
    Trash,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Email {
    pub from_name: String,
    pub from: String,
    pub to: String,
    pub subject: String,
    pub body: String,
    pub time: Minutes,
    pub folder: Folder,
    pub read: bool,
}

/// Mail and messages that tie the apps to the world.
pub fn install(w: &World, d: &mut AppData, _rng: &mut Rng) {
    d.emails.insert(Email {
        from_name: w.person(0).name(),
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

pub const APP: App = App { name: "Mail", icon: guigym_ui::Pictogram::Envelope, color: [239, 68, 68], root: "inbox", view, handle };

const TABS: [(&str, &str, Folder); 3] = [("tab_inbox", "Inbox", Folder::Inbox), ("tab_sent", "Sent", Folder::Sent), ("tab_trash", "Trash", Folder::Trash)];

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("email", Some(id)) => match s.data.emails.get(id) {
            Some(e) => screen(
                &e.subject,
                vec![
                    View::styled(format!("From {} <{}>", e.from_name, e.from), TextStyle::Caption),
                    View::styled(time::short(e.time), TextStyle::Caption),
                    View::text(&e.body).id("body"),
                    View::row([View::button("reply", "Reply"), View::danger_button("delete", "Delete")]),
                ],
                None,
            ),
            None => screen("Mail", vec![View::text("This message no longer exists.")], None),
        },
        ("compose", _) | ("reply", _) => screen(
            if route == "compose" { "New email" } else { "Reply" },
            vec![
                View::field("to", s.field("to"), "To", focus == Some("to")),
                View::field("subject", s.field("subject"), "Subject", focus == Some("subject")),
                View::multiline_field("body", s.field("body"), "Write your message", focus == Some("body")),
                View::button("send", "Send"),
            ],
            None,
        ),
        (folder, _) => {
            let selected = TABS.iter().position(|t| t.0.ends_with(folder)).unwrap_or(0);
            let mut mails: Vec<(u32, &Email)> = s.data.emails.iter().filter(|(_, e)| e.folder == TABS[selected].2).collect();
            mails.sort_by_key(|(id, e)| (std::cmp::Reverse(e.time), *id));
            screen(
                "Mail",
                vec![
                    View::tabs("folders", TABS.iter().map(|t| (t.0, t.1)), selected),
                    View::list(
                        "emails",
                        s.scroll("emails"),
                        mails.into_iter().map(|(id, e)| {
                            let (who, person) = if e.folder == Folder::Sent { (format!("To {}", e.to), &e.to) } else { (e.from_name.clone(), &e.from_name) };
                            let mark = if e.read { "" } else { "● " };
                            View::item_with(format!("email:{id}"), format!("{mark}{who}"), &e.subject, time::short(e.time)).avatar(person).bold(!e.read)
                        }),
                    ),
                    View::fab("compose", "Compose"),
                ],
                None,
            )
        }
    }
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(eid) = id.strip_prefix("email:").and_then(|n| n.parse::<u32>().ok()) {
        if let Some(e) = s.data.emails.get_mut(eid) {
            e.read = true;
        }
        s.push(format!("email:{eid}"));
        return "opened email".into();
    }
    if let Some((tab, _, _)) = TABS.iter().find(|t| t.0 == id) {
        s.reset_to(tab.trim_start_matches("tab_"));
        return format!("showing {}", tab.trim_start_matches("tab_"));
    }
    match (screen, id.as_str()) {
        (_, "compose") => {
            s.push("compose");
            "new email form".into()
        }
        ("email", "reply") => {
            let Some(e) = arg.and_then(|eid| s.data.emails.get(eid)).cloned() else { return String::new() };
            s.push(format!("reply:{}", arg.unwrap_or(0)));
            s.ui.fields.insert("to".into(), e.from);
            s.ui.fields.insert("subject".into(), format!("Re: {}", e.subject));
            "reply form".into()
        }
        ("email", "delete") => {
            if let Some(e) = arg.and_then(|eid| s.data.emails.get_mut(eid)) {
                e.folder = Folder::Trash;
            }
            s.pop();
            "moved to trash".into()
        }
        ("compose" | "reply", "send") => {
            let to = s.field("to").trim().to_string();
            if !to.contains('@') {
                s.ui.toast = Some("Enter a valid address".into());
                return "not sent: enter a valid address".into();
            }
            let email = Email {
                from_name: s.user_name.clone(),
                from: s.user_email.clone(),
                to,
                subject: s.field("subject").trim().to_string(),
                body: s.field("body").trim().to_string(),
                time: s.now(),
                folder: Folder::Sent,
                read: true,
            };
            s.data.emails.insert(email);
            s.pop();
            s.ui.toast = Some("Email sent".into());
            "email sent".into()
        }
        _ => String::new(),
    }
}
