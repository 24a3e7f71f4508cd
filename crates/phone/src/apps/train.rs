//! Train tickets, in the spirit of 12306: search by stations and date, a timetable, seat
//! classes, passengers, a payment confirmation, and tickets that can be refunded or changed
//! to another date. Routes carry the query: `results/FROM/TO/DAY`, `run/FROM/TO/DAY/K`,
//! `pass/FROM/TO/DAY/K/CLASS`, `ticket/ID`, `change/ID`, `changes/ID/DAY`.

use guigym_core::Rng;
use guigym_ui::{Pictogram, TextStyle, View};

use super::{confirm, screen, App, UiEvent};
use crate::money;
use crate::state::{AppData, DeviceState};
use crate::time::{self, Minutes, DAY};
use crate::world::World;
use crate::world::STATIONS;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ticket {
    pub train: String,
    pub from: String,
    pub to: String,
    pub depart: Minutes,
    /// `Second`, `First`, `Business`.
    pub class: String,
    pub passengers: Vec<String>,
    pub price_cents: i64,
    /// `paid`, `refunded`.
    pub status: String,
}

/// Tickets: a past trip, and an upcoming family visit by train to refund, change or look up;
/// passengers are the user and the family.
pub fn install(w: &World, d: &mut AppData, rng: &mut Rng) {
    let day = w.now.div_euclid(DAY) * DAY;
    d.passengers.push(w.user.name());
    d.passengers.extend(w.people.iter().filter(|p| p.relation == "family").map(|p| p.name()));
    let back = day - 5 * DAY;
    if let Some(run) = timetable(&w.trip_city, &w.home_city, back).first() {
        d.tickets.insert(Ticket {
            train: run.train.clone(),
            from: w.trip_city.clone(),
            to: w.home_city.clone(),
            depart: run.depart,
            class: "Second".into(),
            passengers: vec![w.user.name()],
            price_cents: run.price_cents,
            status: "paid".into(),
        });
    }
    let visit = STATIONS.iter().find(|c| **c != w.home_city && **c != w.trip_city).copied().unwrap_or("Kingsley");
    let visit_day = day + rng.range(2, 6) * DAY;
    if let Some(run) = timetable(&w.home_city, visit, visit_day).get(1 + rng.below(3)) {
        let mut passengers = vec![w.user.name()];
        passengers.extend(d.passengers.get(1).cloned());
        d.tickets.insert(Ticket {
            train: run.train.clone(),
            from: w.home_city.clone(),
            to: visit.to_string(),
            depart: run.depart,
            class: "Second".into(),
            price_cents: fare(run, "Second", passengers.len()),
            passengers,
            status: "paid".into(),
        });
    }
}

pub const APP: App = App { name: "Trains", icon: guigym_ui::Pictogram::Train, color: [13, 148, 136], root: "search", view, handle };

fn parts(route: &str) -> Vec<&str> {
    route.split('/').collect()
}

fn query(p: &[&str]) -> Option<(usize, usize, i64)> {
    Some((p.get(1)?.parse().ok()?, p.get(2)?.parse().ok()?, p.get(3)?.parse().ok()?))
}

fn run_of(p: &[&str]) -> Option<(usize, usize, i64, TrainRun)> {
    let (a, b, day) = query(p)?;
    let k: usize = p.get(4)?.parse().ok()?;
    let run = timetable(STATIONS[a], STATIONS[b], day * DAY).into_iter().nth(k)?;
    Some((a, b, day, run))
}

fn selected(s: &DeviceState) -> Vec<usize> {
    s.field("selected").split(',').filter_map(|x| x.parse().ok()).collect()
}

fn tabs(i: usize) -> View {
    View::navigation("train_tabs", [("tab_search", "Search", Pictogram::Search), ("tab_tickets", "My tickets", Pictogram::Ticket)], i)
}

