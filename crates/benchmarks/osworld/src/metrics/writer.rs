//! OSWorld's Writer metrics (`docs.py`) on documents read as python-docx reads them (`docx.rs`):
//! line spacing, tables, images, fonts, sub- and superscript, strike-through, page breaks,
//! tab stops, equations, highlighting, page numbers in footers, the default font.
//!
//! Where OSWorld's metric raises on the agent's document it scores 0 here (a broken answer is
//! a wrong answer); where it raises on the task's own expected document or rules, that is the
//! task's error.

use std::path::Path;

use serde_json::{json, Value};

use super::docs::{collapse, compare_docx_files};
use super::docx::{self, color_rgb, font_name, font_size_pt, kids, line_spacing, on_off, paragraph_text, runs, strip, subscript, tab_stops, Docx, Table};
use super::etree::{self, Tree};
use super::pillow;
use super::rules::Raise;
use super::score;

/// A verdict, or how OSWorld's metric raised: on the agent's document (a 0 here) or the task's.
type Judged = Result<f64, Raise>;

/// The agent's side failed.
fn agent<T>(r: Result<T, String>) -> Result<T, Raise> {
    r.map_err(|_| Raise::Agent)
}

/// The task's side failed.
fn task<T>(r: Result<T, String>) -> Result<T, Raise> {
    r.map_err(Raise::Task)
}

fn verdict(judged: Judged) -> Result<f64, String> {
    match judged {
        Ok(v) => Ok(v),
        Err(Raise::Agent) => Ok(0.0),
        Err(Raise::Task(e)) => Err(e),
    }
}

/// Both documents opened, as the metrics' `try: Document(a); Document(b)` (either failing
/// scores 0); none when a path is missing.
fn open_both(a: Option<&Path>, b: Option<&Path>) -> Result<(Docx, Docx), Raise> {
    let (Some(a), Some(b)) = (a, b) else { return Err(Raise::Agent) };
    match (Docx::open(a), Docx::open(b)) {
        (Ok(x), Ok(y)) => Ok((x, y)),
        _ => Err(Raise::Agent),
    }
}

/// `if not compare_docx_files(a, b): return 0`, with its default options.
fn same_text(a: &Path, b: &Path) -> Result<(), Raise> {
    match compare_docx_files(Some(a), Some(b), &json!({})) {
        Ok(v) if v != 0.0 => Ok(()),
        Ok(_) => Err(Raise::Agent),
        Err(e) => Err(Raise::Task(e)),
    }
}

fn both<'a>(a: Option<&'a Path>, b: Option<&'a Path>) -> Result<(&'a Path, &'a Path), Raise> {
    match (a, b) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(Raise::Agent),
    }
}

/// Python's `==` between a text python-docx read (or None) and a rule's JSON value.
fn text_equals(got: Option<&str>, want: &Value) -> bool {
    match (got, want) {
        (None, Value::Null) => true,
        (Some(g), Value::String(w)) => g == w,
        _ => false,
    }
}

/// `compare_line_spacing`: the same text, as many paragraphs, each with the same line
/// spacing (a number of lines, or a length, compared by value).
pub fn compare_line_spacing(a: Option<&Path>, b: Option<&Path>) -> Result<f64, String> {
    verdict((|| {
        let (pa, pb) = both(a, b)?;
        same_text(pa, pb)?;
        let (x, y) = open_both(a, b)?;
        let (px, py) = (x.paragraphs(), y.paragraphs());
        if px.len() != py.len() {
            return Ok(0.0);
        }
        for (p, q) in px.into_iter().zip(py) {
            let s1 = agent(line_spacing(p))?;
            let s2 = task(line_spacing(q))?;
            if s1.map(|s| s.value()) != s2.map(|s| s.value()) {
                return Ok(0.0);
            }
        }
        Ok(1.0)
    })())
}

