//! Notes: a searchable list (pinned first), a note editor with pinning, deletion behind a
//! confirmation, and a new-note form that needs a title.

use guigym_ui::View;

use super::{confirm, id_after, screen, split_route, App, UiEvent};
use crate::state::capitalize;
use crate::state::{AppData, DeviceState};
use crate::world::World;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Note {
    pub title: String,
    pub body: String,
    pub pinned: bool,
}

/// Notes: codes for places, a list for the scenario, an idea per person.
pub fn install(w: &World, d: &mut AppData, _rng: &mut Rng) {
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

pub const APP: App = App { name: "Notes", icon: guigym_ui::Pictogram::Note, color: [234, 179, 8], root: "list", view, handle };

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("note", Some(id)) => match s.data.notes.get(id) {
            Some(n) => {
                let dialog = (s.ui.dialog.as_deref() == Some("delete"))
                    .then(|| confirm("delete_dialog", "Delete note?", &format!("\"{}\" will be deleted.", n.title), "confirm_delete", "Delete"));
                screen(
                    "Edit note",
                    vec![
                        View::field("title", s.field("title"), "Title", focus == Some("title")),
                        View::multiline_field("body", s.field("body"), "Note", focus == Some("body")),
                        View::switch("pin", "Pinned", n.pinned),
                        View::row([View::button("save", "Save"), View::danger_button("delete", "Delete")]),
                    ],
                    dialog,
                )
            }
            None => screen("Note", vec![View::text("This note no longer exists.")], None),
        },
        ("new", _) => screen(
            "New note",
            vec![
                View::field("title", s.field("title"), "Title", focus == Some("title")),
                View::multiline_field("body", s.field("body"), "Note", focus == Some("body")),
                View::button("save", "Save"),
            ],
            None,
        ),
        _ => {
            let q = crate::normalize(s.field("search"));
            let mut rows: Vec<(u32, &Note)> = s
                .data
                .notes
                .iter()
                .filter(|(_, n)| q.is_empty() || crate::normalize(&n.title).contains(&q) || crate::normalize(&n.body).contains(&q))
                .collect();
            rows.sort_by_key(|(id, n)| (!n.pinned, *id));
            screen(
                "Notes",
                vec![
                    View::field("search", s.field("search"), "Search notes", focus == Some("search")),
                    View::list(
                        "notes",
                        s.scroll("notes"),
                        rows.into_iter().map(|(id, n)| {
                            let first = n.body.lines().next().unwrap_or("").to_string();
                            View::item_with(format!("note:{id}"), &n.title, first, if n.pinned { "Pinned" } else { "" })
                        }),
                    ),
                    View::fab("new", "New note"),
                ],
                None,
            )
        }
    }
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(nid) = id_after(id, "note:") {
        let Some(n) = s.data.notes.get(nid).cloned() else { return String::new() };
        s.push(format!("note:{nid}"));
        s.ui.fields.insert("title".into(), n.title);
        s.ui.fields.insert("body".into(), n.body);
        return "opened note".into();
    }
    match (screen, id.as_str()) {
        ("list", "new") => {
            s.push("new");
            "new note".into()
        }
        ("note", "pin") => {
            let Some(n) = arg.and_then(|nid| s.data.notes.get_mut(nid)) else { return String::new() };
            n.pinned = !n.pinned;
            if n.pinned { "note pinned" } else { "note unpinned" }.into()
        }
        ("note", "delete") => {
            s.ui.dialog = Some("delete".into());
            "asked to confirm deletion".into()
        }
        ("note", "confirm_delete") => {
            if let Some(nid) = arg {
                s.data.notes.items.remove(&nid);
            }
            s.pop();
            "note deleted".into()
        }
        ("note" | "new", "save") => {
            let title = s.field("title").trim().to_string();
            let body = s.field("body").trim().to_string();
            if title.is_empty() {
                s.ui.toast = Some("A note needs a title".into());
                return "not saved: a note needs a title".into();
            }
            match (screen, arg.and_then(|nid| s.data.notes.get_mut(nid))) {
                ("note", Some(n)) => {
                    n.title = title;
                    n.body = body;
                }
                _ => {
                    s.data.notes.insert(Note { title, body, pinned: false });
                }
            }
            s.pop();
            s.ui.toast = Some("Note saved".into());
            "note saved".into()
        }
        _ => String::new(),
    }
}
