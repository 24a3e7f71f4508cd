//! The pivot tables of a worksheet as OSWorld's `compare_table` rule `pivot_table` sees them:
//! openpyxl reads each pivot table of the sheet (with the cache it names), and
//! `load_pivot_tables` keys it by its cache source, shifted by the fields at either end that
//! have no items, with the properties the rule asks for. Two sheets agree when those maps are
//! equal. What openpyxl refuses (a missing location, a cache that is not there, a subtotal
//! it does not know, an integer that is not one) makes the whole workbook unreadable, as
//! `load_workbook` fails on it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::charts::{plain, python_int};
use super::xml::{Element, Package};

/// The properties `load_pivot_tables` knows (`ordered` and `data_fields_name` change how
/// others are given).
const PROPS: &[&str] = &[
    "name",
    "show_total",
    "show_empty_row",
    "show_empty_col",
    "show_headers",
    "location",
    "filter",
    "selection",
    "ordered",
    "col_fields",
    "row_fields",
    "data_fields",
    "data_fields_name",
];

const SUBTOTALS: &[&str] = &["average", "count", "countNums", "max", "min", "product", "stdDev", "stdDevp", "sum", "var", "varp"];
const SHOW_DATA_AS: &[&str] = &["normal", "difference", "percent", "percentDiff", "runTotal", "percentOfRow", "percentOfCol", "percentOfTotal", "index"];
const ITEM_TYPES: &[&str] =
    &["data", "default", "sum", "countA", "avg", "max", "min", "product", "count", "stdDev", "stdDevP", "var", "varP", "grand", "blank"];
const SOURCE_TYPES: &[&str] = &["worksheet", "external", "consolidation", "scenario"];

/// One item of a field: its `h` (hidden: absent, true or false) and its `x` (index into the
/// cache's shared items).
type Item = (Option<bool>, i64);

/// Where a pivot table's cache takes its data from.
#[derive(Debug, Clone)]
struct Source {
    kind: String,
    /// `worksheetSource`'s `ref` and `sheet`; `None` when the source is no worksheet range.
    range: Option<(Option<String>, Option<String>)>,
}

/// `location`, compared as openpyxl compares it: every attribute, as a value.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Location {
    reference: String,
    first_header_row: i64,
    first_data_row: i64,
    first_data_col: i64,
    row_page_count: Option<i64>,
    col_page_count: Option<i64>,
}

#[derive(Debug, Clone)]
struct DataField {
    fld: i64,
    name: Option<String>,
    subtotal: String,
    show_data_as: String,
}

/// One pivot table as openpyxl loaded it.
#[derive(Debug, Clone)]
struct Pivot {
    name: String,
    visual_totals: bool,
    show_empty_row: bool,
    show_empty_col: bool,
    show_headers: bool,
    location: Location,
    /// Each field's items that have an index.
    fields: Vec<Vec<Item>>,
    page_fields: Vec<i64>,
    row_fields: Vec<i64>,
    col_fields: Vec<i64>,
    data_fields: Vec<DataField>,
    source: Source,
}

/// One property of a pivot table as `load_pivot_tables` gives it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Prop {
    Bool(bool),
    Text(String),
    Location(Location),
    /// `selection` with `ordered`: each field's items in order.
    Ordered(Vec<Vec<Item>>),
    /// `selection`: each field's items as a set.
    Sets(Vec<BTreeSet<Item>>),
    IntSet(BTreeSet<i64>),
    Ints(Vec<i64>),
    Texts(Vec<String>),
}

/// A sheet's pivot tables: source → property → value.
pub(super) type Loaded = BTreeMap<String, BTreeMap<&'static str, Prop>>;

/// Every worksheet's pivot tables, read as `openpyxl.load_workbook` reads them.
#[derive(Debug, Default)]
pub struct Pivots {
    sheets: BTreeMap<String, Vec<Pivot>>,
    /// Chart sheets: openpyxl's chart sheet has no pivot tables to ask for (OSWorld raises).
    chartsheets: BTreeSet<String>,
}

/// An attribute openpyxl converts with `int()`: absent → `None`; not an integer → the load
/// fails.
fn int_attr(e: &Element, name: &str) -> Result<Option<i64>, String> {
    match plain(e, name) {
        None => Ok(None),
        Some(v) => python_int(v).map(Some).ok_or_else(|| format!("<{}> {name}={v:?} is not an integer", e.name)),
    }
}