/// `compare_docx_tables`: as many tables, each with the same rows and grid columns and the
/// same stripped text in every cell of the grid.
pub fn compare_docx_tables(a: Option<&Path>, b: Option<&Path>) -> Result<f64, String> {
    verdict((|| {
        let (x, y) = open_both(a, b)?;
        let (tx, ty) = (x.tables(), y.tables());
        if tx.len() != ty.len() {
            return Ok(0.0);
        }
        for (t1, t2) in tx.into_iter().zip(ty) {
            let t1 = agent(Table::read(t1))?;
            let t2 = task(Table::read(t2))?;
            if t1.rows != t2.rows || t1.columns != t2.columns {
                return Ok(0.0);
            }
            for i in 0..t1.rows {
                for j in 0..t1.columns {
                    let c1 = agent(t1.cell_text(i, j))?;
                    let c2 = task(t2.cell_text(i, j))?;
                    if strip(&c1) != strip(&c2) {
                        return Ok(0.0);
                    }
                }
            }
        }
        Ok(1.0)
    })())
}

/// `compare_docx_images`: the document parts' images, in order, decode to the same bytes
/// (Pillow's `tobytes()`; sizes and modes are not compared, as in OSWorld).
pub fn compare_docx_images(a: Option<&Path>, b: Option<&Path>) -> Result<f64, String> {
    verdict((|| {
        let (mut x, mut y) = open_both(a, b)?;
        let i1 = agent(x.image_blobs())?;
        let i2 = task(y.image_blobs())?;
        if i1.len() != i2.len() {
            return Ok(0.0);
        }
        for (b1, b2) in i1.iter().zip(&i2) {
            let d1 = decoded(b1).map_err(|e| match e {
                pillow::Failure::Raises(_) => Raise::Agent,
                pillow::Failure::Unsupported(e) => Raise::Task(e),
            })?;
            let d2 = decoded(b2).map_err(|e| match e {
                pillow::Failure::Raises(e) | pillow::Failure::Unsupported(e) => Raise::Task(e),
            })?;
            if d1 != d2 {
                return Ok(0.0);
            }
        }
        Ok(1.0)
    })())
}

/// Pillow's `Image.open(..).tobytes()`: bilevel pictures packed eight pixels a byte.
fn decoded(bytes: &[u8]) -> Result<Vec<u8>, pillow::Failure> {
    let image = pillow::Image::decode(bytes)?;
    if image.mode != pillow::Mode::One {
        return Ok(image.data);
    }
    let mut packed = Vec::new();
    for row in image.data.chunks(image.width.max(1)) {
        for eight in row.chunks(8) {
            packed.push(eight.iter().enumerate().fold(0u8, |acc, (i, v)| if *v != 0 { acc | (0x80 >> i) } else { acc }));
        }
    }
    Ok(packed)
}

/// `check_italic_font_size_14`: the same text, and every italic run set to 14 pt.
pub fn check_italic_font_size_14(a: Option<&Path>, b: Option<&Path>) -> Result<f64, String> {
    verdict((|| {
        let (pa, pb) = both(a, b)?;
        same_text(pa, pb)?;
        let x = Docx::open(pa).map_err(|_| Raise::Agent)?;
        for p in x.paragraphs() {
            for r in runs(p) {
                if agent(on_off(r, "i"))? == Some(true) && agent(font_size_pt(r))? != Some(14.0) {
                    return Ok(0.0);
                }
            }
        }
        Ok(1.0)
    })())
}

