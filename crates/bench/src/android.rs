//! The android backend against guigym's own ADB device, beside the same operations on the
//! simulated phone directly: reset, step (a tap), observe with the tree only and with a
//! screenshot. The device (a simulated phone served over ADB, with its control API) runs in
//! this process; Debian's adb server runs beside it on a private port and home, as a real
//! deployment's would, so every figure crosses the adb server twice (host protocol, then
//! the device transport). Two more sides: screenshots as raw pixels (`screencap`, encoded
//! here) instead of the device's PNG, and the direct route (no adb server). On this device
//! the raw side pays a PNG decode the device does to give raw pixels; a real device does not.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, Context};
use guigym_adb::{EnvDevice, Identity};
use guigym_android::{AndroidConfig, AndroidProvider, Route, Screencap};
use guigym_core::{Action, Env, EnvProvider, ObserveOptions, Screen};
use guigym_serve::devices::{Device, Devices};
use serde::Serialize;
use tokio::sync::Mutex;

use crate::percentile;

pub struct Settings {
    /// Timed repetitions of each operation.
    pub iterations: usize,
}

#[derive(Serialize)]
pub struct Side {
    pub backend: String,
    pub reset_p50_ms: f64,
    pub step_p50_ms: f64,
    pub observe_tree_p50_ms: f64,
    pub observe_screenshot_p50_ms: f64,
    pub screenshot_kib: f64,
}

#[derive(Serialize)]
pub struct AndroidFigures {
    pub iterations: usize,
    pub sides: Vec<Side>,
}

impl crate::Figures for AndroidFigures {
    fn text(&self) -> String {
        let mut out = format!(
            "{} iterations each; android = the android backend → Debian's adb server → guigym adb-device (sim); -raw: screencap's raw pixels, encoded here; -direct: no adb server\n",
            self.iterations
        );
        out += &format!("  {:<14} {:>10} {:>10} {:>12} {:>14} {:>10}\n", "backend", "reset", "step", "observe", "+screenshot", "PNG");
        for s in &self.sides {
            out += &format!(
                "  {:<14} {:>7.2} ms {:>7.2} ms {:>9.2} ms {:>11.2} ms {:>6.0} KiB\n",
                s.backend, s.reset_p50_ms, s.step_p50_ms, s.observe_tree_p50_ms, s.observe_screenshot_p50_ms, s.screenshot_kib
            );
        }
        out
    }
}

/// A private adb server, ended on drop.
struct AdbServer {
    port: u16,
    home: std::path::PathBuf,
}

impl AdbServer {
    fn start() -> anyhow::Result<AdbServer> {
        let home = std::env::temp_dir().join(format!("guigym-bench-adb-{}", std::process::id()));
        std::fs::create_dir_all(&home)?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let server = AdbServer { port, home };
        let out = server.adb(&["start-server"]).context("running adb: Debian's adb is needed (./scripts/setup.sh installs it)")?;
        if !out.status.success() {
            return Err(anyhow!("adb start-server: {}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(server)
    }

    fn adb(&self, args: &[&str]) -> std::io::Result<std::process::Output> {
        std::process::Command::new("adb").arg("-P").arg(self.port.to_string()).args(args).env("HOME", &self.home).output()
    }
}

impl Drop for AdbServer {
    fn drop(&mut self) {
        let _ = self.adb(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

fn first_task() -> anyhow::Result<guigym_core::TaskSpec> {
    guigym_benchmark_phone::suite("smoke").and_then(|s| s.into_iter().next()).ok_or_else(|| anyhow!("the smoke suite is missing"))
}

async fn time(f: impl std::future::Future<Output = anyhow::Result<()>>) -> anyhow::Result<f64> {
    let t = Instant::now();
    f.await?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// Reset, tap, observe on one instance, `n` times each.
async fn side(backend: &str, env: &mut dyn Env, n: usize) -> anyhow::Result<Side> {
    let task = first_task()?;
    let e = |e: guigym_core::EnvError| anyhow!("{backend}: {e}");
    let (mut resets, mut steps, mut trees, mut shots) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut png = 0;
    for _ in 0..n {
        resets.push(time(async { env.reset(&task).await.map(drop).map_err(e) }).await?);
        let home = env.observe(ObserveOptions::default()).await.map_err(e)?;
        let icon = home.node("app:Contacts").ok_or_else(|| anyhow!("{backend}: no Contacts icon"))?;
        let (x, y) = icon.bounds.center();
        steps.push(time(async { env.step(&Action::click_at(x.floor(), y.floor())).await.map(drop).map_err(e) }).await?);
        trees.push(time(async { env.observe(ObserveOptions::default()).await.map(drop).map_err(e) }).await?);
        let t = Instant::now();
        let obs = env.observe(ObserveOptions { screenshot: true }).await.map_err(e)?;
        shots.push(t.elapsed().as_secs_f64() * 1e3);
        png = obs.screenshot.map_or(0, |s| s.png().len());
    }
    Ok(Side {
        backend: backend.into(),
        reset_p50_ms: percentile(&mut resets, 50.0),
        step_p50_ms: percentile(&mut steps, 50.0),
        observe_tree_p50_ms: percentile(&mut trees, 50.0),
        observe_screenshot_p50_ms: percentile(&mut shots, 50.0),
        screenshot_kib: png as f64 / 1024.0,
    })
}

pub async fn run(s: &Settings) -> anyhow::Result<AndroidFigures> {
    let n = s.iterations.max(3);
    let phone = || guigym_sim::SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
    let apps: Vec<String> = guigym_phone::apps::APPS.iter().map(|a| a.name.to_string()).collect();

    // The device and its control API, in this process.
    // In a task from the start, as `guigym adb-device`'s devices are.
    let mut device: Box<dyn Env> = Box::new(phone());
    device.reset(&first_task()?).await.map_err(|e| anyhow!("the device: {e}"))?;
    let env: Arc<Mutex<Box<dyn Env>>> = Arc::new(Mutex::new(device));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let serial = listener.local_addr()?.to_string();
    tokio::spawn(guigym_adb::serve(listener, Arc::new(EnvDevice::new(env.clone(), apps.clone(), Identity::default())), None));
    let catalogue = Arc::new(guigym_core::Catalogue::new(vec![&guigym_benchmark_phone::CATALOGUE], |_| Vec::new()));
    let control = guigym_serve::devices::router(Arc::new(Devices { devices: vec![Device::new(serial.clone(), env)], catalogue }));
    let control_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", control_listener.local_addr()?);
    tokio::spawn(async move { axum::serve(control_listener, control).await });

    let server = AdbServer::start()?;
    let mut config = AndroidConfig::from_serials(&serial, Some(url), Some(format!("127.0.0.1:{}", server.port)));
    let mut sides = Vec::new();
    // The same device three ways: through the adb server with the device's PNG, with its raw
    // pixels encoded here, then straight to its transport.
    for (name, route, screencap) in
        [("android", Route::Server, Screencap::Png), ("android-raw", Route::Server, Screencap::Raw), ("android-direct", Route::Direct, Screencap::Png)]
    {
        config.devices[0].route = route;
        config.devices[0].screencap = screencap;
        config.adb_key = Some(server.home.join("adbkey"));
        let provider = AndroidProvider::new(&config, apps.clone()).map_err(|e| anyhow!("android: {e}"))?;
        let mut android = provider.create().await.map_err(|e| anyhow!("{name}: {e}"))?;
        sides.push(side(name, android.as_mut(), n).await?);
    }
    let mut sim = phone();
    sides.push(side("sim", &mut sim, n).await?);
    Ok(AndroidFigures { iterations: n, sides })
}
