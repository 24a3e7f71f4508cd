//! Raster: paints a laid-out view tree into pixels with tiny-skia and the embedded font. Runs
//! only when an observation asks for a screenshot.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

use guigym_core::{Bounds, Screenshot};
use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, Rect, Transform};

use crate::layout::{
    chars_per_line, intersect, label_fits, line_height, wrap, wrap_words, Layout, BUBBLE_PAD, BUTTON_LABEL_MARGIN, CARD_INSET, CHIP_GAP, FAB_LABEL_X,
    NAV_HANDLE, PAD, SNACKBAR_MARGIN,
};
use crate::theme::{Rgb, Theme};
use crate::theme::{BAR_TINT, CHOSEN_TINT};
use crate::view::{Kind, Leading, TabLook, TextStyle};

static REGULAR: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("../assets/DejaVuSans-Bold.ttf");

fn font(bold: bool) -> &'static fontdue::Font {
    static FONTS: OnceLock<[fontdue::Font; 2]> = OnceLock::new();
    // The fonts are compiled in; failing to parse one is a build defect, not an input error.
    let parse = |bytes| fontdue::Font::from_bytes(bytes, fontdue::FontSettings::default()).expect("embedded font parses");
    &FONTS.get_or_init(|| [parse(REGULAR), parse(BOLD)])[bold as usize]
}

/// Text as it is set: a style's size, in regular or bold.
#[derive(Debug, Clone, Copy)]
struct Type {
    style: TextStyle,
    bold: bool,
}

impl Type {
    fn size(self, scale: f32) -> f32 {
        self.style.size_dp() * scale
    }
}

impl From<TextStyle> for Type {
    fn from(style: TextStyle) -> Type {
        Type { style, bold: false }
    }
}

fn bold(style: TextStyle) -> Type {
    Type { style, bold: true }
}

#[derive(Debug, thiserror::Error)]
pub enum RasterError {
    #[error("screen of {0}×{1} px cannot be allocated")]
    Size(u32, u32),
}

/// Paints a layout as a screenshot: pixels, encoded as PNG only where their bytes are asked for.
pub fn render_screenshot(layout: &Layout<'_>, theme: &Theme) -> Result<Screenshot, RasterError> {
    let pixmap = render(layout, theme)?;
    let (width, height) = (pixmap.width(), pixmap.height());
    // Every pixel is opaque (the background is filled first), so premultiplied RGBA is RGBA.
    Screenshot::from_rgba(width, height, pixmap.take()).map_err(|_| RasterError::Size(width, height))
}

/// Paints a layout into a pixmap.
pub fn render(layout: &Layout<'_>, theme: &Theme) -> Result<Pixmap, RasterError> {
    let Layout { screen, nodes, modal, .. } = layout;
    let mut painter =
        Painter { pixmap: Pixmap::new(screen.width, screen.height).ok_or(RasterError::Size(screen.width, screen.height))?, scale: layout.scale() };
    painter.pixmap.fill(color(theme.background, 255));
    let full = Bounds { x: 0, y: 0, w: screen.width as i32, h: screen.height as i32 };
    // An open dialog and what it holds are painted last, over a scrim that dims everything
    // else (what follows the dialog in the tree too, as the page's stacking does).
    let dialog = modal.map(|m| m..nodes[m].end).unwrap_or(0..0);
    for (i, p) in nodes.iter().enumerate() {
        if !dialog.contains(&i) {
            painter.node(p.view, p.rect, p.visible, theme);
        }
    }
    if !dialog.is_empty() {
        painter.fill(full, full, [0, 0, 0], 110, 0.0);
        for p in &nodes[dialog] {
            painter.node(p.view, p.rect, p.visible, theme);
        }
    }
    Ok(painter.pixmap)
}

fn color(rgb: Rgb, a: u8) -> tiny_skia::Color {
    tiny_skia::Color::from_rgba8(rgb[0], rgb[1], rgb[2], a)
}

type Glyph = (fontdue::Metrics, Vec<u8>);

/// A glyph's metrics and coverage bitmap, rasterized once per thread (screens repeat the same
/// few sizes; the cache is emptied if typed text ever fills it with rare characters).
fn glyph(ch: char, size: f32, bold: bool) -> Rc<Glyph> {
    const MAX_GLYPHS: usize = 4096;
    thread_local! {
        static GLYPHS: RefCell<HashMap<(char, u32, bool), Rc<Glyph>>> = RefCell::new(HashMap::new());
    }
    GLYPHS.with(|cache| {
        let mut cache = cache.borrow_mut();
        let key = (ch, size.to_bits(), bold);
        if let Some(g) = cache.get(&key) {
            return g.clone();
        }
        if cache.len() >= MAX_GLYPHS {
            cache.clear();
        }
        let g = Rc::new(font(bold).rasterize(ch, size));
        cache.insert(key, g.clone());
        g
    })
}