/// `check_tabstops`: the same non-blank paragraphs, optionally each with `number` words before
/// its `index`th tab, and tab stops of the same alignments; the score falls by the stops'
/// distance over the expected document's text width.
pub fn check_tabstops(a: Option<&Path>, b: Option<&Path>, options: &Value) -> Result<f64, String> {
    verdict((|| {
        let (x, y) = open_both(a, b)?;
        let blank = |p: &&Tree| !strip(&paragraph_text(p)).is_empty();
        let p1: Vec<&Tree> = x.paragraphs().into_iter().filter(blank).collect();
        let p2: Vec<&Tree> = y.paragraphs().into_iter().filter(blank).collect();
        if p1.len() != p2.len() {
            return Ok(0.0);
        }
        if let Some(number) = options.get("word_number_split_by_tabstop").filter(|v| !v.is_null()) {
            let index = match options.get("index") {
                None => 0,
                // Python indexes a list by a bool as 0 or 1.
                Some(Value::Bool(b)) => i64::from(*b),
                Some(v) => v.as_i64().ok_or_else(|| Raise::Task(format!("check_tabstops: index {v} is not an integer")))?,
            };
            for p in &p1 {
                let text = paragraph_text(p);
                let splits: Vec<&str> = text.split('\t').collect();
                let at = if index < 0 { splits.len() as i64 + index } else { index };
                let piece = usize::try_from(at).ok().and_then(|at| splits.get(at)).ok_or(Raise::Agent)?;
                let words = piece.split(super::python_space).filter(|w| !strip(w).is_empty()).count();
                if !number_equals(words, number) {
                    return Ok(0.0);
                }
            }
        }
        let section = *y.sections().first().ok_or_else(|| Raise::Task("the expected document has no section".into()))?;
        let width = task(docx::text_width(section))?;
        let ignored = |t: &docx::TabStop| t.alignment == "clear" || (t.alignment == "left" && t.position == 0);
        let mut minus = 0.0;
        for (q1, q2) in p1.iter().zip(&p2) {
            let tabs1: Vec<_> = agent(tab_stops(q1))?.into_iter().filter(|t| !ignored(t)).collect();
            let tabs2: Vec<_> = task(tab_stops(q2))?.into_iter().filter(|t| !ignored(t)).collect();
            if tabs1.len() != tabs2.len() {
                return Ok(0.0);
            }
            let mut difference = 0.0;
            for (t1, t2) in tabs1.iter().zip(&tabs2) {
                if t1.alignment != t2.alignment {
                    return Ok(0.0);
                }
                // Python's integers do not overflow: the distance in 128 bits.
                difference += (i128::from(t1.position) - i128::from(t2.position)).abs() as f64;
            }
            if width == 0 {
                return Err(Raise::Task("the expected document's text width is 0".into()));
            }
            minus += difference / width as f64;
        }
        if p1.is_empty() {
            return Err(Raise::Task("check_tabstops: no paragraph with text (OSWorld divides by zero)".into()));
        }
        Ok(1.0 - minus / p1.len() as f64)
    })())
}

/// Python's `len(words) != number` for a JSON number (or `true`).
fn number_equals(count: usize, number: &Value) -> bool {
    match number {
        Value::Number(n) => n.as_f64() == Some(count as f64),
        Value::Bool(b) => count == usize::from(*b),
        _ => false,
    }
}

/// `compare_contains_image`: paragraph by paragraph and run by run (as far as both go), a run
/// of one holds a drawing (`graphicData` in its XML) exactly when the other's does.
pub fn compare_contains_image(a: Option<&Path>, b: Option<&Path>) -> Result<f64, String> {
    verdict((|| {
        let (x, y) = open_both(a, b)?;
        for (p, q) in x.paragraphs().into_iter().zip(y.paragraphs()) {
            for (r1, r2) in runs(p).into_iter().zip(runs(q)) {
                if mentions(r1, "graphicData") != mentions(r2, "graphicData") {
                    return Ok(0.0);
                }
            }
        }
        Ok(1.0)
    })())
}

/// Whether an element's serialized XML contains a text (in a name, attribute or text).
fn mentions(t: &Tree, needle: &str) -> bool {
    t.tag.contains(needle)
        || t.attrib.iter().any(|(k, v)| k.contains(needle) || v.contains(needle))
        || t.text.as_deref().is_some_and(|s| s.contains(needle))
        || t.children.iter().any(|c| mentions(c, needle))
}

/// `compare_font_names`: every run of every body paragraph names `rules.font_name`
/// (`w:rFonts/@w:ascii`).
pub fn compare_font_names(a: Option<&Path>, rules: &Value) -> Result<f64, String> {
    // OSWorld opens the document before it reads its rules.
    let Some(x) = a.and_then(|a| Docx::open(a).ok()) else { return Ok(0.0) };
    let Some(want) = rules.get("font_name") else { return Err("compare_font_names: rules.font_name is missing".into()) };
    Ok(score(x.paragraphs().into_iter().flat_map(runs).all(|r| text_equals(font_name(r), want))))
}

