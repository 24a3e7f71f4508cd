//! The metrics OSWorld's Impress tasks use once each (desktop-env 1.0.2's `slides.py`): the
//! presenter console turned off in LibreOffice's registry, a portrait deck, a slide's
//! transition, the master's page-number colour, struck-through paragraphs, red slide numbers,
//! a picture stretched over its slide, and how near the slides' backgrounds are to a colour. Those OSWorld wrote against python-pptx read the
//! deck as python-pptx does (shapes, placeholders, runs); those it wrote against the raw XML
//! (`zipfile` and ElementTree) read the same parts by name.
//!
//! Where OSWorld raises on the agent's deck (a file that is not a deck, a colour it cannot
//! read), the result scores 0, as for the other metrics; on the task's own file or rules it
//! is the task's error.

use std::path::Path;

use serde_json::Value;

use super::docx::python_int_radix;
use super::etree::{self, Tree};
use super::slides::paragraph_text;
use super::writer::python_digit;
use super::xml::{Element, Package};
use super::{score, utf8_file};

const SHAPES: &[&str] = &["sp", "grpSp", "graphicFrame", "cxnSp", "pic", "contentPart"];
const REGISTRY: &str = "{http://openoffice.org/2001/registry}";
const P: &str = "{http://schemas.openxmlformats.org/presentationml/2006/main}";
const A: &str = "{http://schemas.openxmlformats.org/drawingml/2006/main}";
/// How far one channel must stand above the others in `check_page_number_colors`.
const THRESHOLD: i64 = 50;
/// `Inches(0.5)` in EMU.
const HALF_INCH: f64 = 457_200.0;

/// A deck as python-pptx opens it: its slides and slide masters in the presentation's order.
struct Deck {
    package: Package,
    presentation: Element,
    slides: Vec<String>,
    masters: Vec<String>,
}

impl Deck {
    fn open(path: &Path) -> Result<Deck, String> {
        let mut package = Package::open(path)?;
        let presentation = package.xml("ppt/presentation.xml")?.ok_or("a pptx without ppt/presentation.xml")?;
        let parts = |package: &mut Package, list: &str, item: &str, kind: &str| -> Result<Vec<String>, String> {
            let rels = package.related("ppt/presentation.xml", kind)?;
            let ids: Vec<&Element> = presentation.path(&[list]).map(|l| l.all(item).collect()).unwrap_or_default();
            ids.into_iter()
                .map(|id| {
                    let target = id.rel_id().and_then(|rid| rels.iter().find(|(r, _)| r == rid)).map(|(_, t)| t.clone());
                    target.ok_or_else(|| format!("a {item} without its relationship"))
                })
                .collect()
        };
        let slides = parts(&mut package, "sldIdLst", "sldId", "slide")?;
        let masters = parts(&mut package, "sldMasterIdLst", "sldMasterId", "slideMaster")?;
        Ok(Deck { package, presentation, slides, masters })
    }

    /// The slide size, each `None` where the deck does not give it (python-pptx's `None`).
    fn size(&self) -> Result<(Option<i64>, Option<i64>), String> {
        let Some(size) = self.presentation.child("sldSz") else { return Ok((None, None)) };
        let read = |a: &str| size.attr(a).map(|v| v.trim().parse::<i64>().map_err(|e| format!("sldSz {a}: {e}"))).transpose();
        Ok((read("cx")?, read("cy")?))
    }

    /// A slide's (or master's) shapes, as python-pptx lists them: the shape elements directly
    /// under its shape tree.
    fn shapes(&mut self, part: &str) -> Result<Vec<Element>, String> {
        let root = self.package.xml(part)?.ok_or_else(|| format!("{part} is missing"))?;
        let tree = root.path(&["cSld", "spTree"]).cloned().unwrap_or_default();
        Ok(tree.elements().filter(|e| SHAPES.contains(&e.name.as_str())).cloned().collect())
    }
}

/// A shape's text frame's paragraphs (python-pptx's new one for a shape without a body).
fn paragraphs(shape: &Element) -> Vec<Element> {
    super::slides::paragraphs(shape.child("txBody"))
}

/// `Shape.text` (autoshapes, text boxes, placeholders); none for shapes python-pptx gives no
/// text (pictures, tables, groups, connectors).
fn shape_text(shape: &Element) -> Option<String> {
    (shape.name == "sp").then(|| paragraphs(shape).iter().map(paragraph_text).collect::<Vec<_>>().join("\n"))
}

