//! The accessibility tree (AT-SPI), read over the instance's own accessibility bus.
//!
//! The session bus starts the bus on demand (`org.a11y.Bus.GetAddress`); GTK applications
//! register their root with the registry there. We walk what is on screen: nodes without
//! the SHOWING state are left out with their subtrees, and a node that manages its
//! descendants (a spreadsheet's million cells) is not opened: asking for its children can
//! hang the application. The walk asks all nodes of one level at once, so its cost is a few
//! round trips per level, not per node. Applications without an accessibility bridge (xterm,
//! LibreOffice's own X11 toolkit) have no tree; their windows stay leaves.

use std::time::{Duration, Instant};

use zbus::zvariant::{OwnedObjectPath, OwnedValue};
use zbus::Connection;

/// AT-SPI states (`AtspiStateType`), as bit numbers in `GetState`'s two words.
mod state {
    pub const CHECKED: u32 = 4;
    pub const EDITABLE: u32 = 7;
    pub const ENABLED: u32 = 8;
    pub const FOCUSABLE: u32 = 11;
    pub const FOCUSED: u32 = 12;
    pub const SELECTED: u32 = 23;
    pub const SENSITIVE: u32 = 24;
    pub const SHOWING: u32 = 25;
    pub const MANAGES_DESCENDANTS: u32 = 31;
}

/// How far one observation reads: enough for any real window, bounded so that a huge or
/// stuck application cannot stall a step.
pub struct Limits {
    pub max_nodes: usize,
    pub max_depth: usize,
    /// One call to an application; past it, the node is left as it is.
    pub call_timeout: Duration,
    /// The whole walk; past it, deeper levels are not read.
    pub budget: Duration,
    /// Text read from one text node.
    pub max_text: usize,
}

impl Limits {
    /// For an evaluator reading the tree once: more nodes and more time than an observation.
    pub fn whole() -> Limits {
        Limits { max_nodes: 20_000, max_depth: 60, call_timeout: Duration::from_secs(2), budget: Duration::from_secs(10), max_text: 100_000 }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_nodes: 2000, max_depth: 40, call_timeout: Duration::from_millis(500), budget: Duration::from_secs(2), max_text: 2000 }
    }
}

/// One accessible object as read from the bus.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Node {
    /// Index of the parent in the walk's list; `None` for an application's top-level
    /// window (frame, dialog).
    pub parent: Option<usize>,
    /// AT-SPI's role name with dashes for spaces (`push-button`), as OSWorld writes it.
    pub role: String,
    pub name: String,
    /// What a text node holds (an editor's document, an entry's value).
    pub text: String,
    /// Screen coordinates: x, y, width, height.
    pub bounds: (i32, i32, i32, i32),
    /// The application's name, on an application's top-level windows only.
    pub application: String,
    states: u64,
}

impl Node {
    fn has(&self, s: u32) -> bool {
        self.states & (1 << s) != 0
    }
    pub fn focused(&self) -> bool {
        self.has(state::FOCUSED)
    }
    pub fn editable(&self) -> bool {
        self.has(state::EDITABLE)
    }
    pub fn checked(&self) -> bool {
        self.has(state::CHECKED)
    }
    pub fn selected(&self) -> bool {
        self.has(state::SELECTED)
    }
    pub fn enabled(&self) -> bool {
        self.has(state::ENABLED) || self.has(state::SENSITIVE)
    }
    pub fn clickable(&self) -> bool {
        self.has(state::FOCUSABLE)
            || matches!(
                self.role.as_str(),
                "push-button"
                    | "toggle-button"
                    | "check-box"
                    | "radio-button"
                    | "menu-item"
                    | "menu"
                    | "link"
                    | "page-tab"
                    | "list-item"
                    | "combo-box"
                    | "check-menu-item"
                    | "radio-menu-item"
            )
    }
    pub fn scrollable(&self) -> bool {
        self.role == "scroll-pane"
    }
}

/// A connection to one instance's accessibility bus.
pub struct Client {
    bus: Connection,
}

type Ref = (String, OwnedObjectPath);

/// What a node being read hangs under: an application (top-level windows) or a node read
/// before it.
#[derive(Clone, Copy)]
enum Parent {
    Application(usize),
    Node(usize),
}

const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";

