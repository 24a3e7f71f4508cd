//! The charts of a worksheet as OSWorld's `compare_table` rule `chart` sees them: openpyxl
//! reads each chart of the sheet's drawing, and `load_charts` keys it by its series' data
//! references (`values,categories` per series, joined by `;`) with the properties the rule
//! asks for. Two sheets agree when those maps are equal. openpyxl's quirks are kept: a chart
//! is its plot area's first chart type, width and height are openpyxl's defaults (never read
//! from the file), and a property that does not apply to a chart (`direction` of a line
//! chart, `anchor` of a one-cell anchor) makes OSWorld raise.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use super::xml::{Element, Package};

/// The chart types openpyxl reads in a plot area.
const CHART_TYPES: &[&str] = &[
    "areaChart",
    "area3DChart",
    "lineChart",
    "line3DChart",
    "stockChart",
    "radarChart",
    "scatterChart",
    "pieChart",
    "pie3DChart",
    "doughnutChart",
    "barChart",
    "bar3DChart",
    "ofPieChart",
    "surfaceChart",
    "surface3DChart",
    "bubbleChart",
];

/// The properties `load_charts` knows.
const PROPS: &[&str] = &["title", "legend", "anchor", "width", "height", "type", "direction", "xtitle", "ytitle", "ztitle"];

/// Why the charts could not be read: the workbook itself (openpyxl fails to load it) or a
/// property that does not apply (OSWorld raises while comparing).
#[derive(Debug)]
pub enum ChartError {
    Unreadable(String),
    Raises(String),
}

/// One chart as openpyxl loaded it: its chart part and the drawing anchor holding it.
#[derive(Debug)]
struct Loaded {
    space: Element,
    anchor: Element,
}

/// Every sheet's charts, read as `openpyxl.load_workbook` reads them: all sheets (chart
/// sheets too) at load time, so a chart that breaks the reader anywhere makes the whole
/// workbook unreadable (`Err`), while one that fails a typed field is skipped, as openpyxl
/// skips it with a warning.
#[derive(Debug, Default)]
pub struct Charts {
    sheets: BTreeMap<String, Vec<Loaded>>,
}

impl Charts {
    pub fn read(path: &Path) -> Result<Charts, String> {
        let mut package = Package::open(path)?;
        let workbook = "xl/workbook.xml";
        let root = package.xml(workbook)?.ok_or("not a workbook: xl/workbook.xml is missing")?;
        let rels: BTreeMap<String, String> = package.related(workbook, "worksheet")?.into_iter().chain(package.related(workbook, "chartsheet")?).collect();
        let mut sheets = BTreeMap::new();
        for sheet in root.child("sheets").into_iter().flat_map(|s| s.all("sheet")) {
            let (Some(name), Some(part)) = (sheet.attr("name"), sheet.rel_id().and_then(|id| rels.get(id))) else { continue };
            let mut charts = Vec::new();
            for (_, drawing) in package.related(part, "drawing")? {
                let Some(root) = package.xml(&drawing)? else { continue };
                let targets: BTreeMap<String, String> = package.related(&drawing, "chart")?.into_iter().collect();
                // openpyxl takes absolute anchors, then one-cell, then two-cell ones.
                for kind in ["absoluteAnchor", "oneCellAnchor", "twoCellAnchor"] {
                    for anchor in root.all(kind) {
                        let Some(reference) = anchor.path(&["graphicFrame", "graphic", "graphicData", "chart"]) else { continue };
                        let id = reference.rel_id().unwrap_or_default();
                        let target = targets.get(id).ok_or_else(|| format!("{drawing}: chart relationship {id:?} is missing"))?;
                        let space = package.xml(target)?.ok_or_else(|| format!("{target}: the chart part is missing"))?;
                        match check(&space) {
                            Check::Fine => charts.push(Loaded { space, anchor: anchor.clone() }),
                            Check::Skipped => {}
                            Check::Fails(why) => return Err(format!("{target}: {why}")),
                        }
                    }
                }
            }
            sheets.insert(name.to_string(), charts);
        }
        Ok(Charts { sheets })
    }

    /// `load_charts(workbook, sheet, chart_props=props)`: series key → properties. A sheet
    /// that does not exist has no charts.
    pub fn load(&self, sheet: &str, props: &[String]) -> Result<BTreeMap<String, Value>, ChartError> {
        if let Some(p) = props.iter().find(|p| !PROPS.contains(&p.as_str())) {
            // OSWorld ignores a property it does not know; we say so instead of guessing.
            return Err(ChartError::Raises(format!("compare_table: chart property {p:?} is not one of {}", PROPS.join(", "))));
        }
        let mut out = BTreeMap::new();
        for chart in self.sheets.get(sheet).into_iter().flatten() {
            let (key, info) = chart_info(&chart.space, &chart.anchor, props)?;
            out.insert(key, info);
        }
        Ok(out)
    }
}