fn placeholder(shape: &Element) -> bool {
    shape.elements().find(|e| e.name.starts_with("nv")).and_then(|nv| nv.path(&["nvPr", "ph"])).is_some()
}

/// `shape.shape_type == MSO_SHAPE_TYPE.PICTURE`; an error where python-pptx raises (an
/// autoshape with no geometry it knows, a content part).
fn is_picture(shape: &Element) -> Result<bool, String> {
    match shape.name.as_str() {
        "pic" => {
            let nv = shape.path(&["nvPicPr", "nvPr"]);
            let video = nv.is_some_and(|n| n.child("videoFile").is_some());
            Ok(!placeholder(shape) && !video)
        }
        "sp" => {
            let sp_pr = shape.child("spPr");
            let geometry = sp_pr.is_some_and(|s| s.child("custGeom").is_some() || s.child("prstGeom").is_some());
            let text_box = shape.path(&["nvSpPr", "cNvSpPr"]).and_then(|c| c.attr("txBox")).is_some_and(|v| v == "1");
            if placeholder(shape) || geometry || text_box {
                Ok(false)
            } else {
                Err("a shape of a type python-pptx does not recognise".into())
            }
        }
        "contentPart" => Err("a content part has no shape type in python-pptx".into()),
        _ => Ok(false),
    }
}

/// A Python list index (an int or a bool) into a sequence of `len`, negative from the end.
fn index(v: &Value, len: usize) -> Option<usize> {
    let i = match v {
        Value::Bool(b) => i64::from(*b),
        Value::Number(n) => n.as_i64()?,
        _ => return None,
    };
    let len = i64::try_from(len).ok()?;
    let at = if i < 0 { len + i } else { i };
    (0..len).contains(&at).then_some(at as usize)
}

/// What a `for` loop over a JSON value visits; none where Python cannot iterate it.
fn python_items(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Array(items) => Some(items.clone()),
        Value::String(s) => Some(s.chars().map(|c| Value::String(c.to_string())).collect()),
        Value::Object(o) => Some(o.keys().map(|k| Value::String(k.clone())).collect()),
        _ => None,
    }
}

/// `check_presenter_console_disable`: LibreOffice's registry turns the presenter screen off
/// (the first `EnablePresenterScreen` under Impress's `Misc/Start` decides). OSWorld catches
/// every error here: anything unreadable is a 0.
pub fn check_presenter_console_disable(registry: Option<&Path>) -> f64 {
    let Some(root) = utf8_file(registry).and_then(|r| etree::parse(&r).ok()) else { return 0.0 };
    let (path, name) = (format!("{REGISTRY}path"), format!("{REGISTRY}name"));
    let first = root
        .descendants("item")
        .filter(|i| i.get(&path) == Some("/org.openoffice.Office.Impress/Misc/Start"))
        .flat_map(|i| i.children.iter().filter(|p| p.tag == "prop" && p.get(&name) == Some("EnablePresenterScreen")))
        .next();
    let Some(prop) = first else { return 0.0 };
    let value = prop.children.iter().find(|v| v.tag == "value").and_then(|v| v.text.as_deref());
    score(value.is_some_and(|v| v.to_lowercase() == "false"))
}

/// `check_slide_orientation_Portrait`: the slides are narrower than they are tall. No file is
/// python-pptx's default deck (landscape).
pub fn check_slide_orientation_portrait(deck: Option<&Path>) -> f64 {
    let Some(deck) = deck else { return 0.0 };
    match Deck::open(deck).and_then(|d| d.size()) {
        Ok((Some(w), Some(h))) => score(w < h),
        // python-pptx gives None and `<` raises: a 0, as for a deck it cannot open.
        _ => 0.0,
    }
}

