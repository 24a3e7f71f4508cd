//! The declarative view tree apps build for each screen.

/// How a piece of text looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextStyle {
    Title,
    #[default]
    Body,
    Caption,
}

impl TextStyle {
    /// Font size in dp.
    pub fn size_dp(self) -> f32 {
        match self {
            TextStyle::Title => 22.0,
            TextStyle::Body => 16.0,
            TextStyle::Caption => 13.0,
        }
    }
}

/// How a row of tabs looks: the same choice of one, in Material's three shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TabLook {
    /// Tabs under the app bar, the chosen one underlined.
    Strip,
    /// Filter chips, packed from the left: rounded outlines, the chosen one filled.
    Chips,
    /// The navigation bar at the foot of a screen: an icon over each label, the chosen one's
    /// icon on a pill.
    Bar,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Children stacked top to bottom; a child holding a `List` takes the remaining height.
    Column,
    /// Children side by side, widths split by weight.
    Row,
    /// Children drawn over each other in the same box.
    Stack,
    Text {
        text: String,
        style: TextStyle,
    },
    Button {
        label: String,
        danger: bool,
    },
    /// A screen's main action (Material's extended floating action button): a plus and a label,
    /// at the foot of the screen on the right.
    Fab {
        label: String,
    },
    TextField {
        value: String,
        placeholder: String,
        focused: bool,
        multiline: bool,
    },
    /// A vertically scrollable list, shifted up by `offset` dp and clipped.
    List {
        offset: i32,
    },
    /// A clickable row of a list: a title and a subtitle, maybe trailing text, maybe a picture
    /// leading; its title in bold when it asks for attention (unread mail, a new message).
    Item {
        title: String,
        subtitle: String,
        trailing: String,
        leading: Option<Leading>,
        bold: bool,
        /// Drawn as an outlined card inset from the list's edges (Material's card), not a row
        /// over a divider.
        card: bool,
    },
    /// A message in a conversation: its text wrapped in a bubble, who sent it and when under it;
    /// the phone owner's on the right in the primary colour, others' on the left.
    Bubble {
        text: String,
        meta: String,
        mine: bool,
    },
    Checkbox {
        label: String,
        checked: bool,
    },
    Switch {
        label: String,
        on: bool,
    },
    /// A row of tabs; children are the tab labels (built by `View::tabs`, `View::chips` or
    /// `View::navigation`).
    Tabs {
        look: TabLook,
    },
    /// One of them; a navigation bar's has an icon over its label.
    Tab {
        label: String,
        selected: bool,
        look: TabLook,
        icon: Option<crate::icons::Pictogram>,
    },
    /// A modal card centred over the screen; children are its content.
    Dialog {
        title: String,
    },
    /// An app icon: its pictogram on a coloured tile, its name under it.
    Icon {
        label: String,
        picture: crate::icons::Pictogram,
        color: [u8; 3],
    },
    /// The top bar of a screen.
    AppBar {
        title: String,
    },
    /// The phone's status bar: the time, notifications and the device's state.
    StatusBar {
        time: String,
        icons: crate::icons::StatusIcons,
    },
    /// A short message over the foot of the screen (Material's snackbar): what the last action did.
    Snackbar {
        text: String,
    },
    /// The phone's navigation bar: the handle of gesture navigation (back and home are gestures).
    NavBar,
    /// A picture drawn from data (a map, a product's photo): a scene of polygons `height` dp
    /// tall, read by its description.
    Image {
        label: String,
        height: f32,
        scene: crate::icons::Scene,
    },
    /// A map of the world's places `height` dp tall, drawn to its box (`icons::map`): `key` seeds
    /// its streets, `target`'s pin is marked, and with `route` a line leads to it from you.
    Map {
        key: String,
        places: Vec<String>,
        target: Option<String>,
        route: bool,
        height: f32,
    },
    /// Empty space taking the height its column leaves when no list takes it: what holds the
    /// navigation bar to the foot of a screen with no list.
    Fill,
    /// Empty space of a fixed height in dp.
    Spacer {
        height: f32,
    },
}

/// What leads a list row: a picture drawn from a name, so that the same name gives the same
/// pixels on every screen and both renderers.
#[derive(Debug, Clone, PartialEq)]
pub enum Leading {
    /// A person: their initials on a colour drawn from their name (`icons::avatar`).
    Avatar(String),
    /// A thing's picture (an album's cover, a product's photo): shapes on colours drawn from its
    /// name (`icons::picture`).
    Picture(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// Stable semantic id (`contact:3`, `save`). Empty: derived from the parent's id and the
    /// position, which is stable for the same state too.
    pub id: String,
    pub kind: Kind,
    pub children: Vec<View>,
    /// Share of a row's width.
    pub weight: f32,
    pub enabled: bool,
}

impl View {
    pub fn new(kind: Kind) -> View {
        View { id: String::new(), kind, children: Vec::new(), weight: 1.0, enabled: true }
    }

    pub fn id(mut self, id: impl Into<String>) -> View {
        self.id = id.into();
        self
    }

