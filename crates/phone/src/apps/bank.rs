//! Bank: the balance, transfers to contacts (validated amount, funds checked, confirmed),
//! and a statement with incoming and outgoing tabs. A safe clone: no money moves.

use guigym_ui::{TextStyle, View};

use super::{confirm, id_after, open_item, screen, split_route, App, UiEvent};
use crate::state::{AppData, DeviceState};
use crate::time::Minutes;
use crate::time::DAY;
use crate::world::World;
use crate::{money, parse_money, time};
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transaction {
    pub counterparty: String,
    /// Negative when money leaves the account.
    pub amount_cents: i64,
    pub note: String,
    pub time: Minutes,
}

/// Bank: a balance and a statement of payments with people of the world.
pub fn install(w: &World, d: &mut AppData, rng: &mut Rng) {
    d.balance_cents = rng.range(800, 4200) * 100 + rng.range(0, 99);
    for k in 0..8i64 {
        let who = w.person(rng.below(w.people.len())).name();
        let cents = rng.range(5, 120) * 100 + rng.range(0, 3) * 25;
        let incoming = k % 3 == 0;
        d.transactions.insert(Transaction {
            counterparty: who,
            amount_cents: if incoming { cents } else { -cents },
            note: if incoming { "Thanks!".into() } else { "Shared costs".into() },
            time: w.now - (k + 1) * DAY - rng.range(0, 600),
        });
    }
}

pub const APP: App = App { name: "Bank", icon: guigym_ui::Pictogram::Bank, color: [21, 128, 61], root: "home", view, handle };

fn txn_item(id: u32, t: &Transaction) -> View {
    View::item_with(format!("txn:{id}"), &t.counterparty, time::short(t.time), money(t.amount_cents))
}

fn newest_first(s: &DeviceState) -> Vec<(u32, &Transaction)> {
    let mut rows: Vec<(u32, &Transaction)> = s.data.transactions.iter().collect();
    rows.sort_by_key(|(id, t)| (std::cmp::Reverse(t.time), std::cmp::Reverse(*id)));
    rows
}

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("transfer", _) => {
            let dialog = (s.ui.dialog.as_deref() == Some("confirm")).then(|| {
                let amount = parse_money(s.field("amount")).unwrap_or(0);
                confirm("transfer_dialog", "Send money?", &format!("Send {} to {}.", money(amount), s.field("to").trim()), "confirm_transfer", "Send")
            });
            screen(
                "Transfer",
                vec![
                    View::field("to", s.field("to"), "To (contact name)", focus == Some("to")),
                    View::field("amount", s.field("amount"), "Amount", focus == Some("amount")),
                    View::field("note", s.field("note"), "Note (optional)", focus == Some("note")),
                    View::button("continue", "Continue"),
                ],
                dialog,
            )
        }
        ("statement", tab) => {
            let tab = tab.unwrap_or(0);
            let rows = newest_first(s).into_iter().filter(|(_, t)| match tab {
                1 => t.amount_cents > 0,
                2 => t.amount_cents < 0,
                _ => true,
            });
            screen(
                "Statement",
                vec![
                    View::chips("statement_tabs", [("tab:0", "All"), ("tab:1", "In"), ("tab:2", "Out")], tab as usize),
                    View::list("transactions", s.scroll("transactions"), rows.map(|(id, t)| txn_item(id, t))),
                ],
                None,
            )
        }
        ("txn", Some(id)) => match s.data.transactions.get(id) {
            Some(t) => screen(
                "Payment",
                vec![
                    View::text(&t.counterparty).id("counterparty"),
                    View::text(money(t.amount_cents)).id("amount"),
                    View::text(time::short(t.time)),
                    View::styled(if t.note.is_empty() { "No note" } else { &t.note }, TextStyle::Caption),
                ],
                None,
            ),
            None => screen("Payment", vec![], None),
        },
        _ => screen(
            "Bank",
            vec![
                View::styled("Balance", TextStyle::Caption),
                View::text(money(s.data.balance_cents)).id("balance"),
                View::row([View::button("transfer", "Transfer"), View::button("statement", "Statement")]),
                View::styled("Recent", TextStyle::Caption),
                View::list("recent", 0, newest_first(s).into_iter().take(3).map(|(id, t)| txn_item(id, t))),
            ],
            None,
        ),
    }
}

/// Sends money to a person: the balance drops, the statement gains a line.
pub fn transfer(s: &mut DeviceState, to: &str, cents: i64, note: &str) {
    s.data.balance_cents -= cents;
    let time = s.now();
    s.data.transactions.insert(Transaction { counterparty: to.to_string(), amount_cents: -cents, note: note.to_string(), time });
}

fn refuse(s: &mut DeviceState, why: &str) -> String {
    s.ui.toast = Some(why.to_string());
    format!("not sent: {}", why.to_lowercase())
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, _) = split_route(route);
    if let Some(tab) = id_after(id, "tab:") {
        s.reset_to("home");
        s.push(format!("statement:{tab}"));
        return "statement".into();
    }
    if let Some(opened) = open_item(s, id, &[("txn:", "txn", "opened payment")]) {
        return opened;
    }
    match (screen, id.as_str()) {
        ("home", "transfer") => {
            s.push("transfer");
            "transfer form".into()
        }
        ("home", "statement") => {
            s.push("statement:0");
            "statement".into()
        }
        ("transfer", "continue") => {
            if s.contact_named(s.field("to")).is_none() {
                return refuse(s, "Choose a person from your contacts");
            }
            let Some(cents) = parse_money(s.field("amount")).filter(|c| *c > 0) else { return refuse(s, "Enter an amount like 12.50") };
            if cents > s.data.balance_cents {
                return refuse(s, "Insufficient funds");
            }
            s.ui.dialog = Some("confirm".into());
            "asked to confirm the transfer".into()
        }
        ("transfer", "confirm_transfer") => {
            let to = s.contact_named(s.field("to")).map(|(_, c)| c.name.clone()).unwrap_or_default();
            let cents = parse_money(s.field("amount")).unwrap_or(0);
            let note = s.field("note").trim().to_string();
            transfer(s, &to, cents, &note);
            s.reset_to("home");
            s.ui.toast = Some(format!("Sent {} to {to}", money(cents)));
            "money sent".into()
        }
        _ => String::new(),
    }
}
