//! HTML: a laid-out view tree as a page of absolutely positioned elements, so that a real
//! browser shows the same screen at the same places as the native raster, and its hit testing
//! lands on the same nodes. Elements carry `data-gid` (the UI-tree id) and `data-role`; the
//! web backend's script turns browser events on them into shell actions.

use crate::icons::Shape;
use crate::layout::{label_fits, Layout, BUBBLE_PAD, CARD_INSET, CHIP_GAP, FAB_LABEL_X, NAV_HANDLE};
use crate::theme::{Rgb, Theme};
use crate::theme::{BAR_TINT, CHOSEN_TINT};
use crate::view::{Kind, Leading, TabLook, TextStyle};

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn css(rgb: Rgb) -> String {
    format!("rgb({},{},{})", rgb[0], rgb[1], rgb[2])
}

/// The screen's elements (no document around them). Boxes are given in dp and each element
/// wears the world's display zoom (CSS `zoom`), so that its box, text, padding and icons grow
/// together as the native layout's do (`Layout::scale` includes the zoom).
pub fn render_body(layout: &Layout<'_>, theme: &Theme) -> String {
    let scale = layout.scale();
    let zoom = if (layout.zoom - 1.0).abs() > f32::EPSILON { format!(";zoom:{}", layout.zoom) } else { String::new() };
    let mut out = String::with_capacity(layout.nodes.len() * 160);
    let live = layout.touchable();
    for (i, p) in layout.nodes.iter().enumerate() {
        let v = p.view;
        let r = p.visible;
        let (x, y, w, h) = (r.x as f32 / scale, r.y as f32 / scale, r.w.max(0) as f32 / scale, r.h.max(0) as f32 / scale);
        // Every node of the layout is an element naming its parent, so the browser's UI tree
        // has the native one's nodes (the web backend reads it back through `data-parent`).
        let parent = p.parent.map(|i| format!(" data-parent=\"{}\"", esc(&layout.nodes[i].id))).unwrap_or_default();
        let base = format!(
            "data-gid=\"{}\" data-role=\"{}\"{parent}{} style=\"left:{x:.2}px;top:{y:.2}px;width:{w:.2}px;height:{h:.2}px;z-index:{}{zoom}",
            esc(&p.id),
            v.role(),
            if live.contains(&i) { "" } else { " data-covered=\"true\"" },
            i + if layout.modal.is_some_and(|m| i >= m && i < layout.nodes[m].end) { 10_000 } else { 0 }
        );
        // A node cut by its list's edge is exactly its visible slice: no padding or border may
        // grow it past the list, where it would take taps meant for what lies beyond.
        let base =
            if p.visible.h < p.rect.h || p.visible.w < p.rect.w { format!("{base};padding-top:0;padding-bottom:0;border-width:0;margin:0") } else { base };
        // What an open dialog covers is offered as nothing, as in the native UI tree.
        let disabled = if v.enabled && live.contains(&i) { "" } else { " aria-disabled=\"true\"" };
        // Nothing of it can be seen: drawn transparent and untouchable at no size, so the
        // browser still exposes its name and states as the native tree has them.
        let base = if r.w <= 0 || r.h <= 0 { format!("{base};opacity:0;pointer-events:none;overflow:hidden;padding:0;border-width:0;margin:0") } else { base };
        let el = match &v.kind {
            // Named by its time, as the native node is (the text inside repeats it and is dropped).
            Kind::StatusBar { time, icons } => format!(
                "<div {base};background:{}\" class=\"status\" role=\"status\" aria-label=\"{}\">{}{}</div>",
                css(theme.surface),
                esc(time),
                esc(time),
                svg(inked(crate::icons::status_shapes(icons, w, h), theme.text, theme.surface), w, h)
            ),
            Kind::AppBar { title } => {
                format!("<div {base};background:{};color:{}\" class=\"appbar\" role=\"heading\">{}</div>", css(theme.primary), css(theme.on_primary), esc(title))
            }
            Kind::Text { text, style } => {
                let class = match style {
                    TextStyle::Title => "title",
                    TextStyle::Body => "body",
                    TextStyle::Caption => "caption",
                };
                format!("<div {base}\" class=\"text {class}\">{}</div>", esc(text).replace('\n', "<br>"))
            }
            Kind::Button { label, danger } => {
                let bg = if !v.enabled { theme.divider } else if *danger { theme.danger } else { theme.primary };
                // The button is drawn inset 16 dp from its box, as the raster draws it.
                let small = if label_fits(label, w - 2.0 * crate::layout::PAD) { "" } else { " small" };
                format!("<button {base}\" class=\"btn{small}\"{disabled}><span style=\"background:{}\">{}</span></button>", css(bg), esc(label))
            }
            Kind::Fab { label } => {
                let bg = if v.enabled { theme.primary } else { theme.divider };
                let (ix, iy) = crate::icons::FAB_ICON;
                format!(
                    "<button {base};background:{};color:{}\" class=\"fab\"{disabled}>{}{}</button>",
                    css(bg),
                    css(theme.on_primary),
                    svg(inked(crate::icons::plus(ix, iy), theme.on_primary, bg), w, h),
                    esc(label)
                )
            }
            Kind::TextField { value, placeholder, focused, multiline } => {
                let focus = if *focused { " data-focused=\"1\"" } else { "" };
                let (value, placeholder) = (esc(value), esc(placeholder));
                if *multiline {
                    // A text area keeps the value's line breaks (an input drops them); the
                    // parser drops one newline after the opening tag, so one is put there.
                    format!(
                        "<textarea {base}\" class=\"field multi\" placeholder=\"{placeholder}\" aria-label=\"{placeholder}\"{focus}{disabled}>\n{value}</textarea>"
                    )
                } else {
                    format!("<input {base}\" class=\"field\" type=\"text\" value=\"{value}\" placeholder=\"{placeholder}\" aria-label=\"{placeholder}\"{focus}{disabled}>")
                }
            }
            Kind::Item { title, subtitle, trailing, leading, bold, card } => {
                // What leads the row is hidden from the tree: the row's name is its text.
                let (class, lead) = match leading {
                    Some(Leading::Avatar(name)) => {
                        let (initials, rgb) = crate::icons::avatar(name);
                        (" lead", format!("<span class=\"avatar\" aria-hidden=\"true\" style=\"background:{}\">{}</span>", css(rgb), esc(&initials)))
                    }
                    Some(Leading::Picture(name)) => {
                        let side = crate::icons::PICTURE;
                        (" pic", format!("<span class=\"picture\">{}</span>", scene_svg(&crate::icons::picture(name), side, side)))
                    }
                    None => ("", String::new()),
                };
                let class = format!("{class}{}{}", if *bold { " strong" } else { "" }, if *card { " card" } else { "" });
                // The row is drawn whole inside its element, which is the part of it that can be
                // seen: a row cut by its list's edge shows its own top or foot, as the raster does.
                let (dy, full) = ((p.rect.y - p.visible.y) as f32 / scale, p.rect.h as f32 / scale);
                // A card's frame is the row inset.
                let (dy, full) = if *card { (dy + CARD_INSET.1, full - 2.0 * CARD_INSET.1) } else { (dy, full) };
                format!(
                    "<div {base}\" class=\"item{class}\" role=\"button\" aria-label=\"{}\"{disabled}><span class=\"row\" style=\"top:{dy:.2}px;height:{full:.2}px\">{lead}<span class=\"line\"><b>{}</b><i>{}</i></span><small>{}</small></span></div>",
                    esc(&v.label()),
                    esc(title),
                    esc(trailing),
                    esc(subtitle)
                )
            }
            Kind::Bubble { meta, mine, text } => {
                let (ground, ink, small) = theme.bubble(*mine);
                format!(
                    "<div {base};background:{};color:{}\" class=\"bubble\" role=\"button\" aria-label=\"{}\"{disabled}>{}<small style=\"color:{}\">{}</small></div>",
                    css(ground),
                    css(ink),
                    esc(&v.label()),
                    esc(text),
                    css(small),
                    esc(meta)
                )
            }
            Kind::Checkbox { label, checked } => {
                let (bx, by) = crate::icons::CHECKBOX;
                let tick = if *checked { svg(inked(crate::icons::tick(bx, by), theme.on_primary, theme.primary), w, h) } else { String::new() };
                format!("<div {base}\" class=\"check\" role=\"checkbox\" aria-checked=\"{checked}\"{disabled}>{}{tick}</div>", esc(label))
            }
            Kind::Switch { label, on } => {
                format!("<div {base}\" class=\"check\" role=\"switch\" aria-checked=\"{on}\"{disabled}>{}</div>", esc(label))
            }
            Kind::Tabs { look } => format!("<div {base}\" class=\"tabs {}\" role=\"tablist\"></div>", look_class(*look)),
            Kind::Tab { label, selected, look, icon } => {
                // A navigation bar's icon sits on its pill (64 × 32 dp, the icon 24 dp in its middle).
                let pill = match icon {
                    Some(icon) => {
                        let (ink, ground) = theme.destination(*selected);
                        format!("<span class=\"pill\">{}</span>", svg(inked(icon.shapes(20.0, 4.0, 24.0), ink, ground), 64.0, 32.0))
                    }
                    None => String::new(),
                };
                format!(
                    "<div {base}\" class=\"tab {}{}\" role=\"tab\" aria-selected=\"{selected}\">{pill}<span>{}</span></div>",
                    look_class(*look),
                    if *selected { " on" } else { "" },
                    esc(label)
                )
            }
            Kind::Dialog { title } => format!(
                "<div class=\"scrim\" style=\"z-index:{}\"></div><div {base};background:{}\" class=\"dialog\" role=\"dialog\" aria-label=\"{}\"><div class=\"title\">{}</div></div>",
                9_999,
                css(theme.surface),
                esc(title),
                esc(title)
            ),
            Kind::Icon { label, picture, color } => format!(
                "<div {base}\" class=\"icon\" role=\"button\" aria-label=\"{}\"><span style=\"background:{}\">{}</span><small>{}</small></div>",
                esc(label),
                css(*color),
                svg(inked(crate::icons::tile_shapes(*picture), [255, 255, 255], *color), crate::icons::TILE, crate::icons::TILE),
                esc(label)
            ),
            Kind::Snackbar { text } => format!("<div {base}\" class=\"snack\"><span>{}</span></div>", esc(text)),
            Kind::NavBar => format!("<div {base};pointer-events:none\" class=\"nav\"><span aria-hidden=\"true\"></span></div>"),
            Kind::Image { scene, .. } => image(&base, &v.label(), scene, w, h),
            Kind::Map { key, places, target, route, .. } => {
                let places: Vec<&str> = places.iter().map(String::as_str).collect();
                image(&base, &v.label(), &crate::icons::map(key, &places, target.as_deref(), *route, w, h), w, h)
            }
            Kind::List { .. } => format!("<div {base}\" class=\"list\" role=\"list\"></div>"),
            // Draws nothing and takes no taps: there for the tree.
            Kind::Column | Kind::Row | Kind::Stack | Kind::Spacer { .. } | Kind::Fill => format!("<div {base};pointer-events:none\"></div>"),
        };
        out.push_str(&el);
    }
    out
}

