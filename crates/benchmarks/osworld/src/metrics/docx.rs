//! A word-processor document (docx) read as python-docx 1.2.0 reads it, for the Writer metrics
//! OSWorld wrote against it: the body's paragraphs and tables, a paragraph's runs, the run and
//! paragraph properties python-docx exposes (its tri-state booleans, its lengths in EMU, its
//! line spacing as lines or a length), tables as its cell grid, sections and their footers.
//! Names are matched with their namespace, as lxml matches them. A value python-docx refuses
//! when it reads it is an `Err` here, where OSWorld's metric raises.

use std::path::Path;

use super::charts::python_int;
use super::etree::{self, Tree};
use super::python_space;
use super::rules::python_float;
use super::xml::{resolve, Package};

/// WordprocessingML's namespace, as ElementTree writes it before a local name.
pub const W: &str = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}";
const R_ID: &str = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id";

/// Whether an element is `w:<local>`.
pub fn is(t: &Tree, local: &str) -> bool {
    t.tag.strip_prefix(W) == Some(local)
}

/// The `w:<local>` children of an element.
pub fn kids<'a>(t: &'a Tree, local: &'a str) -> impl Iterator<Item = &'a Tree> + 'a {
    t.children.iter().filter(move |c| is(c, local))
}

/// The first `w:<local>` child (python-docx's `ZeroOrOne`).
pub fn kid<'a>(t: &'a Tree, local: &str) -> Option<&'a Tree> {
    t.children.iter().find(|c| is(c, local))
}

/// A `w:` attribute.
pub fn attr<'a>(t: &'a Tree, local: &str) -> Option<&'a str> {
    t.attrib.iter().find(|(k, _)| k.strip_prefix(W) == Some(local)).map(|(_, v)| v.as_str())
}

/// Every `w:<local>` under an element (not itself), in document order (`.//w:local`).
pub fn under<'a>(t: &'a Tree, local: &'a str) -> impl Iterator<Item = &'a Tree> + 'a {
    t.children.iter().flat_map(Tree::iter).filter(move |c| is(c, local))
}

pub struct Docx {
    package: Package,
    pub document: Tree,
}

impl Docx {
    /// Opens a docx; an error where python-docx's `Document()` raises (not a zip, no main
    /// part, XML that does not parse, no body).
    pub fn open(path: &Path) -> Result<Docx, String> {
        let mut package = Package::open(path)?;
        let text = package.text("word/document.xml")?.ok_or("docx without word/document.xml")?;
        let document = etree::parse(&text)?;
        if !is(&document, "document") || kid(&document, "body").is_none() {
            return Err("word/document.xml holds no w:document with a w:body".into());
        }
        Ok(Docx { package, document })
    }

    pub fn body(&self) -> &Tree {
        kid(&self.document, "body").expect("checked on open")
    }

    /// `document.paragraphs`: the body's direct `w:p` children.
    pub fn paragraphs(&self) -> Vec<&Tree> {
        kids(self.body(), "p").collect()
    }

    /// `document.tables`: the body's direct `w:tbl` children.
    pub fn tables(&self) -> Vec<&Tree> {
        kids(self.body(), "tbl").collect()
    }

    /// `document.sections`' elements: `w:body/w:p/w:pPr/w:sectPr` and `w:body/w:sectPr`, in
    /// document order.
    pub fn sections(&self) -> Vec<&Tree> {
        let mut out = Vec::new();
        for child in &self.body().children {
            if is(child, "p") {
                out.extend(kids(child, "pPr").flat_map(|ppr| kids(ppr, "sectPr")));
            } else if is(child, "sectPr") {
                out.push(child);
            }
        }
        out
    }