fn required_int(e: &Element, name: &str) -> Result<i64, String> {
    int_attr(e, name)?.ok_or_else(|| format!("<{}> has no {name}", e.name))
}

/// openpyxl's `Bool`: "false", "f", "0" and "" are false, any other text true.
pub(super) fn openpyxl_bool(v: &str) -> bool {
    !matches!(v, "false" | "f" | "0" | "")
}

fn bool_attr(e: &Element, name: &str, default: bool) -> bool {
    plain(e, name).map_or(default, openpyxl_bool)
}

/// An attribute openpyxl holds to a set of values: absent → `default`.
fn one_of(e: &Element, name: &str, values: &[&str], default: &str) -> Result<String, String> {
    match plain(e, name) {
        None => Ok(default.to_string()),
        Some(v) if values.contains(&v) => Ok(v.to_string()),
        Some(v) => Err(format!("<{}> {name}={v:?} is not one of {}", e.name, values.join(", "))),
    }
}

/// The last child of that name (openpyxl keeps the last of a repeated element), or its
/// element children as a sequence.
fn last<'a>(e: &'a Element, name: &'a str) -> Option<&'a Element> {
    e.all(name).last()
}

fn sequence<'a>(e: &'a Element, name: &'a str) -> Vec<&'a Element> {
    last(e, name).map(|s| s.elements().collect()).unwrap_or_default()
}

fn cache_source(definition: &Element) -> Result<Source, String> {
    let source = last(definition, "cacheSource").ok_or("a pivot cache without its cacheSource")?;
    let kind = one_of(source, "type", SOURCE_TYPES, "")?;
    if kind.is_empty() {
        return Err("a pivot cache source without its type".into());
    }
    let range = last(source, "worksheetSource").map(|w| (plain(w, "ref").map(str::to_string), plain(w, "sheet").map(str::to_string)));
    Ok(Source { kind, range })
}

fn pivot(table: &Element, caches: &BTreeMap<i64, Source>) -> Result<Pivot, String> {
    let name = plain(table, "name").ok_or("a pivot table without a name")?.to_string();
    let cache = required_int(table, "cacheId")?;
    plain(table, "dataCaption").ok_or("a pivot table without its dataCaption")?;
    for attr in ["dataPosition", "updatedVersion", "minRefreshableVersion", "pageWrap", "createdVersion", "indent", "chartFormat", "autoFormatId"] {
        int_attr(table, attr)?;
    }
    let location = last(table, "location").ok_or("a pivot table without its location")?;
    let location = Location {
        reference: plain(location, "ref").ok_or("a pivot table location without its ref")?.to_string(),
        first_header_row: required_int(location, "firstHeaderRow")?,
        first_data_row: required_int(location, "firstDataRow")?,
        first_data_col: required_int(location, "firstDataCol")?,
        row_page_count: int_attr(location, "rowPageCount")?,
        col_page_count: int_attr(location, "colPageCount")?,
    };
    let mut fields = Vec::new();
    for field in sequence(table, "pivotFields") {
        let mut items = Vec::new();
        for item in sequence(field, "items") {
            one_of(item, "t", ITEM_TYPES, "data")?;
            if let Some(x) = int_attr(item, "x")? {
                items.push((plain(item, "h").map(openpyxl_bool), x));
            }
        }
        fields.push(items);
    }
    let indices = |list: &str, attr: &str| -> Result<Vec<i64>, String> { sequence(table, list).iter().map(|f| required_int(f, attr)).collect() };
    let page_fields = indices("pageFields", "fld")?;
    let row_fields = indices("rowFields", "x")?;
    let col_fields = indices("colFields", "x")?;
    let mut data_fields = Vec::new();
    for field in sequence(table, "dataFields") {
        for attr in ["baseField", "baseItem", "numFmtId"] {
            int_attr(field, attr)?;
        }
        data_fields.push(DataField {
            fld: required_int(field, "fld")?,
            name: plain(field, "name").map(str::to_string),
            subtotal: one_of(field, "subtotal", SUBTOTALS, "sum")?,
            show_data_as: one_of(field, "showDataAs", SHOW_DATA_AS, "normal")?,
        });
    }
    let source = caches.get(&cache).ok_or_else(|| format!("pivot table {name:?} names cache {cache}, which the workbook lacks"))?.clone();
    Ok(Pivot {
        name,
        visual_totals: bool_attr(table, "visualTotals", true),
        show_empty_row: bool_attr(table, "showEmptyRow", false),
        show_empty_col: bool_attr(table, "showEmptyCol", false),
        show_headers: bool_attr(table, "showHeaders", true),
        location,
        fields,
        page_fields,
        row_fields,
        col_fields,
        data_fields,
        source,
    })
}

