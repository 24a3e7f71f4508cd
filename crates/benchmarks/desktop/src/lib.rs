//! Our own desktop catalogue: task families drawn from seeds, each task in OSWorld's format
//! (set-up steps, an evaluator of OSWorld's metrics and getters, run by the OSWorld runner)
//! with a golden (steps that complete it directly) and a walkthrough a person would play
//! through the GUI. The `desktop` benchmark.

use guigym_benchmark_osworld::office::{Chart, Paragraph, Series, SlideText};
use guigym_benchmark_osworld::task::{ConfigStep, Evaluator, OsWorldTask};
use guigym_core::{Action, EpisodeLog, Rng, TaskSpec, TerminateStatus, Verdict};
use guigym_desktop::instance::{Failure, Instance};
use guigym_desktop::{DesktopBenchmark, DesktopBenchmarks};
use serde_json::{json, Value};

pub const BENCHMARK: &str = "desktop";
/// Tasks per family in the full suite.
pub const PER_FAMILY: usize = 25;

/// What a family draws for one seed.
struct Draft {
    instruction: String,
    apps: &'static [&'static str],
    config: Vec<ConfigStep>,
    evaluator: Value,
    golden: Vec<ConfigStep>,
    walkthrough: Vec<Action>,
    /// The user's files the task may change (`guigym_allowed_changes`); any other change
    /// fails it.
    changes: Vec<String>,
}

pub struct Family {
    pub name: &'static str,
    draw: fn(&mut Rng) -> Draft,
    /// What the walkthrough types last is one choice of many the task leaves to the agent (how
    /// much darker): the audit's mutant that types another value is then no wrong solution.
    typed_value_free: bool,
}

pub const FAMILIES: &[Family] = &[
    Family { name: "files.create_folder", draw: create_folder, typed_value_free: false },
    Family { name: "files.rename", draw: rename, typed_value_free: false },
    Family { name: "files.move", draw: move_file, typed_value_free: false },
    Family { name: "files.copy", draw: copy_file, typed_value_free: false },
    Family { name: "files.delete_matching", draw: delete_matching, typed_value_free: false },
    Family { name: "text.write", draw: text_write, typed_value_free: false },
    Family { name: "text.append", draw: text_append, typed_value_free: false },
    Family { name: "text.replace", draw: text_replace, typed_value_free: false },
    Family { name: "terminal.count", draw: count_files, typed_value_free: false },
    Family { name: "terminal.sort", draw: sort_lines, typed_value_free: false },
    Family { name: "terminal.archive", draw: archive, typed_value_free: false },
    Family { name: "infeasible.system", draw: infeasible, typed_value_free: false },
    Family { name: "calc.fill_cell", draw: calc_fill_cell, typed_value_free: false },
    Family { name: "calc.sum_column", draw: calc_sum_column, typed_value_free: false },
    Family { name: "calc.sort_rows", draw: calc_sort_rows, typed_value_free: false },
    Family { name: "writer.append_paragraph", draw: writer_append, typed_value_free: false },
    Family { name: "writer.replace_word", draw: writer_replace, typed_value_free: false },
    Family { name: "writer.center_title", draw: writer_center_title, typed_value_free: false },
    Family { name: "calc.filter_rows", draw: calc_filter_rows, typed_value_free: false },
    Family { name: "calc.insert_chart", draw: calc_insert_chart, typed_value_free: false },
    Family { name: "impress.move_slide", draw: impress_move_slide, typed_value_free: false },
    Family { name: "impress.add_slide", draw: impress_add_slide, typed_value_free: false },
    Family { name: "browser.close_tab", draw: browser_close_tab, typed_value_free: false },
    Family { name: "browser.open_page", draw: browser_open_page, typed_value_free: false },
    Family { name: "browser.bookmark", draw: browser_bookmark, typed_value_free: false },
    Family { name: "media.play_song", draw: media_play_song, typed_value_free: false },
    Family { name: "media.fullscreen", draw: media_fullscreen, typed_value_free: false },
    Family { name: "image.undo_levels", draw: image_undo_levels, typed_value_free: false },
    Family { name: "image.mirror", draw: image_mirror, typed_value_free: false },
    Family { name: "image.darker", draw: image_darker, typed_value_free: true },
    Family { name: "mail.filter", draw: mail_filter, typed_value_free: false },
    Family { name: "mail.folder", draw: mail_folder, typed_value_free: false },
    Family { name: "pdf.save_copy", draw: pdf_save_copy, typed_value_free: false },
    Family { name: "photo.rotate", draw: photo_rotate, typed_value_free: false },
    Family { name: "tagger.option", draw: tagger_option, typed_value_free: false },
];

const FOLDER_NAMES: &[&str] = &["Invoices", "Travel 2026", "Recipes", "Taxes", "Project Alpha", "Reports", "Letters", "Receipts", "Course notes", "Drafts"];
const STEMS: &[&str] = &["budget", "minutes", "agenda", "packing list", "contacts", "ideas", "todo", "reading list", "summary", "plan"];
const WORDS: &[&str] = &["apple", "river", "copper", "meadow", "lantern", "harbor", "maple", "violet", "summit", "canyon", "falcon", "ember"];
const PLACES: &[&str] = &["Documents", "Downloads", "Desktop"];

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn execute(command: &str) -> ConfigStep {
    ConfigStep::new("execute", json!({"command": ["/bin/bash", "-c", command]}))
}

fn write_file(path: &str, text: &str) -> ConfigStep {
    ConfigStep::new("write_file", json!({"path": path, "text": text}))
}

fn terminal() -> ConfigStep {
    ConfigStep::new("launch", json!({"command": ["xterm", "-geometry", "120x36+200+150"]}))
}

fn open(path: &str) -> ConfigStep {
    ConfigStep::new("open", json!({"path": path}))
}

/// The shell check OSWorld's `os` tasks use: a command printing markers, judged by
/// `check_include_exclude`.
fn shell_check(command: &str, include: &[&str], exclude: &[&str]) -> Value {
    json!({
        "func": "check_include_exclude",
        "result": {"type": "vm_command_line", "command": ["/bin/bash", "-c", command]},
        "expected": {"type": "rule", "rules": {"include": include, "exclude": exclude}}
    })
}

/// A file's text, with a final newline added where it lacks one (editors differ), equal to
/// `text` (which ends with one).
fn file_equals(path: &str, text: &str) -> Value {
    json!({
        "func": "exact_match",
        "result": {"type": "vm_command_line", "command": ["/bin/bash", "-c", format!("[ -f {p} ] && sed -e '$a\\' {p}", p = path)]},
        "expected": {"type": "rule", "rules": {"expected": text}}
    })
}

/// A walkthrough in the terminal: focus it, type the command, say done.
fn in_terminal(command: &str) -> Vec<Action> {
    vec![
        Action::Click { at: None, element: Some("xterm".into()) },
        Action::Type { text: format!("{command}\n"), element: None, clear: false },
        Action::Wait { ms: 300 },
        Action::Terminate { status: TerminateStatus::Success },
    ]
}

fn key(keys: &[&str]) -> Action {
    Action::Key { keys: keys.iter().map(|k| k.to_string()).collect() }
}

fn home(place: &str, name: &str) -> String {
    format!("/home/user/{place}/{name}")
}

fn create_folder(rng: &mut Rng) -> Draft {
    let name = *rng.pick(FOLDER_NAMES);
    let place = *rng.pick(PLACES);
    let path = home(place, name);
    Draft {
        instruction: format!("Create a folder named \"{name}\" in the {place} folder of your home."),
        apps: &["Terminal"],
        config: vec![terminal()],
        evaluator: shell_check(&format!("[ -d {} ] && echo created || echo missing", quote(&path)), &["created"], &["missing"]),
        golden: vec![execute(&format!("mkdir -p {}", quote(&path)))],
        walkthrough: in_terminal(&format!("mkdir ~/{place}/{}", quote(name))),
        changes: vec![path],
    }
}

/// Two different stems, as file names with an extension.
fn two_names(rng: &mut Rng, ext: &str) -> (String, String) {
    let a = *rng.pick(STEMS);
    let mut b = *rng.pick(STEMS);
    while b == a {
        b = *rng.pick(STEMS);
    }
    (format!("{a}.{ext}"), format!("{b}.{ext}"))
}

fn some_lines(rng: &mut Rng, n: usize) -> Vec<String> {
    (0..n).map(|_| format!("{} {} {}", rng.pick(WORDS), rng.range(1, 99), rng.pick(WORDS))).collect()
}

fn rename(rng: &mut Rng) -> Draft {
    let (old, new) = two_names(rng, "txt");
    let place = *rng.pick(PLACES);
    let content = some_lines(rng, 3).join("\n") + "\n";
    let (from, to) = (home(place, &old), home(place, &new));
    Draft {
        instruction: format!("In the {place} folder, rename the file \"{old}\" to \"{new}\"."),
        apps: &["Terminal"],
        config: vec![write_file(&from, &content), terminal()],
        evaluator: shell_check(
            &format!(
                "[ -e {f} ] && echo old-left; [ -f {t} ] && cmp -s {t} <(printf %s {c}) && echo renamed",
                f = quote(&from),
                t = quote(&to),
                c = quote(&content)
            ),
            &["renamed"],
            &["old-left"],
        ),
        golden: vec![execute(&format!("mv {} {}", quote(&from), quote(&to)))],
        walkthrough: in_terminal(&format!("cd ~/{place} && mv {} {}", quote(&old), quote(&new))),
        changes: vec![from, to],
    }
}