struct Painter {
    pixmap: Pixmap,
    scale: f32,
}

impl Painter {
    fn dp(&self, v: f32) -> f32 {
        v * self.scale
    }

    fn fill(&mut self, r: Bounds, clip: Bounds, rgb: Rgb, alpha: u8, radius: f32) {
        let x0 = r.x.max(clip.x) as f32;
        let y0 = r.y.max(clip.y) as f32;
        let x1 = (r.x + r.w).min(clip.x + clip.w) as f32;
        let y1 = (r.y + r.h).min(clip.y + clip.h) as f32;
        if x1 <= x0 || y1 <= y0 {
            return;
        }
        let mut paint = Paint::default();
        paint.set_color(color(rgb, alpha));
        paint.anti_alias = radius > 0.0;
        if radius > 0.0 {
            if let Some(path) = rounded(x0, y0, x1 - x0, y1 - y0, radius) {
                self.pixmap.fill_path(&path, &paint, FillRule::Winding, Transform::identity(), None);
            }
        } else if let Some(rect) = Rect::from_ltrb(x0, y0, x1, y1) {
            self.pixmap.fill_rect(rect, &paint, Transform::identity(), None);
        }
    }

    /// Draws one line of text with its top-left corner at (x, y), clipped.
    fn text(&mut self, s: &str, x: f32, y: f32, ty: impl Into<Type>, rgb: Rgb, clip: Bounds) {
        let ty = ty.into();
        let size = ty.size(self.scale);
        let ascent = size * 0.95;
        let mut pen = x;
        let (w, h) = (self.pixmap.width() as i32, self.pixmap.height() as i32);
        for ch in s.chars() {
            let glyph = glyph(ch, size, ty.bold);
            let (metrics, bitmap) = (&glyph.0, &glyph.1);
            let gx = (pen + metrics.xmin as f32).round() as i32;
            let gy = (y + ascent - metrics.height as f32 - metrics.ymin as f32).round() as i32;
            let data = self.pixmap.data_mut();
            for row in 0..metrics.height as i32 {
                let py = gy + row;
                if py < clip.y.max(0) || py >= (clip.y + clip.h).min(h) {
                    continue;
                }
                for col in 0..metrics.width as i32 {
                    let px = gx + col;
                    if px < clip.x.max(0) || px >= (clip.x + clip.w).min(w) {
                        continue;
                    }
                    let a = bitmap[(row * metrics.width as i32 + col) as usize] as u32;
                    if a == 0 {
                        continue;
                    }
                    let o = ((py * w + px) * 4) as usize;
                    for c in 0..3 {
                        let dst = data[o + c] as u32;
                        data[o + c] = ((rgb[c] as u32 * a + dst * (255 - a)) / 255) as u8;
                    }
                    data[o + 3] = 255;
                }
            }
            pen += metrics.advance_width;
        }
    }

    /// Lines set one under the other from (x, y), each as `text` sets one.
    fn lines(&mut self, lines: &[String], x: f32, y: f32, ty: impl Into<Type>, rgb: Rgb, clip: Bounds) {
        let ty = ty.into();
        let lh = line_height(ty.style, self.scale);
        for (i, line) in lines.iter().enumerate() {
            self.text(line, x, y + i as f32 * lh, ty, rgb, clip);
        }
    }

    /// Wrapped text inside a box, padded left.
    fn paragraph(&mut self, s: &str, r: Bounds, clip: Bounds, ty: Type, rgb: Rgb) {
        let pad = self.dp(PAD);
        let inner = (r.w as f32 - 2.0 * pad).max(self.scale);
        let lines = wrap(s, chars_per_line(ty.style, inner, self.scale));
        self.lines(&lines, r.x as f32 + pad, r.y as f32 + self.dp(4.0), ty, rgb, clip);
    }