impl Pivots {
    pub fn read(path: &Path) -> Result<Pivots, String> {
        let mut package = Package::open(path)?;
        let workbook = "xl/workbook.xml";
        let root = package.xml(workbook)?.ok_or("not a workbook: xl/workbook.xml is missing")?;
        // openpyxl reads every cache the workbook lists whenever it loads a worksheet.
        let cache_parts: BTreeMap<String, String> = package.related(workbook, "pivotCacheDefinition")?.into_iter().collect();
        let mut caches = BTreeMap::new();
        for entry in sequence(&root, "pivotCaches") {
            let id = required_int(entry, "cacheId")?;
            let part = entry.rel_id().and_then(|r| cache_parts.get(r)).ok_or_else(|| format!("pivot cache {id}: its part is not related to the workbook"))?;
            let definition = package.xml(part)?.ok_or_else(|| format!("{part}: the pivot cache is missing"))?;
            caches.insert(id, cache_source(&definition).map_err(|e| format!("{part}: {e}"))?);
        }
        let worksheets: BTreeMap<String, String> = package.related(workbook, "worksheet")?.into_iter().collect();
        let chart_parts: BTreeMap<String, String> = package.related(workbook, "chartsheet")?.into_iter().collect();
        let mut pivots = Pivots::default();
        for sheet in root.child("sheets").into_iter().flat_map(|s| s.all("sheet")) {
            let Some(name) = sheet.attr("name") else { continue };
            let Some(id) = sheet.rel_id() else { continue };
            if chart_parts.contains_key(id) {
                pivots.chartsheets.insert(name.to_string());
            }
            let Some(part) = worksheets.get(id) else { continue };
            let mut tables = Vec::new();
            for (_, target) in package.related(part, "pivotTable")? {
                let table = package.xml(&target)?.ok_or_else(|| format!("{target}: the pivot table is missing"))?;
                tables.push(pivot(&table, &caches).map_err(|e| format!("{target}: {e}"))?);
            }
            pivots.sheets.insert(name.to_string(), tables);
        }
        Ok(pivots)
    }

    /// `load_pivot_tables(workbook, sheet, pivot_props=props)`: source → properties. A sheet
    /// that does not exist has none; `Err` where OSWorld raises (a source that is no range).
    pub fn load(&self, sheet: &str, props: &[String]) -> Result<Loaded, String> {
        if let Some(p) = props.iter().find(|p| !PROPS.contains(&p.as_str())) {
            // OSWorld ignores a property it does not know; we say so instead of guessing.
            return Err(format!("compare_table: pivot property {p:?} is not one of {}", PROPS.join(", ")));
        }
        if self.chartsheets.contains(sheet) {
            return Err(format!("compare_table: {sheet:?} is a chart sheet, which has no pivot tables"));
        }
        let asked = |p: &str| props.iter().any(|q| q == p);
        let mut out = Loaded::new();
        for pivot in self.sheets.get(sheet).into_iter().flatten() {
            // Fields with no items at either end are left out, and the source range narrowed
            // by as many columns.
            let left = pivot.fields.iter().take_while(|f| f.is_empty()).count();
            let right = pivot.fields[left..].iter().rev().take_while(|f| f.is_empty()).count();
            let selection = &pivot.fields[left..pivot.fields.len() - right];
            let source = source_key(&pivot.source, left as i64, right as i64)?;
            let shift = |v: &[i64]| v.iter().map(|x| x - left as i64).collect::<Vec<_>>();
            let mut info = BTreeMap::new();
            if asked("name") {
                info.insert("name", Prop::Text(pivot.name.clone()));
            }
            for (prop, value) in [
                ("show_total", pivot.visual_totals),
                ("show_empty_row", pivot.show_empty_row),
                ("show_empty_col", pivot.show_empty_col),
                ("show_headers", pivot.show_headers),
            ] {
                if asked(prop) {
                    info.insert(prop, Prop::Bool(value));
                }
            }
            if asked("location") {
                info.insert("location", Prop::Location(pivot.location.clone()));
            }
            if asked("filter") || asked("selection") {
                let value = if asked("ordered") {
                    Prop::Ordered(selection.to_vec())
                } else {
                    Prop::Sets(selection.iter().map(|f| f.iter().copied().collect()).collect())
                };
                info.insert("selection", value);
            }
            if asked("filter") {
                // Not shifted: OSWorld gives the page fields' own indices.
                info.insert("filter_fields", Prop::IntSet(pivot.page_fields.iter().copied().collect()));
            }
            if asked("col_fields") {
                info.insert("col_fields", Prop::Ints(shift(&pivot.col_fields)));
            }
            if asked("row_fields") {
                info.insert("row_fields", Prop::Ints(shift(&pivot.row_fields)));
            }
            if asked("data_fields") {
                let named = asked("data_fields_name");
                let text = |f: &DataField| {
                    let name = if named { f.name.clone().unwrap_or_else(|| "None".into()) } else { String::new() };
                    format!("{};{name};{};{}", f.fld - left as i64, f.subtotal, f.show_data_as)
                };
                info.insert("data_fields", Prop::Texts(pivot.data_fields.iter().map(text).collect()));
            }
            // A later table with the same source replaces the earlier one.
            out.insert(source, info);
        }
        Ok(out)
    }
}

