//! The UI tree of a page: Chromium's accessibility tree (roles, names, states) joined with a
//! DOM snapshot (layout bounds, attributes) on backend node ids.

use std::collections::HashMap;

use guigym_core::{Bounds, UiNode};
use serde_json::{json, Value};

use crate::browser::{BrowserError, Page};

const CLICKABLE: [&str; 14] =
    ["button", "link", "checkbox", "switch", "tab", "radio", "menuitem", "option", "combobox", "textbox", "searchbox", "listitem", "icon", "textfield"];

struct DomInfo {
    bounds: [f64; 4],
    attrs: HashMap<String, String>,
}

fn snapshot_index(snap: &Value) -> HashMap<i64, DomInfo> {
    let strings: Vec<&str> = snap["strings"].as_array().map(|a| a.iter().map(|s| s.as_str().unwrap_or("")).collect()).unwrap_or_default();
    let s = |i: &Value| i.as_i64().and_then(|i| strings.get(i as usize).copied()).unwrap_or("");
    let mut out = HashMap::new();
    let Some(docs) = snap["documents"].as_array() else { return out };
    for doc in docs {
        let nodes = &doc["nodes"];
        let backend: Vec<i64> = nodes["backendNodeId"].as_array().map(|a| a.iter().map(|v| v.as_i64().unwrap_or(-1)).collect()).unwrap_or_default();
        let attrs = nodes["attributes"].as_array();
        let layout = &doc["layout"];
        let (Some(idx), Some(bounds)) = (layout["nodeIndex"].as_array(), layout["bounds"].as_array()) else { continue };
        for (n, b) in idx.iter().zip(bounds) {
            let Some(n) = n.as_u64().map(|n| n as usize) else { continue };
            let Some(&bid) = backend.get(n) else { continue };
            let b: Vec<f64> = b.as_array().map(|a| a.iter().map(|x| x.as_f64().unwrap_or(0.0)).collect()).unwrap_or_default();
            if b.len() < 4 {
                continue;
            }
            let mut map = HashMap::new();
            if let Some(list) = attrs.and_then(|a| a.get(n)).and_then(Value::as_array) {
                for pair in list.chunks(2) {
                    if let [k, v] = pair {
                        let key = s(k);
                        if matches!(key, "data-gid" | "data-role" | "id" | "data-focused" | "data-covered") {
                            map.insert(key.to_string(), s(v).to_string());
                        }
                    }
                }
            }
            out.insert(bid, DomInfo { bounds: [b[0], b[1], b[2], b[3]], attrs: map });
        }
    }
    out
}

fn prop<'a>(node: &'a Value, name: &str) -> Option<&'a Value> {
    node["properties"].as_array()?.iter().find(|p| p["name"] == name).map(|p| &p["value"]["value"])
}

fn truthy(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::Bool(true))) || matches!(v, Some(Value::String(s)) if s == "true" || s == "mixed")
}

/// The page's UI tree, bounds in screenshot pixels.
pub async fn ui_tree(page: &Page) -> Result<Vec<UiNode>, BrowserError> {
    // Both requests in flight at once: one round trip instead of two.
    let (ax, snap) =
        tokio::join!(page.call("Accessibility.getFullAXTree", json!({})), page.call("DOMSnapshot.captureSnapshot", json!({ "computedStyles": [] })));
    let (ax, snap) = (ax?, snap?);
    let dom = snapshot_index(&snap);
    let nodes: &[Value] = ax["nodes"].as_array().map(Vec::as_slice).unwrap_or_default();
    let by_id: HashMap<&str, &Value> = nodes.iter().filter_map(|n| n["nodeId"].as_str().map(|id| (id, n))).collect();
    let Some(root) = nodes.first() else { return Ok(Vec::new()) };
    let scale = page.scale as f64;
    let mut out: Vec<UiNode> = Vec::new();
    // Depth-first, carrying the index of the nearest kept ancestor and its name.
    let mut stack: Vec<(&Value, Option<usize>)> = vec![(root, None)];
    while let Some((node, parent)) = stack.pop() {
        let role = node["role"]["value"].as_str().unwrap_or("");
        let name = node["name"]["value"].as_str().unwrap_or("").trim().to_string();
        let backend = node["backendDOMNodeId"].as_i64();
        let info = backend.and_then(|b| dom.get(&b));
        let ignored = node["ignored"].as_bool().unwrap_or(false) || matches!(role, "InlineTextBox" | "none" | "LineBreak");
        // Text that only repeats its parent's name adds nothing.
        let echo = role == "StaticText" && parent.is_some_and(|p| out[p].text.contains(&name));
        let visible = info.is_some_and(|i| i.bounds[2] > 0.0 && i.bounds[3] > 0.0);
        let mut next_parent = parent;
        if !ignored && !echo && (visible || parent.is_none()) {
            let b = info.map(|i| i.bounds).unwrap_or([0.0; 4]);
            let attrs = info.map(|i| &i.attrs);
            let gid = attrs.and_then(|a| a.get("data-gid").or_else(|| a.get("id")).cloned());
            let our_role = attrs.and_then(|a| a.get("data-role").cloned());
            let role_name = our_role.unwrap_or_else(|| match role {
                "StaticText" => "text".to_string(),
                "RootWebArea" => "root".to_string(),
                "generic" => "container".to_string(),
                other => other.to_string(),
            });
            let editable = matches!(role, "textbox" | "searchbox" | "combobox") || prop(node, "editable").is_some();
            // A field's value and its accessible name (its label or placeholder) apart.
            let (text, hint) = if editable {
                let value = node["value"]["value"].as_str().unwrap_or("").to_string();
                let hint = if name == value { String::new() } else { name.clone() };
                (value, hint)
            } else {
                (name.clone(), String::new())
            };
            // Under an open dialog: shown, but offered as nothing (as in the native tree).
            let covered = attrs.is_some_and(|a| a.contains_key("data-covered"));
            let enabled = !truthy(prop(node, "disabled")) && !covered;
            out.push(UiNode {
                // Elements without an id of their own are named by their place in the tree, so
                // one state always gives one tree (DOM node ids change with every render).
                id: gid.unwrap_or_else(|| format!("n{}", out.len())),
                parent,
                role: role_name.clone(),
                text,
                hint,
                bounds: Bounds {
                    x: (b[0] * scale).round() as i32,
                    y: (b[1] * scale).round() as i32,
                    w: (b[2] * scale).round() as i32,
                    h: (b[3] * scale).round() as i32,
                },
                clickable: (CLICKABLE.contains(&role_name.as_str()) || CLICKABLE.contains(&role)) && enabled,
                editable: editable && !covered,
                focused: truthy(prop(node, "focused")) || attrs.is_some_and(|a| a.contains_key("data-focused")),
                checked: truthy(prop(node, "checked")),
                selected: truthy(prop(node, "selected")),
                scrollable: role_name == "list" && attrs.is_some_and(|a| a.contains_key("data-gid")) && !covered,
                enabled,
            });
            next_parent = Some(out.len() - 1);
        }
        let children: Vec<&Value> =
            node["childIds"].as_array().map(|c| c.iter().filter_map(|id| id.as_str().and_then(|i| by_id.get(i).copied())).collect()).unwrap_or_default();
        for c in children.into_iter().rev() {
            stack.push((c, next_parent));
        }
    }
    Ok(out)
}
