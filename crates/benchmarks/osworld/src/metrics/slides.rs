//! `compare_pptx_files`: two slide decks judged as OSWorld judges them (python-pptx's view of
//! a pptx): slide count, per slide background, notes and shape count, per shape geometry
//! within a relative tolerance, text, paragraphs (alignment, level), runs (font name, size,
//! bold, italic, underline, strike, colour when both are explicit), and the slide's bullets.

use std::path::Path;

use serde_json::Value;

use super::opt;
use super::xml::{Element, Package};

/// What the comparison needs of one slide.
struct Slide {
    root: Element,
    background: Option<String>,
    notes: String,
    /// Geometry of each top-level shape, inherited from the layout and master for
    /// placeholders that do not set their own.
    geometry: Vec<[Option<i64>; 4]>,
}

struct Deck {
    slides: Vec<Slide>,
}

const SHAPES: &[&str] = &["sp", "grpSp", "graphicFrame", "cxnSp", "pic", "contentPart"];

fn shapes(tree: &Element) -> Vec<&Element> {
    tree.elements().filter(|e| SHAPES.contains(&e.name.as_str())).collect()
}

fn sp_tree(root: &Element) -> Option<&Element> {
    root.path(&["cSld", "spTree"])
}

fn xfrm(shape: &Element) -> Option<&Element> {
    match shape.name.as_str() {
        "graphicFrame" => shape.child("xfrm"),
        "grpSp" => shape.path(&["grpSpPr", "xfrm"]),
        _ => shape.path(&["spPr", "xfrm"]),
    }
}

fn own_geometry(shape: &Element) -> Option<[Option<i64>; 4]> {
    let x = xfrm(shape)?;
    let num = |e: Option<&Element>, a: &str| e.and_then(|e| e.attr(a)).and_then(|v| v.parse().ok());
    let (off, ext) = (x.child("off"), x.child("ext"));
    Some([num(off, "x"), num(off, "y"), num(ext, "cx"), num(ext, "cy")])
}

/// A shape's placeholder (type, idx), when it is one.
fn placeholder(shape: &Element) -> Option<(String, String)> {
    let nv = shape.elements().find(|e| e.name.starts_with("nv"))?;
    let ph = nv.path(&["nvPr", "ph"])?;
    Some((ph.attr("type").unwrap_or("obj").to_string(), ph.attr("idx").unwrap_or("0").to_string()))
}

/// The master placeholder type a layout placeholder inherits from.
fn master_type(kind: &str) -> &str {
    match kind {
        "ctrTitle" | "title" => "title",
        "dt" | "ftr" | "sldNum" => kind,
        _ => "body",
    }
}

fn solid_srgb(parent: Option<&Element>) -> Option<String> {
    parent?.path(&["solidFill", "srgbClr"])?.attr("val").map(str::to_uppercase)
}

/// A paragraph's text as python-pptx gives it: runs and fields, a line break as `\v`.
pub(super) fn paragraph_text(p: &Element) -> String {
    let mut text = String::new();
    for e in p.elements() {
        match e.name.as_str() {
            "r" | "fld" => text.push_str(&e.child("t").map(Element::own_text).unwrap_or_default()),
            "br" => text.push('\u{b}'),
            _ => {}
        }
    }
    text
}

/// A text body's paragraphs; a shape without one reads as one empty paragraph (python-pptx
/// adds the body on access).
pub(super) fn paragraphs(body: Option<&Element>) -> Vec<Element> {
    match body {
        Some(b) => b.all("p").cloned().collect(),
        None => vec![Element { name: "p".into(), ..Element::default() }],
    }
}

fn frame_text(body: Option<&Element>) -> String {
    paragraphs(body).iter().map(paragraph_text).collect::<Vec<_>>().join("\n")
}

impl Deck {
    fn empty() -> Deck {
        Deck { slides: Vec::new() }
    }

    fn open(path: &Path) -> Result<Deck, String> {
        let mut package = Package::open(path)?;
        let presentation = package.xml("ppt/presentation.xml")?.ok_or("pptx without ppt/presentation.xml")?;
        let rels = package.related("ppt/presentation.xml", "slide")?;
        let mut slides = Vec::new();
        for id in presentation.path(&["sldIdLst"]).map(|l| l.all("sldId").collect::<Vec<_>>()).unwrap_or_default() {
            let target = id.rel_id().and_then(|rid| rels.iter().find(|(r, _)| r == rid)).map(|(_, t)| t.clone());
            let part = target.ok_or("a slide id without its relationship")?;
            slides.push(Self::slide(&mut package, &part)?);
        }
        Ok(Deck { slides })
    }

