//! Contacts: a searchable list, a detail page, an edit form with validation, deletion behind
//! a confirmation.

use guigym_ui::{TextStyle, View};

use super::{confirm, open_item, screen, split_route, App, UiEvent};
use crate::state::DeviceState;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contact {
    pub name: String,
    pub phone: String,
    pub email: String,
}

pub const APP: App = App { name: "Contacts", icon: guigym_ui::Pictogram::Person, color: [14, 165, 233], root: "list", view, handle };

fn view(s: &DeviceState, route: &str) -> View {
    match split_route(route) {
        ("view", Some(id)) => match s.data.contacts.get(id) {
            Some(c) => {
                let dialog = (s.ui.dialog.as_deref() == Some("delete"))
                    .then(|| confirm("delete_dialog", "Delete contact?", &format!("{} will be removed.", c.name), "confirm_delete", "Delete"));
                screen(
                    &c.name,
                    vec![
                        View::styled("Phone", TextStyle::Caption),
                        View::text(&c.phone).id("phone"),
                        View::styled("Email", TextStyle::Caption),
                        View::text(&c.email).id("email"),
                        View::row([View::button("edit", "Edit"), View::danger_button("delete", "Delete")]),
                    ],
                    dialog,
                )
            }
            None => screen("Contact", vec![View::text("This contact no longer exists.")], None),
        },
        ("edit", _) | ("new", _) => {
            let title = if route == "new" { "New contact" } else { "Edit contact" };
            let focus = s.ui.focus.as_deref();
            screen(
                title,
                vec![
                    View::field("name", s.field("name"), "Name", focus == Some("name")),
                    View::field("phone", s.field("phone"), "Phone", focus == Some("phone")),
                    View::field("email", s.field("email"), "Email", focus == Some("email")),
                    View::button("save", "Save"),
                ],
                None,
            )
        }
        _ => {
            let query = crate::normalize(s.field("search"));
            let mut rows: Vec<(u32, &Contact)> =
                s.data.contacts.iter().filter(|(_, c)| query.is_empty() || crate::normalize(&c.name).contains(&query)).collect();
            rows.sort_by(|a, b| a.1.name.cmp(&b.1.name).then(a.0.cmp(&b.0)));
            screen(
                "Contacts",
                vec![
                    View::field("search", s.field("search"), "Search contacts", s.ui.focus.as_deref() == Some("search")),
                    View::list(
                        "contacts",
                        s.scroll("contacts"),
                        rows.into_iter().map(|(id, c)| View::item(format!("contact:{id}"), &c.name, &c.phone).avatar(&c.name)),
                    ),
                    View::fab("add", "Add contact"),
                ],
                None,
            )
        }
    }
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(opened) = open_item(s, id, &[("contact:", "view", "opened contact")]) {
        return opened;
    }
    match (screen, id.as_str()) {
        ("list", "add") => {
            s.push("new");
            "new contact form".into()
        }
        ("view", "edit") => {
            let Some(c) = arg.and_then(|cid| s.data.contacts.get(cid)).cloned() else { return String::new() };
            s.push(format!("edit:{}", arg.unwrap_or(0)));
            s.ui.fields.insert("name".into(), c.name);
            s.ui.fields.insert("phone".into(), c.phone);
            s.ui.fields.insert("email".into(), c.email);
            "edit form".into()
        }
        ("view", "delete") => {
            s.ui.dialog = Some("delete".into());
            "asked to confirm deletion".into()
        }
        ("view", "confirm_delete") => {
            if let Some(cid) = arg {
                s.data.contacts.items.remove(&cid);
            }
            s.pop();
            "contact deleted".into()
        }
        ("new" | "edit", "save") => {
            let name = s.field("name").trim().to_string();
            let phone = s.field("phone").trim().to_string();
            let email = s.field("email").trim().to_string();
            if name.is_empty() {
                s.ui.toast = Some("Name is required".into());
                return "not saved: name is required".into();
            }
            if !phone.is_empty() && !crate::is_phone(&phone) {
                s.ui.toast = Some("Phone number is not valid".into());
                return "not saved: phone number is not valid".into();
            }
            if !email.is_empty() && !email.contains('@') {
                s.ui.toast = Some("Email is not valid".into());
                return "not saved: email is not valid".into();
            }
            let contact = Contact { name, phone, email };
            match (screen, arg) {
                ("edit", Some(cid)) => {
                    if let Some(c) = s.data.contacts.get_mut(cid) {
                        *c = contact;
                    }
                    s.pop();
                }
                _ => {
                    let cid = s.data.contacts.insert(contact);
                    s.pop();
                    s.push(format!("view:{cid}"));
                }
            }
            s.ui.toast = Some("Contact saved".into());
            "contact saved".into()
        }
        _ => String::new(),
    }
}
