//! The desktop backend on a real X server (Xvfb, openbox, the applications): every family of
//! the catalogue validated 0 → golden 1 → reset 0 → walkthrough played through the GUI 1.

#![allow(clippy::unwrap_used)]

use guigym_benchmark_desktop as catalogue;
use guigym_core::{EnvProvider, ObserveOptions};
use guigym_desktop::DesktopProvider;

fn provider() -> Option<DesktopProvider> {
    if let Some(why) = guigym_desktop::missing() {
        eprintln!("skipping: {why}");
        return None;
    }
    Some(DesktopProvider::new(1280, 800, catalogue::hosted()).with_spare(false))
}

/// The ids of the windows an observation shows.
fn window_ids(obs: &guigym_core::Observation) -> Vec<String> {
    obs.ui_tree.iter().filter(|n| n.role == "window").map(|n| n.id.clone()).collect()
}

/// Opens a terminal as an agent would (Ctrl+Alt+T, which the window manager binds) and waits
/// until it shows and takes keys.
async fn open_terminal(env: &mut dyn guigym_core::Env) {
    use guigym_core::Action;
    use std::time::Duration;
    let key = env.step(&Action::Key { keys: vec!["ctrl".into(), "alt".into(), "t".into()] }).await.unwrap();
    assert!(!key.invalid, "{}", key.feedback);
    let mut opened = Vec::new();
    for _ in 0..50 {
        opened = window_ids(&env.observe(ObserveOptions::default()).await.unwrap());
        if opened.iter().any(|w| w.starts_with("xterm")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(opened.iter().any(|w| w.starts_with("xterm")), "Ctrl+Alt+T opens a terminal: {opened:?}");
    tokio::time::sleep(Duration::from_millis(500)).await;
}

/// An instance, reset for a task that starts nothing; `None` where the desktop packages lack.
fn blank_instance() -> Option<guigym_desktop::instance::Instance> {
    use guigym_desktop::instance::Instance;
    use guigym_desktop::session::OfficeToolkit;
    if let Some(why) = guigym_desktop::missing() {
        eprintln!("skipping: {why}");
        return None;
    }
    let template = guigym_desktop::home::template().unwrap();
    let mut instance = Instance::start(640, 480, template, OfficeToolkit::Gen).expect("an instance starts");
    reset_blank(&mut instance);
    Some(instance)
}

/// A clean desktop, nothing started.
fn reset_blank(instance: &mut guigym_desktop::instance::Instance) {
    instance.reset().unwrap();
    instance.begin().unwrap();
}

/// An instance reset for a text editor task, with a terminal the agent opened; `None` where the
/// desktop packages lack.
async fn text_task_with_terminal() -> Option<(Box<dyn guigym_core::Env>, guigym_core::TaskSpec)> {
    let provider = provider()?;
    let mut env = provider.create().await.expect("an instance starts");
    let task = catalogue::find_task("text.write/0").unwrap();
    env.reset(&task).await.unwrap();
    open_terminal(env.as_mut()).await;
    Some((env, task))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn every_family_validates_through_the_gui() {
    let Some(provider) = provider() else { return };
    let mut env = provider.create().await.expect("an instance starts");
    let mut failures = Vec::new();
    for family in catalogue::FAMILIES {
        let task = catalogue::task(family, 0);
        let v = guigym_rollout::validate_task(env.as_mut(), &task).await.expect("no infrastructure failure");
        eprintln!("{} {}", task.id, if v.passed { "ok".to_string() } else { v.failure.clone().unwrap_or_default() });
        if !v.passed {
            failures.push(format!("{}: {}", task.id, v.failure.unwrap_or_default()));
        }
    }
    let obs = env.observe(ObserveOptions { screenshot: true }).await.unwrap();
    assert!(obs.screenshot.is_some_and(|s| s.png().starts_with(b"\x89PNG")));
    assert!(failures.is_empty(), "{failures:#?}");
    // The first observation after a reset shows the document, not a window mapped and named
    // but not drawn yet (LibreOffice pauses there long enough to pass for still).
    for name in ["calc.fill_cell", "writer.append_paragraph", "impress.move_slide"] {
        let task = catalogue::task(catalogue::family(name).unwrap(), 1);
        env.reset(&task).await.unwrap();
        let obs = env.observe(ObserveOptions { screenshot: true }).await.unwrap();
        let (width, rgb) = decode(obs.screenshot.unwrap().png());
        let windows: Vec<_> = obs.ui_tree.iter().filter(|n| n.role == "window").collect();
        assert!(!windows.is_empty(), "{name}: a window is open after reset");
        for w in windows {
            let b = w.bounds;
            let mut colours = std::collections::HashSet::new();
            for y in b.y.max(0)..(b.y + b.h).min((rgb.len() / 3 / width) as i32) {
                for x in b.x.max(0)..(b.x + b.w).min(width as i32) {
                    let at = (y as usize * width + x as usize) * 3;
                    colours.insert([rgb[at], rgb[at + 1], rgb[at + 2]]);
                }
            }
            assert!(colours.len() > 16, "{name}: the window \"{}\" shows {} colours right after reset", w.text, colours.len());
        }
    }
}

/// The LibreOffice walkthroughs that go through dialogs hold with LibreOffice's own toolkit too
/// (the test above runs the default, GTK's): the keys they press reach the same fields in both
/// (a pie chart's, whose axis fields are disabled, included; GTK gives alt+t to the legend's Top).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn libreoffice_dialog_walkthroughs_hold_with_its_own_toolkit_too() {
    let Some(provider) = provider() else { return };
    let mut env = provider.with_office_toolkit(guigym_desktop::OfficeToolkit::Gen).create().await.expect("an instance starts");
    let mut failures = Vec::new();
    let dialogs = ["calc.insert_chart", "calc.sort_rows", "calc.filter_rows", "writer.replace_word"];
    for family in dialogs.iter().map(|name| catalogue::family(name).unwrap()) {
        let task = catalogue::task(family, 3);
        if family.name == "calc.insert_chart" {
            assert!(task.instruction.contains("pie chart"), "{}", task.instruction);
        }
        let v = guigym_rollout::validate_task(env.as_mut(), &task).await.expect("no infrastructure failure");
        if !v.passed {
            failures.push(format!("{}: {}", task.id, v.failure.unwrap_or_default()));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // It was LibreOffice's own toolkit, which has no accessibility bridge: its window is a
    // window and nothing more.
    let obs = env.reset(&catalogue::find_task("calc.fill_cell/0").unwrap()).await.unwrap();
    assert!(obs.ui_tree.iter().any(|n| n.role == "window" && n.text.contains("LibreOffice")), "{:?}", obs.ui_tree);
    assert!(!obs.ui_tree.iter().any(|n| n.id.starts_with("libreoffice.") && n.role == "menu"), "{:?}", obs.ui_tree);
}

/// A screenshot's width and RGB pixels.
fn decode(png_bytes: &[u8]) -> (usize, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png_bytes)).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width as usize, buf)
}

#[test]
#[ignore = "full tier: real X server and applications"]
fn shared_memory_captures_the_same_pixels_as_the_socket() {
    use guigym_desktop::{session::Session, x11::Display};
    use std::time::Duration;
    if let Some(why) = guigym_desktop::missing() {
        eprintln!("skipping: {why}");
        return;
    }
    let mut session = Session::start(640, 480).expect("a display starts");
    let display = Display::connect(&session.display_name, session.x_auth()).expect("the display connects");
    // Under a loaded machine (the other full-tier tests run beside this one) everything
    // starts slowly: wait for the window manager, then for the window, generously.
    session.wait_for_wm(&display, Duration::from_secs(30)).expect("the window manager starts");
    session.launch(&["xterm".to_string()], false).expect("xterm starts");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while display.windows().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!display.windows().is_empty(), "xterm's window appears");
    let _ = display.wait_quiet(Duration::from_millis(200), Duration::from_secs(5));
    // Xvfb offers MIT-SHM with descriptors: screenshots must take the fast path.
    assert!(display.shares_memory(), "captures go through shared memory");
    let through_memory = display.capture_rgb().expect("a capture");
    let through_socket: Vec<u8> = display.capture_through_socket().expect("a capture").chunks_exact(4).flat_map(|p| [p[2], p[1], p[0]]).collect();
    assert_eq!(through_memory.len(), 640 * 480 * 3);
    assert!(through_memory.iter().any(|b| *b != 0), "the window is drawn");
    assert!(through_memory == through_socket, "both paths give the same pixels");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn the_ui_tree_holds_what_the_accessibility_bus_shows() {
    use guigym_core::{Action, Observation};
    let Some(provider) = provider() else { return };
    let mut env = provider.create().await.expect("an instance starts");
    let family = catalogue::FAMILIES.iter().find(|f| f.name == "text.append").expect("the family");
    env.reset(&catalogue::task(family, 0)).await.expect("reset");
    let observe = |obs: &Observation| obs.ui_tree.iter().map(|n| format!("{} {} {:?}", n.id, n.role, n.text)).collect::<Vec<_>>().join("\n");

    // The editor's document is a node inside the editor's window, holding what was typed.
    env.step(&Action::Type { text: " kestrel".into(), element: None, clear: false }).await.expect("typing");
    let obs = env.observe(ObserveOptions { screenshot: false }).await.unwrap();
    let window = obs.ui_tree.iter().position(|n| n.role == "window" && n.id == "mousepad").unwrap_or_else(|| panic!("{}", observe(&obs)));
    let document = obs.ui_tree.iter().find(|n| n.role == "text" && n.editable && n.focused).unwrap_or_else(|| panic!("no document:\n{}", observe(&obs)));
    assert!(document.text.contains(" kestrel"), "{:?}", document.text);
    assert!(document.id.starts_with("mousepad."));
    let mut ancestor = document.parent;
    while let Some(a) = ancestor.filter(|a| *a != window) {
        ancestor = obs.ui_tree[a].parent;
    }
    assert_eq!(ancestor, Some(window), "the document sits in the editor's window");
    assert!(document.bounds.w > 0 && document.bounds.h > 0);

    // A closed menu's items are not on the screen; clicking the menu by its id shows them.
    assert!(!obs.ui_tree.iter().any(|n| n.role == "menu-item" && n.text.contains("Save")), "{}", observe(&obs));
    let file = obs.ui_tree.iter().find(|n| n.role == "menu" && n.text == "File").unwrap_or_else(|| panic!("no File menu:\n{}", observe(&obs)));
    let outcome = env.step(&Action::Click { at: None, element: Some(file.id.clone()) }).await.expect("a click");
    assert!(!outcome.invalid, "{}", outcome.feedback);
    // The menu opens as the application gets to it: look a few times.
    let mut obs = env.observe(ObserveOptions { screenshot: false }).await.unwrap();
    for _ in 0..20 {
        if obs.ui_tree.iter().any(|n| n.role == "menu-item" && n.text.starts_with("Save")) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        obs = env.observe(ObserveOptions { screenshot: false }).await.unwrap();
    }
    assert!(obs.ui_tree.iter().any(|n| n.role == "menu-item" && n.text.starts_with("Save")), "the open menu's items:\n{}", observe(&obs));
}

/// With LibreOffice's GTK toolkit, its windows carry their accessibility tree: the menus, the
/// Name Box, the sheet. The sheet's cells are not asked for (the table manages billions of
/// descendants; asked for its children, LibreOffice spins and stops answering), so the tree
/// keeps coming, observation after observation, and typing still reaches the sheet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn libreoffice_windows_carry_their_accessibility_tree() {
    use guigym_core::Action;
    // The default toolkit (GTK's) has the accessibility bridge.
    let Some(provider) = provider() else { return };
    let mut env = provider.create().await.expect("an instance starts");
    let task = catalogue::find_task("calc.fill_cell/0").unwrap();
    env.reset(&task).await.unwrap();
    let show = |obs: &guigym_core::Observation| obs.ui_tree.iter().map(|n| format!("{} {} {:?}", n.id, n.role, n.text)).collect::<Vec<_>>().join("\n");
    // The first look is what a second reset returns: the accessibility bus outlives a reset.
    let mut first = Some(env.reset(&task).await.unwrap());
    for look in 0..3 {
        let obs = match first.take() {
            Some(obs) => obs,
            None => env.observe(ObserveOptions::default()).await.unwrap(),
        };
        let has = |role: &str, text: &str| obs.ui_tree.iter().any(|n| n.role == role && n.text.starts_with(text) && n.id.starts_with("libreoffice."));
        assert!(has("menu", "File") && has("menu", "Insert"), "look {look}: the menu bar\n{}", show(&obs));
        assert!(has("document-spreadsheet", ""), "look {look}: the spreadsheet\n{}", show(&obs));
        assert!(has("table", "Sheet"), "look {look}: the sheet\n{}", show(&obs));
        assert!(has("text", "A1"), "look {look}: the Name Box\n{}", show(&obs));
        assert!(!obs.ui_tree.iter().any(|n| n.role == "table-cell"), "look {look}: no cell is asked for");
    }
    // LibreOffice still takes input: a value typed into a cell shows in the Name Box's
    // neighbour, the formula bar, as the tree reports it.
    env.step(&Action::Type { text: "kestrel".into(), element: None, clear: false }).await.unwrap();
    let mut found = false;
    for _ in 0..20 {
        let obs = env.observe(ObserveOptions::default()).await.unwrap();
        if obs.ui_tree.iter().any(|n| n.text.contains("kestrel")) {
            found = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let obs = env.observe(ObserveOptions::default()).await.unwrap();
    assert!(found, "what was typed shows in the tree\n{}", show(&obs));
}

/// A reset to the task the last reset asked for takes the spare made meanwhile: the episode
/// starts as a cold reset starts it (same screen, nothing of the last episode), is judged the
/// same, and the old instance and the spare end with their env. A reset to another task
/// resets as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn a_reset_that_takes_the_spare_starts_the_episode_as_a_cold_one() {
    use guigym_core::{Action, Env};
    let Some(provider) = provider() else { return };
    let mut env = provider.with_spare(true).start().await.expect("an instance starts");
    let task = catalogue::find_task("text.write/0").unwrap();
    let names = |obs: &guigym_core::Observation| obs.ui_tree.iter().map(|n| format!("{} {} {} {:?}", n.id, n.role, n.text, n.bounds)).collect::<Vec<_>>();

    let cold = env.reset(&task).await.unwrap();
    let first = env.instance_dir().await.unwrap();
    open_terminal(&mut env).await;
    let typed = "echo x > ~/Documents/elsewhere.txt\n";
    env.step(&Action::Type { text: typed.into(), element: None, clear: false }).await.unwrap();
    env.wait_spare().await;

    let warm = env.reset(&task).await.unwrap();
    let second = env.instance_dir().await.unwrap();
    assert_ne!(first, second, "the reset took the spare");
    assert_eq!(names(&warm), names(&cold), "the spare's first screen is the cold reset's");
    let v = env.evaluate().await.unwrap();
    assert!(!v.success && v.unexpected_side_effects.is_empty(), "nothing of the last episode: {v:?}");
    env.apply_golden().await.unwrap();
    let v = env.evaluate().await.unwrap();
    assert!(v.success && v.unexpected_side_effects.is_empty(), "{v:?}");
    assert!(gone_within_10_s(&first).await, "the old instance ended: {} is still there", first.display());

    // Another task: the spare (made for text.write) is not taken.
    let other = catalogue::find_task("text.write/1").unwrap();
    env.wait_spare().await;
    env.reset(&other).await.unwrap();
    assert_eq!(env.instance_dir().await.unwrap(), second, "a reset to another task resets in place");
    env.apply_golden().await.unwrap();
    assert!(env.evaluate().await.unwrap().success);

    drop(env);
    assert!(gone_within_10_s(&second).await, "the instance ended with its env: {} is still there", second.display());
}

/// Whether `path` is gone, or goes within 10 s (an instance's folder, removed as it ends).
async fn gone_within_10_s(path: &std::path::Path) -> bool {
    for _ in 0..100 {
        if !path.exists() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    !path.exists()
}

/// Our catalogue's tasks allow changes to their own files only: a file written elsewhere (from
/// a terminal opened by Ctrl+Alt+T) fails a solved task. A reset ends what the agent started
/// outside the task's applications, even a job that left its process group and session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn a_change_outside_the_task_fails_it_and_a_reset_ends_what_the_agent_started() {
    use guigym_core::Action;
    use std::time::Duration;
    let Some(provider) = provider() else { return };
    let mut env = provider.create().await.expect("an instance starts");
    let task = catalogue::find_task("text.write/0").unwrap();

    env.reset(&task).await.unwrap();
    env.apply_golden().await.unwrap();
    let v = env.evaluate().await.unwrap();
    assert!(v.success && v.unexpected_side_effects.is_empty(), "{v:?}");

    open_terminal(env.as_mut()).await;
    // The late job leaves its process group, its session and the instance's marker.
    let typed = "echo x > ~/Documents/elsewhere.txt; env -u GUIGYM_INSTANCE setsid sh -c 'sleep 4; echo late > ~/Desktop/late.txt' > /dev/null 2>&1 &\n";
    env.step(&Action::Type { text: typed.into(), element: None, clear: false }).await.unwrap();
    let v = env.evaluate().await.unwrap();
    assert!(!v.success && v.score == 0.0, "{v:?}");
    assert_eq!(v.unexpected_side_effects, ["/home/user/Documents/elsewhere.txt (created)"], "{v:?}");
    assert!(v.checks.iter().all(|c| c.passed), "the task's own check still passes: {v:?}");

    // The reset ends the terminal and the job it left behind: the job's late write never
    // comes, and the solved task passes again.
    env.reset(&task).await.unwrap();
    let after = window_ids(&env.observe(ObserveOptions::default()).await.unwrap());
    assert!(!after.iter().any(|w| w.starts_with("xterm")), "{after:?}");
    tokio::time::sleep(Duration::from_secs(5)).await;
    env.apply_golden().await.unwrap();
    let v = env.evaluate().await.unwrap();
    assert!(v.success, "nothing written after the reset: {v:?}");
}

#[test]
#[ignore = "full tier: real X server and applications"]
fn applications_see_the_task_home_and_no_other_instance() {
    use guigym_desktop::session::Session;
    use std::time::Duration;
    if let Some(why) = guigym_desktop::missing() {
        eprintln!("skipping: {why}");
        return;
    }
    let mut a = Session::start(640, 480).expect("a display starts");
    let mut b = Session::start(640, 480).expect("a second display starts");
    if !a.namespaced() {
        eprintln!("skipping: this machine makes no mount namespaces (paths are rewritten instead)");
        return;
    }
    std::fs::create_dir_all(&a.home).unwrap();
    std::fs::create_dir_all(&b.home).unwrap();
    std::fs::write(a.home.join("mine.txt"), "ours").unwrap();
    std::fs::write(b.home.join("theirs.txt"), "not ours").unwrap();
    let look = "pwd; echo $HOME; ls /home; ls /home/user; cat /home/user/mine.txt; echo; touch /home/user/made.txt";
    let out = a.run(&[look.to_string()], true, Duration::from_secs(10)).unwrap();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[..4], ["/home/user", "/home/user", "user", "mine.txt"], "{out:?}");
    assert_eq!(lines[4], "ours", "{out:?}");
    assert!(!out.stdout.contains("theirs"), "another instance's files are out of sight: {out:?}");
    assert!(a.home.join("made.txt").is_file(), "what a command writes in /home/user lands in the instance's home");
    // Where guigym is root, applications are not: they cannot change the machine.
    if running_as_root() {
        let out = a.run(&["id -u; touch /etc/guigym-probe && echo wrote-etc".to_string()], true, Duration::from_secs(10)).unwrap();
        assert_ne!(out.stdout.lines().next(), Some("0"), "{out:?}");
        assert!(!out.stdout.contains("wrote-etc") && !std::path::Path::new("/etc/guigym-probe").exists(), "{out:?}");
    }
    // /tmp is the instance's own.
    a.run(&["echo secret > /tmp/left-by-a; mkdir /var/tmp/dir-by-a".to_string()], true, Duration::from_secs(10)).unwrap();
    let out = b.run(&["ls -A /tmp /var/tmp".to_string()], true, Duration::from_secs(10)).unwrap();
    assert!(!out.stdout.contains("by-a"), "{out:?}");
    // A reset replaces the home folder, the namespace shows the new one, and empties /tmp.
    let template = a.home.parent().unwrap().parent().unwrap().join("template");
    std::fs::create_dir_all(&template).unwrap();
    std::fs::write(template.join("fresh.txt"), "").unwrap();
    // The episode opens its /tmp to all and swaps its X authority file for a link to a file of
    // the machine: the reset closes the one and writes the other afresh, without following it.
    a.run(&["chmod 777 /tmp; rm -f $XAUTHORITY; ln -s /etc/hostname $XAUTHORITY".to_string()], true, Duration::from_secs(10)).unwrap();
    let hostname = std::fs::read("/etc/hostname").unwrap_or_default();
    a.end_desktop().unwrap();
    a.restore(&template).unwrap();
    assert_eq!(std::fs::read("/etc/hostname").unwrap_or_default(), hostname);
    let mode = |path: std::path::PathBuf| {
        let meta = std::fs::symlink_metadata(path).unwrap();
        (meta.file_type().is_symlink(), std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777)
    };
    assert_eq!(mode(a.dir.join("run/Xauthority")), (false, 0o600));
    assert_eq!(mode(a.dir.join("tmp")), (false, 0o700));
    let out = a.run(&["ls -A /home/user /tmp /var/tmp".to_string()], true, Duration::from_secs(10)).unwrap();
    // (/tmp shows the displays' sockets.)
    assert_eq!(out.stdout.split_whitespace().collect::<Vec<_>>(), ["/home/user:", "fresh.txt", "/tmp:", ".X11-unix", "/var/tmp:"], "{out:?}");
    drop(b);
}