fn move_file(rng: &mut Rng) -> Draft {
    let name = format!("{}.txt", rng.pick(STEMS));
    let from_place = *rng.pick(PLACES);
    let to_place = *rng.pick(&PLACES.iter().copied().filter(|p| *p != from_place).collect::<Vec<_>>());
    let content = some_lines(rng, 2).join("\n") + "\n";
    let (from, to) = (home(from_place, &name), home(to_place, &name));
    Draft {
        instruction: format!("Move \"{name}\" from the {from_place} folder to the {to_place} folder."),
        apps: &["Terminal"],
        config: vec![write_file(&from, &content), terminal()],
        evaluator: shell_check(
            &format!(
                "[ -e {f} ] && echo still-there; [ -f {t} ] && cmp -s {t} <(printf %s {c}) && echo moved",
                f = quote(&from),
                t = quote(&to),
                c = quote(&content)
            ),
            &["moved"],
            &["still-there"],
        ),
        golden: vec![execute(&format!("mv {} {}", quote(&from), quote(&to)))],
        walkthrough: in_terminal(&format!("mv ~/{from_place}/{} ~/{to_place}/", quote(&name))),
        changes: vec![from, to],
    }
}

fn copy_file(rng: &mut Rng) -> Draft {
    let (name, copy) = two_names(rng, "txt");
    let place = *rng.pick(PLACES);
    let content = some_lines(rng, 4).join("\n") + "\n";
    let (from, to) = (home(place, &name), home("Desktop", &copy));
    let to = if place == "Desktop" { home("Documents", &copy) } else { to };
    let to_place = if place == "Desktop" { "Documents" } else { "Desktop" };
    Draft {
        instruction: format!("Make a copy of \"{name}\" from the {place} folder in the {to_place} folder, named \"{copy}\"; keep the original."),
        apps: &["Terminal"],
        config: vec![write_file(&from, &content), terminal()],
        evaluator: shell_check(
            &format!(
                "cmp -s {f} <(printf %s {c}) && echo original; cmp -s {t} <(printf %s {c}) && echo copied",
                f = quote(&from),
                t = quote(&to),
                c = quote(&content)
            ),
            &["original", "copied"],
            &[],
        ),
        golden: vec![execute(&format!("cp {} {}", quote(&from), quote(&to)))],
        walkthrough: in_terminal(&format!("cp ~/{place}/{} ~/{to_place}/{}", quote(&name), quote(&copy))),
        changes: vec![to],
    }
}

fn delete_matching(rng: &mut Rng) -> Draft {
    let ext = *rng.pick(&["tmp", "log", "bak"]);
    let n_junk = rng.range(2, 4) as usize;
    let mut config = Vec::new();
    let mut junk = Vec::new();
    let mut keep = Vec::new();
    for i in 0..n_junk {
        let name = format!("{}-{i}.{ext}", rng.pick(WORDS));
        config.push(write_file(&home("Downloads", &name), "scratch\n"));
        junk.push(name);
    }
    for i in 0..3 {
        let name = format!("{}-{i}.txt", rng.pick(STEMS).replace(' ', "-"));
        config.push(write_file(&home("Downloads", &name), "keep me\n"));
        keep.push(name);
    }
    config.push(terminal());
    let listing = "ls -1 ~/Downloads; echo end";
    let include: Vec<&str> = keep.iter().map(String::as_str).chain(["end"]).collect();
    let exclude: Vec<&str> = junk.iter().map(String::as_str).collect();
    Draft {
        instruction: format!("Delete every .{ext} file in the Downloads folder, and nothing else."),
        apps: &["Terminal"],
        config,
        evaluator: shell_check(listing, &include, &exclude),
        golden: vec![execute(&format!("rm -f ~/Downloads/*.{ext}"))],
        walkthrough: in_terminal(&format!("rm ~/Downloads/*.{ext}")),
        changes: junk.iter().map(|name| home("Downloads", name)).collect(),
    }
}

/// A walkthrough in the text editor: focus it, do `keys_then_type`, save.
fn in_editor(mut actions: Vec<Action>) -> Vec<Action> {
    let mut all = vec![Action::Click { at: None, element: Some("mousepad".into()) }];
    all.append(&mut actions);
    all.push(key(&["ctrl", "s"]));
    all.push(Action::Wait { ms: 300 });
    all.push(Action::Terminate { status: TerminateStatus::Success });
    all
}

fn text_write(rng: &mut Rng) -> Draft {
    let name = format!("{}.txt", rng.pick(STEMS));
    let line = format!("{} {} {}", rng.pick(WORDS), rng.pick(WORDS), rng.range(10, 999));
    let path = home("Desktop", &name);
    Draft {
        instruction: format!("The file \"{name}\" on the Desktop is open in the text editor. Write the line \"{line}\" in it and save it."),
        apps: &["Text Editor"],
        config: vec![write_file(&path, ""), open(&path)],
        evaluator: file_equals(&quote(&path), &format!("{line}\n")),
        golden: vec![write_file(&path, &format!("{line}\n"))],
        walkthrough: in_editor(vec![Action::Type { text: line, element: None, clear: false }]),
        changes: vec![path],
    }
}

fn text_append(rng: &mut Rng) -> Draft {
    let name = format!("{}.txt", rng.pick(STEMS));
    let n = rng.range(2, 4) as usize;
    let lines = some_lines(rng, n);
    let extra = format!("{} {}", rng.pick(WORDS), rng.range(100, 999));
    let path = home("Documents", &name);
    let before = lines.join("\n");
    Draft {
        instruction: format!("Add the line \"{extra}\" at the end of \"{name}\" (open in the text editor) and save the file."),
        apps: &["Text Editor"],
        config: vec![write_file(&path, &before), open(&path)],
        evaluator: file_equals(&quote(&path), &format!("{before}\n{extra}\n")),
        golden: vec![write_file(&path, &format!("{before}\n{extra}\n"))],
        walkthrough: in_editor(vec![key(&["ctrl", "end"]), Action::Type { text: format!("\n{extra}"), element: None, clear: false }]),
        changes: vec![path],
    }
}

fn text_replace(rng: &mut Rng) -> Draft {
    let name = format!("{}.txt", rng.pick(STEMS));
    let old = *rng.pick(WORDS);
    let mut new = *rng.pick(WORDS);
    while new == old {
        new = *rng.pick(WORDS);
    }
    let mut lines = some_lines(rng, 3);
    lines.insert(rng.below(3), format!("the {old} stays with the {old}"));
    let before = lines.join("\n") + "\n";
    let after = before.replace(old, new);
    let path = home("Documents", &name);
    Draft {
        instruction: format!("In \"{name}\" (open in the text editor), replace every \"{old}\" with \"{new}\" and save the file."),
        apps: &["Text Editor"],
        config: vec![write_file(&path, &before), open(&path)],
        evaluator: file_equals(&quote(&path), &after),
        golden: vec![write_file(&path, &after)],
        // Select everything and type the text as it should read.
        walkthrough: in_editor(vec![Action::Type { text: after.trim_end().to_string(), element: None, clear: true }]),
        changes: vec![path],
    }
}

fn count_files(rng: &mut Rng) -> Draft {
    let ext = *rng.pick(&["txt", "csv", "md"]);
    let n = rng.range(2, 7) as usize;
    let mut config = Vec::new();
    for i in 0..n {
        config.push(write_file(&home("Documents", &format!("{}-{i}.{ext}", rng.pick(WORDS))), "x\n"));
    }
    for i in 0..rng.range(1, 3) {
        config.push(write_file(&home("Documents", &format!("other-{i}.pdf")), "x\n"));
    }
    config.push(terminal());
    Draft {
        instruction: format!("Count the .{ext} files in the Documents folder and write just the number into a new file \"count.txt\" on the Desktop."),
        apps: &["Terminal"],
        config,
        evaluator: json!({
            "func": "exact_match",
            "result": {"type": "vm_command_line", "command": ["/bin/bash", "-c", "[ -f ~/Desktop/count.txt ] && tr -d '[:space:]' < ~/Desktop/count.txt"]},
            "expected": {"type": "rule", "rules": {"expected": n.to_string()}}
        }),
        golden: vec![execute(&format!("echo {n} > ~/Desktop/count.txt"))],
        walkthrough: in_terminal(&format!("ls ~/Documents/*.{ext} | wc -l > ~/Desktop/count.txt")),
        changes: vec![home("Desktop", "count.txt")],
    }
}

fn sort_lines(rng: &mut Rng) -> Draft {
    let mut words: Vec<String> = (0..rng.range(4, 7)).map(|i| format!("{}{}", rng.pick(WORDS), i)).collect();
    let unsorted = words.join("\n") + "\n";
    words.sort();
    let sorted = words.join("\n") + "\n";
    let name = format!("{}.txt", rng.pick(STEMS).replace(' ', "-"));
    let (from, to) = (home("Documents", &name), home("Documents", &format!("sorted-{name}")));
    Draft {
        instruction: format!("Write the lines of \"{name}\" in the Documents folder, sorted alphabetically, into \"sorted-{name}\" in the same folder."),
        apps: &["Terminal"],
        config: vec![write_file(&from, &unsorted), terminal()],
        evaluator: file_equals(&quote(&to), &sorted),
        golden: vec![write_file(&to, &sorted)],
        walkthrough: in_terminal(&format!("cd ~/Documents && LC_ALL=C sort {name} > sorted-{name}")),
        changes: vec![to],
    }
}

fn archive(rng: &mut Rng) -> Draft {
    let folder = *rng.pick(&["Pictures", "Music", "Videos"]);
    let files: Vec<String> = (0..rng.range(2, 4)).map(|i| format!("{}-{i}.dat", rng.pick(WORDS))).collect();
    let mut config: Vec<ConfigStep> = files.iter().map(|f| write_file(&home(folder, f), "data\n")).collect();
    config.push(terminal());
    let archive = format!("{}.tar.gz", folder.to_lowercase());
    let include: Vec<String> = files.iter().map(|f| format!("{folder}/{f}")).collect();
    let include: Vec<&str> = include.iter().map(String::as_str).collect();
    Draft {
        instruction: format!(
            "Pack the {folder} folder into a gzip-compressed tar archive \"{archive}\" on the Desktop (the archive holds the folder {folder} itself)."
        ),
        apps: &["Terminal"],
        config,
        evaluator: shell_check(&format!("tar -tzf ~/Desktop/{archive} 2>/dev/null"), &include, &[]),
        golden: vec![execute(&format!("cd ~ && tar -czf Desktop/{archive} {folder}"))],
        walkthrough: in_terminal(&format!("cd ~ && tar -czf Desktop/{archive} {folder}")),
        changes: vec![home("Desktop", &archive)],
    }
}

