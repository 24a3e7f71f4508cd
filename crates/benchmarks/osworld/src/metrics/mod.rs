//! OSWorld's metric functions, in Rust: each compares what a getter fetched from the instance
//! with what is expected and gives 0 or 1. Their semantics follow OSWorld's own (a missing
//! result scores 0); where our catalogue needed a check OSWorld lacks, it is named apart.

mod accessibility;
mod archive;
mod cells;
mod charts;
mod chrome;
mod colour;
mod docs;
mod docx;
mod etree;
mod general;
mod gimp;
mod id3;
mod image;
mod impress;
mod lines;
mod objects;
mod pdf;
mod pillow;
mod pivots;
mod rules;
mod settings;
mod sheets;
mod slides;
mod table;
mod thunderbird;
mod vlc;
mod writer;
pub(crate) mod xml;

pub use accessibility::rules_supported as accessibility_rules_supported;
pub use accessibility::select_texts as accessibility_texts;
pub use archive::options_unsupported as archive_options_unsupported;
pub use chrome::compare_urls;
pub use id3::rules_unsupported as mp3_rules_unsupported;
pub use objects::truthy as python_truthy;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use table::{rule_reads_expected as table_rule_reads_expected, rule_unsupported as table_rule_unsupported};

/// What a getter fetched.
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    /// Nothing (the file is not there, the getter found nothing).
    Missing,
    Text(String),
    /// A local copy of a file of the instance (or of the cache).
    File(PathBuf),
    /// A getter's structured value (`rule`'s rules, a listing).
    Json(Value),
    /// Several files of one getter (`multi` with several `gives`), in order.
    Files(Vec<Got>),
}

impl Got {
    fn text(&self) -> Option<String> {
        match self {
            Got::Text(s) => Some(s.clone()),
            Got::Json(Value::String(s)) => Some(s.clone()),
            Got::File(p) => std::fs::read(p).ok().map(|b| String::from_utf8_lossy(&b).into_owned()),
            _ => None,
        }
    }

    /// A getter's value as OSWorld's metrics see it: its JSON, a text as a string, nothing as
    /// `None`.
    fn json(&self) -> Value {
        match self {
            Got::Json(v) => v.clone(),
            Got::Text(s) => Value::String(s.clone()),
            _ => Value::Null,
        }
    }

    fn rules(&self) -> Value {
        match self {
            Got::Json(v) => v.clone(),
            _ => Value::Null,
        }
    }

    /// Several files of one getter; none when the getter gave something else.
    fn files(&self) -> Option<Vec<Option<&Path>>> {
        match self {
            Got::Files(all) => Some(all.iter().map(Got::file).collect()),
            _ => None,
        }
    }

    fn file(&self) -> Option<&Path> {
        match self {
            Got::File(p) if p.exists() => Some(p),
            _ => None,
        }
    }
}

/// Whether a metric compares the result with an expected value (a rule, a file).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Expects {
    Value,
    Nothing,
}

