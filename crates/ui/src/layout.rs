//! Layout: where each node of a view tree goes on the screen, which node a point hits, and
//! the UI tree an agent reads.
//!
//! Sizes are fixed per kind in dp (a button is 52 dp tall, a list item 72 dp), text wraps by
//! an estimated glyph width, and a `List` inside a `Column` takes the height left over. The
//! estimate keeps layout independent of the font, so the UI tree is the same with or without
//! a screenshot.

use guigym_core::{Bounds, UiNode};

use crate::view::{Kind, TabLook, TextStyle, View};
use crate::Screen;

/// One placed node.
#[derive(Debug, Clone)]
pub struct Placed<'a> {
    pub view: &'a View,
    pub id: String,
    /// The node's full box (may extend beyond the screen or its list).
    pub rect: Bounds,
    /// The part of `rect` that can be seen and touched.
    pub visible: Bounds,
    pub parent: Option<usize>,
    /// One past the last index of this node's subtree (nodes are in pre-order).
    pub end: usize,
    /// For lists: the height of all content in px, to clamp scrolling.
    pub content_height: i32,
}

#[derive(Debug, Clone)]
pub struct Layout<'a> {
    pub screen: Screen,
    pub nodes: Vec<Placed<'a>>,
    /// Index of the topmost open dialog: it captures every touch.
    pub modal: Option<usize>,
    /// Display zoom: text and widgets this many times their default size.
    pub zoom: f32,
}

/// Estimated glyph advance as a fraction of the font size (DejaVu Sans averages ~0.55).
const CHAR_WIDTH: f32 = 0.56;
const LINE_HEIGHT: f32 = 1.35;
/// The same for bold text, erring wide (DejaVu Sans Bold's lower case averages ~0.66).
const BOLD_CHAR_WIDTH: f32 = 0.68;
/// Horizontal padding inside most widgets, in dp.
pub const PAD: f32 = 16.0;
/// Space around a snackbar, in dp.
pub const SNACKBAR_MARGIN: f32 = 8.0;
/// The navigation bar's height, in dp (Android's gesture navigation bar).
pub const NAV_BAR: f32 = 24.0;
/// A floating action button's least width and its height, in dp; and its margins from the
/// right and the top and foot of its strip.
pub const FAB: (f32, f32) = (80.0, 56.0);
pub const FAB_MARGIN: (f32, f32) = (16.0, 8.0);
/// A message bubble's widest share of its row; its padding and its margins (x, y), in dp.
pub const BUBBLE_WIDTH: f32 = 0.78;
pub const BUBBLE_PAD: (f32, f32) = (12.0, 8.0);
pub const BUBBLE_MARGIN: (f32, f32) = (16.0, 4.0);
/// How far a card's frame is inset from its row (x, y), in dp.
pub const CARD_INSET: (f32, f32) = (16.0, 4.0);
/// The space after a filter chip, and around its label, in dp.
pub const CHIP_GAP: f32 = 8.0;
const CHIP_PAD: f32 = 12.0;
/// Where its label starts, after the plus.
pub const FAB_LABEL_X: f32 = 52.0;
/// The gesture handle on it: width and height in dp.
pub const NAV_HANDLE: (f32, f32) = (108.0, 4.0);

