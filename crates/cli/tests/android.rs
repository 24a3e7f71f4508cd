//! ADB both ways through Debian's real adb server: `guigym adb-device` serves simulated phones
//! as ADB devices, and the `android` backend plays the smoke suite on them through the adb
//! server (walkthroughs replayed by coordinates from the window dump), judged by the devices'
//! control API; a device killed mid-run is an infrastructure failure, re-run elsewhere.
//! Devices set in a config file: every reset step (emulator snapshot, pm clear, a host
//! command, a device shell command) runs before each task and the device is made ready
//! (booted, awake, unlocked); the direct route plays with no adb server; an env spec names one
//! device through the manager; text beyond ASCII goes through ADB Keyboard.

#![allow(clippy::unwrap_used)]

mod common;

use std::process::Output;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{device_serials as serials, free_port, guigym, http, temp, AdbServer, Served};
use guigym_core::{Action, EnvError, EnvProvider, ObserveOptions};

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

/// An eval of the phone's smoke suite on the devices a config file sets.
fn eval_with_config(config: &Path, store: &Path, limit: usize) -> (Output, serde_json::Value) {
    let out = guigym()
        .args(["eval", "--backend", "android", "--json", "--suite", "smoke", "--parallel", "1", "--store", store.to_str().unwrap()])
        .args(["--limit", &limit.to_string()])
        .env("GUIGYM_ANDROID_CONFIG", config)
        .env_remove("GUIGYM_ANDROID_DEVICES")
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out, report)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// What a device of `guigym adb-device` was sent, oldest first.
fn heard(control: &str, n: usize) -> Vec<String> {
    let (code, v) = http("GET", &format!("{control}/v1/devices/{n}/heard"), None, None);
    assert_eq!(code, 200, "{v}");
    v["heard"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect()
}

/// Whether `wanted` were heard in this order (others between them).
fn in_order(heard: &[String], wanted: &[&str]) -> bool {
    let mut rest = heard.iter();
    wanted.iter().all(|w| rest.any(|h| h == w))
}

fn console(addr: &str, line: &str) -> Result<String, String> {
    runtime().block_on(guigym_adb::console::send(addr, Some("sesame"), line, Duration::from_secs(10)))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

fn apps() -> Vec<String> {
    guigym_phone::apps::APPS.iter().map(|a| a.name.to_string()).collect()
}

#[test]
#[ignore = "full tier: Debian's adb"]
fn every_reset_step_runs_before_each_task_and_the_device_is_made_ready() {
    let server = AdbServer::start("reset-steps");
    let console_port = free_port();
    let devices = Served::start(&["adb-device", "--port", "0", "--console-port", &console_port.to_string(), "--console-token", "sesame"]);
    let serial = serials(&devices.url).remove(0);
    let console_addr = format!("127.0.0.1:{console_port}");
    assert!(console(&console_addr, "avd snapshot load clean").unwrap_err().contains("does not exist"));
    console(&console_addr, "avd snapshot save clean").unwrap();
    assert!(console(&console_addr, "avd snapshot list").unwrap().contains("clean"));
    assert!(runtime().block_on(guigym_adb::console::send(&console_addr, Some("wrong"), "avd snapshot list", Duration::from_secs(5))).is_err());

    // A snapshot, an app's data cleared, and the screen put to sleep and locked (as a device
    // left idle is): the readiness check must wake and unlock it, or no golden could tap.
    let dir = temp("android-reset-steps");
    let config = write(
        &dir,
        "devices.yaml",
        &format!(
            "adb_server: 127.0.0.1:{}\ndevices:\n  - serial: {serial}\n    control: {}\n    console: {console_addr}\n    console_token: sesame\n    reset:\n      - snapshot: clean\n      - pm_clear: [com.guigym.contacts]\n      - shell: input keyevent KEYCODE_POWER\n    ready: {{ timeout_s: 30 }}\n",
            server.port, devices.url
        ),
    );
    let (out, report) = eval_with_config(&config, &dir.join("store"), 3);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!((report["attempts"].as_u64(), report["success_rate"].as_f64()), (Some(3), Some(1.0)), "{report}");
    let said = heard(&devices.url, 0);
    let one_reset = [
        "console: avd snapshot load clean",
        "pm clear com.guigym.contacts",
        "input keyevent KEYCODE_POWER",
        "getprop sys.boot_completed",
        "input keyevent KEYCODE_WAKEUP",
        "wm dismiss-keyguard",
    ];
    let three: Vec<&str> = one_reset.iter().copied().cycle().take(3 * one_reset.len()).collect();
    assert!(in_order(&said, &three), "each task starts with the reset steps, then the device is woken and unlocked: {said:#?}");

    // A host command that reboots the device: readiness waits for the boot to complete and
    // takes the lock screen away.
    let config = write(
        &dir,
        "reboot.yaml",
        &format!(
            "adb_server: 127.0.0.1:{port}\ndevices:\n  - serial: {serial}\n    control: {}\n    reset:\n      - command: adb -P {port} -s \"$GUIGYM_ANDROID_SERIAL\" shell reboot\n    ready: {{ timeout_s: 30 }}\n",
            devices.url,
            port = server.port
        ),
    );
    let (out, report) = eval_with_config(&config, &dir.join("store"), 2);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!((report["attempts"].as_u64(), report["success_rate"].as_f64()), (Some(2), Some(1.0)), "{report}");
    let said = heard(&devices.url, 0);
    let after = &said[said.iter().rposition(|l| l == "reboot").expect("the command ran")..];
    assert!(after.iter().filter(|l| *l == "getprop sys.boot_completed").count() >= 2, "the boot was waited out: {after:#?}");
    assert!(in_order(after, &["reboot", "wm dismiss-keyguard"]), "{after:#?}");

    // A failing step is the infrastructure's failure, reported apart, never the agent's.
    let config = write(
        &dir,
        "broken.yaml",
        &format!("adb_server: 127.0.0.1:{}\ndevices:\n  - serial: {serial}\n    control: {}\n    reset:\n      - command: exit 3\n", server.port, devices.url),
    );
    let (_, report) = eval_with_config(&config, &dir.join("store"), 1);
    assert_eq!(report["success_rate"].as_f64().unwrap_or(0.0), 0.0, "{report}");
    assert!(report["infra_failures"].as_u64().unwrap_or(0) >= 1 || report["unscored"].as_u64().unwrap_or(0) >= 1, "{report}");
}

#[test]
#[ignore = "full tier: Debian's adb"]
fn a_device_without_a_judge_is_put_back_by_its_snapshot_and_types_beyond_ascii() {
    let server = AdbServer::start("snapshot");
    let console_port = free_port();
    let devices = Served::start(&["adb-device", "--port", "0", "--console-port", &console_port.to_string()]);
    let serial = serials(&devices.url).remove(0);
    let console_addr = format!("127.0.0.1:{console_port}");
    runtime().block_on(guigym_adb::console::send(&console_addr, None, "avd snapshot save clean", Duration::from_secs(10))).unwrap();
    let config = format!(
        "adb_server: 127.0.0.1:{}\ndevices:\n  - serial: {serial}\n    console: {console_addr}\n    reset: [ {{ snapshot: clean }} ]\n    screencap: raw\n",
        server.port
    );
    let dir = temp("android-snapshot");
    let config = guigym_android::AndroidConfig::load(&write(&dir, "devices.yml", &config)).unwrap();
    let task = guigym_benchmark_phone::suite("smoke").unwrap().remove(0);
    runtime().block_on(async {
        let provider = guigym_android::AndroidProvider::new(&config, apps()).unwrap();
        let mut env = provider.create().await.unwrap();
        let first = env.reset(&task).await.unwrap();
        assert_eq!(first.app, None, "the snapshot's task starts at home");
        // Screenshots as raw pixels, encoded here: the screen the device shows.
        let shot = env.observe(ObserveOptions { screenshot: true }).await.unwrap().screenshot.unwrap();
        let mut reader = png::Decoder::new(shot.png()).read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut pixels).unwrap();
        assert_eq!((reader.info().width, reader.info().height), (shot.width, shot.height));
        assert!(pixels.chunks(4).any(|p| p[..3] != pixels[..3]), "not a blank screen");

        // Some app with a text field: typed into beyond ASCII, through ADB Keyboard.
        let mut typed = false;
        for app in ["Contacts", "Messages", "Notes", "Browser", "Mail", "Files"] {
            env.step(&Action::OpenApp { name: app.into() }).await.unwrap();
            let obs = env.observe(ObserveOptions::default()).await.unwrap();
            let Some(field) = obs.ui_tree.iter().find(|n| n.editable) else { continue };
            // `%s` is ASCII that `input text` would turn into a space.
            for text in ["Zoë 日本", " 50%s"] {
                let outcome = env.step(&Action::Type { text: text.into(), element: Some(field.id.clone()), clear: false }).await.unwrap();
                assert!(!outcome.invalid, "{outcome:?}");
            }
            let obs = env.observe(ObserveOptions::default()).await.unwrap();
            assert!(obs.ui_tree.iter().any(|n| n.text.contains("Zoë 日本 50%s")), "the text arrived whole in {app}");
            typed = true;
            break;
        }
        assert!(typed, "no app with a text field");
        let said = heard(&devices.url, 0);
        assert!(said.iter().any(|l| l == "ime set com.android.adbkeyboard/.AdbIME"), "{said:#?}");
        assert!(said.iter().any(|l| l.contains("am broadcast -a ADB_INPUT_B64 --es msg ")), "{said:#?}");

        // Without a judge the episode keeps the answers, and a verdict is the task's error.
        let answered = env.step(&Action::Answer { text: "42".into() }).await.unwrap();
        assert!(!answered.invalid, "{answered:?}");
        assert!(matches!(env.evaluate().await, Err(EnvError::BadTask(m)) if m.contains("no judge")));

        // Files written on the device are gone with the episode: the next one starts clean.
        let pushed = dir.join("note.txt");
        std::fs::write(&pushed, "left behind").unwrap();
        let out = server.adb(&["-s", &serial, "push", pushed.to_str().unwrap(), "/sdcard/note.txt"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

        // The next task starts from the snapshot again: home, no app open.
        let again = env.reset(&task).await.unwrap();
        let out = server.adb(&["-s", &serial, "shell", "cat", "/sdcard/note.txt"]);
        assert!(!String::from_utf8_lossy(&out.stdout).contains("left behind"), "a pushed file outlived its episode");
        assert_eq!(again.app, None, "the snapshot put the device back");
        assert!(heard(&devices.url, 0).iter().filter(|l| *l == "console: avd snapshot load clean").count() >= 2);
    });
}

/// A devices file of `serials`, each reached directly, judged by `control`; no adb server
/// anywhere (port 9 answers nothing).
fn direct_config(dir: &Path, control: &str, serials: &[String]) -> PathBuf {
    let mut yaml = format!("adb_server: 127.0.0.1:9\nadb_key: {}\ndevices:\n", dir.join("adbkey").display());
    for serial in serials {
        yaml.push_str(&format!("  - serial: {serial}\n    route: direct\n    control: {control}\n"));
    }
    write(dir, "devices.yaml", &yaml)
}

#[test]
#[ignore = "full tier: Debian's adb"]
fn the_direct_route_plays_with_no_adb_server() {
    let devices = Served::start(&["adb-device", "--port", "0", "--devices", "2"]);
    let listed = serials(&devices.url);
    let dir = temp("android-direct");
    let config = direct_config(&dir, &devices.url, &listed);
    let (out, report) = eval_with_config(&config, &dir.join("store"), 4);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!((report["attempts"].as_u64(), report["success_rate"].as_f64()), (Some(4), Some(1.0)), "{report}");
    assert!(dir.join("adbkey").is_file() && dir.join("adbkey.pub").is_file(), "the host key was made and kept");
}

#[test]
#[ignore = "full tier: Debian's adb"]
fn an_env_spec_names_one_device_through_the_manager() {
    let devices = Served::start(&["adb-device", "--port", "0", "--devices", "2"]);
    let listed = serials(&devices.url);
    let dir = temp("android-spec");
    let config = direct_config(&dir, &devices.url, &listed);
    let serve = Served::start_with(&["serve", "--port", "0", "--token", "c"], &[("GUIGYM_ANDROID_CONFIG", config.to_str().unwrap())]);
    let task = guigym_benchmark_phone::suite("smoke").unwrap().remove(0);
    let spec = |device: &str| guigym_manager::EnvSpec { backend: "android".into(), device: Some(device.into()), ..guigym_manager::EnvSpec::sim() };
    let rt = runtime();
    let held = rt.block_on(async {
        let provider = guigym_manager::ManagerProvider::new(&serve.url, Some("c".into()), spec(&listed[1]), Duration::from_secs(60));
        let mut env = provider.create().await.unwrap();
        env.reset(&task).await.unwrap();
        env
    });
    let (_, now) = http("GET", &format!("{}/v1/devices", devices.url), None, None);
    assert_eq!(now["devices"][1]["task"], task.id.as_str(), "the named device got the task: {now}");

    // A device in use is capacity, not a failure: 503, to be asked again. So is one that
    // another process on this host holds (this test, through a provider of its own).
    let lease = |device: &str| {
        http("POST", &format!("{}/v1/leases", serve.url), Some("c"), Some(&serde_json::json!({"spec": {"backend": "android", "device": device}, "count": 1})))
    };
    let (code, v) = lease(&listed[1]);
    assert_eq!((code, v["error"]["code"].as_str()), (503, Some("no_capacity")), "{v}");
    let mine = guigym_android::AndroidProvider::new(&guigym_android::AndroidConfig::load(&config).unwrap(), apps()).unwrap().only(&listed[0]).unwrap();
    let mine = rt.block_on(mine.create()).unwrap();
    let (code, v) = lease(&listed[0]);
    assert_eq!((code, v["error"]["code"].as_str()), (503, Some("no_capacity")), "{v}");
    drop((mine, held));

    // A device the worker was not given is refused with a message, and reaches nothing.
    for asked in ["127.0.0.1:22", "evil.example:5555"] {
        let (code, v) = http(
            "POST",
            &format!("{}/v1/leases", serve.url),
            Some("c"),
            Some(&serde_json::json!({"spec": {"backend": "android", "device": asked}, "count": 1})),
        );
        assert!((400..500).contains(&code), "{asked}: {code} {v}");
        assert!(v.to_string().contains(asked), "the message names the device: {v}");
    }
    // Other backends have no devices to name.
    let (code, v) =
        http("POST", &format!("{}/v1/leases", serve.url), Some("c"), Some(&serde_json::json!({"spec": {"backend": "sim", "device": listed[0]}, "count": 1})));
    assert!((400..500).contains(&code), "{code} {v}");
}

#[test]
fn serve_stops_at_start_on_android_settings_that_cannot_work() {
    let dir = temp("android-bad-settings");
    for (name, text, says) in [
        ("nan.yaml", "timeout_s: .nan\ndevices:\n  - serial: emulator-5554\n", "timeout_s"),
        ("token.yaml", "devices:\n  - serial: emulator-5554\n    console_token: \"a\\r\\nkill\"\n", "console_token"),
    ] {
        let config = write(&dir, name, text);
        let out = guigym().args(["serve", "--port", "0"]).env("GUIGYM_ANDROID_CONFIG", &config).env_remove("GUIGYM_ANDROID_DEVICES").output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && said.contains(says) && said.contains(name), "{name}: {said}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("listening"), "it never listened");
    }
    // Both ways of listing devices at once: which one is meant is not guessed.
    let config = write(&dir, "ok.yaml", "devices:\n  - serial: emulator-5554\n");
    let out = guigym().args(["serve", "--port", "0"]).env("GUIGYM_ANDROID_CONFIG", &config).env("GUIGYM_ANDROID_DEVICES", "emulator-5556").output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("not both"), "{}", String::from_utf8_lossy(&out.stderr));
}