fn run_item(id: String, r: &TrainRun) -> View {
    View::item_with(id, &r.train, format!("{} → {}", time::time_hm(r.depart), time::time_hm(r.arrive)), format!("from {}", money(r.price_cents))).card()
}

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    let p = parts(route);
    match p[0] {
        "results" => {
            let Some((a, b, day)) = query(&p) else { return screen("Trains", vec![], None) };
            screen(
                &format!("{} → {}", STATIONS[a], STATIONS[b]),
                vec![
                    View::styled(time::date_human(day * DAY), TextStyle::Caption),
                    View::list(
                        "trains",
                        s.scroll("trains"),
                        timetable(STATIONS[a], STATIONS[b], day * DAY).iter().enumerate().map(|(k, r)| run_item(format!("run:{k}"), r)),
                    ),
                ],
                None,
            )
        }
        "run" => {
            let Some((_, _, _, run)) = run_of(&p) else { return screen("Train", vec![], None) };
            screen(
                &run.train,
                vec![
                    View::text(format!("{} → {}", time::time_hm(run.depart), time::time_hm(run.arrive))),
                    View::styled("Choose a seat class", TextStyle::Caption),
                    View::list(
                        "seats",
                        0,
                        SEAT_CLASSES.iter().map(|(c, _)| View::item_with(format!("seat:{c}"), *c, "Seats available", money(fare(&run, c, 1)))),
                    ),
                ],
                None,
            )
        }
        "pass" => {
            let Some((_, _, _, run)) = run_of(&p) else { return screen("Passengers", vec![], None) };
            let class = p.get(5).copied().unwrap_or("Second");
            let chosen = selected(s);
            let total = fare(&run, class, chosen.len());
            let dialog = (s.ui.dialog.as_deref() == Some("pay")).then(|| {
                confirm("pay_dialog", "Pay for tickets?", &format!("{} seat(s), {class} class: {}.", chosen.len(), money(total)), "confirm_pay", "Pay")
            });
            let mut body: Vec<View> = vec![View::styled(format!("{} · {class} class", run.train), TextStyle::Caption)];
            body.extend(s.data.passengers.iter().enumerate().map(|(i, n)| View::checkbox(format!("passenger:{i}"), n, chosen.contains(&i))));
            body.push(View::text(format!("Total: {}", money(total))).id("total"));
            body.push(View::button("pay", "Pay"));
            screen("Passengers", body, dialog)
        }
        "tickets" => screen(
            "My tickets",
            vec![
                View::list(
                    "tickets",
                    s.scroll("tickets"),
                    s.data.tickets.iter().map(|(id, t)| {
                        View::item_with(format!("ticket:{id}"), format!("{} {} → {}", t.train, t.from, t.to), time::short(t.depart), &t.status).card()
                    }),
                ),
                tabs(1),
            ],
            None,
        ),
        "ticket" => {
            let Some(t) = p.get(1).and_then(|x| x.parse().ok()).and_then(|id| s.data.tickets.get(id)) else {
                return screen("Ticket", vec![View::text("No such ticket.")], None);
            };
            let dialog = (s.ui.dialog.as_deref() == Some("refund"))
                .then(|| confirm("refund_dialog", "Refund ticket?", &format!("{} will be refunded.", money(t.price_cents)), "confirm_refund", "Refund"));
            let mut body = vec![
                View::text(format!("{} → {}", t.from, t.to)),
                View::text(format!("{} · {} class", time::short(t.depart), t.class)).id("depart"),
                View::text(format!("Passengers: {}", t.passengers.join(", "))).id("passengers"),
                View::text(format!("{} · {}", money(t.price_cents), t.status)).id("status"),
            ];
            if t.status == "paid" && t.depart > s.now() {
                body.push(View::row([View::button("change", "Change date"), View::danger_button("refund", "Refund")]));
            }
            screen(&t.train, body, dialog)
        }
        "change" => screen(
            "Change date",
            vec![View::field("date", s.field("date"), "New date (YYYY-MM-DD)", focus == Some("date")), View::button("find", "Find trains")],
            None,
        ),
        "changes" => {
            let (Some(t), Some(day)) =
                (p.get(1).and_then(|x| x.parse().ok()).and_then(|id| s.data.tickets.get(id)), p.get(2).and_then(|x| x.parse::<i64>().ok()))
            else {
                return screen("Change", vec![], None);
            };
            let dialog = s.ui.dialog.as_deref().and_then(|d| d.strip_prefix("to:")).map(|k| {
                confirm("change_dialog", "Change ticket?", &format!("Move to train {k} on {}.", time::date_iso(day * DAY)), "confirm_change", "Change")
            });
            screen(
                "Choose a train",
                vec![View::list(
                    "trains",
                    s.scroll("trains"),
                    timetable(&t.from, &t.to, day * DAY).iter().enumerate().map(|(k, r)| run_item(format!("run:{k}"), r)),
                )],
                dialog,
            )
        }
        _ => screen(
            "Trains",
            vec![
                View::field("from", s.field("from"), "From station", focus == Some("from")),
                View::field("to", s.field("to"), "To station", focus == Some("to")),
                View::button("swap", "Swap"),
                View::field("date", s.field("date"), "Date (YYYY-MM-DD)", focus == Some("date")),
                View::button("search", "Search trains"),
                View::styled(format!("Stations: {}", STATIONS.join(", ")), TextStyle::Caption),
                View::fill(),
                tabs(0),
            ],
            None,
        ),
    }
}

