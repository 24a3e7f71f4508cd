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
        let mut frontier: Vec<(Ref, Option<usize>)> = Vec::new();
        for app in self.applications().await? {
            let children = call::<_, Vec<Ref>>(&self.bus, &app, ACCESSIBLE, "GetChildren", &());
            if let Ok(Ok(children)) = tokio::time::timeout(limits.call_timeout, children).await {
                frontier.extend(children.into_iter().map(|c| (c, None)));
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
                let (bus, object, timeout, max_text) = (self.bus.clone(), object.clone(), limits.call_timeout, limits.max_text);
                tasks.spawn(async move { (i, tokio::time::timeout(timeout, read_node(&bus, &object, max_text)).await.ok()) });
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
                node.parent = parent;
                let index = nodes.len();
                nodes.push(node);
                if !nodes[index].has(state::MANAGES_DESCENDANTS) && depth + 1 < limits.max_depth {
                    next.extend(children.into_iter().map(|c| (c, Some(index))));
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

/// Everything one node says about itself, asked at once (the calls are pipelined on the
/// one connection), plus its children's references.
async fn read_node(bus: &Connection, object: &Ref, max_text: usize) -> Result<(Node, Vec<Ref>), String> {
    let (role, name, states, extents, children) = tokio::join!(
        call::<_, String>(bus, object, ACCESSIBLE, "GetRoleName", &()),
        call::<_, OwnedValue>(bus, object, "org.freedesktop.DBus.Properties", "Get", &(ACCESSIBLE, "Name")),
        call::<_, Vec<u32>>(bus, object, ACCESSIBLE, "GetState", &()),
        call::<_, (i32, i32, i32, i32)>(bus, object, "org.a11y.atspi.Component", "GetExtents", &(0u32,)),
        call::<_, Vec<Ref>>(bus, object, ACCESSIBLE, "GetChildren", &()),
    );
    let states = states?;
    let mut node = Node {
        parent: None,
        role: role?.replace(' ', "-"),
        name: name.ok().and_then(|v| String::try_from(v).ok()).unwrap_or_default(),
        text: String::new(),
        bounds: extents.unwrap_or_default(),
        states: states.first().copied().unwrap_or(0) as u64 | (states.get(1).copied().unwrap_or(0) as u64) << 32,
    };
    // A text node's content is its value: an editor's document, an entry's text.
    if node.has(state::EDITABLE) || matches!(node.role.as_str(), "text" | "paragraph" | "entry" | "terminal") {
        if let Ok(text) = call::<_, String>(bus, object, "org.a11y.atspi.Text", "GetText", &(0i32, max_text as i32)).await {
            node.text = text;
        }
    }
    Ok((node, children.unwrap_or_default()))
}
