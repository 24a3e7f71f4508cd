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

/// What the DOM snapshot says of the page's laid-out elements.
struct Snapshot {
    by_backend: HashMap<i64, DomInfo>,
    /// Elements that are nodes of a native layout (`data-parent`, or the layout's root), in
    /// document order.
    layout_nodes: Vec<i64>,
}

fn snapshot_index(snap: &Value) -> Snapshot {
    let strings: Vec<&str> = snap["strings"].as_array().map(|a| a.iter().map(|s| s.as_str().unwrap_or("")).collect()).unwrap_or_default();
    let s = |i: &Value| i.as_i64().and_then(|i| strings.get(i as usize).copied()).unwrap_or("");
    let mut out = Snapshot { by_backend: HashMap::new(), layout_nodes: Vec::new() };
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
            if b.len() < 4 || out.by_backend.contains_key(&bid) {
                continue;
            }
            let mut map = HashMap::new();
            if let Some(list) = attrs.and_then(|a| a.get(n)).and_then(Value::as_array) {
                for pair in list.chunks(2) {
                    if let [k, v] = pair {
                        let key = s(k);
                        if matches!(key, "data-gid" | "data-role" | "data-parent" | "id" | "data-focused" | "data-covered") {
                            map.insert(key.to_string(), s(v).to_string());
                        }
                    }
                }
            }
            if map.contains_key("data-gid") && map.contains_key("data-role") {
                out.layout_nodes.push(bid);
            }
            out.by_backend.insert(bid, DomInfo { bounds: [b[0], b[1], b[2], b[3]], attrs: map });
        }
    }
    // Layout order follows the document; a page with no node naming a parent has no layout.
    if !out.layout_nodes.iter().any(|b| out.by_backend[b].attrs.contains_key("data-parent")) {
        out.layout_nodes.clear();
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
    let scale = page.scale as f64;
    if dom.layout_nodes.is_empty() {
        Ok(accessibility_tree(nodes, &dom, scale))
    } else {
        Ok(layout_tree(nodes, &dom, scale))
    }
}

/// A page of our phone apps: every node of the native layout is an element (`data-gid`,
/// `data-role`, `data-parent`), so the tree is those elements in document order, with the
/// browser's boxes and its accessibility names and states: one state gives the same nodes,
/// ids and parents on both renderers, and what differs is what the browser made of them.
fn layout_tree(nodes: &[Value], dom: &Snapshot, scale: f64) -> Vec<UiNode> {
    let by_id: HashMap<&str, &Value> = nodes.iter().filter_map(|n| n["nodeId"].as_str().map(|id| (id, n))).collect();
    let mut by_backend: HashMap<i64, &Value> = HashMap::new();
    for n in nodes {
        if let Some(b) = n["backendDOMNodeId"].as_i64() {
            by_backend.entry(b).or_insert(n);
        }
    }
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::with_capacity(dom.layout_nodes.len());
    for bid in &dom.layout_nodes {
        let info = &dom.by_backend[bid];
        let ax = by_backend.get(bid).copied().filter(|n| !n["ignored"].as_bool().unwrap_or(false));
        let mut name = ax.map(|n| n["name"]["value"].as_str().unwrap_or("").trim().to_string()).unwrap_or_default();
        // A text block is named by nothing but its lines.
        if name.is_empty() && info.attrs.get("data-role").is_some_and(|r| r == "text") {
            if let Some(n) = ax {
                name = text_within(n, &by_id);
            }
        }
        let parent = info.attrs.get("data-parent").and_then(|p| index.get(p.as_str()).copied());
        let node = ui_node(ax, Some(info), name, true, parent, out.len(), scale);
        index.insert(info.attrs["data-gid"].as_str(), out.len());
        out.push(node);
    }
    out
}

/// The text under an accessibility node: its static text in order, a line break where the
/// page breaks the line (so blank lines survive).
fn text_within(node: &Value, by_id: &HashMap<&str, &Value>) -> String {
    let mut text = String::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n["role"]["value"].as_str() {
            Some("StaticText") => text.push_str(n["name"]["value"].as_str().unwrap_or("")),
            Some("LineBreak") => text.push('\n'),
            _ => {
                let children = n["childIds"].as_array().map(Vec::as_slice).unwrap_or_default();
                stack.extend(children.iter().rev().filter_map(|id| id.as_str().and_then(|i| by_id.get(i).copied())));
            }
        }
    }
    text
}