/// Buys seats on a train for the given passengers.
pub fn buy(s: &mut DeviceState, from: &str, to: &str, run: &TrainRun, class: &str, passengers: Vec<String>) -> u32 {
    let price_cents = fare(run, class, passengers.len());
    s.data.tickets.insert(Ticket {
        train: run.train.clone(),
        from: from.to_string(),
        to: to.to_string(),
        depart: run.depart,
        class: class.to_string(),
        passengers,
        price_cents,
        status: "paid".into(),
    })
}

/// Moves a ticket to another train of the same route; the fare follows the new train.
pub fn change(s: &mut DeviceState, tid: u32, run: &TrainRun) {
    if let Some(t) = s.data.tickets.get_mut(tid) {
        t.train = run.train.clone();
        t.depart = run.depart;
        t.price_cents = fare(run, &t.class, t.passengers.len());
    }
}

fn bad(s: &mut DeviceState, why: &str) -> String {
    s.ui.toast = Some(why.to_string());
    format!("not done: {}", why.to_lowercase())
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let p: Vec<String> = parts(route).into_iter().map(str::to_string).collect();
    let p: Vec<&str> = p.iter().map(String::as_str).collect();
    match (p[0], id.as_str()) {
        (_, "tab_search") => {
            s.reset_to("search");
            "search".into()
        }
        (_, "tab_tickets") => {
            s.reset_to("tickets");
            "my tickets".into()
        }
        ("search", "swap") => {
            let (from, to) = (s.field("from").to_string(), s.field("to").to_string());
            s.ui.fields.insert("from".into(), to);
            s.ui.fields.insert("to".into(), from);
            "swapped stations".into()
        }
        ("search", "search") => {
            let (Some(a), Some(b)) = (station_index(s.field("from")), station_index(s.field("to"))) else {
                return bad(s, "Unknown station");
            };
            if a == b {
                return bad(s, "From and to must differ");
            }
            let Some(day) = time::parse_date(s.field("date")) else { return bad(s, "Enter a date like 2026-05-04") };
            if day + DAY <= s.now() {
                return bad(s, "That date has passed");
            }
            s.push(format!("results/{a}/{b}/{}", day / DAY));
            "trains found".into()
        }
        ("results", run) if run.starts_with("run:") => {
            s.push(format!("run/{}/{}/{}/{}", p[1], p[2], p[3], run.trim_start_matches("run:")));
            "seat classes".into()
        }
        ("run", seat) if seat.starts_with("seat:") => {
            let class = seat.trim_start_matches("seat:");
            s.push(format!("pass/{}/{}/{}/{}/{class}", p[1], p[2], p[3], p[4]));
            // The user travels by default.
            s.ui.fields.insert("selected".into(), "0".into());
            "passengers".into()
        }
        ("pass", pass) if pass.starts_with("passenger:") => {
            let Ok(i) = pass.trim_start_matches("passenger:").parse::<usize>() else { return String::new() };
            let mut chosen = selected(s);
            if let Some(at) = chosen.iter().position(|c| *c == i) {
                chosen.remove(at);
            } else {
                chosen.push(i);
                chosen.sort();
            }
            s.ui.fields.insert("selected".into(), chosen.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(","));
            "passengers updated".into()
        }
        ("pass", "pay") => {
            if selected(s).is_empty() {
                return bad(s, "Choose at least one passenger");
            }
            s.ui.dialog = Some("pay".into());
            "asked to confirm payment".into()
        }
        ("pass", "confirm_pay") => {
            let Some((a, b, _, run)) = run_of(&p) else { return String::new() };
            let class = p.get(5).copied().unwrap_or("Second").to_string();
            let names: Vec<String> = selected(s).into_iter().filter_map(|i| s.data.passengers.get(i).cloned()).collect();
            let tid = buy(s, STATIONS[a], STATIONS[b], &run, &class, names);
            s.reset_to("tickets");
            s.push(format!("ticket/{tid}"));
            "tickets paid".into()
        }
        ("tickets", t) if t.starts_with("ticket:") => {
            s.push(format!("ticket/{}", t.trim_start_matches("ticket:")));
            "opened ticket".into()
        }
        ("ticket", "refund") => {
            s.ui.dialog = Some("refund".into());
            "asked to confirm refund".into()
        }
        ("ticket", "confirm_refund") => {
            if let Some(t) = p.get(1).and_then(|x| x.parse().ok()).and_then(|tid| s.data.tickets.get_mut(tid)) {
                t.status = "refunded".into();
            }
            s.ui.dialog = None;
            "ticket refunded".into()
        }
        ("ticket", "change") => {
            s.push(format!("change/{}", p.get(1).copied().unwrap_or("0")));
            "choose a new date".into()
        }
        ("change", "find") => {
            let Some(day) = time::parse_date(s.field("date")) else { return bad(s, "Enter a date like 2026-05-04") };
            if day + DAY <= s.now() {
                return bad(s, "That date has passed");
            }
            s.push(format!("changes/{}/{}", p.get(1).copied().unwrap_or("0"), day / DAY));
            "trains found".into()
        }
        ("changes", run) if run.starts_with("run:") => {
            s.ui.dialog = Some(format!("to:{}", run.trim_start_matches("run:")));
            "asked to confirm the change".into()
        }
        ("changes", "confirm_change") => {
            let k: usize = s.ui.dialog.take().and_then(|d| d.trim_start_matches("to:").parse().ok()).unwrap_or(0);
            let (Some(tid), Some(day)) = (p.get(1).and_then(|x| x.parse::<u32>().ok()), p.get(2).and_then(|x| x.parse::<i64>().ok())) else {
                return String::new();
            };
            let Some(t) = s.data.tickets.get(tid).cloned() else { return String::new() };
            let Some(run) = timetable(&t.from, &t.to, day * DAY).into_iter().nth(k) else { return String::new() };
            change(s, tid, &run);
            s.reset_to("tickets");
            s.push(format!("ticket/{tid}"));
            "ticket changed".into()
        }
        _ => String::new(),
    }
}

