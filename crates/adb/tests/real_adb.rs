//! The simulated phone served as an ADB device, driven by Debian's real `adb` (client and
//! server, a private server port and a fresh home so nothing is shared with the machine's):
//! connect, tap, type, back, a screenshot that decodes to the screen we render, a window dump
//! pulled and read, files pushed, unknown commands answered as a shell answers, and RSA
//! authentication that lets the right key in and keeps a wrong one out.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Arc;

use guigym_adb::auth::AuthKeys;
use guigym_adb::{EnvDevice, Identity};
use guigym_core::{Env, ObserveOptions, Screen};
use tokio::sync::Mutex;

/// A private adb server: its own port and home (its keys), killed at the end.
struct Adb {
    port: u16,
    home: PathBuf,
}

impl Adb {
    fn start(name: &str) -> Adb {
        let home = std::env::temp_dir().join(format!("guigym-adb-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).unwrap();
        let port = free_port();
        let adb = Adb { port, home };
        let out = adb.run(&["start-server"]);
        assert!(out.status.success(), "adb start-server: {}", String::from_utf8_lossy(&out.stderr));
        adb
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("adb")
            .arg("-P")
            .arg(self.port.to_string())
            .args(args)
            .env("HOME", &self.home)
            .env("ANDROID_SDK_HOME", &self.home)
            .env_remove("ADB_VENDOR_KEYS")
            .output()
            .expect("Debian's adb: run scripts/setup.sh")
    }

    /// `adb -s SERIAL ARGS`, which must succeed; its stdout.
    fn ok(&self, serial: &str, args: &[&str]) -> Vec<u8> {
        let out = self.run(&[&["-s", serial][..], args].concat());
        assert!(out.status.success(), "adb {args:?}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    fn public_key(&self) -> String {
        std::fs::read_to_string(self.home.join(".android/adbkey.pub")).unwrap()
    }
}

impl Drop for Adb {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A phone reset to the smoke suite's first task, served on a free port.
async fn phone(keys: Option<AuthKeys>) -> (String, Arc<Mutex<Box<dyn Env>>>) {
    let task = guigym_benchmark_phone::suite("smoke").unwrap().remove(0);
    let mut sim = guigym_sim::SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
    sim.reset_sync(&task).unwrap();
    let env: Arc<Mutex<Box<dyn Env>>> = Arc::new(Mutex::new(Box::new(sim)));
    let apps = guigym_phone::apps::APPS.iter().map(|a| a.name.to_string()).collect();
    let device = Arc::new(EnvDevice::new(env.clone(), apps, Identity::default()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let serial = format!("127.0.0.1:{}", listener.local_addr().unwrap().port());
    tokio::spawn(guigym_adb::serve(listener, device, keys.map(Arc::new)));
    (serial, env)
}

/// `adb connect`, waiting until the device is listed as `state`.
fn connect(adb: &Adb, serial: &str, state: &str) -> String {
    let out = adb.run(&["connect", serial]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let devices = String::from_utf8_lossy(&adb.run(&["devices"]).stdout).into_owned();
        if devices.lines().any(|l| l.starts_with(serial) && l.ends_with(state)) {
            return said;
        }
        assert!(std::time::Instant::now() < deadline, "{serial} never became {state}: {said} / {devices}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Debian's adb"]
async fn real_adb_drives_the_simulated_phone() {
    let adb = Adb::start("drive");
    let (serial, env) = phone(None).await;
    let s = serial.clone();
    let adb = tokio::task::spawn_blocking(move || {
        connect(&adb, &s, "device");
        adb
    })
    .await
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&adb.ok(&serial, &["shell", "getprop", "sys.boot_completed"])).trim(), "1");
    assert_eq!(String::from_utf8_lossy(&adb.ok(&serial, &["shell", "wm", "size"])).trim(), "Physical size: 1080x2400");

    // A screenshot decodes to the screen we render.
    let png = adb.ok(&serial, &["exec-out", "screencap", "-p"]);
    let ours = env.lock().await.observe(ObserveOptions { screenshot: true }).await.unwrap().screenshot.unwrap();
    assert_eq!(decode(&png), decode(ours.png()), "adb's screenshot is the screen we render");

    // Tap the Contacts icon: the focused app changes.
    let home = env.lock().await.observe(ObserveOptions::default()).await.unwrap();
    let icon = home.node("app:Contacts").unwrap();
    let (x, y) = icon.bounds.center();
    adb.ok(&serial, &["shell", "input", "tap", &format!("{x}"), &format!("{y}")]);
    let focus = String::from_utf8_lossy(&adb.ok(&serial, &["shell", "dumpsys window | grep mCurrentFocus"])).into_owned();
    assert!(focus.contains("com.guigym.contacts/"), "{focus}");
    assert_eq!(env.lock().await.observe(ObserveOptions::default()).await.unwrap().app.as_deref(), Some("Contacts"));

    // The window dump, pulled, holds the screen's elements with their bounds.
    let said = String::from_utf8_lossy(&adb.ok(&serial, &["shell", "uiautomator", "dump"])).into_owned();
    assert!(said.contains("UI hierchary dumped to: /sdcard/window_dump.xml"), "{said}");
    let local = adb.home.join("window_dump.xml");
    adb.ok(&serial, &["pull", "/sdcard/window_dump.xml", local.to_str().unwrap()]);
    assert!(local.exists());
    let xml = std::fs::read_to_string(&local).unwrap();
    let now = env.lock().await.observe(ObserveOptions::default()).await.unwrap();
    assert_eq!(xml.matches("<node ").count(), now.ui_tree.len(), "one node per element");
    let search = now.node("search").unwrap();
    let b = &search.bounds;
    assert!(xml.contains("resource-id=\"com.guigym.contacts:id/search\""), "{xml}");
    assert!(xml.contains(&format!("bounds=\"[{},{}][{},{}]\"", b.x, b.y, b.x + b.w, b.y + b.h)), "{xml}");

    // Type into the search field, then back out of the app.
    let (x, y) = search.bounds.center();
    adb.ok(&serial, &["shell", "input", "tap", &format!("{x}"), &format!("{y}")]);
    adb.ok(&serial, &["shell", "input", "text", "Ann%sLee"]);
    let typed = env.lock().await.observe(ObserveOptions::default()).await.unwrap();
    assert_eq!(typed.node("search").unwrap().text, "Ann Lee");
    adb.ok(&serial, &["shell", "input", "keyevent", "KEYCODE_HOME"]);
    assert_eq!(env.lock().await.observe(ObserveOptions::default()).await.unwrap().app, None);
    adb.ok(&serial, &["shell", "monkey", "-p", "com.guigym.contacts", "1"]);
    assert_eq!(env.lock().await.observe(ObserveOptions::default()).await.unwrap().app.as_deref(), Some("Contacts"));
    adb.ok(&serial, &["shell", "input", "keyevent", "4"]);

    // Packages, files pushed and read back, and a command the device lacks.
    let packages = String::from_utf8_lossy(&adb.ok(&serial, &["shell", "pm", "list", "packages"])).into_owned();
    assert!(packages.contains("package:com.guigym.contacts\n") && packages.contains("package:com.guigym.mail\n"), "{packages}");
    let pushed = adb.home.join("note.txt");
    std::fs::write(&pushed, "hello from the host\n").unwrap();
    adb.ok(&serial, &["push", pushed.to_str().unwrap(), "/sdcard/note.txt"]);
    assert_eq!(adb.ok(&serial, &["shell", "cat", "/sdcard/note.txt"]), b"hello from the host\n");
    let missing = adb.run(&["-s", &serial, "shell", "su", "-c", "id"]);
    assert_eq!(missing.status.code(), Some(127), "{missing:?}");
    assert!(String::from_utf8_lossy(&missing.stderr).contains("not found"), "{missing:?}");
    let grep_none = adb.run(&["-s", &serial, "shell", "pm list packages | grep nothing-like-this"]);
    assert_eq!(grep_none.status.code(), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Debian's adb"]
async fn only_a_known_key_is_let_in() {
    let adb = Adb::start("auth");
    // The server made its key when it started; the device trusts only that one.
    let keys = AuthKeys::parse(&adb.public_key()).unwrap();
    let (serial, _) = phone(Some(keys)).await;
    let s = serial.clone();
    let adb = tokio::task::spawn_blocking(move || {
        connect(&adb, &s, "device");
        assert_eq!(String::from_utf8_lossy(&adb.ok(&s, &["shell", "echo", "in"])).trim(), "in");
        adb
    })
    .await
    .unwrap();
    drop(adb);

    // Another host, with a key of its own, is kept out.
    let stranger = Adb::start("stranger");
    let keys = AuthKeys::parse(&Adb::start("owner").public_key()).unwrap();
    let (serial, _) = phone(Some(keys)).await;
    tokio::task::spawn_blocking(move || {
        connect(&stranger, &serial, "unauthorized");
        let refused = stranger.run(&["-s", &serial, "shell", "echo", "in"]);
        assert!(!refused.status.success(), "{refused:?}");
    })
    .await
    .unwrap();
}

fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(png_bytes);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// A link straight to the device's transport, with `key`.
fn direct(serial: &str, key: rsa::RsaPrivateKey) -> guigym_adb::client::DirectLink {
    guigym_adb::client::DirectLink::new(serial, Arc::new(key), std::time::Duration::from_secs(4))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_direct_link_runs_commands_and_moves_files_without_a_server() {
    use guigym_adb::Link;
    let key = guigym_adb::auth::generate_key().unwrap();
    let public = guigym_adb::auth::encode_public_key(&rsa::RsaPublicKey::from(&key)).unwrap();
    let (serial, env) = phone(Some(AuthKeys::parse(&public).unwrap())).await;
    let link = direct(&serial, key);

    let out = link.shell("echo hello && false").await.unwrap();
    assert_eq!((String::from_utf8_lossy(&out.stdout).as_ref(), out.exit), ("hello\n", 1));
    let missing = link.shell("frobnicate").await.unwrap();
    assert_eq!(missing.exit, 127);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("not found"));

    // A screenshot as the instance renders it, through the raw pipe.
    let png = link.exec("screencap -p").await.unwrap();
    let ours = env.lock().await.observe(ObserveOptions { screenshot: true }).await.unwrap().screenshot.unwrap();
    assert_eq!(decode(&png), decode(ours.png()));

    // Files both ways, larger than one message and one sync piece.
    let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    link.push("/sdcard/big.bin", &bytes, 0o644).await.unwrap();
    assert_eq!(link.pull("/sdcard/big.bin").await.unwrap(), bytes);
    let stat = link.stat("/sdcard/big.bin").await.unwrap().expect("the pushed file is there");
    assert_eq!((stat.size, stat.mode & 0o777), (3_000_000, 0o644), "{stat:?}");
    assert_eq!(link.stat("/sdcard/none.bin").await.unwrap(), None);
    assert!(link.pull("/sdcard/none.bin").await.is_err());
    assert!(link.push("/system/x", b"no", 0o644).await.unwrap_err().to_string().contains("Read-only"));

    // Actions reach the instance: a tap on the first clickable element takes a step.
    let dumped = link.shell("uiautomator dump").await.unwrap();
    assert!(String::from_utf8_lossy(&dumped.stdout).contains("dumped to"));
    let xml = String::from_utf8(link.pull("/sdcard/window_dump.xml").await.unwrap()).unwrap();
    assert!(xml.contains("<hierarchy"));
    let before = env.lock().await.observe(ObserveOptions::default()).await.unwrap();
    let target = before.ui_tree.iter().find(|n| n.clickable).unwrap().bounds.center();
    assert_eq!(link.shell(&format!("input tap {} {}", target.0, target.1)).await.unwrap().exit, 0);
    assert_eq!(env.lock().await.observe(ObserveOptions::default()).await.unwrap().step, before.step + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_direct_link_with_an_unknown_key_is_refused_and_a_dead_device_is_an_error() {
    use guigym_adb::Link;
    let owner = guigym_adb::auth::generate_key().unwrap();
    let public = guigym_adb::auth::encode_public_key(&rsa::RsaPublicKey::from(&owner)).unwrap();
    let (serial, _) = phone(Some(AuthKeys::parse(&public).unwrap())).await;
    let refused = direct(&serial, guigym_adb::auth::generate_key().unwrap()).shell("echo in").await.unwrap_err();
    assert!(refused.to_string().contains("does not trust our key"), "{refused}");

    // A port that takes the connection and closes it: an error, not a hang.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closing = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for socket in listener.incoming() {
            drop(socket);
        }
    });
    assert!(direct(&closing, owner.clone()).shell("echo in").await.is_err());
    let nobody = format!("127.0.0.1:{}", free_port());
    assert!(direct(&nobody, owner).shell("echo in").await.is_err());
}

#[test]
fn a_host_key_is_made_once_and_kept() {
    let dir = std::env::temp_dir().join(format!("guigym-adbkey-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("adbkey");
    let made = guigym_adb::client::load_or_make_key(&path).unwrap();
    assert_eq!(guigym_adb::client::load_or_make_key(&path).unwrap(), made);
    let public = std::fs::read_to_string(dir.join("adbkey.pub")).unwrap();
    assert!(AuthKeys::parse(&public).is_ok(), "{public}");
    std::fs::write(dir.join("bad"), "not a key").unwrap();
    assert!(guigym_adb::client::load_or_make_key(&dir.join("bad")).unwrap_err().contains("bad"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "full tier: Debian's adb"]
async fn our_key_files_and_adbs_are_one_format() {
    use guigym_adb::Link;
    // adb's own key, as its server made it, lets our direct link in where adb is trusted.
    let adb = Adb::start("keys");
    let adbs_key = guigym_adb::client::load_or_make_key(&adb.home.join(".android/adbkey")).unwrap();
    let (serial, _) = phone(Some(AuthKeys::parse(&adb.public_key()).unwrap())).await;
    assert_eq!(String::from_utf8_lossy(&direct(&serial, adbs_key).shell("echo in").await.unwrap().stdout), "in\n");
    drop(adb);

    // A key we made, put where adb looks, is the one adb signs with.
    let home = std::env::temp_dir().join(format!("guigym-adb-ourkey-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    guigym_adb::client::load_or_make_key(&home.join(".android/adbkey")).unwrap();
    let ours = std::fs::read_to_string(home.join(".android/adbkey.pub")).unwrap();
    let (serial, _) = phone(Some(AuthKeys::parse(&ours).unwrap())).await;
    let adb = Adb { port: free_port(), home };
    assert!(adb.run(&["start-server"]).status.success());
    tokio::task::spawn_blocking(move || {
        connect(&adb, &serial, "device");
        assert_eq!(String::from_utf8_lossy(&adb.ok(&serial, &["shell", "echo", "in"])).trim(), "in");
    })
    .await
    .unwrap();
}