/// A scene as an image element named by its description (none for a decoration).
fn image(base: &str, label: &str, scene: &crate::icons::Scene, w: f32, h: f32) -> String {
    let named = if label.is_empty() { String::new() } else { format!(" role=\"img\" aria-label=\"{}\"", esc(label)) };
    format!("<div {base};overflow:hidden;pointer-events:none\"{named}>{}</div>", scene_svg(scene, w, h))
}

/// A scene's polygons, each in its colour, as an inline SVG of `w` × `h` dp.
fn scene_svg(scene: &crate::icons::Scene, w: f32, h: f32) -> String {
    svg(scene.iter().map(|(points, rgb)| (Shape::Polygon { points: points.clone(), cut: false }, *rgb)), w, h)
}

fn look_class(look: TabLook) -> &'static str {
    match look {
        TabLook::Strip => "strip",
        TabLook::Chips => "chips",
        TabLook::Bar => "bar",
    }
}

/// Icon shapes with their colours: `ink`, or `hole` for a cut shape.
fn inked(shapes: Vec<Shape>, ink: Rgb, hole: Rgb) -> impl Iterator<Item = (Shape, Rgb)> {
    shapes.into_iter().map(move |shape| {
        let cut = match shape {
            Shape::Rect { cut, .. } | Shape::Polygon { cut, .. } => cut,
        };
        (shape, if cut { hole } else { ink })
    })
}

