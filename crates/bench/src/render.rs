//! `guigym bench render`: how alike the phone's two renderers draw the same screen — the native
//! raster of the `sim` backend and the HTML of the `web` backend in Chromium — as the structural
//! similarity (SSIM) of their screenshots of the same device state, per app's main screen, the
//! home screen and a few screens deeper in, in worlds of every theme and display zoom the smoke suite has. A policy
//! trained on one renderer meets the other's pictures: this is the distance between them, in
//! the measure image quality work uses.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context};
use guigym_core::{Action, Env, ObserveOptions, Screen, TaskSpec};
use guigym_phone::apps::APPS;
use guigym_sim::SimEnv;
use guigym_web::WebProvider;
use serde::Serialize;

pub struct Settings {
    /// Where to write each screen's two screenshots (`<world>-<screen>.native.png`,
    /// `<world>-<screen>.chromium.png`, worlds numbered from 0).
    pub out: Option<PathBuf>,
    /// Where to write the first world's screens for the documentation: `<screen>.png`, native
    /// left and Chromium right at a third of their size, and a README.md listing them.
    pub docs: Option<PathBuf>,
}

/// The documentation's pictures are a third of the screen's size.
const DOCS_SHRINK: u32 = 3;

#[derive(Serialize)]
pub struct ScreenFigures {
    /// `home`, or the app whose main screen it is.
    pub screen: String,
    /// Mean over the worlds.
    pub ssim: f64,
    /// Share of pixels whose colour differs by more than 32 in some channel (mean over worlds).
    pub differing_pixels: f64,
}

#[derive(Serialize)]
pub struct WorldFigures {
    /// The task whose initial state is drawn.
    pub task: String,
    pub theme: usize,
    pub zoom_pct: u32,
    pub mean_ssim: f64,
}

#[derive(Serialize)]
pub struct RenderFigures {
    pub width: u32,
    pub height: u32,
    pub worlds: Vec<WorldFigures>,
    pub screens: Vec<ScreenFigures>,
    pub mean_ssim: f64,
}

impl crate::Figures for RenderFigures {
    fn text(&self) -> String {
        let mut out = format!("native raster against Chromium, {}x{}, {} worlds\n", self.width, self.height, self.worlds.len());
        for (i, w) in self.worlds.iter().enumerate() {
            out.push_str(&format!("  world {i}: {} (theme {}, zoom {}%): mean SSIM {:.3}\n", w.task, w.theme, w.zoom_pct, w.mean_ssim));
        }
        out.push_str(&format!("  {:<22} {:>7} {:>18}   (means over the worlds)\n", "screen", "SSIM", "pixels differing"));
        for s in &self.screens {
            out.push_str(&format!("  {:<22} {:>7.3} {:>17.1}%\n", s.screen, s.ssim, 100.0 * s.differing_pixels));
        }
        out.push_str(&format!("  {:<22} {:>7.3}\n", "mean", self.mean_ssim));
        out
    }
}

