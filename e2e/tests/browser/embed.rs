//! The embeddable form (issue 15, item 2) in a real Chromium: `embed.js` on a page of a
//! second loopback origin that the owner allowed inserts the frame, the frame reports its
//! height and the iframe follows it, and an applicant signs up inside it — with the
//! program's proof of work at `normal`, solved by the page's worker — with no CSP
//! violation anywhere. On a third origin that is not allowed, the browser refuses to
//! frame the form (the page's `frame-ancestors`), and nothing reaches the parent.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::browser::Browser;
use crate::stack::{in_browser, Stack};

const OWNER: &str = "olive.owner@example.com";
const APPLICANT: &str = "emma.embedded@example.com";
const SLUG: &str = "aurora-beta";
const TITLE: &str = "Aurora beta";
const PURPOSE: &str = "Early access to the Aurora beta: we invite people in small groups and explain how to start.";
const CONTACT: &str = "Questions about this list: privacy@aurora.example, or write to Aurora Labs, 1 Quay Street.";
const RETENTION: &str = "We keep your address until the beta ends and delete it at the latest 90 days after that.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_form_embeds_on_an_allowed_site_and_is_refused_elsewhere() {
    in_browser(|stack, b| Box::pin(embedded(stack, b))).await;
}

/// An owner's landing page on `ip` (a loopback address), pasting the snippet; answers
/// its origin. Every path gets the same page.
async fn landing_page(ip: &str, vestibule: &str) -> String {
    landing_page_with(ip, vestibule, "").await
}

/// [`landing_page`] with more attributes on the snippet (`data-theme`, `data-hide-title`).
async fn landing_page_with(ip: &str, vestibule: &str, attributes: &str) -> String {
    let listener = TcpListener::bind((ip, 0)).await.expect("a loopback port");
    let origin = format!("http://{ip}:{}", listener.local_addr().unwrap().port());
    let html = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Aurora</title></head><body>\
         <h1>Aurora, a landing page</h1><p>Join below.</p>\
         <script src=\"{vestibule}/embed.js\" data-program=\"{SLUG}\" data-ref=\"landing\" {attributes} async></script>\
         <p id=\"after\">Below the form.</p></body></html>"
    );
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else { return };
            let html = html.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
                     Cache-Control: no-store\r\nConnection: close\r\n\r\n",
                    html.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(html.as_bytes()).await;
            });
        }
    });
    origin
}

async fn arrange_program(
    stack: &Stack,
    owner: &crate::common::clerk::User,
    workspace: uuid::Uuid,
    allowed: &str,
) -> String {
    let body = json!({"workspaceId": workspace, "slug": SLUG, "purpose": PURPOSE, "queueCap": 100,
        "hourlyCap": 100, "seatCap": 100, "maxInviteDays": 14});
    let program = stack.call(owner, Method::POST, "/api/owner/programs", body).await;
    let id = program["id"].as_str().unwrap().to_owned();
    assert_eq!(program["proofOfWork"], "normal", "new programs ask for proof of work");
    let notice = json!({"purpose": PURPOSE, "contactText": CONTACT, "retentionText": RETENTION});
    stack.call(owner, Method::POST, &format!("/api/owner/programs/{id}/notices"), notice).await;
    let current = stack.call(owner, Method::GET, &format!("/api/owner/programs/{id}"), json!(null)).await;
    let patch = json!({"expectedRevision": current["revision"], "signupOpen": true, "title": TITLE,
        "embedOrigins": [allowed]});
    let p = stack.call(owner, Method::PATCH, &format!("/api/owner/programs/{id}"), patch).await;
    assert_eq!(p["embedOrigins"], json!([allowed]));
    id
}

/// The iframe's CSS height on the parent page, as `style.height` says it.
async fn frame_height(b: &Browser) -> String {
    let r = b
        .driver
        .execute(
            "var f = document.querySelector('iframe[data-vestibule-embed]'); return f ? f.style.height : ''",
            Vec::new(),
        )
        .await;
    r.map(|v| v.json().as_str().unwrap_or_default().to_owned()).unwrap_or_default()
}

