//! `compare_table`: two workbooks judged by OSWorld's rules. OSWorld reads a sheet with
//! `pandas.read_excel` (first row as header) and compares the frames with `DataFrame.equals`
//! after rounding; the verdict depends on pandas' type inference (a column of whole numbers
//! is int64, one with a fraction float64, and int64 ≠ float64 even when the values round
//! equal). `Frame` reproduces that inference on the cells calamine reads, so verdicts match.

use std::path::{Path, PathBuf};

use calamine::{Data, Reader};
use serde_json::Value;

use super::cells::{self, CellValue};
use super::charts::{ChartError, Charts};
use super::pivots::Pivots;
use super::rules::{match_or_false, match_value_to_rule, python_float};
use super::score;
use super::sheets;

/// One cell as pandas sees it after reading.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Nan,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// A date, time or duration as openpyxl reads it: its kind, and milliseconds (openpyxl
    /// rounds a serial's fraction of a day to the millisecond, so a serial written to 15
    /// digits by LibreOffice equals the same instant written in full).
    Date(Moment, i64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Moment {
    DateTime,
    /// A serial in [0, 1): a time of day (a Python `time`, so an object column).
    Time,
    Duration,
}

/// openpyxl's `from_excel`: the day and the millisecond-rounded fraction; serials below 60
/// shift a day (Excel's phantom 1900-02-29).
fn moment(serial: f64, duration: bool) -> Cell {
    let day = serial.floor();
    let ms = ((serial - day) * 86_400_000.0).round() as i64;
    if duration {
        return Cell::Date(Moment::Duration, (serial * 86_400_000.0).round() as i64);
    }
    if (0.0..1.0).contains(&serial) && ms < 86_400_000 {
        return Cell::Date(Moment::Time, ms);
    }
    let day = if serial > 0.0 && serial < 60.0 { day + 1.0 } else { day };
    Cell::Date(Moment::DateTime, day as i64 * 86_400_000 + ms)
}

impl Cell {
    /// Python's `==` between two objects of an object column (`True == 1`, `1 == 1.0`).
    fn loose_eq(&self, other: &Cell) -> bool {
        match (self.number(), other.number()) {
            (Some(a), Some(b)) => a == b,
            _ => match (self, other) {
                (Cell::Nan, Cell::Nan) => true,
                (Cell::Str(a), Cell::Str(b)) => a == b,
                (Cell::Date(k, a), Cell::Date(l, b)) => k == l && a == b,
                _ => false,
            },
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(f) => Some(*f),
            Cell::Bool(b) => Some(f64::from(u8::from(*b))),
            _ => None,
        }
    }
}

/// A column's dtype as pandas infers it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Dtype {
    Int,
    Float,
    Bool,
    Date,
    Duration,
    Object,
}

#[derive(Debug, PartialEq)]
struct Column {
    name: Cell,
    dtype: Dtype,
    values: Vec<Cell>,
}

/// A sheet read as `pd.read_excel(book, sheet)` reads it.
#[derive(Debug)]
struct Frame {
    columns: Vec<Column>,
    rows: usize,
}

/// pandas' default strings read as missing.
const NA_STRINGS: &[&str] = &[
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
];

/// A cell as pandas' openpyxl reader hands it on: whole floats become ints, errors NaN.
fn convert(data: &Data) -> Cell {
    match data {
        Data::Empty | Data::Error(_) => Cell::Nan,
        Data::Int(i) => Cell::Int(*i),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Cell::Int(*f as i64),
        Data::Float(f) => Cell::Float(*f),
        Data::Bool(b) => Cell::Bool(*b),
        Data::String(s) if NA_STRINGS.contains(&s.as_str()) => Cell::Nan,
        Data::String(s) => Cell::Str(s.clone()),
        Data::DateTime(d) => moment(d.as_f64(), d.is_duration()),
        Data::DateTimeIso(s) | Data::DurationIso(s) => Cell::Str(s.clone()),
    }
}

