//! OSWorld's own task files, imported: which of them the desktop can run as they are, and
//! why not the others. A task is kept when its applications are here, every set-up step,
//! getter, metric (and `compare_table` rule) is implemented, and every asset it downloads is
//! in the local cache in OSWorld's layout. Kept tasks become the `osworld` benchmark.

use std::path::{Path, PathBuf};

use guigym_core::TaskSpec;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use guigym_core::{EpisodeLog, TerminateStatus, Verdict};
use guigym_desktop::instance::{Failure, Instance};
use guigym_desktop::DesktopBenchmark;

use crate::runner::{uuid5_url, GETTERS, STEPS};
use crate::task::{ConfigStep, OsWorldTask};

pub const BENCHMARK: &str = "osworld";
/// OSWorld's default step budget.
pub const STEP_BUDGET: u32 = 15;

/// OSWorld's application names this backend has; `os` is the desktop itself, `libreoffice`
/// any of its three applications, `chrome` Chromium in Chrome's place, `pdf`, `image` and
/// `ubuntu_media_player` Ubuntu's Evince, Eye of GNOME and Totem.
pub const APPS: &[&str] = &[
    "os",
    "libreoffice",
    "libreoffice_calc",
    "libreoffice_writer",
    "libreoffice_impress",
    "terminal",
    "text_editor",
    "file_manager",
    "chrome",
    "vlc",
    "gimp",
    "thunderbird",
    "pdf",
    "image",
    "ubuntu_media_player",
    "picard",
];

/// An application as OSWorld's task files name it, in one spelling: they write
/// `libreoffice_calc`, `libreoffice calc` and `calc`, `vscode` and `vs_code`, `OS` and `os`.
/// A name this knows no other spelling of is itself, lower-cased, spaces and hyphens as `_`.
pub fn app_name(written: &str) -> String {
    let plain = written.trim().to_lowercase().replace([' ', '-'], "_");
    let known = match plain.as_str() {
        "os" | "ubuntu" => "os",
        "libreoffice_calc" | "calc" => "libreoffice_calc",
        "libreoffice_writer" | "writer" => "libreoffice_writer",
        "libreoffice_impress" | "impress" => "libreoffice_impress",
        "terminal" | "gnome_terminal" => "terminal",
        "text_editor" | "gedit" => "text_editor",
        "file_manager" | "nautilus" | "files" => "file_manager",
        "chrome" | "google_chrome" | "chromium" | "browser" => "chrome",
        "vs_code" | "vscode" | "visual_studio_code" => "vs_code",
        "vlc" | "vlc_media_player" => "vlc",
        "gimp" | "gnu_image_manipulation_program" => "gimp",
        "thunderbird" | "mozilla_thunderbird" => "thunderbird",
        // Ubuntu's viewers, by what they show and by their programs' names.
        "pdf" | "evince" | "document_viewer" | "pdf_viewer" => "pdf",
        "image" | "eog" | "image_viewer" | "eye_of_gnome" => "image",
        "ubuntu_media_player" | "totem" | "videos" => "ubuntu_media_player",
        "picard" | "musicbrainz_picard" => "picard",
        _ => return plain,
    };
    known.to_string()
}

