//! One headless Chromium driven through its own chromedriver on a free port, and the
//! few moves the tests make: open a path, wait for text, fill, choose, click, and check a
//! page (accessibility in both themes and at both widths, then screenshots). Every wait is
//! explicit and bounded; a timeout fails with what the page showed instead. The browser's
//! console is collected as the test goes, so a CSP violation anywhere fails the test.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};
use thirtyfour::prelude::*;
use thirtyfour::LoggingPrefsLogLevel;
use tokio::process::{Child, Command};

use crate::a11y::{self, Theme};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// Long enough for a cold WASM start on a busy two-core machine running other tests.
const TIMEOUT: Duration = Duration::from_secs(30);
const POLL: Duration = Duration::from_millis(100);
/// Screenshot widths: a desktop and a phone.
pub const WIDTHS: [u32; 2] = [1280, 390];
const HEIGHT: u32 = 900;

pub struct Browser {
    pub driver: WebDriver,
    base: String,
    profile: PathBuf,
    /// Where downloads land (a fresh folder per browser).
    pub downloads: PathBuf,
    /// Every console entry read so far, as `LEVEL message`.
    console: Mutex<Vec<String>>,
    _chromedriver: Child,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Polls `probe` until it answers `Some`, or fails with `what` and the last `Err` text.
pub async fn until<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>, String>>,
{
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    let mut last = String::new();
    loop {
        match probe().await {
            Ok(Some(value)) => return value,
            Ok(None) => {}
            Err(e) => last = e,
        }
        if tokio::time::Instant::now() > deadline {
            panic!("timed out after {TIMEOUT:?} waiting for {what}. {last}");
        }
        tokio::time::sleep(POLL).await;
    }
}

/// An XPath string literal (the tests' texts never hold both quote kinds).
fn literal(text: &str) -> String {
    if text.contains('\'') {
        format!("\"{text}\"")
    } else {
        format!("'{text}'")
    }
}

impl Browser {
    pub async fn launch(base: &str) -> Browser {
        for tool in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(tool).exists(),
                "{tool} is missing: install Debian's chromium and chromium-driver (scripts/test does)"
            );
        }
        let port = free_port();
        let chromedriver = Command::new(CHROMEDRIVER)
            .args([format!("--port={port}"), "--allowed-ips=127.0.0.1".into()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("chromedriver starts");
        let url = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        until("chromedriver to listen", || {
            let status = http.get(format!("{url}/status")).send();
            async move { Ok(status.await.ok().filter(|r| r.status().is_success()).map(drop)) }
        })
        .await;
        let profile = std::env::temp_dir().join(format!("vestibule-chromium-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&profile).unwrap();
        let mut caps = DesiredCapabilities::chrome();
        caps.set_binary(CHROMIUM).unwrap();
        for arg in [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            &format!("--window-size={},{HEIGHT}", WIDTHS[0]),
            &format!("--user-data-dir={}", profile.display()),
        ] {
            caps.add_arg(arg).unwrap();
        }
        caps.set_browser_log_level(LoggingPrefsLogLevel::All).unwrap();
        let driver = WebDriver::new(url, caps).await.expect("a Chromium session");
        let downloads = profile.join("downloads");
        std::fs::create_dir_all(&downloads).unwrap();
        let behavior = json!({"behavior": "allow", "downloadPath": downloads.to_string_lossy()});
        driver.cdp().send_raw("Browser.setDownloadBehavior", behavior).await.expect("downloads allowed");
        Browser {
            driver,
            base: base.to_owned(),
            profile,
            downloads,
            console: Mutex::new(Vec::new()),
            _chromedriver: chromedriver,
        }
    }

    pub async fn quit(self) {
        let _ = self.driver.quit().await;
        let _ = std::fs::remove_dir_all(&self.profile);
    }

    /// Waits for the download named `name` to finish; answers its text and removes it (so
    /// a later download of the same name is a new one).
    pub async fn downloaded(&self, name: &str) -> String {
        let path = self.downloads.join(name);
        let text = until(&format!("the download {name}"), || async {
            let listing: Vec<String> = std::fs::read_dir(&self.downloads)
                .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
                .unwrap_or_default();
            // Chromium writes to `<name>.crdownload` and renames it when the file is complete.
            match std::fs::read_to_string(&path) {
                Ok(text) if !listing.iter().any(|f| f.ends_with(".crdownload")) => Ok(Some(text)),
                _ => Err(format!("The download folder holds {listing:?}")),
            }
        })
        .await;
        std::fs::remove_file(&path).expect("remove the download");
        text
    }

    /// Emulates `prefers-color-scheme` for the pages that follow.
    pub async fn set_theme(&self, theme: Theme) {
        let media = json!({"media": "", "features": [{"name": "prefers-color-scheme", "value": theme.name()}]});
        self.driver.cdp().send_raw("Emulation.setEmulatedMedia", media).await.expect("emulated media");
    }

    /// Opens `path` and, on a signup form, waits until the app has taken over from the
    /// server's first paint (which shows the same form, disabled: `api/src/routes/form_page.rs`).
    pub async fn open(&self, path: &str) {
        self.driver.goto(format!("{}{path}", self.base)).await.expect("navigation");
        self.wait_count("#first-paint", 0).await;
    }

    pub async fn reload(&self) {
        self.driver.refresh().await.expect("reload");
        self.wait_count("#first-paint", 0).await;
    }

    pub async fn path(&self) -> String {
        self.driver.current_url().await.expect("url").path().to_owned()
    }

    /// Waits until the browser is at `path` on the app's own origin.
    pub async fn wait_path(&self, path: &str) {
        until(&format!("the page {path}"), || async {
            let url = self.driver.current_url().await.map_err(|e| e.to_string())?;
            let here = url.origin().ascii_serialization() == self.base && url.path() == path;
            if here {
                Ok(Some(()))
            } else {
                Err(format!("The browser is at {url}"))
            }
        })
        .await
    }

    async fn script(&self, js: &str) -> Value {
        self.driver.execute(js, Vec::new()).await.map(|r| r.json().clone()).unwrap_or(Value::Null)
    }

    /// How many elements match `css` now.
    pub async fn count(&self, css: &str) -> usize {
        self.driver.find_all(By::Css(css)).await.map(|v| v.len()).unwrap_or(0)
    }

    /// Waits until exactly `n` elements match `css`.
    pub async fn wait_count(&self, css: &str, n: usize) {
        until(&format!("{n} of {css}"), || async {
            let now = self.count(css).await;
            if now == n {
                Ok(Some(()))
            } else {
                Err(format!("{now} match"))
            }
        })
        .await
    }

    /// Replaces the page's clipboard writer with one that keeps the text in the page, so a
    /// test reads what a "Copy" button copied (headless Chromium may refuse the real
    /// clipboard). Lasts until the next full page load.
    pub async fn capture_clipboard(&self) {
        self.script(
            "Object.defineProperty(navigator.clipboard, 'writeText', { configurable: true, \
             value: t => { window.__copied = t; return Promise.resolve(); } }); return true;",
        )
        .await;
    }

    /// What the page last copied since [`Browser::capture_clipboard`].
    pub async fn copied(&self) -> String {
        self.script("return window.__copied || ''").await.as_str().unwrap_or_default().to_owned()
    }

    /// The page's visible text.
    pub async fn text(&self) -> String {
        self.script("return document.body ? document.body.innerText : ''").await.as_str().unwrap_or_default().to_owned()
    }

    /// Waits until the visible text contains `needle`.
    pub async fn wait_text(&self, needle: &str) {
        until(&format!("the text {needle:?}"), || async {
            let text = self.text().await;
            if text.contains(needle) {
                Ok(Some(()))
            } else {
                Err(format!("The page at the time:\n{text}"))
            }
        })
        .await
    }

    /// Waits for an element matching `css`.
    pub async fn element(&self, css: &str) -> WebElement {
        until(&format!("an element {css:?}"), || async { Ok(self.driver.find(By::Css(css)).await.ok()) }).await
    }

    /// Types `value` into the field `css` (after clearing it).
    pub async fn fill(&self, css: &str, value: &str) {
        let field = self.element(css).await;
        field.clear().await.expect("clear");
        field.send_keys(value).await.expect("typing");
    }

    /// Picks the option with `value` in the select `css`.
    pub async fn choose(&self, css: &str, value: &str) {
        let select = self.element(css).await;
        select
            .find(By::Css(format!("option[value='{value}']")))
            .await
            .expect("the option")
            .click()
            .await
            .expect("pick");
    }

    /// Clicks the checkbox `css` unless it is ticked already.
    pub async fn tick(&self, css: &str) {
        let box_ = self.element(css).await;
        if !box_.is_selected().await.unwrap_or(false) {
            box_.click().await.expect("tick");
        }
    }

    /// Clicks the enabled button whose text is `label`, waiting for it to appear.
    pub async fn click_button(&self, label: &str) {
        let xpath = format!("//button[normalize-space(.)={}]", literal(label));
        self.click_when_enabled(&xpath, label).await;
    }

    /// Clicks the link whose text is `label`.
    pub async fn click_link(&self, label: &str) {
        let xpath = format!("//a[normalize-space(.)={}]", literal(label));
        self.click_when_enabled(&xpath, label).await;
    }

    /// Clicks the `<summary>` whose text is `label` (opens a `<details>`).
    pub async fn click_summary(&self, label: &str) {
        let xpath = format!("//summary[normalize-space(.)={}]", literal(label));
        self.click_when_enabled(&xpath, label).await;
    }

    async fn click_when_enabled(&self, xpath: &str, label: &str) {
        let target = until(&format!("{label:?} to be clickable"), || async {
            for el in self.driver.find_all(By::XPath(xpath)).await.unwrap_or_default() {
                if el.is_displayed().await.unwrap_or(false) && el.is_enabled().await.unwrap_or(false) {
                    return Ok(Some(el));
                }
            }
            Err(format!("The page at the time:\n{}", self.text().await))
        })
        .await;
        target.scroll_into_view().await.expect("scroll");
        target.click().await.expect("click");
    }

    /// Waits for the layout at `width` to settle; answers how far the page overflows it.
    async fn resize(&self, width: u32) -> u64 {
        self.driver.set_window_rect(0, 0, width, HEIGHT).await.expect("resize");
        until("the layout at the new width", || async {
            let inner = self.script("return window.innerWidth").await.as_u64().unwrap_or(0);
            let scroll = self.script("return document.documentElement.scrollWidth").await.as_u64().unwrap_or(0);
            Ok((inner > 0 && inner.abs_diff(u64::from(width)) < 40).then_some(scroll.saturating_sub(inner)))
        })
        .await
    }

    /// axe-core's WCAG violations on the page as it is now, one line each.
    pub async fn axe(&self) -> Vec<String> {
        let loaded = self.driver.execute(a11y::inject_script(), Vec::new()).await.expect("axe injected");
        assert_eq!(loaded.json().as_str(), Some("object"), "axe-core did not load into the page");
        let result = self.driver.execute_async(a11y::run_script(), Vec::new()).await.expect("axe ran");
        a11y::describe_violations(result.json())
    }

    /// The checks axe cannot make (contrast of borders and disabled buttons, link names,
    /// labels, the title), one line per finding.
    pub async fn own_checks(&self) -> Vec<String> {
        serde_json::from_value(self.script(a11y::OWN_CHECKS).await)
            .unwrap_or_else(|_| vec!["own checks failed to run".into()])
    }

    /// Checks the page as it is now, in both themes at both widths: nothing wider than the
    /// screen, no axe violation, none of [`Browser::own_checks`]' findings, no CSP violation
    /// in the console; then saves `artifacts/screenshots/{name}-{width}-{theme}.png`.
    pub async fn check_page(&self, name: &str) {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../artifacts/screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        let mut problems = Vec::new();
        for theme in Theme::ALL {
            self.set_theme(theme).await;
            for width in WIDTHS {
                let overflow = self.resize(width).await;
                let at = format!("{name} at {width} px, {} theme", theme.name());
                if overflow > 0 {
                    problems.push(format!("{at}: the page is {overflow} px wider than the screen"));
                }
                for finding in self.axe().await.into_iter().chain(self.own_checks().await) {
                    problems.push(format!("{at}:\n{finding}"));
                }
                // The window's height includes what the browser draws around the page.
                let js = "return document.documentElement.scrollHeight + window.outerHeight - window.innerHeight";
                let height = self.script(js).await.as_u64().unwrap_or(0);
                let height = u32::try_from(height).unwrap_or(HEIGHT).clamp(HEIGHT, 6000);
                self.driver.set_window_rect(0, 0, width, height).await.expect("resize");
                tokio::time::sleep(Duration::from_millis(150)).await;
                let file = dir.join(format!("{name}-{width}-{}.png", theme.name()));
                self.driver.screenshot(&file).await.expect("screenshot");
            }
        }
        self.set_theme(Theme::Light).await;
        self.resize(WIDTHS[0]).await;
        problems.extend(self.csp_violations().await.into_iter().map(|v| format!("{name}: {v}")));
        assert!(problems.is_empty(), "{name} is not accessible:\n{}", problems.join("\n"));
    }

    /// Reads the browser's console into [`Browser::console`].
    async fn drain_console(&self) {
        let entries = self.driver.get_log("browser").await.unwrap_or_default();
        let mut console = self.console.lock().unwrap();
        console.extend(entries.into_iter().map(|e| format!("{} {}", e.level, e.message)));
    }

    /// Console reports of a Content-Security-Policy violation so far.
    pub async fn csp_violations(&self) -> Vec<String> {
        self.drain_console().await;
        let console = self.console.lock().unwrap();
        console.iter().filter(|m| m.contains("Content Security Policy")).cloned().collect()
    }

    /// Waits for the browser to refuse framing a page of `framed` (its `frame-ancestors`),
    /// answers the refusal and takes it out of the console record: it is the outcome the
    /// caller expects, not a fault of the page.
    pub async fn expect_frame_refusal(&self, framed: &str) -> String {
        let refusal = until("the browser to refuse the frame", || async {
            self.drain_console().await;
            let console = self.console.lock().unwrap();
            let found = console.iter().find(|m| m.contains("frame-ancestors") && m.contains(framed)).cloned();
            match found {
                Some(m) => Ok(Some(m)),
                None => Err(format!("The console so far: {console:#?}")),
            }
        })
        .await;
        self.console.lock().unwrap().retain(|m| !(m.contains("frame-ancestors") && m.contains(framed)));
        refusal
    }

    /// Console errors other than failed loads (the API's deliberate 404s log those), and
    /// every CSP violation whatever its level.
    pub async fn console_errors(&self) -> Vec<String> {
        self.drain_console().await;
        let console = self.console.lock().unwrap();
        console
            .iter()
            .filter(|m| {
                (m.starts_with("SEVERE") && !m.contains("Failed to load resource"))
                    || m.contains("Content Security Policy")
            })
            .cloned()
            .collect()
    }
}