/// A string pandas' numeric conversion accepts, as that number.
fn parse_number(s: &str) -> Option<Cell> {
    // pandas skips ASCII whitespace only (not a no-break space).
    let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
    if let Ok(i) = t.parse::<i64>() {
        return Some(Cell::Int(i));
    }
    let lower = t.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "+inf" | "-inf" | "infinity" | "+infinity" | "-infinity") || t.chars().any(|c| c.is_ascii_digit()) {
        return t.parse::<f64>().ok().map(Cell::Float);
    }
    None
}

/// A text pandas' parser reads as a boolean.
fn text_bool(s: &str) -> Option<bool> {
    match s {
        "True" | "TRUE" | "true" => Some(true),
        "False" | "FALSE" | "false" => Some(false),
        _ => None,
    }
}

/// Infers a column's dtype as pandas' parser does: bool when every value is a boolean (or
/// reads as one) and none is missing; datetime or timedelta when every present value is one;
/// numeric when every value converts (numeric strings included, booleans as 1/0); else object,
/// values unchanged.
fn infer(values: Vec<Cell>) -> (Dtype, Vec<Cell>) {
    let present: Vec<&Cell> = values.iter().filter(|c| **c != Cell::Nan).collect();
    let as_bool = |c: &Cell| match c {
        Cell::Bool(b) => Some(*b),
        Cell::Str(s) => text_bool(s),
        _ => None,
    };
    if !values.is_empty() && values.iter().all(|c| as_bool(c).is_some()) {
        return (Dtype::Bool, values.iter().filter_map(as_bool).map(Cell::Bool).collect());
    }
    if !present.is_empty() && present.iter().all(|c| matches!(c, Cell::Date(Moment::DateTime, _))) {
        return (Dtype::Date, values);
    }
    if !present.is_empty() && present.iter().all(|c| matches!(c, Cell::Date(Moment::Duration, _))) {
        return (Dtype::Duration, values);
    }
    let numeric: Option<Vec<Cell>> = values
        .iter()
        .map(|c| match c {
            Cell::Nan | Cell::Int(_) | Cell::Float(_) => Some(c.clone()),
            Cell::Bool(b) => Some(Cell::Int(i64::from(*b))),
            Cell::Str(s) => parse_number(s),
            Cell::Date(..) => None,
        })
        .collect();
    let Some(numeric) = numeric else { return (Dtype::Object, values) };
    if numeric.iter().all(|c| matches!(c, Cell::Int(_))) {
        return (Dtype::Int, numeric);
    }
    let floats = numeric
        .into_iter()
        .map(|c| match c {
            Cell::Int(i) => Cell::Float(i as f64),
            other => other,
        })
        .collect();
    (Dtype::Float, floats)
}

/// A header name as Python formats it in `f"{name}.{n}"`.
fn python_str(c: &Cell) -> String {
    match c {
        Cell::Str(s) => s.clone(),
        Cell::Int(i) => i.to_string(),
        Cell::Float(f) if f.fract() == 0.0 && f.is_finite() => format!("{f:.1}"),
        Cell::Float(f) => f.to_string(),
        Cell::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Cell::Nan => "nan".to_string(),
        Cell::Date(_, ms) => ms.to_string(),
    }
}

/// Duplicate header names numbered as pandas' python parser numbers them: each repeat
/// becomes `name.n` with the first `n` not already a name (`a, a, a.1` → `a, a.2, a.1`);
/// unnamed columns last; names equal as Python values (`1`, `1.0`, `True`) collide.
fn dedup(names: &mut [Cell], unnamed: &[usize]) {
    let mut counts: Vec<(Cell, usize)> = Vec::new();
    let count = |counts: &Vec<(Cell, usize)>, c: &Cell| counts.iter().find(|(k, _)| k.loose_eq(c)).map_or(0, |(_, n)| *n);
    let set = |counts: &mut Vec<(Cell, usize)>, c: &Cell, n: usize| match counts.iter_mut().find(|(k, _)| k.loose_eq(c)) {
        Some(entry) => entry.1 = n,
        None => counts.push((c.clone(), n)),
    };
    let order: Vec<usize> = (0..names.len()).filter(|i| !unnamed.contains(i)).chain(unnamed.iter().copied()).collect();
    for i in order {
        let old = names[i].clone();
        let mut col = old.clone();
        let mut cur = count(&counts, &col);
        while cur > 0 {
            set(&mut counts, &old, cur + 1);
            col = Cell::Str(format!("{}.{cur}", python_str(&old)));
            if names.iter().any(|n| n.loose_eq(&col)) {
                cur += 1;
            } else {
                cur = count(&counts, &col);
            }
        }
        names[i] = col.clone();
        set(&mut counts, &col, cur + 1);
    }
}