impl Client {
    /// Connects through the instance's session bus, which starts the accessibility bus the
    /// first time it is asked for.
    pub async fn connect(session_bus: &str) -> Result<Client, String> {
        let session = zbus::connection::Builder::address(session_bus)
            .map_err(|e| format!("session bus address {session_bus}: {e}"))?
            .build()
            .await
            .map_err(|e| format!("session bus: {e}"))?;
        let reply = session
            .call_method(Some("org.a11y.Bus"), "/org/a11y/bus", Some("org.a11y.Bus"), "GetAddress", &())
            .await
            .map_err(|e| format!("no accessibility bus: {e}"))?;
        let address: String = reply.body().deserialize().map_err(|e| format!("accessibility bus address: {e}"))?;
        let bus = zbus::connection::Builder::address(address.as_str())
            .map_err(|e| format!("accessibility bus address {address}: {e}"))?
            .build()
            .await
            .map_err(|e| format!("accessibility bus: {e}"))?;
        Ok(Client { bus })
    }

    /// The applications registered on the bus: their root objects.
    pub async fn applications(&self) -> Result<Vec<Ref>, String> {
        let reply = self
            .bus
            .call_method(Some("org.a11y.atspi.Registry"), "/org/a11y/atspi/accessible/root", Some(ACCESSIBLE), "GetChildren", &())
            .await
            .map_err(|e| format!("the registry: {e}"))?;
        reply.body().deserialize().map_err(|e| format!("the registry's children: {e}"))
    }

    /// The showing part of every application's tree, level by level, top-level windows
    /// first (parents always come before their children).
    pub async fn tree(&self, limits: &Limits) -> Result<Vec<Node>, String> {
        let started = Instant::now();
        let mut frontier: Vec<(Ref, Parent)> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for app in self.applications().await? {
            let read = async { tokio::join!(name_of(&self.bus, &app), call::<_, Vec<Ref>>(&self.bus, &app, ACCESSIBLE, "GetChildren", &())) };
            if let Ok((name, Ok(children))) = tokio::time::timeout(limits.call_timeout, read).await {
                names.push(name);
                frontier.extend(children.into_iter().map(|c| (c, Parent::Application(names.len() - 1))));
            }
        }
        let mut nodes: Vec<Node> = Vec::new();
        for depth in 0..limits.max_depth {
            if frontier.is_empty() || nodes.len() >= limits.max_nodes || started.elapsed() > limits.budget {
                break;
            }
            frontier.truncate(limits.max_nodes - nodes.len());
            let mut tasks = tokio::task::JoinSet::new();
            for (i, (object, _)) in frontier.iter().enumerate() {
                let (bus, object, timeout, max_text, max_children) = (self.bus.clone(), object.clone(), limits.call_timeout, limits.max_text, limits.max_nodes);
                tasks.spawn(async move { (i, tokio::time::timeout(timeout, read_node(&bus, &object, max_text, max_children)).await.ok()) });
            }
            let mut read: Vec<Option<(Node, Vec<Ref>)>> = vec![None; frontier.len()];
            while let Some(done) = tasks.join_next().await {
                if let Ok((i, Some(Ok(node)))) = done {
                    read[i] = Some(node);
                }
            }
            let mut next = Vec::new();
            for ((_, parent), read) in frontier.into_iter().zip(read) {
                let Some((mut node, children)) = read else { continue };
                // Hidden things (closed menus, other tabs) are not on the screen: leave them
                // out with everything under them.
                if !node.has(state::SHOWING) {
                    continue;
                }
                match parent {
                    Parent::Application(a) => node.application = names[a].clone(),
                    Parent::Node(p) => node.parent = Some(p),
                }
                let index = nodes.len();
                nodes.push(node);
                if !nodes[index].has(state::MANAGES_DESCENDANTS) && depth + 1 < limits.max_depth {
                    next.extend(children.into_iter().map(|c| (c, Parent::Node(index))));
                }
            }
            frontier = next;
        }
        Ok(nodes)
    }
}

async fn call<B, R>(bus: &Connection, object: &Ref, interface: &str, method: &str, body: &B) -> Result<R, String>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
    R: for<'d> serde::Deserialize<'d> + zbus::zvariant::Type,
{
    let reply = bus.call_method(Some(object.0.as_str()), object.1.as_str(), Some(interface), method, body).await.map_err(|e| e.to_string())?;
    reply.body().deserialize().map_err(|e| e.to_string())
}