fn infeasible(rng: &mut Rng) -> Draft {
    let asks = [
        "Set the monitor's refresh rate to 240 Hz.",
        "Pair the Bluetooth headphones named \"Soundcore\" with this computer.",
        "Print \"budget.txt\" on the office printer.",
        "Restore the version of \"plan.txt\" from last Tuesday from the cloud backup.",
        "Turn on the laptop's keyboard backlight.",
        "Send \"summary.txt\" to Ana by fax.",
    ];
    let ask = *rng.pick(&asks);
    Draft {
        instruction: ask.to_string(),
        apps: &["Terminal"],
        config: vec![terminal()],
        evaluator: json!({"func": "infeasible"}),
        golden: Vec::new(),
        walkthrough: vec![Action::Terminate { status: TerminateStatus::Infeasible }],
        changes: Vec::new(),
    }
}

const ITEMS: &[&str] = &["apples", "bread", "coffee", "dates", "eggs", "flour", "grapes", "honey", "lemons", "milk", "nuts", "olives", "pears", "rice"];
const PEOPLE: &[&str] = &["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kira", "Liam"];
const DAYS: &[&str] = &["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"];

fn rows_json(rows: &[Vec<Value>]) -> Value {
    Value::Array(rows.iter().map(|r| Value::Array(r.clone())).collect())
}

fn write_table(path: &str, rows: &[Vec<Value>]) -> ConfigStep {
    ConfigStep::new("write_table", json!({"path": path, "rows": rows_json(rows)}))
}

fn write_document(path: &str, paragraphs: &[Paragraph]) -> ConfigStep {
    ConfigStep::new("write_document", json!({"path": path, "paragraphs": paragraphs}))
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// OSWorld's sheet check: the agent's workbook against one holding `rows`, made at
/// evaluation time.
fn table_equals(path: &str, rows: &[Vec<Value>]) -> Value {
    json!({
        "func": "compare_table",
        "result": {"type": "vm_file", "path": path, "dest": file_name(path)},
        "expected": {"type": "table_file", "rows": rows_json(rows), "dest": format!("expected-{}", file_name(path))},
        "options": {"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}
    })
}

/// OSWorld's document check (its defaults: whitespace-insensitive text of the paragraphs).
fn document_equals(path: &str, paragraphs: &[Paragraph]) -> Value {
    json!({
        "func": "compare_docx_files",
        "result": {"type": "vm_file", "path": path, "dest": file_name(path)},
        "expected": {"type": "document_file", "paragraphs": paragraphs, "dest": format!("expected-{}", file_name(path))}
    })
}

/// Keys pressed `n` times.
fn presses(k: &str, n: usize) -> Vec<Action> {
    (0..n).map(|_| key(&[k])).collect()
}

fn typed(text: &str) -> Action {
    Action::Type { text: text.to_string(), element: None, clear: false }
}

/// A walkthrough in an office document already open and focused: the actions, then save
/// (in the file's own format) and say done.
fn in_office(mut actions: Vec<Action>) -> Vec<Action> {
    actions.push(key(&["ctrl", "s"]));
    actions.push(Action::Wait { ms: 1500 });
    actions.push(Action::Terminate { status: TerminateStatus::Success });
    actions
}

/// A Calc task: the workbook starts as `start`, open in Calc, and must end as `done`.
fn calc_draft(instruction: String, path: &str, start: &[Vec<Value>], done: &[Vec<Value>], walk: Vec<Action>) -> Draft {
    Draft {
        instruction,
        apps: &["Calc"],
        config: vec![write_table(path, start), open(path)],
        evaluator: table_equals(path, done),
        golden: vec![write_table(path, done)],
        walkthrough: in_office(walk),
        changes: vec![path.to_string()],
    }
}

/// A Writer task: the document starts as `start`, open in Writer, and must end as `done`.
fn writer_draft(instruction: String, path: &str, start: &[String], done: &[String], walk: Vec<Action>) -> Draft {
    let (start, done) = (plain(start), plain(done));
    Draft {
        instruction,
        apps: &["Writer"],
        config: vec![write_document(path, &start), open(path)],
        evaluator: document_equals(path, &done),
        golden: vec![write_document(path, &done)],
        walkthrough: in_office(walk),
        changes: vec![path.to_string()],
    }
}

fn plain(paragraphs: &[String]) -> Vec<Paragraph> {
    paragraphs.iter().map(|p| Paragraph::Plain(p.clone())).collect()
}

fn write_presentation(path: &str, slides: &[SlideText]) -> ConfigStep {
    ConfigStep::new("write_presentation", json!({"path": path, "slides": slides}))
}

/// OSWorld's deck check on what a deck says: the slides in order, each shape's text and
/// paragraphs. Geometry, fonts, colours and bullets are left out: LibreOffice writes its own
/// where our file had none, and these tasks are about content.
fn presentation_equals(path: &str, slides: &[SlideText]) -> Value {
    let off = [
        "shape",
        "indent",
        "font_name",
        "font_size",
        "font_bold",
        "font_italic",
        "color_rgb",
        "font_underline",
        "strike_through",
        "alignment",
        "bullets",
        "background_color",
    ];
    let options: serde_json::Map<String, Value> = off.iter().map(|k| (format!("examine_{k}"), json!(false))).collect();
    json!({
        "func": "compare_pptx_files",
        "result": {"type": "vm_file", "path": path, "dest": file_name(path)},
        "expected": {"type": "presentation_file", "slides": slides, "dest": format!("expected-{}", file_name(path))},
        "options": options
    })
}

/// An Impress task: the deck starts as `start`, open in Impress, and must end as `done`.
fn impress_draft(instruction: String, path: &str, start: &[SlideText], done: &[SlideText], walk: Vec<Action>) -> Draft {
    Draft {
        instruction,
        apps: &["Impress"],
        config: vec![write_presentation(path, start), open(path)],
        evaluator: presentation_equals(path, done),
        golden: vec![write_presentation(path, done)],
        walkthrough: in_office(walk),
        changes: vec![path.to_string()],
    }
}

const TOPICS: &[&str] = &["Agenda", "Goals", "Timeline", "Budget", "Risks", "Team", "Results", "Next steps", "Questions", "Customers", "Roadmap", "Summary"];

/// A deck of `n` slides with distinct titles, each with a line or two of body text.
fn deck(rng: &mut Rng, n: usize) -> Vec<SlideText> {
    distinct(rng, TOPICS, n)
        .into_iter()
        .map(|title| SlideText { title: title.to_string(), body: (0..rng.range(1, 3)).map(|_| sentence(rng)).collect() })
        .collect()
}

fn deck_path(rng: &mut Rng) -> String {
    home("Documents", &format!("{}.pptx", rng.pick(&["review", "kickoff", "pitch", "update", "workshop"])))
}

fn impress_move_slide(rng: &mut Rng) -> Draft {
    let n = rng.range(3, 5) as usize;
    let start = deck(rng, n);
    let k = rng.range(1, n as i64 - 1) as usize;
    let mut done = start.clone();
    let moved = done.remove(k);
    done.insert(0, moved.clone());
    let path = deck_path(rng);
    // Nothing selected, down to slide k, then Slide ▸ Move ▸ Slide to Start by its keys.
    let mut walk = vec![Action::Wait { ms: 1000 }, key(&["escape"])];
    walk.extend(presses("pagedown", k));
    walk.push(key(&["alt", "shift", "home"]));
    impress_draft(
        format!(
            "In the presentation \"{}\" (open in Impress), move the slide titled \"{}\" so that it becomes the first slide, keeping the others in their order, then save the file (keep its format).",
            file_name(&path),
            moved.title
        ),
        &path,
        &start,
        &done,
        walk,
    )
}

fn impress_add_slide(rng: &mut Rng) -> Draft {
    let n = rng.range(2, 4) as usize;
    let mut all = deck(rng, n + 1);
    let new = all.pop().expect("a deck of n + 1 slides");
    let new = SlideText { title: new.title, body: new.body[..1].to_vec() };
    let start = all.clone();
    all.push(new.clone());
    let path = deck_path(rng);
    // Nothing selected, the last slide, a new slide after it (the same layout), then its
    // title and its text box by keyboard: Tab selects the next box, Enter edits it.
    let mut walk = vec![Action::Wait { ms: 1000 }, key(&["escape"]), key(&["end"]), key(&["ctrl", "m"])];
    walk.extend([key(&["tab"]), key(&["enter"]), typed(&new.title), key(&["escape"])]);
    walk.extend([key(&["tab"]), key(&["enter"]), typed(&new.body[0]), key(&["escape"])]);
    impress_draft(
        format!(
            "Add a slide at the end of the presentation \"{}\" (open in Impress) with the title \"{}\" and the text \"{}\" in its content box, then save the file (keep its format).",
            file_name(&path),
            new.title,
            new.body[0]
        ),
        &path,
        &start,
        &all,
        walk,
    )
}

/// `n` distinct picks from a list.
fn distinct<'a>(rng: &mut Rng, items: &[&'a str], n: usize) -> Vec<&'a str> {
    let mut all = items.to_vec();
    rng.shuffle(&mut all);
    all.truncate(n);
    all
}