    /// A shape placed from `r`'s corner, in `ink` (a cut one in `hole`).
    fn shape(&mut self, shape: &crate::icons::Shape, r: Bounds, ink: Rgb, hole: Rgb) {
        use crate::icons::Shape;
        let (ox, oy, s) = (r.x as f32, r.y as f32, self.scale);
        let (path, is_cut) = match shape {
            Shape::Rect { x, y, w, h, radius, cut } => {
                let (x, y, w, h) = (ox + x * s, oy + y * s, w * s, h * s);
                let path = if *radius > 0.0 { rounded(x, y, w, h, radius * s) } else { Rect::from_xywh(x, y, w, h).map(PathBuilder::from_rect) };
                (path, *cut)
            }
            Shape::Polygon { points, cut } => (polygon(points.iter().map(|(x, y)| (ox + x * s, oy + y * s))), *cut),
        };
        self.fill_path(path, if is_cut { hole } else { ink });
    }

    fn fill_path(&mut self, path: Option<tiny_skia::Path>, rgb: Rgb) {
        let mut paint = Paint::default();
        paint.set_color(color(rgb, 255));
        paint.anti_alias = true;
        if let Some(path) = path {
            self.pixmap.fill_path(&path, &paint, FillRule::Winding, Transform::identity(), None);
        }
    }

    /// A scene's polygons from `r`'s corner, cut to `r` and `clip`.
    fn scene(&mut self, scene: &crate::icons::Scene, r: Bounds, clip: Bounds) {
        let inside = intersect(r, clip);
        for (points, rgb) in scene {
            let points = points.iter().map(|(x, y)| (r.x as f32 + self.dp(*x), r.y as f32 + self.dp(*y))).collect();
            self.fill_path(polygon(clip_polygon(points, inside)), *rgb);
        }
    }

    /// A disc filling `b`'s square, cut to `clip` (a row at a list's edge shows part of it).
    fn disc(&mut self, b: Bounds, clip: Bounds, rgb: Rgb) {
        let r = b.w as f32 / 2.0;
        let (cx, cy) = (b.x as f32 + r, b.y as f32 + r);
        let circle: Vec<(f32, f32)> = (0..64).map(|i| i as f32 * std::f32::consts::TAU / 64.0).map(|a| (cx + r * a.cos(), cy + r * a.sin())).collect();
        self.fill_path(polygon(clip_polygon(circle, clip)), rgb);
    }