/// Any other page: Chromium's accessibility tree, each node placed by the DOM snapshot.
fn accessibility_tree(nodes: &[Value], dom: &Snapshot, scale: f64) -> Vec<UiNode> {
    let by_id: HashMap<&str, &Value> = nodes.iter().filter_map(|n| n["nodeId"].as_str().map(|id| (id, n))).collect();
    let Some(root) = nodes.first() else { return Vec::new() };
    let mut out: Vec<UiNode> = Vec::new();
    // Depth-first, carrying the index of the nearest kept ancestor and the text of the nearest
    // one that has any.
    let mut stack: Vec<(&Value, Option<usize>, Option<usize>)> = vec![(root, None, None)];
    while let Some((node, parent, named)) = stack.pop() {
        let role = node["role"]["value"].as_str().unwrap_or("");
        let name = node["name"]["value"].as_str().unwrap_or("").trim().to_string();
        let info = node["backendDOMNodeId"].as_i64().and_then(|b| dom.by_backend.get(&b));
        let ignored = node["ignored"].as_bool().unwrap_or(false) || matches!(role, "InlineTextBox" | "none" | "LineBreak");
        // Text that only repeats an ancestor's name adds nothing.
        let echo = role == "StaticText" && named.is_some_and(|p| out[p].text.contains(&name));
        let visible = info.is_some_and(|i| i.bounds[2] > 0.0 && i.bounds[3] > 0.0);
        let (mut next_parent, mut next_named) = (parent, named);
        if !ignored && !echo && (visible || parent.is_none()) {
            out.push(ui_node(Some(node), info, name, false, parent, out.len(), scale));
            next_parent = Some(out.len() - 1);
            // The page's own name is its title, not text on it.
            if !out[out.len() - 1].text.is_empty() && role != "RootWebArea" {
                next_named = next_parent;
            }
        }
        let children: Vec<&Value> =
            node["childIds"].as_array().map(|c| c.iter().filter_map(|id| id.as_str().and_then(|i| by_id.get(i).copied())).collect()).unwrap_or_default();
        for c in children.into_iter().rev() {
            stack.push((c, next_parent, next_named));
        }
    }
    out
}

/// One node from what the browser says of it: its accessibility node (none where the browser
/// exposes none, e.g. a hidden element) and its element's box and attributes. A field
/// `labelled` has its label as its name (the phone's pages label each field with its
/// placeholder), whatever its value; elsewhere a name that only repeats the value is no hint.
fn ui_node(ax: Option<&Value>, info: Option<&DomInfo>, name: String, labelled: bool, parent: Option<usize>, at: usize, scale: f64) -> UiNode {
    let null = Value::Null;
    let node = ax.unwrap_or(&null);
    let role = node["role"]["value"].as_str().unwrap_or("");
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
        let hint = if name == value && !labelled { String::new() } else { name };
        (value, hint)
    } else {
        (name, String::new())
    };
    // Under an open dialog: shown, but offered as nothing (as in the native tree).
    let covered = attrs.is_some_and(|a| a.contains_key("data-covered"));
    let enabled = !truthy(prop(node, "disabled")) && !covered;
    UiNode {
        // Elements without an id of their own are named by their place in the tree, so one
        // state always gives one tree (DOM node ids change with every render).
        id: gid.unwrap_or_else(|| format!("n{at}")),
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
        // The document itself holds focus whenever nothing in it does: not a focused element.
        focused: role != "RootWebArea" && (truthy(prop(node, "focused")) || attrs.is_some_and(|a| a.contains_key("data-focused"))),
        checked: truthy(prop(node, "checked")),
        selected: truthy(prop(node, "selected")),
        scrollable: role_name == "list" && attrs.is_some_and(|a| a.contains_key("data-gid")) && !covered,
        enabled,
    }
}