/// Where guigym is root, an instance's agent cannot reach another instance: not its files
/// (by their real paths), not its processes, not its screen.
#[test]
#[ignore = "full tier: real X server and applications"]
fn an_instance_cannot_reach_another() {
    use guigym_desktop::session::Session;
    use std::time::Duration;
    if !accounts_testable() {
        return;
    }
    let mut a = Session::start(640, 480).expect("a display starts");
    let mut b = Session::start(640, 480).expect("a second display starts");
    let run = |s: &mut Session, command: String| s.run(&[command], true, Duration::from_secs(10)).unwrap();
    let (id_a, id_b) = (run(&mut a, "id -u; whoami".into()), run(&mut b, "id -u; whoami".into()));
    assert_ne!(id_a.stdout, id_b.stdout, "each instance has its own account");
    assert!(!id_a.stdout.starts_with("0\n"), "{id_a:?}");
    if a.namespaced() {
        assert!(id_a.stdout.ends_with("user\n"), "the account is `user` inside: {id_a:?}");
    }
    std::fs::write(b.home.join("theirs.txt"), "not ours").unwrap();
    b.give_home();
    let bs_home = b.home.display().to_string();
    let bs_runtime = b.env().into_iter().find(|(k, _)| k == "XDG_RUNTIME_DIR").unwrap().1;
    let out = run(&mut a, format!("cat {bs_home}/theirs.txt; ls {bs_home} {bs_runtime}; touch {bs_home}/planted; echo done"));
    assert_eq!(out.stdout.trim(), "done", "b's home and runtime folder are closed to a: {out:?}");
    assert!(!b.home.join("planted").exists());
    // b's processes (its window manager among them) take no signal from a.
    let pids: Vec<String> = b.pids().iter().map(u32::to_string).collect();
    assert!(!pids.is_empty());
    let out = run(&mut a, format!("for p in {}; do kill -0 $p 2>/dev/null && echo reached $p; done; echo done", pids.join(" ")));
    assert_eq!(out.stdout.trim(), "done", "{out:?}");
    // a's own display lets a in; b's does not (a shows its cookie, not b's).
    let probe = format!(
        "xwininfo -root -display {} >/dev/null && echo own; xwininfo -root -display {} >/dev/null 2>&1 && echo other; true",
        a.display_name, b.display_name
    );
    let out = run(&mut a, probe);
    assert_eq!(out.stdout.trim(), "own", "{out:?}");
    // No service of the machine is in reach (the manager's API, a model server).
    let service = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = service.local_addr().unwrap().port();
    let out = run(&mut a, format!("bash -c 'echo hello > /dev/tcp/127.0.0.1/{port}' 2>/dev/null && echo reached; echo done"));
    assert_eq!(out.stdout.trim(), "done", "{out:?}");
}