/// Seat classes and their fare factors (percent of second class).
pub const SEAT_CLASSES: [(&str, i64); 3] = [("Second", 100), ("First", 160), ("Business", 250)];

/// One train of the timetable.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainRun {
    pub train: String,
    pub depart: Minutes,
    pub arrive: Minutes,
    /// Second-class fare; other classes multiply it (`SEAT_CLASSES`).
    pub price_cents: i64,
}

/// The trains between two stations on a day: the same for the same inputs, different per
/// route and day, none when the stations are equal or unknown.
pub fn timetable(from: &str, to: &str, day: Minutes) -> Vec<TrainRun> {
    let (Some(a), Some(b)) = (station_index(from), station_index(to)) else { return Vec::new() };
    if a == b {
        return Vec::new();
    }
    let day = day.div_euclid(DAY) * DAY;
    let mut rng = Rng::derive(day as u64 ^ ((a * 16 + b) as u64) << 40, "timetable");
    let distance = 40 + (a as i64 - b as i64).abs() * 35;
    (0..5)
        .map(|k| {
            let depart = day + (6 + k * 3) * 60 + rng.range(0, 3) * 15;
            let prefix = ["G", "D", "K"][rng.below(3)];
            TrainRun {
                train: format!("{prefix}{}", rng.range(100, 989)),
                depart,
                arrive: depart + distance + rng.range(0, 4) * 5,
                price_cents: distance * 40 + rng.range(0, 8) * 100,
            }
        })
        .collect()
}

pub fn station_index(name: &str) -> Option<usize> {
    STATIONS.iter().position(|s| s.eq_ignore_ascii_case(name.trim()))
}

/// The price of a train seat for `passengers` people.
pub fn fare(run: &TrainRun, class: &str, passengers: usize) -> i64 {
    let factor = SEAT_CLASSES.iter().find(|(c, _)| *c == class).map(|(_, f)| *f).unwrap_or(100);
    run.price_cents * factor / 100 * passengers as i64
}
