//! What openpyxl reads of a worksheet besides its cells, for `compare_table`'s rules `freeze`
//! (the first sheet view's pane), `zoom` (its `zoomScale`), `row_props` (the row dimensions)
//! and `data_validation` (the validations and their ranges). The worksheet is the part the
//! workbook relates to the sheet's name; what openpyxl refuses to load is an `Err`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::cells::range_bounds;
use super::charts::{plain, python_int};
use super::pivots::openpyxl_bool;
use super::xml::{Element, Package};

/// A worksheet's part, by the sheet's name; none when the book has no such worksheet.
pub(super) fn worksheet(path: &Path, sheet: &str) -> Result<Option<Element>, String> {
    let mut package = Package::open(path)?;
    let workbook = "xl/workbook.xml";
    let root = package.xml(workbook)?.ok_or("not a workbook: xl/workbook.xml is missing")?;
    let parts: BTreeMap<String, String> = package.related(workbook, "worksheet")?.into_iter().collect();
    let part = root
        .child("sheets")
        .into_iter()
        .flat_map(|s| s.all("sheet"))
        .find(|s| s.attr("name") == Some(sheet))
        .and_then(|s| s.rel_id().and_then(|id| parts.get(id)));
    let Some(part) = part else { return Ok(None) };
    package.xml(part)
}

/// The first sheet view (openpyxl's `sheet_view`): a sheet without views has a default one.
fn first_view(ws: &Element) -> Result<Option<&Element>, String> {
    match ws.all("sheetViews").last() {
        None => Ok(None),
        Some(views) => views.child("sheetView").map(Some).ok_or_else(|| "sheetViews without a sheetView (openpyxl's sheetView[0] raises)".into()),
    }
}

/// `sheet.freeze_panes`: the first view's pane's `topLeftCell`; `Ok(None)` without a pane,
/// `Err` for a sheet that does not exist.
pub fn freeze_panes(path: &Path, sheet: &str) -> Result<Option<Option<String>>, String> {
    let Some(ws) = worksheet(path, sheet)? else { return Ok(None) };
    let pane = first_view(&ws)?.and_then(|v| v.all("pane").last());
    Ok(Some(pane.and_then(|p| plain(p, "topLeftCell")).map(String::from)))
}

/// `sheet.sheet_view.zoomScale or 100.0`, as the value OSWorld's rule matcher sees; none for
/// a sheet that does not exist.
pub fn zoom_scale(path: &Path, sheet: &str) -> Result<Option<Value>, String> {
    let Some(ws) = worksheet(path, sheet)? else { return Ok(None) };
    let scale = match first_view(&ws)?.and_then(|v| plain(v, "zoomScale")) {
        None => None,
        Some(text) => Some(python_int(text).ok_or_else(|| format!("zoomScale {text:?} is not an integer"))?),
    };
    Ok(Some(match scale {
        Some(n) if n != 0 => Value::from(n),
        _ => Value::from(100.0),
    }))
}

/// The row properties `row_props` may ask for, as openpyxl's `RowDimension` holds them.
pub const ROW_PROPS: &[&str] = &["hidden", "collapsed", "height", "ht", "outline_level", "outlineLevel"];