    /// The paragraphs of section `index`'s primary footer, as `section.footer.paragraphs`
    /// finds them: its own definition, else the nearest earlier section's; none anywhere
    /// gives python-docx's new default footer (one empty paragraph).
    pub fn footer_paragraph_texts(&mut self, index: usize) -> Result<Vec<String>, String> {
        let sections = self.sections();
        let reference = sections[..=index].iter().rev().find_map(|s| kids(s, "footerReference").find(|f| attr(f, "type") == Some("default")));
        let Some(reference) = reference else { return Ok(vec![String::new()]) };
        let rid = reference.get(R_ID).ok_or("a footerReference without r:id")?.to_string();
        let target = self.package.related("word/document.xml", "footer")?.into_iter().find(|(id, _)| *id == rid).map(|(_, t)| t);
        let target = target.ok_or_else(|| format!("no footer part for {rid}"))?;
        let text = self.package.text(&target)?.ok_or_else(|| format!("{target} is missing"))?;
        let footer = etree::parse(&text)?;
        Ok(kids(&footer, "p").map(paragraph_text).collect())
    }

    /// The document part's relationships whose type mentions `image`, in the order of its
    /// `.rels` file, each as its target part's bytes (`doc.part.rels.values()`).
    pub fn image_blobs(&mut self) -> Result<Vec<Vec<u8>>, String> {
        let Some(rels) = self.package.text("word/_rels/document.xml.rels")? else { return Ok(Vec::new()) };
        let rels = etree::parse(&rels)?;
        let mut blobs = Vec::new();
        for rel in rels.children.iter().filter(|r| r.tag.ends_with("}Relationship")) {
            if !rel.get("Type").unwrap_or("").contains("image") {
                continue;
            }
            if rel.get("TargetMode") == Some("External") {
                return Err("an external image has no part".into());
            }
            let target = rel.get("Target").ok_or("a relationship without a target")?;
            let name = resolve("word", target);
            blobs.push(self.package.bytes(&name)?.ok_or_else(|| format!("{name} is missing"))?);
        }
        Ok(blobs)
    }
}

/// `paragraph.runs`: the paragraph's direct `w:r` children.
pub fn runs(p: &Tree) -> Vec<&Tree> {
    kids(p, "r").collect()
}

/// `paragraph.text`: its runs' and hyperlinks' runs' text.
pub fn paragraph_text(p: &Tree) -> String {
    let mut text = String::new();
    for e in &p.children {
        if is(e, "r") {
            run_text(e, &mut text);
        } else if is(e, "hyperlink") {
            kids(e, "r").for_each(|r| run_text(r, &mut text));
        }
    }
    text
}

/// `run.text`: `w:t` as its text, tabs as `\t`, line breaks (not page or column breaks) as `\n`.
pub fn run_text(r: &Tree, out: &mut String) {
    for e in &r.children {
        let Some(local) = e.tag.strip_prefix(W) else { continue };
        match local {
            "t" => out.push_str(e.text.as_deref().unwrap_or("")),
            "tab" | "ptab" => out.push('\t'),
            "br" if matches!(attr(e, "type"), None | Some("textWrapping")) => out.push('\n'),
            "cr" => out.push('\n'),
            "noBreakHyphen" => out.push('-'),
            _ => {}
        }
    }
}

/// A run property of python-docx's tri-state kind (`run.italic`, `run.font.strike`): none
/// when the element is absent, true when it has no `w:val`, else its `ST_OnOff` value.
pub fn on_off(r: &Tree, local: &str) -> Result<Option<bool>, String> {
    let Some(element) = kid(r, "rPr").and_then(|rpr| kid(rpr, local)) else { return Ok(None) };
    match attr(element, "val") {
        None => Ok(Some(true)),
        Some("1" | "true" | "on") => Ok(Some(true)),
        Some("0" | "false" | "off") => Ok(Some(false)),
        Some(other) => Err(format!("w:{local} w:val {other:?} is not an ST_OnOff")),
    }
}

