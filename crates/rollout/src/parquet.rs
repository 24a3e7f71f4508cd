//! Training samples as Parquet files, in the field layouts of slime (`Sample`) and verl
//! (`AgentLoopOutput`), the same fields as the JSON exporters in `buffer`. One row per
//! sample; token ids, masks and log-probs are list columns; rollout log-probs are a null
//! list when the server returned none.

use std::path::Path;
use std::sync::Arc;

use guigym_harness::packing::Sample;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

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

/// One column's values, one entry per row.
enum Column {
    Int(Vec<i64>),
    Float(Vec<f64>),
    Text(Vec<String>),
    Ints(Vec<Vec<i64>>),
    /// A null row is a missing list (no log-probs from the server).
    Floats(Vec<Option<Vec<f64>>>),
    Texts(Vec<Vec<String>>),
}

impl Column {
    /// The column's line in a Parquet message type. Lists use the standard three-level
    /// layout (`optional group (LIST) { repeated group list { required element } }`).
    fn schema(&self, name: &str) -> String {
        let list = |t: &str| format!("optional group {name} (LIST) {{ repeated group list {{ required {t}; }} }}");
        match self {
            Column::Int(_) => format!("required int64 {name};"),
            Column::Float(_) => format!("required double {name};"),
            Column::Text(_) => format!("required binary {name} (UTF8);"),
            Column::Ints(_) => list("int64 element"),
            Column::Floats(_) => list("double element"),
            Column::Texts(_) => list("binary element (UTF8)"),
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

fn columns(samples: &[Sample], layout: Layout) -> Vec<(&'static str, Column)> {
    let ints = |f: &dyn Fn(&Sample) -> i64| Column::Int(samples.iter().map(f).collect());
    let texts = |f: &dyn Fn(&Sample) -> String| Column::Text(samples.iter().map(f).collect());
    let id_list = |f: &dyn Fn(&Sample) -> Vec<u32>| Column::Ints(samples.iter().map(|s| f(s).into_iter().map(i64::from).collect()).collect());
    let mask = Column::Ints(samples.iter().map(|s| s.loss_mask.iter().map(|m| *m as i64).collect()).collect());
    let logprobs = Column::Floats(samples.iter().map(|s| s.rollout_logprobs.as_ref().map(|l| l.iter().map(|x| *x as f64).collect())).collect());
    let images = Column::Texts(samples.iter().map(|s| s.images.clone()).collect());
    let reward = Column::Float(samples.iter().map(|s| s.reward).collect());
    let advantage = Column::Float(samples.iter().map(|s| s.advantage).collect());
    match layout {
        Layout::Slime => vec![
            ("index", Column::Int((0..samples.len() as i64).collect())),
            ("group_index", texts(&|s| s.group_id.clone())),
            ("session_id", texts(&|s| s.trajectory_id.clone())),
            ("tokens", id_list(&|s| s.prompt_ids.iter().chain(&s.response_ids).copied().collect())),
            ("response_length", ints(&|s| s.response_ids.len() as i64)),
            ("loss_mask", mask),
            ("rollout_log_probs", logprobs),
            ("reward", reward),
            ("advantage", advantage),
            ("status", texts(&|s| s.status.clone())),
            ("weight_version", ints(&|s| s.weight_version as i64)),
            ("images", images),
            ("task_id", texts(&|s| s.task_id.clone())),
            ("window", ints(&|s| s.window as i64)),
            ("token_source", texts(&|s| s.token_source.clone())),
        ],
        Layout::Verl => vec![
            ("prompt_ids", id_list(&|s| s.prompt_ids.clone())),
            ("response_ids", id_list(&|s| s.response_ids.clone())),
            ("response_mask", mask),
            ("response_logprobs", logprobs),
            ("images", images),
            ("reward_score", reward),
            ("num_turns", ints(&|s| s.last_step as i64 + 1)),
            ("task_id", texts(&|s| s.task_id.clone())),
            ("trajectory_id", texts(&|s| s.trajectory_id.clone())),
            ("window", ints(&|s| s.window as i64)),
            ("advantage", advantage),
        ],
    }
}

/// Writes samples to a Parquet file (one row group).
pub fn write(path: &Path, samples: &[Sample], layout: Layout) -> Result<(), String> {
    let cols = columns(samples, layout);
    let message = format!("message sample {{ {} }}", cols.iter().map(|(n, c)| c.schema(n)).collect::<Vec<_>>().join(" "));
    let schema = Arc::new(parse_message_type(&message).map_err(|e| e.to_string())?);
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut writer = SerializedFileWriter::new(file, schema, Arc::new(WriterProperties::builder().build())).map_err(|e| e.to_string())?;
    let mut group = writer.next_row_group().map_err(|e| e.to_string())?;
    for (_, col) in &cols {
        let mut w = group.next_column().map_err(|e| e.to_string())?.ok_or("schema has fewer columns than data")?;
        let written = match col {
            Column::Int(v) => w.typed::<Int64Type>().write_batch(v, None, None),
            Column::Float(v) => w.typed::<DoubleType>().write_batch(v, None, None),
            Column::Text(v) => {
                let v: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                w.typed::<ByteArrayType>().write_batch(&v, None, None)
            }
            Column::Ints(rows) => {
                let (def, rep) = levels(rows.iter().map(|r| Some(r.len())));
                let flat: Vec<i64> = rows.iter().flatten().copied().collect();
                w.typed::<Int64Type>().write_batch(&flat, Some(&def), Some(&rep))
            }
            Column::Floats(rows) => {
                let (def, rep) = levels(rows.iter().map(|r| r.as_ref().map(Vec::len)));
                let flat: Vec<f64> = rows.iter().flatten().flatten().copied().collect();
                w.typed::<DoubleType>().write_batch(&flat, Some(&def), Some(&rep))
            }
            Column::Texts(rows) => {
                let (def, rep) = levels(rows.iter().map(|r| Some(r.len())));
                let flat: Vec<ByteArray> = rows.iter().flatten().map(|s| ByteArray::from(s.as_str())).collect();
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
            images: if i == 0 { vec![] } else { vec!["img/a.png".into()] },
            image_positions: vec![],
            reward: 1.0,
            advantage: 0.5 * i as f64,
            group_id: "x/0".into(),
            weight_version: 3,
            status: "completed".into(),
            token_source: "tokenizer".into(),
            trained_steps: vec![],
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
        assert_eq!(get(&r[0], "images").to_string(), "[]");
        assert_eq!(get(&r[1], "images").to_string(), "[\"img/a.png\"]");
        assert_eq!(get(&r[1], "group_index"), &Field::Str("x/0".into()));

        let path = dir.join("verl.parquet");
        write(&path, &samples, Layout::Verl).unwrap();
        let r = rows(&path);
        assert_eq!(get(&r[0], "prompt_ids").to_string(), "[1, 2, 3]");
        assert_eq!(get(&r[0], "response_mask").to_string(), "[1, 0]");
        assert_eq!(get(&r[0], "reward_score"), &Field::Double(1.0));
        assert_eq!(get(&r[0], "num_turns"), &Field::Long(3));
        let _ = std::fs::remove_dir_all(dir);
    }
}
