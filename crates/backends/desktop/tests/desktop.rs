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