/// `check_transition`: `ppt/slides/slide<slide_idx + 1>.xml` (by part name, as OSWorld opens
/// it) has a transition whose descendants include `p:<transition_type>`.
pub fn check_transition(deck: Option<&Path>, rules: &Value) -> Result<f64, String> {
    const M: &str = "check_transition";
    // The part's number as Python formats `slide_idx + 1` (a float stays one: `slide2.0.xml`).
    let slide = match rules.get("slide_idx") {
        Some(Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i128::from(i).saturating_add(1).to_string(),
            (None, Some(f)) => super::cells::python_float_repr(f + 1.0),
            _ => return Err(format!("{M}: rules.slide_idx {n} cannot be read")),
        },
        Some(Value::Bool(b)) => (i64::from(*b) + 1).to_string(),
        other => return Err(format!("{M}: rules.slide_idx must be a number, not {other:?}")),
    };
    let kind = rules.get("transition_type").and_then(Value::as_str).ok_or_else(|| format!("{M}: rules.transition_type must be a name"))?;
    if kind.is_empty() || !kind.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.')) {
        return Err(format!("{M}: {kind:?} is not a tag name"));
    }
    let Some(deck) = deck else { return Ok(0.0) };
    let Ok(mut package) = Package::open(deck) else { return Ok(0.0) };
    let Ok(Some(xml)) = package.bytes(&format!("ppt/slides/slide{slide}.xml")) else { return Ok(0.0) };
    let Some(root) = String::from_utf8(xml).ok().and_then(|x| etree::parse(&x).ok()) else { return Ok(0.0) };
    let (transition_tag, kind_tag) = (format!("{P}transition"), format!("{P}{kind}"));
    let Some(transition) = root.descendants(&transition_tag).next() else { return Ok(0.0) };
    let found = transition.descendants(&kind_tag).next().is_some();
    Ok(score(found))
}

/// Python's `s[a:b]` on characters.
fn slice(s: &str, a: usize, b: usize) -> String {
    s.chars().skip(a).take(b.saturating_sub(a)).collect()
}

/// `check_page_number_colors`: the second-to-last `a:srgbClr` inside a solid fill of
/// `slideMaster1.xml` has the rule's colour. OSWorld reads its channels from characters 1–2,
/// 3–4 and 5–6 of the value (written without `#`), as here; a colour it does not know passes.
pub fn check_page_number_colors(deck: Option<&Path>, rules: &Value) -> Result<f64, String> {
    let color = rules.get("color").ok_or("check_page_number_colors: rules.color is missing")?;
    let Some(deck) = deck else { return Ok(0.0) };
    let Ok(mut package) = Package::open(deck) else { return Ok(0.0) };
    let Ok(Some(xml)) = package.bytes("ppt/slideMasters/slideMaster1.xml") else { return Ok(0.0) };
    let Some(root) = String::from_utf8(xml).ok().and_then(|x| etree::parse(&x).ok()) else { return Ok(0.0) };
    let (fill, rgb) = (format!("{A}solidFill"), format!("{A}srgbClr"));
    let colours: Vec<&Tree> = root.descendants(&fill).flat_map(|f| f.descendants(&rgb)).collect();
    let Some(at) = colours.len().checked_sub(2) else { return Ok(0.0) };
    let Some(val) = colours[at].get("val") else { return Ok(0.0) };
    let channels = || -> Option<(i64, i64, i64)> {
        Some((python_int_radix(&slice(val, 1, 3), 16)?, python_int_radix(&slice(val, 3, 5), 16)?, python_int_radix(&slice(val, 5, 7), 16)?))
    };
    let test: Option<fn(i64, i64, i64) -> bool> = match color.as_str() {
        Some("red") => Some(|r, g, b| r > g + THRESHOLD && r > b + THRESHOLD),
        Some("blue") => Some(|r, g, b| b > g + THRESHOLD && b > r + THRESHOLD),
        Some("green") => Some(|r, g, b| g > r + THRESHOLD && g > b + THRESHOLD),
        Some("black") => Some(|r, g, b| r < THRESHOLD && g < THRESHOLD && b < THRESHOLD),
        _ => None,
    };
    let Some(test) = test else { return Ok(1.0) };
    // A value OSWorld cannot read as hexadecimal raises: a 0.
    Ok(channels().map_or(0.0, |(r, g, b)| score(test(r, g, b))))
}