/// `compare_subscript_contains`: some pair of runs, at the same place, are both subscript.
pub fn compare_subscript_contains(a: Option<&Path>, b: Option<&Path>) -> Result<f64, String> {
    verdict((|| {
        let (x, y) = open_both(a, b)?;
        for (p, q) in x.paragraphs().into_iter().zip(y.paragraphs()) {
            for (r1, r2) in runs(p).into_iter().zip(runs(q)) {
                if agent(subscript(r1))? == Some(true) && task(subscript(r2))? == Some(true) {
                    return Ok(1.0);
                }
            }
        }
        Ok(0.0)
    })())
}

/// `compare_insert_equation`: the same text, and some pair of runs at the same place both hold
/// an embedded object (`w:object`).
pub fn compare_insert_equation(a: Option<&Path>, b: Option<&Path>) -> Result<f64, String> {
    verdict((|| {
        let (pa, pb) = both(a, b)?;
        same_text(pa, pb)?;
        let (x, y) = open_both(a, b)?;
        for (p, q) in x.paragraphs().into_iter().zip(y.paragraphs()) {
            for (r1, r2) in runs(p).into_iter().zip(runs(q)) {
                if docx::under(r1, "object").next().is_some() && docx::under(r2, "object").next().is_some() {
                    return Ok(1.0);
                }
            }
        }
        Ok(0.0)
    })())
}

/// `contains_page_break`: some run of a body paragraph holds a page break (`w:br` with
/// `w:type="page"`), and exactly `rules.page_break_count` of them when the rules say so.
/// OSWorld's function requires its rules; a task that gives none (one of OSWorld's own does)
/// makes it raise there, and is judged here as if the rules set no count.
pub fn contains_page_break(a: Option<&Path>, rules: &Value) -> Result<f64, String> {
    let Some(x) = a.and_then(|a| Docx::open(a).ok()) else { return Ok(0.0) };
    let count =
        x.paragraphs().into_iter().flat_map(runs).flat_map(|r| docx::under(r, "br")).filter(|br| br.get(&format!("{}type", docx::W)) == Some("page")).count();
    if let Some(want) = rules.get("page_break_count") {
        let equal = match want {
            Value::Number(n) => n.as_f64() == Some(count as f64),
            Value::Bool(b) => count == usize::from(*b),
            _ => false,
        };
        // `None` in the rules counts as no count asked for.
        if !want.is_null() && !equal {
            return Ok(0.0);
        }
    }
    Ok(score(count > 0))
}

/// `evaluate_strike_through_last_paragraph`: the same text, and every run of the last body
/// paragraph struck through (`w:strike`).
pub fn evaluate_strike_through_last_paragraph(a: Option<&Path>, b: Option<&Path>) -> Result<f64, String> {
    verdict((|| {
        let (pa, pb) = both(a, b)?;
        same_text(pa, pb)?;
        let x = Docx::open(pa).map_err(|_| Raise::Agent)?;
        let paragraphs = x.paragraphs();
        let last = paragraphs.last().ok_or(Raise::Agent)?;
        for r in runs(last) {
            if agent(on_off(r, "strike"))? != Some(true) {
                return Ok(0.0);
            }
        }
        Ok(1.0)
    })())
}

/// `has_page_numbers_in_footers`: every section's footer has a digit in its first paragraph.
pub fn has_page_numbers_in_footers(a: Option<&Path>) -> Result<f64, String> {
    verdict((|| {
        let mut x = a.and_then(|a| Docx::open(a).ok()).ok_or(Raise::Agent)?;
        for index in 0..x.sections().len() {
            let texts = agent(x.footer_paragraph_texts(index))?;
            let first = texts.first().map(String::as_str).unwrap_or("");
            if !first.chars().any(python_digit) {
                return Ok(0.0);
            }
        }
        Ok(1.0)
    })())
}

/// Python's `str.isdigit`, near enough: a numeric character that is not a fraction or a Roman
/// numeral (`½`, `Ⅻ` are numeric, not digits).
pub(super) fn python_digit(c: char) -> bool {
    c.is_numeric() && !matches!(c, '\u{bc}'..='\u{be}' | '\u{2150}'..='\u{218b}' | '\u{3007}' | '\u{3021}'..='\u{3029}' | '\u{3038}'..='\u{303a}')
}

