//! Shop: search with category tabs, product pages with a quantity, a cart, checkout with an
//! address and a payment confirmation, orders and returns. A safe clone: nothing is bought.

use guigym_ui::{TextStyle, View};

use super::{confirm, open_item, photo, screen, split_route, App, UiEvent};
use crate::money;
use crate::state::{AppData, DeviceState, Table};
use crate::time::Minutes;
use crate::time::DAY;
use crate::world::World;
use guigym_core::Rng;
use serde::{Deserialize, Serialize};

/// Something for sale (shop) or on a menu (food delivery).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Product {
    pub name: String,
    pub category: String,
    pub price_cents: i64,
}

/// One line of a cart, basket or order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub item: String,
    pub qty: u32,
    pub price_cents: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub number: String,
    /// The shop, or the restaurant for food orders.
    pub seller: String,
    pub lines: Vec<Line>,
    pub total_cents: i64,
    pub address: String,
    /// `placed`, `delivered`, `return requested`, `cancelled`.
    pub status: String,
    pub time: Minutes,
    /// Why a return was requested (one of `shop::RETURN_REASONS`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub return_reason: String,
}

pub const PRODUCTS: [(&str, &str, i64); 24] = [
    ("USB-C charger", "Electronics", 1999),
    ("Wireless earbuds", "Electronics", 4999),
    ("Phone case", "Electronics", 1299),
    ("Power bank", "Electronics", 2999),
    ("HDMI cable", "Electronics", 899),
    ("Desk lamp", "Home", 3499),
    ("Coffee mugs (set of 4)", "Home", 2499),
    ("Bath towel", "Home", 1599),
    ("Scented candle", "Home", 1199),
    ("Storage boxes", "Home", 2199),
    ("Packing tape", "Home", 499),
    ("Moving boxes (10)", "Home", 2999),
    ("Notebook", "Office", 599),
    ("Gel pens (12)", "Office", 899),
    ("Laptop stand", "Office", 3999),
    ("Travel adapter", "Travel", 1799),
    ("Luggage tag", "Travel", 699),
    ("Neck pillow", "Travel", 1499),
    ("Water bottle", "Sports", 1299),
    ("Yoga mat", "Sports", 2599),
    ("Running socks", "Sports", 999),
    ("Board game", "Toys", 3299),
    ("Birthday candles", "Party", 399),
    ("Gift wrap", "Party", 599),
];

/// Shop: the catalogue with seeded prices, and two past orders.
pub fn install(w: &World, d: &mut AppData, rng: &mut Rng) {
    let mut products = Table::default();
    for (name, category, price) in PRODUCTS {
        let price = price + rng.range(-2, 4) * 50;
        products.insert(Product { name: name.into(), category: category.into(), price_cents: price });
    }
    d.products = std::sync::Arc::new(products);
    for k in 0..2 {
        let Some(p) = d.products.get(1 + rng.below(PRODUCTS.len()) as u32).cloned() else { continue };
        let qty = 1 + rng.below(2) as u32;
        d.orders.insert(Order {
            number: format!("A{}", rng.range(10000, 99999)),
            seller: "Shop".into(),
            lines: vec![Line { item: p.name.clone(), qty, price_cents: p.price_cents }],
            total_cents: p.price_cents * qty as i64,
            address: "Home".into(),
            status: "delivered".into(),
            time: w.now - (k + 2) * 3 * DAY,
            return_reason: String::new(),
        });
    }
}

pub const APP: App = App { name: "Shop", icon: guigym_ui::Pictogram::Bag, color: [234, 88, 12], root: "home", view, handle };

/// The category tabs: "All", then every category the shop's products have (none left out).
fn categories(s: &DeviceState) -> Vec<String> {
    let mut c: Vec<String> = s.data.products.items.values().map(|p| p.category.clone()).collect();
    c.sort();
    c.dedup();
    c.insert(0, "All".into());
    c
}
pub const RETURN_REASONS: [&str; 3] = ["Damaged", "Wrong item", "No longer needed"];

pub fn cart_total(lines: &[Line]) -> i64 {
    lines.iter().map(|l| l.price_cents * l.qty as i64).sum()
}

fn qty(s: &DeviceState) -> u32 {
    s.field("qty").parse().unwrap_or(1)
}