/// Shapes, each in its colour, as one inline SVG of `w` × `h` dp over its element, hidden from
/// the accessibility tree: the native UI tree has no nodes for them.
fn svg(shapes: impl IntoIterator<Item = (Shape, Rgb)>, w: f32, h: f32) -> String {
    let mut out =
        format!("<svg aria-hidden=\"true\" style=\"position:absolute;left:0;top:0\" width=\"{w:.2}\" height=\"{h:.2}\" viewBox=\"0 0 {w:.2} {h:.2}\">");
    for (shape, rgb) in shapes {
        let fill = css(rgb);
        out.push_str(&match shape {
            Shape::Rect { x, y, w, h, radius, .. } => {
                format!("<rect x=\"{x:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{h:.2}\" rx=\"{radius:.2}\" fill=\"{fill}\"/>")
            }
            Shape::Polygon { points, .. } => {
                let points: Vec<String> = points.iter().map(|(x, y)| format!("{x:.2},{y:.2}")).collect();
                format!("<polygon points=\"{}\" fill=\"{fill}\"/>", points.join(" "))
            }
        });
    }
    out.push_str("</svg>");
    out
}

/// The stylesheet the page uses, for a theme. A field is drawn as the native raster draws it,
/// inset from its box (16 × 6 dp, through a transparent border) with a 2 dp frame, while the
/// whole box still takes taps, as the native hit test does.
pub fn stylesheet(theme: &Theme) -> String {
    format!(
        "*{{box-sizing:border-box;margin:0;padding:0}}\
         html,body{{width:100%;height:100%;overflow:hidden;background:{bg};color:{text};font:16px 'DejaVu Sans',sans-serif;font-kerning:none;font-variant-ligatures:none}}\
         #screen>*{{position:absolute;box-sizing:border-box}}\
         .status{{font-size:13px;padding:4px 16px}}\
         .appbar{{font-size:22px;padding:14px 16px}}\
         .text{{padding:calc(4px - 0.093em) 16px 4px;line-height:1.35;overflow:hidden}} .title{{font-size:22px}} .text.title{{font-weight:bold}} .caption{{font-size:13px;color:{muted}}}\
         button,input,textarea{{font:inherit;color:inherit}}\
         .btn{{border:0;background:transparent;padding:6px 16px}}\
         .btn span{{display:flex;align-items:center;justify-content:center;width:100%;height:100%;border-radius:10px;color:{on_primary};font-size:16px}}\
         .btn.small span{{font-size:13px;line-height:1.35;padding:0 {label_margin}px;text-align:center}}\
         .field{{border:solid transparent;border-width:6px 16px;border-radius:24px/14px;background:{surface} padding-box;box-shadow:inset 0 0 0 2px {divider};margin:0;padding:0 14px;font-size:16px;outline:none}}\
         .field[data-focused]{{box-shadow:inset 0 0 0 2px {primary}}}\
         .field::placeholder{{color:{muted};opacity:1}}\
         .multi{{padding-top:14.5px;line-height:1.35;resize:none;overflow:hidden;white-space:pre-wrap}}\
         .item{{background:{surface};overflow:hidden}} .row{{position:absolute;left:0;width:100%;border-bottom:1px solid {divider};padding:10px 16px}}\
         .line{{display:flex}} .item b{{flex:1;min-width:0;font-weight:normal;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}} .item.strong b{{font-weight:bold}} .item small{{display:block;color:{muted};font-size:13px;margin-top:9.7px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}}\
         .item i{{flex:none;margin:2px 0 0 8px;font-style:normal;font-size:13px;color:{muted}}} .item i:empty{{margin:0}}\
         .item.lead .row{{padding-left:72px}} .avatar{{position:absolute;left:16px;top:calc(50% - 20px);width:40px;height:40px;border-radius:50%;color:#fff;display:flex;align-items:center;justify-content:center}}\
         .item.card{{background:transparent}} .item.card .row{{left:{card_x}px;width:calc(100% - {card_w}px);border:1px solid {divider};border-radius:12px;background:{surface};padding:{card_py}px 15px}}\
         .item.card .avatar,.item.card .picture{{left:15px}}\
         .item.pic .row{{padding-left:88px}} .picture{{position:absolute;left:16px;top:calc(50% - 28px);width:56px;height:56px}}\
         .check{{padding:14px 16px}}\
         [role=checkbox]{{padding-left:56px}} [role=checkbox]::before{{content:'';position:absolute;left:16px;top:14px;width:24px;height:24px;box-sizing:border-box;border:2px solid {muted};border-radius:4px;background:{surface}}}\
         [role=checkbox][aria-checked=true]::before{{border-color:{primary};background:{primary}}}\
         [role=switch]::after{{content:'';position:absolute;right:16px;top:14px;width:48px;height:24px;border-radius:12px;background:{divider}}}\
         [role=switch]::before{{content:'';position:absolute;z-index:1;right:42px;top:16px;width:20px;height:20px;border-radius:10px;background:{surface}}}\
         [role=switch][aria-checked=true]::after{{background:{primary}}} [role=switch][aria-checked=true]::before{{right:18px}}\
         .tabs.strip{{background:{surface}}} .tabs.bar{{background:{bar}}}\
         .tab.strip{{display:flex;align-items:center;justify-content:center;color:{muted}}} .tab.strip.on{{color:{primary};box-shadow:inset 0 -3px 0 {primary}}}\
         .tab.chips span{{position:absolute;left:0;top:8px;right:{chip_gap}px;bottom:8px;display:flex;align-items:center;justify-content:center;border:1px solid {divider};border-radius:8px;font-size:13px}}\
         .tab.chips.on span{{background:{chosen};border-color:{chosen}}}\
         .tab.bar{{text-align:center;color:{muted};font-size:13px;padding-top:50px}} .tab.bar.on{{color:{text};font-weight:bold}}\
         .tab.bar .pill{{position:absolute;left:calc(50% - 32px);top:12px;width:64px;height:32px;border-radius:16px}} .tab.bar.on .pill{{background:{chosen}}}\
         .scrim{{position:fixed;left:0;top:0;width:100%;height:100%;background:rgba(0,0,0,.43)}}\
         .dialog{{border-radius:16px}} .dialog .title{{font-size:22px;padding:12px 16px}}\
         .icon{{text-align:center}} .icon span{{display:block;position:relative;margin:6px auto 4px;width:56px;height:56px;border-radius:14px}}\
         .icon small{{font-size:13px}}\
         .fab{{border:0;border-radius:16px;padding:0 0 0 {fab_x}px;text-align:left;white-space:nowrap;overflow:hidden;font-size:16px;font-weight:bold;box-shadow:{shadow}}}\
         .bubble{{border-radius:16px;padding:{bpy}px {bpx}px;line-height:1.35;overflow:hidden;overflow-wrap:anywhere}} .bubble small{{display:block;font-size:13px;margin-top:2px;line-height:1.35}}\
         .snack{{padding:8px}} .snack span{{display:flex;align-items:center;width:100%;height:100%;padding:0 16px;border-radius:4px;background:{text};color:{surface};font-size:13px;line-height:1.35}}\
         .nav span{{position:absolute;left:calc(50% - {hw}px);top:calc(50% - {hh}px);width:{w}px;height:{h}px;border-radius:{hh}px;background:{muted}}}",
        bg = css(theme.background),
        text = css(theme.text),
        muted = css(theme.muted),
        divider = css(theme.divider),
        primary = css(theme.primary),
        surface = css(theme.surface),
        on_primary = css(theme.on_primary),
        fab_x = FAB_LABEL_X,
        chip_gap = CHIP_GAP,
        label_margin = crate::layout::BUTTON_LABEL_MARGIN,
        card_x = CARD_INSET.0,
        card_w = 2.0 * CARD_INSET.0,
        card_py = 10.0 - CARD_INSET.1 - 1.0,
        bpx = BUBBLE_PAD.0,
        bpy = BUBBLE_PAD.1,
        bar = css(theme.tint(BAR_TINT)),
        chosen = css(theme.tint(CHOSEN_TINT)),
        shadow = crate::icons::ELEVATION.map(|(dy, spread, alpha)| format!("0 {dy}px 0 {spread}px rgba(0,0,0,{:.3})", alpha as f32 / 255.0)).join(","),
        w = NAV_HANDLE.0,
        h = NAV_HANDLE.1,
        hw = NAV_HANDLE.0 / 2.0,
        hh = NAV_HANDLE.1 / 2.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Screen, View};

    #[test]
    fn elements_sit_where_layout_puts_them() {
        let v = View::column([View::app_bar("Mail <inbox>"), View::button("send", "Send"), View::field("to", "a&b", "To", true)]);
        let layout = Layout::new(&v, Screen::PHONE);
        let html = render_body(&layout, &Theme::default());
        assert!(html.contains("data-gid=\"send\""));
        assert!(html.contains("Mail &lt;inbox&gt;"), "text is escaped");
        assert!(html.contains("value=\"a&amp;b\""));
        assert!(html.contains("data-focused=\"1\""));
        // The button's box: layout pixels divided by the density (3).
        let b = layout.find("send").unwrap().visible;
        assert!(html.contains(&format!("top:{:.2}px", b.y as f32 / 3.0)));
    }
}
