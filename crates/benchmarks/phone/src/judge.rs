//! Verifier building blocks: a state diff, and the expected-state comparison every family's
//! verifier makes (`expected_checks`).

use guigym_core::Check;
use serde_json::Value;

use guigym_phone::state::AppData;

/// Paths that change by merely looking (opening an email marks it read) or that leave the
/// world as it was (a cart or basket nobody checked out, the music player): never a side effect.
/// Opening an email marks it read: reading, never a change the task made.
const READING: &str = "emails/items/*/read";
const BENIGN: &[&str] = &[READING, "cart", "basket", "basket_restaurant", "player"];

/// Keys the golden cannot predict (when a message was sent, the number an order was issued):
/// not compared.
const VOLATILE: &[&str] = &["time", "next_id", "number"];

/// Every leaf path whose value differs between two app data snapshots. Maps compare by key,
/// arrays by index, so an appended message is one added path.
pub fn diff(before: &AppData, after: &AppData) -> Vec<String> {
    let a = serde_json::to_value(before).unwrap_or(Value::Null);
    let b = serde_json::to_value(after).unwrap_or(Value::Null);
    diff_json(&a, &b)
}

/// `diff` on JSON values: the paths (`/`-joined keys) of every leaf that differs.
pub fn diff_json(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    diff_values(a, b, String::new(), &mut out);
    out
}

fn diff_values(a: &Value, b: &Value, path: String, out: &mut Vec<String>) {
    let join = |k: &str| if path.is_empty() { k.to_string() } else { format!("{path}/{k}") };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(va), Some(vb)) => diff_values(va, vb, join(k), out),
                    _ => out.push(join(k)),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                match (x.get(i), y.get(i)) {
                    (Some(va), Some(vb)) => diff_values(va, vb, join(&i.to_string()), out),
                    _ => out.push(join(&i.to_string())),
                }
            }
        }
        _ if a != b => out.push(path),
        _ => {}
    }
}

/// Whether a changed path is only reading (an email marked read).
pub fn is_reading(path: &str) -> bool {
    under(path, READING)
}

/// Whether `path` lies under `pattern` (segments, `*` matches one segment).
fn under(path: &str, pattern: &str) -> bool {
    let mut p = path.split('/');
    for want in pattern.split('/') {
        match p.next() {
            Some(seg) if want == "*" || want == seg => {}
            _ => return false,
        }
    }
    true
}

/// Judges a final state against the state the golden produces from the same initial one:
/// each item the task changes is a named check, every other change a side effect. New items
/// are matched by content, so an agent whose new note got another id still passes.
/// Lists compare as multisets unless `ordered` (the instruction asks for an order).
pub fn expected_checks(initial: &Value, expected: &Value, last: &Value, ordered: bool) -> (Vec<Check>, Vec<String>) {
    let canon = |v: &Value| {
        let mut v = canon(v, !ordered);
        // Opening an email marks it read: reading is never part of what a task changes.
        if let Some(items) = v.pointer_mut("/emails/items").and_then(Value::as_object_mut) {
            items.values_mut().filter_map(Value::as_object_mut).for_each(|e| drop(e.remove("read")));
        }
        v
    };
    let i = canon(initial);
    let e = canon(expected);
    let mut l = canon(last);
    forget_withdrawn(&i, &mut l);
    match_new_items(&i, &e, &mut l);
    let mut groups: Vec<String> = Vec::new();
    let mut changed = Vec::new();
    diff_values(&i, &e, String::new(), &mut changed);
    for p in changed {
        let g = group_of(&p);
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    let at = |v: &Value, path: &str| v.pointer(&format!("/{path}")).cloned().unwrap_or(Value::Null);
    let mut checks = Vec::new();
    for g in &groups {
        let (want, got) = (at(&e, g), at(&l, g));
        let mut wrong = Vec::new();
        diff_values(&want, &got, String::new(), &mut wrong);
        let detail = wrong.first().map(|p| {
            let sub = |v: &Value| if p.is_empty() { v.clone() } else { at(v, p) };
            let name = if p.is_empty() { g.clone() } else { format!("{g}/{p}") };
            format!("{name}: expected {}, found {}", short(&sub(&want)), short(&sub(&got)))
        });
        checks.push(Check::new(g.clone(), wrong.is_empty(), detail.unwrap_or_default()));
    }
    let mut actual = Vec::new();
    diff_values(&i, &l, String::new(), &mut actual);
    let side_effects = actual.into_iter().filter(|p| !groups.iter().any(|g| under(p, g)) && !BENIGN.iter().any(|b| under(p, b))).collect();
    (checks, side_effects)
}

fn short(v: &Value) -> String {
    let s = if v.is_null() { "nothing".to_string() } else { v.to_string() };
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

/// The item a changed path belongs to: `notes/items/3/title` → `notes/items/3`,
/// `settings/wifi` → `settings/wifi`.
fn group_of(path: &str) -> String {
    let segs: Vec<&str> = path.split('/').collect();
    let n = if segs.get(1) == Some(&"items") { 3 } else { 2 };
    segs[..n.min(segs.len())].join("/")
}

/// Volatile keys dropped, strings normalized (case, spacing, trailing punctuation), phone
/// numbers reduced to their digits without a country code (`(555) 939-1287` is
/// `+1 555 939 1287`), and lists compared as multisets unless the instruction asks for an
/// order (a basket filled in another order is the same basket).
fn canon(v: &Value, as_multisets: bool) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !VOLATILE.contains(&k.as_str()))
                .map(|(k, v)| match v {
                    Value::String(s) if k == "phone" => (k.clone(), Value::String(guigym_phone::phone_key(s))),
                    _ => (k.clone(), canon(v, as_multisets)),
                })
                .collect(),
        ),
        Value::Array(a) => {
            let mut items: Vec<Value> = a.iter().map(|v| canon(v, as_multisets)).collect();
            if as_multisets {
                items.sort_by_cached_key(|v| v.to_string());
            }
            Value::Array(items)
        }
        Value::String(s) => Value::String(guigym_phone::normalize(s)),
        other => other.clone(),
    }
}

