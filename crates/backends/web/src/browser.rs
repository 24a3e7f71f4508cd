//! Launching headless Chromium (Debian's `chromium`) and driving its pages: one browser
//! process hosts many instances, one browser context each.

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::cdp::{Cdp, CdpError};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BrowserError {
    #[error("no Chromium found: install Debian's `chromium` package (apt-get install chromium) or set GUIGYM_CHROMIUM to a Chrome binary")]
    NotInstalled,
    #[error("chromium did not start: {0}")]
    Launch(String),
    #[error(transparent)]
    Cdp(#[from] CdpError),
    #[error("page script failed: {0}")]
    Script(String),
    #[error("page did not load: {0}")]
    Load(String),
    /// The page stopped answering while the browser still does: a script of the page's runs
    /// without end (the page's doing, and so the agent's, never the infrastructure's).
    #[error("the page stopped responding: {0}")]
    PageHung(String),
}

/// How long the browser itself has to answer when a page did not: past it, the browser is
/// taken for broken (an infrastructure failure), not the page.
pub const BROWSER_PROBE: Duration = Duration::from_secs(5);

/// The Chromium binary: `$GUIGYM_CHROMIUM`, or the first of the usual names on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GUIGYM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// One headless Chromium process.
pub struct Browser {
    pub cdp: Cdp,
    child: tokio::process::Child,
    user_data: PathBuf,
}

impl Browser {
    pub async fn launch(timeout: Duration) -> Result<Browser, BrowserError> {
        let bin = find_chromium().ok_or(BrowserError::NotInstalled)?;
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let user_data =
            std::env::temp_dir().join(format!("guigym-chromium-{}-{}", std::process::id(), NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
        let _ = std::fs::remove_dir_all(&user_data);
        let mut child = tokio::process::Command::new(&bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--mute-audio",
                "--remote-debugging-port=0",
                // Every instance is a background page to Chromium: keep them all running at
                // full speed, and let screenshots take the next frame at once.
                "--disable-renderer-backgrounding",
                "--disable-background-timer-throttling",
                "--disable-backgrounding-occluded-windows",
                "--disable-frame-rate-limit",
                "--disable-gpu-vsync",
            ])
            .arg(format!("--user-data-dir={}", user_data.display()))
            .arg("about:blank")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| BrowserError::Launch(format!("{}: {e}", bin.display())))?;
        let stderr = child.stderr.take().ok_or_else(|| BrowserError::Launch("no stderr".into()))?;
        let mut lines = BufReader::new(stderr).lines();
        let ws = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.trim().strip_prefix("DevTools listening on ") {
                    return Some(url.to_string());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .ok_or_else(|| BrowserError::Launch("it never printed its DevTools address".into()))?;
        // Keep draining stderr so Chromium never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let cdp = Cdp::connect(&ws, timeout).await?;
        Ok(Browser { cdp, child, user_data })
    }

    pub fn is_alive(&self) -> bool {
        self.cdp.is_alive()
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Browser contexts alive now (one per instance that has a page): what a leak shows in.
    pub async fn context_count(&self) -> Result<usize, BrowserError> {
        let v = self.cdp.call(None, "Target.getBrowserContexts", json!({})).await?;
        Ok(v["browserContextIds"].as_array().map_or(0, Vec::len))
    }

    /// A new isolated page: its own browser context, viewport and device emulation. A call to
    /// the page waits up to `timeout`.
    pub async fn new_page(&self, width: u32, height: u32, scale: f32, mobile: bool, timeout: Duration) -> Result<Page, BrowserError> {
        let ctx = self.cdp.call(None, "Target.createBrowserContext", json!({ "disposeOnDetach": true })).await?;
        let context = ctx["browserContextId"].as_str().unwrap_or_default().to_string();
        let t = self.cdp.call(None, "Target.createTarget", json!({ "url": "about:blank", "browserContextId": context })).await?;
        let target = t["targetId"].as_str().unwrap_or_default().to_string();
        let s = self.cdp.call(None, "Target.attachToTarget", json!({ "targetId": target, "flatten": true })).await?;
        let session = s["sessionId"].as_str().unwrap_or_default().to_string();
        let page = Page { cdp: self.cdp.clone(), session, target, context, scale, mobile, timeout };
        let css_w = (width as f32 / scale).round() as u32;
        let css_h = (height as f32 / scale).round() as u32;
        page.call("Emulation.setDeviceMetricsOverride", json!({ "width": css_w, "height": css_h, "deviceScaleFactor": scale, "mobile": mobile })).await?;
        if mobile {
            page.call("Emulation.setTouchEmulationEnabled", json!({ "enabled": true, "maxTouchPoints": 1 })).await?;
        }
        Ok(page)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.user_data);
    }
}

/// One page in its own browser context.
pub struct Page {
    cdp: Cdp,
    session: String,
    target: String,
    context: String,
    /// Screenshot pixels per CSS pixel.
    pub scale: f32,
    pub mobile: bool,
    /// How long the page has to answer a call.
    timeout: Duration,
}

impl Page {
    /// A call to the page. When the page does not answer in time but the browser does, the
    /// page is hung (`PageHung`); when neither does, the browser is.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        match self.cdp.call_within(Some(&self.session), method, params, self.timeout).await {
            Err(CdpError::Timeout { method, ms }) => match self.cdp.call_within(None, "Browser.getVersion", json!({}), BROWSER_PROBE).await {
                Ok(_) => Err(BrowserError::PageHung(format!("{method} had no answer in {} s, while the browser answers", ms / 1000))),
                Err(_) => Err(BrowserError::Cdp(CdpError::Timeout { method, ms })),
            },
            other => Ok(other?),
        }
    }

    /// Navigates and waits until the document has loaded.
    pub async fn navigate(&self, url: &str) -> Result<(), BrowserError> {
        let r = self.call("Page.navigate", json!({ "url": url })).await?;
        if let Some(e) = r.get("errorText").and_then(Value::as_str) {
            return Err(BrowserError::Load(format!("{url}: {e}")));
        }
        for _ in 0..400 {
            if self.eval("document.readyState").await? == json!("complete") {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        Err(BrowserError::Load(format!("{url}: still loading after 2 s")))
    }

    /// Evaluates an expression, awaiting a promise, and returns its value.
    pub async fn eval(&self, expression: &str) -> Result<Value, BrowserError> {
        let r = self.call("Runtime.evaluate", json!({ "expression": expression, "returnByValue": true, "awaitPromise": true })).await?;
        if let Some(ex) = r.get("exceptionDetails") {
            let text = ex.pointer("/exception/description").or_else(|| ex.get("text")).and_then(Value::as_str).unwrap_or("exception");
            return Err(BrowserError::Script(text.chars().take(300).collect()));
        }
        Ok(r.pointer("/result/value").cloned().unwrap_or(Value::Null))
    }

    pub async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        let r = self.call("Page.captureScreenshot", json!({ "format": "png", "optimizeForSpeed": true })).await?;
        let data = r["data"].as_str().unwrap_or_default();
        base64::engine::general_purpose::STANDARD.decode(data).map_err(|e| BrowserError::Script(format!("screenshot data: {e}")))
    }

    /// A tap at screenshot pixels, as a mouse click on every page: a touch event goes through
    /// Chromium's touch adjustment, which snaps a tap on a sliver of a list row (cut by the
    /// list's edge) to a larger button nearby — the agent must get what it tapped.
    pub async fn tap(&self, x: f32, y: f32, clicks: u32) -> Result<(), BrowserError> {
        let (cx, cy) = (x / self.scale, y / self.scale);
        let events = (1..=clicks.max(1))
            .flat_map(|n| ["mousePressed", "mouseReleased"].map(|kind| json!({ "type": kind, "x": cx, "y": cy, "button": "left", "clickCount": n })));
        self.input("Input.dispatchMouseEvent", events).await
    }

    /// Sends input events of one kind in order without waiting for each answer in turn: the
    /// page's session delivers them in the order sent, and one round trip is paid, not one per
    /// event.
    async fn input(&self, method: &str, events: impl IntoIterator<Item = Value>) -> Result<(), BrowserError> {
        // Each call sends its command when first polled, and `try_join_all` polls them in order.
        futures_util::future::try_join_all(events.into_iter().map(|e| self.call(method, e))).await?;
        Ok(())
    }

    pub async fn right_click(&self, x: f32, y: f32) -> Result<(), BrowserError> {
        let (cx, cy) = (x / self.scale, y / self.scale);
        self.input(
            "Input.dispatchMouseEvent",
            ["mousePressed", "mouseReleased"].map(|kind| json!({ "type": kind, "x": cx, "y": cy, "button": "right", "clickCount": 1 })),
        )
        .await
    }

    pub async fn drag(&self, from: (f32, f32), to: (f32, f32)) -> Result<(), BrowserError> {
        let s = self.scale;
        // One move at a time, each answered before the next: moves sent together would be
        // coalesced into one by the renderer, and a drag wants its path.
        self.call("Input.dispatchMouseEvent", json!({ "type": "mousePressed", "x": from.0 / s, "y": from.1 / s, "button": "left", "clickCount": 1 })).await?;
        for i in 1..=5 {
            let f = i as f32 / 5.0;
            let (x, y) = (from.0 + (to.0 - from.0) * f, from.1 + (to.1 - from.1) * f);
            self.call("Input.dispatchMouseEvent", json!({ "type": "mouseMoved", "x": x / s, "y": y / s, "button": "left" })).await?;
        }
        self.call("Input.dispatchMouseEvent", json!({ "type": "mouseReleased", "x": to.0 / s, "y": to.1 / s, "button": "left", "clickCount": 1 })).await?;
        Ok(())
    }

    pub async fn wheel(&self, x: f32, y: f32, dx: f32, dy: f32) -> Result<(), BrowserError> {
        let s = self.scale;
        self.call("Input.dispatchMouseEvent", json!({ "type": "mouseWheel", "x": x / s, "y": y / s, "deltaX": dx, "deltaY": dy })).await?;
        Ok(())
    }

    pub async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        self.call("Input.insertText", json!({ "text": text })).await?;
        Ok(())
    }

    /// Presses a key (and its modifiers) by name: `enter`, `tab`, `backspace`, `ctrl+a`…
    pub async fn key(&self, keys: &[String]) -> Result<(), BrowserError> {
        let mut modifiers = 0;
        let mut main = None;
        for k in keys {
            match k.trim().to_lowercase().as_str() {
                "alt" => modifiers |= 1,
                "ctrl" | "control" => modifiers |= 2,
                "meta" | "cmd" | "super" | "win" => modifiers |= 4,
                "shift" => modifiers |= 8,
                other => main = Some(other.to_string()),
            }
        }
        let key = main.unwrap_or_default();
        let (name, code, vk, text) = match key.as_str() {
            "enter" | "return" => ("Enter", "Enter", 13, "\r"),
            "tab" => ("Tab", "Tab", 9, ""),
            "backspace" => ("Backspace", "Backspace", 8, ""),
            "escape" | "esc" | "back" => ("Escape", "Escape", 27, ""),
            "space" => (" ", "Space", 32, " "),
            "delete" | "del" => ("Delete", "Delete", 46, ""),
            "insert" => ("Insert", "Insert", 45, ""),
            "home" => ("Home", "Home", 36, ""),
            "end" => ("End", "End", 35, ""),
            "pageup" => ("PageUp", "PageUp", 33, ""),
            "pagedown" => ("PageDown", "PageDown", 34, ""),
            "left" => ("ArrowLeft", "ArrowLeft", 37, ""),
            "up" => ("ArrowUp", "ArrowUp", 38, ""),
            "right" => ("ArrowRight", "ArrowRight", 39, ""),
            "down" => ("ArrowDown", "ArrowDown", 40, ""),
            f if f.len() > 1 && f.starts_with('f') && f[1..].parse::<u8>().is_ok_and(|n| (1..=12).contains(&n)) => {
                let n: i64 = f[1..].parse().unwrap_or(1);
                return self.press(&format!("F{n}"), &format!("F{n}"), 111 + n, "", modifiers).await;
            }
            _ => ("", "", 0, ""),
        };
        let (name, code, vk, text) = if name.is_empty() && key.chars().count() == 1 {
            let c = key.chars().next().unwrap_or(' ');
            (key.as_str(), "", c.to_ascii_uppercase() as i64, if modifiers & 2 == 0 { key.as_str() } else { "" })
        } else {
            (name, code, vk as i64, text)
        };
        self.press(name, code, vk, text, modifiers).await
    }

    async fn press(&self, name: &str, code: &str, vk: i64, text: &str, modifiers: i64) -> Result<(), BrowserError> {
        let down = json!({ "type": if text.is_empty() { "rawKeyDown" } else { "keyDown" }, "key": name, "code": code, "windowsVirtualKeyCode": vk, "text": text, "modifiers": modifiers });
        let up = json!({ "type": "keyUp", "key": name, "code": code, "windowsVirtualKeyCode": vk, "modifiers": modifiers });
        self.input("Input.dispatchKeyEvent", [down, up]).await
    }

    pub async fn close(&self) {
        // The context first: disposing of it ends its pages even when one hangs in a script
        // (closing the page alone would wait for it).
        let _ = self.cdp.call(None, "Target.disposeBrowserContext", json!({ "browserContextId": self.context })).await;
        let _ = self.cdp.call_within(None, "Target.closeTarget", json!({ "targetId": self.target }), Duration::from_secs(2)).await;
    }
}
