//! `tasks import osworld` on a fixture of OSWorld-format task files we wrote (`osworld/`):
//! which tasks are kept and why the others are skipped; then every kept task runs on a real
//! desktop instance: 0 after reset, 1 once solved (a set-up step copying the gold file into
//! place, or saying the task is infeasible).

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use guigym_benchmark_osworld::import as osworld;
use guigym_core::{Action, EnvProvider, ObserveOptions, TerminateStatus};
use serde_json::json;

fn fixture() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/osworld");
    (dir.join("examples"), dir.join("cache"))
}

const KEPT: &[(&str, &str)] = &[
    ("000000000001", "os"),
    ("000000000002", "os"),
    ("000000000003", "libreoffice_calc"),
    ("000000000004", "libreoffice_writer"),
    ("000000000005", "libreoffice_impress"),
    ("000000000006", "os"),
    ("000000000009", "os"),
    ("000000000007", "chrome"),
    ("000000000015", "chrome"),
    ("000000000016", "chrome"),
    ("000000000017", "os"),
    ("000000000018", "vlc"),
    ("000000000019", "vlc"),
    ("000000000020", "vlc"),
    ("000000000021", "os"),
    ("000000000022", "gimp"),
    ("000000000023", "gimp"),
    ("000000000024", "gimp"),
    ("000000000025", "gimp"),
    ("000000000026", "gimp"),
    ("000000000027", "gimp"),
    ("000000000028", "thunderbird"),
    ("000000000029", "thunderbird"),
    ("000000000030", "thunderbird"),
    ("000000000031", "libreoffice_calc"),
    ("000000000032", "libreoffice_writer"),
    ("000000000033", "os"),
    ("000000000034", "os"),
    ("000000000035", "pdf"),
    ("000000000036", "pdf"),
    ("000000000037", "pdf"),
    ("000000000038", "image"),
    ("000000000039", "image"),
    ("000000000040", "image"),
    ("000000000041", "ubuntu_media_player"),
    ("000000000042", "ubuntu_media_player"),
    ("000000000043", "ubuntu_media_player"),
    ("000000000044", "picard"),
    ("000000000045", "picard"),
    ("000000000046", "picard"),
];

/// Each skipped task and a word its reason must hold.
const SKIPPED: &[(&str, &str)] = &[
    ("000000000008", "rule \"style\""),
    ("000000000014", "xpath rules are not supported"),
    ("000000000010", "not in the cache"),
    ("000000000011", "metric \"check_python_file_by_test_suite\""),
    ("000000000012", "application \"vs_code\""),
    ("000000000013", "not an OSWorld task"),
];

fn id(tail: &str) -> String {
    format!("0f6c1b2a-4d1e-4f5a-9a10-{tail}")
}

#[test]
fn import_keeps_what_runs_here_and_says_why_not_for_the_rest() {
    let (examples, cache) = fixture();
    let imported = osworld::import(&examples, Some(&cache)).unwrap();
    let mut kept: Vec<(String, String)> = imported.kept.iter().map(|t| (t.id.clone(), t.family.clone())).collect();
    kept.sort();
    let mut want: Vec<(String, String)> = KEPT.iter().map(|(t, f)| (format!("osworld/{}", id(t)), f.to_string())).collect();
    want.sort();
    assert_eq!(kept, want);
    assert_eq!(imported.skipped.len(), SKIPPED.len(), "{:#?}", imported.skipped);
    for (tail, why) in SKIPPED {
        let s = imported.skipped.iter().find(|s| s.id.as_deref() == Some(id(tail).as_str())).unwrap_or_else(|| panic!("{tail} is not skipped"));
        assert!(s.reason.contains(why), "{tail}: {}", s.reason);
    }
    // The report counts them by application and by reason.
    let table = imported.table();
    let row = |app: &str| table.lines().find(|l| l.split_whitespace().next() == Some(app)).unwrap_or_else(|| panic!("no row {app}:\n{table}")).to_string();
    let cells = |app: &str| row(app).split_whitespace().skip(1).take(2).map(String::from).collect::<Vec<_>>();
    assert_eq!(cells("vs_code"), ["0", "1"], "{table}");
    assert!(row("vs_code").contains("1 × application \"vs_code\" not here"), "{table}");
    assert_eq!(cells("all"), [KEPT.len().to_string(), SKIPPED.len().to_string()], "{table}");
    // Without a cache, every task that needs an asset is skipped for it.
    let bare = osworld::import(&examples, None).unwrap();
    // (034's cache file is what its own evaluator step prints, not an asset.)
    assert_eq!(bare.kept.len(), 18, "only the tasks without assets: {:?}", bare.kept.iter().map(|t| &t.id).collect::<Vec<_>>());
    assert!(bare.skipped.iter().any(|s| s.reason.contains("no cache was given")));
}