    /// A list row led by the avatar of the person named (nothing for other views).
    pub fn avatar(self, name: impl Into<String>) -> View {
        self.leading(Leading::Avatar(name.into()))
    }

    /// A list row led by a picture drawn from `name` (nothing for other views).
    pub fn picture(self, name: impl Into<String>) -> View {
        self.leading(Leading::Picture(name.into()))
    }

    fn leading(mut self, picture: Leading) -> View {
        if let Kind::Item { leading, .. } = &mut self.kind {
            *leading = Some(picture);
        }
        self
    }

    /// A list row drawn as a card (nothing for other views).
    pub fn card(mut self) -> View {
        if let Kind::Item { card, .. } = &mut self.kind {
            *card = true;
        }
        self
    }

    /// A list row whose title is set in bold (nothing for other views).
    pub fn bold(mut self, on: bool) -> View {
        if let Kind::Item { bold, .. } = &mut self.kind {
            *bold = on;
        }
        self
    }

    pub fn weight(mut self, w: f32) -> View {
        self.weight = w;
        self
    }

    pub fn enabled(mut self, enabled: bool) -> View {
        self.enabled = enabled;
        self
    }

    pub fn child(mut self, c: View) -> View {
        self.children.push(c);
        self
    }

    pub fn children(mut self, cs: impl IntoIterator<Item = View>) -> View {
        self.children.extend(cs);
        self
    }

    pub fn column(cs: impl IntoIterator<Item = View>) -> View {
        View::new(Kind::Column).children(cs)
    }

    pub fn row(cs: impl IntoIterator<Item = View>) -> View {
        View::new(Kind::Row).children(cs)
    }

    pub fn stack(cs: impl IntoIterator<Item = View>) -> View {
        View::new(Kind::Stack).children(cs)
    }

    pub fn text(text: impl Into<String>) -> View {
        View::new(Kind::Text { text: text.into(), style: TextStyle::Body })
    }

    pub fn styled(text: impl Into<String>, style: TextStyle) -> View {
        View::new(Kind::Text { text: text.into(), style })
    }

    pub fn button(id: impl Into<String>, label: impl Into<String>) -> View {
        View::new(Kind::Button { label: label.into(), danger: false }).id(id)
    }

    pub fn danger_button(id: impl Into<String>, label: impl Into<String>) -> View {
        View::new(Kind::Button { label: label.into(), danger: true }).id(id)
    }

    pub fn fab(id: impl Into<String>, label: impl Into<String>) -> View {
        View::new(Kind::Fab { label: label.into() }).id(id)
    }

    pub fn field(id: impl Into<String>, value: &str, placeholder: &str, focused: bool) -> View {
        View::new(Kind::TextField { value: value.to_string(), placeholder: placeholder.to_string(), focused, multiline: false }).id(id)
    }

    pub fn multiline_field(id: impl Into<String>, value: &str, placeholder: &str, focused: bool) -> View {
        View::new(Kind::TextField { value: value.to_string(), placeholder: placeholder.to_string(), focused, multiline: true }).id(id)
    }

    pub fn list(id: impl Into<String>, offset: i32, items: impl IntoIterator<Item = View>) -> View {
        View::new(Kind::List { offset }).id(id).children(items)
    }

    pub fn item(id: impl Into<String>, title: impl Into<String>, subtitle: impl Into<String>) -> View {
        View::new(Kind::Item { title: title.into(), subtitle: subtitle.into(), trailing: String::new(), leading: None, bold: false, card: false }).id(id)
    }

    pub fn item_with(id: impl Into<String>, title: impl Into<String>, subtitle: impl Into<String>, trailing: impl Into<String>) -> View {
        View::new(Kind::Item { title: title.into(), subtitle: subtitle.into(), trailing: trailing.into(), leading: None, bold: false, card: false }).id(id)
    }

    pub fn bubble(id: impl Into<String>, text: impl Into<String>, meta: impl Into<String>, mine: bool) -> View {
        View::new(Kind::Bubble { text: text.into(), meta: meta.into(), mine }).id(id)
    }

    pub fn checkbox(id: impl Into<String>, label: impl Into<String>, checked: bool) -> View {
        View::new(Kind::Checkbox { label: label.into(), checked }).id(id)
    }

    pub fn switch(id: impl Into<String>, label: impl Into<String>, on: bool) -> View {
        View::new(Kind::Switch { label: label.into(), on }).id(id)
    }

    /// A tab row: `tabs` are (id, label) pairs; `selected` indexes them.
    pub fn tabs<'a>(id: impl Into<String>, tabs: impl IntoIterator<Item = (&'a str, &'a str)>, selected: usize) -> View {
        View::tab_row(id, TabLook::Strip, tabs.into_iter().map(|(tid, label)| (tid, label, None)), selected)
    }

