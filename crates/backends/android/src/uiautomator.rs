//! `uiautomator dump`'s XML read into guigym's UI tree: one node per `<node>`, its parent by
//! nesting, its id from `resource-id` (what follows `:id/`; else its place in the dump), text,
//! `content-desc` as the hint, the widget class as a role, states, and
//! `bounds="[x1,y1][x2,y2]"`. Nodes without size are kept (agents index them too).

use guigym_core::{Bounds, UiNode};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// The most nodes, and the deepest nesting, a window dump may have: a real screen has a few
/// hundred nodes a few dozen deep; a device that sends more (a hostile one, a broken app) would
/// make every later step costly, so its dump is refused.
pub const NODES_MAX: usize = 20_000;
pub const DEPTH_MAX: usize = 256;
/// The longest text kept of one attribute (in characters).
pub const TEXT_MAX: usize = 20_000;

/// The tree of a window dump; an error names what is wrong with the XML.
pub fn parse(xml: &str) -> Result<Vec<UiNode>, String> {
    let mut reader = Reader::from_str(xml);
    let mut nodes: Vec<UiNode> = Vec::new();
    // Indices of the open `<node>` elements, innermost last.
    let mut open: Vec<usize> = Vec::new();
    loop {
        match reader.read_event().map_err(|e| format!("window dump, byte {}: {e}", reader.buffer_position()))? {
            Event::Start(e) if e.name().as_ref() == "node" => {
                let node = node(&e, open.last().copied(), nodes.len())?;
                open.push(nodes.len());
                nodes.push(node);
                if open.len() > DEPTH_MAX {
                    return Err(format!("window dump: nodes nested over {DEPTH_MAX} deep"));
                }
            }
            Event::Empty(e) if e.name().as_ref() == "node" => {
                let node = node(&e, open.last().copied(), nodes.len())?;
                nodes.push(node);
            }
            Event::End(e) if e.name().as_ref() == "node" => {
                open.pop();
            }
            Event::Eof => break,
            _ => {}
        }
        if nodes.len() > NODES_MAX {
            return Err(format!("window dump: over {NODES_MAX} nodes"));
        }
    }
    if nodes.is_empty() && !xml.contains("<hierarchy") {
        return Err("not a window dump: no <hierarchy>".into());
    }
    Ok(nodes)
}

fn node(e: &BytesStart<'_>, parent: Option<usize>, index: usize) -> Result<UiNode, String> {
    let mut n = UiNode { parent, ..UiNode::default() };
    let mut class = String::new();
    for a in e.attributes() {
        let a = a.map_err(|e| format!("window dump, node {index}: {e}"))?;
        let value = a.normalized_value(quick_xml::XmlVersion::Implicit1_0).map_err(|e| format!("window dump, node {index}: {e}"))?.into_owned();
        let truth = value == "true";
        // No screen shows more of one text; a longer one only costs every later step.
        let value = if value.len() > TEXT_MAX { value.chars().take(TEXT_MAX).collect() } else { value };
        match a.key.as_ref() {
            "text" => n.text = value,
            "resource-id" => n.id = value.split_once(":id/").map(|(_, id)| id.to_string()).unwrap_or(value),
            "content-desc" => n.hint = value,
            "class" => class = value,
            "clickable" => n.clickable = truth,
            "focused" => n.focused = truth,
            "checked" => n.checked = truth,
            "selected" => n.selected = truth,
            "scrollable" => n.scrollable = truth,
            "enabled" => n.enabled = truth,
            "bounds" => n.bounds = bounds(&value).ok_or_else(|| format!("window dump, node {index}: bounds {value:?}"))?,
            _ => {}
        }
    }
    if n.id.is_empty() {
        n.id = format!("n{index}");
    }
    n.editable = class.ends_with("EditText");
    n.role = role_of(&class).to_string();
    Ok(n)
}

