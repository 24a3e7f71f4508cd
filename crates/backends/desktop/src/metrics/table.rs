//! `compare_table`: two workbooks judged by OSWorld's rules. OSWorld reads a sheet with
//! `pandas.read_excel` (first row as header) and compares the frames with `DataFrame.equals`
//! after rounding; the verdict depends on pandas' type inference (a column of whole numbers
//! is int64, one with a fraction float64, and int64 ≠ float64 even when the values round
//! equal). `Frame` reproduces that inference on the cells calamine reads, so verdicts match.

use std::path::Path;

use calamine::{Data, Reader};
use serde_json::Value;

use super::score;

/// One cell as pandas sees it after reading.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Nan,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// A date or time, as Excel's serial number.
    Date(f64),
}

impl Cell {
    /// Python's `==` between two objects of an object column (`True == 1`, `1 == 1.0`).
    fn loose_eq(&self, other: &Cell) -> bool {
        match (self.number(), other.number()) {
            (Some(a), Some(b)) => a == b,
            _ => match (self, other) {
                (Cell::Nan, Cell::Nan) => true,
                (Cell::Str(a), Cell::Str(b)) => a == b,
                (Cell::Date(a), Cell::Date(b)) => a == b,
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
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Cell::Int(*f as i64),
        Data::Float(f) => Cell::Float(*f),
        Data::Bool(b) => Cell::Bool(*b),
        Data::String(s) if NA_STRINGS.contains(&s.as_str()) => Cell::Nan,
        Data::String(s) => Cell::Str(s.clone()),
        Data::DateTime(d) => Cell::Date(d.as_f64()),
        Data::DateTimeIso(s) | Data::DurationIso(s) => Cell::Str(s.clone()),
    }
}

/// A string pandas' numeric conversion accepts, as that number.
fn parse_number(s: &str) -> Option<Cell> {
    let t = s.trim();
    if let Ok(i) = t.parse::<i64>() {
        return Some(Cell::Int(i));
    }
    let lower = t.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "+inf" | "-inf" | "infinity" | "+infinity" | "-infinity") || t.chars().any(|c| c.is_ascii_digit()) {
        return t.parse::<f64>().ok().map(Cell::Float);
    }
    None
}

/// Infers a column's dtype as pandas' parser does: numeric when every value converts
/// (numeric strings included), bool when every value is a bool, else object, unchanged.
fn infer(values: Vec<Cell>) -> (Dtype, Vec<Cell>) {
    let present: Vec<&Cell> = values.iter().filter(|c| **c != Cell::Nan).collect();
    if !present.is_empty() && present.iter().all(|c| matches!(c, Cell::Bool(_))) && present.len() == values.len() {
        return (Dtype::Bool, values);
    }
    if !present.is_empty() && present.iter().all(|c| matches!(c, Cell::Date(_))) {
        return (Dtype::Date, values);
    }
    let numeric: Option<Vec<Cell>> = values
        .iter()
        .map(|c| match c {
            Cell::Nan | Cell::Int(_) | Cell::Float(_) => Some(c.clone()),
            Cell::Str(s) => parse_number(s),
            Cell::Bool(_) | Cell::Date(_) => None,
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
        // The header keeps strings as they are (no missing-value strings there).
        let header: Vec<Cell> = grid
            .remove(0)
            .iter()
            .map(|d| match d {
                Data::String(s) if !s.is_empty() => Cell::Str(s.clone()),
                other => convert(other),
            })
            .collect();
        let mut grid: Vec<Vec<Cell>> = grid.iter().map(|row| row.iter().map(convert).collect()).collect();
        // A blank data row is dropped only in a one-column sheet (pandas keeps wider blank rows).
        if width == 1 {
            grid.retain(|row| row[0] != Cell::Nan);
        }
        let mut seen: Vec<String> = Vec::new();
        let columns = header
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let name = match name {
                    Cell::Nan => Cell::Str(format!("Unnamed: {i}")),
                    other => other,
                };
                // Duplicate names are numbered as pandas mangles them: "a", "a.1".
                let key = format!("{name:?}");
                let copies = seen.iter().filter(|k| **k == key).count();
                seen.push(key);
                let name = match (copies, name) {
                    (0, n) => n,
                    (k, Cell::Str(s)) => Cell::Str(format!("{s}.{k}")),
                    (k, Cell::Int(v)) => Cell::Str(format!("{v}.{k}")),
                    (_, n) => n,
                };
                let (dtype, values) = infer(grid.iter().map(|row| row[i].clone()).collect());
                Column { name, dtype, values }
            })
            .collect();
        Frame { columns, rows: grid.len() }
    }