/// `load_rows_or_cols(obj="row", props=props)`: every row whose element carries an attribute
/// besides `r` and `spans` (openpyxl makes a dimension of those alone), by number, with the
/// asked properties; empty for a sheet that does not exist.
pub fn row_props(path: &Path, sheet: &str, props: &[String]) -> Result<BTreeMap<i64, BTreeMap<String, Value>>, String> {
    if let Some(p) = props.iter().find(|p| !ROW_PROPS.contains(&p.as_str())) {
        return Err(format!("compare_table: row property {p:?} is not read here; properties: {}", ROW_PROPS.join(", ")));
    }
    let Some(ws) = worksheet(path, sheet)? else { return Ok(BTreeMap::new()) };
    let mut rows = BTreeMap::new();
    let mut counter = 0i64;
    for row in ws.all("sheetData").flat_map(|d| d.all("row")) {
        counter = match plain(row, "r") {
            None => counter + 1,
            Some(r) => match python_int(r) {
                Some(n) => n,
                None => r.trim().parse::<f64>().ok().filter(|f| f.fract() == 0.0).map(|f| f as i64).ok_or_else(|| format!("{r} is not a valid row number"))?,
            },
        };
        // Namespaced attributes (`x14ac:dyDescent`) do not count.
        if !row.attrs.iter().any(|(k, _)| !k.contains(':') && k != "r" && k != "spans") {
            continue;
        }
        let float = |name: &str| -> Result<Value, String> {
            match plain(row, name) {
                None => Ok(Value::Null),
                Some(v) => v.trim().parse::<f64>().map(Value::from).map_err(|_| format!("row {counter}: {name}={v:?} is not a number")),
            }
        };
        let mut info = BTreeMap::new();
        for prop in props {
            let value = match prop.as_str() {
                "hidden" | "collapsed" => Value::Bool(plain(row, prop).is_some_and(openpyxl_bool)),
                "height" | "ht" => float("ht")?,
                _ => match plain(row, "outlineLevel") {
                    None => Value::from(0),
                    Some(v) => Value::from(python_int(v).ok_or_else(|| format!("row {counter}: outlineLevel={v:?} is not an integer"))?),
                },
            };
            info.insert(prop.clone(), value);
        }
        rows.insert(counter, info);
    }
    Ok(rows)
}

/// One data validation as openpyxl reads it: its attributes as the rule matcher sees them, and
/// its ranges.
pub struct Validation {
    attributes: BTreeMap<&'static str, Value>,
    ranges: Vec<Bounds>,
}

type Bounds = ((u32, u32), (u32, u32));

const SETS: &[(&str, &[&str])] = &[
    ("type", &["whole", "decimal", "list", "date", "time", "textLength", "custom"]),
    ("errorStyle", &["stop", "warning", "information"]),
    ("imeMode", &["noControl", "off", "on", "disabled", "hiragana", "fullKatakana", "halfKatakana", "fullAlpha", "halfAlpha", "fullHangul", "halfHangul"]),
    ("operator", &["between", "notBetween", "equal", "notEqual", "lessThan", "lessThanOrEqual", "greaterThan", "greaterThanOrEqual"]),
];
const BOOLS: &[&str] = &["showDropDown", "showInputMessage", "showErrorMessage", "allowBlank"];
const TEXTS: &[&str] = &["errorTitle", "error", "promptTitle", "prompt"];

/// `sheet.data_validations.dataValidation`; none for a sheet that does not exist.
pub fn data_validations(path: &Path, sheet: &str) -> Result<Option<Vec<Validation>>, String> {
    let Some(ws) = worksheet(path, sheet)? else { return Ok(None) };
    let mut out = Vec::new();
    for dv in ws.all("dataValidations").last().into_iter().flat_map(|d| d.all("dataValidation")) {
        let mut attributes = BTreeMap::new();
        for (name, values) in SETS {
            let value = match plain(dv, name) {
                None | Some("none") => Value::Null,
                Some(v) if values.contains(&v) => Value::from(v),
                Some(v) => return Err(format!("dataValidation {name}={v:?} is not one of {}", values.join(", "))),
            };
            attributes.insert(*name, value);
        }
        for name in BOOLS {
            attributes.insert(*name, Value::Bool(plain(dv, name).is_some_and(openpyxl_bool)));
        }
        for name in TEXTS {
            attributes.insert(*name, plain(dv, name).map_or(Value::Null, Value::from));
        }
        for name in ["formula1", "formula2"] {
            attributes.insert(name, dv.all(name).last().map_or(Value::Null, |f| Value::from(f.own_text())));
        }
        let sqref = plain(dv, "sqref").unwrap_or("");
        let ranges = multi_cell_range(sqref).ok_or_else(|| format!("dataValidation sqref {sqref:?} is not a range"))?;
        out.push(Validation { attributes, ranges });
    }
    Ok(Some(out))
}

