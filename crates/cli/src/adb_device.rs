//! `guigym adb-device`: instances of any backend (the simulated phone by default) served as
//! Android devices over ADB's TCP transport, one port each, so that `adb connect` and the
//! agent frameworks built on it drive them unchanged; and a control API on loopback
//! (`guigym_serve::devices`) that resets each to a task and gives its verdict. With
//! `--console-port`, each device also answers as an emulator console, whose snapshots are
//! tasks: `avd snapshot save NAME` remembers the task the device is in, `load NAME` puts the
//! device back in that task's initial state (what a real emulator's snapshot of a clean
//! device gives).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context};
use clap::Args;
use guigym_adb::auth::AuthKeys;
use guigym_adb::{EnvDevice, Identity};
use guigym_core::{Env, Platform, TaskSpec};
use guigym_serve::devices::{Device, Devices};
use tokio::sync::Mutex;

use crate::commands::ScreenArgs;
use crate::registry::{self, Registry};

#[derive(Args)]
pub struct AdbDeviceArgs {
    /// Address the devices and the control API listen on
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The first device's ADB port; device N listens on PORT+N (0 picks free ports)
    #[arg(long, default_value_t = 5555)]
    port: u16,
    /// How many devices
    #[arg(long, default_value_t = 1)]
    devices: usize,
    /// Reset every device to this task [default: the suite's tasks in turn]
    #[arg(long)]
    task: Option<String>,
    /// The suite whose tasks the devices start in
    #[arg(long, default_value = "smoke")]
    suite: String,
    /// The backend whose instances are served
    #[arg(long, default_value = "sim", value_parser = registry::backend_names())]
    backend: String,
    /// Public keys the devices let in, one `adbkey.pub` line each (a host's ~/.android/adbkey.pub);
    /// without it any host connects, as to an emulator
    #[arg(long)]
    adb_keys: Option<PathBuf>,
    /// Port of the control API (0 picks a free one; its address is printed)
    #[arg(long, default_value_t = 0)]
    control_port: u16,
    /// Serve an emulator console for each device: device N's on PORT+N (0 picks free ports;
    /// each address is printed)
    #[arg(long)]
    console_port: Option<u16>,
    /// The token the consoles want (`auth TOKEN`) [default: none asked]
    #[arg(long, requires = "console_port")]
    console_token: Option<String>,
    #[command(flatten)]
    screen: ScreenArgs,
}

/// The largest `--adb-keys` file read.
const KEYS_MAX: u64 = 1 << 20;