/// Where guigym is root, an instance stores at most its own space (home, /tmp and /var/tmp
/// together): an agent that writes without end (a command in the terminal) fills that, not the
/// machine's memory (/dev/shm is memory) that every instance shares.
#[test]
#[ignore = "full tier: real X server and applications"]
fn an_instance_stores_no_more_than_its_space() {
    use guigym_desktop::session::Session;
    use std::time::Duration;
    if !accounts_testable() {
        return;
    }
    let mut a = Session::start(640, 480).expect("a display starts");
    let space: u64 = std::env::var("GUIGYM_DESKTOP_SPACE_MIB").ok().and_then(|m| m.parse().ok()).unwrap_or(2048);
    let probe = format!(
        "df -B1M --output=size,target /home/user /tmp /var/tmp /dev/shm | tail -n +2; fallocate -l {}M /tmp/big && echo filled; stat -c 'size %s' /tmp/big; ls /dev/shm/guigym-desktop",
        space + 64
    );
    let out = a.run(&[probe], true, Duration::from_secs(30)).unwrap();
    let lines: Vec<Vec<&str>> = out.stdout.lines().map(|l| l.split_whitespace().collect()).collect();
    assert!(lines.len() >= 3, "{out:?}");
    for line in &lines[..3] {
        assert_eq!(line[0], space.to_string(), "{out:?}");
    }
    assert!(!out.stdout.contains("filled") && out.stdout.contains("size 0"), "{out:?}");
    // Its /dev/shm is its own, small, and shows no other instance's folder.
    assert_eq!(lines[3][0], "256", "{out:?}");
    assert_eq!(lines.last().unwrap(), &[a.dir.file_name().unwrap().to_str().unwrap()], "{out:?}");
    // The getters' folder is out of it: filled, the instance still has its files taken out.
    let filled = a.run(&[format!("fallocate -l {}M /tmp/most && echo filled", space - 16)], true, Duration::from_secs(30)).unwrap();
    assert_eq!(filled.stdout, "filled\n", "{filled:?}");
    let fetched = a.fetched_dir().unwrap();
    std::fs::write(fetched.join("taken"), vec![0u8; 4 << 20]).expect("the getters' folder has room");
}