impl Frame {
    /// The sheet's cells from A1 to the last cell holding a value; row 1 is the header.
    fn read(range: &calamine::Range<Data>) -> Frame {
        let (r0, c0) = range.start().map(|(r, c)| (r as usize, c as usize)).unwrap_or((0, 0));
        let mut grid: Vec<Vec<Data>> = Vec::new();
        for (r, c, data) in range.used_cells() {
            if matches!(data, Data::Empty) || (matches!(data, Data::String(s) if s.is_empty())) {
                continue;
            }
            let (r, c) = (r + r0, c + c0);
            if grid.len() <= r {
                grid.resize(r + 1, Vec::new());
            }
            if grid[r].len() <= c {
                grid[r].resize(c + 1, Data::Empty);
            }
            grid[r][c] = data.clone();
        }
        let width = grid.iter().map(Vec::len).max().unwrap_or(0);
        if grid.is_empty() {
            return Frame { columns: Vec::new(), rows: 0 };
        }
        for row in &mut grid {
            row.resize(width, Data::Empty);
        }
        // The header keeps strings as they are (no missing-value strings there); an empty
        // cell is `Unnamed: i`, an error cell NaN.
        let header_data = grid.remove(0);
        let unnamed: Vec<usize> = header_data.iter().enumerate().filter(|(_, d)| matches!(d, Data::Empty)).map(|(i, _)| i).collect();
        let mut names: Vec<Cell> = header_data
            .iter()
            .enumerate()
            .map(|(i, d)| match d {
                Data::Empty => Cell::Str(format!("Unnamed: {i}")),
                Data::String(s) => Cell::Str(s.clone()),
                other => convert(other),
            })
            .collect();
        dedup(&mut names, &unnamed);
        // Blank rows stay (read_excel keeps them as rows of NaN).
        let grid: Vec<Vec<Cell>> = grid.iter().map(|row| row.iter().map(convert).collect()).collect();
        let columns = names
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let (dtype, values) = infer(grid.iter().map(|row| row[i].clone()).collect());
                Column { name, dtype, values }
            })
            .collect();
        Frame { columns, rows: grid.len() }
    }

    /// `DataFrame.round(precision)`: float columns, half to even as numpy rounds; with a
    /// negative precision integer columns too.
    fn round(&mut self, precision: i32) {
        let scale = 10f64.powi(precision);
        for column in &mut self.columns {
            for v in &mut column.values {
                match v {
                    Cell::Float(f) if column.dtype == Dtype::Float => *f = (*f * scale).round_ties_even() / scale,
                    Cell::Int(i) if column.dtype == Dtype::Int && precision < 0 => *i = ((*i as f64 * scale).round_ties_even() / scale) as i64,
                    _ => {}
                }
            }
        }
    }

    /// `DataFrame.equals`: same shape, column names, dtypes and values (NaN equals NaN).
    fn equals(&self, other: &Frame) -> bool {
        self.rows == other.rows
            && self.columns.len() == other.columns.len()
            && self.columns.iter().zip(&other.columns).all(|(a, b)| {
                a.name.loose_eq(&b.name)
                    && a.dtype == b.dtype
                    && a.values.iter().zip(&b.values).all(|(x, y)| match (x, y) {
                        (Cell::Float(p), Cell::Float(q)) => p == q || (p.is_nan() && q.is_nan()),
                        _ => x.loose_eq(y),
                    })
            })
    }
}