    /// Filter chips, one chosen: `chips` are (id, label) pairs; `selected` indexes them.
    pub fn chips<'a>(id: impl Into<String>, chips: impl IntoIterator<Item = (&'a str, &'a str)>, selected: usize) -> View {
        View::tab_row(id, TabLook::Chips, chips.into_iter().map(|(tid, label)| (tid, label, None)), selected)
    }

    /// A navigation bar for the foot of a screen: (id, label, icon) triples; `selected` indexes them.
    pub fn navigation<'a>(id: impl Into<String>, tabs: impl IntoIterator<Item = (&'a str, &'a str, crate::icons::Pictogram)>, selected: usize) -> View {
        View::tab_row(id, TabLook::Bar, tabs.into_iter().map(|(tid, label, icon)| (tid, label, Some(icon))), selected)
    }

    fn tab_row<'a>(
        id: impl Into<String>,
        look: TabLook,
        tabs: impl IntoIterator<Item = (&'a str, &'a str, Option<crate::icons::Pictogram>)>,
        selected: usize,
    ) -> View {
        View::new(Kind::Tabs { look }).id(id).children(
            tabs.into_iter()
                .enumerate()
                .map(|(i, (tid, label, icon))| View::new(Kind::Tab { label: label.to_string(), selected: i == selected, look, icon }).id(tid)),
        )
    }

    pub fn dialog(id: impl Into<String>, title: impl Into<String>, content: impl IntoIterator<Item = View>) -> View {
        View::new(Kind::Dialog { title: title.into() }).id(id).children(content)
    }

    pub fn icon(id: impl Into<String>, label: impl Into<String>, picture: crate::icons::Pictogram, color: [u8; 3]) -> View {
        View::new(Kind::Icon { label: label.into(), picture, color }).id(id)
    }

    pub fn app_bar(title: impl Into<String>) -> View {
        View::new(Kind::AppBar { title: title.into() })
    }

    /// Space that holds what follows it to the foot of its column when no list fills it.
    pub fn fill() -> View {
        View::new(Kind::Fill)
    }

    pub fn image(label: impl Into<String>, height: f32, scene: crate::icons::Scene) -> View {
        View::new(Kind::Image { label: label.into(), height, scene })
    }

    pub fn spacer(height: f32) -> View {
        View::new(Kind::Spacer { height })
    }

    /// Role name used in the UI tree.
    pub fn role(&self) -> &'static str {
        match self.kind {
            Kind::Column | Kind::Row | Kind::Stack => "container",
            Kind::Text { .. } => "text",
            Kind::Button { .. } | Kind::Fab { .. } => "button",
            Kind::TextField { .. } => "textfield",
            Kind::List { .. } => "list",
            Kind::Item { .. } | Kind::Bubble { .. } => "listitem",
            Kind::Checkbox { .. } => "checkbox",
            Kind::Switch { .. } => "switch",
            Kind::Tabs { .. } => "tablist",
            Kind::Tab { .. } => "tab",
            Kind::Dialog { .. } => "dialog",
            Kind::Icon { .. } => "icon",
            Kind::AppBar { .. } => "appbar",
            Kind::StatusBar { .. } => "statusbar",
            // Read as the text it shows, as an Android snackbar's message is a text view.
            Kind::Snackbar { .. } => "text",
            // A decoration for the eye: read as an empty container (text trees leave those out).
            Kind::NavBar => "container",
            Kind::Spacer { .. } | Kind::Fill => "container",
            Kind::Image { .. } | Kind::Map { .. } => "image",
        }
    }

    /// The text an agent reads for this node.
    pub fn label(&self) -> String {
        match &self.kind {
            Kind::Text { text, .. } | Kind::Snackbar { text } => text.clone(),
            Kind::Button { label, .. } | Kind::Fab { label } | Kind::Checkbox { label, .. } | Kind::Switch { label, .. } => label.clone(),
            Kind::Tab { label, .. } | Kind::Icon { label, .. } => label.clone(),
            Kind::TextField { value, placeholder, .. } => {
                if value.is_empty() {
                    placeholder.clone()
                } else {
                    value.clone()
                }
            }
            Kind::Item { title, subtitle, trailing, .. } => {
                let mut s = title.clone();
                for part in [subtitle, trailing] {
                    if !part.is_empty() {
                        s.push_str(" · ");
                        s.push_str(part);
                    }
                }
                s
            }
            Kind::Bubble { text, meta, .. } => format!("{text} · {meta}"),
            Kind::Image { label, .. } => label.clone(),
            Kind::Map { .. } => "Map".into(),
            Kind::Dialog { title } | Kind::AppBar { title } => title.clone(),
            Kind::StatusBar { time, .. } => time.clone(),
            _ => String::new(),
        }
    }

    /// Whether a tap on this node means something.
    pub fn clickable(&self) -> bool {
        self.enabled
            && matches!(
                self.kind,
                Kind::Button { .. }
                    | Kind::Fab { .. }
                    | Kind::Item { .. }
                    | Kind::Checkbox { .. }
                    | Kind::Switch { .. }
                    | Kind::Tab { .. }
                    | Kind::Icon { .. }
                    | Kind::TextField { .. }
            )
    }
}