/// A command that leaves a job holding its output open (a daemon started in the background
/// without redirection, by a set-up step or by a script a getter runs) does not hang the reset
/// or the evaluator: what the command printed comes back, and the job runs on.
#[test]
#[ignore = "full tier: real X server and applications"]
fn a_job_left_holding_a_command_output_does_not_hang_it() {
    use guigym_desktop::session::Session;
    use std::time::Duration;
    if let Some(why) = guigym_desktop::missing() {
        eprintln!("skipping: {why}");
        return;
    }
    let mut a = Session::start(640, 480).expect("a display starts");
    let (tell, answer) = std::sync::mpsc::channel();
    let ran = std::thread::spawn(move || {
        let out = a.run(&["setsid sleep 100000 & sleep 100001 & echo hi".to_string()], true, Duration::from_secs(10));
        let _ = tell.send(out);
        a
    });
    let out = answer.recv_timeout(Duration::from_secs(120)).expect("the command returns").unwrap();
    assert_eq!((out.status, out.stdout.as_str()), (Some(0), "hi\n"));
    let a = ran.join().unwrap();
    let jobs = a.pids().into_iter().filter(|p| std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.starts_with(b"sleep\x0010000"))).count();
    assert_eq!(jobs, 2, "the jobs run on, until the next reset");
}

/// guigym reads and writes the instance's files as its account does: a link the agent left
/// in the home never makes root read or write what the account may not, and a FIFO never
/// blocks the evaluator.
#[test]
#[ignore = "full tier: real X server and applications"]
fn files_are_read_and_written_as_the_instance_account() {
    use guigym_desktop::session::Session;
    use std::time::Duration;
    if !accounts_testable() {
        return;
    }
    let mut a = Session::start(640, 480).expect("a display starts");
    let docs = a.home.join("Documents");
    a.write_file(&docs.join("note.txt"), b"ours".to_vec()).expect("a file is written, its folder made");
    assert_eq!(a.read_file(&docs.join("note.txt"), 1 << 20).unwrap().as_deref(), Some(&b"ours"[..]));
    let setup = "ln -s /etc/shadow ~/Documents/secret && mkfifo ~/Documents/pipe && ln -s /etc ~/Documents/etc && head -c 2048 /dev/zero > ~/Documents/big";
    a.run(&[setup.to_string()], true, Duration::from_secs(10)).unwrap();
    assert_eq!(a.read_file(&docs.join("secret"), 1 << 20).unwrap(), None, "a link to a file the account may not read gives nothing");
    assert_eq!(a.read_file(&docs.join("pipe"), 1 << 20).unwrap(), None, "a FIFO is not a file");
    assert_eq!(a.read_file(&docs.join("big"), 1024).unwrap(), None, "a file over the limit is not taken");
    assert_eq!(a.read_file(&docs.join("missing"), 1024).unwrap(), None);
    assert!(a.write_file(&docs.join("etc/guigym-probe"), b"x".to_vec()).is_err());
    assert!(!std::path::Path::new("/etc/guigym-probe").exists(), "nothing was written through the link");
}

