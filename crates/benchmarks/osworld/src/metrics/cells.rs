//! Single cells of an xlsx as OSWorld's cell rules read them. `read_cell_value` reads the raw
//! XML, not openpyxl: the sheet's part is named after its `sheetId`
//! (`xl/worksheets/sheet{id}.xml`), the cell is found by its `r`, and its value is taken by its
//! type (a number as Python's `float`, a shared string by index, a formula's text, an inline
//! string, an error's code; a boolean or a date is `None`). Whether a cell is merged is
//! openpyxl's `MergedCell`: inside a merged range and not its first cell.

use std::collections::BTreeMap;
use std::path::Path;

use super::xml::{Element, Node, Package};

/// A cell's value as `read_cell_value` returns it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum CellValue {
    Number(f64),
    Text(String),
    /// What xmltodict makes of a text element with attributes (`<t xml:space="preserve">`, as
    /// openpyxl writes a string with blanks at an end): `{"@attr": value, "#text": text}`, in
    /// that order. OSWorld returns the dict itself, which equals no text.
    Dict(Vec<(String, String)>),
}

impl CellValue {
    /// Python's `str()` of the value (`None` for no value).
    pub(super) fn python_str(value: &Option<CellValue>) -> String {
        match value {
            None => "None".into(),
            Some(CellValue::Text(t)) => t.clone(),
            Some(CellValue::Number(n)) => python_float_repr(*n),
            Some(CellValue::Dict(entries)) => {
                let items: Vec<String> = entries.iter().map(|(k, v)| format!("{}: {}", python_str_repr(k), python_str_repr(v))).collect();
                format!("{{{}}}", items.join(", "))
            }
        }
    }
}