fn calc_fill_cell(rng: &mut Rng) -> Draft {
    let n = rng.range(3, 7) as usize;
    let items = distinct(rng, ITEMS, n);
    let mut rows: Vec<Vec<Value>> = vec![vec![json!("Item"), json!("Quantity"), json!("Price")]];
    rows.extend(items.iter().map(|i| vec![json!(i), json!(rng.range(1, 50)), json!(rng.range(1, 20))]));
    let k = rng.below(n);
    let quantity = rows[k + 1][1].clone();
    let mut start = rows.clone();
    start[k + 1][1] = Value::Null;
    let path = home("Documents", &format!("{}.xlsx", rng.pick(&["stock", "order", "pantry", "shopping"])));
    let mut walk = vec![key(&["ctrl", "home"])];
    walk.extend(presses("down", k + 1));
    walk.push(key(&["right"]));
    walk.push(typed(&format!("{quantity}\n")));
    calc_draft(
        format!(
            "The spreadsheet \"{}\" is open in Calc. The quantity of {} is missing: enter {quantity} in its Quantity cell and save the file (keep its format).",
            file_name(&path),
            items[k]
        ),
        &path,
        &start,
        &rows,
        walk,
    )
}

fn calc_sum_column(rng: &mut Rng) -> Draft {
    let n = rng.range(3, 8) as usize;
    let people = distinct(rng, PEOPLE, n);
    let mut rows: Vec<Vec<Value>> = vec![vec![json!("Name"), json!("Amount")]];
    let amounts: Vec<i64> = (0..n).map(|_| rng.range(5, 500)).collect();
    rows.extend(people.iter().zip(&amounts).map(|(p, a)| vec![json!(p), json!(a)]));
    let start = rows.clone();
    rows.push(vec![json!("Total"), json!(amounts.iter().sum::<i64>())]);
    let path = home("Documents", &format!("{}.xlsx", rng.pick(&["expenses", "donations", "invoices", "tips"])));
    let mut walk = vec![key(&["ctrl", "home"])];
    walk.extend(presses("down", n + 1));
    walk.push(typed(&format!("Total\t=SUM(B2:B{})\n", n + 1)));
    calc_draft(format!(
            "In \"{}\" (open in Calc), add a row right below the table with \"Total\" in column A and the sum of the amounts in column B, then save the file (keep its format).",
            file_name(&path)
        ), &path, &start, &rows, walk)
}

fn calc_sort_rows(rng: &mut Rng) -> Draft {
    let n = rng.range(3, 7) as usize;
    let people = distinct(rng, PEOPLE, n);
    let mut scores: Vec<i64> = Vec::new();
    while scores.len() < n {
        let s = rng.range(10, 100);
        if !scores.contains(&s) {
            scores.push(s);
        }
    }
    let start_rows: Vec<(&str, i64)> = people.iter().copied().zip(scores.iter().copied()).collect();
    let mut sorted = start_rows.clone();
    sorted.sort_by_key(|(_, s)| std::cmp::Reverse(*s));
    let mut start = start_rows.clone();
    if start == sorted {
        start.reverse();
    }
    let table = |body: &[(&str, i64)]| -> Vec<Vec<Value>> {
        std::iter::once(vec![json!("Name"), json!("Score")]).chain(body.iter().map(|(p, s)| vec![json!(p), json!(s)])).collect()
    };
    let path = home("Documents", &format!("{}.xlsx", rng.pick(&["scores", "results", "ranking", "quiz"])));
    // A person sorts by hand here: the rows typed again in order over the old ones.
    let mut walk = vec![key(&["ctrl", "home"]), key(&["down"])];
    walk.push(typed(&sorted.iter().map(|(p, s)| format!("{p}\t{s}\n")).collect::<String>()));
    calc_draft(
        format!(
            "Sort the rows of \"{}\" (open in Calc) by Score from highest to lowest, keeping the header row first, then save the file (keep its format).",
            file_name(&path)
        ),
        &path,
        &table(&start),
        &table(&sorted),
        walk,
    )
}

fn sentence(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => format!("Please send the {} report to {} by {}.", rng.pick(WORDS), rng.pick(PEOPLE), rng.pick(DAYS)),
        1 => format!("The {} meeting moves to {} at {} o'clock.", rng.pick(WORDS), rng.pick(DAYS), rng.range(8, 17)),
        2 => format!("{} will bring {} {} for the team.", rng.pick(PEOPLE), rng.range(2, 12), rng.pick(ITEMS)),
        _ => format!("Remember to water the {} plants on {}.", rng.pick(WORDS), rng.pick(DAYS)),
    }
}

fn writer_append(rng: &mut Rng) -> Draft {
    let paragraphs: Vec<String> = (0..rng.range(2, 4)).map(|_| sentence(rng)).collect();
    let mut new = sentence(rng);
    while paragraphs.contains(&new) {
        new = sentence(rng);
    }
    let mut done = paragraphs.clone();
    done.push(new.clone());
    let path = home("Documents", &format!("{}.docx", rng.pick(&["memo", "notes", "letter", "minutes"])));
    let walk = vec![key(&["ctrl", "end"]), key(&["enter"]), typed(&new)];
    writer_draft(
        format!("Add a new last paragraph to \"{}\" (open in Writer) that reads: {new} Then save the document (keep its format).", file_name(&path)),
        &path,
        &paragraphs,
        &done,
        walk,
    )
}

fn writer_replace(rng: &mut Rng) -> Draft {
    let old = *rng.pick(PEOPLE);
    let mut new = *rng.pick(PEOPLE);
    while new == old {
        new = *rng.pick(PEOPLE);
    }
    let mut paragraphs: Vec<String> = (0..rng.range(1, 3)).map(|_| sentence(rng).replace(old, new)).collect();
    paragraphs.insert(rng.below(paragraphs.len() + 1), format!("{old} asked {} to call {old} back.", rng.pick(PEOPLE).replace(old, new)));
    let done: Vec<String> = paragraphs.iter().map(|p| p.replace(old, new)).collect();
    let path = home("Documents", &format!("{}.docx", rng.pick(&["memo", "notes", "letter", "minutes"])));
    // Select everything and type the text as it should read, paragraph by paragraph.
    let walk = vec![key(&["ctrl", "a"]), typed(&done.join("\n"))];
    writer_draft(
        format!("In \"{}\" (open in Writer), replace the name {old} with {new} everywhere, then save the document (keep its format).", file_name(&path)),
        &path,
        &paragraphs,
        &done,
        walk,
    )
}

fn writer_center_title(rng: &mut Rng) -> Draft {
    let title = format!("{} {}", rng.pick(&["Notes on the", "Plan for the", "Minutes of the", "Report on the"]), rng.pick(WORDS));
    let body: Vec<String> = (0..rng.range(1, 3)).map(|_| sentence(rng)).collect();
    let start: Vec<Paragraph> = std::iter::once(title.as_str()).chain(body.iter().map(String::as_str)).map(Paragraph::from).collect();
    let mut done = start.clone();
    done[0] = Paragraph::Aligned { text: title.clone(), align: "center".into() };
    let path = home("Documents", &format!("{}.docx", rng.pick(&["memo", "notes", "letter", "minutes"])));
    // OSWorld's pair for a formatting task: the text unchanged, and the format checked.
    let evaluator = json!({
        "func": ["compare_docx_files", "is_first_line_centered"],
        "conj": "and",
        "result": [{"type": "vm_file", "path": path, "dest": file_name(&path)}, {"type": "vm_file", "path": path, "dest": file_name(&path)}],
        "expected": [{"type": "document_file", "paragraphs": done, "dest": format!("expected-{}", file_name(&path))}, null],
        "options": [{}, {}]
    });
    Draft {
        instruction: format!(
            "In \"{}\" (open in Writer), center the first line, \"{title}\", leaving the text as it is, then save the document (keep its format).",
            file_name(&path)
        ),
        apps: &["Writer"],
        config: vec![write_document(&path, &start), open(&path)],
        evaluator,
        golden: vec![write_document(&path, &done)],
        // Format ▸ Align ▸ Centered by its keys, on the first paragraph.
        walkthrough: in_office(vec![Action::Wait { ms: 500 }, key(&["ctrl", "home"]), key(&["ctrl", "e"])]),
        changes: vec![path],
    }
}

fn calc_filter_rows(rng: &mut Rng) -> Draft {
    let n = rng.range(4, 7) as usize;
    let people = distinct(rng, PEOPLE, n);
    let threshold = rng.range(3, 7) * 50;
    // At least one row on each side of the threshold.
    let mut amounts: Vec<i64> = (0..n).map(|_| rng.range(5, 500)).collect();
    amounts[0] = rng.range(threshold, 500);
    amounts[1] = rng.range(5, threshold - 1);
    rng.shuffle(&mut amounts);
    let header = vec![json!("Name"), json!("Amount")];
    let start: Vec<Vec<Value>> = std::iter::once(header.clone()).chain(people.iter().zip(&amounts).map(|(p, a)| vec![json!(p), json!(a)])).collect();
    let kept: Vec<(&str, i64)> = people.iter().copied().zip(amounts.iter().copied()).filter(|(_, a)| *a >= threshold).collect();
    let done: Vec<Vec<Value>> = std::iter::once(header).chain(kept.iter().map(|(p, a)| vec![json!(p), json!(a)])).collect();
    let path = home("Documents", &format!("{}.xlsx", rng.pick(&["expenses", "donations", "invoices", "tips"])));
    // By hand: the kept rows typed over the table, then the rows left below them cleared.
    let mut walk = vec![key(&["ctrl", "home"]), key(&["down"])];
    walk.push(typed(&kept.iter().map(|(p, a)| format!("{p}\t{a}\n")).collect::<String>()));
    let leftover = n - kept.len();
    walk.extend((1..leftover).map(|_| key(&["shift", "down"])));
    walk.push(key(&["shift", "right"]));
    walk.push(key(&["delete"]));
    calc_draft(
        format!(
            "In \"{}\" (open in Calc), remove the rows whose Amount is below {threshold}, keeping the header and the other rows in their order with no empty rows between them, then save the file (keep its format).",
            file_name(&path)
        ),
        &path,
        &start,
        &done,
        walk,
    )
}

/// The chart kinds a task asks for: the name in the instruction, the kind our writer takes,
/// and the place of the type in Calc's chart wizard list.
const CHART_KINDS: &[(&str, &str, usize)] = &[("column", "column", 0), ("pie", "pie", 2), ("area", "area", 3), ("line", "line", 4)];