/// A process an agent leaves behind does not outlive the reset, however it hides: without the
/// instance's marker, in the process group of the session bus (whose services a reset keeps),
/// or started by the bus from a service described in the home.
#[test]
#[ignore = "full tier: real X server and applications"]
fn nothing_an_agent_starts_outlives_a_reset() {
    use guigym_desktop::session::Session;
    use std::time::Duration;
    if !python_testable() {
        return;
    }
    let mut a = Session::start(640, 480).expect("a display starts");
    let hide = r#"
import os, subprocess
rows = [line.split() for line in subprocess.run(["ps", "-eo", "pgid=,uid=,comm="], capture_output=True, text=True).stdout.splitlines()]
mine = [(comm != "dbus-daemon", int(g)) for g, uid, comm in rows if uid == str(os.getuid())]
for _, group in sorted(mine):
    try:
        os.setpgid(0, group)
        break
    except OSError:
        pass
os.execvp("sleep", ["sleep", "600"])
"#;
    // And one the session bus starts for it, from a service the agent describes in the home.
    let activate = "mkdir -p $XDG_DATA_HOME/dbus-1/services && printf '[D-BUS Service]\\nName=org.guigym.Hide\\nExec=/bin/sleep 600\\n' > $XDG_DATA_HOME/dbus-1/services/hide.service && timeout 1 dbus-send --session --print-reply --dest=org.guigym.Hide / org.freedesktop.DBus.Peer.Ping";
    let command = format!("env -i python3 -c '{hide}' > /dev/null 2>&1 & {activate} > /dev/null 2>&1; sleep 1");
    a.run(&[command], true, Duration::from_secs(10)).unwrap();
    // The hidden process, alive (a killed one may wait a moment to be reaped).
    let sleeping = |s: &Session| {
        s.pids()
            .into_iter()
            .filter(|p| std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.ends_with(b"sleep\x00600\x00")))
            .filter(|p| std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| !s.contains(") Z ")))
            .count()
    };
    // (The service is not started where the bus starts only the system's.)
    assert!(sleeping(&a) >= 1, "the hidden process runs before the reset");
    a.end_apps();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(sleeping(&a), 0, "nothing the agent started survives the reset");
}

/// What the agent runs (here from an application, as a shell in the terminal would) cannot end
/// another application, the window manager or the bus, nor its own application by a signal:
/// only an outside cause can, and that is what `crashed` reports. (Were it otherwise, an agent
/// could turn a failing attempt into an infrastructure failure and have it run again.)
#[test]
#[ignore = "full tier: real X server and applications"]
fn only_an_outside_cause_ends_an_application_by_a_signal() {
    use guigym_desktop::session::Session;
    use std::time::{Duration, Instant};
    if !accounts_testable() {
        return;
    }
    let mut s = Session::start(640, 480).expect("a display starts");
    let running = |s: &Session, what: &[u8]| {
        s.pids().into_iter().find(|p| {
            std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c == what)
                && std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| !s.contains(") Z "))
        })
    };
    let wait_for = |what: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !what() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        what()
    };
    s.launch(&["sleep".into(), "6001".into()], false).unwrap();
    // An application that ends of itself, complaining: no crash.
    s.launch(&["sh".into(), "-c".into(), "echo complaint >&2; exit 3".into()], false).unwrap();
    assert!(wait_for(&|| running(&s, b"sleep\x006001\x00").is_some()));
    let victim = running(&s, b"sleep\x006001\x00").unwrap();
    // A shell under the application's first process signals every process it can name, all it
    // may reach at once (-1), and its application's first process, by each signal a crash or a
    // kill would show; it looks for the other application in /proc, to trace it or write its
    // memory.
    let agent = format!(
        "[ -e /proc/{victim}/mem ] && echo seen > /home/user/seen; for p in $(ps -eo pid=); do [ $p = $$ ] || kill -9 $p; done 2>/dev/null; pkill -9 -x sleep; pkill -9 openbox; pkill -9 dbus-daemon; kill -9 -1; kill -9 1; kill -SEGV 1; kill -ABRT 1; touch /home/user/tried"
    );
    let script = format!("sh -c '{agent}'; sleep 6002");
    s.launch(&["sh".into(), "-c".into(), script], false).unwrap();
    assert!(wait_for(&|| s.home.join("tried").exists()), "the agent's shell ran to its end");
    assert!(wait_for(&|| running(&s, b"sleep\x006002\x00").is_some()), "the agent's own application runs");
    assert!(!s.home.join("seen").exists(), "the other application is out of the agent's sight");
    assert_eq!(s.crashed(), None);
    assert!(s.wm_alive() && s.display_alive());
    assert_eq!(running(&s, b"sleep\x006001\x00"), Some(victim), "the other application runs");
    assert!(s.pids().into_iter().any(|p| std::fs::read(format!("/proc/{p}/comm")).is_ok_and(|c| c == b"dbus-daemon\n")), "the bus runs");
    // From outside (the machine, an operator): the application's end is reported.
    assert!(std::process::Command::new("kill").args(["-9", &victim.to_string()]).status().unwrap().success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut crashed = None;
    while crashed.is_none() && Instant::now() < deadline {
        crashed = s.crashed();
        std::thread::sleep(Duration::from_millis(20));
    }
    let crashed = crashed.expect("an application killed from outside is reported");
    assert!(crashed.starts_with("sleep"), "{crashed}");
}

/// The window manager is an X client the agent may end (from the terminal it opens, or by
/// closing its connection): it is started again, manages the windows anew, and the episode
/// goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn a_window_manager_the_agent_ends_comes_back() {
    use guigym_core::Action;
    use std::time::Duration;
    let Some(provider) = provider() else { return };
    let mut env = provider.create().await.expect("an instance starts");
    let task = catalogue::find_task("text.write/0").unwrap();
    let before = window_ids(&env.reset(&task).await.unwrap());
    assert!(!before.is_empty());
    open_terminal(env.as_mut()).await;
    env.step(&Action::Type { text: "kill -TERM 1\n".into(), element: None, clear: false }).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut after = Vec::new();
    for _ in 0..50 {
        after = window_ids(&env.observe(ObserveOptions::default()).await.expect("no infrastructure failure"));
        if after == before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(after, before, "the terminal went with the window manager; the task's window is managed again");
    let key = env.step(&Action::Key { keys: vec!["ctrl".into(), "alt".into(), "t".into()] }).await.expect("the episode goes on");
    assert!(!key.invalid, "{}", key.feedback);
    env.apply_golden().await.unwrap();
    assert!(env.evaluate().await.unwrap().success);
}

/// A program of the agent's that holds the X server to itself (`XGrabServer`, which any client
/// may ask for) stalls every call of guigym's: the episode ends there, judged on what the agent
/// left, rather than hanging or failing as infrastructure; the reset frees the display.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn a_program_holding_the_display_ends_the_episode() {
    use guigym_core::Action;
    if !python_testable() {
        return;
    }
    let Some((mut env, task)) = text_task_with_terminal().await else { return };
    let grab = "python3 -c 'import ctypes,time; x=ctypes.CDLL(\"libX11.so.6\"); x.XOpenDisplay.restype=ctypes.c_void_p; d=ctypes.c_void_p(x.XOpenDisplay(None)); x.XGrabServer(d); x.XSync(d,0); time.sleep(100000)'\n";
    env.step(&Action::Type { text: grab.into(), element: None, clear: false }).await.expect("typing is no failure");
    let mut ended = false;
    for _ in 0..5 {
        let obs = env.observe(ObserveOptions { screenshot: true }).await.expect("no infrastructure failure");
        let step = env.step(&Action::Wait { ms: 100 }).await.expect("no infrastructure failure");
        if step.done {
            assert!(obs.feedback.is_some() || step.feedback.contains("stopped answering"), "{step:?}");
            ended = true;
            break;
        }
    }
    assert!(ended, "the episode ends");
    let v = env.evaluate().await.expect("the evaluation needs no display");
    assert!(!v.success, "{v:?}");
    env.reset(&task).await.expect("the reset frees the display");
    let obs = env.observe(ObserveOptions { screenshot: true }).await.unwrap();
    assert!(obs.feedback.is_none() && obs.screenshot.is_some() && !window_ids(&obs).is_empty(), "{:?}", obs.feedback);
    env.apply_golden().await.unwrap();
    assert!(env.evaluate().await.unwrap().success);
}