/// A task's applications in one spelling each, in order, once each.
fn app_names(related: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in related.iter().map(|a| app_name(a)) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// One task file left out, and why.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Skipped {
    pub file: PathBuf,
    pub id: Option<String>,
    /// The application (OSWorld's domain: the folder the file sits in) it was filed under.
    #[serde(default)]
    pub app: String,
    pub reason: String,
    /// The reason without what is particular to the task (an asset's URL), so that skips
    /// can be counted by reason.
    #[serde(default)]
    pub group: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Imported {
    pub kept: Vec<TaskSpec>,
    pub skipped: Vec<Skipped>,
}

impl Imported {
    /// Kept and skipped tasks by application, each application's skips counted by reason,
    /// most frequent first.
    pub fn table(&self) -> String {
        use std::collections::BTreeMap;
        use std::fmt::Write as _;
        let mut by_app: BTreeMap<&str, (usize, BTreeMap<&str, usize>)> = BTreeMap::new();
        for t in &self.kept {
            by_app.entry(t.family.as_str()).or_default().0 += 1;
        }
        for s in &self.skipped {
            *by_app.entry(s.app.as_str()).or_default().1.entry(s.group.as_str()).or_default() += 1;
        }
        let width = by_app.keys().map(|a| a.chars().count()).max().unwrap_or(0).max("application".len());
        let mut out = format!("{:<width$}  {:>5}  {:>7}  reasons skipped\n", "application", "kept", "skipped");
        for (app, (kept, reasons)) in &by_app {
            let skipped: usize = reasons.values().sum();
            let mut reasons: Vec<(&&str, &usize)> = reasons.iter().collect();
            reasons.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let said = reasons.iter().map(|(why, n)| format!("{n} × {why}")).collect::<Vec<_>>().join("; ");
            let _ = writeln!(out, "{app:<width$}  {kept:>5}  {skipped:>7}  {said}");
        }
        let _ = writeln!(out, "{:<width$}  {:>5}  {:>7}", "all", self.kept.len(), self.skipped.len());
        out
    }
}

/// Why a task cannot run here: the whole reason, and the reason as counted.
struct Why {
    reason: String,
    group: String,
}

impl Why {
    /// A reason that is its own group.
    fn plain(reason: String) -> Why {
        Why { group: reason.clone(), reason }
    }
}

/// Every `*.json` under `dir`, in a stable order. Folders reached through a symbolic link are
/// not entered (a link to `..` would import every task again, or for ever); a folder that
/// cannot be read below `dir` is passed over.
pub(crate) fn task_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if meta.is_dir() {
            let _ = task_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") && !(meta.file_type().is_symlink() && path.is_dir()) {
            out.push(path);
        }
    }
    Ok(())
}

/// The largest task file read.
const TASK_FILE_MAX: u64 = 64 << 20;