pub async fn run(registry: &Registry, args: AdbDeviceArgs) -> anyhow::Result<ExitCode> {
    if !(1..=64).contains(&args.devices) {
        bail!("--devices must be within 1..=64");
    }
    let keys = match &args.adb_keys {
        Some(path) => {
            let bytes = guigym_core::read_at_most(path, KEYS_MAX)
                .with_context(|| format!("reading {}", path.display()))?
                .ok_or_else(|| anyhow!("{}: over {} KiB: not a file of adbkey.pub lines", path.display(), KEYS_MAX / 1024))?;
            let text = String::from_utf8(bytes).map_err(|_| anyhow!("{}: not UTF-8 text", path.display()))?;
            Some(Arc::new(AuthKeys::parse(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?))
        }
        None => None,
    };
    let backend = registry.backend(&args.backend)?;
    let tasks = match &args.task {
        Some(id) => vec![registry.find_task(id).ok_or_else(|| anyhow!("no task \"{id}\""))?],
        None => registry.suite_tasks(&args.suite)?,
    };
    if tasks.is_empty() {
        bail!("suite {} has no tasks", args.suite);
    }
    if let Some(t) = tasks.iter().find(|t| !backend.hosts(&t.benchmark)) {
        bail!("the {} backend does not host task {} (benchmark {})", backend.name, t.id, t.benchmark);
    }
    // The phone's apps are the packages a phone's device lists; other platforms list none.
    let apps: Vec<String> =
        if backend.platforms.contains(&Platform::Mobile) { guigym_phone::apps::APPS.iter().map(|a| a.name.to_string()).collect() } else { Vec::new() };
    if args.console_token.as_deref().is_some_and(|t| t.is_empty() || t.contains(|c: char| c.is_whitespace() || c.is_control())) {
        bail!("--console-token: printable characters without spaces (it travels as one word of a console line)");
    }
    let provider = registry.provider(backend.name, args.screen.screen(backend)?)?;
    // Every port is bound before the control API's address is printed (what scripts wait
    // for), so that a port taken fails the start, not a script that went on; the API answers
    // once every device is up.
    let control_listener = tokio::net::TcpListener::bind((args.host.as_str(), args.control_port)).await.context("binding the control API")?;
    let url = format!("http://{}", control_listener.local_addr()?);
    let port_of = |first: u16, n: usize, flag: &str| -> anyhow::Result<u16> {
        if first == 0 {
            return Ok(0);
        }
        u16::try_from(n).ok().and_then(|n| first.checked_add(n)).ok_or_else(|| anyhow!("{flag} + --devices is past 65535"))
    };
    let mut device_listeners = Vec::new();
    let mut console_listeners = Vec::new();
    for n in 0..args.devices {
        let port = port_of(args.port, n, "--port")?;
        device_listeners.push(tokio::net::TcpListener::bind((args.host.as_str(), port)).await.with_context(|| format!("binding {}:{port}", args.host))?);
        if let Some(first) = args.console_port {
            let port = port_of(first, n, "--console-port")?;
            console_listeners.push(tokio::net::TcpListener::bind((args.host.as_str(), port)).await.with_context(|| format!("binding {}:{port}", args.host))?);
        }
    }
    crate::serve::announce(&url);
    let mut served = Vec::new();
    for (n, listener) in device_listeners.into_iter().enumerate() {
        let task = &tasks[n % tasks.len()];
        let mut env = provider.create().await.map_err(|e| anyhow!("starting device {n}: {e}"))?;
        env.reset(task).await.map_err(|e| anyhow!("resetting device {n} to {}: {e}", task.id))?;
        let serial = listener.local_addr()?.to_string();
        let env: Arc<Mutex<Box<dyn Env>>> = Arc::new(Mutex::new(env));
        let identity = Identity { serial: serial.clone(), ..Identity::default() };
        let device = Arc::new(EnvDevice::new(env.clone(), apps.clone(), identity));
        let heard = device.heard();
        let on_reset: Arc<dyn Fn() + Send + Sync> = Arc::new({
            let device = device.clone();
            move || device.forget_files()
        });
        tokio::spawn(guigym_adb::serve(listener, device, keys.clone()));
        // Whoever started us may have read only the first line and closed the pipe.
        let _ = writeln!(std::io::stdout(), "adb device {serial} · task {}", task.id);
        served.push(Device { serial, env, task: Mutex::new(Some(task.clone())), heard: Some(heard), on_reset: Some(on_reset) });
    }
    let devices = Arc::new(Devices { devices: served, catalogue: registry.catalogue.clone() });
    for (n, listener) in console_listeners.into_iter().enumerate() {
        let _ = writeln!(std::io::stdout(), "console {} · device {n}", listener.local_addr()?);
        let console = Arc::new(SnapshotConsole { devices: devices.clone(), n, saved: Mutex::new(BTreeMap::new()) });
        tokio::spawn(guigym_adb::console::serve(listener, console, args.console_token.clone()));
    }
    let control = guigym_serve::devices::router(devices);
    let _ = writeln!(std::io::stdout(), "control {url}/v1/devices (reset: POST /v1/devices/N/reset {{\"task\": ID}}; verdict: GET /v1/devices/N/evaluate)");
    axum::serve(control_listener, control).with_graceful_shutdown(crate::serve::stop_requested()).await?;
    Ok(ExitCode::SUCCESS)
}

/// One device's emulator console. A snapshot is the task the device was in when it was saved;
/// loading it resets the device to that task.
struct SnapshotConsole {
    devices: Arc<Devices>,
    n: usize,
    saved: Mutex<BTreeMap<String, TaskSpec>>,
}

#[async_trait::async_trait]
impl guigym_adb::console::Console for SnapshotConsole {
    async fn command(&self, line: &str) -> Result<String, String> {
        let device = &self.devices.devices[self.n];
        if let Some(heard) = &device.heard {
            guigym_adb::env_device::hear(heard, &format!("console: {line}"));
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["avd", "snapshot", "list"] => {
                let saved = self.saved.lock().await;
                Ok(saved.iter().map(|(name, task)| format!("{name}  ({})", task.id)).collect::<Vec<_>>().join("\n"))
            }
            ["avd", "snapshot", "save", name] => {
                let task = device.task.lock().await.clone().ok_or("the device is in no task")?;
                let mut saved = self.saved.lock().await;
                if saved.len() >= 64 && !saved.contains_key(*name) {
                    return Err("64 snapshots are kept at most: delete one".into());
                }
                saved.insert(name.to_string(), task);
                Ok(String::new())
            }
            ["avd", "snapshot", "load", name] => {
                let task = self.saved.lock().await.get(*name).cloned().ok_or_else(|| format!("snapshot '{name}' does not exist"))?;
                device.reset(&task).await.map_err(|e| format!("loading snapshot '{name}': {e}"))?;
                Ok(String::new())
            }
            ["avd", "snapshot", "delete", name] => {
                self.saved.lock().await.remove(*name).map(|_| String::new()).ok_or_else(|| format!("snapshot '{name}' does not exist"))
            }
            _ => Err(format!("unknown command '{line}': this console knows avd snapshot list|save|load|delete")),
        }
    }
}
