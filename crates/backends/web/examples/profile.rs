//! Times the pieces of one MiniWoB++ step in the web backend (tap, reward read, UI tree,
//! screenshot): `cargo run --release -p guigym-web --example profile`.

use std::time::Instant;

use guigym_benchmark_miniwob::{self as miniwob, MINIWOB};
use guigym_core::EnvProvider;
use guigym_web::{PageBenchmark, WebProvider};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let p = WebProvider::new(guigym_core::Screen::PHONE, guigym_benchmark_phone::hosted(), guigym_benchmark_miniwob::hosted());
    let browser = p.browser().await?;
    let mut env = p.create().await?;
    env.reset(&miniwob::task("click-button", 0)).await?;
    let page = browser.new_page(160, 210, 1.0, false, std::time::Duration::from_secs(30)).await?;
    page.navigate(&p.server().await?.page_url("miniwob", "miniwob/click-button.html")).await?;
    let time = |label: &str, t: Instant| println!("{label:<14} {:>7.2} ms", t.elapsed().as_secs_f64() * 1e3);
    for _ in 0..3 {
        let t = Instant::now();
        page.eval(&MINIWOB.reset_script(&miniwob::task("click-button", 3))).await?;
        time("reset script", t);
        let t = Instant::now();
        page.tap(80.0, 130.0, 1).await?;
        time("tap", t);
        let t = Instant::now();
        page.eval(&MINIWOB.reward_script()).await?;
        time("reward", t);
        let t = Instant::now();
        guigym_web::uitree::ui_tree(&page).await?;
        time("ui tree", t);
        let t = Instant::now();
        page.screenshot().await?;
        time("screenshot", t);
    }
    env.release().await?;
    Ok(())
}