/// A task file's text: a regular file (a FIFO would block the read) of at most 64 MiB.
pub(crate) fn read_task_file(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("unreadable: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let bytes = guigym_core::read_at_most(path, TASK_FILE_MAX).map_err(|e| format!("unreadable: {e}"))?.ok_or("over 64 MiB: not a task file")?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}

/// A task id that can name a folder of the cache, a line of a report and a suite's entry: a
/// plain name of printable characters.
fn plain_id(id: &str) -> bool {
    crate::assets::plain_name(id) && id.len() <= 256 && !id.chars().any(char::is_control)
}

/// Imports every OSWorld task file under `dir`; `cache` is OSWorld's asset cache
/// (`<cache>/<task id>/…`).
pub fn import(dir: &Path, cache: Option<&Path>) -> Result<Imported, String> {
    let mut files = Vec::new();
    task_files(dir, &mut files)?;
    if files.is_empty() {
        return Err(format!("{}: no task files (*.json)", dir.display()));
    }
    let mut imported = Imported::default();
    for file in files {
        let folder = domain(&file, dir);
        let text = match read_task_file(&file) {
            Ok(t) => t,
            Err(reason) => {
                let group = "unreadable".to_string();
                imported.skipped.push(Skipped { app: folder.unwrap_or_default(), id: None, reason, group, file });
                continue;
            }
        };
        let task = match OsWorldTask::parse(&text) {
            Ok(t) => t,
            Err(e) => {
                let id = serde_json::from_str::<Value>(&text).ok().and_then(|v| v.get("id").and_then(Value::as_str).map(String::from));
                let (reason, group) = (format!("not an OSWorld task: {e}"), "not an OSWorld task".to_string());
                imported.skipped.push(Skipped { app: folder.unwrap_or_default(), id, reason, group, file });
                continue;
            }
        };
        let app = folder.clone().or_else(|| app_names(&task.related_apps).into_iter().next()).unwrap_or_else(|| "os".into());
        let id = Some(task.id.clone());
        if !plain_id(&task.id) {
            let reason = format!("id {:?} is not a plain name (no /, no control characters, at most 256 bytes)", task.id.chars().take(80).collect::<String>());
            imported.skipped.push(Skipped { file, id: None, app, reason, group: "an id that is not a plain name".into() });
            continue;
        }
        if let Some(first) = imported.kept.iter().find(|t| t.id == format!("{BENCHMARK}/{}", task.id)) {
            let reason = format!("its id is also {}'s, kept first", first.params["source"].as_str().unwrap_or("another file's"));
            imported.skipped.push(Skipped { file, id, app, reason, group: "an id kept already".into() });
            continue;
        }
        match why_unsupported(&task, cache) {
            Some(Why { reason, group }) => imported.skipped.push(Skipped { file, id: Some(task.id.clone()), app, reason, group }),
            None => imported.kept.push(spec(&task, &file, app, cache)),
        }
    }
    Ok(imported)
}

/// The folder a task file sits in under `dir`: OSWorld's domain (its application).
fn domain(file: &Path, dir: &Path) -> Option<String> {
    file.parent().filter(|p| *p != dir).and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned())
}

/// The task as a `TaskSpec`: it carries the whole OSWorld task (and the cache it was checked
/// against), so it runs wherever the spec goes.
/// Its family is its application: the folder the file sits in (OSWorld groups tasks so).
fn spec(task: &OsWorldTask, file: &Path, family: String, cache: Option<&Path>) -> TaskSpec {
    TaskSpec {
        id: format!("{BENCHMARK}/{}", task.id),
        benchmark: BENCHMARK.into(),
        family,
        instruction: task.instruction.clone(),
        apps: app_names(&task.related_apps),
        world_seed: 0,
        step_budget: STEP_BUDGET,
        difficulty: 0,
        params: json!({"task": task, "cache": cache, "source": file}),
        walkthrough: Vec::new(),
    }
}

/// Why the task cannot run here, or `None` when it can.
pub fn unsupported(task: &OsWorldTask, cache: Option<&Path>) -> Option<String> {
    why_unsupported(task, cache).map(|w| w.reason)
}

fn why_unsupported(task: &OsWorldTask, cache: Option<&Path>) -> Option<Why> {
    if let Some(app) = app_names(&task.related_apps).into_iter().find(|a| !APPS.contains(&a.as_str())) {
        return Some(Why {
            reason: format!("needs the application \"{app}\", which this backend does not have (it has: {})", APPS.join(", ")),
            group: format!("application \"{app}\" not here"),
        });
    }
    let steps = task.config.iter().map(|s| ("config", s)).chain(task.evaluator.postconfig.iter().map(|s| ("postconfig", s)));
    for (field, step) in steps {
        if let Some(why) = step_unsupported(task, step, cache) {
            return Some(Why { reason: format!("{field}: {}", why.reason), group: format!("{field}: {}", why.group) });
        }
    }
    let metrics = match task.check().and_then(|()| task.metrics()) {
        Ok(m) => m,
        Err(e) => return Some(Why { reason: e, group: "evaluator malformed".into() }),
    };
    for m in metrics {
        // Early task files hold a placeholder evaluator (`"func": ""`): no check was written.
        if m.func.trim().is_empty() {
            return Some(Why { reason: "the evaluator names no metric (its func is empty)".into(), group: "no metric written".into() });
        }
        if !crate::metrics::implemented(&m.func) {
            return Some(Why::plain(format!("metric \"{}\" is not implemented", m.func)));
        }
        let table_rules = if m.func == "compare_table" { m.options.get("rules").and_then(Value::as_array).cloned().unwrap_or_default() } else { Vec::new() };
        // OSWorld calls these with the expected value as their second argument: without one it
        // cannot run them (here, rules that are absent would pass any result). compare_table
        // runs without one when its rules read the result alone (check_cell).
        let reads_result_alone = !table_rules.is_empty() && !table_rules.iter().any(crate::metrics::table_rule_reads_expected);
        if crate::metrics::needs_expected(&m.func) && m.expected.is_none() && !reads_result_alone {
            return Some(Why::plain(format!("metric \"{}\" has no expected value to compare with", m.func)));
        }
        if let Some(why) = table_rules.iter().find_map(crate::metrics::table_rule_unsupported) {
            return Some(Why::plain(why));
        }
        // PyYAML's reading (YAML 1.1: `yes` is true, `010` is octal) is not here.
        if m.func == "check_json" && m.options.get("is_yaml").is_some_and(crate::metrics::python_truthy) {
            return Some(Why::plain("check_json on a YAML file (is_yaml) is not implemented".into()));
        }
        if m.func == "compare_archive" {
            if let Some(why) = crate::metrics::archive_options_unsupported(&m.options) {
                return Some(Why::plain(why));
            }
        }
        if m.func == "check_mp3_meta" {
            if let Some(why) = m.expected.as_ref().and_then(|g| g.get("rules")).and_then(crate::metrics::mp3_rules_unsupported) {
                return Some(Why { reason: why, group: "check_mp3_meta key not read".into() });
            }
        }
        if m.func == "check_accessibility_tree" {
            if let Some(Err(why)) = m.expected.as_ref().and_then(|g| g.get("rules")).map(crate::metrics::accessibility_rules_supported) {
                return Some(Why { reason: why, group: "accessibility rule not supported".into() });
            }
        }
        for getter in m.result.iter().chain(&m.expected) {
            if let Some(why) = getter_unsupported(task, getter, cache) {
                return Some(why);
            }
        }
    }
    None
}

fn step_unsupported(task: &OsWorldTask, step: &ConfigStep, cache: Option<&Path>) -> Option<Why> {
    if !STEPS.contains(&step.kind.as_str()) {
        return Some(Why::plain(format!("set-up step \"{}\" is not supported", step.kind)));
    }
    let p = &step.parameters;
    // A pyautogui program needs no Python here: the runner reads it (see `pyautogui`).
    if let Some(read) = matches!(step.kind.as_str(), "execute" | "command").then(|| pyautogui_program(p)).flatten() {
        return read.err().map(|e| Why {
            reason: format!("step \"{}\" runs a pyautogui program this runner cannot read: {e}", step.kind),
            group: "a pyautogui program not readable".into(),
        });
    }
    match step.kind.as_str() {
        "execute" | "command" if command_cannot_run(p.get("command")).is_some() => command_cannot_run(p.get("command")),
        // A program to start must be installed (a shell line is the shell's business).
        "launch" | "execute" | "command" if !p.get("shell").and_then(Value::as_bool).unwrap_or(false) => {
            let program = match p.get("command") {
                Some(Value::Array(a)) => a.first().and_then(Value::as_str).map(String::from),
                Some(Value::String(s)) => s.split_whitespace().next().map(String::from),
                _ => None,
            }?;
            // Programs by OSWorld's names that a stand-in plays in instances (Chromium as google-chrome).
            let program = guigym_desktop::session::stand_in(&program).map_or(program, String::from);
            (!on_path(&program)).then(|| Why::plain(format!("step \"{}\" runs \"{program}\", which is not installed", step.kind)))
        }
        "download" => {
            let files = p.get("files").and_then(Value::as_array)?;
            files.iter().find_map(|f| {
                let url = f.get("url").and_then(Value::as_str)?;
                let base = Path::new(f.get("path").and_then(Value::as_str)?).file_name()?.to_string_lossy().into_owned();
                asset_missing(task, cache, &format!("{}_{base}", uuid5_url(url)), url)
            })
        }
        "upload_file" => {
            let files = p.get("files").and_then(Value::as_array)?;
            files.iter().find_map(|f| {
                let local = f.get("local_path").and_then(Value::as_str)?;
                (!Path::new(local).exists())
                    .then(|| Why { reason: format!("upload_file: {local} does not exist here"), group: "upload_file: a local file missing".into() })
            })
        }
        _ => None,
    }
}

fn getter_unsupported(task: &OsWorldTask, getter: &Value, cache: Option<&Path>) -> Option<Why> {
    let kind = getter.get("type").and_then(Value::as_str)?;
    if !GETTERS.contains(&kind) {
        return Some(Why::plain(format!("getter \"{kind}\" is not supported")));
    }
    let multi = crate::runner::is_multi(getter);
    if multi && !matches!(kind, "vm_file" | "cloud_file") {
        return Some(Why::plain(format!("getter \"{kind}\" with multi is not supported")));
    }
    if matches!(kind, "vm_command_line" | "vm_command_error") {
        if let Some(why) = command_cannot_run(getter.get("command")) {
            return Some(why);
        }
    }
    if kind == "cache_file" {
        let Some(name) = getter.get("path").and_then(Value::as_str) else { return Some(Why::plain("a cache_file getter without a path".into())) };
        // What a step of the task prints into the cache, or an asset already there.
        let printed = task.config.iter().chain(&task.evaluator.postconfig).any(|step| {
            matches!(step.kind.as_str(), "execute" | "command")
                && ["stdout", "stderr"].iter().any(|out| step.parameters.get(*out).and_then(Value::as_str) == Some(name))
        });
        return if printed { None } else { asset_missing(task, cache, name, &format!("the cache file {name}")) };
    }
    if kind == "cloud_file" {
        return match crate::runner::files_of(getter, "cloud_file") {
            Ok(files) => files.iter().find_map(|(url, dest)| asset_missing(task, cache, dest, url)),
            Err(guigym_desktop::instance::Failure::BadTask(e) | guigym_desktop::instance::Failure::Infra(e)) => Some(Why::plain(e)),
        };
    }
    None
}

/// A step's pyautogui program (`[python, -c, code]`, not through a shell), read.
fn pyautogui_program(parameters: &Value) -> Option<Result<Vec<crate::pyautogui::Input>, String>> {
    if parameters.get("shell").and_then(Value::as_bool).unwrap_or(false) {
        return None;
    }
    let argv: Vec<String> = parameters
        .get("command")?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(|s| crate::runner::fill_placeholders(s, crate::pyautogui::SCREEN_PIXELS)))
        .collect::<Option<_>>()?;
    crate::pyautogui::program_of(&argv).map(crate::pyautogui::read)
}