fn view(s: &DeviceState, route: &str) -> View {
    let focus = s.ui.focus.as_deref();
    match split_route(route) {
        ("product", Some(id)) => match s.data.products.get(id) {
            Some(p) => screen(
                &p.name,
                vec![
                    photo(&p.name, 120.0),
                    View::text(money(p.price_cents)).id("price"),
                    View::styled(&p.category, TextStyle::Caption),
                    View::text(format!("Quantity: {}", qty(s))).id("qty"),
                    View::row([View::button("qty_minus", "Quantity −1"), View::button("qty_plus", "Quantity +1")]),
                    View::button("add_to_cart", "Add to cart"),
                    View::button("cart", format!("Cart ({})", s.data.cart.iter().map(|l| l.qty).sum::<u32>())),
                ],
                None,
            ),
            None => screen("Product", vec![View::text("This product is gone.")], None),
        },
        ("cart", _) => {
            let dialog = s.ui.dialog.as_deref().and_then(|d| d.strip_prefix("remove:")).map(|i| {
                // Name the item, not the line's position.
                let item =
                    i.parse::<usize>().ok().and_then(|i| s.data.cart.get(i)).map_or_else(|| "This item".to_string(), |l| format!("{} × {}", l.qty, l.item));
                confirm("remove_dialog", "Remove from cart?", &format!("{item} will be removed."), "confirm_remove", "Remove")
            });
            screen(
                "Cart",
                vec![
                    View::list(
                        "cart_lines",
                        s.scroll("cart_lines"),
                        s.data
                            .cart
                            .iter()
                            .enumerate()
                            .map(|(i, l)| View::item_with(format!("line:{i}"), &l.item, format!("× {}", l.qty), money(l.price_cents * l.qty as i64))),
                    ),
                    View::text(format!("Total: {}", money(cart_total(&s.data.cart)))).id("total"),
                    View::button("checkout", "Checkout"),
                ],
                dialog,
            )
        }
        ("checkout", _) => {
            let total = cart_total(&s.data.cart);
            let dialog = (s.ui.dialog.as_deref() == Some("pay"))
                .then(|| confirm("pay_dialog", "Place order?", &format!("You will pay {}.", money(total)), "confirm_pay", "Pay"));
            screen(
                "Checkout",
                vec![
                    View::field("address", s.field("address"), "Delivery address", focus == Some("address")),
                    View::text(format!("Total: {}", money(total))).id("total"),
                    View::button("place_order", "Place order"),
                ],
                dialog,
            )
        }
        ("orders", _) => {
            let mut rows: Vec<(u32, &Order)> = s.data.orders.iter().collect();
            rows.sort_by_key(|(id, o)| (std::cmp::Reverse(o.time), *id));
            screen(
                "Orders",
                vec![View::list(
                    "orders",
                    s.scroll("orders"),
                    // The date is shown: "most recent" is read from it, never from the position.
                    rows.into_iter().map(|(id, o)| {
                        View::item_with(
                            format!("order:{id}"),
                            format!("Order {}", o.number),
                            format!("{} · {}", crate::time::date_iso(o.time), o.status),
                            money(o.total_cents),
                        )
                    }),
                )],
                None,
            )
        }
        ("order", Some(id)) => match s.data.orders.get(id) {
            Some(o) => {
                let dialog = (s.ui.dialog.as_deref() == Some("return")).then(|| {
                    View::dialog(
                        "return_dialog",
                        "Why are you returning it?",
                        RETURN_REASONS
                            .iter()
                            .enumerate()
                            .map(|(i, r)| View::button(format!("reason:{i}"), *r))
                            .chain([View::button("dialog_cancel", "Cancel")]),
                    )
                });
                let mut body: Vec<View> =
                    o.lines.iter().map(|l| View::text(format!("{} × {} — {}", l.qty, l.item, money(l.price_cents * l.qty as i64)))).collect();
                body.push(View::text(format!("Total: {}", money(o.total_cents))).id("total"));
                body.push(View::text(format!("Ordered: {}", crate::time::date_iso(o.time))).id("ordered"));
                body.push(View::text(format!("Status: {}", o.status)).id("status"));
                if o.status == "delivered" {
                    body.push(View::button("return", "Return items"));
                }
                screen(&format!("Order {}", o.number), body, dialog)
            }
            None => screen("Order", vec![View::text("No such order.")], None),
        },
        _ => {
            let q = crate::normalize(s.field("search"));
            let cat = s.field("category");
            let cat = if cat.is_empty() { "All" } else { cat };
            let rows: Vec<(u32, &Product)> = s
                .data
                .products
                .iter()
                .filter(|(_, p)| (cat == "All" || p.category == cat) && (q.is_empty() || crate::normalize(&p.name).contains(&q)))
                .collect();
            let tabs = categories(s);
            let selected = tabs.iter().position(|c| *c == cat).unwrap_or(0);
            screen(
                "Shop",
                vec![
                    View::field("search", s.field("search"), "Search products", focus == Some("search")),
                    View::chips("categories", tabs.iter().map(|c| (c.as_str(), c.as_str())), selected),
                    View::list(
                        "products",
                        s.scroll("products"),
                        rows.into_iter().map(|(id, p)| View::item_with(format!("product:{id}"), &p.name, &p.category, money(p.price_cents)).picture(&p.name)),
                    ),
                    View::row([View::button("cart", format!("Cart ({})", s.data.cart.iter().map(|l| l.qty).sum::<u32>())), View::button("orders", "Orders")]),
                ],
                None,
            )
        }
    }
}

