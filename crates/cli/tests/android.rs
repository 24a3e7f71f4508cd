//! ADB both ways through Debian's real adb server: `guigym adb-device` serves simulated phones
//! as ADB devices, and the `android` backend plays the smoke suite on them through the adb
//! server (walkthroughs replayed by coordinates from the window dump), judged by the devices'
//! control API; a device killed mid-run is an infrastructure failure, re-run elsewhere.

#![allow(clippy::unwrap_used)]

mod common;

use std::process::Output;

use common::{device_serials as serials, guigym, temp, AdbServer, Served};

/// An eval on the android backend over the devices of `control`, through `server`.
fn eval_android(server: &AdbServer, control: &str, serials: &[String], store: &std::path::Path, args: &[&str]) -> (Output, serde_json::Value) {
    let out = guigym()
        .args(["eval", "--backend", "android", "--json", "--store", store.to_str().unwrap()])
        .args(args)
        .env("GUIGYM_ANDROID_DEVICES", serials.join(","))
        .env("GUIGYM_ANDROID_CONTROL", control)
        .env("GUIGYM_ADB_SERVER", format!("127.0.0.1:{}", server.port))
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out, report)
}

#[test]
#[ignore = "full tier: Debian's adb"]
fn the_android_backend_plays_the_smoke_goldens_on_guigym_devices() {
    let server = AdbServer::start("goldens");
    let devices = Served::start(&["adb-device", "--port", "0", "--devices", "2"]);
    let serials = serials(&devices.url);
    assert_eq!(serials.len(), 2);
    let dir = temp("android-goldens");
    let (out, report) = eval_android(&server, &devices.url, &serials, &dir.join("store"), &["--suite", "smoke", "--limit", "12", "--parallel", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(report["backend"], "android");
    assert_eq!(report["attempts"], 12);
    assert_eq!(report["success_rate"], 1.0, "{report}");

    // A random policy, on the same devices, succeeds at chance at best.
    let (out, report) = eval_android(&server, &devices.url, &serials, &dir.join("store"), &["--suite", "smoke", "--limit", "6", "--policy", "random"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(report["attempts"], 6);
    assert!(report["success_rate"].as_f64().unwrap() < 0.5, "{report}");
}

#[test]
#[ignore = "full tier: Debian's adb"]
fn a_device_that_dies_mid_run_is_an_infrastructure_failure() {
    let server = AdbServer::start("dies");
    let mut doomed = Served::start(&["adb-device", "--port", "0"]);
    let survivor = Served::start(&["adb-device", "--port", "0"]);
    let doomed_serial = serials(&doomed.url).remove(0);
    let survivor_serial = serials(&survivor.url).remove(0);
    let _ = doomed.child.kill();
    let _ = doomed.child.wait();
    // Both devices are listed, the dead one first: it fails as it is connected, and the
    // attempt is run again on the survivor.
    let store = temp("android-dies").join("store");
    let out = guigym()
        .args(["eval", "--backend", "android", "--json", "--suite", "smoke", "--limit", "3", "--parallel", "1", "--store", store.to_str().unwrap()])
        .env("GUIGYM_ANDROID_DEVICES", format!("{doomed_serial},{survivor_serial}"))
        .env("GUIGYM_ANDROID_CONTROL", &survivor.url)
        .env("GUIGYM_ADB_SERVER", format!("127.0.0.1:{}", server.port))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(report["attempts"], 3, "{report}");
    assert_eq!(report["unscored"], 0, "{report}");
    assert!(report["infra_failures"].as_u64().unwrap() >= 1, "the dead device's failure is counted apart: {report}");
    assert_eq!(report["success_rate"], 1.0, "no failure is the agent's: {report}");
}