/// An agent's program that eats memory (here after making its terminal the kernel's first
/// choice to end, `oom_score_adj`) is ended with the rest of the instance at its budget,
/// before the machine runs short: the episode ends by the agent's doing and is judged, never an
/// infrastructure failure to run again; the next reset starts afresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn an_agent_eating_memory_ends_its_own_episode() {
    use guigym_core::Action;
    if !accounts_testable() || !python_testable() {
        return;
    }
    let Some((mut env, task)) = text_task_with_terminal().await else { return };
    let budget_mib: u64 = std::env::var("GUIGYM_DESKTOP_MEMORY_MIB").ok().and_then(|m| m.parse().ok()).unwrap_or(2048);
    let eat = format!("echo 1000 > /proc/$PPID/oom_score_adj; python3 -c 'import time; b = b\"x\" * ({} << 20); time.sleep(600)'\n", budget_mib + 1024);
    env.step(&Action::Type { text: eat, element: None, clear: false }).await.expect("typing is no failure");
    let mut ended = None;
    for _ in 0..100 {
        let step = env.step(&Action::Wait { ms: 100 }).await.expect("no infrastructure failure");
        if step.done {
            ended = Some(step.feedback);
            break;
        }
    }
    let feedback = ended.expect("the episode ends");
    assert!(feedback.contains("memory"), "{feedback}");
    let obs = env.observe(ObserveOptions::default()).await.expect("no infrastructure failure");
    assert!(obs.feedback.is_some_and(|f| f.contains("memory")));
    let v = env.evaluate().await.expect("the evaluation is no infrastructure failure");
    assert!(!v.success, "{v:?}");
    env.reset(&task).await.expect("the reset starts afresh");
    let obs = env.observe(ObserveOptions { screenshot: true }).await.unwrap();
    assert!(obs.feedback.is_none() && !window_ids(&obs).is_empty(), "{:?}", obs.feedback);
    env.apply_golden().await.unwrap();
    assert!(env.evaluate().await.unwrap().success);
}

/// A fork bomb typed into the terminal fills the account's share of processes and its memory
/// budget: the instance's processes are ended and the episode ends by the agent's doing, judged;
/// no operation on the way fails as infrastructure, and the next reset starts afresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn a_fork_bomb_in_the_terminal_ends_its_own_episode() {
    use guigym_core::Action;
    if !accounts_testable() {
        return;
    }
    let Some((mut env, task)) = text_task_with_terminal().await else { return };
    env.step(&Action::Type { text: ":(){ :|:& };:\n".into(), element: None, clear: false }).await.expect("typing is no failure");
    let mut broken = None;
    for _ in 0..300 {
        let obs = env.observe(ObserveOptions::default()).await.expect("no infrastructure failure");
        let step = env.step(&Action::Wait { ms: 100 }).await.expect("no infrastructure failure");
        if let Some(why) = obs.broken.or(step.broken) {
            broken = Some(why);
            break;
        }
    }
    let why = broken.expect("the episode ends");
    assert!(why.contains("memory") || why.contains("answer"), "{why}");
    let v = env.evaluate().await.expect("the evaluation is no infrastructure failure");
    assert!(!v.success, "{v:?}");
    env.reset(&task).await.expect("the reset starts afresh");
    let obs = env.observe(ObserveOptions { screenshot: true }).await.unwrap();
    assert!(obs.broken.is_none() && !window_ids(&obs).is_empty(), "{:?}", obs.feedback);
    env.apply_golden().await.unwrap();
    assert!(env.evaluate().await.unwrap().success);
}

/// System V shared memory, semaphores and message queues outlive their processes, and the
/// machine's IPC namespace is shared: what an episode made is removed at the reset.
#[test]
#[ignore = "full tier: real X server and applications"]
fn what_an_episode_leaves_in_system_v_ipc_is_removed() {
    use std::time::Duration;
    if !accounts_testable() {
        return;
    }
    let Some(mut instance) = blank_instance() else { return };
    let made =
        instance.session.run(&["ipcmk -M 1048576 && ipcmk -M 1048576 -p 0 && ipcmk -S 1 && ipcmk -Q && id -u".into()], true, Duration::from_secs(30)).unwrap();
    let account = made.stdout.lines().last().unwrap_or_default().to_string();
    assert!(made.stdout.lines().count() == 5 && !account.is_empty(), "{made:?}");
    let owned = |table: &str| {
        // The owner's uid is the 8th column of /proc/sysvipc/shm and msg, the 5th of sem.
        let column = if table == "sem" { 4 } else { 7 };
        std::fs::read_to_string(format!("/proc/sysvipc/{table}"))
            .unwrap()
            .lines()
            .filter(|l| l.split_whitespace().nth(column) == Some(account.as_str()))
            .count()
    };
    // (One segment the account made unreadable to itself.)
    assert_eq!([owned("shm"), owned("sem"), owned("msg")], [2, 1, 1]);
    reset_blank(&mut instance);
    assert_eq!([owned("shm"), owned("sem"), owned("msg")], [0, 0, 0]);
}

/// What an episode leaves where anyone may write outside its folders (the namespace's /dev/shm
/// and /run/lock), in POSIX message queues and in the account's kernel keyrings does not reach
/// the next episode.
#[test]
#[ignore = "full tier: real X server and applications"]
fn what_an_episode_leaves_in_shared_folders_queues_and_keyrings_is_removed() {
    use std::time::Duration;
    if !accounts_testable() || !python_testable() {
        return;
    }
    let Some(mut instance) = blank_instance() else { return };
    let queue = |flags: &str| {
        format!("python3 -c 'import ctypes, os\nrt = ctypes.CDLL(\"librt.so.1\")\nprint(\"queue\", rt.mq_open(b\"/guigym-left\", {flags}, 0o600, None) >= 0)'")
    };
    // The persistent keyring (`@p` here) by its id, possessed through a session keyring that
    // links the user keyring, as an agent would.
    let persistent = |then: &str| format!("keyctl session - sh -c 'keyctl link @u @s >/dev/null && p=$(keyctl get_persistent @u) && {then}'");
    let keys = format!(
        "for ring in @u @us; do keyctl search $ring user guigym-left-$ring >/dev/null 2>&1 && echo key $ring; done; {}",
        persistent("keyctl search $p user guigym-left-@p >/dev/null 2>&1 && echo key @p")
    );
    let look = format!("{}; {keys}; ls /dev/shm /run/lock; df -k --output=size /dev/shm | tail -n 1", queue("os.O_RDONLY"));
    let left = format!(
        "echo secret > /dev/shm/left && echo secret > /run/lock/left && keyctl add user guigym-left-@u secret @u && keyctl add user guigym-left-@us secret @us && {} && {}",
        persistent("keyctl add user guigym-left-@p secret $p"),
        queue("os.O_CREAT | os.O_RDWR")
    );
    let made = instance.session.run(&[left], true, Duration::from_secs(30)).unwrap();
    assert!(made.stdout.contains("queue True"), "{made:?}");
    let seen = instance.session.run(std::slice::from_ref(&look), true, Duration::from_secs(30)).unwrap();
    let lines = |out: &str| out.lines().map(str::to_string).collect::<Vec<_>>();
    let before = lines(&seen.stdout);
    for line in ["queue True", "key @u", "key @us", "key @p", "left"] {
        assert!(before.iter().any(|l| l == line), "{line}: {seen:?}");
    }
    reset_blank(&mut instance);
    let seen = instance.session.run(&[look], true, Duration::from_secs(30)).unwrap();
    let after = lines(&seen.stdout);
    assert!(after.iter().any(|l| l == "queue False"), "{seen:?}");
    for line in ["key @u", "key @us", "key @p", "left"] {
        assert!(!after.iter().any(|l| l == line), "{line}: {seen:?}");
    }
    // The namespace's own /dev/shm, new (256 MiB, showing only guigym's folder), not the
    // machine's; the instance's folder still seen at its real path (its runtime folder).
    assert!(after.iter().any(|l| l == "guigym-desktop") && after.last().is_some_and(|size| size.trim() == "262144"), "{seen:?}");
    let runtime = instance.session.run(&["test -d \"$XDG_RUNTIME_DIR\" && echo runtime".into()], true, Duration::from_secs(30)).unwrap();
    assert!(runtime.stdout.contains("runtime"), "{runtime:?}");
}