/// `run.font.subscript`: none without `w:vertAlign`, else whether it says `subscript`.
pub fn subscript(r: &Tree) -> Result<Option<bool>, String> {
    let Some(align) = kid(r, "rPr").and_then(|rpr| kid(rpr, "vertAlign")) else { return Ok(None) };
    Ok(Some(attr(align, "val").ok_or("w:vertAlign without w:val")? == "subscript"))
}

/// `run.font.name`: `w:rFonts/@w:ascii`.
pub fn font_name(r: &Tree) -> Option<&str> {
    kid(r, "rPr").and_then(|rpr| kid(rpr, "rFonts")).and_then(|f| attr(f, "ascii"))
}

/// `run.font.size` in points (`.pt`), from `w:sz` in half-points.
pub fn font_size_pt(r: &Tree) -> Result<Option<f64>, String> {
    let Some(sz) = kid(r, "rPr").and_then(|rpr| kid(rpr, "sz")) else { return Ok(None) };
    let value = attr(sz, "val").ok_or("w:sz without w:val")?;
    let emu = if value.contains(['m', 'n', 'p']) {
        universal_measure(value)?
    } else {
        let half = python_int(value).ok_or_else(|| format!("w:sz {value:?} is not an integer"))?;
        (half as f64 / 2.0 * 12700.0).trunc() as i64
    };
    Ok(Some(emu as f64 / 12700.0))
}

/// `run.font.color.rgb`: none without `w:color` or for `auto`, else the colour.
pub fn color_rgb(r: &Tree) -> Result<Option<[u8; 3]>, String> {
    let Some(color) = kid(r, "rPr").and_then(|rpr| kid(rpr, "color")) else { return Ok(None) };
    let value = attr(color, "val").ok_or("w:color without w:val")?;
    if value == "auto" {
        return Ok(None);
    }
    // RGBColor.from_string: int() in base 16 of [:2], [2:4] and [4:].
    let chars: Vec<char> = value.chars().collect();
    let piece = |from: usize, to: usize| -> Result<u8, String> {
        let s: String = chars[from.min(chars.len())..to.min(chars.len())].iter().collect();
        let n = python_int_radix(&s, 16).ok_or_else(|| format!("w:color {value:?} is not a colour"))?;
        u8::try_from(n).map_err(|_| format!("w:color {value:?}: a byte out of range"))
    };
    Ok(Some([piece(0, 2)?, piece(2, 4)?, piece(4, chars.len())?]))
}

/// A paragraph's line spacing as python-docx gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LineSpacing {
    /// `lineRule` auto (or none): a float number of lines.
    Lines(f64),
    /// `exact` or `atLeast`: a length in EMU.
    Emu(i64),
}

impl LineSpacing {
    /// Python's `==` between a float and an int: by value.
    pub fn value(self) -> f64 {
        match self {
            LineSpacing::Lines(v) => v,
            LineSpacing::Emu(v) => v as f64,
        }
    }
}

/// `paragraph.paragraph_format.line_spacing`.
pub fn line_spacing(p: &Tree) -> Result<Option<LineSpacing>, String> {
    let Some(spacing) = kid(p, "pPr").and_then(|ppr| kid(ppr, "spacing")) else { return Ok(None) };
    let line = attr(spacing, "line").map(signed_twips).transpose()?;
    let rule = match attr(spacing, "lineRule") {
        None => None,
        Some(r @ ("auto" | "exact" | "atLeast")) => Some(r),
        Some(other) => return Err(format!("WD_LINE_SPACING has no XML mapping for '{other}'")),
    };
    let Some(line) = line else { return Ok(None) };
    Ok(Some(match rule {
        None | Some("auto") => LineSpacing::Lines(line as f64 / 152_400.0),
        _ => LineSpacing::Emu(line),
    }))
}

/// A tab stop: its alignment as written and position in EMU.
#[derive(Debug, Clone, PartialEq)]
pub struct TabStop {
    pub alignment: String,
    pub position: i64,
}

const TAB_ALIGNMENTS: [&str; 10] = ["left", "center", "right", "decimal", "bar", "list", "clear", "end", "num", "start"];