/// One property of an object's interface, where it has it and it is of type `T`.
async fn property<T: TryFrom<OwnedValue>>(bus: &Connection, object: &Ref, interface: &str, name: &str) -> Option<T> {
    let value = call::<_, OwnedValue>(bus, object, "org.freedesktop.DBus.Properties", "Get", &(interface, name)).await;
    value.ok().and_then(|v| T::try_from(v).ok())
}

async fn name_of(bus: &Connection, object: &Ref) -> String {
    property::<String>(bus, object, ACCESSIBLE, "Name").await.unwrap_or_default()
}

/// Everything one node says about itself, then its children's references: its state first,
/// and the rest (asked at once: the calls are pipelined on the one connection) only for a
/// showing node, since a hidden one is left out with its subtree (LibreOffice's toolbars hold
/// twice as many hidden items as showing ones). Children are asked for only where the node
/// does not manage its descendants and has at most `max_children` (a spreadsheet's table has
/// billions of cells; asked for them, LibreOffice spins for minutes and answers nothing else).
async fn read_node(bus: &Connection, object: &Ref, max_text: usize, max_children: usize) -> Result<(Node, Vec<Ref>), String> {
    let states = call::<_, Vec<u32>>(bus, object, ACCESSIBLE, "GetState", &()).await?;
    let mut node = Node { states: states.first().copied().unwrap_or(0) as u64 | (states.get(1).copied().unwrap_or(0) as u64) << 32, ..Node::default() };
    if !node.has(state::SHOWING) {
        return Ok((node, Vec::new()));
    }
    let (role, name, extents, count) = tokio::join!(
        call::<_, String>(bus, object, ACCESSIBLE, "GetRoleName", &()),
        name_of(bus, object),
        call::<_, (i32, i32, i32, i32)>(bus, object, "org.a11y.atspi.Component", "GetExtents", &(0u32,)),
        property::<i32>(bus, object, ACCESSIBLE, "ChildCount"),
    );
    node.role = role?.replace(' ', "-");
    node.name = name;
    node.bounds = extents.unwrap_or_default();
    let count = count.unwrap_or(0);
    let open = !node.has(state::MANAGES_DESCENDANTS) && count > 0 && count as usize <= max_children;
    // A text node's content is its value: an editor's document, an entry's text.
    let texty = node.has(state::EDITABLE) || matches!(node.role.as_str(), "text" | "paragraph" | "entry" | "terminal");
    let (text, children) = tokio::join!(
        async {
            if !texty {
                return None;
            }
            // Up to the text's own length: LibreOffice answers nothing for a range past its end.
            let count = property::<i32>(bus, object, "org.a11y.atspi.Text", "CharacterCount").await;
            let count = count.map_or(max_text as i32, |n| n.clamp(0, max_text as i32));
            call::<_, String>(bus, object, "org.a11y.atspi.Text", "GetText", &(0i32, count)).await.ok()
        },
        async {
            if open {
                call::<_, Vec<Ref>>(bus, object, ACCESSIBLE, "GetChildren", &()).await.unwrap_or_default()
            } else {
                Vec::new()
            }
        },
    );
    node.text = text.unwrap_or_default();
    Ok((node, children))
}

/// AT-SPI's state names in the order of their bits, as OSWorld writes them (`st:showing`).
const STATE_NAMES: [&str; 44] = [
    "invalid",
    "active",
    "armed",
    "busy",
    "checked",
    "collapsed",
    "defunct",
    "editable",
    "enabled",
    "expandable",
    "expanded",
    "focusable",
    "focused",
    "has_tooltip",
    "horizontal",
    "iconified",
    "modal",
    "multi_line",
    "multiselectable",
    "opaque",
    "pressed",
    "resizable",
    "selectable",
    "selected",
    "sensitive",
    "showing",
    "single_line",
    "stale",
    "transient",
    "vertical",
    "visible",
    "manages_descendants",
    "indeterminate",
    "required",
    "truncated",
    "animated",
    "invalid_entry",
    "supports_autocompletion",
    "selectable_text",
    "is_default",
    "visited",
    "checkable",
    "has_popup",
    "read_only",
];