/// openpyxl's `MultiCellRange` of a text: ranges or cells separated by blanks.
fn multi_cell_range(text: &str) -> Option<Vec<Bounds>> {
    text.split_whitespace()
        .map(|r| if r.contains(':') { range_bounds(r) } else { range_bounds(&format!("{r}:{r}")) })
        .map(|b| b.map(|((r1, c1), (r2, c2))| ((r1.min(r2), c1.min(c2)), (r1.max(r2), c1.max(c2)))))
        .collect()
}

/// Every range of `subset` lies within one range of `superset` (OSWorld's
/// `_multicellrange_containsby`).
fn contained_by(subset: &[Bounds], superset: &[Bounds]) -> bool {
    subset.iter().all(|((r1, c1), (r2, c2))| superset.iter().any(|((s1, d1), (s2, d2))| s1 <= r1 && d1 <= c1 && r2 <= s2 && c2 <= d2))
}

/// OSWorld's data-validation check: at least as many validations as `dv_props`, and each
/// validation matching every rule of some entry of `dv_props`.
pub fn check(validations: &[Validation], dv_props: &Value) -> Result<bool, String> {
    let entries = dv_props.as_array().ok_or("compare_table: data_validation needs dv_props, a list")?;
    if validations.len() < entries.len() {
        return Ok(false);
    }
    for dv in validations {
        let mut any = false;
        for entry in entries {
            let rules = entry.as_object().ok_or("compare_table: a dv_props entry is not an object")?;
            let mut all = true;
            for (attribute, rule) in rules {
                all &= matches(dv, attribute, rule)?;
                if !all {
                    break;
                }
            }
            if all {
                any = true;
                break;
            }
        }
        if !any {
            return Ok(false);
        }
    }
    Ok(true)
}

fn matches(dv: &Validation, attribute: &str, rule: &Value) -> Result<bool, String> {
    let attribute = match attribute {
        "allow_blank" => "allowBlank",
        "hide_drop_down" => "showDropDown",
        "validation_type" => "type",
        other => other,
    };
    if matches!(attribute, "ranges" | "sqref" | "cells") {
        if rule.get("method").and_then(Value::as_str) != Some("spreadsheet_range") {
            return Err(format!("compare_table: data_validation compares {attribute} by spreadsheet_range only here, not {rule}"));
        }
        let bounds = |i: usize| -> Result<Vec<Bounds>, String> {
            let text = rule.get("ref").and_then(|r| r.get(i)).and_then(Value::as_str).ok_or_else(|| format!("compare_table: {rule}: ref needs two ranges"))?;
            multi_cell_range(text).ok_or_else(|| format!("compare_table: {text:?} is not a range"))
        };
        return Ok(contained_by(&bounds(0)?, &dv.ranges) && contained_by(&dv.ranges, &bounds(1)?));
    }
    let value = dv.attributes.get(attribute).ok_or_else(|| format!("compare_table: a data validation has no attribute {attribute:?} (OSWorld raises)"))?;
    super::rules::match_or_false(value, rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_contained_as_openpyxl_contains_them() {
        let dv = multi_cell_range("D2:D29").unwrap();
        assert!(contained_by(&multi_cell_range("D2:D29").unwrap(), &dv));
        assert!(contained_by(&dv, &multi_cell_range("D2:D1048576").unwrap()));
        assert!(!contained_by(&multi_cell_range("D2:D30").unwrap(), &dv));
        // Each range within one range of the other, not their union.
        assert!(!contained_by(&multi_cell_range("A1:B1").unwrap(), &multi_cell_range("A1 B1").unwrap()));
        assert_eq!(multi_cell_range("A1"), Some(vec![((1, 1), (1, 1))]));
        assert!(multi_cell_range("A1:").is_none());
    }
}