struct Book {
    /// The charts of every sheet, as openpyxl loads them (an ods book has none).
    charts: Charts,
    /// The pivot tables of every sheet, as openpyxl loads them (an ods book has none).
    pivots: Pivots,
    sheets: Vec<String>,
    workbook: calamine::Sheets<std::io::BufReader<std::fs::File>>,
    /// The file, for the rules that read it as OSWorld does, outside openpyxl.
    path: PathBuf,
}

impl Book {
    /// The book, or `Err` when it does not load: calamine cannot read it, or openpyxl's chart
    /// or pivot table reader fails on one of them (which makes OSWorld's `load_workbook` fail).
    fn open(path: &Path) -> Result<Book, String> {
        let in_file = |e: String| format!("{}: {e}", path.display());
        let (charts, pivots) =
            if is_ods(path) { (Charts::default(), Pivots::default()) } else { (Charts::read(path).map_err(in_file)?, Pivots::read(path).map_err(in_file)?) };
        let workbook = calamine::open_workbook_auto(path).map_err(|e| format!("{}: {e}", path.display()))?;
        // pandas lists worksheets only (not chart sheets).
        let sheets = workbook.sheets_metadata().iter().filter(|s| s.typ == calamine::SheetType::WorkSheet).map(|s| s.name.clone()).collect();
        Ok(Book { charts, pivots, sheets, workbook, path: path.to_path_buf() })
    }

    fn frame(&mut self, name: &str) -> Result<Option<Frame>, String> {
        if !self.sheets.iter().any(|s| s == name) {
            return Ok(None);
        }
        let range = self.workbook.worksheet_range(name).map_err(|e| format!("sheet {name}: {e}"))?;
        Ok(Some(Frame::read(&range)))
    }
}

/// Which book a rule's sheet reference names, and the sheet's name (`""` when an index is out
/// of range or unreadable, which then scores as a missing sheet). An int (or bool, as Python
/// has it) or `RI<n>` is the result's n-th sheet (negative from the end), `RN<name>` a result
/// sheet by name, `EI<n>` / `EN<name>` the same in the expected book (a task without one has
/// no sheets there).
fn sheet_ref(reference: &Value, result: &Book, expected: Option<&Book>) -> Result<(bool, String), String> {
    let nth = |sheets: &[String], n: Option<i64>| -> String {
        let Some(n) = n else { return String::new() };
        let i = if n < 0 { sheets.len() as i64 + n } else { n };
        usize::try_from(i).ok().and_then(|i| sheets.get(i)).cloned().unwrap_or_default()
    };
    match reference {
        Value::Bool(b) => return Ok((true, nth(&result.sheets, Some(i64::from(*b))))),
        Value::Number(n) => return Ok((true, nth(&result.sheets, n.as_i64()))),
        _ => {}
    }
    let s = reference.as_str().ok_or_else(|| format!("compare_table: sheet reference {reference} is neither a number nor a string"))?;
    // Python's int(): surrounding whitespace and a sign allowed.
    let index = |rest: &str| rest.trim().parse::<i64>().ok();
    match s.get(..2) {
        Some("RI") => Ok((true, nth(&result.sheets, index(&s[2..])))),
        Some("RN") => Ok((true, s[2..].to_string())),
        Some("EI") => Ok((false, nth(expected.map_or(&[][..], |e| &e.sheets), index(&s[2..])))),
        Some("EN") => Ok((false, s[2..].to_string())),
        _ => Err(format!("compare_table: bad sheet reference {s:?}")),
    }
}

/// A rule's list of property names (`chart_props`, `pivot_props`); none when absent.
fn names(rule: &Value, key: &str) -> Result<Vec<String>, String> {
    match rule.get(key) {
        None => Ok(Vec::new()),
        Some(v) => serde_json::from_value(v.clone()).map_err(|_| format!("compare_table: {key} must be a list of names, not {v}")),
    }
}