/// A getter's Python program runs as the account whose home the agent wrote, in that home: it
/// loads neither a module the agent left there nor what it left under its user site folder.
#[test]
#[ignore = "full tier: real X server and applications"]
fn a_getters_python_loads_nothing_the_agent_left_in_the_home() {
    use std::time::Duration;
    if !python_testable() {
        return;
    }
    let Some(mut instance) = blank_instance() else { return };
    let plant = r#"printf 'def dumps(*a, **k):\n    return "planted"\n' > json.py
site=$(python3 -m site --user-site) && mkdir -p "$site"
echo 'import sys; sys.stdout.write("planted ")' > "$site/agent.pth"
python3 -c 'import json; print(json.dumps(1))'"#;
    // The agent's own Python (without the getters' settings) loads both.
    let argv: Vec<String> = ["env", "-u", "PYTHONSAFEPATH", "-u", "PYTHONNOUSERSITE", "sh", "-c", plant].map(String::from).into();
    let planted = instance.session.run(&argv, false, Duration::from_secs(30)).unwrap();
    assert_eq!(planted.stdout.trim(), "planted planted", "{planted:?}");
    let getter = instance.session.run(&["python3 -c 'import json; print(json.dumps(1))'".into()], true, Duration::from_secs(30)).unwrap();
    assert_eq!(getter.stdout.trim(), "1", "{getter:?}");
}

/// Memory left in System V shared memory segments, which outlive the program that made them and
/// belong to no process, counts against the instance's budget too.
#[test]
#[ignore = "full tier: real X server and applications"]
fn memory_left_in_system_v_segments_counts_against_the_budget() {
    use std::time::Duration;
    if !accounts_testable() || !python_testable() {
        return;
    }
    let Some(mut instance) = blank_instance() else { return };
    let budget_mib: u64 = std::env::var("GUIGYM_DESKTOP_MEMORY_MIB").ok().and_then(|m| m.parse().ok()).unwrap_or(2048);
    // Segments of 256 MiB, each filled and let go, past the budget.
    let fill = format!(
        "python3 -c 'import ctypes\nlibc = ctypes.CDLL(None)\nlibc.shmat.restype = ctypes.c_void_p\nfor _ in range({}):\n    i = libc.shmget(0, 256 << 20, 0o1600)\n    a = libc.shmat(i, None, 0)\n    ctypes.memset(a, 1, 256 << 20)\n    libc.shmdt(ctypes.c_void_p(a))'",
        budget_mib / 256 + 2
    );
    let out = instance.session.run(&[fill], true, Duration::from_secs(60)).unwrap();
    // (The watch ends the program once its segments pass the budget.)
    std::thread::sleep(Duration::from_millis(500));
    let why = instance.session.memory_ended().unwrap_or_else(|| panic!("the budget is passed: {out:?}"));
    assert!(why.contains(&format!("over its {budget_mib} MiB of memory")), "{why}");
    assert!(instance.ended_by_agent().is_some_and(|why| why.contains("memory")));
    reset_blank(&mut instance);
    assert!(instance.session.memory_ended().is_none());
}

/// In a user namespace of its own (which this machine lets any account make), a program could
/// hold memory no look counts (a file system in memory, System V objects): one that enters one
/// ends the episode by the agent's doing, as memory over the budget does.
#[test]
#[ignore = "full tier: real X server and applications"]
fn a_program_in_a_user_namespace_of_its_own_ends_the_episode() {
    use std::time::Duration;
    if !accounts_testable() {
        return;
    }
    let Some(mut instance) = blank_instance() else { return };
    let made = instance.session.run(&["unshare --user --map-root-user true && echo made".into()], true, Duration::from_secs(30)).unwrap();
    // (A look may catch even this one.)
    if !made.stdout.contains("made") && instance.session.memory_ended().is_none() {
        eprintln!("skipping: this machine lets no account make a user namespace: {made:?}");
        return;
    }
    // (The watch ends every process of the account: the shell too.)
    let held = instance.session.run(&["unshare --user --map-root-user sleep 20 && echo slept".into()], true, Duration::from_secs(30)).unwrap();
    assert!(!held.stdout.contains("slept"), "the watch ended the program: {held:?}");
    let why = instance.session.memory_ended().unwrap_or_else(|| panic!("the episode ends: {held:?}"));
    // (Named by the program it runs: `unshare` becomes `sleep`.)
    assert!(why.contains("user namespace") && (why.contains("\"sleep\"") || why.contains("\"unshare\"")), "{why}");
    assert!(instance.ended_by_agent().is_some_and(|why| why.contains("user namespace")));
    reset_blank(&mut instance);
    assert!(instance.session.memory_ended().is_none());
}

/// Whether instances get accounts of their own here (the desktop packages, and root); says
/// why not.
fn accounts_testable() -> bool {
    let testable = guigym_desktop::missing().is_none() && running_as_root();
    if !testable {
        eprintln!("skipping: needs the desktop packages and root (instances get their own accounts only then)");
    }
    testable
}

/// Whether the desktop packages and python3 (an agent's programs are written in it here) are
/// on this machine; says why not.
fn python_testable() -> bool {
    let testable = guigym_desktop::missing().is_none() && std::process::Command::new("python3").arg("-V").output().is_ok();
    if !testable {
        eprintln!("skipping: needs the desktop packages and python3");
    }
    testable
}

fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status").unwrap_or_default().lines().any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0"))
}