/// `[x1,y1][x2,y2]`; a size past what an `i32` holds is cut there, not wrapped.
fn bounds(s: &str) -> Option<Bounds> {
    let numbers: Vec<i32> = s.split(|c: char| !(c.is_ascii_digit() || c == '-')).filter(|p| !p.is_empty()).map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [x1, y1, x2, y2] = numbers[..] else { return None };
    let size = |from: i32, to: i32| (i64::from(to) - i64::from(from)).clamp(0, i64::from(i32::MAX)) as i32;
    Some(Bounds { x: x1, y: y1, w: size(x1, x2), h: size(y1, y2) })
}

/// A widget class as one of guigym's roles.
fn role_of(class: &str) -> &'static str {
    let short = class.rsplit('.').next().unwrap_or(class);
    match short {
        "EditText" | "AutoCompleteTextView" => "textbox",
        "Button" | "ImageButton" | "FloatingActionButton" | "MaterialButton" => "button",
        "CheckBox" => "checkbox",
        "Switch" | "SwitchCompat" | "ToggleButton" => "switch",
        "ImageView" => "image",
        "TextView" | "CheckedTextView" => "text",
        "RecyclerView" | "ListView" | "ScrollView" | "GridView" | "HorizontalScrollView" => "list",
        _ => "group",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dump_reads_as_a_tree_with_ids_bounds_and_states() {
        let xml = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" clickable="false" bounds="[0,0][1080,2400]"><node index="0" text="Ann &amp; Bo" resource-id="p:id/contact:1" class="android.widget.Button" package="p" content-desc="" clickable="true" bounds="[10,20][110,70]" /><node index="1" text="" resource-id="p:id/search" class="android.widget.EditText" package="p" content-desc="Search" focused="true" clickable="true" bounds="[0,100][1080,200]"></node></node></hierarchy>"#;
        let nodes = parse(xml).unwrap();
        assert_eq!(nodes.len(), 3);
        assert_eq!((nodes[0].id.as_str(), nodes[0].parent), ("n0", None));
        assert_eq!((nodes[1].id.as_str(), nodes[1].text.as_str(), nodes[1].role.as_str(), nodes[1].parent), ("contact:1", "Ann & Bo", "button", Some(0)));
        assert_eq!(nodes[1].bounds, Bounds { x: 10, y: 20, w: 100, h: 50 });
        assert!(nodes[1].clickable);
        assert_eq!((nodes[2].hint.as_str(), nodes[2].editable, nodes[2].focused, nodes[2].parent), ("Search", true, true, Some(0)));
        assert!(parse("<html/>").is_err());
        assert!(parse(r#"<hierarchy><node bounds="[a]"/></hierarchy>"#).is_err());
        assert!(parse("<hierarchy><node text=\"x").is_err() || parse("<hierarchy><node text=\"x").unwrap().is_empty());
        assert!(nodes[0].enabled, "enabled unless the dump says otherwise");
        let disabled = parse(r#"<hierarchy><node enabled="false" bounds="[0,0][1,1]"/></hierarchy>"#).unwrap();
        assert!(!disabled[0].enabled);
    }

    #[test]
    fn a_hostile_dump_is_refused_or_read_without_overflow() {
        let extreme = parse(r#"<hierarchy><node bounds="[-2147483648,-2147483648][2147483647,2147483647]"/></hierarchy>"#).unwrap();
        assert_eq!((extreme[0].bounds.w, extreme[0].bounds.h), (i32::MAX, i32::MAX));
        let deep = format!("<hierarchy>{}{}</hierarchy>", r#"<node bounds="[0,0][1,1]">"#.repeat(DEPTH_MAX + 1), "</node>".repeat(DEPTH_MAX + 1));
        assert!(parse(&deep).unwrap_err().contains("deep"));
        let wide = format!("<hierarchy>{}</hierarchy>", r#"<node bounds="[0,0][1,1]"/>"#.repeat(NODES_MAX + 1));
        assert!(parse(&wide).unwrap_err().contains("nodes"));
    }
}