/// Programs that answer only on a machine booted with systemd, which the desktop's
/// instances (processes in namespaces, no init of their own) are not.
const NEEDS_SYSTEMD: &[&str] = &["timedatectl", "systemctl", "hostnamectl", "localectl", "loginctl", "resolvectl"];

/// Why a command a task runs (a getter's, a set-up step's) cannot give its answer here: it asks
/// systemd, or a settings schema this machine does not have (`gsettings get org.gnome.shell …`
/// without GNOME Shell). Such a task could only fail, whatever the agent did.
fn command_cannot_run(command: Option<&Value>) -> Option<Why> {
    let text = match command? {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
        _ => return None,
    };
    let words: Vec<&str> = text.split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '`' | '$')).filter(|w| !w.is_empty()).collect();
    if let Some(tool) = words.iter().map(|w| w.rsplit('/').next().unwrap_or(w)).find(|w| NEEDS_SYSTEMD.contains(w)) {
        return Some(Why {
            reason: format!("runs {tool}, which needs systemd: the desktop's instances do not run it"),
            group: format!("needs systemd ({tool})"),
        });
    }
    for (i, _) in words.iter().enumerate().filter(|(_, w)| **w == "gsettings") {
        let Some(schema) = words[i + 1..].iter().take(3).find(|w| w.contains('.') && !w.starts_with('-')) else { continue };
        let schema = schema.trim_matches(['\'', '"']);
        if !installed_schemas().iter().any(|s| s == schema) {
            return Some(Why {
                reason: format!("reads the settings schema {schema}, which is not installed here"),
                group: format!("settings schema {schema} not here"),
            });
        }
    }
    None
}

