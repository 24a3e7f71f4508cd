//! Training samples as Parquet files, in the field layouts of slime (`Sample`) and verl
//! (`AgentLoopOutput`): the columns are the JSON exporters' fields (`buffer::export`), so the
//! two encodings never drift apart. One row per sample; numbers, strings and flags are scalar
//! columns, token ids, masks, log-probs and image references list columns (null where a
//! sample has none, as rollout log-probs without a server), and nested objects (`metadata`,
//! `extra_fields`, `metrics`, …) JSON text.

use std::path::Path;
use std::sync::Arc;

use guigym_harness::packing::Sample;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use serde_json::Value;

/// Which trainer's field names and columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Slime,
    Verl,
}

impl Layout {
    pub fn parse(name: &str) -> Option<Layout> {
        match name {
            "slime" => Some(Layout::Slime),
            "verl" => Some(Layout::Verl),
            _ => None,
        }
    }
}

/// One column's values, one entry per row (`None`: null).
enum Column {
    Int(Vec<Option<i64>>),
    Float(Vec<Option<f64>>),
    Bool(Vec<Option<bool>>),
    Text(Vec<Option<String>>),
    Ints(Vec<Option<Vec<i64>>>),
    Floats(Vec<Option<Vec<f64>>>),
    Texts(Vec<Option<Vec<String>>>),
}

impl Column {
    /// The column's line in a Parquet message type. Lists use the standard three-level
    /// layout (`optional group (LIST) { repeated group list { required element } }`).
    fn schema(&self, name: &str) -> String {
        let list = |t: &str| format!("optional group {name} (LIST) {{ repeated group list {{ required {t}; }} }}");
        match self {
            Column::Int(_) => format!("optional int64 {name};"),
            Column::Float(_) => format!("optional double {name};"),
            Column::Bool(_) => format!("optional boolean {name};"),
            Column::Text(_) => format!("optional binary {name} (UTF8);"),
            Column::Ints(_) => list("int64 element"),
            Column::Floats(_) => list("double element"),
            Column::Texts(_) => list("binary element (UTF8)"),
        }
    }

    /// The column a field's values make: the narrowest type that holds every row.
    fn of(values: &[&Value]) -> Column {
        let scalars = |f: &dyn Fn(&Value) -> bool| values.iter().all(|v| v.is_null() || f(v));
        let lists = |f: &dyn Fn(&Value) -> bool| values.iter().all(|v| v.is_null() || v.as_array().is_some_and(|a| a.iter().all(f)));
        let all_null = values.iter().all(|v| v.is_null());
        let list_of = |v: &Value| v.as_array().cloned();
        if !all_null && scalars(&|v| v.is_i64() || v.is_u64()) {
            Column::Int(values.iter().map(|v| v.as_i64()).collect())
        } else if !all_null && scalars(&Value::is_number) {
            Column::Float(values.iter().map(|v| v.as_f64()).collect())
        } else if !all_null && scalars(&Value::is_boolean) {
            Column::Bool(values.iter().map(|v| v.as_bool()).collect())
        } else if !all_null && scalars(&Value::is_string) {
            Column::Text(values.iter().map(|v| v.as_str().map(String::from)).collect())
        } else if lists(&|e| e.is_i64() || e.is_u64()) && values.iter().any(|v| v.as_array().is_some_and(|a| !a.is_empty())) {
            Column::Ints(values.iter().map(|v| list_of(v).map(|a| a.iter().filter_map(Value::as_i64).collect())).collect())
        } else if lists(&Value::is_number) && !all_null {
            Column::Floats(values.iter().map(|v| list_of(v).map(|a| a.iter().filter_map(Value::as_f64).collect())).collect())
        } else if lists(&Value::is_string) && !all_null {
            Column::Texts(values.iter().map(|v| list_of(v).map(|a| a.iter().filter_map(|e| e.as_str().map(String::from)).collect())).collect())
        } else if all_null && values.iter().all(|v| v.is_null()) {
            // Never set in these samples (log-probs without a server): a null list.
            Column::Floats(values.iter().map(|_| None).collect())
        } else {
            Column::Text(values.iter().map(|v| (!v.is_null()).then(|| v.to_string())).collect())
        }
    }
}