/// The metrics implemented here (for error messages and the importer), and whether each
/// compares with an expected value: a task that gives such a metric none cannot be judged.
pub const METRICS: &[(&str, Expects)] = &[
    ("exact_match", Expects::Value),
    ("check_include_exclude", Expects::Value),
    ("infeasible", Expects::Nothing),
    ("compare_text_file", Expects::Value),
    ("compare_table", Expects::Value),
    ("compare_docx_files", Expects::Value),
    ("compare_pptx_files", Expects::Value),
    ("literal_match", Expects::Value),
    ("is_in_list", Expects::Value),
    ("file_exists", Expects::Nothing),
    ("text_contains", Expects::Value),
    ("check_accessibility_tree", Expects::Value),
    ("is_first_line_centered", Expects::Nothing),
    ("check_gnome_favorite_apps", Expects::Value),
    ("is_utc_0", Expects::Nothing),
    ("check_text_enlarged", Expects::Nothing),
    ("check_left_panel", Expects::Nothing),
    ("check_auto_saving_time", Expects::Value),
    ("is_expected_tabs", Expects::Value),
    ("is_expected_active_tab", Expects::Value),
    ("is_expected_active_tab_approximate", Expects::Value),
    ("is_expected_url_pattern_match", Expects::Value),
    ("is_expected_search_query", Expects::Value),
    ("is_expected_bookmarks", Expects::Value),
    ("check_history_deleted", Expects::Value),
    ("is_cookie_deleted", Expects::Value),
    ("check_font_size", Expects::Value),
    ("check_enabled_experiments", Expects::Value),
    ("is_shortcut_on_desktop", Expects::Value),
    ("check_direct_json_object", Expects::Value),
    ("check_mp3_meta", Expects::Value),
    ("is_vlc_playing", Expects::Value),
    ("is_vlc_recordings_folder", Expects::Value),
    ("is_vlc_fullscreen", Expects::Value),
    ("check_qt_bgcone", Expects::Value),
    ("check_qt_max_volume", Expects::Value),
    ("check_qt_minimal_view", Expects::Value),
    ("check_qt_slider_colours", Expects::Value),
    ("check_global_key_play_pause", Expects::Value),
    ("check_one_instance_when_started_from_file", Expects::Value),
    ("check_config_status", Expects::Value),
    ("check_brightness_decrease_and_structure_sim", Expects::Value),
    ("check_saturation_increase_and_structure_sim", Expects::Value),
    ("check_contrast_increase_and_structure_sim", Expects::Value),
    ("check_structure_sim", Expects::Value),
    ("check_structure_sim_resized", Expects::Value),
    ("check_file_exists_and_structure_sim", Expects::Value),
    ("check_image_mirror", Expects::Value),
    ("check_palette_and_structure_sim", Expects::Value),
    ("check_green_background", Expects::Value),
    ("compare_image_list", Expects::Value),
    ("check_image_size", Expects::Value),
    ("check_image_file_size", Expects::Value),
    ("check_triangle_position", Expects::Nothing),
    ("check_textbox_on_leftside", Expects::Nothing),
    ("compare_images", Expects::Value),
    ("check_thunderbird_prefs", Expects::Value),
    ("check_thunderbird_filter", Expects::Value),
    ("check_thunderbird_folder", Expects::Value),
    ("compare_line_spacing", Expects::Value),
    ("compare_docx_tables", Expects::Value),
    ("compare_docx_images", Expects::Value),
    ("check_italic_font_size_14", Expects::Value),
    ("check_tabstops", Expects::Value),
    ("compare_contains_image", Expects::Value),
    ("compare_font_names", Expects::Value),
    ("compare_highlighted_text", Expects::Value),
    ("compare_insert_equation", Expects::Value),
    ("compare_subscript_contains", Expects::Value),
    ("contains_page_break", Expects::Nothing),
    ("evaluate_strike_through_last_paragraph", Expects::Value),
    ("find_default_font", Expects::Value),
    ("has_page_numbers_in_footers", Expects::Nothing),
    ("compare_docx_files_and_ignore_new_lines", Expects::Value),
    ("evaluate_colored_words_in_tables", Expects::Value),
    ("compare_unique_train_records", Expects::Value),
    ("check_highlighted_words", Expects::Value),
    ("compare_csv", Expects::Value),
    ("check_list", Expects::Value),
    ("check_presenter_console_disable", Expects::Nothing),
    ("check_slide_orientation_Portrait", Expects::Nothing),
    ("check_transition", Expects::Value),
    ("check_page_number_colors", Expects::Value),
    ("check_strikethrough", Expects::Value),
    ("check_slide_numbers_color", Expects::Nothing),
    ("check_image_stretch_and_center", Expects::Value),
    ("evaluate_presentation_fill_to_rgb_distance", Expects::Value),
    ("file_contains", Expects::Value),
    ("check_line_number", Expects::Value),
    ("compare_python_pure_text", Expects::Value),
    ("is_in_vm_clickboard", Expects::Value),
    ("fuzzy_place_math", Expects::Value),
    ("compare_docx_lines", Expects::Value),
    ("check_json", Expects::Value),
    ("diff_text_file", Expects::Value),
    ("compare_pdfs", Expects::Value),
    ("check_pdf_pages", Expects::Value),
    ("compare_archive", Expects::Value),
];

/// A file's text as OSWorld's metrics open it (strict UTF-8); none when it is missing or not
/// UTF-8, where OSWorld raises on the agent's file.
fn utf8_file(file: Option<&Path>) -> Option<String> {
    String::from_utf8(std::fs::read(file?).ok()?).ok()
}