    /// `DataFrame.round(precision)`: float columns only, half to even as numpy rounds.
    fn round(&mut self, precision: i32) {
        let scale = 10f64.powi(precision);
        for column in self.columns.iter_mut().filter(|c| c.dtype == Dtype::Float) {
            for v in &mut column.values {
                if let Cell::Float(f) = v {
                    *f = (*f * scale).round_ties_even() / scale;
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
    sheets: Vec<String>,
    workbook: calamine::Sheets<std::io::BufReader<std::fs::File>>,
}

impl Book {
    fn open(path: &Path) -> Result<Book, String> {
        let workbook = calamine::open_workbook_auto(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Book { sheets: workbook.sheet_names(), workbook })
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
/// of range). An int or `RI<n>` is the result's n-th sheet, `RN<name>` a result sheet by name,
/// `EI<n>` / `EN<name>` the same in the expected book.
fn sheet_ref(reference: &Value, result: &Book, expected: &Book) -> Result<(bool, String), String> {
    let nth = |sheets: &[String], n: i64| usize::try_from(n).ok().and_then(|n| sheets.get(n)).cloned().unwrap_or_default();
    if let Some(n) = reference.as_i64() {
        return Ok((true, nth(&result.sheets, n)));
    }
    let s = reference.as_str().ok_or_else(|| format!("compare_table: sheet reference {reference} is neither a number nor a string"))?;
    let index = |rest: &str| rest.parse::<i64>().map_err(|_| format!("compare_table: bad sheet index {s:?}"));
    match s.get(..2) {
        Some("RI") => Ok((true, nth(&result.sheets, index(&s[2..])?))),
        Some("RN") => Ok((true, s[2..].to_string())),
        Some("EI") => Ok((false, nth(&expected.sheets, index(&s[2..])?))),
        Some("EN") => Ok((false, s[2..].to_string())),
        _ => Err(format!("compare_table: bad sheet reference {s:?}")),
    }
}

/// The rule types implemented; a task using another one is not supported.
pub const RULES: &[&str] = &["sheet_name", "sheet_data"];

pub fn compare_table(result: Option<&Path>, expected: Option<&Path>, options: &Value) -> Result<f64, String> {
    let Some(result) = result else { return Ok(0.0) };
    let mut result = match Book::open(result) {
        Ok(b) => b,
        // A result that is not a workbook is a wrong answer, not a bad task.
        Err(_) => return Ok(0.0),
    };
    let mut expected = Book::open(expected.ok_or("compare_table: the expected workbook is missing")?)?;
    let rules = options.get("rules").and_then(Value::as_array).ok_or("compare_table: options.rules is required")?;
    for rule in rules {
        let kind = rule.get("type").and_then(Value::as_str).ok_or("compare_table: a rule without a type")?;
        let ok = match kind {
            "sheet_name" => result.sheets == expected.sheets,
            "sheet_data" => {
                let precision = rule.get("precision").and_then(Value::as_i64).unwrap_or(4) as i32;
                let mut load = |reference: &Value| -> Result<Option<Frame>, String> {
                    let (in_result, name) = sheet_ref(reference, &result, &expected)?;
                    (if in_result { &mut result } else { &mut expected }).frame(&name)
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
            other => return Err(format!("compare_table: rule type {other:?} is not implemented; rules: {}", RULES.join(", "))),
        };
        if !ok {
            return Ok(0.0);
        }
    }
    Ok(score(true))
}