/// The GSettings schemas this machine has (`gsettings list-schemas`), asked once.
fn installed_schemas() -> &'static [String] {
    static LISTED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    LISTED.get_or_init(|| {
        std::process::Command::new("gsettings")
            .arg("list-schemas")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .map(|out| String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect())
            .unwrap_or_default()
    })
}

fn asset_missing(task: &OsWorldTask, cache: Option<&Path>, name: &str, url: &str) -> Option<Why> {
    let Some(cache) = cache else {
        return Some(Why { reason: format!("needs the asset {url}, and no cache was given (--cache)"), group: "an asset, and no cache given".into() });
    };
    if !crate::assets::plain_name(&task.id) || !crate::assets::plain_name(name) {
        return Some(Why {
            reason: format!("the asset {url} would be read from outside the cache ({}/{name})", task.id),
            group: "an asset named outside the cache".into(),
        });
    }
    let path = cache.join(&task.id).join(name);
    (!path.is_file()).then(|| Why {
        reason: format!("the asset {url} is not in the cache (looked for {})", path.display()),
        group: "an asset not in the cache (guigym tasks fetch-assets)".into(),
    })
}

fn on_path(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Where imported tasks are kept: `$GUIGYM_OSWORLD_TASKS`, else
/// `${XDG_DATA_HOME:-~/.local/share}/guigym/osworld-tasks.json`.
pub fn store_path() -> PathBuf {
    if let Some(p) = std::env::var_os("GUIGYM_OSWORLD_TASKS") {
        return PathBuf::from(p);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".local/share"));
    data.join("guigym/osworld-tasks.json")
}