/// Definition and repetition levels of list rows: an absent list is level 0, an empty one 1,
/// each element 2; the first element of a row repeats at level 0, the rest at 1.
fn levels(rows: impl Iterator<Item = Option<usize>>) -> (Vec<i16>, Vec<i16>) {
    let (mut def, mut rep) = (Vec::new(), Vec::new());
    for row in rows {
        match row {
            None => {
                def.push(0);
                rep.push(0);
            }
            Some(0) => {
                def.push(1);
                rep.push(0);
            }
            Some(n) => {
                for i in 0..n {
                    def.push(2);
                    rep.push(if i == 0 { 0 } else { 1 });
                }
            }
        }
    }
    (def, rep)
}

/// Definition levels of optional scalars, and the values present.
fn present<T: Clone>(rows: &[Option<T>]) -> (Vec<T>, Vec<i16>) {
    (rows.iter().flatten().cloned().collect(), rows.iter().map(|r| i16::from(r.is_some())).collect())
}

/// The export's fields as columns, in the order the layout writes them.
fn columns(samples: &[Sample], layout: Layout) -> Vec<(String, Column)> {
    let rows = crate::buffer::export(samples, layout);
    let mut names: Vec<String> = Vec::new();
    for r in &rows {
        for k in r.as_object().into_iter().flat_map(|o| o.keys()) {
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let values: Vec<&Value> = rows.iter().map(|r| r.get(&name).unwrap_or(&Value::Null)).collect();
            let column = Column::of(&values);
            (name, column)
        })
        .collect()
}