fn calc_insert_chart(rng: &mut Rng) -> Draft {
    let n = rng.range(3, 7) as usize;
    let (label, value, pool, files) = *rng.pick(&[
        ("Name", "Amount", PEOPLE, &["expenses", "donations", "tips"][..]),
        ("Item", "Quantity", ITEMS, &["stock", "pantry", "order"][..]),
        ("Day", "Visitors", DAYS, &["visits", "footfall", "attendance"][..]),
    ]);
    let labels = distinct(rng, pool, n.min(pool.len()));
    let n = labels.len();
    let mut rows: Vec<Vec<Value>> = vec![vec![json!(label), json!(value)]];
    rows.extend(labels.iter().map(|l| vec![json!(l), json!(rng.range(5, 500))]));
    let (kind_name, kind, wizard_index) = *rng.pick(CHART_KINDS);
    let title = format!("{value} by {}", label.to_lowercase());
    let title = if rng.below(2) == 0 { title } else { format!("{} {value}", rng.pick(&["Weekly", "Monthly", "Yearly"])) };
    let chart = Chart {
        kind: kind.to_string(),
        title: Some(title.clone()),
        series: vec![Series { name: Some("B1".into()), categories: format!("A2:A{}", n + 1), values: format!("B2:B{}", n + 1) }],
    };
    let path = home("Documents", &format!("{}.xlsx", rng.pick(files)));
    let expected = json!({"type": "table_file", "rows": rows_json(&rows), "charts": [chart], "dest": format!("expected-{}", file_name(&path))});
    // The data unchanged, then the chart: its data ranges (the key), type and title. A column
    // chart and a horizontal bar chart are both `barChart`: their direction tells them apart,
    // asked only once the type matched (OSWorld raises on the direction of other types).
    let mut rules = vec![
        json!({"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}),
        json!({"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["type", "title"]}),
    ];
    if kind == "column" {
        rules.push(json!({"type": "chart", "sheet_idx0": 0, "sheet_idx1": "EI0", "chart_props": ["direction"]}));
    }
    let evaluator = json!({
        "func": "compare_table",
        "result": {"type": "vm_file", "path": path, "dest": file_name(&path)},
        "expected": expected,
        "options": {"rules": rules}
    });
    // Select the table, Insert ▸ Chart…, the type in the wizard's list, its last page for the
    // title, Finish; Escape twice leaves the chart. The title field is reached from the
    // subtitle's (alt+s, shift+Tab): GTK gives alt+t to the legend's Top, and the axis fields
    // are disabled for a pie.
    let mut walk = vec![key(&["ctrl", "home"]), key(&["shift", "ctrl", "end"]), Action::Wait { ms: 500 }, key(&["alt", "i"]), Action::Wait { ms: 800 }];
    walk.extend([key(&["down"]), key(&["Return"]), Action::Wait { ms: 3000 }]);
    walk.extend(presses("down", wizard_index));
    for _ in 0..3 {
        walk.extend([Action::Wait { ms: 700 }, key(&["alt", "n"])]);
    }
    walk.extend([Action::Wait { ms: 1000 }, key(&["alt", "s"]), key(&["shift", "Tab"]), typed(&title), key(&["alt", "f"]), Action::Wait { ms: 1500 }]);
    walk.extend([key(&["Escape"]), Action::Wait { ms: 500 }, key(&["Escape"]), Action::Wait { ms: 500 }]);
    Draft {
        instruction: format!(
            "In \"{}\" (open in Calc), insert {} {kind_name} chart of the table's {value} column with the {}s as categories (the whole table, its first row as labels), titled \"{title}\", then save the file (keep its format).",
            file_name(&path),
            if kind_name.starts_with('a') { "an" } else { "a" },
            label.to_lowercase()
        ),
        apps: &["Calc"],
        config: vec![write_table(&path, &rows), open(&path)],
        evaluator,
        golden: vec![ConfigStep::new("write_table", json!({"path": path, "rows": rows_json(&rows), "charts": [chart]}))],
        walkthrough: in_office(walk),
        changes: vec![path],
    }
}

/// The pages of the local site the browser tasks use: a title and what the page says.
const SITE: &[(&str, &str)] = &[
    ("Recipes", "Soups, breads and a lemon cake."),
    ("Garden", "What to sow in spring, and when to water."),
    ("Budget", "Rent, food, travel and savings for the year."),
    ("Travel", "Trains, ferries and a week by the lakes."),
    ("Music", "Concerts this month and a practice plan."),
    ("Books", "A reading list of novels and essays."),
    ("Weather", "The week's forecast for the valley."),
    ("Recycling", "Which bin takes glass, paper and tins."),
];

/// A page of the site: where it lives, its URL, and the step writing it.
fn site_page(title: &str, text: &str) -> (String, ConfigStep) {
    let path = format!("/home/user/Sites/{}.html", title.to_lowercase());
    let html = format!("<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p></body></html>\n");
    (format!("file://{path}"), write_file(&path, &html))
}

/// `n` different pages of the site, in a random order.
fn site_pages(rng: &mut Rng, n: usize) -> Vec<(&'static str, &'static str)> {
    let mut pages: Vec<(&str, &str)> = SITE.to_vec();
    let mut chosen = Vec::new();
    for _ in 0..n {
        let i = rng.range(0, pages.len() as i64 - 1) as usize;
        chosen.push(pages.remove(i));
    }
    chosen
}

/// Chrome as OSWorld's tasks start it (its DevTools forwarded to 9222), showing `urls`, one tab
/// each, in order, and in front.
fn browser_with(urls: &[String]) -> Vec<ConfigStep> {
    vec![
        ConfigStep::new("launch", json!({"command": ["google-chrome", "--remote-debugging-port=1337"]})),
        ConfigStep::new("launch", json!({"command": ["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"]})),
        ConfigStep::new("chrome_open_tabs", json!({"urls_to_open": urls})),
        ConfigStep::new("activate_window", json!({"window_name": "Google Chrome"})),
    ]
}

fn browser_close_tab(rng: &mut Rng) -> Draft {
    let n = rng.range(2, 4) as usize;
    let pages = site_pages(rng, n);
    let close = rng.range(0, n as i64 - 1) as usize;
    let (urls, mut config): (Vec<String>, Vec<ConfigStep>) = pages.iter().map(|(t, x)| site_page(t, x)).unzip();
    config.extend(browser_with(&urls));
    let kept: Vec<&String> = urls.iter().enumerate().filter(|(i, _)| *i != close).map(|(_, u)| u).collect();
    Draft {
        instruction: format!("In the browser, close the tab showing the {} page and leave the other tabs open.", pages[close].0),
        apps: &["Chrome"],
        config,
        evaluator: json!({
            "func": "is_expected_tabs",
            "result": {"type": "open_tabs_info"},
            "expected": {"type": "rule", "rules": {"type": "url", "urls": kept}}
        }),
        golden: vec![ConfigStep::new("chrome_close_tabs", json!({"urls_to_close": [urls[close]]}))],
        // Ctrl+<n> shows the n-th tab, Ctrl+W closes it.
        walkthrough: vec![key(&["ctrl", &(close + 1).to_string()]), Action::Wait { ms: 500 }, key(&["ctrl", "w"]), Action::Wait { ms: 500 }, done()],
        changes: Vec::new(),
    }
}

fn browser_open_page(rng: &mut Rng) -> Draft {
    let pages = site_pages(rng, 2);
    let (from, from_step) = site_page(pages[0].0, pages[0].1);
    let (to, to_step) = site_page(pages[1].0, pages[1].1);
    let mut config = vec![from_step, to_step];
    config.extend(browser_with(std::slice::from_ref(&from)));
    let path = to.trim_start_matches("file://").to_string();
    Draft {
        instruction: format!("In the browser, go to the {} page of the local site, {path}.", pages[1].0),
        apps: &["Chrome"],
        config,
        evaluator: json!({
            "func": "is_expected_active_tab",
            "result": {"type": "active_tab_info"},
            "expected": {"type": "rule", "rules": {"type": "url", "url": to}}
        }),
        golden: vec![ConfigStep::new("chrome_open_tabs", json!({"urls_to_open": [to]}))],
        walkthrough: vec![key(&["ctrl", "l"]), typed(&path), key(&["enter"]), Action::Wait { ms: 1000 }, done()],
        changes: Vec::new(),
    }
}

fn browser_bookmark(rng: &mut Rng) -> Draft {
    let pages = site_pages(rng, 1);
    let (url, step) = site_page(pages[0].0, pages[0].1);
    let mut config = vec![step];
    config.extend(browser_with(std::slice::from_ref(&url)));
    Draft {
        instruction: format!("Bookmark the {} page that is open in the browser, on the bookmarks bar.", pages[0].0),
        apps: &["Chrome"],
        config,
        evaluator: json!({
            "func": "is_expected_bookmarks",
            "result": {"type": "bookmarks"},
            "expected": {"type": "rule", "rules": {"type": "bookmark_bar_websites_urls", "urls": [url]}}
        }),
        golden: vec![ConfigStep::new("chrome_bookmark", json!({"url": url, "title": pages[0].0}))],
        // Ctrl+D bookmarks the page in "Other bookmarks"; the bubble's folder box moves it up
        // to the bar, and Escape closes the bubble, keeping the edit.
        walkthrough: vec![
            key(&["ctrl", "d"]),
            Action::Wait { ms: 800 },
            key(&["tab"]),
            key(&["up"]),
            Action::Wait { ms: 300 },
            key(&["escape"]),
            Action::Wait { ms: 500 },
            done(),
        ],
        changes: Vec::new(),
    }
}

/// Songs the media tasks make, each a tone of its own pitch.
const SONGS: &[(&str, f64)] =
    &[("morning", 262.0), ("rain", 294.0), ("lullaby", 330.0), ("march", 349.0), ("waltz", 392.0), ("chime", 440.0), ("harbor", 494.0), ("ember", 523.0)];

/// A command given to the running VLC through its web interface (on the instance's own
/// loopback), then a moment for VLC to act on it: a golden's way to play or show something.
fn vlc_command(params: &[(&str, &str)]) -> Vec<ConfigStep> {
    let mut command = vec!["curl", "-sf", "-o", "/dev/null", "-u", ":password", "-G", "http://127.0.0.1:8080/requests/status.xml"];
    let encoded: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    for p in &encoded {
        command.extend(["--data-urlencode", p.as_str()]);
    }
    vec![ConfigStep::new("execute", json!({"command": command})), ConfigStep::new("sleep", json!({"seconds": 1.5}))]
}

fn media_play_song(rng: &mut Rng) -> Draft {
    let folder = ["Music", "Desktop"][rng.range(0, 1) as usize];
    let mut songs: Vec<(&str, f64)> = SONGS.to_vec();
    let n = rng.range(2, 4) as usize;
    let chosen: Vec<(&str, f64)> = (0..n).map(|_| songs.remove(rng.range(0, songs.len() as i64 - 1) as usize)).collect();
    let (song, _) = chosen[rng.range(0, n as i64 - 1) as usize];
    let path = |name: &str| format!("/home/user/{folder}/{name}.wav");
    let mut config: Vec<ConfigStep> =
        chosen.iter().map(|(name, hz)| ConfigStep::new("write_media", json!({"path": path(name), "kind": "tone", "hz": hz, "seconds": 60}))).collect();
    config.push(ConfigStep::new("launch", json!({"command": ["vlc"]})));
    Draft {
        instruction: format!("Play the song {song}.wav from the {folder} folder in VLC."),
        apps: &["VLC"],
        config,
        evaluator: json!({
            "func": "is_vlc_playing",
            "result": {"type": "vlc_playing_info", "dest": "status.xml"},
            "expected": {"type": "rule", "rules": {"type": "file_name", "file_name": format!("{song}.wav")}}
        }),
        golden: vlc_command(&[("command", "in_play"), ("input", &format!("file://{}", path(song)))]),
        // VLC's Open File dialog (Ctrl+O) takes a typed path.
        walkthrough: vec![key(&["ctrl", "o"]), Action::Wait { ms: 800 }, typed(&format!("{}\n", path(song))), Action::Wait { ms: 1500 }, done()],
        changes: Vec::new(),
    }
}

fn media_fullscreen(rng: &mut Rng) -> Draft {
    let name = ["holiday", "garden tour", "concert", "lecture", "timelapse"][rng.range(0, 4) as usize];
    let path = format!("/home/user/Videos/{name}.y4m");
    let shade = rng.range(40, 215);
    Draft {
        instruction: [
            format!("VLC is playing {name}.y4m. Make the video fill the whole screen."),
            format!("Switch VLC to full screen while it plays {name}.y4m."),
            format!("I want to watch {name}.y4m without the window around it: put VLC in full screen."),
        ][rng.range(0, 2) as usize]
            .clone(),
        apps: &["VLC"],
        config: vec![
            ConfigStep::new("write_media", json!({"path": path, "kind": "clip", "seconds": 60, "shade": shade})),
            ConfigStep::new("launch", json!({"command": ["vlc", "--loop", path]})),
        ],
        evaluator: json!({
            "func": "is_vlc_fullscreen",
            "result": {"type": "vm_screen_size"},
            "expected": {"type": "vm_window_size", "app_class_name": "vlc"}
        }),
        golden: vlc_command(&[("command", "fullscreen")]),
        // F toggles full screen while a video plays.
        walkthrough: vec![key(&["f"]), Action::Wait { ms: 1000 }, done()],
        changes: Vec::new(),
    }
}

/// GIMP quit as OSWorld's GIMP tasks quit it (a pyautogui program, which the runner reads): it
/// writes its settings when it quits, and the evaluator reads them after.
fn quit_gimp() -> Vec<ConfigStep> {
    let program = "import time; import pyautogui; time.sleep(1);pyautogui.hotkey([\"ctrl\", \"q\"]);";
    vec![ConfigStep::new("execute", json!({"command": ["python3", "-c", program]})), ConfigStep::new("sleep", json!({"seconds": 0.5}))]
}

fn image_undo_levels(rng: &mut Rng) -> Draft {
    let levels = *rng.pick(&[10, 15, 20, 25, 30, 40, 50, 60, 64, 75, 80, 100, 120, 128, 150, 200, 250, 500]);
    let instruction = [
        format!("Set the minimum number of undo steps in GIMP to {levels}."),
        format!("Make GIMP keep at least {levels} undo levels."),
        format!("In GIMP's preferences, change the minimal number of undo levels to {levels}."),
    ][rng.range(0, 2) as usize]
        .clone();
    let mut evaluator = json!({
        "func": "check_config_status",
        "result": {"type": "gimp_config_file", "file_name": "gimprc", "dest": "gimprc"},
        "expected": {"type": "rule", "rules": {"key": "undo-levels", "value": levels.to_string()}}
    });
    evaluator["postconfig"] = json!(quit_gimp());
    // GIMP quit, its settings file written with the value, GIMP started again (it reads it).
    let mut golden = quit_gimp();
    golden.push(write_file("/home/user/.config/GIMP/2.10/gimprc", &format!("(undo-levels {levels})\n")));
    golden.push(ConfigStep::new("launch", json!({"command": ["gimp"]})));
    // Edit › Preferences (the fifth entry from the menu's end) opens on System Resources, the
    // list of pages in focus; its first field is the number of undo levels.
    let mut walkthrough = vec![key(&["alt", "e"]), Action::Wait { ms: 500 }];
    walkthrough.extend((0..5).map(|_| key(&["up"])));
    walkthrough.extend([
        key(&["enter"]),
        // The dialog takes its focus a while after the key (on a slow machine, past 2 s): the
        // first half of the walk, which the conformance test observes, ends on these waits.
        Action::Wait { ms: 2000 },
        Action::Wait { ms: 500 },
        key(&["tab"]),
        key(&["ctrl", "a"]),
        typed(&levels.to_string()),
        key(&["tab"]),
        Action::Wait { ms: 300 },
        key(&["alt", "o"]),
        Action::Wait { ms: 800 },
        done(),
    ]);
    Draft {
        instruction,
        apps: &["GIMP"],
        config: vec![ConfigStep::new("launch", json!({"command": ["gimp"]}))],
        evaluator,
        golden,
        walkthrough,
        changes: Vec::new(),
    }
}

/// A picture GIMP has open, as OSWorld's GIMP tasks start: drawn from the task's seed into the
/// Pictures folder. The evaluator exports it the way OSWorld's evaluators do (Shift+Ctrl+E, a
/// name, Enter twice, typed by a pyautogui program), next to the original as
/// `<name>_<suffix>.png`, and judges that file against the original drawn again.
struct Picture {
    name: &'static str,
    width: u32,
    height: u32,
    seed: u64,
}

impl Picture {
    fn draw(rng: &mut Rng) -> Picture {
        let name = *rng.pick(&["berries", "harbour", "garden", "sunset", "street", "meadow", "kitchen", "canyon"]);
        Picture { name, width: rng.range(160, 320) as u32, height: rng.range(120, 240) as u32, seed: rng.next_u64() >> 12 }
    }

    fn path(&self) -> String {
        format!("/home/user/Pictures/{}.png", self.name)
    }

    fn export_path(&self, suffix: &str) -> String {
        format!("/home/user/Pictures/{}_{suffix}.png", self.name)
    }

    fn data(&self, mirrored: bool) -> Value {
        json!({"kind": "picture", "width": self.width, "height": self.height, "seed": self.seed, "mirrored": mirrored})
    }

    /// The picture written and opened in GIMP.
    fn config(&self) -> Vec<ConfigStep> {
        let mut write = self.data(false);
        write["path"] = json!(self.path());
        vec![ConfigStep::new("write_media", write), ConfigStep::new("launch", json!({"command": ["gimp", self.path()]}))]
    }

    /// `func` on the exported picture (the result) and the original (expected).
    fn evaluator(&self, func: &str, suffix: &str) -> Value {
        let mut original = self.data(false);
        original["type"] = json!("picture_file");
        original["dest"] = json!(format!("{}.png", self.name));
        let program = |code: &str| ConfigStep::new("execute", json!({"command": ["python3", "-c", format!("import pyautogui; import time; {code}")]}));
        json!({
            "postconfig": [
                program("pyautogui.hotkey([\"shift\", \"ctrl\", \"e\"]); time.sleep(1);"),
                program(&format!("pyautogui.write(\"{}_{suffix}\"); pyautogui.press([\"enter\"]); time.sleep(2);", self.name)),
                program("pyautogui.press([\"enter\"]); time.sleep(3);"),
            ],
            "func": func,
            "result": {"type": "vm_file", "path": self.export_path(suffix), "dest": format!("{}_{suffix}.png", self.name)},
            "expected": original
        })
    }

    /// A golden that leaves GIMP holding `changed` (the picture as the task wants it): GIMP quit,
    /// the file written over, GIMP started on it again, so that the evaluator's export holds it.
    /// An export an earlier evaluation left is taken away first: GIMP would ask before
    /// replacing it, and the export's two Enters would not get through.
    fn golden(&self, changed: Value, suffix: &str) -> Vec<ConfigStep> {
        let mut write = changed;
        write["path"] = json!(self.path());
        let mut golden = quit_gimp();
        golden.extend([
            execute(&format!("rm -f {}", quote(&self.export_path(suffix)))),
            ConfigStep::new("write_media", write),
            ConfigStep::new("launch", json!({"command": ["gimp", self.path()]})),
            // Its window shows before it takes keys (a loaded machine let the export's first
            // keys go by).
            ConfigStep::new("sleep", json!({"seconds": 3})),
        ]);
        golden
    }
}

fn image_mirror(rng: &mut Rng) -> Draft {
    let picture = Picture::draw(rng);
    let name = picture.name;
    Draft {
        instruction: [
            format!("Mirror the picture {name}.png open in GIMP, left to right."),
            format!("Flip {name}.png horizontally in GIMP."),
            format!("In GIMP, turn {name}.png into its mirror image (left becomes right)."),
        ][rng.range(0, 2) as usize]
            .clone(),
        apps: &["GIMP"],
        config: picture.config(),
        evaluator: picture.evaluator("check_image_mirror", "mirror"),
        golden: picture.golden(picture.data(true), "mirror"),
        // Image › Transform › Flip Horizontally, by the menus' letters.
        walkthrough: vec![key(&["alt", "i"]), Action::Wait { ms: 500 }, key(&["t"]), Action::Wait { ms: 300 }, key(&["h"]), Action::Wait { ms: 800 }, done()],
        changes: vec![picture.path(), picture.export_path("mirror")],
    }
}

fn image_darker(rng: &mut Rng) -> Draft {
    let picture = Picture::draw(rng);
    let name = picture.name;
    let amount = rng.range(20, 60);
    Draft {
        instruction: [
            format!("Make the picture {name}.png open in GIMP darker."),
            format!("{name}.png is too bright: lower its brightness in GIMP."),
            format!("In GIMP, darken {name}.png a little, keeping everything else as it is."),
        ][rng.range(0, 2) as usize]
            .clone(),
        apps: &["GIMP"],
        config: picture.config(),
        evaluator: picture.evaluator("check_brightness_decrease_and_structure_sim", "darker"),
        // The picture drawn again at 70 % of its brightness.
        golden: picture.golden(
            {
                let mut darker = picture.data(false);
                darker["brightness"] = json!(0.7);
                darker
            },
            "darker",
        ),
        // Colors › Brightness-Contrast (the menu's eighth entry): the brightness lowered, OK.
        walkthrough: {
            let mut steps = vec![key(&["alt", "c"]), Action::Wait { ms: 500 }];
            steps.extend((0..7).map(|_| key(&["down"])));
            steps.extend([
                key(&["enter"]),
                Action::Wait { ms: 2000 },
                key(&["tab"]),
                key(&["ctrl", "a"]),
                typed(&format!("-{amount}")),
                key(&["tab"]),
                Action::Wait { ms: 300 },
                key(&["alt", "o"]),
                Action::Wait { ms: 1000 },
                done(),
            ]);
            steps
        },
        changes: vec![picture.path(), picture.export_path("darker")],
    }
}

/// Thunderbird's profile in the home template, and its local folders.
const MAIL_PROFILE: &str = "/home/user/.thunderbird/guigym.default-release";

fn local_folders(file: &str) -> String {
    format!("{MAIL_PROFILE}/Mail/Local Folders/{file}")
}

/// Thunderbird's window shows before its first start in an instance has made the profile and
/// its menus answer keys.
const MAIL_READY: Action = Action::Wait { ms: 4000 };

fn thunderbird() -> ConfigStep {
    ConfigStep::new("launch", json!({"command": ["thunderbird"]}))
}

fn mail_filter(rng: &mut Rng) -> Draft {
    let (name, word) = *rng.pick(&[
        ("Invoices", "invoice"),
        ("Newsletters", "newsletter"),
        ("Travel", "flight"),
        ("Receipts", "receipt"),
        ("School", "homework"),
        ("Family", "dinner"),
        ("Shipping", "delivery"),
        ("Events", "ticket"),
    ]);
    let condition = format!("AND (subject,contains,{word})");
    let rules = local_folders("msgFilterRules.dat");
    // Tools › Message Filters › New: the name; ten tabs reach the operator (left at
    // "contains"), one more the subject's text; two more the action, Delete; OK; the list
    // closed (which writes the filters).
    let mut walkthrough =
        vec![MAIL_READY, key(&["alt", "t"]), key(&["f"]), Action::Wait { ms: 2000 }, key(&["alt", "n"]), Action::Wait { ms: 2000 }, typed(name)];
    walkthrough.extend((0..11).map(|_| key(&["tab"])));
    walkthrough.extend([
        typed(word),
        key(&["tab"]),
        key(&["tab"]),
        typed("Delete"),
        key(&["enter"]),
        Action::Wait { ms: 1500 },
        key(&["escape"]),
        Action::Wait { ms: 1500 },
        done(),
    ]);
    Draft {
        instruction: [
            format!("In Thunderbird, make a message filter named \"{name}\" for the local folders that deletes messages whose subject contains \"{word}\"."),
            format!("Create a Thunderbird filter \"{name}\": delete every message with \"{word}\" in its subject."),
            format!(
                "I get too many mails about {word}s. Add a filter called \"{name}\" in Thunderbird that deletes messages whose subject contains \"{word}\"."
            ),
        ][rng.range(0, 2) as usize]
            .clone(),
        apps: &["Thunderbird"],
        config: vec![thunderbird()],
        evaluator: json!({
            "func": "check_thunderbird_filter",
            "result": {"type": "vm_file", "path": rules, "dest": "msgFilterRules.dat"},
            "expected": {"type": "rule", "rules": {"expect": [{"name": name, "enabled": "yes", "action": "Delete", "condition": [condition]}]}}
        }),
        golden: vec![write_file(
            &rules,
            &format!("version=\"9\"\nlogging=\"no\"\nname=\"{name}\"\nenabled=\"yes\"\ntype=\"17\"\naction=\"Delete\"\ncondition=\"{condition}\"\n"),
        )],
        walkthrough,
        changes: Vec::new(),
    }
}

fn mail_folder(rng: &mut Rng) -> Draft {
    let name = *rng.pick(FOLDER_NAMES);
    let path = local_folders(name);
    Draft {
        instruction: [
            format!("Create a folder named \"{name}\" in Thunderbird's local folders."),
            format!("In Thunderbird, add a new mail folder \"{name}\" under Local Folders."),
            format!("I want to sort my mail: make a \"{name}\" folder in Thunderbird (in Local Folders)."),
        ][rng.range(0, 2) as usize]
            .clone(),
        apps: &["Thunderbird"],
        config: vec![thunderbird()],
        // A folder is a mail file of its name (empty while it holds no mail).
        evaluator: shell_check(&format!("[ -f {} ] && echo made || echo missing", quote(&path)), &["made"], &["missing"]),
        golden: vec![execute(&format!("touch {}", quote(&path)))],
        // File › New › Folder, named, under the local folders.
        walkthrough: vec![
            MAIL_READY,
            key(&["alt", "f"]),
            key(&["enter"]),
            key(&["down"]),
            key(&["enter"]),
            Action::Wait { ms: 2000 },
            typed(name),
            key(&["enter"]),
            Action::Wait { ms: 1500 },
            done(),
        ],
        changes: Vec::new(),
    }
}

/// A PDF open in the document viewer (Evince), saved as a copy elsewhere under another name:
/// the copy must be the document, byte for byte.
fn pdf_save_copy(rng: &mut Rng) -> Draft {
    let name = *rng.pick(&["minutes", "invoice", "itinerary", "syllabus", "lease", "report", "receipt", "agenda"]);
    let from = *rng.pick(&["Desktop", "Downloads"]);
    let to = *rng.pick(&["Documents", "Desktop"]);
    let suffix = *rng.pick(&["copy", "backup", "archive", "signed", "final"]);
    let (source, copy) = (home(from, &format!("{name}.pdf")), home(to, &format!("{name}_{suffix}.pdf")));
    let reference = rng.range(1000, 9999);
    let title = format!("{}{} {reference}", name[..1].to_uppercase(), &name[1..]);
    let lines = [title.as_str(), "Prepared for the office.", &format!("Reference number {reference}.")];
    let command = format!("cmp -s {} {} && echo identical || echo different", quote(&source), quote(&copy));
    Draft {
        instruction: [
            format!("Save a copy of {name}.pdf, open in the document viewer, as {name}_{suffix}.pdf in the {to} folder."),
            format!("In the document viewer, keep a copy of {name}.pdf named {name}_{suffix}.pdf in {to}."),
            format!("Make a copy of the PDF open in the document viewer: ~/{to}/{name}_{suffix}.pdf."),
        ][rng.range(0, 2) as usize]
            .clone(),
        apps: &["Document Viewer"],
        config: vec![
            write_file(&source, &guigym_benchmark_osworld::media::pdf_document(&lines)),
            ConfigStep::new("launch", json!({"command": ["evince", source]})),
        ],
        evaluator: json!({
            "func": "check_include_exclude",
            "result": {"type": "vm_command_line", "command": command, "shell": true},
            "expected": {"type": "rule", "rules": {"include": ["identical"], "exclude": ["different"]}}
        }),
        golden: vec![execute(&format!("cp {} {}", quote(&source), quote(&copy)))],
        // Save a Copy (Ctrl+S): the file chooser's name field takes a whole path.
        walkthrough: vec![key(&["ctrl", "s"]), Action::Wait { ms: 1500 }, key(&["ctrl", "a"]), typed(&format!("{copy}\n")), Action::Wait { ms: 1500 }, done()],
        changes: vec![copy],
    }
}

/// A picture open in the image viewer (Eye of GNOME), turned a quarter one way and saved in
/// place: its sides swapped, and like the picture drawn turned that way.
fn photo_rotate(rng: &mut Rng) -> Draft {
    let picture = Picture::draw(rng);
    let name = picture.name;
    let clockwise = rng.range(0, 1) == 1;
    let way = if clockwise { "clockwise" } else { "counter-clockwise" };
    let mut turned = picture.data(false);
    turned["quarter_turns"] = json!(if clockwise { 1 } else { 3 });
    let mut write = picture.data(false);
    write["path"] = json!(picture.path());
    let mut expected = turned.clone();
    expected["type"] = json!("picture_file");
    expected["dest"] = json!(format!("{name}_turned.png"));
    let mut golden = turned;
    golden["path"] = json!(picture.path());
    let saved = json!({"type": "vm_file", "path": picture.path(), "dest": format!("{name}.png")});
    Draft {
        instruction: [
            format!("Turn the picture {name}.png open in the image viewer a quarter {way} and save it."),
            format!("Rotate {name}.png 90° {way} in the image viewer, saving it over the original."),
            format!("{name}.png lies on its side: in the image viewer, rotate it {way} by 90 degrees and save."),
        ][rng.range(0, 2) as usize]
            .clone(),
        apps: &["Image Viewer"],
        config: vec![ConfigStep::new("write_media", write), ConfigStep::new("launch", json!({"command": ["eog", picture.path()]}))],
        evaluator: json!({
            "func": ["check_image_size", "check_structure_sim"],
            "conj": "and",
            "result": [saved, saved],
            "expected": [{"type": "rule", "rules": {"width": picture.height, "height": picture.width}}, expected]
        }),
        golden: vec![ConfigStep::new("write_media", golden)],
        // Ctrl+R turns clockwise, Shift+Ctrl+R the other way; Ctrl+S saves in place.
        walkthrough: vec![
            if clockwise { key(&["ctrl", "r"]) } else { key(&["ctrl", "shift", "r"]) },
            Action::Wait { ms: 500 },
            key(&["ctrl", "s"]),
            Action::Wait { ms: 1500 },
            done(),
        ],
        changes: vec![picture.path()],
    }
}

/// A toggle of MusicBrainz Picard's Options menu (Rename Files, Move Files, Save Tags), judged
/// by the settings file Picard writes (`~/.config/MusicBrainz/Picard.ini`).
fn tagger_option(rng: &mut Rng) -> Draft {
    const SETTINGS: &str = "/home/user/.config/MusicBrainz/Picard.ini";
    let options = [
        (
            "r",
            "rename_files",
            [
                "Make Picard rename files when it saves them.",
                "In MusicBrainz Picard, turn on Rename Files.",
                "I want Picard to give my files new names when it saves them.",
            ],
        ),
        (
            "m",
            "move_files",
            [
                "Make Picard move files into its destination folder when it saves them.",
                "In MusicBrainz Picard, turn on Move Files.",
                "Picard should move the files it saves to its destination folder.",
            ],
        ),
        (
            "t",
            "dont_write_tags",
            [
                "Stop Picard from writing tags into the files it saves.",
                "In MusicBrainz Picard, turn off Save Tags.",
                "Picard must leave my files' tags alone when it saves.",
            ],
        ),
    ];
    let (letter, setting, instructions) = options[rng.range(0, 2) as usize];
    let others: Vec<String> = options.iter().filter(|(_, s, _)| *s != setting).map(|(_, s, _)| format!("{s}=true")).collect();
    // The setting written under [setting] as Picard writes it (Qt's INI), whether or not Picard
    // has written the file yet.
    let golden = format!(
        "f={SETTINGS}; mkdir -p \"$(dirname $f)\"; touch $f; sed -i '/^{setting}=/d' $f; grep -q '^\\[setting\\]' $f || printf '[setting]\\n' >> $f; sed -i '/^\\[setting\\]/a {setting}=true' $f"
    );
    Draft {
        instruction: instructions[rng.range(0, 2) as usize].to_string(),
        apps: &["MusicBrainz Picard"],
        config: vec![ConfigStep::new("launch", json!({"command": ["picard"]}))],
        evaluator: json!({
            "func": "check_include_exclude",
            "result": {"type": "vm_command_line", "command": ["grep", "-E", "^(rename_files|move_files|dont_write_tags)=", SETTINGS]},
            "expected": {"type": "rule", "rules": {"include": [format!("{setting}=true")], "exclude": others}}
        }),
        golden: vec![execute(&golden)],
        // The Options menu by its letter, the toggle by its own; Picard writes the file a moment later.
        walkthrough: vec![Action::Wait { ms: 1000 }, key(&["alt", "o"]), Action::Wait { ms: 500 }, key(&[letter]), Action::Wait { ms: 2000 }, done()],
        changes: Vec::new(),
    }
}

fn done() -> Action {
    Action::Terminate { status: TerminateStatus::Success }
}

/// Task `index` of a family.
pub fn task(family: &Family, index: usize) -> TaskSpec {
    let seed = Rng::derive(index as u64, family.name).next_u64();
    let mut rng = Rng::new(seed);
    let d = (family.draw)(&mut rng);
    let id = format!("{}/{index}", family.name);
    let evaluator: Evaluator = serde_json::from_value(d.evaluator).unwrap_or_else(|e| panic!("{id}: the catalogue wrote a bad evaluator: {e}"));
    let task = OsWorldTask {
        id: id.clone(),
        instruction: d.instruction.clone(),
        config: d.config,
        related_apps: d.apps.iter().map(|a| a.to_lowercase()).collect(),
        evaluator,
        allowed_changes: Some(d.changes),
        other: Default::default(),
    };
    let steps = d.walkthrough.len() as u32;
    TaskSpec {
        id,
        benchmark: BENCHMARK.into(),
        family: family.name.into(),
        instruction: d.instruction,
        apps: d.apps.iter().map(|a| a.to_string()).collect(),
        world_seed: seed,
        step_budget: steps * 3 + 15,
        difficulty: steps,
        params: json!({"task": task, "golden": d.golden, "typed_value_free": family.typed_value_free}),
        walkthrough: d.walkthrough,
    }
}

pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name == name)
}

/// The suites: `desktop` (every task), `desktop-smoke` (two per family).
pub const SUITES: &[&str] = &["desktop", "desktop-smoke"];

pub fn suite(name: &str) -> Option<Vec<TaskSpec>> {
    let per = match name {
        "desktop" => PER_FAMILY,
        "desktop-smoke" => 2,
        _ => return None,
    };
    Some(FAMILIES.iter().flat_map(|f| (0..per).map(move |i| task(f, i))).collect())
}

pub fn find_task(id: &str) -> Option<TaskSpec> {
    let (name, index) = id.rsplit_once('/')?;
    let index: usize = index.parse().ok()?;
    let family = family(name)?;
    (index < PER_FAMILY).then(|| task(family, index))
}

/// Which split a task is in: `terminal.archive` is held out as a family never trained on;
/// of the rest, one task in five (by a hash of its id) is test.
pub fn split(task: &TaskSpec) -> &'static str {
    if matches!(task.family.as_str(), "terminal.archive") {
        "test-families"
    } else if Rng::derive(0, &task.id).next_u64().is_multiple_of(5) {
        "test"
    } else {
        "train"
    }
}

/// The desktop catalogue as a benchmark.
pub struct DesktopCatalogue;

pub static DESKTOP: DesktopCatalogue = DesktopCatalogue;

/// The desktop catalogue and imported OSWorld tasks, as a desktop backend hosts them (tests and
/// tools that need no registry).
pub fn hosted() -> DesktopBenchmarks {
    DesktopBenchmarks::new([&DESKTOP as &'static dyn DesktopBenchmark, &guigym_benchmark_osworld::OSWORLD])
}

impl DesktopBenchmark for DesktopCatalogue {
    fn set_up(&self, task: &TaskSpec, desktop: &mut Instance) -> Result<(), Failure> {
        guigym_benchmark_osworld::set_up(task, desktop)
    }
    fn golden(&self, task: &TaskSpec, desktop: &mut Instance) -> Result<Option<TerminateStatus>, Failure> {
        guigym_benchmark_osworld::golden(task, desktop)
    }
    fn evaluate(&self, task: &TaskSpec, desktop: &mut Instance, log: &EpisodeLog) -> Result<Verdict, Failure> {
        guigym_benchmark_osworld::evaluate(task, desktop, log)
    }
}

impl guigym_core::Benchmark for DesktopCatalogue {
    fn name(&self) -> &str {
        BENCHMARK
    }
    fn suites(&self) -> Vec<String> {
        SUITES.iter().map(|s| s.to_string()).collect()
    }
    fn suite(&self, name: &str) -> Result<Vec<TaskSpec>, String> {
        suite(name).ok_or_else(|| format!("the desktop catalogue has no suite \"{name}\""))
    }
    fn task(&self, id: &str) -> Option<TaskSpec> {
        find_task(id)
    }
    fn split(&self, task: &TaskSpec) -> Option<String> {
        Some(split(task).to_string())
    }
    fn audit_cases(&self, task: &TaskSpec) -> Vec<guigym_core::AuditCase> {
        guigym_benchmark_osworld::audit::cases(task)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_value_left_to_the_agent_gets_no_other_value_mutant() {
        let rules = |id: &str| -> Vec<&'static str> {
            let task = find_task(id).unwrap();
            guigym_rollout::audit::cases(&task, &DESKTOP, guigym_core::Platform::Desktop).iter().map(|c| c.rule).collect()
        };
        // How much darker is the agent's choice; the number of undo levels is not.
        assert!(!rules("image.darker/0").contains(&"other_value_typed"));
        assert!(rules("image.undo_levels/0").contains(&"other_value_typed"));
    }

    #[test]
    fn the_catalogue_has_enough_distinct_tasks() {
        let all = suite("desktop").unwrap();
        assert!(FAMILIES.len() >= 12 && all.len() >= 300, "{} families, {} tasks", FAMILIES.len(), all.len());
        let instructions: std::collections::HashSet<&str> = all.iter().map(|t| t.instruction.as_str()).collect();
        assert!(instructions.len() * 10 >= all.len() * 6, "only {} distinct instructions", instructions.len());
        for t in &all {
            let (task, _) = guigym_benchmark_osworld::task_of(t).unwrap();
            assert_eq!(find_task(&t.id).as_ref(), Some(t));
            // Every task says which files it may change: infeasible ones, the browser's, the
            // media player's, GIMP's settings, Thunderbird's and Picard's (whose state is the
            // application's own, out of the user's files) none; a picture's, the picture and its export.
            let allowed = task.allowed_changes.as_ref().unwrap_or_else(|| panic!("{}: no allowed changes", t.id));
            let changes_nothing =
                task.is_infeasible() || ["browser.", "media.", "image.undo_levels", "mail.", "tagger."].iter().any(|p| t.family.starts_with(p));
            assert_eq!(allowed.is_empty(), changes_nothing, "{}: {allowed:?}", t.id);
        }
    }
}