/// The book and sheet name a rule's `sheet_idx0` and `sheet_idx1` name, in that order.
fn both_sheets<'a>(rule: &Value, kind: &str, result: &'a Book, expected: Option<&'a Book>) -> Result<[(&'a Book, String); 2], String> {
    let one = |field: &str| -> Result<(&'a Book, String), String> {
        let reference = rule.get(field).ok_or_else(|| format!("compare_table: {kind} needs {field}"))?;
        let (in_result, name) = sheet_ref(reference, result, expected)?;
        Ok((if in_result { result } else { expected.ok_or(NO_EXPECTED)? }, name))
    };
    Ok([one("sheet_idx0")?, one("sheet_idx1")?])
}

/// A rule that reads the expected workbook of a task that gives none: OSWorld raises.
const NO_EXPECTED: &str = "compare_table: a rule reads the expected workbook, and the task gives none";

/// Whether a rule reads the expected workbook (a task without one cannot run it).
pub fn rule_reads_expected(rule: &Value) -> bool {
    let expected_ref = |field: &str| rule.get(field).and_then(Value::as_str).is_some_and(|s| s.starts_with('E'));
    rule.get("type").and_then(Value::as_str) == Some("sheet_name") || ["sheet_idx", "sheet_idx0", "sheet_idx1"].iter().any(|f| expected_ref(f))
}

/// Why a rule cannot be run here (`None`: it can): its type, or a cell property not read.
pub fn rule_unsupported(rule: &Value) -> Option<String> {
    let kind = rule.get("type").and_then(Value::as_str).unwrap_or_default();
    if !RULES.contains(&kind) {
        return Some(format!("compare_table rule \"{kind}\" is not implemented"));
    }
    if kind == "row_props" {
        let props: Vec<String> = rule.get("props").and_then(|p| serde_json::from_value(p.clone()).ok()).unwrap_or_default();
        if let Some(p) = props.iter().find(|p| !sheets::ROW_PROPS.contains(&p.as_str())) {
            return Some(format!("compare_table row property \"{p}\" is not implemented"));
        }
    }
    if kind == "check_cell" {
        let props = rule.get("props").and_then(Value::as_object)?;
        if let Some(p) = props.keys().find(|p| !CELL_PROPS.contains(&p.as_str())) {
            return Some(format!("compare_table check_cell property \"{p}\" is not implemented"));
        }
    }
    None
}

/// The cell properties `check_cell` reads here: the value and whether the cell is merged
/// (OSWorld's style properties, fonts and fills, are not).
const CELL_PROPS: &[&str] = &["value", "merge"];

/// `check_cell`: the cell's properties against their rules. OSWorld catches every exception
/// here: whatever goes wrong (no such sheet, a rule it cannot apply) scores 0.
fn check_cell(rule: &Value, result: &Book, expected: Option<&Book>) -> bool {
    let run = || -> Option<bool> {
        let (in_result, name) = sheet_ref(rule.get("sheet_idx")?, result, expected).ok()?;
        let book = if in_result { result } else { expected? };
        // openpyxl's `book[name]`: a worksheet that is there.
        if !book.sheets.contains(&name) {
            return None;
        }
        let coordinate = rule.get("coordinate")?.as_str()?;
        // A range, a column or a row is a tuple of cells to openpyxl: its value reads None
        // (no cell has that `r`) and it is no MergedCell. Anything else raises: 0.
        let single = cells::cell_reference(coordinate).is_some();
        if !single && !cells::is_span(coordinate) {
            return None;
        }
        for (prop, check) in rule.get("props")?.as_object()? {
            let value = match prop.as_str() {
                "value" => match cells::read_cell_value(&book.path, &name, coordinate, python_float) {
                    Ok(Some(CellValue::Number(n))) => serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
                    Ok(Some(CellValue::Text(t))) => Value::String(t),
                    Ok(Some(CellValue::Dict(d))) => Value::Object(d.into_iter().map(|(k, v)| (k, Value::String(v))).collect()),
                    Ok(None) | Err(_) => Value::Null,
                },
                "merge" => Value::Bool(single && cells::is_merged(&book.path, &name, coordinate).ok()?),
                _ => return None,
            };
            if !match_value_to_rule(&value, check).ok()? {
                return Some(false);
            }
        }
        Some(true)
    };
    run().unwrap_or(false)
}