/// `"{type};{(row, col)}:{(row, col)};{sheet}"`, the range's first column moved right by
/// `left` and its last moved left by `right`.
fn source_key(source: &Source, left: i64, right: i64) -> Result<String, String> {
    let Some((Some(reference), sheet)) = &source.range else {
        return Err("compare_table: a pivot cache's source is no worksheet range (OSWorld raises)".into());
    };
    let mut corners = reference.split(':');
    let (Some(first), Some(last), None) = (corners.next(), corners.next(), corners.next()) else {
        return Err(format!("compare_table: pivot source {reference:?} is not two corners (OSWorld raises)"));
    };
    let (r1, c1) = coordinate(first)?;
    let (r2, c2) = coordinate(last)?;
    let sheet = sheet.as_deref().unwrap_or("None");
    Ok(format!("{};({r1}, {}):({r2}, {});{sheet}", source.kind, c1 + left, c2 - right))
}

/// openpyxl's `coordinate_to_tuple`: the letters up to the first digit are the column, the
/// rest the row (read by `int()`).
fn coordinate(text: &str) -> Result<(i64, i64), String> {
    let bad = || format!("compare_table: pivot source corner {text:?} is not a cell (OSWorld raises)");
    // No digit: the split falls before the last character.
    let at = text.find(|c: char| c.is_ascii_digit()).or_else(|| text.char_indices().last().map(|(i, _)| i)).ok_or_else(bad)?;
    let (col, row) = text.split_at(at);
    let row = python_int(row).ok_or_else(bad)?;
    if col.chars().count() > 3 {
        return Err(bad());
    }
    let mut index = 0;
    for c in col.chars() {
        let c = c.to_ascii_uppercase();
        if !c.is_ascii_uppercase() {
            return Err(bad());
        }
        index = index * 26 + i64::from(c as u8 - b'A' + 1);
    }
    if !(1..=18278).contains(&index) {
        return Err(bad());
    }
    Ok((row, index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_read_as_openpyxl_reads_them() {
        assert_eq!(coordinate("A1"), Ok((1, 1)));
        assert_eq!(coordinate("e25"), Ok((25, 5)));
        assert_eq!(coordinate("ZZZ3"), Ok((3, 18278)));
        assert!(coordinate("$A$1").is_err());
        assert!(coordinate("AAAA1").is_err());
        assert!(coordinate("B").is_err());
        assert!(coordinate("").is_err());
    }

    #[test]
    fn unused_fields_at_either_end_narrow_the_source() {
        let source = Source { kind: "worksheet".into(), range: Some((Some("A1:E25".into()), Some("Data".into()))) };
        assert_eq!(source_key(&source, 1, 2).unwrap(), "worksheet;(1, 2):(25, 3);Data");
        let named = Source { kind: "worksheet".into(), range: Some((None, None)) };
        assert!(source_key(&named, 0, 0).is_err());
    }

    #[test]
    fn booleans_as_openpyxl_converts_them() {
        assert!(!openpyxl_bool("0") && !openpyxl_bool("false") && !openpyxl_bool("f") && !openpyxl_bool(""));
        assert!(openpyxl_bool("1") && openpyxl_bool("true") && openpyxl_bool("False"));
    }
}