async fn embedded(stack: &Stack, b: &Browser) {
    let allowed = landing_page("127.0.0.2", &stack.base).await;
    let refused = landing_page("127.0.0.3", &stack.base).await;
    let (owner, workspace) = stack.owner(OWNER).await;
    let program = arrange_program(stack, &owner, workspace, &allowed).await;

    // The allowed site: the frame appears where the snippet is and takes its content's
    // height (the loader starts it at 32rem = 512px).
    b.driver.goto(format!("{allowed}/")).await.expect("the landing page");
    b.wait_text("Aurora, a landing page").await;
    b.element("iframe[data-vestibule-embed]").await;
    let mut height = String::new();
    for _ in 0..300 {
        height = frame_height(b).await;
        if height.ends_with("px") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(height.ends_with("px"), "the frame reported its height to the parent (style.height = {height:?})");
    let first: f64 = height.trim_end_matches("px").parse().unwrap();
    assert!(first > 200.0, "a plausible form height: {first}");

    // Inside the frame: the program's title, its notice, and the form.
    b.driver.enter_frame(0).await.expect("into the frame");
    b.wait_text(TITLE).await;
    b.wait_text(PURPOSE).await;
    b.fill("#signup-email", APPLICANT).await;
    b.tick("#signup-permission").await;
    b.click_button("Join the waitlist").await;
    b.wait_text("your request was received").await;
    b.driver.enter_default_frame().await.expect("back to the landing page");
    // The confirmation is shorter than the form: the frame follows.
    let mut after = height.clone();
    for _ in 0..100 {
        after = frame_height(b).await;
        if after != height {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_ne!(after, height, "the frame resized after the signup");

    // The entry exists, with the loader's ref, admitted with a solved challenge.
    let page: Value = stack
        .call(&owner, Method::GET, &format!("/api/owner/programs/{program}/entries?ref=landing"), json!(null))
        .await;
    let entries = page["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 1, "{page}");
    assert_eq!(entries[0]["email"], APPLICANT);
    assert_eq!(entries[0]["ref"], "landing");
    assert_eq!(b.csp_violations().await, Vec::<String>::new(), "no CSP violation on the allowed site");

    // A site that is not allowed: the loader inserts the frame, the browser refuses it.
    b.driver.goto(format!("{refused}/")).await.expect("the other landing page");
    b.wait_text("Aurora, a landing page").await;
    b.element("iframe[data-vestibule-embed]").await;
    let refusal = b.expect_frame_refusal(&stack.base).await;
    assert!(refusal.contains(&allowed), "the refusal names the allowed origin only: {refusal}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(frame_height(b).await, "32rem", "nothing was posted to a site that is not allowed");
    let page: Value =
        stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}/entries"), json!(null)).await;
    assert_eq!(page["entries"].as_array().map(Vec::len), Some(1));

    // The embedded form on its own, checked and photographed like every page.
    b.open(&format!("/embed/waitlist/{SLUG}")).await;
    b.wait_text(TITLE).await;
    b.element("#signup-email").await;
    b.check_page("embed").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embed_belongs_on_the_host_page() {
    in_browser(|stack, b| Box::pin(on_the_host_page(stack, b))).await;
}

async fn script(b: &Browser, js: &str) -> Value {
    b.driver.execute(js, Vec::new()).await.expect("script runs").json().clone()
}

/// Issue 27 item 3: a dark, title-less embed on a host page: the frame enters the page at
/// its real height (nothing below it moves afterwards), its background is the host's, its
/// heading is left to the host page (for screen readers only), and its link out opens in
/// a new tab.
async fn on_the_host_page(stack: &Stack, b: &Browser) {
    let host = landing_page_with("127.0.0.2", &stack.base, "data-theme=\"dark\" data-hide-title").await;
    let (owner, workspace) = stack.owner(OWNER).await;
    arrange_program(stack, &owner, workspace, &host).await;
    b.driver.goto(format!("{host}/")).await.expect("the landing page");
    b.wait_text("Aurora, a landing page").await;
    let placed = "const f = document.querySelector('iframe[data-vestibule-embed]'); \
                  return f && getComputedStyle(f).visibility === 'visible' && getComputedStyle(f).position === 'static' \
                  ? [f.getBoundingClientRect().height, document.getElementById('after').getBoundingClientRect().top] : null";
    let mut at_placing = Value::Null;
    for _ in 0..1000 {
        at_placing = script(b, placed).await;
        if !at_placing.is_null() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!at_placing.is_null(), "the frame never took its place");
    let height = at_placing[0].as_f64().unwrap();
    assert!(
        height > 200.0 && (height - 512.0).abs() > 1.0,
        "placed at its reported height, not the loader's guess: {height}"
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        script(b, placed).await,
        at_placing,
        "the frame or the text below it moved after the frame took its place"
    );

    b.driver.enter_frame(0).await.expect("into the frame");
    b.wait_text(PURPOSE).await;
    assert_eq!(script(b, "return document.documentElement.dataset.theme").await, "dark");
    let backgrounds = "return [getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.body).backgroundColor]";
    assert_eq!(
        script(b, backgrounds).await,
        json!(["rgba(0, 0, 0, 0)", "rgba(0, 0, 0, 0)"]),
        "the host page shows through"
    );
    let heading = b.element("h1").await;
    assert_eq!(heading.class_name().await.unwrap().as_deref(), Some("sr-only"), "the heading is hidden from sight");
    assert!(heading.rect().await.unwrap().width <= 1.0, "the heading takes no room");
    b.fill("#signup-email", APPLICANT).await;
    b.tick("#signup-permission").await;
    b.click_button("Join the waitlist").await;
    b.wait_text("your request was received").await;
    let place = b.element("a[href='/me']").await;
    assert_eq!(
        place.attr("target").await.unwrap().as_deref(),
        Some("_blank"),
        "a link out of the frame opens a new tab"
    );
    assert_eq!(place.attr("rel").await.unwrap().as_deref(), Some("noopener"));
    b.driver.enter_default_frame().await.expect("back to the landing page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_waitlist_form_solves_its_proof_of_work_in_the_browser() {
    in_browser(|stack, b| Box::pin(proof_of_work(stack, b))).await;
}

/// Runs the page's solver (`/pow-worker.js`) on a fresh challenge of `slug` and answers
/// the milliseconds it reports.
async fn solve_once(b: &Browser, slug: &str) -> u64 {
    let js = format!(
        "const done = arguments[arguments.length - 1];\
         const w = new Worker('/pow-worker.js');\
         w.onmessage = (e) => {{ w.terminate(); done(e.data.error ? -1 : e.data.took); }};\
         w.postMessage({{url: '/api/public/programs/{slug}/challenge'}});"
    );
    let took = b.driver.execute_async(&js, Vec::new()).await.expect("the solver ran").json().as_i64().unwrap_or(-1);
    assert!(took >= 0, "the worker solved the challenge");
    took as u64
}

async fn proof_of_work(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    // `normal` is the default; the embed origin is irrelevant here.
    let program = arrange_program(stack, &owner, workspace, "https://www.example.com").await;

    // The public form at `normal`: the applicant types, the worker solves, the signup
    // carries the solution and is received.
    b.open(&format!("/waitlist/{SLUG}")).await;
    b.wait_text(PURPOSE).await;
    b.fill("#signup-email", APPLICANT).await;
    b.tick("#signup-permission").await;
    b.click_button("Join the waitlist").await;
    b.wait_text("your request was received").await;
    let page: Value =
        stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}/entries"), json!(null)).await;
    assert_eq!(page["entries"].as_array().map(Vec::len), Some(1), "{page}");
    // Another applicant on a fresh page: a fresh challenge (a solution admits once).
    b.open(&format!("/waitlist/{SLUG}")).await;
    b.fill("#signup-email", "second.person@example.com").await;
    b.tick("#signup-permission").await;
    b.click_button("Join the waitlist").await;
    b.wait_text("your request was received").await;

    // The time to solve in headless Chromium, at `normal` and `strict` (BENCHMARKS.md).
    let mut report = Vec::new();
    for level in ["normal", "strict"] {
        let current = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}"), json!(null)).await;
        let patch = json!({"expectedRevision": current["revision"], "proofOfWork": level});
        stack.call(&owner, Method::PATCH, &format!("/api/owner/programs/{program}"), patch).await;
        let mut times = Vec::new();
        for _ in 0..5 {
            times.push(solve_once(b, SLUG).await);
        }
        times.sort_unstable();
        report.push(format!("{level}: median {} ms, max {} ms over {times:?}", times[2], times[4]));
    }
    eprintln!("proof of work, time to solve in headless Chromium: {}", report.join("; "));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_gets_the_snippet_and_filters_and_declines_flagged_entries() {
    in_browser(|stack, b| Box::pin(owner_side(stack, b))).await;
}

async fn owner_side(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    let program = arrange_program(stack, &owner, workspace, "https://www.example.com").await;
    let current = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}"), json!(null)).await;
    let off = json!({"expectedRevision": current["revision"], "proofOfWork": "off"});
    stack.call(&owner, Method::PATCH, &format!("/api/owner/programs/{program}"), off).await;
    // Two applicants straight through the API: one from a disposable domain.
    for (i, email) in ["fake@0-mail.com", "real.person@example.com"].into_iter().enumerate() {
        let body = json!({"requestKey": uuid::Uuid::new_v4(), "email": email, "noticeVersion": 1,
            "permission": true, "ref": if i == 0 { "ads" } else { "news" }});
        let r = reqwest::Client::new()
            .post(format!("{}/api/public/programs/{SLUG}/signups", stack.base))
            .header("origin", &stack.base)
            .json(&body)
            .send()
            .await
            .expect("signup sent");
        assert_eq!(r.status(), 202);
    }

    // The program page: the allowed sites, the snippet to paste, the bot protection.
    crate::flows::sign_in(b, OWNER, &format!("/owner/programs/{program}"), false).await;
    b.click_summary("Embedding and bot protection").await;
    b.wait_text("Embed on your site").await;
    b.wait_text("Bot protection").await;
    b.fill("#embed-origins", "https://www.example.com\nhttps://shop.example.com").await;
    b.click_button("Save allowed sites").await;
    b.wait_text("Allowed sites saved.").await;
    let snippet = b.element("#embed-snippet").await.prop("value").await.unwrap().unwrap_or_default();
    assert_eq!(snippet, format!("<script src=\"{}/embed.js\" data-program=\"{SLUG}\" async></script>", stack.base));
    let p = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}"), json!(null)).await;
    assert_eq!(p["embedOrigins"], json!(["https://www.example.com", "https://shop.example.com"]));
    b.check_page("program-embed").await;

    // The queue: the flag filter shows the disposable address only; the bulk decline
    // declines it with a reason.
    b.click_link("Queue").await;
    b.wait_text("real.person@example.com").await;
    b.choose("#queue-flag", "disposable_domain").await;
    b.click_button("Apply").await;
    b.wait_text("Disposable domain").await;
    for _ in 0..100 {
        if !b.text().await.contains("real.person@example.com") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let text = b.text().await;
    assert!(text.contains("fake@0-mail.com") && !text.contains("real.person@example.com"), "{text}");
    b.check_page("queue-flagged").await;
    b.click_summary("Decline flagged entries").await;
    b.choose("#decline-reason", "not_eligible").await;
    b.click_button("Decline flagged").await;
    b.wait_text("1 declined.").await;
    let page: Value = stack
        .call(&owner, Method::GET, &format!("/api/owner/programs/{program}/entries?state=declined"), json!(null))
        .await;
    let declined: Vec<&str> =
        page["entries"].as_array().unwrap().iter().map(|e| e["email"].as_str().unwrap()).collect();
    assert_eq!(declined, ["fake@0-mail.com"]);
}