/// A mistaken order or booking the agent cancelled or refunded in the same episode leaves
/// the world as it was: new items whose status says they were withdrawn are dropped (a
/// withdrawn item that existed before is a change like any other).
fn forget_withdrawn(initial: &Value, last: &mut Value) {
    const WITHDRAWN: [&str; 2] = ["cancelled", "refunded"];
    let Some(tables) = last.as_object_mut() else { return };
    for (name, table) in tables.iter_mut() {
        let Some(items) = table.get_mut("items").and_then(Value::as_object_mut) else { continue };
        let before = initial.get(name).and_then(|t| t.get("items")).and_then(Value::as_object);
        items.retain(|id, item| {
            let new = before.is_none_or(|b| !b.contains_key(id));
            !(new && item.get("status").and_then(Value::as_str).is_some_and(|s| WITHDRAWN.contains(&s)))
        });
    }
}

/// Renames the new items of `last`'s tables to the ids of the expected new items they equal
/// (then pairs the rest in order, so a wrong new item is compared field by field).
fn match_new_items(initial: &Value, expected: &Value, last: &mut Value) {
    let Some(tables) = expected.as_object() else { return };
    for (name, table) in tables {
        let (Some(e_items), Some(i_items)) =
            (table.get("items").and_then(Value::as_object), initial.get(name).and_then(|t| t.get("items")).and_then(Value::as_object))
        else {
            continue;
        };
        let Some(l_items) = last.get_mut(name).and_then(|t| t.get_mut("items")).and_then(Value::as_object_mut) else { continue };
        let want: Vec<&String> = e_items.keys().filter(|k| !i_items.contains_key(*k)).collect();
        let mut have: Vec<(String, Value)> = l_items.iter().filter(|(k, _)| !i_items.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        if want.is_empty() && have.is_empty() {
            continue;
        }
        for (k, _) in &have {
            l_items.remove(k);
        }
        let mut placed = Vec::new();
        for w in &want {
            if let Some(pos) = have.iter().position(|(_, v)| Some(v) == e_items.get(*w)) {
                placed.push(((*w).clone(), have.remove(pos).1));
            }
        }
        for w in &want {
            if !placed.iter().any(|(k, _)| k == *w) && !have.is_empty() {
                placed.push(((*w).clone(), have.remove(0).1));
            }
        }
        for (k, v) in placed {
            l_items.insert(k, v);
        }
        for (k, v) in have {
            l_items.insert(format!("new-{k}"), v);
        }
    }
}

/// Amounts of money written in text (`$12.50`, `12.50`, `12,50 USD`, `12 dollars`), in cents;
/// dates and times are not amounts.
pub fn money_in_text(text: &str) -> Vec<i64> {
    super::answer::quantities(text).into_iter().filter(|n| *n >= 0.0).map(|n| (n * 100.0).round() as i64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_segments() {
        assert!(under("contacts/items/3/phone", "contacts/items/3"));
        assert!(!under("contacts/items/31/phone", "contacts/items/3"));
        assert!(under("emails/items/7/read", "emails/items/*/read"));
        assert!(!under("emails/items/7/folder", "emails/items/*/read"));
    }

    #[test]
    fn a_mistake_cancelled_and_redone_is_the_task_done() {
        let v = |items: Value| serde_json::json!({ "food_orders": { "items": items, "next_id": 9 } });
        let initial = v(serde_json::json!({}));
        let expected = v(serde_json::json!({ "1": { "address": "12 Elm Street", "status": "placed" } }));
        let redone = v(serde_json::json!({
            "1": { "address": "12 Elm Road", "status": "cancelled" },
            "2": { "address": "12 Elm Street", "status": "placed" },
        }));
        let (checks, side_effects) = expected_checks(&initial, &expected, &redone, false);
        assert!(checks.iter().all(|c| c.passed) && side_effects.is_empty(), "{checks:?} {side_effects:?}");
        // Done, then cancelled: not done.
        let undone = v(serde_json::json!({ "1": { "address": "12 Elm Street", "status": "cancelled" } }));
        let (checks, _) = expected_checks(&initial, &expected, &undone, false);
        assert!(checks.iter().any(|c| !c.passed));
        // An order that existed before and was cancelled is a change.
        let before = v(serde_json::json!({ "1": { "address": "x", "status": "placed" } }));
        let cancelled = v(serde_json::json!({ "1": { "address": "x", "status": "cancelled" } }));
        let (_, side_effects) = expected_checks(&before, &before, &cancelled, false);
        assert_eq!(side_effects, vec!["food_orders/items/1/status".to_string()]);
    }

    #[test]
    fn money_in_messages() {
        assert_eq!(money_in_text("Can you pay me back $23.50 for May 4?"), vec![2350]);
    }
}
