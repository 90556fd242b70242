//! One headless Chromium driven through its own chromedriver on a free port, and the
//! few moves the tests make: open a path, wait for text, fill, choose, click, take the
//! screenshots. Every wait is explicit and bounded; a timeout fails with what the page
//! showed instead.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use thirtyfour::prelude::*;
use thirtyfour::LoggingPrefsLogLevel;
use tokio::process::{Child, Command};

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
    _chromedriver: Child,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Polls `probe` until it answers `Some`, or fails with `what` and the last `Err` text.
async fn until<T, F, Fut>(what: &str, mut probe: F) -> T
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
        Browser { driver, base: base.to_owned(), profile, _chromedriver: chromedriver }
    }

    pub async fn quit(self) {
        let _ = self.driver.quit().await;
        let _ = std::fs::remove_dir_all(&self.profile);
    }

    pub async fn open(&self, path: &str) {
        self.driver.goto(format!("{}{path}", self.base)).await.expect("navigation");
    }

    pub async fn reload(&self) {
        self.driver.refresh().await.expect("reload");
    }

    pub async fn path(&self) -> String {
        self.driver.current_url().await.expect("url").path().to_owned()
    }

    async fn script(&self, js: &str) -> Value {
        self.driver.execute(js, Vec::new()).await.map(|r| r.json().clone()).unwrap_or(Value::Null)
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

    /// Controls without a label (`<label for>`, a wrapping label or `aria-label`).
    pub async fn unlabelled_controls(&self) -> Vec<String> {
        let js = "return [...document.querySelectorAll('input,select,textarea')]\
            .filter(e => e.type !== 'hidden' && !e.getAttribute('aria-label') && !e.closest('label') \
               && !(e.id && document.querySelector(`label[for=\"${e.id}\"]`)))\
            .map(e => e.outerHTML.slice(0, 120));";
        serde_json::from_value(self.script(js).await).unwrap_or_default()
    }

    /// Saves the whole page at each of [`WIDTHS`] as `artifacts/screenshots/{name}-{width}.png`,
    /// checking on the way that nothing is wider than the screen and every control is labelled.
    pub async fn screenshots(&self, name: &str) {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../artifacts/screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        for width in WIDTHS {
            self.driver.set_window_rect(0, 0, width, HEIGHT).await.expect("resize");
            // Let the layout settle at the new width before measuring it.
            let overflow = until("the layout at the new width", || async {
                let inner = self.script("return window.innerWidth").await.as_u64().unwrap_or(0);
                let scroll = self.script("return document.documentElement.scrollWidth").await.as_u64().unwrap_or(0);
                Ok((inner > 0 && inner.abs_diff(u64::from(width)) < 40).then_some(scroll.saturating_sub(inner)))
            })
            .await;
            assert_eq!(overflow, 0, "{name} at {width} px is {overflow} px wider than the screen");
            // The window's height includes what the browser draws around the page.
            let js = "return document.documentElement.scrollHeight + window.outerHeight - window.innerHeight";
            let height = self.script(js).await.as_u64().unwrap_or(0);
            let height = u32::try_from(height).unwrap_or(HEIGHT).clamp(HEIGHT, 6000);
            self.driver.set_window_rect(0, 0, width, height).await.expect("resize");
            tokio::time::sleep(Duration::from_millis(150)).await;
            self.driver.screenshot(&dir.join(format!("{name}-{width}.png"))).await.expect("screenshot");
        }
        self.driver.set_window_rect(0, 0, WIDTHS[0], HEIGHT).await.expect("resize");
        let unlabelled = self.unlabelled_controls().await;
        assert!(unlabelled.is_empty(), "{name}: controls without a label: {unlabelled:#?}");
    }

    /// Console errors other than failed loads (the API's deliberate 404s log those).
    pub async fn console_errors(&self) -> Vec<String> {
        let entries = self.driver.get_log("browser").await.unwrap_or_default();
        entries
            .into_iter()
            .filter(|e| e.level == "SEVERE" && !e.message.contains("Failed to load resource"))
            .map(|e| e.message)
            .collect()
    }
}