/// An attribute as openpyxl reads it: by its plain name only (a prefixed `c:val` is not it).
pub(super) fn plain<'a>(e: &'a Element, name: &str) -> Option<&'a str> {
    e.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// Python's `int()` of a string: surrounding whitespace, a sign, digits with single
/// underscores between them.
pub(super) fn python_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    t.replace('_', "").parse().ok()
}

/// A nested integer (`<c:order val="2"/>`): absent → `default`; present but not an integer
/// → `Err` (openpyxl's TypeError).
fn nested_int(e: &Element, name: &str, default: Option<i64>) -> Result<Option<i64>, ()> {
    match e.child(name) {
        None => Ok(default),
        Some(c) => plain(c, "val").and_then(python_int).map(Some).ok_or(()),
    }
}

enum Check {
    Fine,
    /// A typed field openpyxl cannot convert: it skips the chart.
    Skipped,
    /// openpyxl's reader raises: the workbook does not load.
    Fails(String),
}

const LEGEND_POSITIONS: &[&str] = &["b", "tr", "l", "r", "t"];

/// Whether openpyxl's reader takes this chart part, skips it, or fails on it.
fn check(space: &Element) -> Check {
    let Some(chart) = space.child("chart") else { return Check::Skipped };
    let Some(plot) = chart.child("plotArea") else { return Check::Fails("no c:plotArea".into()) };
    let types: Vec<&Element> = plot.elements().filter(|e| CHART_TYPES.contains(&e.name.as_str())).collect();
    if types.is_empty() {
        return Check::Fails("the plot area holds no chart".into());
    }
    for t in &types {
        for ser in t.all("ser") {
            if nested_int(ser, "order", Some(0)).is_err() || nested_int(ser, "idx", Some(0)).is_err() {
                return Check::Skipped;
            }
        }
    }
    let Some(axes) = axes_by_id(plot) else { return Check::Skipped };
    for t in &types {
        let mut ids = Vec::new();
        for a in t.all("axId") {
            match plain(a, "val").and_then(python_int) {
                Some(id) => ids.push(id),
                None => return Check::Skipped,
            }
        }
        if matches!(t.name.as_str(), "scatterChart" | "bubbleChart") {
            if ids.len() != 2 || ids.iter().any(|id| !axes.contains_key(id)) {
                return Check::Fails(format!("a {} needs two known axes", t.name));
            }
        } else if !matches!(t.name.as_str(), "bar3DChart" | "surface3DChart") && ids.iter().any(|id| !axes.contains_key(id)) {
            return Check::Fails(format!("a {} names an axis the plot area lacks", t.name));
        }
    }
    if let Some(position) = chart.child("legend").and_then(|l| l.child("legendPos")) {
        if !plain(position, "val").is_some_and(|v| LEGEND_POSITIONS.contains(&v)) {
            return Check::Fails("a legend position openpyxl does not know".into());
        }
    }
    Check::Fine
}

const AXES: &[&str] = &["catAx", "dateAx", "valAx", "serAx"];

/// The plot area's axes by their integer id, as openpyxl maps them (a later axis with the
/// same id replaces the earlier one); `None` when an axis's id is not an integer.
fn axes_by_id(plot: &Element) -> Option<BTreeMap<i64, &Element>> {
    let mut axes = BTreeMap::new();
    for axis in plot.elements().filter(|e| AXES.contains(&e.name.as_str())) {
        axes.insert(nested_int(axis, "axId", None).ok().flatten()?, axis);
    }
    Some(axes)
}