    /// One line of text cut to `width` pixels with an ellipsis, as a list row's secondary line
    /// is on a phone (and in the page's CSS, `text-overflow: ellipsis`).
    fn ellipsized<'s>(&self, s: &'s str, ty: Type, width: f32) -> std::borrow::Cow<'s, str> {
        let advance = |c: char| self.advance(c, ty);
        if self.width(s, ty) <= width {
            return s.into();
        }
        let mut used = advance('…');
        let kept: String = s
            .chars()
            .take_while(|c| {
                used += advance(*c);
                used <= width
            })
            .collect();
        format!("{}…", kept.trim_end()).into()
    }

    /// How far a character moves the pen, in pixels.
    fn advance(&self, c: char, ty: impl Into<Type>) -> f32 {
        let ty = ty.into();
        font(ty.bold).metrics(c, ty.size(self.scale)).advance_width
    }

    /// A line's width in pixels (no kerning, as `text` draws it).
    fn width(&self, s: &str, ty: impl Into<Type>) -> f32 {
        let ty = ty.into();
        s.chars().map(|c| self.advance(c, ty)).sum()
    }

    fn centered(&mut self, s: &str, r: Bounds, clip: Bounds, ty: impl Into<Type>, rgb: Rgb) {
        let ty = ty.into();
        let x = r.x as f32 + (r.w as f32 - self.width(s, ty)) / 2.0;
        let y = r.y as f32 + (r.h as f32 - ty.size(self.scale) * 1.2) / 2.0;
        self.text(s, x, y, ty, rgb, clip);
    }

    fn node(&mut self, view: &crate::View, r: Bounds, clip: Bounds, t: &Theme) {
        let scale = self.scale;
        let d = |v: f32| (v * scale).round() as i32;
        let inset = |r: Bounds, h: i32, v: i32| Bounds { x: r.x + h, y: r.y + v, w: r.w - 2 * h, h: r.h - 2 * v };
        let muted = if view.enabled { t.text } else { t.muted };
        match &view.kind {
            Kind::StatusBar { time, icons } => {
                self.fill(r, clip, t.surface, 255, 0.0);
                self.text(time, r.x as f32 + self.dp(PAD), r.y as f32 + self.dp(4.0), TextStyle::Caption, t.text, clip);
                for shape in crate::icons::status_shapes(icons, r.w as f32 / scale, r.h as f32 / scale) {
                    self.shape(&shape, r, t.text, t.surface);
                }
            }
            Kind::AppBar { title } => {
                self.fill(r, clip, t.primary, 255, 0.0);
                let y = r.y as f32 + self.dp(14.0);
                self.text(title, r.x as f32 + self.dp(PAD), y, TextStyle::Title, t.on_primary, clip);
            }
            Kind::Text { text, style } => {
                let rgb = if *style == TextStyle::Caption { t.muted } else { muted };
                // Headings inside a screen stand out in bold, as Material's titles do.
                let ty = if *style == TextStyle::Title { bold(*style) } else { (*style).into() };
                self.paragraph(text, r, clip, ty, rgb);
            }
            Kind::Button { label, danger } => {
                let b = inset(r, d(PAD), d(6.0));
                let bg = if !view.enabled {
                    t.divider
                } else if *danger {
                    t.danger
                } else {
                    t.primary
                };
                self.fill(b, clip, bg, 255, self.dp(10.0));
                if label_fits(label, b.w as f32 / scale) {
                    self.centered(label, b, clip, TextStyle::Body, t.on_primary);
                } else {
                    let small = TextStyle::Caption;
                    let lines = wrap_words(label, chars_per_line(small, b.w as f32 - self.dp(2.0 * BUTTON_LABEL_MARGIN), scale));
                    let lh = line_height(small, scale);
                    let top = b.y as f32 + (b.h as f32 - lines.len() as f32 * lh) / 2.0 + 0.07 * small.size_dp() * scale;
                    for (i, line) in lines.iter().enumerate() {
                        let x = b.x as f32 + (b.w as f32 - self.width(line, small)) / 2.0;
                        self.text(line, x, top + i as f32 * lh, small, t.on_primary, clip);
                    }
                }
            }
            Kind::Fab { label } => {
                let radius = self.dp(16.0);
                // The shadow falls outside the button's own box (a button never sits in a list).
                let screen = Bounds { x: 0, y: 0, w: self.pixmap.width() as i32, h: self.pixmap.height() as i32 };
                for (dy, spread, alpha) in crate::icons::ELEVATION {
                    let s = d(spread);
                    self.fill(Bounds { x: r.x - s, y: r.y - s + d(dy), w: r.w + 2 * s, h: r.h + 2 * s }, screen, [0, 0, 0], alpha, radius + s as f32);
                }
                let bg = if view.enabled { t.primary } else { t.divider };
                self.fill(r, clip, bg, 255, radius);
                for shape in crate::icons::plus(crate::icons::FAB_ICON.0, crate::icons::FAB_ICON.1) {
                    self.shape(&shape, r, t.on_primary, bg);
                }
                let ty = bold(TextStyle::Body);
                let y = r.y as f32 + (r.h as f32 - ty.size(scale) * 1.2) / 2.0;
                self.text(label, r.x as f32 + self.dp(FAB_LABEL_X), y, ty, t.on_primary, clip);
            }
            Kind::TextField { value, placeholder, focused, multiline } => {
                let b = inset(r, d(PAD), d(6.0));
                self.fill(b, clip, if *focused { t.primary } else { t.divider }, 255, self.dp(8.0));
                let inner = inset(b, d(2.0), d(2.0));
                self.fill(inner, clip, t.surface, 255, self.dp(7.0));
                let (s, rgb) = if value.is_empty() { (placeholder, t.muted) } else { (value, t.text) };
                // The cursor stands after what was typed, or before the hint of an empty field.
                let shown = match (*focused, value.is_empty()) {
                    (false, _) => s.clone(),
                    (true, false) => format!("{s}|"),
                    (true, true) => format!("|{s}"),
                };
                // Text stays inside the field's frame; a multi-line field wraps it, line under line.
                let inside = intersect(inner, clip);
                let (x, y) = (inner.x as f32 + self.dp(12.0), inner.y as f32 + self.dp(14.0));
                if *multiline {
                    let lines = wrap(&shown, chars_per_line(TextStyle::Body, inner.w as f32 - self.dp(24.0), scale));
                    self.lines(&lines, x, y, TextStyle::Body, rgb, inside);
                } else {
                    self.text(&shown, x, y, TextStyle::Body, rgb, inside);
                }
            }
            Kind::Item { title, subtitle, trailing, leading, bold: strong, card } => {
                // A card's content sits inside its frame as a row's sits in the row.
                let r = if *card {
                    let frame = inset(r, d(CARD_INSET.0), d(CARD_INSET.1));
                    self.fill(frame, clip, t.divider, 255, self.dp(12.0));
                    self.fill(inset(frame, d(1.0), d(1.0)), clip, t.surface, 255, self.dp(11.0));
                    Bounds { x: r.x + d(CARD_INSET.0), w: r.w - 2 * d(CARD_INSET.0), ..r }
                } else {
                    self.fill(r, clip, t.surface, 255, 0.0);
                    self.fill(Bounds { x: r.x, y: r.y + r.h - d(1.0), w: r.w, h: d(1.0).max(1) }, clip, t.divider, 255, 0.0);
                    r
                };
                let left = match leading {
                    None => PAD,
                    Some(Leading::Avatar(name)) => {
                        let (initials, rgb) = crate::icons::avatar(name);
                        let side = d(crate::icons::AVATAR);
                        let circle = Bounds { x: r.x + d(PAD), y: r.y + (r.h - side) / 2, w: side, h: side };
                        self.disc(circle, clip, rgb);
                        self.centered(&initials, circle, clip, TextStyle::Body, [255, 255, 255]);
                        crate::icons::AFTER_AVATAR
                    }
                    Some(Leading::Picture(name)) => {
                        let side = d(crate::icons::PICTURE);
                        self.scene(&crate::icons::picture(name), Bounds { x: r.x + d(PAD), y: r.y + (r.h - side) / 2, w: side, h: side }, clip);
                        crate::icons::AFTER_PICTURE
                    }
                };
                let x = r.x as f32 + self.dp(left);
                let room = r.w as f32 - self.dp(left) - self.dp(PAD);
                let ty = if *strong { bold(TextStyle::Body) } else { TextStyle::Body.into() };
                // The title gives way to the trailing text: cut with an ellipsis, 8 dp before it.
                let trailing_w = if trailing.is_empty() { 0.0 } else { self.width(trailing, TextStyle::Caption) + self.dp(8.0) };
                let line = self.ellipsized(title, ty, room - trailing_w);
                self.text(&line, x, r.y as f32 + self.dp(10.0), ty, muted, clip);
                if !subtitle.is_empty() {
                    let line = self.ellipsized(subtitle, TextStyle::Caption.into(), room);
                    self.text(&line, x, r.y as f32 + self.dp(38.0), TextStyle::Caption, t.muted, clip);
                }
                if !trailing.is_empty() {
                    let tx = (r.x + r.w) as f32 - self.dp(PAD) - self.width(trailing, TextStyle::Caption);
                    self.text(trailing, tx, r.y as f32 + self.dp(12.0), TextStyle::Caption, t.muted, clip);
                }
            }
            Kind::Bubble { text, meta, mine } => {
                let (ground, ink, small) = t.bubble(*mine);
                self.fill(r, clip, ground, 255, self.dp(16.0));
                let (px, py) = BUBBLE_PAD;
                let room = r.w as f32 - self.dp(2.0 * px) + 1.0;
                let lines = wrap(text, chars_per_line(TextStyle::Body, room, scale));
                let (x, y) = (r.x as f32 + self.dp(px), r.y as f32 + self.dp(py));
                self.lines(&lines, x, y, TextStyle::Body, ink, clip);
                let under = y + lines.len() as f32 * line_height(TextStyle::Body, scale) + self.dp(2.0);
                self.lines(&wrap(meta, chars_per_line(TextStyle::Caption, room, scale)), x, under, TextStyle::Caption, small, clip);
            }
            Kind::Checkbox { label, checked } => {
                let (bx_x, bx_y) = crate::icons::CHECKBOX;
                let bx = Bounds { x: r.x + d(bx_x), y: r.y + d(bx_y), w: d(24.0), h: d(24.0) };
                self.fill(bx, clip, if *checked { t.primary } else { t.muted }, 255, self.dp(4.0));
                if *checked {
                    for shape in crate::icons::tick(bx_x, bx_y) {
                        self.shape(&shape, r, t.on_primary, t.primary);
                    }
                } else {
                    self.fill(inset(bx, d(2.0), d(2.0)), clip, t.surface, 255, self.dp(3.0));
                }
                self.text(label, r.x as f32 + self.dp(56.0), r.y as f32 + self.dp(14.0), TextStyle::Body, muted, clip);
            }
            Kind::Switch { label, on } => {
                self.text(label, r.x as f32 + self.dp(PAD), r.y as f32 + self.dp(14.0), TextStyle::Body, muted, clip);
                let track = Bounds { x: r.x + r.w - d(PAD + 48.0), y: r.y + d(14.0), w: d(48.0), h: d(24.0) };
                self.fill(track, clip, if *on { t.primary } else { t.divider }, 255, self.dp(12.0));
                let knob_x = if *on { track.x + track.w - d(22.0) } else { track.x + d(2.0) };
                self.fill(Bounds { x: knob_x, y: track.y + d(2.0), w: d(20.0), h: d(20.0) }, clip, t.surface, 255, self.dp(10.0));
            }
            Kind::Tabs { look } => match look {
                TabLook::Strip => self.fill(r, clip, t.surface, 255, 0.0),
                TabLook::Chips => {}
                TabLook::Bar => self.fill(r, clip, t.tint(BAR_TINT), 255, 0.0),
            },
            Kind::Tab { label, selected, look: TabLook::Strip, .. } => {
                let rgb = if *selected { t.primary } else { t.muted };
                self.centered(label, r, clip, TextStyle::Body, rgb);
                if *selected {
                    self.fill(Bounds { x: r.x, y: r.y + r.h - d(3.0), w: r.w, h: d(3.0) }, clip, t.primary, 255, 0.0);
                }
            }
            Kind::Tab { label, selected, look: TabLook::Chips, .. } => {
                let chip = Bounds { x: r.x, y: r.y + d(8.0), w: r.w - d(CHIP_GAP), h: r.h - d(16.0) };
                if *selected {
                    self.fill(chip, clip, t.tint(CHOSEN_TINT), 255, self.dp(8.0));
                } else {
                    self.fill(chip, clip, t.divider, 255, self.dp(8.0));
                    self.fill(inset(chip, d(1.0), d(1.0)), clip, t.background, 255, self.dp(7.0));
                }
                self.centered(label, chip, clip, TextStyle::Caption, t.text);
            }
            Kind::Tab { label, selected, look: TabLook::Bar, icon } => {
                let pill = Bounds { x: r.x + (r.w - d(64.0)) / 2, y: r.y + d(12.0), w: d(64.0), h: d(32.0) };
                let (ink, ground) = t.destination(*selected);
                if *selected {
                    self.fill(pill, clip, ground, 255, self.dp(16.0));
                }
                if let Some(icon) = icon {
                    for shape in icon.shapes(20.0, 4.0, 24.0) {
                        self.shape(&shape, pill, ink, ground);
                    }
                }
                let ty = if *selected { bold(TextStyle::Caption) } else { TextStyle::Caption.into() };
                let x = r.x as f32 + (r.w as f32 - self.width(label, ty)) / 2.0;
                self.text(label, x, r.y as f32 + self.dp(50.0), ty, ink, clip);
            }
            Kind::Dialog { title } => {
                self.fill(r, clip, t.surface, 255, self.dp(16.0));
                self.paragraph(title, Bounds { y: r.y + d(8.0), ..r }, clip, TextStyle::Title.into(), t.text);
            }
            Kind::Icon { label, picture, color } => {
                let size = d(crate::icons::TILE);
                let sq = Bounds { x: r.x + (r.w - size) / 2, y: r.y + d(6.0), w: size, h: size };
                self.fill(sq, clip, *color, 255, self.dp(14.0));
                for shape in crate::icons::tile_shapes(*picture) {
                    self.shape(&shape, sq, [255, 255, 255], *color);
                }
                let lb = Bounds { x: r.x, y: sq.y + size + d(4.0), w: r.w, h: d(20.0) };
                self.centered(label, lb, clip, TextStyle::Caption, t.text);
            }
            Kind::Snackbar { text } => {
                // Drawn in the theme's inverse colours, as Material's snackbar is.
                let b = inset(r, d(SNACKBAR_MARGIN), d(SNACKBAR_MARGIN));
                self.fill(b, clip, t.text, 255, self.dp(4.0));
                let inner = (b.w as f32 - 2.0 * self.dp(PAD)).max(scale);
                let lines = wrap(text, chars_per_line(TextStyle::Caption, inner, scale));
                let lh = line_height(TextStyle::Caption, scale);
                let top = b.y as f32 + (b.h as f32 - lines.len() as f32 * lh) / 2.0 + 0.07 * TextStyle::Caption.size_dp() * scale;
                self.lines(&lines, b.x as f32 + self.dp(PAD), top, TextStyle::Caption, t.surface, clip);
            }
            Kind::NavBar => {
                let (w, h) = (d(NAV_HANDLE.0), d(NAV_HANDLE.1));
                self.fill(Bounds { x: r.x + (r.w - w) / 2, y: r.y + (r.h - h) / 2, w, h }, clip, t.muted, 255, h as f32 / 2.0);
            }
            Kind::Image { scene, .. } => self.scene(scene, r, clip),
            Kind::Map { key, places, target, route, .. } => {
                let places: Vec<&str> = places.iter().map(String::as_str).collect();
                self.scene(&crate::icons::map(key, &places, target.as_deref(), *route, r.w as f32 / scale, r.h as f32 / scale), r, clip)
            }
            Kind::List { .. } | Kind::Column | Kind::Row | Kind::Stack | Kind::Spacer { .. } | Kind::Fill => {}
        }
    }
}