/// Adds to the cart, merging with a line of the same item.
pub fn add_to_cart(s: &mut DeviceState, p: &Product, qty: u32) {
    match s.data.cart.iter_mut().find(|l| l.item == p.name) {
        Some(l) => l.qty += qty,
        None => s.data.cart.push(Line { item: p.name.clone(), qty, price_cents: p.price_cents }),
    }
}

/// Turns the cart into an order; its number follows from the orders so far.
pub fn place_order(s: &mut DeviceState, address: &str) -> u32 {
    let lines = std::mem::take(&mut s.data.cart);
    let number = format!("B{}", 20001 + s.data.orders.next_id);
    let total_cents = cart_total(&lines);
    let time = s.now();
    s.data.orders.insert(Order {
        number,
        seller: "Shop".into(),
        lines,
        total_cents,
        address: address.to_string(),
        status: "placed".into(),
        time,
        return_reason: String::new(),
    })
}

fn handle(s: &mut DeviceState, route: &str, ev: &UiEvent) -> String {
    let UiEvent::Tap(id) = ev else { return String::new() };
    let (screen, arg) = split_route(route);
    if let Some(opened) = open_item(s, id, &[("product:", "product", "opened product"), ("order:", "order", "opened order")]) {
        return opened;
    }
    match (screen, id.as_str()) {
        ("home", c) if categories(s).iter().any(|x| x == c) => {
            s.ui.fields.insert("category".into(), c.to_string());
            format!("showing {c}")
        }
        (_, "cart") => {
            s.push("cart");
            "opened cart".into()
        }
        ("home", "orders") => {
            s.push("orders");
            "opened orders".into()
        }
        ("product", "qty_plus") => {
            let q = (qty(s) + 1).min(20);
            s.ui.fields.insert("qty".into(), q.to_string());
            format!("quantity {q}")
        }
        ("product", "qty_minus") => {
            let q = qty(s).saturating_sub(1).max(1);
            s.ui.fields.insert("qty".into(), q.to_string());
            format!("quantity {q}")
        }
        ("product", "add_to_cart") => {
            let Some(p) = arg.and_then(|pid| s.data.products.get(pid)).cloned() else { return String::new() };
            let q = qty(s);
            add_to_cart(s, &p, q);
            s.ui.toast = Some(format!("Added {q} × {} to the cart", p.name));
            "added to cart".into()
        }
        ("cart", line) if line.starts_with("line:") => {
            s.ui.dialog = Some(format!("remove:{}", line.trim_start_matches("line:")));
            "asked to confirm removal".into()
        }
        ("cart", "confirm_remove") => {
            if let Some(i) = s.ui.dialog.take().and_then(|d| d.trim_start_matches("remove:").parse::<usize>().ok()) {
                if i < s.data.cart.len() {
                    s.data.cart.remove(i);
                }
            }
            "removed from cart".into()
        }
        ("cart", "checkout") => {
            if s.data.cart.is_empty() {
                s.ui.toast = Some("Your cart is empty".into());
                return "cannot check out: the cart is empty".into();
            }
            s.push("checkout");
            "checkout".into()
        }
        ("checkout", "place_order") => {
            if s.field("address").trim().is_empty() {
                s.ui.toast = Some("Enter a delivery address".into());
                return "not placed: enter a delivery address".into();
            }
            s.ui.dialog = Some("pay".into());
            "asked to confirm payment".into()
        }
        ("checkout", "confirm_pay") => {
            let address = s.field("address").trim().to_string();
            let oid = place_order(s, &address);
            s.reset_to("home");
            s.push(format!("order:{oid}"));
            s.ui.toast = Some("Order placed".into());
            "order placed".into()
        }
        ("order", "return") => {
            s.ui.dialog = Some("return".into());
            "choose a reason".into()
        }
        ("order", reason) if reason.starts_with("reason:") => {
            let why = reason.strip_prefix("reason:").and_then(|i| i.parse::<usize>().ok()).and_then(|i| RETURN_REASONS.get(i));
            if let (Some(o), Some(why)) = (arg.and_then(|oid| s.data.orders.get_mut(oid)), why) {
                if o.status == "delivered" {
                    o.status = "return requested".into();
                    o.return_reason = why.to_string();
                }
            }
            s.ui.dialog = None;
            "return requested".into()
        }
        _ => String::new(),
    }
}
