//! Food delivery: restaurants, menus that fill one basket at a time (switching restaurant
//! asks first), a basket with an address, orders that can be cancelled while placed.

use guigym_ui::{TextStyle, View};

use super::shop::Product;
use super::{confirm, open_item, screen, split_route, App, UiEvent};
use crate::money;
use crate::state::{AppData, DeviceState, Line, Order, Table};
use crate::world::World;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Restaurant {
    pub name: String,
    pub cuisine: String,
    pub menu: Vec<Product>,
}

/// Name, cuisine, and a menu of dishes with prices in cents.
type RestaurantSpec = (&'static str, &'static str, [(&'static str, i64); 4]);

const RESTAURANTS: [RestaurantSpec; 6] = [
    ("Luigi's Pizza", "Italian", [("Margherita", 1100), ("Pepperoni", 1350), ("Garlic bread", 500), ("Tiramisu", 650)]),
    ("Sakura Sushi", "Japanese", [("Salmon roll", 900), ("Miso soup", 350), ("Bento box", 1550), ("Edamame", 450)]),
    ("Green Bowl", "Salads", [("Caesar salad", 950), ("Quinoa bowl", 1150), ("Falafel wrap", 850), ("Lemonade", 350)]),
    ("Burger Barn", "American", [("Cheeseburger", 1050), ("Veggie burger", 1000), ("Fries", 400), ("Milkshake", 550)]),
    ("Spice Route", "Indian", [("Chicken curry", 1300), ("Dal", 900), ("Naan", 300), ("Mango lassi", 450)]),
    ("Taco Stand", "Mexican", [("Beef tacos", 950), ("Burrito", 1150), ("Nachos", 750), ("Churros", 500)]),
];

pub fn install(_w: &World, d: &mut AppData, _rng: &mut Rng) {
    let mut restaurants = Table::default();
    for (name, cuisine, menu) in RESTAURANTS {
        let menu = menu.iter().map(|(dish, price)| Product { name: dish.to_string(), category: cuisine.into(), price_cents: *price }).collect();
        restaurants.insert(Restaurant { name: name.into(), cuisine: cuisine.into(), menu });
    }
    d.restaurants = std::sync::Arc::new(restaurants);
}

pub const APP: App = App { name: "Food", icon: guigym_ui::Pictogram::Cutlery, color: [220, 38, 38], root: "home", view, handle };

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("restaurant", Some(id)) => match s.data.restaurants.get(id) {
            Some(r) => {
                let dialog = (s.ui.dialog.as_deref().is_some_and(|d| d.starts_with("switch:"))).then(|| {
                    confirm("switch_dialog", "Start a new basket?", "Your basket holds dishes from another restaurant.", "confirm_new_basket", "Start new")
                });
                screen(
                    &r.name,
                    vec![
                        View::styled(&r.cuisine, TextStyle::Caption),
                        View::list(
                            "menu",
                            s.scroll("menu"),
                            r.menu
                                .iter()
                                .enumerate()
                                .map(|(i, d)| View::item_with(format!("dish:{i}"), &d.name, "Tap to add", money(d.price_cents)).picture(&d.name)),
                        ),
                        View::button("basket", format!("Basket ({})", s.data.basket.iter().map(|l| l.qty).sum::<u32>())),
                    ],
                    dialog,
                )
            }
            None => screen("Restaurant", vec![View::text("Closed.")], None),
        },
        ("basket", _) => screen(
            "Basket",
            vec![
                View::list(
                    "basket_lines",
                    s.scroll("basket_lines"),
                    s.data.basket.iter().enumerate().map(|(i, l)| {
                        View::item_with(format!("bline:{i}"), &l.item, format!("× {} (tap to remove one)", l.qty), money(l.price_cents * l.qty as i64))
                    }),
                ),
                View::text(format!("Total: {}", money(super::shop::cart_total(&s.data.basket)))).id("total"),
                View::field("address", s.field("address"), "Delivery address", focus == Some("address")),
                View::button("order", "Order now"),
            ],
            None,
        ),
        ("orders", _) => screen(
            "Your orders",
            vec![View::list(
                "food_orders",
                s.scroll("food_orders"),
                s.data.food_orders.iter().map(|(id, o)| View::item_with(format!("food_order:{id}"), &o.seller, &o.status, money(o.total_cents)).card()),
            )],
            None,
        ),
        ("order", Some(id)) => match s.data.food_orders.get(id) {
            Some(o) => {
                let dialog = (s.ui.dialog.as_deref() == Some("cancel"))
                    .then(|| confirm("cancel_dialog", "Cancel order?", "The restaurant will be told.", "confirm_cancel", "Cancel order"));
                let mut body: Vec<View> = o.lines.iter().map(|l| View::text(format!("{} × {}", l.qty, l.item))).collect();
                body.push(View::text(format!("Total: {} · {}", money(o.total_cents), o.status)).id("status"));
                if o.status == "placed" {
                    body.push(View::danger_button("cancel", "Cancel order"));
                }
                screen(&o.seller, body, dialog)
            }
            None => screen("Order", vec![View::text("No such order.")], None),
        },
        _ => screen(
            "Food",
            vec![
                View::list(
                    "restaurants",
                    s.scroll("restaurants"),
                    s.data.restaurants.iter().map(|(id, r)| View::item(format!("restaurant:{id}"), &r.name, &r.cuisine).picture(&r.name)),
                ),
                View::row([View::button("basket", "Basket"), View::button("orders", "Orders")]),
            ],
            None,
        ),
    }
}

/// Adds one dish to the basket of restaurant `rid` (which must be the basket's).
pub fn add_dish(s: &mut DeviceState, rid: u32, dish: usize) -> Option<String> {
    let d = s.data.restaurants.get(rid)?.menu.get(dish)?.clone();
    s.data.basket_restaurant = Some(rid);
    match s.data.basket.iter_mut().find(|l| l.item == d.name) {
        Some(l) => l.qty += 1,
        None => s.data.basket.push(Line { item: d.name.clone(), qty: 1, price_cents: d.price_cents }),
    }
    Some(d.name)
}

pub fn place(s: &mut DeviceState, address: &str) -> Option<u32> {
    let rid = s.data.basket_restaurant?;
    let seller = s.data.restaurants.get(rid)?.name.clone();
    let lines = std::mem::take(&mut s.data.basket);
    s.data.basket_restaurant = None;
    let number = format!("F{}", 501 + s.data.food_orders.next_id);
    let total_cents = super::shop::cart_total(&lines);
    let time = s.now();
    Some(s.data.food_orders.insert(Order {
        number,
        seller,
        lines,
        total_cents,
        address: address.to_string(),
        status: "placed".into(),
        time,
        return_reason: String::new(),
    }))
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(opened) = open_item(s, id, &[("restaurant:", "restaurant", "opened restaurant"), ("food_order:", "order", "opened order")]) {
        return opened;
    }
    match (screen, id.as_str()) {
        (_, "basket") => {
            s.push("basket");
            "opened basket".into()
        }
        ("home", "orders") => {
            s.push("orders");
            "opened orders".into()
        }
        ("restaurant", dish) if dish.starts_with("dish:") => {
            let (Some(rid), Ok(i)) = (arg, dish.trim_start_matches("dish:").parse::<usize>()) else { return String::new() };
            if s.data.basket_restaurant.is_some_and(|b| b != rid) && !s.data.basket.is_empty() {
                s.ui.dialog = Some(format!("switch:{i}"));
                return "asked to start a new basket".into();
            }
            add_dish(s, rid, i).map(|n| format!("added {n}")).unwrap_or_default()
        }
        ("restaurant", "confirm_new_basket") => {
            let i = s.ui.dialog.take().and_then(|d| d.trim_start_matches("switch:").parse::<usize>().ok()).unwrap_or(0);
            s.data.basket.clear();
            arg.and_then(|rid| add_dish(s, rid, i)).map(|n| format!("new basket with {n}")).unwrap_or_default()
        }
        ("basket", line) if line.starts_with("bline:") => {
            let Ok(i) = line.trim_start_matches("bline:").parse::<usize>() else { return String::new() };
            if let Some(l) = s.data.basket.get_mut(i) {
                l.qty -= 1;
                if l.qty == 0 {
                    s.data.basket.remove(i);
                }
            }
            "removed one".into()
        }
        ("basket", "order") => {
            let address = s.field("address").trim().to_string();
            if s.data.basket.is_empty() {
                s.ui.toast = Some("Your basket is empty".into());
                return "not ordered: the basket is empty".into();
            }
            if address.is_empty() {
                s.ui.toast = Some("Enter a delivery address".into());
                return "not ordered: enter a delivery address".into();
            }
            let Some(oid) = place(s, &address) else { return String::new() };
            s.reset_to("home");
            s.push(format!("order:{oid}"));
            "order placed".into()
        }
        ("order", "cancel") => {
            s.ui.dialog = Some("cancel".into());
            "asked to confirm".into()
        }
        ("order", "confirm_cancel") => {
            if let Some(o) = arg.and_then(|oid| s.data.food_orders.get_mut(oid)) {
                o.status = "cancelled".into();
            }
            s.ui.dialog = None;
            "order cancelled".into()
        }
        _ => String::new(),
    }
}