/// `compare_docx_files_and_ignore_new_lines`: the texts of the non-empty body paragraphs, the
/// same after collapsing whitespace (`ignore_blanks`, the default) or paragraph by paragraph.
pub fn compare_docx_files_and_ignore_new_lines(a: Option<&Path>, b: Option<&Path>, options: &Value) -> Result<f64, String> {
    let ignore_blanks = super::opt(options, "ignore_blanks", true);
    let (Some(a), Some(b)) = (a, b) else { return Ok(0.0) };
    let docx = |p: &Path| p.to_str().is_some_and(|s| s.ends_with(".docx"));
    if !docx(a) || !docx(b) {
        return Ok(0.0);
    }
    let (Ok(x), Ok(y)) = (Docx::open(a), Docx::open(b)) else { return Ok(0.0) };
    let texts = |d: &Docx| d.paragraphs().into_iter().map(paragraph_text).filter(|t| !t.is_empty()).collect::<Vec<_>>();
    let (t1, t2) = (texts(&x), texts(&y));
    if ignore_blanks {
        return Ok(score(collapse(&t1.join("\n")) == collapse(&t2.join("\n"))));
    }
    Ok(score(t1 == t2))
}

/// `compare_highlighted_text`: the same set of highlighted texts. Each `w:r` anywhere in
/// `word/document.xml` with a `w:highlight` under it that is not `none` gives the text of its
/// first `w:t` (or None for an empty one), as OSWorld reads the XML with ElementTree.
pub fn compare_highlighted_text(a: Option<&Path>, b: Option<&Path>) -> Result<f64, String> {
    let (Some(a), Some(b)) = (a, b) else { return Ok(0.0) };
    let Ok(h1) = highlighted(a) else { return Ok(0.0) };
    let h2 = highlighted(b)?;
    let set = |v: Vec<Option<String>>| v.into_iter().collect::<std::collections::BTreeSet<_>>();
    Ok(score(set(h1) == set(h2)))
}

fn highlighted(path: &Path) -> Result<Vec<Option<String>>, String> {
    let mut package = super::xml::Package::open(path)?;
    let text = package.text("word/document.xml")?.ok_or("no word/document.xml")?;
    let root = etree::parse(&text)?;
    let val = format!("{}val", docx::W);
    let mut out = Vec::new();
    for run in root.children.iter().flat_map(Tree::iter).filter(|t| docx::is(t, "r")) {
        let Some(mark) = docx::under(run, "highlight").next() else { continue };
        if mark.get(&val) == Some("none") {
            continue;
        }
        if let Some(t) = docx::under(run, "t").next() {
            out.push(t.text.clone());
        }
    }
    Ok(out)
}

/// `find_default_font`: LibreOffice's registry (`registrymodifications.xcu`) sets Writer's
/// standard default font to `rules.font_name` (the last such value wins).
pub fn find_default_font(registry: Option<&Path>, rules: &Value) -> Result<f64, String> {
    let Some(want) = rules.get("font_name") else { return Err("find_default_font: rules.font_name is missing".into()) };
    let Some(path) = registry else { return Ok(0.0) };
    const OOR: &str = "{http://openoffice.org/2001/registry}";
    let mut font: Option<String> = None;
    // A registry that does not parse leaves the font unknown, as OSWorld's try does.
    if let Some(root) = super::utf8_file(Some(path)).and_then(|t| etree::parse(&t).ok()) {
        let (path_key, name_key) = (format!("{OOR}path"), format!("{OOR}name"));
        for item in root.descendants("item").filter(|i| i.get(&path_key) == Some("/org.openoffice.Office.Writer/DefaultFont")) {
            for prop in item.descendants("prop").filter(|p| p.get(&name_key) == Some("Standard")) {
                for value in prop.children.iter().filter(|v| v.tag == "value") {
                    font = value.text.clone();
                }
            }
        }
    }
    Ok(score(text_equals(font.as_deref(), want)))
}