/// Splits text into lines of at most `max_chars` characters at spaces only: a word longer than
/// a line stands alone on its own (a button's label is never cut inside a word).
pub fn wrap_words(text: &str, max_chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= max_chars => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Splits text into lines of at most `max_chars` characters, at spaces where possible.
pub fn wrap(text: &str, max_chars: usize) -> Vec<String> {
    let max_chars = max_chars.max(1);
    let mut lines = Vec::new();
    for para in text.split('\n') {
        let mut line = String::new();
        for word in para.split(' ') {
            let len = line.chars().count();
            let wlen = word.chars().count();
            if len > 0 && len + 1 + wlen > max_chars {
                lines.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
            while line.chars().count() > max_chars {
                let head: String = line.chars().take(max_chars).collect();
                let tail: String = line.chars().skip(max_chars).collect();
                lines.push(head);
                line = tail;
            }
        }
        lines.push(line);
    }
    lines
}

/// How many characters of a style fit in `width_px`.
pub fn chars_per_line(style: TextStyle, width_px: f32, scale: f32) -> usize {
    (width_px / (style.size_dp() * scale * CHAR_WIDTH)).floor().max(1.0) as usize
}

/// Whether a button's label fits on one line at body size in a button `width` dp wide (inside
/// its margins), by the same estimate on both renderers; a label that does not is set
/// smaller, wrapping if it must, as an Android button's does.
pub fn label_fits(label: &str, width: f32) -> bool {
    chars_per_line(TextStyle::Body, width - 2.0 * BUTTON_LABEL_MARGIN, 1.0) >= label.chars().count()
}

/// The space left and right of a button's label, in dp.
pub const BUTTON_LABEL_MARGIN: f32 = 4.0;

pub fn line_height(style: TextStyle, scale: f32) -> f32 {
    style.size_dp() * scale * LINE_HEIGHT
}

fn text_height(text: &str, style: TextStyle, width: f32, scale: f32) -> f32 {
    let inner = (width - 2.0 * PAD * scale).max(scale);
    let lines = wrap(text, chars_per_line(style, inner, scale)).len() as f32;
    lines * line_height(style, scale) + 8.0 * scale
}

/// The width a tab needs to show its whole label, in px: a chip's in its outline with the gap
/// after it.
fn tab_width(tab: &View, scale: f32) -> f32 {
    let (chars, look) = match &tab.kind {
        Kind::Tab { label, look, .. } => (label.chars().count() as f32, *look),
        _ => (0.0, TabLook::Strip),
    };
    scale
        * match look {
            TabLook::Strip => chars * TextStyle::Body.size_dp() * CHAR_WIDTH + PAD,
            TabLook::Chips => chars * TextStyle::Caption.size_dp() * CHAR_WIDTH + 2.0 * CHIP_PAD + CHIP_GAP,
            TabLook::Bar => 0.0,
        }
}

/// Tabs packed into rows that fit `width`, in order: a strip too long for one line wraps
/// rather than clipping its labels. A navigation bar is one row.
fn tab_rows(tabs: &View, width: f32, scale: f32) -> Vec<std::ops::Range<usize>> {
    let mut rows = Vec::new();
    let (mut start, mut used) = (0, 0.0);
    for (i, t) in tabs.children.iter().enumerate() {
        let tw = tab_width(t, scale);
        if i > start && used + tw > width {
            rows.push(start..i);
            (start, used) = (i, 0.0);
        }
        used += tw;
    }
    if start < tabs.children.len() {
        rows.push(start..tabs.children.len());
    }
    rows
}

/// A row of tabs' height in dp, and where its first tab starts.
fn tab_row_metrics(look: TabLook) -> (f32, f32) {
    match look {
        TabLook::Strip => (48.0, 0.0),
        TabLook::Chips => (48.0, PAD),
        TabLook::Bar => (80.0, 0.0),
    }
}

/// A message's lines and its caption's in a bubble on a row `width` px wide.
pub fn bubble_lines(text: &str, meta: &str, width: f32, scale: f32) -> (Vec<String>, Vec<String>) {
    let inner = width * BUBBLE_WIDTH - 2.0 * BUBBLE_PAD.0 * scale;
    (wrap(text, chars_per_line(TextStyle::Body, inner, scale)), wrap(meta, chars_per_line(TextStyle::Caption, inner, scale)))
}

/// A bubble's box in a row: as wide as its longest line (or its caption), at most
/// `BUBBLE_WIDTH` of the row, at the right for the owner's messages.
fn bubble_box(r: Bounds, text: &str, meta: &str, mine: bool, scale: f32) -> Bounds {
    let (w, x) = (r.w as f32, r.x as f32);
    let (lines, captions) = bubble_lines(text, meta, w, scale);
    let longest = lines.iter().map(|l| l.chars().count() as f32 * TextStyle::Body.size_dp() * CHAR_WIDTH).fold(0.0, f32::max);
    let caption = captions.iter().map(|l| l.chars().count() as f32 * TextStyle::Caption.size_dp() * CHAR_WIDTH).fold(0.0, f32::max);
    // Half a character to spare, so that the lines wrap the same again at the bubble's width.
    let spare = 0.5 * TextStyle::Body.size_dp() * CHAR_WIDTH;
    let bw = ((longest.max(caption) + spare + 2.0 * BUBBLE_PAD.0) * scale).min(w * BUBBLE_WIDTH);
    let (mx, my) = (BUBBLE_MARGIN.0 * scale, BUBBLE_MARGIN.1 * scale);
    let bx = if mine { x + w - mx - bw } else { x + mx };
    rect(bx, r.y as f32 + my, bw, r.h as f32 - 2.0 * my)
}

/// Height a node wants at a given width, in px. `None` for a list that fills what is left.
fn intrinsic(view: &View, width: f32, scale: f32) -> f32 {
    let dp = |v: f32| v * scale;
    match &view.kind {
        Kind::Column | Kind::List { .. } => view.children.iter().map(|c| intrinsic(c, width, scale)).sum(),
        Kind::Row => {
            let total: f32 = view.children.iter().map(|c| c.weight).sum::<f32>().max(f32::EPSILON);
            view.children.iter().map(|c| intrinsic(c, width * c.weight / total, scale)).fold(0.0, f32::max)
        }
        Kind::Stack => view.children.iter().filter(|c| !matches!(c.kind, Kind::Dialog { .. })).map(|c| intrinsic(c, width, scale)).fold(0.0, f32::max),
        Kind::Text { text, style } => text_height(text, *style, width, scale),
        Kind::Button { .. } => dp(60.0),
        Kind::Fab { .. } => dp(FAB.1 + 2.0 * FAB_MARGIN.1),
        Kind::TextField { multiline, .. } => dp(if *multiline { 128.0 } else { 64.0 }),
        Kind::Item { subtitle, .. } => dp(if subtitle.is_empty() { 56.0 } else { 72.0 }),
        Kind::Checkbox { .. } | Kind::Switch { .. } => dp(52.0),
        Kind::Bubble { text, meta, .. } => {
            let (text, meta) = bubble_lines(text, meta, width, scale);
            text.len() as f32 * line_height(TextStyle::Body, scale)
                + meta.len() as f32 * line_height(TextStyle::Caption, scale)
                + dp(2.0 * BUBBLE_PAD.1 + 2.0 + 2.0 * BUBBLE_MARGIN.1)
        }
        Kind::Tabs { look } => {
            let (row_h, inset) = tab_row_metrics(*look);
            dp(row_h) * tab_rows(view, width - dp(2.0 * inset), scale).len().max(1) as f32
        }
        Kind::Tab { look, .. } => dp(tab_row_metrics(*look).0),
        Kind::Dialog { title } => {
            text_height(title, TextStyle::Title, width, scale) + view.children.iter().map(|c| intrinsic(c, width, scale)).sum::<f32>() + dp(16.0)
        }
        Kind::Icon { .. } => dp(92.0),
        Kind::AppBar { .. } => dp(56.0),
        Kind::StatusBar { .. } => dp(28.0),
        Kind::Snackbar { text } => {
            let inner = (width - 2.0 * (SNACKBAR_MARGIN + PAD) * scale).max(scale);
            let lines = wrap(text, chars_per_line(TextStyle::Caption, inner, scale)).len() as f32;
            (lines * line_height(TextStyle::Caption, scale) + dp(30.0)).max(dp(48.0)) + dp(2.0 * SNACKBAR_MARGIN)
        }
        Kind::NavBar => dp(NAV_BAR),
        Kind::Spacer { height } => dp(*height),
        Kind::Fill => 0.0,
        Kind::Image { height, .. } | Kind::Map { height, .. } => dp(*height),
    }
}

/// Whether a node takes the height left over in a column: a list, or a column or stack
/// that holds one.
fn flexible(view: &View) -> bool {
    match view.kind {
        Kind::List { .. } | Kind::Fill => true,
        Kind::Column | Kind::Stack => view.children.iter().any(flexible),
        _ => false,
    }
}

fn rect(x: f32, y: f32, w: f32, h: f32) -> Bounds {
    Bounds { x: x.round() as i32, y: y.round() as i32, w: w.round() as i32, h: h.round() as i32 }
}

/// The part two boxes share (empty, at no size, when they do not meet).
pub(crate) fn intersect(a: Bounds, b: Bounds) -> Bounds {
    let x0 = a.x.max(b.x);
    let y0 = a.y.max(b.y);
    let x1 = (a.x + a.w).min(b.x + b.w);
    let y1 = (a.y + a.h).min(b.y + b.h);
    Bounds { x: x0, y: y0, w: (x1 - x0).max(0), h: (y1 - y0).max(0) }
}

impl<'a> Layout<'a> {
    /// Lays out `root` over the whole screen.
    pub fn new(root: &'a View, screen: Screen) -> Layout<'a> {
        Layout::zoomed(root, screen, 1.0)
    }

    /// Lays out `root` with text and widgets `zoom` times their default size (Android's
    /// display size setting).
    pub fn zoomed(root: &'a View, screen: Screen, zoom: f32) -> Layout<'a> {
        let zoom = if zoom.is_finite() { zoom.clamp(0.5, 2.0) } else { 1.0 };
        let mut layout = Layout { screen, nodes: Vec::with_capacity(64), modal: None, zoom };
        let full = rect(0.0, 0.0, screen.width as f32, screen.height as f32);
        layout.place(root, full, full, None, "root");
        layout
    }

    /// Pixels per dp, zoom included.
    pub fn scale(&self) -> f32 {
        self.screen.scale() * self.zoom
    }

    fn place(&mut self, view: &'a View, r: Bounds, clip: Bounds, parent: Option<usize>, auto_id: &str) {
        let scale = self.scale();
        // A floating action button takes only its own box at the right of its strip, and a
        // message only its bubble, so that each is touched, seen and read there alone.
        let r = match &view.kind {
            Kind::Fab { label } => {
                let (mx, my) = (FAB_MARGIN.0 * scale, FAB_MARGIN.1 * scale);
                let text = label.chars().count() as f32 * TextStyle::Body.size_dp() * BOLD_CHAR_WIDTH;
                let w = ((FAB_LABEL_X + text + 16.0) * scale).max(FAB.0 * scale).min(r.w as f32 - 2.0 * mx);
                rect(r.x as f32 + r.w as f32 - mx - w, r.y as f32 + my, w, FAB.1 * scale)
            }
            Kind::Bubble { text, meta, mine } => bubble_box(r, text, meta, *mine, scale),
            _ => r,
        };
        let visible = intersect(r, clip);
        let id = if view.id.is_empty() { auto_id.to_string() } else { view.id.clone() };
        let index = self.nodes.len();
        self.nodes.push(Placed { view, id: id.clone(), rect: r, visible, parent, end: index + 1, content_height: 0 });
        let (x, y, w, h) = (r.x as f32, r.y as f32, r.w as f32, r.h as f32);
        let child_id = |i: usize| format!("{id}/{i}");
        match &view.kind {
            Kind::Column => {
                // A fill gives way to a list (or to what holds one).
                let lists = view.children.iter().any(|c| c.kind != Kind::Fill && flexible(c));
                let heights: Vec<Option<f32>> = view
                    .children
                    .iter()
                    .map(|c| match c.kind {
                        Kind::Fill => lists.then_some(0.0),
                        _ => (!flexible(c)).then(|| intrinsic(c, w, scale)),
                    })
                    .collect();
                let fixed: f32 = heights.iter().flatten().sum();
                let flex = heights.iter().filter(|h| h.is_none()).count().max(1) as f32;
                let flex_h = ((h - fixed) / flex).max(0.0);
                let mut cy = y;
                for (i, (c, ch)) in view.children.iter().zip(heights).enumerate() {
                    let ch = ch.unwrap_or(flex_h);
                    self.place(c, rect(x, cy, w, ch), clip, Some(index), &child_id(i));
                    cy += ch;
                }
            }
            Kind::Tabs { look } => {
                // Rows of tabs, each as wide as its label needs plus a share of what is left;
                // chips as wide as their labels, packed from the left; a navigation bar's shares
                // the width equally.
                let (row_h, inset) = tab_row_metrics(*look);
                let (row_h, inset) = (row_h * scale, inset * scale);
                for (r, row) in tab_rows(view, w - 2.0 * inset, scale).into_iter().enumerate() {
                    let n = row.len().max(1) as f32;
                    let widths: Vec<f32> = row.clone().map(|i| tab_width(&view.children[i], scale)).collect();
                    let extra = match look {
                        TabLook::Chips => 0.0,
                        _ => (w - widths.iter().sum::<f32>()).max(0.0) / n,
                    };
                    let mut cx = x + inset;
                    for (i, tw) in row.zip(widths) {
                        self.place(&view.children[i], rect(cx, y + r as f32 * row_h, tw + extra, row_h), clip, Some(index), &child_id(i));
                        cx += tw + extra;
                    }
                }
            }
            Kind::Row => {
                let total: f32 = view.children.iter().map(|c| c.weight).sum::<f32>().max(f32::EPSILON);
                let mut cx = x;
                for (i, c) in view.children.iter().enumerate() {
                    let cw = w * c.weight / total;
                    self.place(c, rect(cx, y, cw, h), clip, Some(index), &child_id(i));
                    cx += cw;
                }
            }
            Kind::Stack => {
                for (i, c) in view.children.iter().enumerate() {
                    if let Kind::Dialog { .. } = c.kind {
                        // A dialog is centred on the whole screen, whatever holds it.
                        let (sw, sh) = (self.screen.width as f32, self.screen.height as f32);
                        let cw = (sw - 48.0 * scale).min(320.0 * scale);
                        let ch = intrinsic(c, cw, scale).min(sh);
                        let full = rect(0.0, 0.0, sw, sh);
                        self.place(c, rect((sw - cw) / 2.0, (sh - ch) / 2.0, cw, ch), full, Some(index), &child_id(i));
                    } else {
                        self.place(c, r, clip, Some(index), &child_id(i));
                    }
                }
            }
            Kind::List { offset } => {
                let inner_clip = intersect(r, clip);
                let mut cy = y - *offset as f32 * scale;
                let mut content = 0.0;
                for (i, c) in view.children.iter().enumerate() {
                    let ch = intrinsic(c, w, scale);
                    let cr = rect(x, cy, w, ch);
                    // Rows scrolled out of view are neither seen nor touched.
                    if intersect(cr, inner_clip).h > 0 {
                        self.place(c, cr, inner_clip, Some(index), &child_id(i));
                    }
                    cy += ch;
                    content += ch;
                }
                self.nodes[index].content_height = content.round() as i32;
            }
            Kind::Dialog { title } => {
                self.modal = Some(index);
                let mut cy = y + text_height(title, TextStyle::Title, w, scale) + 8.0 * scale;
                for (i, c) in view.children.iter().enumerate() {
                    let ch = intrinsic(c, w, scale);
                    self.place(c, rect(x, cy, w, ch), clip, Some(index), &child_id(i));
                    cy += ch;
                }
            }
            _ => {
                for (i, c) in view.children.iter().enumerate() {
                    self.place(c, r, clip, Some(index), &child_id(i));
                }
            }
        }
        self.nodes[index].end = self.nodes.len();
    }

    /// Nodes that can be touched now: inside the open dialog, if there is one.
    /// The nodes a touch can reach: an open dialog's, or all of them.
    pub fn touchable(&self) -> std::ops::Range<usize> {
        match self.modal {
            Some(m) => m..self.nodes[m].end,
            None => 0..self.nodes.len(),
        }
    }

    /// The topmost node under a point that reacts to a tap.
    pub fn hit(&self, x: f32, y: f32) -> Option<&Placed<'a>> {
        self.nodes[self.touchable()].iter().rev().find(|p| p.view.clickable() && p.visible.h > 0 && p.visible.contains(x, y))
    }

    /// The topmost scrollable node under a point.
    pub fn scrollable_at(&self, x: f32, y: f32) -> Option<&Placed<'a>> {
        self.nodes[self.touchable()].iter().rev().find(|p| matches!(p.view.kind, Kind::List { .. }) && p.visible.contains(x, y))
    }

    pub fn find(&self, id: &str) -> Option<&Placed<'a>> {
        self.nodes.iter().find(|p| p.id == id)
    }

    /// Whether `id` is placed under an open dialog.
    pub fn covered(&self, id: &str) -> bool {
        self.nodes.iter().position(|p| p.id == id).is_some_and(|i| !self.touchable().contains(&i))
    }

    /// Whether `id` can be touched now (visible, enabled and not under a dialog).
    pub fn touchable_node(&self, id: &str) -> Option<&Placed<'a>> {
        self.nodes[self.touchable()].iter().find(|p| p.id == id && p.visible.h > 0 && p.visible.w > 0)
    }

    /// The UI tree an agent reads: every placed node, parents before children. What an open
    /// dialog covers is shown but offered as nothing: not clickable, not editable, not
    /// scrollable (a tap there would only hit the dialog's backdrop).
    pub fn ui_tree(&self) -> Vec<UiNode> {
        let live = self.touchable();
        self.nodes
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let covered = !live.contains(&i);
                let v = p.view;
                UiNode {
                    id: p.id.clone(),
                    parent: p.parent,
                    role: v.role().to_string(),
                    // A field's value and its placeholder are separate attributes.
                    text: match &v.kind {
                        Kind::TextField { value, .. } => value.clone(),
                        _ => v.label(),
                    },
                    hint: match &v.kind {
                        Kind::TextField { placeholder, .. } => placeholder.clone(),
                        _ => String::new(),
                    },
                    bounds: p.visible,
                    clickable: v.clickable() && !covered,
                    editable: matches!(v.kind, Kind::TextField { .. }) && v.enabled && !covered,
                    focused: matches!(v.kind, Kind::TextField { focused: true, .. }),
                    checked: matches!(v.kind, Kind::Checkbox { checked: true, .. } | Kind::Switch { on: true, .. }),
                    selected: matches!(v.kind, Kind::Tab { selected: true, .. }),
                    scrollable: matches!(v.kind, Kind::List { .. }) && !covered,
                    enabled: v.enabled && !covered,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen() -> View {
        View::column([
            View::new(Kind::StatusBar { time: "09:00".into(), icons: Default::default() }),
            View::app_bar("Contacts"),
            View::list("contacts", 0, (0..40).map(|i| View::item(format!("contact:{i}"), format!("Person {i}"), "555"))),
            View::button("add", "Add contact"),
        ])
    }

    #[test]
    fn list_fills_the_rest_and_clips_rows() {
        let v = screen();
        let l = Layout::new(&v, Screen::PHONE);
        let list = l.find("contacts").unwrap();
        let add = l.find("add").unwrap();
        assert_eq!(list.rect.y + list.rect.h, add.rect.y);
        assert_eq!(add.rect.y + add.rect.h, 2400);
        // 40 rows of 72 dp do not fit: the last ones are not placed.
        assert!(l.find("contact:0").is_some());
        assert!(l.find("contact:39").is_none());
        assert_eq!(list.content_height, (40.0 * 72.0 * 3.0) as i32);
    }

    #[test]
    fn a_floating_action_button_is_its_own_box_at_the_right_of_its_strip() {
        let v = View::column([View::app_bar("Notes"), View::list("notes", 0, []), View::fab("new", "New note"), View::new(Kind::NavBar)]);
        let l = Layout::new(&v, Screen::PHONE);
        let s = l.scale();
        let fab = l.find("new").unwrap().rect;
        let screen_w = Screen::PHONE.width as i32;
        assert_eq!(fab.x + fab.w, screen_w - (FAB_MARGIN.0 * s) as i32, "{fab:?}");
        assert_eq!(fab.h, (FAB.1 * s).round() as i32);
        // Its label fits: at least the bold estimate of its characters after the plus.
        assert!(fab.w as f32 >= (FAB_LABEL_X + 8.0 * 16.0 * BOLD_CHAR_WIDTH) * s, "{fab:?}");
        // It sits above the navigation bar, which ends the screen.
        let nav = l.nodes.last().unwrap().rect;
        assert_eq!((nav.y + nav.h, nav.h), (Screen::PHONE.height as i32, (NAV_BAR * s).round() as i32));
        assert!(fab.y + fab.h <= nav.y);
        // The strip left of it takes no tap; the button takes its own.
        let (cx, cy) = fab.center();
        assert_eq!(l.hit(cx, cy).map(|p| p.id.as_str()), Some("new"));
        assert!(l.hit((fab.x - 10) as f32, cy).is_none());
    }

    #[test]
    fn a_message_is_its_bubble_on_the_side_of_who_sent_it() {
        let long = "Could you send me the photos from Saturday when you get a chance? No rush at all.";
        let v = View::column([View::list(
            "messages",
            0,
            [View::bubble("msg:0", long, "Ana · Sat 6 Jun, 09:20", false), View::bubble("msg:1", "Sure", "Me · Sat 6 Jun, 09:25", true)],
        )]);
        let l = Layout::new(&v, Screen::PHONE);
        let s = l.scale();
        let (theirs, mine) = (l.find("msg:0").unwrap().rect, l.find("msg:1").unwrap().rect);
        let width = Screen::PHONE.width as f32;
        assert_eq!(theirs.x, (BUBBLE_MARGIN.0 * s).round() as i32);
        assert_eq!(mine.x + mine.w, (width - BUBBLE_MARGIN.0 * s).round() as i32);
        assert!(theirs.w as f32 <= width * BUBBLE_WIDTH + 1.0 && mine.w < theirs.w, "{theirs:?} {mine:?}");
        // The long message wraps onto several lines and its bubble grows to hold them; the lines
        // wrap the same at the bubble's own width.
        let (lines, _) = bubble_lines(long, "Ana · Sat 6 Jun, 09:20", width, s);
        assert!(lines.len() >= 3, "{lines:?}");
        assert!(theirs.h > mine.h);
        assert_eq!(wrap(long, chars_per_line(TextStyle::Body, theirs.w as f32 - 2.0 * BUBBLE_PAD.0 * s + 1.0, s)), lines);
        assert_eq!(l.ui_tree()[2].text, format!("{long} · Ana · Sat 6 Jun, 09:20"));
    }

    #[test]
    fn chips_pack_from_the_left_and_a_navigation_bar_shares_the_width() {
        let v = View::column([
            View::chips("cats", [("c:0", "All"), ("c:1", "Electronics"), ("c:2", "Home")], 0),
            View::navigation("nav", [("n:0", "Songs", crate::icons::Pictogram::MusicNote), ("n:1", "Playlists", crate::icons::Pictogram::List)], 1),
        ]);
        let l = Layout::new(&v, Screen::PHONE);
        let s = l.scale();
        let chip = |id: &str| l.find(id).unwrap().rect;
        assert_eq!(chip("c:0").x, (PAD * s).round() as i32);
        assert_eq!(chip("c:1").x, chip("c:0").x + chip("c:0").w, "packed, each with its gap");
        assert!(chip("c:1").w > chip("c:0").w, "as wide as the label");
        assert!(chip("c:2").x + chip("c:2").w < Screen::PHONE.width as i32 / 2 + 200, "not spread over the row");
        let (a, b) = (chip("n:0"), chip("n:1"));
        assert_eq!((a.w, a.h, b.x), (b.w, (80.0 * s).round() as i32, a.x + a.w));
        let tree = l.ui_tree();
        assert!(tree.iter().any(|n| n.id == "n:1" && n.selected && n.role == "tab" && n.text == "Playlists"));
    }

    #[test]
    fn a_label_too_long_for_its_button_is_set_smaller() {
        assert!(label_fits("Play", 100.0));
        assert!(!label_fits("Add to playlist", 106.0), "15 characters of 9 dp in 90 dp");
        assert!(label_fits("Add to playlist", 160.0));
    }

    #[test]
    fn a_snackbar_grows_with_its_message() {
        let height = |text: &str| {
            let v = View::column([View::new(Kind::Snackbar { text: text.into() }).id("toast")]);
            Layout::new(&v, Screen::PHONE).find("toast").unwrap().rect.h
        };
        let one = height("Saved");
        assert_eq!(one, (64.0 * Screen::PHONE.scale()).round() as i32, "48 dp and its margins");
        assert!(height(&"A long message that cannot fit on one line of the bar. ".repeat(3)) > one);
    }

    #[test]
    fn hit_finds_the_topmost_clickable_and_dialogs_capture_touches() {
        let v = screen();
        let l = Layout::new(&v, Screen::PHONE);
        let (cx, cy) = l.find("contact:2").unwrap().visible.center();
        assert_eq!(l.hit(cx, cy).unwrap().id, "contact:2");
        assert!(l.hit(5.0, 5.0).is_none(), "status bar is not clickable");

        let with_dialog =
            View::stack([screen(), View::dialog("confirm", "Delete?", [View::row([View::button("cancel", "Cancel"), View::button("ok", "Delete")])])]);
        let l = Layout::new(&with_dialog, Screen::PHONE);
        assert!(l.hit(cx, cy).is_none(), "the dialog blocks the list");
        // And the UI tree does not offer what the dialog covers.
        let tree = l.ui_tree();
        let node = |id: &str| tree.iter().find(|n| n.id == id).unwrap();
        assert!(node("ok").clickable);
        assert!(!node("contact:0").clickable && !node("contacts").scrollable);

        // A text field's value and placeholder are apart: an empty field reads as empty.
        let form = View::column([View::field("name", "", "Full name", false), View::field("phone", "555", "Phone", false)]);
        let tree = Layout::new(&form, Screen::PHONE).ui_tree();
        let name = tree.iter().find(|n| n.id == "name").unwrap();
        assert_eq!((name.text.as_str(), name.hint.as_str()), ("", "Full name"));
        let phone = tree.iter().find(|n| n.id == "phone").unwrap();
        assert_eq!((phone.text.as_str(), phone.hint.as_str()), ("555", "Phone"));
        let (ox, oy) = l.find("ok").unwrap().visible.center();
        assert_eq!(l.hit(ox, oy).unwrap().id, "ok");
    }

    #[test]
    fn tabs_too_long_for_one_line_wrap_instead_of_clipping() {
        let labels = ["All", "Electronics", "Home", "Office", "Party", "Sports", "Toys", "Travel"];
        let v = View::column([View::tabs("categories", labels.iter().map(|l| (*l, *l)), 0), View::button("cart", "Cart")]);
        let l = Layout::new(&v, Screen::PHONE);
        let scale = Screen::PHONE.scale();
        let mut rows = std::collections::BTreeSet::new();
        for label in labels {
            let tab = l.find(label).unwrap();
            let fits = chars_per_line(TextStyle::Body, tab.rect.w as f32, scale);
            assert!(fits >= label.len(), "{label} is clipped: {} px hold {fits} characters", tab.rect.w);
            assert!(tab.rect.x >= 0 && tab.rect.x + tab.rect.w <= 1080 + 1, "{label} runs off the screen");
            rows.insert(tab.rect.y);
        }
        assert!(rows.len() >= 2, "eight categories do not fit in one line");
        // The next element starts below the last row of tabs.
        let last = labels.iter().map(|t| l.find(t).unwrap().rect).map(|r| r.y + r.h).max().unwrap();
        assert!(l.find("cart").unwrap().rect.y >= last);
    }

    #[test]
    fn ids_are_stable_across_renders() {
        let a = screen();
        let b = screen();
        let ta = Layout::new(&a, Screen::PHONE).ui_tree();
        let tb = Layout::new(&b, Screen::PHONE).ui_tree();
        assert_eq!(ta, tb);
        assert_eq!(ta[1].id, "root/0");
    }

    #[test]
    fn a_label_wraps_between_words_only() {
        assert_eq!(wrap_words("Send", 3), vec!["Send"]);
        assert_eq!(wrap_words("Add to playlist", 8), vec!["Add to", "playlist"]);
        assert_eq!(wrap_words("  Play  ", 10), vec!["Play"]);
        assert!(wrap_words("", 5).is_empty());
    }

    #[test]
    fn wrap_breaks_at_spaces_and_long_words() {
        assert_eq!(wrap("hello brave new world", 11), vec!["hello brave", "new world"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), vec![""]);
    }
}