/// Python's `str.isspace` (and `\s`, and what `strip()` and `split()` take): Unicode whitespace
/// and the four information separators U+001C–U+001F.
fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// A path of its own in the temporary folder for a metric's scratch work (MuPDF's text, an
/// archive unpacked), named after the process and a count; the caller removes it.
fn scratch_path(kind: &str) -> PathBuf {
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("guigym-{kind}-{}-{n}", std::process::id()))
}

/// Whether `name` is a metric implemented here.
pub fn implemented(name: &str) -> bool {
    METRICS.iter().any(|(n, _)| *n == name)
}

/// Whether `name` compares the result with an expected value.
pub fn needs_expected(name: &str) -> bool {
    METRICS.iter().any(|(n, e)| *n == name && *e == Expects::Value)
}

/// A boolean option, with its default when absent; any other value counts as Python would
/// count it in an `if` (0, "", null, [] are false).
fn opt(options: &Value, name: &str, default: bool) -> bool {
    match options.get(name) {
        None => default,
        Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

fn bool_opt(options: &Value, name: &str) -> bool {
    opt(options, name, false)
}

fn score(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// Runs one metric. `Err` only for a metric we do not know or arguments it cannot take (a
/// bad task); a wrong or missing result is a 0.
pub fn run(func: &str, result: &Got, expected: &Got, options: &Value) -> Result<f64, String> {
    Ok(match func {
        // The result equals `rules.expected` exactly.
        "exact_match" => {
            let want = expected.rules().get("expected").cloned().ok_or("exact_match: expected.rules.expected is missing")?;
            match (result.text(), &want) {
                (Some(got), Value::String(w)) => score(got == *w),
                (None, _) => 0.0,
                (Some(got), w) => score(Value::String(got) == *w),
            }
        }
        // Every `include` string is in the result and no `exclude` string is.
        "check_include_exclude" => {
            let Some(got) = result.text() else { return Ok(0.0) };
            let rules = expected.rules();
            let list = |k: &str| -> Vec<String> {
                rules.get(k).and_then(Value::as_array).map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect()).unwrap_or_default()
            };
            score(list("include").iter().all(|s| got.contains(s.as_str())) && list("exclude").iter().all(|s| !got.contains(s.as_str())))
        }
        // Judged by the agent's last action, not by a getter (see `evaluate`).
        "infeasible" => 0.0,
        // Two text files with the same content, read as text (CRLF is LF); `ignore_blanks`
        // collapses whitespace, `ignore_case` folds case.
        "compare_text_file" => {
            let (Some(a), Some(b)) = (result.file(), expected.file()) else { return Ok(0.0) };
            let (Ok(a), Ok(b)) = (std::fs::read(a), std::fs::read(b)) else { return Ok(0.0) };
            let norm = |bytes: Vec<u8>| {
                let mut s = String::from_utf8_lossy(&bytes).replace("\r\n", "\n").replace('\r', "\n");
                if bool_opt(options, "ignore_blanks") {
                    s = docs::collapse(&s);
                }
                if bool_opt(options, "ignore_case") {
                    s = s.to_lowercase();
                }
                s
            };
            score(norm(a) == norm(b))
        }
        // The result equals the expected value (`expected.rules.expected` or the value itself),
        // case-folded under `ignore_case`.
        "literal_match" => {
            let want = match expected {
                Got::Json(v) => v.get("expected").cloned().unwrap_or_else(|| v.clone()),
                other => other.text().map(Value::String).unwrap_or(Value::Null),
            };
            let got = match result {
                Got::Json(v) => v.clone(),
                other => other.text().map(Value::String).unwrap_or(Value::Null),
            };
            if got.is_null() {
                return Ok(0.0);
            }
            if bool_opt(options, "ignore_case") {
                let fold = |v: &Value| Value::String(v.as_str().map(str::to_lowercase).unwrap_or_else(|| v.to_string().to_lowercase()));
                score(fold(&got) == fold(&want))
            } else {
                score(got == want)
            }
        }
        // `rules.expected` is one of the result's lines (or elements).
        "is_in_list" => {
            let want = expected.rules().get("expected").cloned().ok_or("is_in_list: expected.rules.expected is missing")?;
            let items: Vec<Value> = match result {
                Got::Json(Value::Array(a)) => a.clone(),
                other => match other.text() {
                    Some(t) => t.lines().map(|l| Value::String(l.trim().to_string())).collect(),
                    None => return Ok(0.0),
                },
            };
            score(items.contains(&want))
        }
        "compare_csv" => lines::compare_csv(result.file(), expected, options)?,
        "check_list" => lines::check_list(result.file(), &expected.rules())?,
        "check_presenter_console_disable" => impress::check_presenter_console_disable(result.file()),
        "check_slide_orientation_Portrait" => impress::check_slide_orientation_portrait(result.file()),
        "check_transition" => impress::check_transition(result.file(), &expected.rules())?,
        "check_page_number_colors" => impress::check_page_number_colors(result.file(), &expected.rules())?,
        "check_strikethrough" => impress::check_strikethrough(result.file(), &expected.rules())?,
        "check_slide_numbers_color" => impress::check_slide_numbers_color(result.file()),
        "check_image_stretch_and_center" => impress::check_image_stretch_and_center(result.file(), expected.file())?,
        "evaluate_presentation_fill_to_rgb_distance" => impress::evaluate_presentation_fill_to_rgb_distance(result.file(), &expected.rules())?,
        "file_contains" => lines::file_contains(result.file(), &expected.rules()),
        "check_line_number" => lines::check_line_number(result.file(), &expected.rules()),
        "compare_python_pure_text" => lines::compare_python_pure_text(result.file(), expected.file()),
        // Its getters the other way round: the rule is the result, the clipboard the expected.
        "is_in_vm_clickboard" => lines::is_in_vm_clickboard(&result.rules(), expected.text())?,
        "fuzzy_place_math" => writer::fuzzy_place_math(result.file(), &expected.rules())?,
        "compare_docx_lines" => writer::compare_docx_lines(result.file(), expected.file()),
        "compare_table" => table::compare_table(result.file(), expected.file(), options)?,
        "compare_docx_files" => docs::compare_docx_files(result.file(), expected.file(), options)?,
        "compare_pptx_files" => slides::compare_pptx_files(result.file(), expected.file(), options)?,
        "is_first_line_centered" => docs::is_first_line_centered(result.file()),
        "compare_line_spacing" => writer::compare_line_spacing(result.file(), expected.file())?,
        "compare_docx_tables" => writer::compare_docx_tables(result.file(), expected.file())?,
        "compare_docx_images" => writer::compare_docx_images(result.file(), expected.file())?,
        "check_italic_font_size_14" => writer::check_italic_font_size_14(result.file(), expected.file())?,
        "check_tabstops" => writer::check_tabstops(result.file(), expected.file(), options)?,
        "compare_contains_image" => writer::compare_contains_image(result.file(), expected.file())?,
        "compare_font_names" => writer::compare_font_names(result.file(), &expected.rules())?,
        "compare_highlighted_text" => writer::compare_highlighted_text(result.file(), expected.file())?,
        "compare_insert_equation" => writer::compare_insert_equation(result.file(), expected.file())?,
        "compare_subscript_contains" => writer::compare_subscript_contains(result.file(), expected.file())?,
        "contains_page_break" => writer::contains_page_break(result.file(), &expected.rules())?,
        "evaluate_strike_through_last_paragraph" => writer::evaluate_strike_through_last_paragraph(result.file(), expected.file())?,
        "find_default_font" => writer::find_default_font(result.file(), &expected.rules())?,
        "has_page_numbers_in_footers" => writer::has_page_numbers_in_footers(result.file())?,
        "compare_docx_files_and_ignore_new_lines" => writer::compare_docx_files_and_ignore_new_lines(result.file(), expected.file(), options)?,
        "check_highlighted_words" => writer::check_highlighted_words(result.file(), expected.file())?,
        "compare_unique_train_records" => writer::compare_unique_train_records(result.file(), expected.files())?,
        "evaluate_colored_words_in_tables" => writer::evaluate_colored_words_in_tables(result.file(), expected.file(), options)?,
        // The accessibility tree's XML against rules: from a `rule` getter, or a JSON file.
        "check_accessibility_tree" => {
            let rules = match expected {
                Got::File(p) => {
                    let text = std::fs::read_to_string(p).map_err(|e| format!("check_accessibility_tree: {}: {e}", p.display()))?;
                    serde_json::from_str(&text).map_err(|e| format!("check_accessibility_tree: {}: {e}", p.display()))?
                }
                other => other.rules(),
            };
            accessibility::check_accessibility_tree(result.text(), &rules)?
        }
        "check_gnome_favorite_apps" => settings::check_gnome_favorite_apps(result.text(), &expected.rules())?,
        "is_utc_0" => settings::is_utc_0(result.text()),
        "check_text_enlarged" => settings::check_text_enlarged(result.text()),
        "check_left_panel" => settings::check_left_panel(result.text()),
        "check_auto_saving_time" => settings::check_auto_saving_time(result.text(), &expected.rules())?,
        "is_expected_tabs" => chrome::is_expected_tabs(&result.json(), &expected.rules())?,
        "is_expected_active_tab" => chrome::is_expected_active_tab(&result.json(), &expected.rules(), false)?,
        "is_expected_active_tab_approximate" => chrome::is_expected_active_tab(&result.json(), &expected.rules(), true)?,
        "is_expected_url_pattern_match" => chrome::is_expected_url_pattern_match(&result.json(), &expected.rules())?,
        "is_expected_search_query" => chrome::is_expected_search_query(&result.json(), &expected.rules())?,
        "is_expected_bookmarks" => chrome::is_expected_bookmarks(&result.json(), &expected.rules())?,
        "check_history_deleted" => chrome::check_history_deleted(&result.json(), &expected.rules())?,
        "is_cookie_deleted" => chrome::is_cookie_deleted(&result.json(), &expected.rules())?,
        "check_font_size" => chrome::check_font_size(&result.json(), &expected.rules())?,
        "check_enabled_experiments" => chrome::check_enabled_experiments(&result.json(), &expected.rules())?,
        "is_shortcut_on_desktop" => chrome::is_shortcut_on_desktop(&result.json(), &expected.rules())?,
        "check_json" if bool_opt(options, "is_yaml") => return Err("check_json on a YAML file (is_yaml) is not implemented".into()),
        "check_json" => general::check_json(result.file(), &expected.rules())?,
        "diff_text_file" => general::diff_text_file(result.file(), expected.file()),
        // Lists of PDFs pair up; a single expected PDF pairs with a single result (OSWorld wraps
        // both). A list against a single PDF, or a missing list, makes OSWorld's zip or open fail.
        "compare_pdfs" => match (result.files(), expected.files()) {
            (Some(a), Some(b)) => pdf::compare_pdfs(&a, &b)?,
            (None, None) => pdf::compare_pdfs(&[result.file()], &[expected.file()])?,
            _ => 0.0,
        },
        "check_pdf_pages" => pdf::check_pdf_pages(result.file(), &expected.rules())?,
        "compare_archive" => archive::compare_archive(result.file(), expected.file(), options)?,
        "check_direct_json_object" => objects::check_direct_json_object(Some(result.json()).filter(|v| !v.is_null()), &expected.rules()),
        "check_config_status" => gimp::check_config_status(result.file(), &expected.rules())?,
        "check_brightness_decrease_and_structure_sim" => image::check_brightness_decrease_and_structure_sim(result.file(), expected.file(), options)?,
        "check_saturation_increase_and_structure_sim" => image::check_saturation_increase_and_structure_sim(result.file(), expected.file())?,
        "check_contrast_increase_and_structure_sim" => image::check_contrast_increase_and_structure_sim(result.file(), expected.file())?,
        "check_structure_sim" => image::check_structure_sim(result.file(), expected.file())?,
        "check_structure_sim_resized" => image::check_structure_sim_resized(result.file(), expected.file())?,
        "check_file_exists_and_structure_sim" => image::check_file_exists_and_structure_sim(result.file(), expected.file())?,
        "check_image_mirror" => image::check_image_mirror(result.file(), expected.file())?,
        "check_palette_and_structure_sim" => image::check_palette_and_structure_sim(result.file(), expected.file())?,
        "check_green_background" => image::check_green_background(result.file(), expected.file())?,
        "compare_image_list" => image::compare_image_list(result.file(), expected.file())?,
        "check_image_size" => image::check_image_size(result.file(), &expected.rules())?,
        "check_image_file_size" => image::check_image_file_size(result.file(), &expected.rules())?,
        "check_triangle_position" => image::check_triangle_position(result.file())?,
        "check_textbox_on_leftside" => image::check_textbox_on_leftside(result.file())?,
        "compare_images" => image::compare_images(result.file(), expected.file(), options)?,
        "check_thunderbird_prefs" => thunderbird::check_thunderbird_prefs(result.file(), &expected.rules())?,
        "check_thunderbird_filter" => thunderbird::check_thunderbird_filter(result.file(), &expected.rules())?,
        "check_thunderbird_folder" => thunderbird::check_thunderbird_folder(result.file(), expected.file(), options)?,
        "check_mp3_meta" => id3::check_mp3_meta(result.file(), &expected.rules())?,
        "is_vlc_playing" => vlc::is_vlc_playing(result.file(), &expected.rules())?,
        "is_vlc_recordings_folder" => vlc::is_vlc_recordings_folder(result.file(), &expected.rules())?,
        "is_vlc_fullscreen" => vlc::is_vlc_fullscreen(&result.json(), &expected.json())?,
        "check_qt_slider_colours" => vlc::check_qt_slider_colours(result.file(), &expected.rules())?,
        "check_global_key_play_pause" => vlc::check_global_key_play_pause(result.file(), &expected.rules())?,
        setting if vlc::is_setting(setting) => vlc::setting(setting, result.file(), &expected.rules())?,
        // Ours: a getter found the file (`vm_file`'s result is there).
        "file_exists" => score(result.file().is_some()),
        // Ours: the result holds every string in `rules.include` (case-folded under `ignore_case`).
        "text_contains" => {
            let Some(mut got) = result.text() else { return Ok(0.0) };
            let rules = expected.rules();
            let mut include: Vec<String> =
                rules.get("include").and_then(Value::as_array).map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect()).unwrap_or_default();
            if bool_opt(options, "ignore_case") {
                got = got.to_lowercase();
                include = include.iter().map(|s| s.to_lowercase()).collect();
            }
            score(include.iter().all(|s| got.contains(s.as_str())))
        }
        other => {
            let names: Vec<&str> = METRICS.iter().map(|(n, _)| *n).collect();
            return Err(format!("metric \"{other}\" is not implemented; metrics: {}", names.join(", ")));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metrics_score_right_and_wrong_results() {
        let rule = |v: Value| Got::Json(v);
        let none = json!({});
        assert_eq!(run("exact_match", &Got::Text("yes".into()), &rule(json!({"expected": "yes"})), &none).unwrap(), 1.0);
        assert_eq!(run("exact_match", &Got::Text("yes\n".into()), &rule(json!({"expected": "yes"})), &none).unwrap(), 0.0);
        assert_eq!(run("exact_match", &Got::Missing, &rule(json!({"expected": "yes"})), &none).unwrap(), 0.0);
        let rules = rule(json!({"include": ["a", "b"], "exclude": ["c"]}));
        assert_eq!(run("check_include_exclude", &Got::Text("a b".into()), &rules, &none).unwrap(), 1.0);
        assert_eq!(run("check_include_exclude", &Got::Text("a b c".into()), &rules, &none).unwrap(), 0.0);
        assert_eq!(run("check_include_exclude", &Got::Text("a".into()), &rules, &none).unwrap(), 0.0);
        assert_eq!(run("is_in_list", &Got::Text("x\ny\n".into()), &rule(json!({"expected": "y"})), &none).unwrap(), 1.0);
        assert_eq!(run("literal_match", &Got::Text("Yes".into()), &rule(json!({"expected": "yes"})), &json!({"ignore_case": true})).unwrap(), 1.0);
        assert_eq!(run("literal_match", &Got::Text("Yes".into()), &rule(json!({"expected": "yes"})), &none).unwrap(), 0.0);
        assert!(run("no_such_metric", &Got::Missing, &Got::Missing, &none).unwrap_err().contains("not implemented"));
    }

    #[test]
    fn text_files_compare_with_their_options() {
        let dir = std::env::temp_dir().join(format!("guigym-metrics-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
        std::fs::write(&a, "Hello  World\n").unwrap();
        std::fs::write(&b, "hello world").unwrap();
        let (fa, fb) = (Got::File(a.clone()), Got::File(b.clone()));
        assert_eq!(run("compare_text_file", &fa, &fb, &json!({})).unwrap(), 0.0);
        assert_eq!(run("compare_text_file", &fa, &fb, &json!({"ignore_blanks": true, "ignore_case": true})).unwrap(), 1.0);
        assert_eq!(run("compare_text_file", &Got::File(dir.join("missing")), &fb, &json!({})).unwrap(), 0.0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