/// `paragraph.paragraph_format.tab_stops`.
pub fn tab_stops(p: &Tree) -> Result<Vec<TabStop>, String> {
    let Some(tabs) = kid(p, "pPr").and_then(|ppr| kid(ppr, "tabs")) else { return Ok(Vec::new()) };
    kids(tabs, "tab")
        .map(|tab| {
            let alignment = attr(tab, "val").ok_or("w:tab without w:val")?;
            if !TAB_ALIGNMENTS.contains(&alignment) {
                return Err(format!("WD_TAB_ALIGNMENT has no XML mapping for '{alignment}'"));
            }
            let position = signed_twips(attr(tab, "pos").ok_or("w:tab without w:pos")?)?;
            Ok(TabStop { alignment: alignment.to_string(), position })
        })
        .collect()
}

/// A section's `page_width - left_margin - right_margin` in EMU; an error where one is None
/// (Python's arithmetic on None raises).
pub fn text_width(section: &Tree) -> Result<i64, String> {
    let width = kid(section, "pgSz").and_then(|s| attr(s, "w")).map(unsigned_twips).transpose()?;
    let margin = |side: &str| kid(section, "pgMar").and_then(|m| attr(m, side)).map(signed_twips).transpose();
    match (width, margin("left")?, margin("right")?) {
        (Some(w), Some(l), Some(r)) => w.checked_sub(l).and_then(|x| x.checked_sub(r)).ok_or_else(|| "a section's text width out of range".into()),
        _ => Err("a section without page width or margins".into()),
    }
}

/// A table as python-docx's cell grid: its row count (`w:tr`), column count (`w:gridCol`) and
/// cells in grid order, a span repeating its cell and a vertical merge the cell above.
pub struct Table<'a> {
    pub rows: usize,
    pub columns: usize,
    cells: Result<Vec<&'a Tree>, String>,
}