/// Python's `repr` of a text: single quotes, or double ones when it holds a single quote and
/// no double one; backslashes, the quote, line ends and tabs escaped, other controls as `\x..`.
fn python_str_repr(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') { '"' } else { '\'' };
    let mut out = String::from(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr` of a float: the shortest digits that read back, in positional notation
/// from 1e-4 up to 1e16 (with `.0` when whole), else as `1.5e-05`, `1e+16`.
pub(super) fn python_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let scientific = format!("{f:e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} writes an exponent");
    let exponent: i32 = exponent.parse().expect("{:e} writes an integer exponent");
    if (-4..16).contains(&exponent) {
        let plain = format!("{f}");
        if plain.contains('.') {
            plain
        } else {
            format!("{plain}.0")
        }
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.abs())
    }
}

/// An element's text as lxml's `.text` gives it: `None` when it holds no text before its
/// first child (an empty `<t/>`).
fn lxml_text(e: &Element) -> Option<String> {
    let mut text = None;
    for child in &e.children {
        match child {
            Node::Text(t) => text.get_or_insert_with(String::new).push_str(t),
            Node::Element(_) => break,
        }
    }
    text
}

/// The shared strings as OSWorld reads them: each `si`'s `t` descendants joined; all of them
/// lost (an empty list) when one `t` holds no text, as Python's `join` then raises and OSWorld
/// catches it.
fn shared_strings(package: &mut Package) -> Vec<String> {
    let Ok(Some(root)) = package.xml("xl/sharedStrings.xml") else { return Vec::new() };
    let mut out = Vec::new();
    for si in root.all("si") {
        let mut ts = Vec::new();
        si.descendants_all("t", &mut ts);
        let mut joined = String::new();
        for t in ts {
            match lxml_text(t) {
                Some(text) => joined.push_str(&text),
                None => return Vec::new(),
            }
        }
        out.push(joined);
    }
    out
}

/// The cell `r="coordinate"` of a row, the first in the part.
fn find_cell<'a>(root: &'a Element, coordinate: &str) -> Option<&'a Element> {
    fn walk<'a>(e: &'a Element, coordinate: &str) -> Option<&'a Element> {
        for child in e.elements() {
            if child.name == "row" {
                if let Some(c) = child.all("c").find(|c| c.attr("r") == Some(coordinate)) {
                    return Some(c);
                }
            }
            if let Some(found) = walk(child, coordinate) {
                return Some(found);
            }
        }
        None
    }
    walk(root, coordinate)
}

/// A child as `xmltodict` gives it: absent, one element's text (`None` when empty), a dict
/// when it has attributes, or several (a list: Python raises on it as a number or an index).
enum Field {
    Absent,
    One(Option<String>),
    Dict(Vec<(String, String)>),
    Many,
}

fn field(e: &Element, name: &str) -> Field {
    let found: Vec<&Element> = e.all(name).collect();
    match found.as_slice() {
        [] => Field::Absent,
        [one] => {
            // xmltodict strips the text, and gives None for what is left empty.
            let text = Some(one.own_text().trim_matches(super::python_space).to_string()).filter(|t| !t.is_empty());
            if one.attrs.is_empty() {
                return Field::One(text);
            }
            // Namespaced attributes are keyed by their namespace's URI (the xml one is built in).
            let key = |k: &str| format!("@{}", k.strip_prefix("xml:").map_or(k.to_string(), |l| format!("http://www.w3.org/XML/1998/namespace:{l}")));
            let mut entries: Vec<(String, String)> = one.attrs.iter().filter(|(k, _)| !k.starts_with("xmlns")).map(|(k, v)| (key(k), v.clone())).collect();
            if entries.is_empty() {
                return Field::One(text);
            }
            entries.extend(text.map(|t| ("#text".to_string(), t)));
            Field::Dict(entries)
        }
        _ => Field::Many,
    }
}

/// OSWorld's `read_cell_value(path, sheet, coordinate)`: `Ok(None)` where it returns None,
/// `Err` where it raises (a value element that is empty or repeated where a number or an index
/// is read, a shared string index past the end).
pub(super) fn read_cell_value(path: &Path, sheet: &str, coordinate: &str, to_float: impl Fn(&str) -> Option<f64>) -> Result<Option<CellValue>, String> {
    let Ok(mut package) = Package::open(path) else { return Ok(None) };
    let strings = shared_strings(&mut package);
    let Ok(Some(workbook)) = package.xml("xl/workbook.xml") else { return Ok(None) };
    let ids: BTreeMap<&str, Option<&str>> =
        workbook.all("sheets").flat_map(|s| s.all("sheet")).filter_map(|s| Some((s.attr("name")?, s.attr("sheetId")))).collect();
    let Some(id) = ids.get(sheet) else { return Ok(None) };
    let part = format!("xl/worksheets/sheet{}.xml", id.unwrap_or("None"));
    let Ok(Some(root)) = package.xml(&part) else { return Ok(None) };
    let Some(cell) = find_cell(&root, coordinate) else { return Ok(None) };
    let raises = |why: &str| Err(format!("read_cell_value {sheet}!{coordinate}: {why} (OSWorld raises)"));
    match cell.attr("t") {
        None | Some("n") => match field(cell, "v") {
            Field::Absent => Ok(None),
            Field::One(Some(v)) => Ok(to_float(&v).map(CellValue::Number)),
            Field::One(None) | Field::Dict(_) | Field::Many => raises("a number's value is empty, repeated or has attributes"),
        },
        Some("s") => match field(cell, "v") {
            Field::Absent => Ok(None),
            Field::One(Some(v)) => {
                let Some(index) = super::charts::python_int(&v) else { return Ok(None) };
                // Python's list index: negative from the end.
                let at = if index < 0 { strings.len() as i64 + index } else { index };
                match usize::try_from(at).ok().and_then(|i| strings.get(i)) {
                    Some(s) => Ok(Some(CellValue::Text(s.clone()))),
                    None => raises("a shared string index past the end"),
                }
            }
            Field::One(None) | Field::Dict(_) | Field::Many => raises("a shared string's index is empty, repeated or has attributes"),
        },
        Some("str") | Some("e") => match field(cell, "v") {
            Field::One(Some(v)) => Ok(Some(CellValue::Text(v))),
            Field::Dict(d) => Ok(Some(CellValue::Dict(d))),
            Field::Absent | Field::One(None) => Ok(None),
            Field::Many => raises("a value repeated"),
        },
        Some("inlineStr") => match cell.all("is").collect::<Vec<_>>().as_slice() {
            [] => Ok(None),
            [is] if is.children.is_empty() => raises("an empty inline string"),
            [is] => match field(is, "t") {
                Field::One(Some(t)) => Ok(Some(CellValue::Text(t))),
                Field::Dict(d) => Ok(Some(CellValue::Dict(d))),
                _ => Ok(None),
            },
            _ => raises("an inline string repeated"),
        },
        Some(_) => Ok(None),
    }
}

/// openpyxl's `isinstance(sheet[coordinate], MergedCell)`: the cell lies in a merged range of
/// the sheet and is not that range's first cell. `Err` where openpyxl raises (no such cell
/// reference, no such sheet).
pub(super) fn is_merged(path: &Path, sheet: &str, coordinate: &str) -> Result<bool, String> {
    let (row, col) = cell_reference(coordinate).ok_or_else(|| format!("{coordinate:?} is not a cell"))?;
    let part = super::sheets::worksheet(path, sheet)?.ok_or_else(|| format!("no worksheet {sheet:?}"))?;
    let mut ranges = part.all("mergeCells").flat_map(|m| m.all("mergeCell")).filter_map(|m| m.attr("ref")).filter_map(range_bounds);
    let merged = ranges.any(|((r1, c1), (r2, c2))| (r1..=r2).contains(&row) && (c1..=c2).contains(&col) && (row, col) != (r1, c1));
    Ok(merged)
}

/// A cell reference (`B3`, `$B$3`, `b3`) as (row, column), both from 1.
pub(super) fn cell_reference(text: &str) -> Option<(u32, u32)> {
    let t = text.replace('$', "");
    let split = t.find(|c: char| c.is_ascii_digit())?;
    let (letters, digits) = t.split_at(split);
    if letters.is_empty() || letters.len() > 3 || !letters.chars().all(|c| c.is_ascii_alphabetic()) || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let col = letters.chars().fold(0u32, |n, c| n * 26 + u32::from(c.to_ascii_uppercase() as u8 - b'A' + 1));
    let row: u32 = digits.parse().ok()?;
    (row >= 1 && (1..=18278).contains(&col)).then_some((row, col))
}

/// Whether openpyxl's `sheet[text]` takes `text` as several cells: a range, whole columns
/// (`A`, `A:C`) or whole rows (`3`, `3:5`).
pub(super) fn is_span(text: &str) -> bool {
    let t = text.replace('$', "");
    let part = |p: &str| {
        let letters = p.chars().take_while(char::is_ascii_alphabetic).count();
        let digits = &p[letters..];
        letters <= 3 && digits.chars().all(|c| c.is_ascii_digit()) && !p.is_empty()
    };
    match t.split_once(':') {
        Some((a, b)) => part(a) && part(b),
        None => part(&t) && cell_reference(&t).is_none(),
    }
}

/// A range (`A1:C4`, or one cell) as its first and last cell.
pub(super) fn range_bounds(text: &str) -> Option<((u32, u32), (u32, u32))> {
    match text.split_once(':') {
        Some((a, b)) => {
            let (a, b) = (cell_reference(a)?, cell_reference(b)?);
            Some(((a.0.min(b.0), a.1.min(b.1)), (a.0.max(b.0), a.1.max(b.1))))
        }
        None => cell_reference(text).map(|c| (c, c)),
    }
}

/// openpyxl's `get_column_letter`.
pub(super) fn column_letter(mut col: u32) -> String {
    let mut letters = Vec::new();
    while col > 0 {
        let rem = (col - 1) % 26;
        letters.push(b'A' + rem as u8);
        col = (col - 1) / 26;
    }
    letters.reverse();
    String::from_utf8(letters).expect("ASCII letters")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_prints_them() {
        for (f, s) in [
            (3.0, "3.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (-2.5, "-2.5"),
            (-0.0, "-0.0"),
            (123456789.125, "123456789.125"),
            (1.2345e100, "1.2345e+100"),
        ] {
            assert_eq!(python_float_repr(f), s, "{f}");
        }
    }

    #[test]
    fn references_and_letters() {
        assert_eq!(cell_reference("B3"), Some((3, 2)));
        assert_eq!(cell_reference("$aa$10"), Some((10, 27)));
        assert_eq!(cell_reference("A0"), None);
        assert_eq!(cell_reference("AAAA1"), None);
        assert_eq!(range_bounds("C4:A1"), Some(((1, 1), (4, 3))));
        assert_eq!(column_letter(1), "A");
        assert_eq!(column_letter(27), "AA");
        assert_eq!(column_letter(18278), "ZZZ");
    }
}
