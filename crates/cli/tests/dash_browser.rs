//! The dashboard in real headless Chromium, driven through the project's own CDP client:
//! every page renders without a script error; a trajectory's marker sits at the action's
//! pixel on the page's own screenshot; the compare page shows the flips two runs have; a task
//! played by clicks on the page's screenshot is solved, stored as a `human` run, and exported
//! by `collect`. With `GUIGYM_DASH_SHOTS=DIR` each page's screenshot is written to DIR (how
//! `docs/dashboard/` was made).

#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::{temp, Served};
use guigym_core::action::Target;
use guigym_core::{Action, EnvProvider, ObserveOptions};
use guigym_web::browser::{Browser, Page};
use serde_json::Value;

/// Records the page's script errors (uncaught exceptions, rejected promises) from the start.
const ERRORS: &str = "window.__errors=[];addEventListener('error',e=>__errors.push(String(e.message)));\
                      addEventListener('unhandledrejection',e=>__errors.push(String(e.reason)));";

async fn settle(page: &Page) {
    for _ in 0..200 {
        if page.eval("document.readyState").await.unwrap_or(Value::Null) == "complete" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the page never finished loading");
}

/// Opens a page, checks it rendered without a script error and is not an error page, and
/// writes its screenshot to the shots folder when one is asked for.
async fn visit(page: &Page, url: &str, shot: &str) {
    page.navigate(url).await.unwrap();
    settle(page).await;
    // Images load after the document: wait for them, so screenshots and sizes are real.
    page.eval("Promise.all([...document.images].map(i=>i.complete?0:new Promise(r=>{i.onload=i.onerror=r})))").await.unwrap();
    check(page, url).await;
    if let Some(dir) = std::env::var_os("GUIGYM_DASH_SHOTS") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(std::path::Path::new(&dir).join(format!("{shot}.png")), page.screenshot().await.unwrap()).unwrap();
    }
}

async fn check(page: &Page, url: &str) {
    let errors = page.eval("JSON.stringify(window.__errors||[])").await.unwrap();
    assert_eq!(errors, "[]", "{url}: script errors");
    let title = page.eval("document.title").await.unwrap();
    assert!(!title.as_str().unwrap_or("").contains("error"), "{url}: {title}");
}