/// The tables' runs, for `evaluate_colored_words_in_tables`.
fn table_runs(x: &Docx) -> Vec<&Tree> {
    let mut out = Vec::new();
    for tbl in x.tables() {
        for tr in kids(tbl, "tr") {
            // `row.cells`: the row's grid cells, a span repeating its cell.
            for tc in kids(tr, "tc") {
                out.extend(kids(tc, "p").flat_map(runs));
            }
        }
    }
    out
}

/// `evaluate_colored_words_in_tables`: the same text, and in the tables every word starting
/// with a vowel is red and every other word blue, within `threshold` (CIEDE2000, 3.5 by
/// default). A word whose colour is automatic makes OSWorld raise (a 0 here).
pub fn evaluate_colored_words_in_tables(a: Option<&Path>, b: Option<&Path>, options: &Value) -> Result<f64, String> {
    verdict((|| {
        let (pa, pb) = both(a, b)?;
        same_text(pa, pb)?;
        let x = Docx::open(pa).map_err(|_| Raise::Agent)?;
        let threshold = match options.get("threshold") {
            None => 3.5,
            Some(v) => v.as_f64().ok_or_else(|| Raise::Task(format!("threshold {v} is not a number")))?,
        };
        for r in table_runs(&x) {
            let mut text = String::new();
            docx::run_text(r, &mut text);
            let Some(first) = text.chars().next() else { continue };
            let vowel = first.to_lowercase().all(|c| "aeiou".contains(c)) && first.to_lowercase().count() == 1;
            let rgb = agent(color_rgb(r))?.ok_or(Raise::Agent)?;
            let target = if vowel { [255, 0, 0] } else { [0, 0, 255] };
            if super::colour::ciede2000_rgb(rgb, target) > threshold {
                return Ok(0.0);
            }
        }
        Ok(1.0)
    })())
}

/// `compare_unique_train_records`: the agent removed the duplicate records of a train log.
/// `expected` is the gold document and the initial one; a record is a non-blank paragraph of
/// four comma-separated fields, the second the train id. The result's lines all come from the
/// initial document, its ids are unique and the gold's, and it has as many lines as the gold.
pub fn compare_unique_train_records(processed: Option<&Path>, expected: Option<Vec<Option<&Path>>>) -> Result<f64, String> {
    let Some(processed) = processed else { return Ok(0.0) };
    let Some([Some(gold), Some(initial), ..]) = expected.as_deref() else { return Ok(0.0) };
    let lines_and_ids = |path: &Path| -> Option<(Vec<String>, Vec<String>)> {
        let doc = Docx::open(path).ok()?;
        let lines: Vec<String> = doc.paragraphs().into_iter().map(|p| strip(&paragraph_text(p)).to_string()).filter(|l| !l.is_empty()).collect();
        let ids = lines.iter().map(|l| l.split(',').collect::<Vec<_>>()).filter(|f| f.len() == 4).map(|f| strip(f[1]).to_string()).collect();
        Some((lines, ids))
    };
    let Some((lines, ids)) = lines_and_ids(processed) else { return Ok(0.0) };
    let Some((gold_lines, gold_ids)) = lines_and_ids(gold) else { return Ok(0.0) };
    let Some((initial_lines, _)) = lines_and_ids(initial) else { return Ok(0.0) };
    use std::collections::HashSet;
    let initial: HashSet<&String> = initial_lines.iter().collect();
    let unique: HashSet<&String> = ids.iter().collect();
    Ok(score(
        lines.iter().all(|l| initial.contains(l))
            && unique.len() == ids.len()
            && unique == gold_ids.iter().collect::<HashSet<_>>()
            && lines.len() == gold_lines.len(),
    ))
}

const ODF_OFFICE: &str = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}";
const ODF_TEXT: &str = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}";
const ODF_STYLE: &str = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}";
const ODF_FO: &str = "{urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0}";