    fn slide(package: &mut Package, part: &str) -> Result<Slide, String> {
        let root = package.xml(part)?.ok_or_else(|| format!("{part} is missing"))?;
        let layout_part = package.related(part, "slideLayout")?.into_iter().next().map(|(_, t)| t);
        let layout = match &layout_part {
            Some(p) => package.xml(p)?,
            None => None,
        };
        let master = match &layout_part {
            Some(p) => match package.related(p, "slideMaster")?.into_iter().next() {
                Some((_, m)) => package.xml(&m)?,
                None => None,
            },
            None => None,
        };
        let notes = match package.related(part, "notesSlide")?.into_iter().next() {
            Some((_, n)) => package.xml(&n)?.map(|notes| {
                let body = sp_tree(&notes).and_then(|t| t.all("sp").find(|s| placeholder(s).is_some_and(|(k, _)| k == "body")));
                frame_text(body.and_then(|b| b.child("txBody")))
            }),
            None => None,
        }
        .unwrap_or_default();
        // A slide's own solid fill, else (no fill of its own) the master's.
        let bg_pr = root.path(&["cSld", "bg", "bgPr"]);
        let inherits = bg_pr.is_none_or(|b| b.child("noFill").is_some());
        let background = if inherits { solid_srgb(master.as_ref().and_then(|m| m.path(&["cSld", "bg", "bgPr"]))) } else { solid_srgb(bg_pr) };
        let find_ph = |root: Option<&Element>, matches: &dyn Fn(&(String, String)) -> bool| -> Option<[Option<i64>; 4]> {
            let tree = sp_tree(root?)?;
            shapes(tree).into_iter().find(|s| placeholder(s).is_some_and(|p| matches(&p))).and_then(own_geometry)
        };
        let geometry = sp_tree(&root)
            .map(shapes)
            .unwrap_or_default()
            .into_iter()
            .map(|shape| {
                own_geometry(shape)
                    .or_else(|| {
                        let (kind, idx) = placeholder(shape)?;
                        let from_layout = find_ph(layout.as_ref(), &|(_, i)| *i == idx);
                        let layout_kind = layout
                            .as_ref()
                            .and_then(sp_tree)
                            .and_then(|t| shapes(t).into_iter().find_map(|s| placeholder(s).filter(|(_, i)| *i == idx)))
                            .map(|(k, _)| k)
                            .unwrap_or(kind);
                        from_layout.or_else(|| find_ph(master.as_ref(), &|(k, _)| k == master_type(&layout_kind)))
                    })
                    .unwrap_or([None; 4])
            })
            .collect();
        Ok(Slide { root, background, notes, geometry })
    }
}

/// One run's font as python-pptx reports it.
#[derive(PartialEq)]
struct Font {
    name: Option<String>,
    size: Option<String>,
    bold: Option<bool>,
    italic: Option<bool>,
    underline: Option<String>,
    strike: String,
    color: Option<String>,
}

fn tri(v: Option<&str>) -> Option<bool> {
    v.map(|v| matches!(v, "1" | "true" | "on"))
}

fn font(run: &Element) -> Font {
    let pr = run.child("rPr");
    let a = |n: &str| pr.and_then(|p| p.attr(n));
    Font {
        name: pr.and_then(|p| p.child("latin")).and_then(|l| l.attr("typeface")).map(String::from),
        size: a("sz").map(String::from),
        bold: tri(a("b")),
        italic: tri(a("i")),
        underline: a("u").map(String::from),
        strike: a("strike").unwrap_or("noStrike").to_string(),
        color: solid_srgb(pr),
    }
}

/// Unset and off are the same for bold and italic.
fn same_flag(a: Option<bool>, b: Option<bool>) -> bool {
    a.unwrap_or(false) == b.unwrap_or(false)
}

/// Underline as OSWorld compares it: two set values (`none` False, `sng` True, or another
/// style) must be equal; unset differs only from a plain single underline.
fn same_underline(a: &Option<String>, b: &Option<String>) -> bool {
    match (a.as_deref(), b.as_deref()) {
        (Some(x), Some(y)) => x == y,
        (None, Some(x)) | (Some(x), None) => x != "sng",
        (None, None) => true,
    }
}

fn approx(a: Option<i64>, b: Option<i64>, tolerance: f64) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b || (a != 0 && b != 0 && (a - b).abs() as f64 / a.abs().max(b.abs()) as f64 <= tolerance),
        (None, None) => true,
        _ => false,
    }
}