/// A closed path through points (none for fewer than two).
fn polygon(points: impl IntoIterator<Item = (f32, f32)>) -> Option<tiny_skia::Path> {
    let mut pb = PathBuilder::new();
    for (i, (x, y)) in points.into_iter().enumerate() {
        if i == 0 {
            pb.move_to(x, y);
        } else {
            pb.line_to(x, y);
        }
    }
    pb.close();
    pb.finish()
}

/// A convex polygon cut to a rectangle.
fn clip_polygon(points: Vec<(f32, f32)>, clip: Bounds) -> Vec<(f32, f32)> {
    let (x0, y0, x1, y1) = (clip.x as f32, clip.y as f32, (clip.x + clip.w) as f32, (clip.y + clip.h) as f32);
    crate::icons::clip_convex(points, &[(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
}

fn rounded(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<tiny_skia::Path> {
    let r = r.min(w / 2.0).min(h / 2.0);
    let mut pb = PathBuilder::new();
    pb.move_to(x + r, y);
    pb.line_to(x + w - r, y);
    pb.quad_to(x + w, y, x + w, y + r);
    pb.line_to(x + w, y + h - r);
    pb.quad_to(x + w, y + h, x + w - r, y + h);
    pb.line_to(x + r, y + h);
    pb.quad_to(x, y + h, x, y + h - r);
    pb.line_to(x, y + r);
    pb.quad_to(x, y, x + r, y);
    pb.close();
    pb.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_polygon_is_cut_to_its_clip() {
        let square = vec![(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0)];
        let cut = clip_polygon(square.clone(), Bounds { x: 5, y: -5, w: 20, h: 10 });
        let (xs, ys): (Vec<f32>, Vec<f32>) = cut.iter().copied().unzip();
        assert!(xs.iter().all(|x| (5.0..=10.0).contains(x)) && ys.iter().all(|y| (0.0..=5.0).contains(y)), "{cut:?}");
        assert_eq!(cut.len(), 4);
        assert!(clip_polygon(square, Bounds { x: 20, y: 20, w: 5, h: 5 }).is_empty());
    }
    use crate::{Screen, View};

    #[test]
    fn renders_a_png_of_the_screen_size_with_text_pixels() {
        let v = View::column([View::app_bar("Mail"), View::text("Hello world"), View::button("ok", "OK")]);
        let layout = Layout::new(&v, Screen { width: 360, height: 640 });
        let pixmap = render(&layout, &Theme::default()).unwrap();
        assert_eq!((pixmap.width(), pixmap.height()), (360, 640));
        // The text row is not blank: some pixels are darker than the background.
        let text = layout.nodes.iter().find(|p| matches!(p.view.kind, Kind::Text { .. })).unwrap().rect;
        let dark = (text.y..text.y + text.h)
            .flat_map(|y| (0..360).map(move |x| (x, y)))
            .filter(|&(x, y)| pixmap.pixel(x as u32, y as u32).map(|p| p.red() < 100).unwrap_or(false))
            .count();
        assert!(dark > 20, "expected glyph pixels, found {dark}");
        let shot = render_screenshot(&layout, &Theme::default()).unwrap();
        let png = shot.png();
        assert_eq!(&png[1..4], b"PNG");
        // It decodes back to the same pixels.
        let back = Pixmap::decode_png(png).unwrap();
        assert_eq!((back.width(), back.height()), (360, 640));
        assert_eq!(back.pixel(10, 100), pixmap.pixel(10, 100));
    }

    #[test]
    fn headings_and_unread_rows_are_set_in_bold() {
        let ink = |v: View, id: &str| {
            let layout = Layout::new(&v, Screen { width: 360, height: 200 });
            let pixmap = render(&layout, &Theme::default()).unwrap();
            let r = layout.find(id).unwrap().rect;
            // Dark pixels of the title line (the first 30 px of the row).
            (r.y..r.y + 30)
                .flat_map(|y| (0..360).map(move |x| (x, y)))
                .filter(|&(x, y)| pixmap.pixel(x as u32, y as u32).is_some_and(|p| p.red() < 100))
                .count()
        };
        let row = |bold| View::column([View::list("l", 0, [View::item("m", "Ines Osei", "Venue visit").bold(bold)])]);
        let (regular, bold) = (ink(row(false), "m"), ink(row(true), "m"));
        assert!(bold as f32 > regular as f32 * 1.3, "bold {bold} vs regular {regular}");
        let heading = |style| View::column([View::styled("Total due", style).id("t")]);
        assert!(ink(heading(TextStyle::Title), "t") > ink(heading(TextStyle::Body), "t"));
    }

    #[test]
    fn an_open_dialog_dims_all_else_and_a_ticked_box_shows_its_tick() {
        let page = View::column([View::checkbox("c", "Checked", true), View::fill(), View::item("ad", "Sponsored", "After the dialog in the tree")]);
        let dialog = View::dialog("d", "Sure?", [View::button("ok", "OK")]);
        let screen = View::stack([page.clone(), dialog]);
        let layout = Layout::new(&screen, Screen { width: 360, height: 640 });
        let dimmed = render(&layout, &Theme::default()).unwrap();
        let plain = render(&Layout::new(&page, Screen { width: 360, height: 640 }), &Theme::default()).unwrap();
        // The last row, drawn after the dialog's subtree in the tree, is still under the scrim.
        let ad = layout.find("ad").unwrap().rect;
        let (x, y) = (5, (ad.y + 2) as u32);
        assert!(dimmed.pixel(x, y).unwrap().red() < plain.pixel(x, y).unwrap().red(), "the row after the dialog is dimmed");
        // The chosen box carries a tick in the colour on the primary (white by default).
        let c = layout.find("c").unwrap().rect;
        let (bx, by) = crate::icons::CHECKBOX;
        let tick = (0..24)
            .flat_map(|dx| (0..24).map(move |dy| (dx, dy)))
            .filter(|&(dx, dy)| plain.pixel((c.x as f32 + bx) as u32 + dx, (c.y as f32 + by) as u32 + dy).is_some_and(|p| p.red() > 200 && p.blue() > 200));
        assert!(tick.count() > 20, "a tick on the box");
    }

    #[test]
    fn a_multiline_field_wraps_its_text_inside_its_frame() {
        let text = "The door code for Room 2A is 7769, and the alarm code is 4411.";
        let v = View::column([View::multiline_field("body", text, "Note", false)]);
        let layout = Layout::new(&v, Screen { width: 360, height: 400 });
        let pixmap = render(&layout, &Theme::default()).unwrap();
        let f = layout.find("body").unwrap().rect;
        // The second line's band (one line height, 21.6 px at this scale, under the first) is inked.
        let second = f.y + 22 + 22..f.y + 22 + 22 + 16;
        assert!(second.clone().any(|y| (f.x..f.x + f.w).any(|x| pixmap.pixel(x as u32, y as u32).is_some_and(|p| p.red() < 100))), "a second line");
        // Nothing is drawn right of the frame.
        let right = (f.x + f.w - 16 + 1) as u32;
        assert!((f.y..f.y + f.h).all(|y| pixmap.pixel(right, y as u32).is_some_and(|p| p.red() > 200)));
    }

    #[test]
    fn a_raised_button_casts_its_shadow_below_it() {
        let v = View::column([View::spacer(40.0), View::fab("new", "New note")]);
        let layout = Layout::new(&v, Screen { width: 360, height: 200 });
        let pixmap = render(&layout, &Theme::default()).unwrap();
        let r = layout.find("new").unwrap().rect;
        let (x, below) = ((r.x + r.w / 2) as u32, (r.y + r.h + 1) as u32);
        let shade = pixmap.pixel(x, below).unwrap();
        let ground = pixmap.pixel(x, (r.y - 4) as u32).unwrap();
        assert!(shade.red() < ground.red(), "a darker line under the button: {shade:?} vs {ground:?}");
    }

    #[test]
    fn same_view_gives_identical_pixels() {
        let v = View::column([View::text("Deterministic"), View::checkbox("c", "Check", true)]);
        let l = Layout::new(&v, Screen { width: 360, height: 400 });
        let (a, b) = (render_screenshot(&l, &Theme::default()).unwrap(), render_screenshot(&l, &Theme::default()).unwrap());
        assert_eq!(a.rgba(), b.rgba());
        assert_eq!(a.png(), b.png());
    }
}
