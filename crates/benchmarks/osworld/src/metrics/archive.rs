//! `compare_archive`: two archives unpacked, their entries' names compared, then each pair of
//! files by the metric of their kind (`file_type`), averaged. Zip archives only: OSWorld's tasks
//! compare zips; a tar is refused at import (`import`).

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::Got;

/// The metric each `file_type` compares with, as OSWorld's `compare_archive` picks it.
fn metric_of(file_type: &str) -> Option<&'static str> {
    Some(match file_type {
        "text" => "compare_text_file",
        "pdf" => "compare_pdfs",
        "docx" => "compare_docx_files",
        "ppt" => "compare_pptx_files",
        "image" => "compare_images",
        "csv" => "compare_csv",
        "table" => "compare_table",
        "audio" => "compare_audios",
        "video" => "compare_videos",
        _ => return None,
    })
}

/// Whether `compare_archive` can run with these options here: its `file_type` names a kind it
/// knows, whose metric is implemented.
pub fn options_unsupported(options: &Value) -> Option<String> {
    let file_type = options.get("file_type").and_then(Value::as_str).unwrap_or("text");
    match metric_of(file_type) {
        None => Some(format!("compare_archive: file_type \"{file_type}\" is not one OSWorld knows")),
        Some(m) if !super::implemented(m) => Some(format!("compare_archive: file_type \"{file_type}\" compares by {m}, which is not implemented")),
        Some(_) => None,
    }
}

/// `compare_archive(pred, gold, file_path=…, file_type=…, **rest)`: 0 where the result is
/// missing or cannot be unpacked (OSWorld raises on it) or the entries at `file_path` differ
/// by name; else the mean of the kind's metric over the pairs (`rest` passed on to it).
pub fn compare_archive(result: Option<&Path>, expected: Option<&Path>, options: &Value) -> Result<f64, String> {
    let Some(result) = result else { return Ok(0.0) };
    let scratch = super::scratch_path("archive");
    let score = compare_unpacked(result, expected, options, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    score
}

fn compare_unpacked(result: &Path, expected: Option<&Path>, options: &Value, scratch: &Path) -> Result<f64, String> {
    let Some(expected) = expected else { return Err("compare_archive: the expected archive is missing".into()) };
    let mut rest: Map<String, Value> = options.as_object().cloned().unwrap_or_default();
    let file_path = rest.remove("file_path").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let file_type = rest.remove("file_type").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_else(|| "text".into());
    let metric = metric_of(&file_type).ok_or_else(|| format!("compare_archive: file_type \"{file_type}\" is not one OSWorld knows"))?;
    let rest = Value::Object(rest);
    let (pred, gold) = (scratch.join("pred"), scratch.join("gold"));
    let _ = std::fs::remove_dir_all(scratch);
    // The gold archive is the task's: one that does not unpack is its mistake.
    unpack(expected, &gold).map_err(|e| format!("compare_archive: the expected archive {}: {e}", expected.display()))?;
    if unpack(result, &pred).is_err() {
        return Ok(0.0);
    }
    let listing = |root: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(root.join(&file_path))
            .map(|entries| entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        names
    };
    let (pred_names, gold_names) = (listing(&pred), listing(&gold));
    if pred_names != gold_names {
        return Ok(0.0);
    }
    if pred_names.is_empty() {
        // OSWorld divides by the number of files.
        return Ok(0.0);
    }
    let mut score = 0.0;
    for name in &pred_names {
        let (a, b) = (pred.join(&file_path).join(name), gold.join(&file_path).join(name));
        // OSWorld compares what the listing names, folders too, and raises on a folder: the
        // task's where the gold archive has one (a file_path that stops short); the agent's
        // folder where the gold has a file scores 0.
        if b.is_dir() {
            return Err(format!("compare_archive: \"{name}\" in the expected archive is a folder (file_path \"{file_path}\" names no folder of files)"));
        }
        let (a, b) = (Got::File(a), Got::File(b));
        score += super::run(metric, &a, &b, &rest)?;
    }
    Ok(score / pred_names.len() as f64)
}

/// Unpacks a zip archive into `to`, as Python's `shutil.unpack_archive` does: a name that
/// starts with `/` or holds `..` anywhere is skipped.
fn unpack(archive: &Path, to: &Path) -> Result<(), String> {
    // shutil picks the format by the name's ending, case and all.
    if !archive.to_string_lossy().ends_with(".zip") {
        return Err("not a .zip (the archives unpacked here are zips)".into());
    }
    let file = std::fs::File::open(archive).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(to).map_err(|e| e.to_string())?;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| e.to_string())?;
        let name = entry.name().map_err(|e| e.to_string())?.to_string();
        let Some(target) = inside(to, &name) else { continue };
        if name.ends_with('/') {
            std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        // Bounded: a zip bomb fills no disk.
        let mut bytes = Vec::new();
        entry.by_ref().take(MAX_ENTRY).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        std::fs::write(&target, bytes).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The most one entry may unpack to.
const MAX_ENTRY: u64 = 256 << 20;

/// Where an entry named `name` lands under `root`: its `/`-separated parts joined below it.
fn inside(root: &Path, name: &str) -> Option<PathBuf> {
    if name.starts_with('/') || name.contains("..") {
        return None;
    }
    let mut out = root.to_path_buf();
    for part in name.split('/').filter(|p| !p.is_empty() && *p != ".") {
        out.push(part);
    }
    (out != root).then_some(out)
}
