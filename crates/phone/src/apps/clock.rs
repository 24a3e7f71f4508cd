//! Clock: alarms and timers as tabs, an alarm form that validates its time, alarm details
//! with an on/off switch and deletion, and a timer form that validates its length.

use guigym_ui::{Pictogram, View};

use super::{confirm, open_item, screen, split_route, App, UiEvent};
use crate::state::{AppData, DeviceState};
use crate::time;
use crate::world::World;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alarm {
    pub minute_of_day: i64,
    pub label: String,
    pub enabled: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timer {
    pub minutes: u32,
    pub label: String,
}

pub fn install(_w: &World, d: &mut AppData, rng: &mut Rng) {
    d.alarms.insert(Alarm { minute_of_day: 7 * 60 + rng.range(0, 3) * 15, label: "Wake up".into(), enabled: true });
    d.alarms.insert(Alarm { minute_of_day: 13 * 60 + 30, label: "Medication".into(), enabled: rng.chance(0.5) });
}

pub const APP: App = App { name: "Clock", icon: guigym_ui::Pictogram::Clock, color: [249, 115, 22], root: "alarms", view, handle };

fn tabs(selected: usize) -> View {
    View::navigation("clock_tabs", [("tab_alarms", "Alarms", Pictogram::Clock), ("tab_timers", "Timers", Pictogram::Hourglass)], selected)
}

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("alarm", Some(id)) => match s.data.alarms.get(id) {
            Some(a) => {
                let dialog = (s.ui.dialog.as_deref() == Some("delete")).then(|| {
                    confirm(
                        "delete_dialog",
                        "Delete alarm?",
                        &format!("The {} alarm will be deleted.", time::time_hm(a.minute_of_day)),
                        "confirm_delete",
                        "Delete",
                    )
                });
                screen(
                    &format!("Alarm {}", time::time_hm(a.minute_of_day)),
                    vec![
                        View::text(&a.label).id("label"),
                        View::switch("enabled", if a.enabled { "Alarm on" } else { "Alarm off" }, a.enabled),
                        View::danger_button("delete", "Delete alarm"),
                    ],
                    dialog,
                )
            }
            None => screen("Alarm", vec![View::text("This alarm no longer exists.")], None),
        },
        ("new_alarm", _) => screen(
            "New alarm",
            vec![
                View::field("time", s.field("time"), "Time (HH:MM)", focus == Some("time")),
                View::field("label", s.field("label"), "Label", focus == Some("label")),
                View::button("save", "Save"),
            ],
            None,
        ),
        ("new_timer", _) => screen(
            "New timer",
            vec![
                View::field("minutes", s.field("minutes"), "Minutes", focus == Some("minutes")),
                View::field("label", s.field("label"), "Label", focus == Some("label")),
                View::button("start", "Start"),
            ],
            None,
        ),
        ("timers", _) => screen(
            "Clock",
            vec![
                View::list(
                    "timers",
                    s.scroll("timers"),
                    s.data.timers.iter().map(|(id, t)| View::item(format!("timer:{id}"), format!("{} min", t.minutes), &t.label)),
                ),
                View::fab("new_timer", "New timer"),
                tabs(1),
            ],
            None,
        ),
        _ => {
            let mut rows: Vec<(u32, &Alarm)> = s.data.alarms.iter().collect();
            rows.sort_by_key(|(id, a)| (a.minute_of_day, *id));
            screen(
                "Clock",
                vec![
                    View::list(
                        "alarms",
                        s.scroll("alarms"),
                        rows.into_iter().map(|(id, a)| {
                            View::item_with(format!("alarm:{id}"), time::time_hm(a.minute_of_day), &a.label, if a.enabled { "On" } else { "Off" })
                        }),
                    ),
                    View::fab("new_alarm", "New alarm"),
                    tabs(0),
                ],
                None,
            )
        }
    }
}

/// `7:05`, `07:05`, `7:05 pm` → minutes after midnight.
pub fn parse_time(text: &str) -> Option<i64> {
    match time::times_in_text(text).as_slice() {
        [t] => Some(*t),
        _ => None,
    }
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(opened) = open_item(s, id, &[("alarm:", "alarm", "opened alarm")]) {
        return opened;
    }
    match (screen, id.as_str()) {
        (_, "tab_alarms") => {
            s.reset_to("alarms");
            "alarms".into()
        }
        (_, "tab_timers") => {
            s.reset_to("timers");
            "timers".into()
        }
        ("alarms", "new_alarm") | ("timers", "new_timer") => {
            s.push(id.clone());
            "new form".into()
        }
        ("alarm", "enabled") => {
            let Some(a) = arg.and_then(|aid| s.data.alarms.get_mut(aid)) else { return String::new() };
            a.enabled = !a.enabled;
            if a.enabled { "alarm on" } else { "alarm off" }.into()
        }
        ("alarm", "delete") => {
            s.ui.dialog = Some("delete".into());
            "asked to confirm deletion".into()
        }
        ("alarm", "confirm_delete") => {
            if let Some(aid) = arg {
                s.data.alarms.items.remove(&aid);
            }
            s.pop();
            "alarm deleted".into()
        }
        ("new_alarm", "save") => {
            let Some(minute_of_day) = parse_time(s.field("time")) else {
                s.ui.toast = Some("Enter a time like 07:30".into());
                return "not saved: enter a time like 07:30".into();
            };
            let label = s.field("label").trim().to_string();
            s.data.alarms.insert(Alarm { minute_of_day, label, enabled: true });
            s.pop();
            s.ui.toast = Some(format!("Alarm set for {}", time::time_hm(minute_of_day)));
            "alarm saved".into()
        }
        ("new_timer", "start") => match s.field("minutes").trim().parse::<u32>() {
            Ok(m) if (1..=600).contains(&m) => {
                let label = s.field("label").trim().to_string();
                s.data.timers.insert(Timer { minutes: m, label });
                s.pop();
                "timer started".into()
            }
            _ => {
                s.ui.toast = Some("Minutes must be from 1 to 600".into());
                "not started: minutes must be from 1 to 600".into()
            }
        },
        _ => String::new(),
    }
}
