//! Messages: conversations by contact, a thread view with a composer, and a new-message form
//! that finds the recipient by contact name or number.

use guigym_ui::View;

use super::{open_item, screen, split_route, App, UiEvent};
use crate::state::DeviceState;
use crate::time;
use crate::time::Minutes;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub from_me: bool,
    pub text: String,
    pub time: Minutes,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    /// Display name (a contact's name, or the raw number).
    pub name: String,
    pub phone: String,
    pub messages: Vec<Message>,
}

pub const APP: App = App { name: "Messages", icon: guigym_ui::Pictogram::Chat, color: [34, 197, 94], root: "threads", view, handle };

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("thread", Some(tid)) => match s.data.threads.get(tid) {
            Some(t) => screen(
                &t.name,
                vec![
                    View::list(
                        "messages",
                        s.scroll("messages"),
                        t.messages.iter().enumerate().map(|(i, m)| {
                            let who = if m.from_me { "Me" } else { t.name.as_str() };
                            View::bubble(format!("msg:{i}"), &m.text, format!("{who} · {}", time::short(m.time)), m.from_me).enabled(false)
                        }),
                    ),
                    View::row([View::field("compose", s.field("compose"), "Text message", focus == Some("compose")).weight(3.0), View::button("send", "Send")]),
                ],
                None,
            ),
            None => screen("Messages", vec![View::text("This conversation no longer exists.")], None),
        },
        ("new", _) => screen(
            "New message",
            vec![
                View::field("to", s.field("to"), "To: name or number", focus == Some("to")),
                View::multiline_field("body", s.field("body"), "Message", focus == Some("body")),
                View::button("send", "Send"),
            ],
            None,
        ),
        _ => {
            let mut threads: Vec<(u32, &Thread)> = s.data.threads.iter().collect();
            // Most recent conversation first, as phones show them.
            threads.sort_by_key(|(id, t)| (std::cmp::Reverse(t.messages.last().map(|m| m.time)), *id));
            screen(
                "Messages",
                vec![
                    View::list(
                        "threads",
                        s.scroll("threads"),
                        threads.into_iter().map(|(id, t)| {
                            let last = t.messages.last().map(|m| m.text.as_str()).unwrap_or("");
                            View::item(format!("thread:{id}"), &t.name, last).avatar(&t.name).bold(t.messages.last().is_some_and(|m| !m.from_me))
                        }),
                    ),
                    View::fab("new", "New message"),
                ],
                None,
            )
        }
    }
}

/// Appends a message from the user to the conversation with `phone`, creating it if needed.
pub fn send(s: &mut DeviceState, name: &str, phone: &str, text: &str) -> u32 {
    let now = s.now();
    let message = Message { from_me: true, text: text.to_string(), time: now };
    let digits = crate::digits(phone);
    let existing = s.data.threads.iter().find(|(_, t)| crate::digits(&t.phone) == digits).map(|(id, _)| id);
    match existing {
        Some(tid) => {
            if let Some(t) = s.data.threads.get_mut(tid) {
                t.messages.push(message);
            }
            tid
        }
        None => s.data.threads.insert(Thread { name: name.to_string(), phone: phone.to_string(), messages: vec![message] }),
    }
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let id = match ev {
        UiEvent::Tap(id) => id.as_str(),
        UiEvent::Key(k) if k == "enter" => "send",
        _ => return String::new(),
    };
    let (screen, arg) = split_route(route);
    if let Some(opened) = open_item(s, id, &[("thread:", "thread", "opened conversation")]) {
        return opened;
    }
    match (screen, id) {
        ("threads", "new") => {
            s.push("new");
            "new message form".into()
        }
        ("thread", "send") => {
            let text = s.field("compose").trim().to_string();
            let Some(t) = arg.and_then(|tid| s.data.threads.get(tid)).cloned() else { return String::new() };
            if text.is_empty() {
                return "nothing to send".into();
            }
            send(s, &t.name, &t.phone, &text);
            s.ui.fields.remove("compose");
            "message sent".into()
        }
        ("new", "send") => {
            let to = s.field("to").trim().to_string();
            let body = s.field("body").trim().to_string();
            if body.is_empty() {
                s.ui.toast = Some("Message is empty".into());
                return "not sent: message is empty".into();
            }
            // A number that belongs to a contact is that contact (as on a real phone), with or
            // without the country code.
            let by_number = |s: &DeviceState| -> Option<(String, String)> {
                s.data.contacts.iter().map(|(_, c)| c).find(|c| crate::same_phone(&to, &c.phone)).map(|c| (c.name.clone(), c.phone.clone()))
            };
            let recipient = match s.contact_named(&to) {
                Some((_, c)) => Some((c.name.clone(), c.phone.clone())),
                None if crate::is_phone(&to) => Some(by_number(s).unwrap_or_else(|| (to.clone(), to.clone()))),
                None => None,
            };
            let Some((name, phone)) = recipient else {
                s.ui.toast = Some(format!("No contact named \"{to}\""));
                return format!("not sent: no contact named \"{to}\"");
            };
            let tid = send(s, &name, &phone, &body);
            s.pop();
            s.push(format!("thread:{tid}"));
            "message sent".into()
        }
        _ => String::new(),
    }
}