/// `sheet_fuzzy`: each cell of each rule's ranges, read as text from both sheets (`str()` of
/// `read_cell_value`), normalized as the rule says, then compared (includes, included_by,
/// fuzzy_match by rapidfuzz's ratio, exact_match). Errors are OSWorld's raises.
fn sheet_fuzzy(rule: &Value, result: &Book, expected: Option<&Book>) -> Result<bool, String> {
    let [(book0, sheet0), (book1, sheet1)] = both_sheets(rule, "sheet_fuzzy", result, expected)?;
    let read = |book: &Book, sheet: &str, at: &str| -> Result<String, String> {
        Ok(CellValue::python_str(&cells::read_cell_value(&book.path, sheet, at, python_float)?))
    };
    let checks = rule.get("rules").and_then(Value::as_array).ok_or("compare_table: sheet_fuzzy needs a list of rules")?;
    let mut all = true;
    for check in checks {
        let ranges: Vec<&str> = match check.get("range") {
            Some(Value::String(s)) => s.split_whitespace().collect(),
            Some(Value::Array(a)) => a.iter().map(|r| r.as_str().ok_or("compare_table: a sheet_fuzzy range is not text")).collect::<Result<_, _>>()?,
            _ => return Err("compare_table: a sheet_fuzzy rule needs its range".into()),
        };
        let kind = check.get("type").and_then(Value::as_str).ok_or("compare_table: a sheet_fuzzy rule needs its type")?;
        let text_option = |name: &str| -> Result<Option<String>, String> {
            match check.get(name) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(v) => Err(format!("compare_table: sheet_fuzzy {name} must be text, not {v}")),
            }
        };
        let (leading, trailing, ignore) = (text_option("trim_leadings")?, text_option("trim_trailings")?, text_option("ignore_chars")?);
        let mut replacements = Vec::new();
        for pair in check.get("normalization").and_then(Value::as_array).into_iter().flatten() {
            match pair.as_array().map(|p| (p.first().and_then(Value::as_str), p.get(1).and_then(Value::as_str))) {
                Some((Some(a), Some(b))) => replacements.push((a.to_string(), b.to_string())),
                _ => return Err(format!("compare_table: a sheet_fuzzy normalization is not two texts: {pair}")),
            }
        }
        let threshold = match check.get("threshold") {
            None => 85.0,
            Some(t) => t.as_f64().ok_or_else(|| format!("compare_table: sheet_fuzzy threshold must be a number, not {t}"))?,
        };
        let lower = super::opt(check, "ignore_case", false);
        let normalize = |mut v: String| -> String {
            for (a, b) in &replacements {
                v = v.replace(a.as_str(), b);
            }
            if let Some(chars) = &leading {
                v = v.trim_start_matches(|c| chars.contains(c)).to_string();
            }
            if let Some(chars) = &trailing {
                v = v.trim_end_matches(|c| chars.contains(c)).to_string();
            }
            if let Some(chars) = &ignore {
                v.retain(|c| !chars.contains(c));
            }
            if lower {
                v = v.to_lowercase();
            }
            v
        };
        for range in ranges {
            let ((r1, c1), (r2, c2)) = cells::range_bounds(range).ok_or_else(|| format!("compare_table: {range:?} is not a range (OSWorld raises)"))?;
            for row in r1..=r2 {
                for col in c1..=c2 {
                    let at = format!("{}{row}", cells::column_letter(col));
                    let (v0, v1) = (normalize(read(book0, &sheet0, &at)?), normalize(read(book1, &sheet1, &at)?));
                    all &= match kind {
                        "includes" => v0.contains(&v1),
                        "included_by" => v1.contains(&v0),
                        "fuzzy_match" => super::docs::ratio_percent(&v0, &v1) >= threshold,
                        "exact_match" => v0 == v1,
                        other => {
                            return Err(format!("compare_table: sheet_fuzzy type {other:?} is not one of includes, included_by, fuzzy_match, exact_match"))
                        }
                    };
                }
            }
        }
    }
    Ok(all)
}

