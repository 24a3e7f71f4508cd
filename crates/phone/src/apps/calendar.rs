//! Calendar: an agenda of upcoming events, event details with deletion behind a
//! confirmation, and a new-event form that validates its date and time.

use guigym_ui::{TextStyle, View};

use super::{confirm, open_item, screen, split_route, App, UiEvent};
use crate::state::DeviceState;
use crate::time;
use crate::time::Minutes;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub title: String,
    pub start: Minutes,
    pub duration_min: i64,
    pub location: String,
}

pub const APP: App = App { name: "Calendar", icon: guigym_ui::Pictogram::Calendar, color: [168, 85, 247], root: "agenda", view, handle };

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("event", Some(id)) => match s.data.events.get(id) {
            Some(e) => {
                let dialog = (s.ui.dialog.as_deref() == Some("delete"))
                    .then(|| confirm("delete_dialog", "Delete event?", &format!("\"{}\" will be removed.", e.title), "confirm_delete", "Delete"));
                screen(
                    &e.title,
                    vec![
                        View::text(format!("{} {}", time::date_human(e.start), time::date_iso(e.start))).id("date"),
                        View::text(format!("{} – {}", time::time_hm(e.start), time::time_hm(e.start + e.duration_min))).id("time"),
                        View::styled("Location", TextStyle::Caption),
                        View::text(&e.location).id("location"),
                        View::danger_button("delete", "Delete event"),
                    ],
                    dialog,
                )
            }
            None => screen("Event", vec![View::text("This event no longer exists.")], None),
        },
        ("new", _) => screen(
            "New event",
            vec![
                View::field("title", s.field("title"), "Title", focus == Some("title")),
                View::field("date", s.field("date"), "Date (YYYY-MM-DD)", focus == Some("date")),
                View::field("time", s.field("time"), "Start time (HH:MM)", focus == Some("time")),
                View::field("location", s.field("location"), "Location", focus == Some("location")),
                View::button("save", "Save"),
            ],
            None,
        ),
        _ => {
            let now = s.now();
            let mut events: Vec<(u32, &Event)> = s.data.events.iter().filter(|(_, e)| e.start + e.duration_min >= now).collect();
            events.sort_by_key(|(id, e)| (e.start, *id));
            screen(
                "Calendar",
                vec![
                    View::styled(format!("Today: {} {}", time::date_human(now), time::civil_from_days(now.div_euclid(time::DAY)).0), TextStyle::Caption),
                    View::list(
                        "events",
                        s.scroll("events"),
                        events.into_iter().map(|(id, e)| View::item(format!("event:{id}"), &e.title, time::short(e.start))),
                    ),
                    View::fab("new", "New event"),
                ],
                None,
            )
        }
    }
}

/// Parses `HH:MM` (24 h) into minutes after midnight.
/// A time typed into the form, read as the Clock's alarm form reads it (`14:30`, `9:30`,
/// `2:30 PM`): one rule for every time field.
fn parse_hm(s: &str) -> Option<i64> {
    super::clock::parse_time(s)
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(opened) = open_item(s, id, &[("event:", "event", "opened event")]) {
        return opened;
    }
    match (screen, id.as_str()) {
        ("agenda", "new") => {
            s.push("new");
            "new event form".into()
        }
        ("event", "delete") => {
            s.ui.dialog = Some("delete".into());
            "asked to confirm deletion".into()
        }
        ("event", "confirm_delete") => {
            if let Some(eid) = arg {
                s.data.events.items.remove(&eid);
            }
            s.pop();
            "event deleted".into()
        }
        ("new", "save") => {
            let title = s.field("title").trim().to_string();
            let date = time::parse_date(s.field("date"));
            let start = parse_hm(s.field("time"));
            let problem = if title.is_empty() {
                Some("Title is required")
            } else if date.is_none() {
                Some("Date must look like 2026-03-05")
            } else if start.is_none() {
                Some("Time must look like 14:30 or 2:30 PM")
            } else {
                None
            };
            if let Some(p) = problem {
                s.ui.toast = Some(p.to_string());
                return format!("not saved: {p}");
            }
            let event = Event { title, start: date.unwrap_or(0) + start.unwrap_or(0), duration_min: 60, location: s.field("location").trim().to_string() };
            s.data.events.insert(event);
            s.pop();
            s.ui.toast = Some("Event saved".into());
            "event saved".into()
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_are_read_as_the_clock_reads_them() {
        assert_eq!(super::parse_hm("09:30"), Some(570));
        assert_eq!(super::parse_hm("9:30"), Some(570));
        assert_eq!(super::parse_hm("6:30 PM"), Some(18 * 60 + 30));
        assert_eq!(super::parse_hm("24:00"), None);
        assert_eq!(super::parse_hm("soon"), None);
    }
}