/// OSWorld's namespaces for the Ubuntu accessibility tree (its `check_accessibility_tree`
/// selectors name them).
pub const NAMESPACES: &[(&str, &str)] = &[
    ("st", "https://accessibility.ubuntu.example.org/ns/state"),
    ("attr", "https://accessibility.ubuntu.example.org/ns/attributes"),
    ("cp", "https://accessibility.ubuntu.example.org/ns/component"),
    ("doc", "https://accessibility.ubuntu.example.org/ns/document"),
    ("docattr", "https://accessibility.ubuntu.example.org/ns/document/attributes"),
    ("txt", "https://accessibility.ubuntu.example.org/ns/text"),
    ("val", "https://accessibility.ubuntu.example.org/ns/value"),
    ("act", "https://accessibility.ubuntu.example.org/ns/action"),
];

/// Text as XML 1.0 allows it, escaped (OSWorld also drops the object replacement and
/// replacement characters from texts).
fn xml_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\u{fffc}' | '\u{fffd}' => {}
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}

/// The tree as the XML OSWorld's `/accessibility` endpoint gives: a `desktop-frame` holding an
/// `application` per application, each node an element named by its role, with its name, its
/// states (`st:<state>="true"`), its position and size (`cp:screencoord`, `cp:size`) and its
/// text as the element's text.
pub fn osworld_xml(nodes: &[Node]) -> String {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut applications: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        match node.parent {
            Some(p) if p < nodes.len() => children[p].push(i),
            _ => match applications.iter_mut().find(|(name, _)| *name == node.application) {
                Some((_, tops)) => tops.push(i),
                None => applications.push((&node.application, vec![i])),
            },
        }
    }
    fn write(out: &mut String, nodes: &[Node], children: &[Vec<usize>], i: usize) {
        let node = &nodes[i];
        let role = if node.role.is_empty() { "unknown".to_string() } else { node.role.replace(|c: char| !c.is_alphanumeric() && c != '-' && c != '_', "-") };
        out.push_str(&format!("<{role} name=\"{}\"", xml_text(&node.name)));
        for (bit, state) in STATE_NAMES.iter().enumerate() {
            if node.has(bit as u32) {
                out.push_str(&format!(" st:{state}=\"true\""));
            }
        }
        let (x, y, w, h) = node.bounds;
        out.push_str(&format!(" cp:screencoord=\"({x}, {y})\" cp:size=\"({w}, {h})\">{}", xml_text(&node.text)));
        for &c in &children[i] {
            write(out, nodes, children, c);
        }
        out.push_str(&format!("</{role}>"));
    }
    let namespaces: String = NAMESPACES.iter().map(|(prefix, uri)| format!(" xmlns:{prefix}=\"{uri}\"")).collect();
    let mut out = format!("<desktop-frame{namespaces} name=\"main\">");
    for (name, tops) in applications {
        out.push_str(&format!("<application name=\"{}\">", xml_text(name)));
        for i in tops {
            write(&mut out, nodes, &children, i);
        }
        out.push_str("</application>");
    }
    out.push_str("</desktop-frame>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_osworld_xml_nests_nodes_under_their_application() {
        let node = |parent, role: &str, name: &str, text: &str, application: &str, states: u64| Node {
            parent,
            role: role.into(),
            name: name.into(),
            text: text.into(),
            bounds: (1, 2, 30, 40),
            application: application.into(),
            states,
        };
        let nodes = vec![
            node(None, "frame", "notes.txt - Mousepad", "", "mousepad", 1 << state::SHOWING),
            node(Some(0), "text", "", "a < b & \u{fffc}c\u{1}", "", 1 << state::EDITABLE | 1 << state::FOCUSED),
            node(None, "frame", "Files", "", "pcmanfm", 0),
        ];
        let xml = osworld_xml(&nodes);
        assert!(xml.starts_with("<desktop-frame xmlns:st=\"https://accessibility.ubuntu.example.org/ns/state\""), "{xml}");
        assert!(xml.contains(
            "<application name=\"mousepad\"><frame name=\"notes.txt - Mousepad\" st:showing=\"true\" cp:screencoord=\"(1, 2)\" cp:size=\"(30, 40)\"><text name=\"\" st:editable=\"true\" st:focused=\"true\" cp:screencoord=\"(1, 2)\" cp:size=\"(30, 40)\">a &lt; b &amp; c</text></frame></application><application name=\"pcmanfm\">"
        ), "{xml}");
    }
}