/// The slide's bullets: for every paragraph with text, (level, bullet character, text).
/// `None` when the slide has an empty `a:t`, on which OSWorld's extraction fails and is skipped.
/// `touched` paragraphs are those python-pptx has already given an empty `a:pPr` by the time
/// OSWorld reads the bullets (reading a paragraph's alignment or level adds one), so they
/// count as having properties.
fn bullets(root: &Element, touched: &[&Element]) -> Option<Vec<(String, String, String)>> {
    let mut ps = Vec::new();
    root.descendants_all("p", &mut ps);
    let mut out = Vec::new();
    for p in ps {
        let mut ts = Vec::new();
        p.descendants_all("t", &mut ts);
        if ts.iter().any(|t| t.children.is_empty()) {
            return None;
        }
        let text: String = ts.iter().map(|t| t.own_text()).collect();
        if text.trim().is_empty() {
            continue;
        }
        let (level, char) = match p.child("pPr") {
            Some(pr) => (pr.attr("lvl").unwrap_or("0").to_string(), pr.child("buChar").and_then(|b| b.attr("char")).unwrap_or("No Bullet").to_string()),
            None if touched.iter().any(|t| std::ptr::eq(*t, p)) => ("0".to_string(), "No Bullet".to_string()),
            None => ("No Level".to_string(), "No Bullet".to_string()),
        };
        out.push((level, char, text));
    }
    Some(out)
}

/// Every text shape of a slide, groups entered.
fn text_shapes<'a>(tree: &'a Element, out: &mut Vec<&'a Element>) {
    for s in shapes(tree) {
        if s.name == "sp" {
            out.push(s);
        }
        if s.name == "grpSp" {
            text_shapes(s, out);
        }
    }
}

fn alignment(p: &Element) -> String {
    p.child("pPr").and_then(|pr| pr.attr("algn")).unwrap_or("l").to_string()
}

fn level(p: &Element) -> String {
    p.child("pPr").and_then(|pr| pr.attr("lvl")).unwrap_or("0").to_string()
}

struct Checks {
    slides: bool,
    shape: bool,
    text: bool,
    indent: bool,
    font_name: bool,
    font_size: bool,
    bold: bool,
    italic: bool,
    color: bool,
    underline: bool,
    strike: bool,
    alignment: bool,
    bullets: bool,
    background: bool,
    note: bool,
    tolerance: f64,
}

/// The run-level checks shared by text shapes and table cells.
fn same_runs(c: &Checks, r1: &[&Element], r2: &[&Element], fonts_and_size: bool) -> bool {
    r1.len() == r2.len()
        && r1.iter().zip(r2).all(|(a, b)| {
            let (f, g) = (font(a), font(b));
            (!fonts_and_size || !c.font_name || f.name == g.name)
                && (!fonts_and_size || !c.font_size || f.size == g.size)
                && (!c.bold || same_flag(f.bold, g.bold))
                && (!c.italic || same_flag(f.italic, g.italic))
                && (!c.color || f.color.is_none() || g.color.is_none() || f.color == g.color)
                && (!c.underline || same_underline(&f.underline, &g.underline))
                && (!fonts_and_size || !c.strike || f.strike == g.strike)
        })
}

fn same_table(c: &Checks, s1: &Element, s2: &Element) -> bool {
    let table = |s: &Element| s.path(&["graphic", "graphicData", "tbl"]).cloned();
    let (Some(t1), Some(t2)) = (table(s1), table(s2)) else { return true };
    let cols = |t: &Element| t.child("tblGrid").map(|g| g.all("gridCol").count()).unwrap_or(0);
    let rows1: Vec<&Element> = t1.all("tr").collect();
    let rows2: Vec<&Element> = t2.all("tr").collect();
    if rows1.len() != rows2.len() || cols(&t1) != cols(&t2) {
        return false;
    }
    rows1.iter().zip(&rows2).all(|(a, b)| {
        a.all("tc").zip(b.all("tc")).all(|(x, y)| {
            let (p1, p2) = (paragraphs(x.child("txBody")), paragraphs(y.child("txBody")));
            p1.len() == p2.len() && p1.iter().zip(&p2).all(|(q, r)| same_runs(c, &q.all("r").collect::<Vec<_>>(), &r.all("r").collect::<Vec<_>>(), false))
        })
    })
}