/// Writes samples to a Parquet file (one row group).
pub fn write(path: &Path, samples: &[Sample], layout: Layout) -> Result<(), String> {
    let cols = columns(samples, layout);
    let message = format!("message sample {{ {} }}", cols.iter().map(|(n, c)| c.schema(n)).collect::<Vec<_>>().join(" "));
    if samples.is_empty() {
        return Err("no samples to write".into());
    }
    let schema = Arc::new(parse_message_type(&message).map_err(|e| e.to_string())?);
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut writer = SerializedFileWriter::new(file, schema, Arc::new(WriterProperties::builder().build())).map_err(|e| e.to_string())?;
    let mut group = writer.next_row_group().map_err(|e| e.to_string())?;
    for (_, col) in &cols {
        let mut w = group.next_column().map_err(|e| e.to_string())?.ok_or("schema has fewer columns than data")?;
        let written = match col {
            Column::Int(v) => {
                let (v, def) = present(v);
                w.typed::<Int64Type>().write_batch(&v, Some(&def), None)
            }
            Column::Float(v) => {
                let (v, def) = present(v);
                w.typed::<DoubleType>().write_batch(&v, Some(&def), None)
            }
            Column::Bool(v) => {
                let (v, def) = present(v);
                w.typed::<BoolType>().write_batch(&v, Some(&def), None)
            }
            Column::Text(v) => {
                let (v, def) = present(v);
                let v: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                w.typed::<ByteArrayType>().write_batch(&v, Some(&def), None)
            }
            Column::Ints(rows) => {
                let (def, rep) = levels(rows.iter().map(|r| r.as_ref().map(Vec::len)));
                let flat: Vec<i64> = rows.iter().flatten().flatten().copied().collect();
                w.typed::<Int64Type>().write_batch(&flat, Some(&def), Some(&rep))
            }
            Column::Floats(rows) => {
                let (def, rep) = levels(rows.iter().map(|r| r.as_ref().map(Vec::len)));
                let flat: Vec<f64> = rows.iter().flatten().flatten().copied().collect();
                w.typed::<DoubleType>().write_batch(&flat, Some(&def), Some(&rep))
            }
            Column::Texts(rows) => {
                let (def, rep) = levels(rows.iter().map(|r| r.as_ref().map(Vec::len)));
                let flat: Vec<ByteArray> = rows.iter().flatten().flatten().map(|s| ByteArray::from(s.as_str())).collect();
                w.typed::<ByteArrayType>().write_batch(&flat, Some(&def), Some(&rep))
            }
        };
        written.map_err(|e| e.to_string())?;
        w.close().map_err(|e| e.to_string())?;
    }
    group.close().map_err(|e| e.to_string())?;
    writer.close().map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    fn sample(i: u32, logprobs: bool) -> Sample {
        Sample {
            trajectory_id: format!("t{i}"),
            task_id: "x/0".into(),
            window: i,
            first_step: 0,
            last_step: 2,
            prompt_ids: vec![1, 2, 3 + i],
            response_ids: vec![4, 5],
            loss_mask: vec![1, 0],
            rollout_logprobs: logprobs.then(|| vec![-0.5, -1.0]),
            images: if i == 0 { vec![] } else { vec!["abc".into()] },
            image_positions: if i == 0 { vec![] } else { vec![1] },
            reward: 1.0,
            advantage: 0.5 * i as f64,
            group_id: "x/0".into(),
            weight_version: 3,
            status: "completed".into(),
            token_source: "tokenizer".into(),
            trained_steps: vec![],
            served_versions: vec![],
            algorithm: None,
        }
    }

    fn rows(path: &Path) -> Vec<Vec<(String, Field)>> {
        let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
        reader.get_row_iter(None).unwrap().map(|r| r.unwrap().get_column_iter().map(|(n, f)| (n.clone(), f.clone())).collect()).collect()
    }

    fn get<'a>(row: &'a [(String, Field)], name: &str) -> &'a Field {
        &row.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no column {name}")).1
    }

    #[test]
    fn slime_and_verl_layouts_read_back() {
        let dir = std::env::temp_dir().join(format!("guigym-parquet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let samples = vec![sample(0, true), sample(1, false)];

        let path = dir.join("slime.parquet");
        write(&path, &samples, Layout::Slime).unwrap();
        let r = rows(&path);
        assert_eq!(r.len(), 2);
        assert_eq!(get(&r[0], "tokens").to_string(), "[1, 2, 3, 4, 5]");
        assert_eq!(get(&r[1], "tokens").to_string(), "[1, 2, 4, 4, 5]");
        assert_eq!(get(&r[0], "response_length"), &Field::Long(2));
        assert_eq!(get(&r[0], "loss_mask").to_string(), "[1, 0]");
        let Field::ListInternal(list) = get(&r[0], "rollout_log_probs") else { panic!("log-probs are a list") };
        assert_eq!(list.elements(), &[Field::Double(-0.5), Field::Double(-1.0)]);
        assert_eq!(get(&r[1], "rollout_log_probs"), &Field::Null, "no log-probs is a null list");
        assert_eq!(get(&r[1], "group_index"), &Field::Long(0));
        assert_eq!(get(&r[1], "weight_versions").to_string(), "[\"3\"]");
        assert_eq!(get(&r[1], "remove_sample"), &Field::Bool(false));
        // Nested objects are JSON text, the same as the JSON layout's.
        let Field::Str(meta) = get(&r[1], "metadata") else { panic!("metadata is text") };
        let meta: Value = serde_json::from_str(meta).unwrap();
        assert_eq!(meta["image_positions"], serde_json::json!([1]));
        // The same fields as the JSON layout, in its order.
        let json = crate::buffer::export(&samples, Layout::Slime);
        let names: Vec<&String> = r[0].iter().map(|(n, _)| n).collect();
        assert_eq!(names, json[0].as_object().unwrap().keys().collect::<Vec<_>>());

        let path = dir.join("verl.parquet");
        write(&path, &samples, Layout::Verl).unwrap();
        let r = rows(&path);
        assert_eq!(get(&r[0], "prompt_ids").to_string(), "[1, 2, 3]");
        assert_eq!(get(&r[0], "response_mask").to_string(), "[1, 0]");
        assert_eq!(get(&r[0], "reward_score"), &Field::Double(1.0));
        assert_eq!(get(&r[0], "num_turns"), &Field::Long(7));
        let names: Vec<&String> = r[0].iter().map(|(n, _)| n).collect();
        let json = crate::buffer::export(&samples, Layout::Verl);
        assert_eq!(names, json[0].as_object().unwrap().keys().collect::<Vec<_>>());
        let _ = std::fs::remove_dir_all(dir);
    }
}