/// `check_strikethrough`: for every slide, shape and paragraph index of the rules, the
/// paragraph's first run has a `strike` attribute (any value). Anything python-pptx cannot
/// index or find is a 0, as OSWorld catches it; no file is python-pptx's empty default deck.
pub fn check_strikethrough(deck: Option<&Path>, rules: &Value) -> Result<f64, String> {
    const M: &str = "check_strikethrough";
    let rule = |k: &str| rules.get(k).ok_or_else(|| format!("{M}: rules.{k} is missing"));
    let (slides_at, shapes_at, paragraphs_at) = (rule("slide_index_s")?, rule("shape_index_s")?, rule("paragraph_index_s")?);
    let mut deck = match deck.map(Deck::open) {
        Some(Ok(d)) => Some(d),
        Some(Err(_)) => return Ok(0.0),
        None => None,
    };
    let slide_parts = deck.as_ref().map(|d| d.slides.clone()).unwrap_or_default();
    let Some(slides_at) = python_items(slides_at) else { return Ok(0.0) };
    for s in &slides_at {
        let Some(part) = index(s, slide_parts.len()).map(|i| &slide_parts[i]) else { return Ok(0.0) };
        let Some(shapes) = deck.as_mut().map(|d| d.shapes(part)).and_then(Result::ok) else { return Ok(0.0) };
        let Some(shapes_at) = python_items(shapes_at) else { return Ok(0.0) };
        for sh in &shapes_at {
            let Some(shape) = index(sh, shapes.len()).map(|i| &shapes[i]) else { return Ok(0.0) };
            // Only autoshapes and placeholders have a text frame in python-pptx.
            if shape.name != "sp" {
                return Ok(0.0);
            }
            let paragraphs = paragraphs(shape);
            let Some(paragraphs_at) = python_items(paragraphs_at) else { return Ok(0.0) };
            for p in &paragraphs_at {
                let Some(paragraph) = index(p, paragraphs.len()).map(|i| &paragraphs[i]) else { return Ok(0.0) };
                let Some(run) = paragraph.child("r") else { return Ok(0.0) };
                let struck = run.child("rPr").is_some_and(|r| r.attrs.iter().any(|(k, _)| k == "strike"));
                if !struck {
                    return Ok(0.0);
                }
            }
        }
    }
    Ok(1.0)
}

/// `check_slide_numbers_color`: at the first shape of any slide whose text is all digits (a
/// slide number), the master's `<number>` placeholder writes its first paragraph in red
/// (`FF0000`). A deck with no such shape gives OSWorld no score at all (it returns None): a 0
/// here. A colour python-pptx cannot give as RGB raises in OSWorld: a 0 too.
pub fn check_slide_numbers_color(deck: Option<&Path>) -> f64 {
    let Some(Ok(mut deck)) = deck.map(Deck::open) else { return 0.0 };
    for part in deck.slides.clone() {
        let Ok(shapes) = deck.shapes(&part) else { return 0.0 };
        let numbered = shapes.iter().filter_map(shape_text).any(|t| !t.is_empty() && t.chars().all(python_digit));
        if numbered {
            return score(master_number_colour(&mut deck).is_some_and(|rgb| rgb.eq_ignore_ascii_case("FF0000")));
        }
    }
    0.0
}

/// The RGB of the first paragraph of the first master placeholder reading `<number>`.
fn master_number_colour(deck: &mut Deck) -> Option<String> {
    for master in deck.masters.clone() {
        for shape in deck.shapes(&master).ok()?.iter().filter(|s| s.name == "sp" && placeholder(s)) {
            if shape_text(shape).as_deref() == Some("<number>") {
                let first = paragraphs(shape).into_iter().next()?;
                return first.path(&["pPr", "defRPr", "solidFill", "srgbClr"]).and_then(|c| c.attr("val")).map(str::to_string);
            }
        }
    }
    None
}

/// A picture's image bytes, through its `r:embed`; an error where python-pptx raises.
fn picture_blob(deck: &mut Deck, slide: &str, picture: &Element) -> Result<Vec<u8>, String> {
    let blip = picture.path(&["blipFill", "blip"]).ok_or("a picture without an image")?;
    let rid = blip.attrs.iter().find(|(k, _)| k.rsplit(':').next() == Some("embed")).map(|(_, v)| v.clone()).ok_or("a picture with no embedded image")?;
    let (dir, file) = slide.rsplit_once('/').unwrap_or(("", slide));
    let rels = deck.package.xml(&format!("{dir}/_rels/{file}.rels"))?.ok_or("a slide without relationships")?;
    let target = rels
        .all("Relationship")
        .find(|r| r.attr("Id") == Some(rid.as_str()))
        .and_then(|r| r.attr("Target"))
        .ok_or("an image relationship that is not there")?;
    deck.package.bytes(&super::xml::resolve(dir, target))?.ok_or_else(|| "an image part that is not there".into())
}