/// One chart (already checked): its key and the asked properties.
fn chart_info(space: &Element, anchor: &Element, props: &[String]) -> Result<(String, Value), ChartError> {
    let unreadable = |m: &str| ChartError::Unreadable(m.to_string());
    let chart = space.child("chart").ok_or_else(|| unreadable("no c:chart"))?;
    let plot = chart.child("plotArea").ok_or_else(|| unreadable("no c:plotArea"))?;
    let first = plot.elements().find(|e| CHART_TYPES.contains(&e.name.as_str())).ok_or_else(|| unreadable("the plot area holds no chart"))?;
    let mut series: Vec<(i64, String)> = Vec::new();
    for ser in first.all("ser") {
        let order = nested_int(ser, "order", Some(0)).ok().flatten().unwrap_or(0);
        series.push((order, format!("{},{}", values_ref(ser.child("val")), categories_ref(ser.child("cat")))));
    }
    // Python's sort is stable, as is this one.
    series.sort_by_key(|(order, _)| *order);
    let key = series.into_iter().map(|(_, s)| s).collect::<Vec<_>>().join(";");
    let mut info = serde_json::Map::new();
    for prop in props {
        let value = match prop.as_str() {
            "title" => title(chart.child("title")),
            "legend" => match chart.child("legend") {
                None => Value::Null,
                Some(legend) => json!(legend.child("legendPos").and_then(|p| plain(p, "val")).unwrap_or("r")),
            },
            "anchor" => {
                if anchor.name != "twoCellAnchor" {
                    return Err(ChartError::Raises(format!("compare_table: a chart's {} has no end cell (OSWorld raises on 'anchor')", anchor.name)));
                }
                let cell = |marker: &str, field: &str| -> Value {
                    anchor.path(&[marker, field]).and_then(|e| python_int(&e.own_text())).map_or(Value::Null, |n| json!(n))
                };
                json!([plain(anchor, "editAs"), cell("from", "col"), cell("to", "row"), cell("to", "col"), cell("to", "row")])
            }
            // openpyxl's defaults: it never reads a chart's size from the file.
            "width" => json!(15.0),
            "height" => json!(7.5),
            "type" => json!(first.name),
            "direction" => {
                if !first.name.starts_with("bar") {
                    return Err(ChartError::Raises(format!("compare_table: a {} has no direction (OSWorld raises on 'direction')", first.name)));
                }
                json!(first.child("barDir").and_then(|d| plain(d, "val")).unwrap_or("col"))
            }
            "xtitle" | "ytitle" | "ztitle" => match axis(plot, first, &prop[..1]) {
                // A chart without such an axis (a pie): OSWorld's `except` gives None.
                None => Value::Null,
                Some(a) => title(a.child("title")),
            },
            _ => unreachable!("checked against PROPS"),
        };
        info.insert(prop.clone(), value);
    }
    Ok((key, Value::Object(info)))
}

/// A reference's formula as OSWorld formats it: the text, or `None` when the element is
/// there without one.
fn formula(reference: &Element) -> String {
    match reference.child("f").map(Element::own_text) {
        Some(f) if !f.is_empty() => f,
        _ => "None".into(),
    }
}

/// A series' values: only a number reference counts (openpyxl's values hold numbers).
fn values_ref(data: Option<&Element>) -> String {
    data.and_then(|d| d.child("numRef")).map(formula).unwrap_or_default()
}

/// A series' categories: a number reference, else a string reference.
fn categories_ref(data: Option<&Element>) -> String {
    data.and_then(|d| d.child("numRef").or_else(|| d.child("strRef"))).map(formula).unwrap_or_default()
}

/// `title.tx.rich.p[0].r[0].t` as openpyxl fills in a title: no title is None; a title
/// without text (no `tx`, a reference instead of rich text, no paragraph, run or text) is
/// `""`; an empty text element reads as the string `"None"`.
fn title(title: Option<&Element>) -> Value {
    let Some(title) = title else { return Value::Null };
    let run = title.path(&["tx", "rich", "p"]).and_then(|p| p.child("r"));
    match run.and_then(|r| r.child("t")) {
        None => json!(""),
        Some(t) => {
            let text = t.own_text();
            json!(if text.is_empty() { "None".to_string() } else { text })
        }
    }
}

/// The axis openpyxl binds to a chart as its x, y or z axis: by the chart's axis ids (as
/// integers; a later axis with the same id wins), a category or date axis is x, a value axis
/// y, a series axis z (scatter and bubble charts: the first id is x, the second y). Pie
/// charts have none.
fn axis<'a>(plot: &'a Element, chart: &Element, which: &str) -> Option<&'a Element> {
    let ids: Vec<i64> = chart.all("axId").filter_map(|a| plain(a, "val").and_then(python_int)).collect();
    // Only charts that passed `check` get here, so every axis id reads.
    let axes = axes_by_id(plot).unwrap_or_default();
    let by_id = |id: i64| axes.get(&id).copied();
    if matches!(chart.name.as_str(), "scatterChart" | "bubbleChart") {
        let i = match which {
            "x" => 0,
            "y" => 1,
            _ => return None,
        };
        return ids.get(i).and_then(|id| by_id(*id));
    }
    let wanted: &[&str] = match which {
        "x" => &["catAx", "dateAx"],
        "y" => &["valAx"],
        _ => &["serAx"],
    };
    // openpyxl assigns in id order, so the last matching id wins.
    ids.iter().rev().filter_map(|id| by_id(*id)).find(|a| wanted.contains(&a.name.as_str()))
}