fn compare_slide<'a>(c: &Checks, s1: &'a Slide, s2: &'a Slide) -> bool {
    if c.background && s1.background != s2.background {
        return false;
    }
    if c.note && s1.notes.trim() != s2.notes.trim() {
        return false;
    }
    let (Some(t1), Some(t2)) = (sp_tree(&s1.root), sp_tree(&s2.root)) else { return sp_tree(&s1.root).is_none() && sp_tree(&s2.root).is_none() };
    let (shapes1, shapes2) = (shapes(t1), shapes(t2));
    if shapes1.len() != shapes2.len() {
        return false;
    }
    let (mut touched1, mut touched2): (Vec<&Element>, Vec<&Element>) = (Vec::new(), Vec::new());
    for (i, (a, b)) in shapes1.iter().zip(&shapes2).enumerate() {
        let (g1, g2) = (s1.geometry[i], s2.geometry[i]);
        if c.shape && !(0..4).all(|k| approx(g1[k], g2[k], c.tolerance)) {
            return false;
        }
        if a.name == "graphicFrame" && !same_table(c, a, b) {
            return false;
        }
        if a.name != "sp" || b.name != "sp" {
            continue;
        }
        let (body1, body2) = (a.child("txBody"), b.child("txBody"));
        if c.text && frame_text(body1).trim() != frame_text(body2).trim() {
            return false;
        }
        let (p1, p2) = (paragraphs(body1), paragraphs(body2));
        if p1.len() != p2.len() {
            return false;
        }
        let originals = |body: Option<&'a Element>| -> Vec<&'a Element> { body.map(|b| b.all("p").collect()).unwrap_or_default() };
        let (o1, o2) = (originals(body1), originals(body2));
        for (k, (q, r)) in p1.iter().zip(&p2).enumerate() {
            touched1.extend(o1.get(k));
            touched2.extend(o2.get(k));
            if c.alignment && alignment(q) != alignment(r) {
                return false;
            }
            if c.text && paragraph_text(q) != paragraph_text(r) {
                return false;
            }
            if c.indent && level(q) != level(r) {
                return false;
            }
            let (r1, r2): (Vec<&Element>, Vec<&Element>) = (q.all("r").collect(), r.all("r").collect());
            if !same_runs(c, &r1, &r2, true) {
                return false;
            }
            // OSWorld checks the whole slide's bullets from inside its run loop (so only at a
            // paragraph with runs), and skips the check when its extraction fails.
            if c.bullets && !r1.is_empty() {
                if let (Some(b1), Some(b2)) = (bullets(&s1.root, &touched1), bullets(&s2.root, &touched2)) {
                    if b1 != b2 {
                        return false;
                    }
                }
            }
        }
    }
    let (mut ts1, mut ts2) = (Vec::new(), Vec::new());
    text_shapes(t1, &mut ts1);
    text_shapes(t2, &mut ts2);
    if ts1.len() != ts2.len() {
        return false;
    }
    if c.alignment {
        for (a, b) in ts1.iter().zip(&ts2) {
            let (body1, body2) = (a.child("txBody"), b.child("txBody"));
            if c.text && frame_text(body1).trim() != frame_text(body2).trim() {
                return false;
            }
            let (p1, p2) = (paragraphs(body1), paragraphs(body2));
            if p1.len() != p2.len() || p1.iter().zip(&p2).any(|(q, r)| alignment(q) != alignment(r)) {
                return false;
            }
        }
    }
    true
}

pub fn compare_pptx_files(result: Option<&Path>, expected: Option<&Path>, options: &Value) -> Result<f64, String> {
    // python-pptx opens "no file" as its default, empty deck; OSWorld passes a missing
    // result through, so it equals an empty expected deck.
    let result = match result {
        Some(p) => match Deck::open(p) {
            Ok(d) => d,
            Err(_) => return Ok(0.0),
        },
        None => Deck::empty(),
    };
    let expected = match expected {
        Some(p) => Deck::open(p)?,
        None => Deck::empty(),
    };
    let c = Checks {
        slides: opt(options, "examine_number_of_slides", true),
        shape: opt(options, "examine_shape", true),
        text: opt(options, "examine_text", true),
        indent: opt(options, "examine_indent", true),
        font_name: opt(options, "examine_font_name", true),
        font_size: opt(options, "examine_font_size", true),
        bold: opt(options, "examine_font_bold", true),
        italic: opt(options, "examine_font_italic", true),
        color: opt(options, "examine_color_rgb", true),
        underline: opt(options, "examine_font_underline", true),
        strike: opt(options, "examine_strike_through", true),
        alignment: opt(options, "examine_alignment", true),
        bullets: opt(options, "examine_bullets", true),
        background: opt(options, "examine_background_color", true),
        note: opt(options, "examine_note", true),
        tolerance: options.get("approximately_tolerance").and_then(Value::as_f64).unwrap_or(0.005),
    };
    if c.slides && result.slides.len() != expected.slides.len() {
        return Ok(0.0);
    }
    let same = result.slides.iter().zip(&expected.slides).all(|(a, b)| compare_slide(&c, a, b));
    Ok(if same { 1.0 } else { 0.0 })
}