/// One move towards a screen: open an app, tap an element, or tap the first element whose id
/// starts so (the first conversation, product, place of whatever world it is).
enum Move {
    Open(&'static str),
    Tap(&'static str),
    TapFirst(&'static str),
}

/// The screens compared: the home screen, every app's main screen, then screens deeper in
/// (a conversation, a product, a song, a place and the route to it), each reached from the
/// task's initial state.
fn screens() -> Vec<(String, Vec<Move>)> {
    let deeper = [
        ("Messages-conversation", vec![Move::Open("Messages"), Move::TapFirst("thread:")]),
        ("Shop-product", vec![Move::Open("Shop"), Move::TapFirst("product:")]),
        ("Music-song", vec![Move::Open("Music"), Move::TapFirst("song:")]),
        ("Maps-place", vec![Move::Open("Maps"), Move::TapFirst("place:")]),
        ("Maps-route", vec![Move::Open("Maps"), Move::TapFirst("place:"), Move::Tap("directions")]),
    ];
    std::iter::once(("home".to_string(), Vec::new()))
        .chain(APPS.iter().map(|a| (a.name.to_string(), vec![Move::Open(a.name)])))
        .chain(deeper.into_iter().map(|(name, moves)| (name.to_string(), moves)))
        .collect()
}

/// One action on both sides, which must both take it.
async fn play(native: &mut SimEnv, web: &mut impl Env, a: &Action) -> anyhow::Result<()> {
    for (side, outcome) in [("native", native.step(a).await?), ("Chromium", web.step(a).await?)] {
        if outcome.invalid {
            bail!("the {side} side refused {a:?}: {}", outcome.feedback);
        }
    }
    Ok(())
}

/// The action a move is on a screen.
fn action(m: &Move, on: &guigym_core::Observation) -> anyhow::Result<Action> {
    Ok(match m {
        Move::Open(app) => Action::OpenApp { name: app.to_string() },
        Move::Tap(id) => Action::click_element(*id),
        Move::TapFirst(prefix) => Action::click_element(
            on.ui_tree.iter().find(|n| n.id.starts_with(prefix)).ok_or_else(|| anyhow!("no element whose id starts with {prefix}"))?.id.clone(),
        ),
    })
}

/// One smoke task per look the smoke suite's worlds have (theme and zoom), in suite order.
fn worlds(screen: Screen) -> anyhow::Result<Vec<(TaskSpec, usize, u32)>> {
    let suite = guigym_benchmark_phone::suite("smoke").ok_or_else(|| anyhow!("the smoke suite is missing"))?;
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for task in suite {
        let mut sim = SimEnv::new(screen, guigym_benchmark_phone::hosted());
        sim.reset_sync(&task)?;
        let look = &sim.state().ok_or_else(|| anyhow!("{}: no state after reset", task.id))?.ui.look;
        let (theme, zoom) = (look.theme, look.zoom_pct);
        if seen.insert((theme, zoom)) {
            out.push((task, theme, zoom));
        }
    }
    Ok(out)
}

pub async fn run(s: &Settings) -> anyhow::Result<RenderFigures> {
    if guigym_web::find_chromium().is_none() {
        bail!("bench render needs Chromium: run ./scripts/setup.sh");
    }
    let screen = Screen::PHONE;
    let provider = WebProvider::new(screen, guigym_benchmark_phone::hosted(), guigym_benchmark_miniwob::hosted());
    let mut web = provider.create_web().await?;
    let mut native = SimEnv::new(screen, guigym_benchmark_phone::hosted());
    for dir in s.out.iter().chain(&s.docs) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut docs = String::new();
    let screens = screens();
    let (mut ssims, mut diffs) = (vec![0.0; screens.len()], vec![0.0; screens.len()]);
    let mut worlds_drawn = Vec::new();
    for (w, (task, theme, zoom_pct)) in worlds(screen)?.into_iter().enumerate() {
        let mut world_ssim = 0.0;
        for (k, (name, moves)) in screens.iter().enumerate() {
            native.reset(&task).await?;
            web.reset(&task).await?;
            for (i, m) in moves.iter().enumerate() {
                // Both sides take the move as the native phone reads its screen; a world's pop-up
                // is dismissed on the way to a screen past the app's first.
                let context = || format!("{}, {name}", task.id);
                if i > 0 && native.observe(ObserveOptions::default()).await?.node("popup_dismiss").is_some() {
                    play(&mut native, &mut web, &Action::click_element("popup_dismiss")).await.with_context(context)?;
                }
                let a = action(m, &native.observe(ObserveOptions::default()).await?).with_context(context)?;
                play(&mut native, &mut web, &a).await.with_context(context)?;
            }
            let shot = |o: guigym_core::Observation| o.screenshot.ok_or_else(|| anyhow!("{name}: no screenshot"));
            let a = shot(native.observe(ObserveOptions { screenshot: true }).await?)?;
            let b = shot(web.observe(ObserveOptions { screenshot: true }).await?)?;
            let (wa, ha, pa) = a.to_rgba().map_err(|e| anyhow!("{name}: native screenshot: {e}"))?;
            let (wb, hb, pb) = b.to_rgba().map_err(|e| anyhow!("{name}: Chromium screenshot: {e}"))?;
            if (wa, ha) != (wb, hb) {
                bail!("{name}: the native screenshot is {wa}x{ha}, Chromium's {wb}x{hb}");
            }
            if let Some(dir) = &s.out {
                std::fs::write(dir.join(format!("{w}-{name}.native.png")), a.png())?;
                std::fs::write(dir.join(format!("{w}-{name}.chromium.png")), b.png())?;
            }
            let ssim = ssim(wa, ha, &pa, &pb);
            if let (Some(dir), 0) = (&s.docs, w) {
                let (width, height, pixels) = side_by_side(wa, ha, &pa, &pb, DOCS_SHRINK);
                let file = dir.join(format!("{name}.png"));
                std::fs::write(&file, guigym_core::screenshot::encode_png(width, height, &pixels)).with_context(|| format!("writing {}", file.display()))?;
                docs.push_str(&format!("| {name} | {ssim:.3} | ![{name}, native and in Chromium]({name}.png) |\n"));
            }
            world_ssim += ssim / screens.len() as f64;
            ssims[k] += ssim;
            diffs[k] += differing(&pa, &pb);
        }
        if let (Some(dir), 0) = (&s.docs, w) {
            let intro = format!(
                "# The phone, natively and in Chromium\n\nThe home screen, every app's main screen and a few deeper ones of one world (task `{}`, theme {theme}, zoom \
                 {zoom_pct}%): the `sim` backend's native raster on the left, the `web` backend's page in Chromium on the right, at a third \
                 of their {}x{} size. Written by `guigym bench render --docs docs/phone`; the test \
                 `bench_render_prints_the_similarity_of_both_renderers_per_app` fails when they no longer show the native look \
                 (`GUIGYM_UPDATE_DOCS=1` makes it write them). SSIM is this world's, on the full-size screenshots.\n\n| screen | SSIM | native, Chromium |\n|---|---|---|\n",
                task.id, screen.width, screen.height
            );
            std::fs::write(dir.join("README.md"), intro + &docs)?;
        }
        worlds_drawn.push(WorldFigures { task: task.id, theme, zoom_pct, mean_ssim: world_ssim });
    }
    web.release().await?;
    let n = worlds_drawn.len().max(1) as f64;
    let figures: Vec<ScreenFigures> =
        screens.into_iter().zip(ssims.iter().zip(&diffs)).map(|((screen, _), (s, d))| ScreenFigures { screen, ssim: s / n, differing_pixels: d / n }).collect();
    let mean_ssim = figures.iter().map(|f| f.ssim).sum::<f64>() / figures.len().max(1) as f64;
    Ok(RenderFigures { width: screen.width, height: screen.height, worlds: worlds_drawn, screens: figures, mean_ssim })
}

/// Two RGBA pictures of one size side by side, each shrunk `k` times (the mean of each k × k
/// block).
pub fn side_by_side(width: u32, height: u32, left: &[u8], right: &[u8], k: u32) -> (u32, u32, Vec<u8>) {
    let (w, h, k) = ((width / k) as usize, (height / k) as usize, k as usize);
    let stride = width as usize * 4;
    let mut out = vec![0u8; 2 * w * h * 4];
    for (half, pixels) in [left, right].into_iter().enumerate() {
        for y in 0..h {
            for x in 0..w {
                let mut sum = [0u32; 4];
                for dy in 0..k {
                    let row = (y * k + dy) * stride + x * k * 4;
                    for px in pixels[row..row + k * 4].chunks_exact(4) {
                        for c in 0..4 {
                            sum[c] += px[c] as u32;
                        }
                    }
                }
                let at = (y * 2 * w + half * w + x) * 4;
                for c in 0..4 {
                    out[at + c] = (sum[c] / (k * k) as u32) as u8;
                }
            }
        }
    }
    ((2 * w) as u32, h as u32, out)
}

/// Share of pixels that differ by more than 32 in some colour channel.
pub fn differing(a: &[u8], b: &[u8]) -> f64 {
    let n = (a.len() / 4).max(1);
    let off = a.chunks_exact(4).zip(b.chunks_exact(4)).filter(|(p, q)| (0..3).any(|c| p[c].abs_diff(q[c]) > 32)).count();
    off as f64 / n as f64
}

/// Mean structural similarity of two RGBA pictures of one size, on their luma (BT.601), over
/// 8×8 windows every 4 pixels (Wang et al. 2004, with the block windows of its first form and
/// its constants K1 = 0.01, K2 = 0.03): 1 for the same picture, near 0 for unrelated ones.
pub fn ssim(width: u32, height: u32, a: &[u8], b: &[u8]) -> f64 {
    const WINDOW: usize = 8;
    const STRIDE: usize = 4;
    let (w, h) = (width as usize, height as usize);
    if w < WINDOW || h < WINDOW || a.len() < w * h * 4 || b.len() < w * h * 4 {
        return if a == b { 1.0 } else { 0.0 };
    }
    let luma = |p: &[u8]| -> Vec<f64> { p.chunks_exact(4).take(w * h).map(|c| 0.299 * c[0] as f64 + 0.587 * c[1] as f64 + 0.114 * c[2] as f64).collect() };
    let (x, y) = (luma(a), luma(b));
    // Summed-area tables of x, y, x², y² and xy: each window's sums in four lookups.
    let table = |f: &dyn Fn(usize) -> f64| -> Vec<f64> {
        let mut t = vec![0.0; (w + 1) * (h + 1)];
        for row in 0..h {
            let mut run = 0.0;
            for col in 0..w {
                run += f(row * w + col);
                t[(row + 1) * (w + 1) + col + 1] = t[row * (w + 1) + col + 1] + run;
            }
        }
        t
    };
    let (sx, sy) = (table(&|i| x[i]), table(&|i| y[i]));
    let (sxx, syy, sxy) = (table(&|i| x[i] * x[i]), table(&|i| y[i] * y[i]), table(&|i| x[i] * y[i]));
    let sum = |t: &[f64], r: usize, c: usize| {
        t[(r + WINDOW) * (w + 1) + c + WINDOW] - t[r * (w + 1) + c + WINDOW] - t[(r + WINDOW) * (w + 1) + c] + t[r * (w + 1) + c]
    };
    let (c1, c2) = ((0.01f64 * 255.0).powi(2), (0.03f64 * 255.0).powi(2));
    let n = (WINDOW * WINDOW) as f64;
    let (mut total, mut windows) = (0.0, 0usize);
    for r in (0..=h - WINDOW).step_by(STRIDE) {
        for c in (0..=w - WINDOW).step_by(STRIDE) {
            let (mx, my) = (sum(&sx, r, c) / n, sum(&sy, r, c) / n);
            let vx = (sum(&sxx, r, c) / n - mx * mx).max(0.0);
            let vy = (sum(&syy, r, c) / n - my * my).max(0.0);
            let cov = sum(&sxy, r, c) / n - mx * my;
            total += ((2.0 * mx * my + c1) * (2.0 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2));
            windows += 1;
        }
    }
    total / windows.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture of stripes and a gradient, `shift` pixels to the right.
    fn picture(w: u32, h: u32, shift: u32) -> Vec<u8> {
        let mut p = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h {
            for x in 0..w {
                let v = if ((x + w - shift) / 6).is_multiple_of(2) { 230 } else { (20 + y % 200) as u8 };
                p.extend_from_slice(&[v, v / 2, 255 - v, 255]);
            }
        }
        p
    }

    #[test]
    fn side_by_side_shrinks_each_picture_into_its_half() {
        let (left, right) = (vec![200u8; 6 * 3 * 4], picture(6, 3, 0));
        let (w, h, out) = side_by_side(6, 3, &left, &right, 3);
        assert_eq!((w, h, out.len()), (4, 1, 16));
        assert_eq!(&out[..8], &[200; 8], "the left half is the left picture");
        let right_ref = &right;
        let block = |x0: usize| (0..3).flat_map(|y| (x0..x0 + 3).map(move |x| right_ref[(y * 6 + x) * 4] as u32)).sum::<u32>() / 9;
        assert_eq!((out[8] as u32, out[12] as u32), (block(0), block(3)), "each pixel the mean of its block");
    }

    #[test]
    fn ssim_is_one_for_the_same_picture_and_falls_with_difference() {
        let (w, h) = (64, 48);
        let a = picture(w, h, 0);
        assert!((ssim(w, h, &a, &a) - 1.0).abs() < 1e-9);
        assert_eq!(differing(&a, &a), 0.0);
        let shifted = ssim(w, h, &a, &picture(w, h, 3));
        let inverted: Vec<u8> = a.iter().enumerate().map(|(i, v)| if i % 4 == 3 { *v } else { 255 - v }).collect();
        let far = ssim(w, h, &a, &inverted);
        assert!(shifted < 0.9 && shifted > far, "shifted {shifted}, inverted {far}");
        assert!(far < 0.0, "an inverted picture is anti-correlated: {far}");
        assert!(differing(&a, &inverted) > 0.5);
        // A flat picture against itself, and against a slightly brighter one, stays near 1.
        let flat = vec![128u8; (w * h * 4) as usize];
        let brighter = vec![131u8; (w * h * 4) as usize];
        assert!(ssim(w, h, &flat, &brighter) > 0.99);
    }
}