/// `check_highlighted_words`: the same text (`compare_docx_files` on the two odt files), and no
/// span of the result (content first, then styles, as odfpy loads them) names an automatic
/// style with a property whose background is exactly `#ffff00`. A highlighted word scores 0.
pub fn check_highlighted_words(a: Option<&Path>, b: Option<&Path>) -> Result<f64, String> {
    verdict((|| {
        let (pa, pb) = both(a, b)?;
        same_text(pa, pb)?;
        let mut package = super::xml::Package::open(pa).map_err(|_| Raise::Agent)?;
        // odfpy reads the parts its manifest lists, and raises without one.
        let manifest = agent(package.text("META-INF/manifest.xml"))?.ok_or(Raise::Agent)?;
        let manifest = agent(etree::parse(&manifest))?;
        let full_path = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}full-path";
        let listed = |name: &str| manifest.children.iter().any(|e| e.get(full_path) == Some(name));
        let mut parts = Vec::new();
        for name in ["content.xml", "styles.xml"].into_iter().filter(|n| listed(n)) {
            if let Some(text) = agent(package.text(name))? {
                parts.push(agent(etree::parse(&text))?);
            }
        }
        let automatic_styles = format!("{ODF_OFFICE}automatic-styles");
        let automatic: Vec<&Tree> =
            parts.iter().flat_map(|p| p.children.iter().filter(|c| c.tag == automatic_styles)).flat_map(|s| s.children.iter()).collect();
        let (style_name, name, background) = (format!("{ODF_TEXT}style-name"), format!("{ODF_STYLE}name"), format!("{ODF_FO}background-color"));
        let span = format!("{ODF_TEXT}span");
        for s in parts.iter().flat_map(|p| p.descendants(&span)) {
            let Some(wanted) = s.get(&style_name).filter(|n| !n.is_empty()) else { continue };
            for style in automatic.iter().filter(|st| st.get(&name) == Some(wanted)) {
                if style.children.iter().any(|property| property.get(&background) == Some("#ffff00")) {
                    return Ok(0.0);
                }
            }
        }
        Ok(1.0)
    })())
}

/// `fuzzy_place_math`: the document's words (its paragraphs' text split on whitespace), each
/// scored by its best rapidfuzz ratio against `rules.expected`; exactly three words are asked
/// for, and the score is their mean (a fraction, as OSWorld gives it).
pub fn fuzzy_place_math(document: Option<&Path>, rules: &Value) -> Result<f64, String> {
    const M: &str = "fuzzy_place_math";
    let Some(document) = document else { return Ok(0.0) };
    let answers: Vec<String> = match rules.get("expected") {
        Some(Value::Array(items)) => {
            items.iter().map(|v| v.as_str().map(str::to_string).ok_or_else(|| format!("{M}: {v} is not a string"))).collect::<Result<_, _>>()?
        }
        Some(Value::String(s)) => s.chars().map(String::from).collect(),
        other => return Err(format!("{M}: rules.expected must be a list of strings, not {other:?}")),
    };
    let Ok(doc) = Docx::open(document) else { return Ok(0.0) };
    let words: Vec<String> = doc
        .paragraphs()
        .into_iter()
        .flat_map(|p| paragraph_text(p).split(super::python_space).filter(|w| !w.is_empty()).map(str::to_string).collect::<Vec<_>>())
        .collect();
    if words.len() != 3 {
        return Ok(0.0);
    }
    let best = |word: &str| answers.iter().map(|a| super::docs::ratio_percent(word, a) / 100.0).fold(0.0, f64::max);
    Ok(words.iter().map(|w| best(w)).sum::<f64>() / 3.0)
}

/// `compare_docx_lines`: the two documents hold the same set of non-blank paragraph texts
/// (each stripped); a document that does not open is a 0, as OSWorld catches it.
pub fn compare_docx_lines(a: Option<&Path>, b: Option<&Path>) -> f64 {
    let (Some(a), Some(b)) = (a, b) else { return 0.0 };
    let (Ok(x), Ok(y)) = (Docx::open(a), Docx::open(b)) else { return 0.0 };
    let lines = |d: &Docx| -> std::collections::BTreeSet<String> {
        d.paragraphs().into_iter().map(|p| paragraph_text(p).trim_matches(super::python_space).to_string()).filter(|t| !t.is_empty()).collect()
    };
    score(lines(&x) == lines(&y))
}