impl<'a> Table<'a> {
    pub fn read(tbl: &'a Tree) -> Result<Table<'a>, String> {
        let rows = kids(tbl, "tr").count();
        let grid = kid(tbl, "tblGrid").ok_or("w:tbl without w:tblGrid")?;
        let columns = kids(grid, "gridCol").count();
        Ok(Table { rows, columns, cells: grid_cells(tbl, columns) })
    }

    /// `table.cell(row, column).text`: its paragraphs' texts joined by newlines.
    pub fn cell_text(&self, row: usize, column: usize) -> Result<String, String> {
        let cells = self.cells.as_ref().map_err(Clone::clone)?;
        let tc = cells.get(column + row * self.columns).ok_or("cell index out of range")?;
        Ok(kids(tc, "p").map(paragraph_text).collect::<Vec<_>>().join("\n"))
    }
}

fn grid_cells(tbl: &Tree, columns: usize) -> Result<Vec<&Tree>, String> {
    let mut cells: Vec<&Tree> = Vec::new();
    for tc in kids(tbl, "tr").flat_map(|tr| kids(tr, "tc")) {
        let props = kid(tc, "tcPr");
        let span = match props.and_then(|p| kid(p, "gridSpan")) {
            None => 1,
            Some(g) => python_int(attr(g, "val").ok_or("w:gridSpan without w:val")?).ok_or("w:gridSpan is not an integer")?,
        };
        let continues = props.and_then(|p| kid(p, "vMerge")).is_some_and(|v| attr(v, "val").unwrap_or("continue") == "continue");
        // A span past any grid a writer makes is refused, not looped over (Python would run
        // out of memory building it).
        if span > 16_384 {
            return Err(format!("w:gridSpan {span} is past any table's width"));
        }
        for i in 0..span.max(0) {
            let cell = if continues {
                // `cells[-col_count]`, with Python's negative index (and `cells[0]` for 0).
                let at = if columns == 0 { Some(0) } else { cells.len().checked_sub(columns) };
                *at.and_then(|at| cells.get(at)).ok_or("list index out of range")?
            } else if i > 0 {
                *cells.last().expect("the span's first cell is in")
            } else {
                tc
            };
            cells.push(cell);
        }
    }
    Ok(cells)
}

/// `ST_SignedTwipsMeasure`: a universal measure, or `Twips(int(round(float(value))))`, in EMU.
pub fn signed_twips(value: &str) -> Result<i64, String> {
    if value.contains(['i', 'm', 'p']) {
        return universal_measure(value);
    }
    let f: f64 = python_float(value).ok_or_else(|| format!("{value:?} is not a number"))?;
    if !f.is_finite() {
        return Err(format!("{value:?} is not a finite number"));
    }
    (f.round_ties_even() as i64).checked_mul(635).ok_or_else(|| format!("{value:?} is too large a length"))
}

/// `ST_TwipsMeasure`: a universal measure, or `Twips(int(value))`, in EMU.
fn unsigned_twips(value: &str) -> Result<i64, String> {
    if value.contains(['i', 'm', 'p']) {
        return universal_measure(value);
    }
    python_int(value).ok_or_else(|| format!("{value:?} is not an integer"))?.checked_mul(635).ok_or_else(|| format!("{value:?} is too large a length"))
}

/// `ST_UniversalMeasure`: a number and a two-letter unit, in EMU.
fn universal_measure(value: &str) -> Result<i64, String> {
    let chars: Vec<char> = value.chars().collect();
    let split = chars.len().saturating_sub(2);
    let (number, unit): (String, String) = (chars[..split].iter().collect(), chars[split..].iter().collect());
    let quantity = python_float(&number).ok_or_else(|| format!("{value:?} is not a measure"))?;
    let multiplier = match unit.as_str() {
        "mm" => 36_000.0,
        "cm" => 360_000.0,
        "in" => 914_400.0,
        "pt" => 12_700.0,
        "pc" | "pi" => 152_400.0,
        _ => return Err(format!("{value:?}: unit {unit:?} unknown")),
    };
    let emu = (quantity * multiplier).round_ties_even();
    if !emu.is_finite() {
        return Err(format!("{value:?} is not a finite measure"));
    }
    Ok(emu as i64)
}

/// Python's `int(text, radix)`: whitespace around, a sign, `0x` before hexadecimal, `_` between
/// digits; none where Python raises (or past 64 bits).
pub(super) fn python_int_radix(text: &str, radix: u32) -> Option<i64> {
    let t = text.trim_matches(python_space);
    let (negative, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let digits = if radix == 16 { digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")).unwrap_or(digits) } else { digits };
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    let mut n: i64 = 0;
    for c in digits.chars().filter(|c| *c != '_') {
        n = n.checked_mul(i64::from(radix))?.checked_add(i64::from(c.to_digit(radix)?))?;
    }
    Some(if negative { -n } else { n })
}

/// Python's `str.strip()`.
pub fn strip(text: &str) -> &str {
    text.trim_matches(python_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_numbers_read_as_python_docx_reads_them() {
        assert_eq!(signed_twips("240").unwrap(), 240 * 635);
        assert_eq!(signed_twips("240.5").unwrap(), 240 * 635);
        assert_eq!(signed_twips("241.5").unwrap(), 242 * 635);
        assert_eq!(signed_twips("1in").unwrap(), 914_400);
        assert!(signed_twips("12xy").is_err());
        assert_eq!(unsigned_twips(" 11906 ").unwrap(), 11906 * 635);
        assert_eq!(python_int("1_000"), Some(1000));
        assert_eq!(python_int("1__0"), None);
        assert_eq!(python_int_radix("fF", 16), Some(255));
        // Lengths past 64 bits are refused, never overflowed (a probe found the panic).
        assert!(signed_twips("99999999999999999999").is_err());
        assert!(unsigned_twips("99999999999999999").is_err());
    }
}