/// The pictures (`shape_type` 13) of a deck's first slide, in order.
fn first_slide_pictures(deck: &mut Deck) -> Result<(String, Vec<Element>), String> {
    let part = deck.slides.first().cloned().ok_or("a deck without slides")?;
    let shapes = deck.shapes(&part)?;
    let mut pictures = Vec::new();
    for shape in shapes {
        if is_picture(&shape)? {
            pictures.push(shape);
        }
    }
    Ok((part, pictures))
}

/// `check_image_stretch_and_center`: the first picture of the original deck's first slide is
/// also on the agent's first slide (the same image bytes; the last such picture counts),
/// stretched to the original's slide size and centred on it, each within half an inch.
pub fn check_image_stretch_and_center(modified: Option<&Path>, original: Option<&Path>) -> Result<f64, String> {
    const M: &str = "check_image_stretch_and_center";
    let original = original.ok_or_else(|| format!("{M}: the original deck is missing"))?;
    let mut theirs = Deck::open(original).map_err(|e| format!("{M}: the original deck: {e}"))?;
    let Some(Ok(mut ours)) = modified.map(Deck::open) else { return Ok(0.0) };
    let (their_slide, their_pictures) = first_slide_pictures(&mut theirs).map_err(|e| format!("{M}: the original deck: {e}"))?;
    let Ok((our_slide, our_pictures)) = first_slide_pictures(&mut ours) else { return Ok(0.0) };
    let Some(the_picture) = their_pictures.first() else { return Ok(0.0) };
    let mut found = None;
    for picture in &our_pictures {
        let want = picture_blob(&mut theirs, &their_slide, the_picture).map_err(|e| format!("{M}: the original deck: {e}"))?;
        let Ok(got) = picture_blob(&mut ours, &our_slide, picture) else { return Ok(0.0) };
        if want == got {
            found = Some(picture);
        }
    }
    let Some(picture) = found else { return Ok(0.0) };
    let number = |path: &[&str], a: &str| picture.path(path).and_then(|e| e.attr(a)).and_then(|v| v.trim().parse::<i64>().ok());
    let geometry = (
        number(&["spPr", "xfrm", "ext"], "cx"),
        number(&["spPr", "xfrm", "ext"], "cy"),
        number(&["spPr", "xfrm", "off"], "x"),
        number(&["spPr", "xfrm", "off"], "y"),
    );
    // A picture without its own geometry: python-pptx's None, and OSWorld's arithmetic raises.
    let (Some(w), Some(h), Some(x), Some(y)) = geometry else { return Ok(0.0) };
    let (Some(sw), Some(sh)) = theirs.size().map_err(|e| format!("{M}: the original deck: {e}"))? else {
        return Err(format!("{M}: the original deck has no slide size"));
    };
    let off = |a: i64, b: i64| (a as f64 - b as f64).abs() > HALF_INCH;
    let centred = |at: i64, slide: i64, size: i64| (at as f64 - (slide - size) as f64 / 2.0).abs() > HALF_INCH;
    Ok(score(!(off(w, sw) || off(h, sh) || centred(x, sw, w) || centred(y, sh, h))))
}

/// python-pptx's fill of a slide's (or master's) background: the fill element of `p:bg/p:bgPr`,
/// found in python-pptx's order of fill kinds; a background given any other way (a theme
/// reference, none) reads as no fill, as python-pptx replaces it on access.
fn background_fill(root: &Element) -> Option<&Element> {
    const FILLS: &[&str] = &["noFill", "solidFill", "gradFill", "blipFill", "pattFill", "grpFill"];
    let Some(bg_pr) = root.path(&["cSld", "bg", "bgPr"]) else { return Some(&NO_FILL) };
    FILLS.iter().find_map(|kind| bg_pr.child(kind))
}

static NO_FILL: Element = Element { name: String::new(), attrs: Vec::new(), children: Vec::new() };

