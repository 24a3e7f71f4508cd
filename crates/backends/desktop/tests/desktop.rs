//! The desktop backend on a real X server (Xvfb, openbox, the applications): every family of
//! the catalogue validated 0 → golden 1 → reset 0 → walkthrough played through the GUI 1.

use guigym_core::{EnvProvider, ObserveOptions};
use guigym_desktop::{catalogue, DesktopProvider};

fn provider() -> Option<DesktopProvider> {
    if let Some(why) = guigym_desktop::missing() {
        eprintln!("skipping: {why}");
        return None;
    }
    Some(DesktopProvider::new(1280, 800))
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
    assert!(obs.screenshot.is_some_and(|s| s.png.starts_with(b"\x89PNG")));
    assert!(failures.is_empty(), "{failures:#?}");
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
    let display = Display::connect(&session.display_name).expect("the display connects");
    session.launch(&["xterm".to_string(), "-e".to_string(), "echo shared memory; sleep 30".to_string()], false).expect("xterm starts");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
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