#[test]
fn a_cache_file_is_what_a_step_prints_or_an_asset() {
    let dir = std::env::temp_dir().join(format!("guigym-osworld-cache-file-{}", std::process::id()));
    let os = dir.join("os");
    std::fs::create_dir_all(&os).unwrap();
    let task = |id: &str, postconfig: serde_json::Value| {
        json!({"id": id, "instruction": "x", "config": [], "related_apps": ["os"],
               "evaluator": {"postconfig": postconfig, "func": "check_list", "result": {"type": "cache_file", "path": "ls.out"},
                             "expected": {"type": "rule", "rules": {"expect": ["a"]}}}})
    };
    let printed = json!([{"type": "execute", "parameters": {"command": ["ls"], "stdout": "ls.out"}}]);
    let other = json!([{"type": "execute", "parameters": {"command": ["ls"], "stderr": "other.out"}}]);
    std::fs::write(os.join("printed.json"), task("printed", printed).to_string()).unwrap();
    std::fs::write(os.join("unknown.json"), task("unknown", other).to_string()).unwrap();
    let imported = osworld::import(&dir, None).unwrap();
    assert_eq!(imported.kept.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["osworld/printed"], "{:?}", imported.skipped);
    let why = &imported.skipped.iter().find(|s| s.id.as_deref() == Some("unknown")).unwrap().reason;
    assert!(why.contains("the cache file ls.out"), "{why}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_task_whose_check_cannot_answer_here_is_skipped_with_the_reason() {
    let dir = std::env::temp_dir().join(format!("guigym-osworld-commands-{}", std::process::id()));
    let os = dir.join("os");
    std::fs::create_dir_all(&os).unwrap();
    let task = |id: &str, command: &str| {
        json!({"id": id, "instruction": "x", "config": [], "related_apps": ["os"],
               "evaluator": {"func": "is_utc_0", "result": {"type": "vm_command_line", "command": command, "shell": true}}})
    };
    let unjudged = json!({"id": "unjudged", "instruction": "x", "config": [], "related_apps": ["os"],
                          "evaluator": {"func": "check_include_exclude", "result": {"type": "vm_command_line", "command": "ls"}}});
    std::fs::write(os.join("unjudged.json"), unjudged.to_string()).unwrap();
    for (id, command) in [
        ("utc", "timedatectl status"),
        ("shell", "export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'\ngsettings get org.gnome.no-such-schema favorite-apps"),
        ("fine", "date +%z"),
    ] {
        std::fs::write(os.join(format!("{id}.json")), task(id, command).to_string()).unwrap();
    }
    let imported = osworld::import(&dir, None).unwrap();
    let reason = |id: &str| imported.skipped.iter().find(|s| s.id.as_deref() == Some(id)).map(|s| s.reason.clone()).unwrap_or_default();
    assert!(reason("utc").contains("systemd"), "{:?}", imported.skipped);
    assert!(reason("shell").contains("org.gnome.no-such-schema"), "{:?}", imported.skipped);
    assert!(reason("unjudged").contains("no expected value"), "{:?}", imported.skipped);
    assert_eq!(imported.kept.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["osworld/fine"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pyautogui_program_is_read_not_run_and_one_that_cannot_be_read_is_skipped() {
    let dir = std::env::temp_dir().join(format!("guigym-osworld-pyautogui-{}", std::process::id()));
    let os = dir.join("os");
    std::fs::create_dir_all(&os).unwrap();
    let (examples, _) = fixture();
    let saving: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(examples.join(format!("os/{}.json", id("000000000021")))).unwrap()).unwrap();
    for (name, python, program) in [
        // No such Python is installed: it is never run, so it need not be.
        ("read", "/nonexistent/python3", "import pyautogui; import time; pyautogui.hotkey(['ctrl', 's']); time.sleep(0.5)"),
        ("runs_code", "python", "import pyautogui, os; os.system('touch /tmp/pwned')"),
        ("drags", "python3", "import pyautogui; pyautogui.dragTo(10, 10)"),
    ] {
        let mut task = saving.clone();
        task["id"] = json!(name);
        task["evaluator"]["postconfig"][2]["parameters"]["command"] = json!([python, "-c", program]);
        std::fs::write(os.join(format!("{name}.json")), task.to_string()).unwrap();
    }
    let imported = osworld::import(&dir, None).unwrap();
    assert_eq!(imported.kept.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["osworld/read"], "{:?}", imported.skipped);
    let reason = |id: &str| imported.skipped.iter().find(|s| s.id.as_deref() == Some(id)).map(|s| s.reason.clone()).unwrap_or_default();
    assert!(reason("runs_code").contains("cannot read: `import os`: only pyautogui and time are read"), "{}", reason("runs_code"));
    assert!(reason("drags").contains("`pyautogui.dragTo` is not read"), "{}", reason("drags"));
    assert!(imported.table().contains("a pyautogui program not readable"), "{}", imported.table());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_of_odd_files_imports_each_task_once_and_says_why_not_the_rest() {
    let dir = std::env::temp_dir().join(format!("guigym-osworld-odd-{}", std::process::id()));
    let os = dir.join("os");
    std::fs::create_dir_all(&os).unwrap();
    let task = |id: &str| json!({"id": id, "instruction": "x", "config": [], "related_apps": ["os"], "evaluator": {"func": "infeasible"}}).to_string();
    std::fs::write(os.join("a.json"), task("same")).unwrap();
    std::fs::write(os.join("b.json"), task("same")).unwrap();
    std::fs::write(os.join("c.json"), task("line\nkept     osworld/fake")).unwrap();
    std::fs::write(os.join("d.json"), task("../up")).unwrap();
    // A link back up (it would import every task again, or for ever) and a FIFO (a read of it
    // would never end).
    std::os::unix::fs::symlink("..", os.join("up")).unwrap();
    let fifo = std::process::Command::new("mkfifo").arg(os.join("pipe.json")).status().is_ok_and(|s| s.success());
    let imported = osworld::import(&dir, None).unwrap();
    assert_eq!(imported.kept.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["osworld/same"]);
    let reasons: Vec<&str> = imported.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert!(reasons.iter().any(|r| r.contains("kept first")), "{reasons:?}");
    assert_eq!(reasons.iter().filter(|r| r.contains("not a plain name")).count(), 2, "{reasons:?}");
    assert_eq!(reasons.iter().any(|r| r.contains("not a regular file")), fifo, "{reasons:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_spelling_of_an_application_that_osworld_writes_is_read() {
    for (written, read) in [
        ("libreoffice calc", "libreoffice_calc"),
        ("LibreOffice_Calc", "libreoffice_calc"),
        ("calc", "libreoffice_calc"),
        ("Writer", "libreoffice_writer"),
        ("OS", "os"),
        ("vscode", "vs_code"),
        ("Chrome", "chrome"),
        ("google-chrome", "chrome"),
        ("GIMP", "gimp"),
        ("gnu image manipulation program", "gimp"),
        ("ubuntu_media_player", "ubuntu_media_player"),
        ("Totem", "ubuntu_media_player"),
        ("evince", "pdf"),
        ("Document Viewer", "pdf"),
        ("Image Viewer", "image"),
        ("eog", "image"),
        ("MusicBrainz Picard", "picard"),
    ] {
        assert_eq!(osworld::app_name(written), read, "{written}");
    }
    // A Calc task whose file spells its application OSWorld's other way is kept all the same.
    let (examples, cache) = fixture();
    let dir = std::env::temp_dir().join(format!("guigym-osworld-spelling-{}", std::process::id()));
    let calc = dir.join("libreoffice_calc");
    std::fs::create_dir_all(&calc).unwrap();
    let file = examples.join(format!("libreoffice_calc/{}.json", id("000000000003")));
    let mut task: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    task["related_apps"] = json!(["libreoffice calc", "Calc"]);
    std::fs::write(calc.join("task.json"), task.to_string()).unwrap();
    let imported = osworld::import(&dir, Some(&cache)).unwrap();
    assert_eq!(imported.kept.len(), 1, "{:?}", imported.skipped);
    assert_eq!(imported.kept[0].apps, ["libreoffice_calc"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn every_kept_task_scores_zero_after_reset_and_one_once_solved() {
    if let Some(why) = guigym_desktop::missing() {
        eprintln!("skipping: {why}");
        return;
    }
    let (examples, cache) = fixture();
    let imported = osworld::import(&examples, Some(&cache)).unwrap();
    let mut env = guigym_desktop::DesktopProvider::new(1280, 800, hosted()).with_spare(false).create().await.unwrap();
    for mut task in imported.kept {
        let tail = task.id.rsplit('-').next().unwrap().to_string();
        if !chosen(&tail) {
            continue;
        }
        // The solution, as a step run on the instance: the gold file put over the agent's (from
        // this machine: the instance's own /tmp, where a checkout may sit, is not this one's).
        let gold =
            |name: &str, to: &str| json!([{"type": "upload_file", "parameters": {"files": [{"local_path": cache.join(id(&tail)).join(name), "path": to}]}}]);
        let solution = match tail.as_str() {
            "000000000001" => json!([{"type": "execute", "parameters": {"command": ["mkdir", "/home/user/reports"]}}]),
            "000000000002" => json!([{"type": "execute", "parameters": {"command": "sed -i s/cat/dog/g /home/user/Desktop/notes.txt", "shell": true}}]),
            "000000000003" => gold("report_gold.xlsx", "/home/user/Desktop/report.xlsx"),
            "000000000004" => gold("report_gold.docx", "/home/user/Desktop/report.docx"),
            "000000000005" => gold("report_gold.pptx", "/home/user/Desktop/report.pptx"),
            _ => json!(null),
        };
        if !solution.is_null() {
            task.params["golden"] = solution.clone();
        }
        env.reset(&task).await.unwrap_or_else(|e| panic!("{}: {e}", task.id));
        let before = env.evaluate().await.unwrap();
        assert_eq!(before.score, 0.0, "{} scores 0 after reset: {before:?}", task.id);
        // The evaluator's own steps (a save, quitting GIMP) changed the state: start again.
        if task.params["task"]["evaluator"]["postconfig"].as_array().is_some_and(|p| !p.is_empty()) {
            env.reset(&task).await.unwrap_or_else(|e| panic!("{}: {e}", task.id));
        }
        // Chrome's, VLC's and the terminal's, through their windows as a user would.
        let walkthrough = match tail.as_str() {
            // Judged by the accessibility tree alone: the text is typed, never saved.
            "000000000009" => vec![key(&["ctrl", "end"]), type_text("Meeting at noon")],
            "000000000007" => vec![key(&["ctrl", "l"]), type_text("chrome://settings"), key(&["enter"])],
            // The tab opened last is the one shown: closed by its key.
            "000000000015" => vec![key(&["ctrl", "w"])],
            // Ctrl+D bookmarks the page in "Other bookmarks"; the bubble's folder box moves it up
            // to the bar, and Escape closes the bubble, keeping the edit.
            "000000000016" => vec![key(&["ctrl", "d"]), key(&["tab"]), key(&["up"]), key(&["escape"])],
            // Judged by what the terminal shows.
            "000000000017" => vec![type_text("wc -l < ~/Desktop/data.txt\n")],
            // VLC's Open File dialog takes a typed path.
            "000000000018" => vec![key(&["ctrl", "o"]), type_text("/home/user/Desktop/tone.wav\n")],
            // Saved in the preferences, so that VLC starts so after the evaluator restarts it.
            "000000000019" => vec![key(&["ctrl", "p"]), Do::Click("Start in minimal view mode"), Do::Click("Save")],
            "000000000020" => vec![key(&["f"])],
            // Not saved: the evaluator's pyautogui program saves it (Ctrl+S in its window).
            "000000000021" => vec![key(&["ctrl", "end"]), type_text("buy milk")],
            // A CSV written by a command; a folder listed by the evaluator into the task's cache.
            "000000000033" => vec![type_text("sort ~/Desktop/names.csv > ~/Desktop/sorted.csv\n")],
            "000000000034" => vec![type_text("mkdir ~/Documents/archive\n")],
            // GIMP writes its settings when it quits, which the evaluator makes it do (Ctrl+Q).
            "000000000022" => vec![key(&["tab"])],
            "000000000023" => undo_levels("100"),
            "000000000024" => theme(2),
            // Pictures, exported by the evaluator's pyautogui program (Shift+Ctrl+E, a name,
            // Enter twice) and judged by OSWorld's image metrics.
            "000000000025" => flip("h"),
            "000000000026" => brightness("-40"),
            "000000000027" => scale("96"),
            // Thunderbird: a setting, a filter, a folder, by its menus and dialogs.
            "000000000028" => remote_content(true),
            "000000000029" => invoice_filter(false),
            "000000000030" => new_folder("Receipts"),
            // Calc and Writer, saved by the evaluator's pyautogui program; Calc's sheet judged as
            // printed, by the CSV the evaluator's `libreoffice --convert-to` exports beside it.
            "000000000031" => total_row("60"),
            "000000000032" => page_breaks(1),
            // The document viewer (Evince): a copy saved by Save a Copy's file chooser, which
            // takes a typed path; all its text copied; printed by GTK's Print to File.
            "000000000035" => save_copy_as("/home/user/Documents/report_copy.pdf"),
            "000000000036" => vec![key(&["ctrl", "a"]), key(&["ctrl", "c"])],
            "000000000037" => print_to_file(None),
            // The image viewer (Eye of GNOME): turned and saved; saved as another file (its
            // format by the name's extension); moved to the trash by its key.
            "000000000038" => vec![key(&["ctrl", "r"]), key(&["ctrl", "s"]), Do::Wait(1000)],
            "000000000039" => save_picture_as("landscape.jpg"),
            "000000000040" => vec![Do::Until("beach.png"), Do::Wait(500), key(&["delete"]), Do::Until("forest.png"), Do::Wait(1000)],
            // Videos (Totem): settings by its menu and its Preferences, kept by GSettings.
            // (Repeat is in the player bar's menu, the third element named Menu.)
            "000000000041" => vec![Do::ClickNth("Menu", 2), Do::Click("Repeat"), Do::Wait(1000)],
            "000000000042" => totem_preference(None, "Load subtitle files when movie is loaded", 1),
            "000000000043" => totem_preference(Some("Display"), "Disable deinterlacing of interlaced videos", 1),
            // MusicBrainz Picard: its Options menu's toggles (Rename Files, Move Files, Save
            // Tags) by their letters; Picard writes its settings file a moment later.
            "000000000044" => picard_option("r"),
            "000000000045" => picard_option("m"),
            "000000000046" => picard_option("t"),
            _ => Vec::new(),
        };
        if !walkthrough.is_empty() {
            play(&mut env, walkthrough).await;
        } else if solution.is_null() {
            env.step(&Action::Terminate { status: TerminateStatus::Infeasible }).await.unwrap();
        } else {
            env.apply_golden().await.unwrap();
        }
        let after = env.evaluate().await.unwrap();
        assert_eq!(after.score, 1.0, "{} scores 1 once solved: {after:?}", task.id);
    }
    env.release().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn gui_tasks_done_wrong_score_zero() {
    if let Some(why) = guigym_desktop::missing() {
        eprintln!("skipping: {why}");
        return;
    }
    let (examples, cache) = fixture();
    let imported = osworld::import(&examples, Some(&cache)).unwrap();
    let mut env = guigym_desktop::DesktopProvider::new(1280, 800, hosted()).with_spare(false).create().await.unwrap();
    for (tail, wrong) in [
        // Another page of the browser's own.
        ("000000000007", vec![key(&["ctrl", "l"]), type_text("chrome://history"), key(&["enter"])]),
        // The other tab closed.
        ("000000000015", vec![key(&["ctrl", "1"]), key(&["ctrl", "w"])]),
        // Bookmarked, but not on the bar.
        ("000000000016", vec![key(&["ctrl", "d"]), key(&["escape"])]),
        // Another file's count.
        ("000000000017", vec![type_text("wc -l < /etc/hostname\n")]),
        // Opened, then paused.
        ("000000000018", vec![key(&["ctrl", "o"]), type_text("/home/user/Desktop/tone.wav\n"), key(&["space"])]),
        // A server of the agent's own on VLC's port, saying the song plays (VLC quit first; it
        // scores 1 where the getter asks whatever answers there): the getter asks only VLC.
        ("000000000018", vec![key(&["ctrl", "q"]), Do::Wait(1000), key(&["ctrl", "alt", "t"]), Do::Wait(1500), type_text(FAKE_VLC), Do::Wait(2000)]),
        // The menus hidden for now (Ctrl+H), not at the next start.
        ("000000000019", vec![key(&["ctrl", "h"])]),
        // Full screen, and back.
        ("000000000020", vec![key(&["f"]), key(&["f"])]),
        // Another line.
        ("000000000021", vec![key(&["ctrl", "end"]), type_text("buy bread")]),
        // Sorted the other way; the folder's name in capitals.
        ("000000000033", vec![type_text("sort -r ~/Desktop/names.csv > ~/Desktop/sorted.csv\n")]),
        ("000000000034", vec![type_text("mkdir ~/Documents/Archive\n")]),
        // The docks hidden, and shown again.
        ("000000000022", vec![key(&["tab"]), key(&["tab"])]),
        // Another number of undo levels.
        ("000000000023", undo_levels("10")),
        // Another theme (Gray).
        ("000000000024", theme(1)),
        // Flipped the other way.
        ("000000000025", flip("v")),
        // Brighter.
        ("000000000026", brightness("40")),
        // Scaled, to another height.
        ("000000000027", scale("120")),
        // The setting found, not changed.
        ("000000000028", remote_content(false)),
        // The filter's condition says "isn't".
        ("000000000029", invoice_filter(true)),
        // Another folder.
        ("000000000030", new_folder("Receipt")),
        // Another total.
        ("000000000031", total_row("61")),
        // Two breaks where one was asked for.
        ("000000000032", page_breaks(2)),
        // Saved under its own name; copied with nothing selected; printed as PostScript.
        ("000000000035", save_copy_as("/home/user/Documents/report.pdf")),
        ("000000000036", vec![key(&["ctrl", "c"])]),
        ("000000000037", print_to_file(Some("Postscript"))),
        // Turned the other way; saved as a PNG; the next picture trashed.
        ("000000000038", vec![key(&["ctrl", "shift", "r"]), key(&["ctrl", "s"]), Do::Wait(1000)]),
        ("000000000039", save_picture_as("landscape_copy.png")),
        (
            "000000000040",
            vec![Do::Until("beach.png"), Do::Wait(500), key(&["right"]), Do::Until("forest.png"), Do::Wait(500), key(&["delete"]), Do::Wait(1000)],
        ),
        // The player bar's menu opened and closed; each checkbox clicked twice.
        ("000000000041", vec![Do::ClickNth("Menu", 2), Do::Wait(1000), key(&["escape"]), Do::Wait(1000)]),
        ("000000000042", totem_preference(None, "Load subtitle files when movie is loaded", 2)),
        ("000000000043", totem_preference(Some("Display"), "Disable deinterlacing of interlaced videos", 2)),
        // The toggle next to the one asked for.
        ("000000000044", picard_option("m")),
        ("000000000045", picard_option("t")),
        ("000000000046", picard_option("r")),
    ] {
        if !chosen(tail) {
            continue;
        }
        let task = imported.kept.iter().find(|t| t.id.ends_with(tail)).unwrap();
        env.reset(task).await.unwrap();
        play(&mut env, wrong).await;
        let verdict = env.evaluate().await.unwrap();
        assert_eq!(verdict.score, 0.0, "{tail} done wrong: {verdict:?}");
    }
    env.release().await.unwrap();
}

/// Totem's Preferences (an entry of its main menu, which F10 opens), a page if not the first, a
/// checkbox clicked `times` times, the window closed.
fn totem_preference(page: Option<&'static str>, checkbox: &'static str, times: usize) -> Vec<Do> {
    let mut steps = vec![key(&["f10"]), Do::Click("Preferences"), Do::Wait(1000)];
    steps.extend(page.map(Do::Click));
    for _ in 0..times {
        steps.extend([Do::Click(checkbox), Do::Wait(500)]);
    }
    steps.extend([key(&["escape"]), Do::Wait(1000)]);
    steps
}

/// A toggle of Picard's Options menu, by its underlined letter.
fn picard_option(letter: &str) -> Vec<Do> {
    vec![Do::Wait(1000), key(&["alt", "o"]), Do::Wait(500), key(&[letter]), Do::Wait(2000)]
}

/// Evince's Save a Copy (Ctrl+S): the chooser's name field takes a whole path.
fn save_copy_as(path: &str) -> Vec<Do> {
    vec![key(&["ctrl", "s"]), Do::Wait(1500), key(&["ctrl", "a"]), type_text(path), key(&["enter"]), Do::Wait(1500)]
}

/// Eye of GNOME's Save As (Shift+Ctrl+S), in the picture's folder, under another name.
fn save_picture_as(name: &str) -> Vec<Do> {
    vec![key(&["ctrl", "shift", "s"]), Do::Wait(1500), key(&["ctrl", "a"]), type_text(name), key(&["enter"]), Do::Wait(2000)]
}

/// Evince's Print (Ctrl+P): GTK's dialog with its one printer, Print to File, chosen by the
/// arrow key in the list the dialog opens on (it writes the document's name in the home
/// folder), an output format other than PDF if given, then Print.
fn print_to_file(format: Option<&'static str>) -> Vec<Do> {
    let mut steps = vec![key(&["ctrl", "p"]), Do::Wait(2000), key(&["down"]), Do::Wait(500)];
    steps.extend(format.map(Do::Click));
    steps.extend([key(&["alt", "p"]), Do::Wait(2500)]);
    steps
}

/// A row under Calc's last one: the label, then the total in the next column.
fn total_row(total: &str) -> Vec<Do> {
    vec![key(&["ctrl", "end"]), key(&["home"]), key(&["down"]), type_text(&format!("Total\t{total}\n"))]
}

/// Page breaks (Ctrl+Enter) before Writer's last paragraph.
fn page_breaks(count: usize) -> Vec<Do> {
    let mut steps = vec![key(&["ctrl", "end"]), key(&["home"])];
    steps.extend((0..count).map(|_| key(&["ctrl", "enter"])));
    steps
}

/// GIMP's preferences by the keyboard: Edit, its fifth entry from the end (Preferences), which
/// opens on System Resources with the list of pages in focus, then `page` steps down that list,
/// `tab` into the page.
fn preferences(page: usize) -> Vec<Do> {
    let mut steps = vec![key(&["alt", "e"])];
    steps.extend((0..5).map(|_| key(&["up"])));
    steps.extend([key(&["enter"]), Do::Wait(1500)]);
    steps.extend((0..page).map(|_| key(&["down"])));
    steps.push(key(&["tab"]));
    steps
}

/// The minimal number of undo levels: the first field of System Resources, then OK.
fn undo_levels(levels: &str) -> Vec<Do> {
    let mut steps = preferences(0);
    steps.extend([key(&["ctrl", "a"]), type_text(levels), key(&["tab"]), key(&["alt", "o"])]);
    steps
}

/// A theme by its place in Interface › Theme's list (Dark, Gray, Light, System), then OK.
fn theme(place: usize) -> Vec<Do> {
    let mut steps = preferences(8);
    steps.extend((0..place).map(|_| key(&["down"])));
    steps.extend([Do::Wait(3000), key(&["alt", "o"])]);
    steps
}

/// Image › Transform › Flip Horizontally (`h`) or Vertically (`v`), by the menus' letters.
fn flip(way: &str) -> Vec<Do> {
    vec![key(&["alt", "i"]), key(&["t"]), key(&[way])]
}

/// Colors › Brightness-Contrast (the menu's eighth entry), the brightness typed, then OK.
fn brightness(value: &str) -> Vec<Do> {
    let mut steps = vec![key(&["alt", "c"])];
    steps.extend((0..7).map(|_| key(&["down"])));
    steps.extend([key(&["enter"]), Do::Wait(1500), key(&["tab"]), key(&["ctrl", "a"]), type_text(value), key(&["tab"]), key(&["alt", "o"])]);
    steps
}

/// Image › Scale Image (eight entries down, the one greyed out skipped): the width typed, the
/// height following it (the chain is linked), then Scale.
fn scale(width: &str) -> Vec<Do> {
    let mut steps = vec![key(&["alt", "i"])];
    steps.extend((0..8).map(|_| key(&["down"])));
    steps.extend([key(&["enter"]), Do::Wait(1500), key(&["ctrl", "a"]), type_text(width), key(&["tab"]), key(&["alt", "s"])]);
    steps
}

/// Thunderbird's Settings (Edit's next-to-last entry), searched for remote content; with
/// `allow`, its checkbox ticked, found by name in the accessibility tree (the search shows
/// other sections too, so tabbing to it is not sure). Thunderbird writes prefs.js a moment later.
fn remote_content(allow: bool) -> Vec<Do> {
    let mut steps =
        vec![THUNDERBIRD_READY, key(&["alt", "e"]), key(&["up"]), key(&["up"]), key(&["enter"]), Do::Wait(2500), type_text("remote content"), Do::Wait(1500)];
    if allow {
        steps.push(Do::Click("Allow remote content in messages"));
    }
    steps.push(Do::Wait(2000));
    steps
}

/// Tools › Message Filters › New: the name, the subject's text (eleven tabs on; ten reach the
/// operator, where a typed `i` picks "isn't"), the action Delete, OK; closing the list writes
/// msgFilterRules.dat.
fn invoice_filter(isnt: bool) -> Vec<Do> {
    let mut steps = vec![THUNDERBIRD_READY, key(&["alt", "t"]), key(&["f"]), Do::Wait(2000), key(&["alt", "n"]), Do::Wait(2000), type_text("Invoices")];
    steps.extend((0..10).map(|_| key(&["tab"])));
    if isnt {
        steps.push(type_text("i"));
    }
    steps.extend([
        key(&["tab"]),
        type_text("invoice"),
        key(&["tab"]),
        key(&["tab"]),
        type_text("Delete"),
        key(&["enter"]),
        Do::Wait(1500),
        key(&["escape"]),
        Do::Wait(1500),
    ]);
    steps
}

/// File › New › Folder, named, under the local folders.
fn new_folder(name: &str) -> Vec<Do> {
    vec![
        THUNDERBIRD_READY,
        key(&["alt", "f"]),
        key(&["enter"]),
        key(&["down"]),
        key(&["enter"]),
        Do::Wait(2000),
        type_text(name),
        key(&["enter"]),
        Do::Wait(1500),
    ]
}

/// `GUIGYM_OSWORLD_ONLY=28,29` plays only the tasks whose ids end so (to work on a walkthrough).
fn chosen(tail: &str) -> bool {
    std::env::var("GUIGYM_OSWORLD_ONLY").map_or(true, |only| only.split(',').any(|t| !t.is_empty() && tail.ends_with(t.trim())))
}

/// Thunderbird's window shows before its first start in an instance has made the profile and
/// its menus answer keys.
const THUNDERBIRD_READY: Do = Do::Wait(4000);

/// A terminal command that serves, on VLC's port, a status saying `tone.wav` plays.
const FAKE_VLC: &str = "mkdir -p /tmp/fake/requests && printf '<root><state>playing</state><information><category name=\"meta\"><info name=\"filename\">tone.wav</info></category></information></root>' > /tmp/fake/requests/status.xml && cd /tmp/fake && python3 -m http.server 8080 --bind 127.0.0.1 &\n";

/// One step of a walkthrough: an action, a click on the element the accessibility tree names
/// so (as an agent reading the tree would find it; the n-th of that name, counted from 0), or a
/// wait (ms).
enum Do {
    Act(Action),
    Click(&'static str),
    ClickNth(&'static str, usize),
    Wait(u64),
    /// Waits (10 s at most) until something on the screen names this text: an application
    /// that is slow under load gets its keys once it shows what they act on.
    Until(&'static str),
}

fn key(keys: &[&str]) -> Do {
    Do::Act(Action::Key { keys: keys.iter().map(|k| k.to_string()).collect() })
}

fn type_text(text: &str) -> Do {
    Do::Act(Action::Type { text: text.into(), element: None, clear: false })
}

/// Plays the steps, each given half a second to take effect.
async fn play(env: &mut Box<dyn guigym_core::Env>, steps: Vec<Do>) {
    for step in steps {
        let action = match step {
            Do::Act(action) => action,
            Do::Wait(ms) => {
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                continue;
            }
            Do::Until(text) => {
                let (mut found, mut names) = (false, Vec::new());
                for _ in 0..40 {
                    let now = env.observe(ObserveOptions::default()).await.unwrap();
                    found = now.ui_tree.iter().any(|n| n.text.contains(text));
                    if found {
                        break;
                    }
                    names = now.ui_tree.iter().filter(|n| !n.text.is_empty()).map(|n| n.text.clone()).collect();
                    tokio::time::sleep(std::time::Duration::from_millis(250)).await;
                }
                assert!(found, "nothing on the screen names {text:?}; it shows {names:?}");
                continue;
            }
            // Looked for a few times: a dialog that has just opened may not show it yet.
            Do::Click(name) | Do::ClickNth(name, _) => {
                let nth = if let Do::ClickNth(_, n) = step { n } else { 0 };
                let (mut found, mut names) = (None, Vec::new());
                for _ in 0..10 {
                    let seen = env.observe(ObserveOptions::default()).await.unwrap();
                    found = seen.ui_tree.iter().filter(|n| n.text == name).nth(nth).map(|n| n.id.clone());
                    if found.is_some() {
                        break;
                    }
                    names = seen.ui_tree.iter().filter(|n| !n.text.is_empty()).map(|n| n.text.clone()).collect();
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                }
                let id = found.unwrap_or_else(|| panic!("no element named {name:?} on the screen, which shows {names:?}"));
                Action::Click { at: None, element: Some(id) }
            }
        };
        env.step(&action).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
}

/// Imported OSWorld tasks, as a desktop backend hosts them.
fn hosted() -> guigym_desktop::DesktopBenchmarks {
    guigym_desktop::DesktopBenchmarks::new([&guigym_benchmark_osworld::OSWORLD as &'static dyn guigym_desktop::DesktopBenchmark])
}