/// A sheet as printed: the CSV export beside its workbook (`<book without extension>-<sheet>.csv`,
/// made by the task's post-config step), its lines stripped, with the blank lines at its end
/// dropped (OSWorld's `_load_sheet` for a book given by path). UTF-8, else Latin-1 (which
/// reads any bytes); none when the export is missing.
fn printed(book: &Path, sheet: &str) -> Option<Vec<String>> {
    let stem = match (book.file_stem(), book.extension()) {
        (Some(stem), Some(_)) => book.with_file_name(stem),
        _ => book.to_path_buf(),
    };
    let mut name = stem.into_os_string();
    name.push(format!("-{sheet}.csv"));
    let bytes = std::fs::read(name).ok()?;
    let text = super::lines::utf8_else_latin1(bytes);
    let mut lines: Vec<String> = python_splitlines(&text).into_iter().map(|l| l.trim_matches(super::python_space).to_string()).collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    Some(lines)
}

/// Python's `str.splitlines()`: every line boundary it knows, `\r\n` as one.
pub(super) fn python_splitlines(text: &str) -> Vec<&str> {
    let boundary = |c: char| matches!(c, '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if boundary(c) {
            lines.push(&text[start..i]);
            start = i + c.len_utf8();
            if c == '\r' && chars.peek().is_some_and(|(_, n)| *n == '\n') {
                chars.next();
                start += 1;
            }
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// The rule types implemented; a task using another one is not supported.
pub const RULES: &[&str] =
    &["sheet_name", "sheet_data", "sheet_print", "chart", "pivot_table", "check_cell", "sheet_fuzzy", "freeze", "zoom", "row_props", "data_validation"];

fn is_ods(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ods"))
}

pub fn compare_table(result: Option<&Path>, expected: Option<&Path>, options: &Value) -> Result<f64, String> {
    let Some(result) = result else { return Ok(0.0) };
    // OSWorld opens the result with openpyxl, which takes xlsx only: anything else scores 0.
    // An ods result against an ods expected file (our extension) is read the same way.
    let both_ods = is_ods(result) && expected.is_some_and(is_ods);
    let xlsx = result.extension().and_then(|e| e.to_str()).is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "xlsx" | "xlsm" | "xltx" | "xltm"));
    if !xlsx && !both_ods {
        return Ok(0.0);
    }
    let mut result = match Book::open(result) {
        Ok(b) => b,
        // A result that is not a workbook is a wrong answer, not a bad task.
        Err(_) => return Ok(0.0),
    };
    // A task may give no expected workbook when its rules read the result alone (check_cell).
    let mut expected = expected.map(Book::open).transpose()?;
    let rules = options.get("rules").and_then(Value::as_array).ok_or("compare_table: options.rules is required")?;
    for rule in rules {
        let kind = rule.get("type").and_then(Value::as_str).ok_or("compare_table: a rule without a type")?;
        let ok = match kind {
            "sheet_name" => expected.as_ref().is_some_and(|e| result.sheets == e.sheets),
            "sheet_data" => {
                let precision = match rule.get("precision") {
                    None => 4,
                    Some(p) => p.as_i64().ok_or_else(|| format!("compare_table: precision must be an integer, not {p}"))? as i32,
                };
                let mut load = |reference: &Value| -> Result<Option<Frame>, String> {
                    let (in_result, name) = sheet_ref(reference, &result, expected.as_ref())?;
                    (if in_result { &mut result } else { expected.as_mut().ok_or(NO_EXPECTED)? }).frame(&name)
                };
                // As OSWorld: a first sheet that does not exist scores 0; a second one that does
                // not exist is a broken rule (OSWorld raises there).
                let Some(mut first) = load(rule.get("sheet_idx0").ok_or("compare_table: sheet_data needs sheet_idx0")?)? else { return Ok(0.0) };
                let Some(mut second) = load(rule.get("sheet_idx1").ok_or("compare_table: sheet_data needs sheet_idx1")?)? else {
                    return Err("compare_table: the sheet named by sheet_idx1 does not exist".into());
                };
                first.round(precision);
                second.round(precision);
                first.equals(&second)
            }
            "sheet_print" => {
                let [(book0, sheet0), (book1, sheet1)] = both_sheets(rule, "sheet_print", &result, expected.as_ref())?;
                let Some(first) = printed(&book0.path, &sheet0) else { return Ok(0.0) };
                let second = printed(&book1.path, &sheet1);
                if super::opt(rule, "ignore_case", false) {
                    let second = second.ok_or("compare_table: sheet_print: the second sheet's CSV export is missing (OSWorld raises)")?;
                    let lower = |lines: Vec<String>| lines.into_iter().map(|l| l.to_lowercase()).collect::<Vec<_>>();
                    lower(first) == lower(second)
                } else {
                    Some(first) == second
                }
            }
            "chart" => {
                let props = names(rule, "chart_props")?;
                let [first, second] = both_sheets(rule, "chart", &result, expected.as_ref())?;
                let load = |(book, name): (&Book, String)| book.charts.load(&name, &props).map_err(|(ChartError::Unreadable(e) | ChartError::Raises(e))| e);
                load(first)? == load(second)?
            }
            "pivot_table" => {
                let props = names(rule, "pivot_props")?;
                let [first, second] = both_sheets(rule, "pivot_table", &result, expected.as_ref())?;
                let load = |(book, name): (&Book, String)| book.pivots.load(&name, &props);
                load(first)? == load(second)?
            }
            "freeze" => {
                let [(book0, sheet0), (book1, sheet1)] = both_sheets(rule, "freeze", &result, expected.as_ref())?;
                let Some(first) = sheets::freeze_panes(&book0.path, &sheet0)? else { return Ok(0.0) };
                first == sheets::freeze_panes(&book1.path, &sheet1)?.ok_or("compare_table: freeze: the second sheet does not exist (OSWorld raises)")?
            }
            "row_props" => {
                let props = names(rule, "props")?;
                let [(book0, sheet0), (book1, sheet1)] = both_sheets(rule, "row_props", &result, expected.as_ref())?;
                sheets::row_props(&book0.path, &sheet0, &props)? == sheets::row_props(&book1.path, &sheet1, &props)?
            }
            "zoom" | "data_validation" => {
                let reference = rule.get("sheet_idx").ok_or_else(|| format!("compare_table: {kind} needs sheet_idx"))?;
                let (in_result, name) = sheet_ref(reference, &result, expected.as_ref())?;
                let book = if in_result { &result } else { expected.as_ref().ok_or(NO_EXPECTED)? };
                if kind == "zoom" {
                    let Some(scale) = sheets::zoom_scale(&book.path, &name)? else { return Ok(0.0) };
                    match_or_false(&scale, rule)?
                } else {
                    let Some(validations) = sheets::data_validations(&book.path, &name)? else { return Ok(0.0) };
                    sheets::check(&validations, rule.get("dv_props").ok_or("compare_table: data_validation needs dv_props")?)?
                }
            }
            "check_cell" => check_cell(rule, &result, expected.as_ref()),
            "sheet_fuzzy" => sheet_fuzzy(rule, &result, expected.as_ref())?,
            other => return Err(format!("compare_table: rule type {other:?} is not implemented; rules: {}", RULES.join(", "))),
        };
        if !ok {
            return Ok(0.0);
        }
    }
    Ok(score(true))
}