/// What a process killed before it could clean up left behind (its instance folder on tmpfs, a
/// process of its instance) is removed by the next process that makes instances.
#[test]
fn folders_and_processes_of_dead_instances_are_removed() {
    let base = guigym_desktop::session::base_dir();
    std::fs::create_dir_all(&base).unwrap();
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let (stale, live) = (base.join("test-stale-instance"), base.join("test-live-instance"));
    for (dir, owner) in [(&stale, dead), (&live, std::process::id())] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("owner"), owner.to_string()).unwrap();
    }
    let mut orphan = std::process::Command::new("sleep").arg("600").env("GUIGYM_INSTANCE", "test-stale-instance").spawn().unwrap();
    // Where guigym is root, a folder is named after its instance's account: what runs as the
    // account is the instance's, marked or not (the last account of the range, which a test
    // machine's instances do not reach).
    let unmarked = running_as_root().then(|| {
        use std::os::unix::process::CommandExt;
        let accounted = base.join("1900065535");
        std::fs::create_dir_all(&accounted).unwrap();
        // With its own file system mounted on it, and the files its getters took out.
        assert!(std::process::Command::new("mount").args(["-t", "tmpfs", "-o", "size=1m", "guigym-desktop"]).arg(&accounted).status().unwrap().success());
        std::fs::write(accounted.join("owner"), dead.to_string()).unwrap();
        std::fs::create_dir_all(base.join("fetched/1900065535")).unwrap();
        std::process::Command::new("sleep").arg("600").uid(1_900_065_535).gid(1_900_065_535).spawn().unwrap()
    });
    guigym_desktop::session::remove_stale();
    assert!(!stale.exists(), "a dead process's instance folder is removed");
    assert!(live.exists(), "a living one's stays");
    let status = orphan.wait().unwrap();
    assert!(!status.success(), "the dead instance's process was ended: {status:?}");
    if let Some(mut unmarked) = unmarked {
        let status = unmarked.wait().unwrap();
        assert!(!status.success(), "the process running as the dead instance's account was ended: {status:?}");
        assert!(!base.join("1900065535").exists() && !base.join("fetched/1900065535").exists());
        let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
        assert!(!mounts.contains(&format!("{}/1900065535", base.display())), "its file system is unmounted");
    }
    std::fs::remove_dir_all(&live).unwrap();
}

/// The mutation audit (`tasks audit`) on desktop tasks: right variants pass (a typo erased
/// with Backspace before Enter, in a terminal and in a cell), wrong ones fail (the task done then reported failed, an infeasible
/// task answered "done").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: real X server and applications"]
async fn the_audit_finds_no_false_verdicts_on_desktop_tasks() {
    let Some(provider) = provider() else { return };
    let mut env = provider.create().await.expect("an instance starts");
    let mut report = guigym_rollout::audit::AuditReport::default();
    for id in ["infeasible.system/0", "files.rename/0", "calc.fill_cell/0", "media.play_song/0"] {
        let task = catalogue::find_task(id).unwrap();
        guigym_rollout::audit::audit_task(env.as_mut(), &task, &catalogue::DESKTOP, guigym_core::Platform::Desktop, &mut report)
            .await
            .expect("no infrastructure failure");
    }
    assert!(report.overall.mutants >= 10 && report.overall.alternatives >= 5, "{:?}", report.overall);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
}

/// What an episode changed on the X server (`xhost +`, which would let other instances in, the
/// screen saver, resources, the pointer and keyboard maps) does not reach the next: the reset
/// starts a new one.
#[test]
#[ignore = "full tier: real X server and applications"]
fn a_reset_puts_back_what_an_episode_changed_on_the_x_server() {
    use guigym_desktop::instance::Instance;
    use std::time::Duration;
    let Some(mut instance) = blank_instance() else { return };
    let look = "xhost; xset q | grep -A1 -i 'screen saver'; xrdb -query; xmodmap -pp | head -6; xmodmap -pk | grep '^ *38 '".to_string();
    let run = |i: &mut Instance, command: &str| i.session.run(&[command.to_string()], true, Duration::from_secs(10)).unwrap().stdout;
    reset_blank(&mut instance);
    let fresh = run(&mut instance, &look);
    let change = "xhost + >/dev/null; xset s 1 1; echo 'XTerm*background: red' | xrdb -merge; xmodmap -e 'pointer = 3 2 1'; xmodmap -e 'keycode 38 = q'";
    run(&mut instance, change);
    let changed = run(&mut instance, &look);
    assert_ne!(changed, fresh, "the episode changed the server");
    assert!(changed.contains("access control disabled") && changed.contains("red"), "{changed}");
    reset_blank(&mut instance);
    assert_eq!(run(&mut instance, &look), fresh, "the reset put it back");
}

/// Any X client may close another's connection (`XKillClient`), guigym's own too: the instance
/// connects anew, and the episode goes on.
#[test]
#[ignore = "full tier: real X server and applications"]
fn a_closed_display_connection_is_opened_again() {
    use std::time::Duration;
    let Some(mut instance) = blank_instance() else { return };
    let ours = format!("xkill -id {:#x}", instance.display.resource_base());
    let out = instance.session.run(&[ours], true, Duration::from_secs(10)).unwrap();
    assert_eq!(out.status, Some(0), "{out:?}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(!instance.display.answers(), "the connection was closed");
    instance.check_health().expect("no infrastructure failure");
    assert!(instance.display.answers());
    assert!(instance.display.capture_rgb().is_ok());
}

/// A client cannot make the X server take the machine's memory (pixmaps without end): the server
/// answers BadAlloc past its bound, and goes on.
#[test]
#[ignore = "full tier: real X server and applications"]
fn the_x_server_memory_is_bounded() {
    use guigym_desktop::session::Session;
    use std::time::Duration;
    if !python_testable() {
        return;
    }
    let mut s = Session::start(640, 480).expect("a display starts");
    // A 32767×32767 pixmap: 4 GiB, past the bound (made lazily, it would cost nothing without one).
    let flood = r#"
import ctypes
x = ctypes.CDLL("libX11.so.6")
x.XOpenDisplay.restype = ctypes.c_void_p
x.XDefaultRootWindow.restype = ctypes.c_ulong
x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
x.XCreatePixmap.restype = ctypes.c_ulong
x.XCreatePixmap.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint]
x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
d = x.XOpenDisplay(None)
x.XCreatePixmap(d, x.XDefaultRootWindow(d), 32767, 32767, 24)
x.XSync(d, 0)
print("made")
"#;
    let out = s.run(&["python3".to_string(), "-c".into(), flood.into()], false, Duration::from_secs(30)).unwrap();
    assert!(!out.stdout.contains("made") && out.stderr.contains("BadAlloc"), "{out:?}");
    assert!(s.display_alive());
    let out = s.run(&["xdpyinfo >/dev/null && echo answers".to_string()], true, Duration::from_secs(10)).unwrap();
    assert_eq!(out.stdout, "answers\n", "{out:?}");
}

/// A launched program that ends without opening a window (`pkill` in OSWorld's post-config
/// steps, a browser handing a URL to its running self) is waited for until it ends, not for a
/// window that never comes; a program the desktop's stand-ins play (google-chrome) is on the
/// instance's PATH; the instance's own loopback is reached from outside through its helper.
#[test]
#[ignore = "full tier: real X server and applications"]
fn launches_without_a_window_end_and_stand_ins_and_the_loopback_are_there() {
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};
    let Some(mut instance) = blank_instance() else { return };
    let started = Instant::now();
    instance.launch(&["true".to_string()], false).expect("a program that ends is no failure");
    assert!(started.elapsed() < Duration::from_secs(10), "waited {:?} for a window that never comes", started.elapsed());
    let out = instance.session.run(&["command -v google-chrome".to_string()], true, Duration::from_secs(10)).unwrap();
    assert!(out.stdout.trim().ends_with("/bin/google-chrome"), "{out:?}");
    assert_eq!(guigym_desktop::session::stand_in("google-chrome"), Some("chromium"));
    assert_eq!(guigym_desktop::session::stand_in("nautilus"), Some("pcmanfm"));
    // A server on the instance's loopback, out of the machine's reach, answers through the helper.
    instance.session.launch(&["socat".to_string(), "tcp-listen:9555,reuseaddr".to_string(), "exec:echo inside".to_string()], false).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(std::net::TcpStream::connect(("127.0.0.1", 9555)).is_err(), "the instance's port is not the machine's");
    let Some(mut helper) = instance.session.loopback(9555).unwrap() else { return };
    let mut child = helper.spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"").unwrap();
    let mut answer = String::new();
    child.stdout.take().unwrap().read_to_string(&mut answer).unwrap();
    let _ = child.wait();
    assert_eq!(answer, "inside\n");
}