/// A solid fill's colour as python-pptx gives `fore_color.rgb`: only an `a:srgbClr` (the first
/// colour element in python-pptx's order decides) whose value reads as three bytes.
fn solid_rgb(fill: &Element) -> Option<[i64; 3]> {
    const COLOURS: &[&str] = &["scrgbClr", "srgbClr", "hslClr", "sysClr", "schemeClr", "prstClr"];
    let colour = COLOURS.iter().find_map(|kind| fill.child(kind))?;
    if colour.name != "srgbClr" {
        return None;
    }
    let val = colour.attr("val")?;
    let channel = |a: usize, b: Option<usize>| {
        let part: String = match b {
            Some(b) => slice(val, a, b),
            None => val.chars().skip(a).collect(),
        };
        python_int_radix(&part, 16).filter(|v| (0..=255).contains(v))
    };
    Some([channel(0, Some(2))?, channel(2, Some(4))?, channel(4, None)?])
}

/// The rule's colour as three numbers.
fn rule_rgb(v: Option<&Value>, key: &str) -> Result<Option<[f64; 3]>, String> {
    let Some(v) = v else { return Ok(None) };
    let numbers: Option<Vec<f64>> = v.as_array().map(|a| a.iter().map(Value::as_f64).collect()).unwrap_or(None);
    match numbers.as_deref() {
        Some([r, g, b]) => Ok(Some([*r, *g, *b])),
        _ => Err(format!("evaluate_presentation_fill_to_rgb_distance: rules.{key} must be three numbers, not {v}")),
    }
}

/// `evaluate_presentation_fill_to_rgb_distance`: one minus the mean, over the slides, of how far
/// each slide's background is from `rules.rgb` (Euclidean distance over the largest one). A
/// slide without a solid background of its own takes its master's when it has no fill at all;
/// a background that is not a solid RGB colour, or is still `original_rgb`, is as far as can be.
pub fn evaluate_presentation_fill_to_rgb_distance(deck: Option<&Path>, rules: &Value) -> Result<f64, String> {
    const M: &str = "evaluate_presentation_fill_to_rgb_distance";
    let rgb = rules.get("rgb").ok_or_else(|| format!("{M}: rules.rgb is missing"))?;
    let original = rules_original(rules)?;
    let Some(deck) = deck else { return Ok(0.0) };
    let Ok(mut deck) = Deck::open(deck) else { return Ok(0.0) };
    if deck.slides.is_empty() {
        // OSWorld divides by the number of slides and raises: a 0.
        return Ok(0.0);
    }
    let target = rule_rgb(Some(rgb), "rgb");
    let mut total = 0.0;
    for part in deck.slides.clone() {
        let Ok(Some(slide)) = deck.package.xml(&part) else { return Ok(0.0) };
        let fill = match background_fill(&slide) {
            Some(f) if f.name == "solidFill" => Some(solid_rgb(f)),
            // No fill: the master's, when it is solid.
            Some(f) if std::ptr::eq(f, &NO_FILL) || f.name == "noFill" => match master_of(&mut deck, &part) {
                Some(master) => match background_fill(&master) {
                    Some(m) if m.name == "solidFill" => Some(solid_rgb(m)),
                    _ => None,
                },
                None => return Ok(0.0),
            },
            _ => None,
        };
        total += match fill {
            Some(Some(got)) => {
                let want = target.clone()?.ok_or_else(|| format!("{M}: rules.rgb is missing"))?;
                if original.is_some_and(|o| (0..3).all(|i| got[i] as f64 == o[i])) {
                    1.0
                } else {
                    let d: f64 = (0..3).map(|i| (got[i] as f64 - want[i]).powi(2)).sum();
                    d.sqrt() / (3.0 * 255f64.powi(2)).sqrt()
                }
            }
            _ => 1.0,
        };
    }
    Ok(1.0 - total / deck.slides.len() as f64)
}

/// The rule's `original_rgb`; null is as good as absent (OSWorld's `None`).
fn rules_original(rules: &Value) -> Result<Option<[f64; 3]>, String> {
    rule_rgb(rules.get("original_rgb").filter(|v| !v.is_null()), "original_rgb")
}

/// The slide master of a slide's layout, as python-pptx follows them.
fn master_of(deck: &mut Deck, slide: &str) -> Option<Element> {
    let layout = deck.package.related(slide, "slideLayout").ok()?.into_iter().next()?.1;
    let master = deck.package.related(&layout, "slideMaster").ok()?.into_iter().next()?.1;
    deck.package.xml(&master).ok()?
}
