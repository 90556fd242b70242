//! The owner's console is one app (issue 27 item 1): an ordinary owner's round —
//! dashboard → program → queue → entry → overview → content → audit → all programs →
//! integrations — never loads a page (a marker set on `window` survives every move), reads
//! the configuration and the session once, and leaves no focus ring on the heading a click
//! moved to. Each move is timed and printed (the figures go to BENCHMARKS.md, not into an
//! assertion). Before the round, a public page of the signed-in owner has fetched the
//! console's files while idle, so the one page load into the console finds them cached.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::browser::Browser;
use crate::flows::sign_in;
use crate::stack::{dist_dir, in_browser, Stack};

const OWNER: &str = "rowan.round@example.com";
const SLUG: &str = "round-beta";
const APPLICANT: &str = "ivy.round@example.com";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owners_round_stays_in_one_page_load() {
    in_browser(|stack, b| Box::pin(round(stack, b))).await;
}

/// The console's WASM file, as its shell names it (`scripts/build-web`).
fn console_wasm() -> String {
    let shell = std::fs::read_to_string(dist_dir().join("console.html")).expect("web/dist/console.html is built");
    let at = shell.find("data-wasm=").expect("the console shell names its wasm") + "data-wasm=".len();
    let rest = shell[at..].trim_start_matches('"').trim_start_matches('/');
    rest[..rest.find(['"', ' ', '>']).unwrap()].to_owned()
}

async fn js(b: &Browser, script: &str) -> Value {
    b.driver.execute(script, Vec::new()).await.expect("script runs").json().clone()
}

/// How many requests this page load has made to a path ending with `suffix`.
async fn requests_to(b: &Browser, suffix: &str) -> u64 {
    let script = format!(
        "return performance.getEntriesByType('resource').filter(e => new URL(e.name).pathname.endsWith('{suffix}')).length"
    );
    js(b, &script).await.as_u64().unwrap_or(0)
}

async fn round(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    let program = stack.open_program(&owner, workspace, SLUG, "Welcome.").await;
    // The API signup solves no proof of work.
    let current =
        stack.call(&owner, reqwest::Method::GET, &format!("/api/owner/programs/{program}"), Value::Null).await;
    let patch = serde_json::json!({"expectedRevision": current["revision"], "proofOfWork": "off"});
    stack.call(&owner, reqwest::Method::PATCH, &format!("/api/owner/programs/{program}"), patch).await;
    stack.signup(SLUG, APPLICANT).await;
    let wasm = console_wasm();

    // On a public page, a signed-in owner's browser fetches the console's files when idle.
    sign_in(b, OWNER, "/me", false).await;
    b.wait_text("Owner console").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while requests_to(b, &wasm).await == 0 {
        assert!(Instant::now() < deadline, "the public page never fetched the console's {wasm}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Into the console: the one page load of the round, its WASM from the cache.
    b.click_link("Owner console").await;
    b.wait_path("/owner").await;
    b.wait_text(SLUG).await;
    let transferred = js(
        b,
        &format!("return performance.getEntriesByType('resource').filter(e => e.name.endsWith('{wasm}')).map(e => e.transferSize)"),
    )
    .await;
    assert_eq!(transferred, serde_json::json!([0]), "the console's WASM came from the cache");
    js(b, "window.__sameLoad = 'round'; return true").await;

    let base = format!("/owner/programs/{program}");
    let entry = format!("/owner/programs/{program}/entries/");
    // Each move: its name, the link clicked, and where it lands ("" = an entry page).
    let moves: [(&str, &str, String); 8] = [
        ("program", SLUG, base.clone()),
        ("queue", "Queue", format!("{base}/queue")),
        ("entry", APPLICANT, String::new()),
        ("overview", "Overview", base.clone()),
        ("content", "Content", format!("{base}/content")),
        ("audit", "Audit log", format!("{base}/audit")),
        ("all programs", "← All programs", "/owner".to_owned()),
        ("integrations", "Integrations", format!("/owner/workspaces/{workspace}/integrations")),
    ];
    let mut times = Vec::new();
    let started = Instant::now();
    for (name, link, path) in moves {
        let before = Instant::now();
        b.click_link(link).await;
        if path.is_empty() {
            wait_path_prefix(b, &entry).await;
        } else {
            b.wait_path(&path).await;
        }
        // The page has arrived when its heading holds the focus.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let tag = js(b, "return document.activeElement ? document.activeElement.tagName : ''").await;
            if tag == "H1" {
                break;
            }
            assert!(Instant::now() < deadline, "{name}: the heading never took the focus");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        times.push((name, before.elapsed()));
        let marker = js(b, "return window.__sameLoad || null").await;
        assert_eq!(marker, Value::from("round"), "moving to the {name} page loaded a new page");
        let ring = js(b, "return getComputedStyle(document.activeElement).outlineStyle").await;
        assert_eq!(ring, Value::from("none"), "{name}: a click left a focus ring on the heading");
    }
    let total = started.elapsed();
    for (name, t) in &times {
        println!("owner round: to {name} in {} ms", t.as_millis());
    }
    println!("owner round: 8 moves in {} ms, no page load", total.as_millis());
    assert_eq!(requests_to(b, "/api/config").await, 1, "the configuration is read once per load");
    assert_eq!(requests_to(b, "/api/me").await, 1, "the session is read once per load");
    assert_eq!(js(b, "return performance.getEntriesByType('navigation').length").await, Value::from(1));

    // With the keyboard, the heading the focus moves to shows its ring.
    let link = b.element(".site-header a[href='/owner']").await;
    link.focus().await.expect("focus");
    link.send_keys(thirtyfour::Key::Enter).await.expect("Enter");
    b.wait_path("/owner").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let script =
            "const e = document.activeElement; return e && e.tagName === 'H1' ? getComputedStyle(e).outlineStyle : ''";
        let ring = js(b, script).await;
        if ring != "" {
            assert_eq!(ring, Value::from("solid"), "after the keyboard, the heading shows its ring");
            break;
        }
        assert!(Instant::now() < deadline, "the heading never took the focus after Enter");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(js(b, "return window.__sameLoad || null").await, Value::from("round"));
}

async fn wait_path_prefix(b: &Browser, prefix: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if b.path().await.starts_with(prefix) {
            return;
        }
        assert!(Instant::now() < deadline, "never reached {prefix}…");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