/// The imported tasks, as a benchmark: suite `osworld` (every kept task) and one suite per
/// family (`osworld.<family>`).
pub struct ImportedOsWorld;

pub static OSWORLD: ImportedOsWorld = ImportedOsWorld;

impl DesktopBenchmark for ImportedOsWorld {
    fn set_up(&self, task: &TaskSpec, desktop: &mut Instance) -> Result<(), Failure> {
        crate::set_up(task, desktop)
    }
    fn golden(&self, task: &TaskSpec, desktop: &mut Instance) -> Result<Option<TerminateStatus>, Failure> {
        crate::golden(task, desktop)
    }
    fn evaluate(&self, task: &TaskSpec, desktop: &mut Instance, log: &EpisodeLog) -> Result<Verdict, Failure> {
        crate::evaluate(task, desktop, log)
    }
}

impl ImportedOsWorld {
    fn tasks(&self) -> Result<Vec<TaskSpec>, String> {
        let path = store_path();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("no imported OSWorld tasks at {} ({e}); run `guigym tasks import osworld DIR` first", path.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl guigym_core::Benchmark for ImportedOsWorld {
    fn name(&self) -> &str {
        BENCHMARK
    }
    fn suites(&self) -> Vec<String> {
        let mut suites = vec![BENCHMARK.to_string()];
        let mut families: Vec<String> = self.tasks().unwrap_or_default().into_iter().map(|t| format!("{BENCHMARK}.{}", t.family)).collect();
        families.sort();
        families.dedup();
        suites.extend(families);
        suites
    }
    fn suite(&self, name: &str) -> Result<Vec<TaskSpec>, String> {
        let tasks = self.tasks()?;
        if name == BENCHMARK {
            return Ok(tasks);
        }
        let family = name.strip_prefix("osworld.").ok_or_else(|| format!("no suite \"{name}\" among the imported OSWorld tasks"))?;
        Ok(tasks.into_iter().filter(|t| t.family == family).collect())
    }
    fn task(&self, id: &str) -> Option<TaskSpec> {
        if !id.starts_with("osworld/") {
            return None;
        }
        self.tasks().ok()?.into_iter().find(|t| t.id == id)
    }
    fn audit_cases(&self, task: &TaskSpec) -> Vec<guigym_core::AuditCase> {
        crate::audit::cases(task)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table_task(rules: &str, expected: bool) -> OsWorldTask {
        let expected = if expected { r#", "expected": {"type": "cloud_file", "path": "https://example.org/gold.xlsx", "dest": "gold.xlsx"}"# } else { "" };
        let text = format!(
            r#"{{"id": "t", "instruction": "x", "related_apps": ["libreoffice_calc"], "evaluator": {{"func": "compare_table", "result": {{"type": "vm_file", "path": "/home/user/a.xlsx", "dest": "a.xlsx"}}{expected}, "options": {{"rules": {rules}}}}}}}"#
        );
        OsWorldTask::parse(&text).unwrap()
    }

    #[test]
    fn table_rules_are_checked_one_by_one() {
        let reason = |rules: &str, expected: bool| why_unsupported(&table_task(rules, expected), None).map(|w| w.reason);
        let cell = r#"[{"type": "check_cell", "sheet_idx": 0, "coordinate": "E3", "props": {"value": {"method": "approx:0.001", "ref": 191.6667}}}]"#;
        // A check_cell task reads the result alone: it needs no expected workbook.
        assert_eq!(reason(cell, false), None);
        let styled = r#"[{"type": "check_cell", "sheet_idx": 0, "coordinate": "A1", "props": {"font_bold": {"method": "eq", "ref": true}}}]"#;
        assert!(reason(styled, false).unwrap().contains("check_cell property \"font_bold\""));
        let fuzzy = r#"[{"type": "sheet_fuzzy", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1", "rules": []}]"#;
        assert!(reason(fuzzy, false).unwrap().contains("no expected value"));
        let unknown = r#"[{"type": "style", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"}]"#;
        assert!(reason(unknown, true).unwrap().contains("rule \"style\" is not implemented"));
        assert!(reason("[]", false).unwrap().contains("no expected value"));
    }
}