/// The colour of one pixel of a PNG.
fn pixel(png: &[u8], x: u32, y: u32) -> [u8; 3] {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let i = (y as usize * info.width as usize + x as usize) * channels;
    [buf[i], buf[i + 1], buf[i + 2]]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_works_in_a_real_browser() {
    let dir = temp("dash-browser");
    let store = common::dashboard_store(&dir);
    let dash = Served::start(&["dash", "--port", "0", "--store", store.to_str().unwrap()]);
    let base = format!("{}/dash", dash.url);

    let browser = Browser::launch(Duration::from_secs(30)).await.unwrap();
    let page = browser.new_page(1280, 1000, 1.0, false, std::time::Duration::from_secs(30)).await.unwrap();
    page.call("Page.addScriptToEvaluateOnNewDocument", serde_json::json!({ "source": ERRORS })).await.unwrap();

    visit(&page, &base, "runs").await;
    visit(&page, &format!("{base}/runs/2"), "run").await;
    visit(&page, &format!("{base}/train/tiny"), "training").await;
    assert!(page.eval("document.querySelectorAll('svg polyline').length").await.unwrap().as_u64().unwrap() > 0, "the rounds are plotted");

    // Compare: the golden run solved the four tasks, the random one none: four flips.
    visit(&page, &format!("{base}/compare?a=1&b=2"), "compare").await;
    let text = page.eval("document.body.innerText").await.unwrap();
    assert!(text.as_str().unwrap().contains("0 attempts flipped to success, 4 flipped to failure"), "{text}");
    let highlighted = page.eval("[...document.querySelectorAll('tr')].filter(r=>r.style.background).length").await.unwrap();
    assert_eq!(highlighted, 4, "the flipped rows are highlighted");

    // A trajectory: the first tap's marker is drawn where the tap landed.
    let run = page.eval("fetch('/dash/runs/1').then(r=>r.text())").await.unwrap();
    let attempt: String = run.as_str().unwrap().split("href=\"/dash/attempts/").nth(1).unwrap().split('"').next().unwrap().to_string();
    visit(&page, &format!("{base}/attempts/{attempt}"), "trajectory").await;
    let at = page
        .eval(
            "(()=>{for(const s of document.querySelectorAll('.step')){const a=JSON.parse(s.querySelector('code').textContent);\
             if(a.action==='click'&&a.at){s.scrollIntoView({block:'center'});const img=s.querySelector('.shot img');const r=img.getBoundingClientRect();\
             const k=r.width/img.naturalWidth;return [r.left+a.at[0]*k,r.top+a.at[1]*k];}}return null;})()",
        )
        .await
        .unwrap();
    let (x, y) = (at[0].as_f64().unwrap().round() as u32, at[1].as_f64().unwrap().round() as u32);
    let shot = page.screenshot().await.unwrap();
    let [r, g, b] = pixel(&shot, x, y);
    assert!(r > 180 && g < 90 && b < 90, "the marker's red at the tap's pixel ({x}, {y}), got ({r}, {g}, {b})");
    // ← → move between steps without a script error.
    page.call("Input.dispatchKeyEvent", serde_json::json!({"type": "keyDown", "key": "ArrowRight", "code": "ArrowRight", "windowsVirtualKeyCode": 39}))
        .await
        .unwrap();
    check(&page, "the trajectory after →").await;

    // Playing by hand: each step a click on the page's screenshot, at the pixel where the
    // walkthrough's element is on a phone of the same kind played alongside.
    visit(&page, &format!("{base}/play"), "play-pick").await;
    let task = guigym_benchmark_phone::find_task("contacts.delete/0").unwrap();
    let mut twin = guigym_sim::SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: guigym_benchmark_phone::hosted() }.create().await.unwrap();
    twin.reset(&task).await.unwrap();
    visit(&page, &format!("{base}/play/start?task=contacts.delete/0"), "play").await;
    for action in &task.walkthrough {
        let before = page.eval("document.body.innerText").await.unwrap();
        match action.target().unwrap() {
            Some(Target::Element(id)) => {
                let obs = twin.observe(ObserveOptions { screenshot: false }).await.unwrap();
                let node = obs.ui_tree.iter().find(|n| n.id == id).unwrap_or_else(|| panic!("{id} is on the twin's screen"));
                let (cx, cy) = (node.bounds.x as f64 + node.bounds.w as f64 / 2.0, node.bounds.y as f64 + node.bounds.h as f64 / 2.0);
                // The reloaded page's screenshot may still be loading.
                page.eval(
                    "new Promise(r=>{const i=document.getElementById('screen');if(i.complete&&i.naturalWidth)r(1);else i.addEventListener('load',()=>r(1))})",
                )
                .await
                .unwrap();
                let at = page
                    .eval(&format!(
                        "(()=>{{const i=document.getElementById('screen');const r=i.getBoundingClientRect();const k=r.width/i.naturalWidth;return [r.left+{cx}*k,r.top+{cy}*k];}})()"
                    ))
                    .await
                    .unwrap();
                page.tap(at[0].as_f64().unwrap() as f32, at[1].as_f64().unwrap() as f32, 1).await.unwrap();
                twin.step(action).await.unwrap();
            }
            _ => {
                assert!(matches!(action, Action::Terminate { .. }), "this walkthrough only taps, then says it is done");
                let at = page
                    .eval("(()=>{const b=[...document.querySelectorAll('button')].find(b=>b.textContent==='done');const r=b.getBoundingClientRect();return [r.left+r.width/2,r.top+r.height/2];})()")
                    .await
                    .unwrap();
                page.tap(at[0].as_f64().unwrap() as f32, at[1].as_f64().unwrap() as f32, 1).await.unwrap();
            }
        }
        // The page reloads once the action is taken.
        for _ in 0..200 {
            tokio::time::sleep(Duration::from_millis(25)).await;
            if page.eval("document.readyState").await.unwrap_or(Value::Null) == "complete"
                && page.eval("document.body.innerText").await.unwrap_or(Value::Null) != before
            {
                break;
            }
        }
        check(&page, "the game").await;
    }
    let over = page.eval("document.body.innerHTML").await.unwrap();
    let over = over.as_str().unwrap();
    assert!(over.contains("solved") && !over.contains("not solved"), "{over}");
    let run: String = over.split(">run ").nth(1).unwrap().split(' ').next().unwrap().to_string();
    common::assert_human_run_collects(&store, &run, &dir.join("collected"));

    // The fleet page of `guigym serve`, signed in by its link, with an instance at work.
    let serve = Served::start(&["serve", "--port", "0", "--token", "c", "--operator-token", "op"]);
    let (code, _) = common::http("POST", &format!("{}/v1/leases", serve.url), Some("c"), Some(&serde_json::json!({"spec": {"backend": "sim"}, "count": 1})));
    assert_eq!(code, 200);
    visit(&page, &format!("{}/dash/login?token=op", serve.url), "fleet").await;
    let fleet = page.eval("document.body.innerText").await.unwrap();
    assert!(fleet.as_str().unwrap().contains("over time") && fleet.as_str().unwrap().contains("workers"), "{fleet}");
    drop(browser);
    let _ = std::fs::remove_dir_all(dir);
}
