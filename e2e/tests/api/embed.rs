//! The embeddable form (issue 15, item 2) against a real PostgreSQL: the owner's allowed
//! origins (exact, https, at most 10, revisioned), the `frame-ancestors` of
//! `/embed/waitlist/{slug}` naming exactly them, every other page and every other
//! program keeping `'none'`, and `embed.js` served. (The browser test frames it.)

use crate::support::owner::changes;
use crate::support::{Owner, TestApp};
use api::config::AppEnv;
use serde_json::json;
use shared::api::PatchProgramRequest;
use shared::EventType;
use uuid::Uuid;

async fn open(app: &TestApp, slug: &str) -> (Owner, Uuid) {
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, slug).await;
    (owner, program)
}

fn origins(list: &[&str]) -> PatchProgramRequest {
    PatchProgramRequest { embed_origins: Some(list.iter().map(|s| s.to_string()).collect()), ..changes() }
}

/// The `frame-ancestors` sources and the `X-Frame-Options` of the page at `path`.
async fn framing(app: &TestApp, path: &str) -> (Vec<String>, Option<String>) {
    let page = app.get(path, None).await;
    let csp = page.header("content-security-policy").unwrap_or_else(|| panic!("{path}: no CSP")).to_owned();
    assert_eq!(csp.matches("frame-ancestors").count(), 1, "{path}: {csp}");
    let ancestors = csp
        .split(';')
        .map(str::trim)
        .find_map(|d| d.strip_prefix("frame-ancestors "))
        .map(|s| s.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    (ancestors, page.header("x-frame-options").map(str::to_owned))
}

#[tokio::test]
async fn the_owner_lists_exact_origins_under_the_revision() {
    let app = TestApp::spawn().await;
    let (owner, program) = open(&app, "beta").await;
    assert!(owner.program(program).await.embed_origins.is_empty());
    assert!(app.public_program("beta").await.embed_origins.is_empty());

    let before = owner.program(program).await;
    let list = ["https://www.Example.com", "https://shop.example.com:8443", "https://www.example.com:443"];
    let after = owner.patch_program(program, origins(&list)).await;
    assert_eq!(after.revision, before.revision + 1);
    assert_eq!(
        after.embed_origins,
        ["https://www.example.com", "https://shop.example.com:8443"],
        "canonical, once each"
    );
    assert_eq!(app.public_program("beta").await.embed_origins, after.embed_origins);
    let events = owner.all_events(program, 100).await;
    let changed = events.iter().rev().find(|e| e.kind == EventType::ProgramChanged).expect("an event");
    assert_eq!(changed.details["embedOrigins"], json!(2), "how many, not which");

    // Refusals change nothing.
    let eleven: Vec<String> = (0..11).map(|i| format!("https://h{i}.example.com")).collect();
    for bad in [
        origins(&["https://example.com/path"]),
        origins(&["http://example.com"]),
        origins(&["https://example.com; script-src *"]),
        origins(&["*"]),
        origins(&["'self'"]),
        PatchProgramRequest { embed_origins: Some(eleven), ..changes() },
    ] {
        owner.try_patch_program(program, bad).await.expect_error(400, "invalid_embed_origins");
    }
    assert_eq!(owner.program(program).await.revision, after.revision);

    // Ten is the most; [] allows none again.
    let ten: Vec<String> = (0..10).map(|i| format!("https://h{i}.example.com")).collect();
    let p = owner.patch_program(program, PatchProgramRequest { embed_origins: Some(ten), ..changes() }).await;
    assert_eq!(p.embed_origins.len(), 10);
    assert!(owner.patch_program(program, origins(&[])).await.embed_origins.is_empty());
}

#[tokio::test]
async fn http_loopback_origins_are_for_development_only() {
    let app = TestApp::spawn().await;
    let (owner, program) = open(&app, "beta").await;
    let p = owner.patch_program(program, origins(&["http://127.0.0.2:4010", "http://localhost:3000"])).await;
    assert_eq!(p.embed_origins, ["http://127.0.0.2:4010", "http://localhost:3000"]);

    let prod = TestApp::spawn_with(|s| s.app_env = AppEnv::Production).await;
    let (owner, program) = open(&prod, "beta").await;
    for local in ["http://127.0.0.2:4010", "http://localhost:3000"] {
        owner.try_patch_program(program, origins(&[local])).await.expect_error(400, "invalid_embed_origins");
    }
    let p = owner.patch_program(program, origins(&["https://www.example.com"])).await;
    assert_eq!(p.embed_origins, ["https://www.example.com"]);
}

#[tokio::test]
async fn only_the_embed_page_of_that_program_names_its_origins() {
    let app = TestApp::spawn().await;
    let (owner, program) = open(&app, "beta").await;
    let ws = owner.workspaces().await[0].id;
    owner.open_program(ws, "gamma").await;

    // No origins yet: nobody may frame the embed page.
    assert_eq!(framing(&app, "/embed/waitlist/beta").await, (vec!["'none'".to_owned()], Some("DENY".into())));

    owner.patch_program(program, origins(&["https://www.example.com", "https://shop.example.com:8443"])).await;
    let (ancestors, xfo) = framing(&app, "/embed/waitlist/beta").await;
    assert_eq!(ancestors, ["https://www.example.com", "https://shop.example.com:8443"], "exactly the list");
    assert_eq!(xfo, None, "X-Frame-Options cannot name a list; the CSP decides");
    // The query (?ref=, ?parent=) changes nothing.
    let (with_query, _) = framing(&app, "/embed/waitlist/beta?ref=news&parent=https%3A%2F%2Fevil.example").await;
    assert_eq!(with_query, ancestors);

    // Every other page keeps 'none': the program's own waitlist page, another program's
    // embed page, an unknown slug, a malformed one, the API, the loader script.
    for path in [
        "/waitlist/beta",
        "/embed/waitlist/gamma",
        "/embed/waitlist/no-such-program",
        "/embed/waitlist/NOT_A_SLUG",
        "/api/public/programs/beta",
        "/",
        "/owner",
    ] {
        let (ancestors, _) = framing(&app, path).await;
        assert_eq!(ancestors, ["'none'"], "{path}");
    }

    // Removing the origins takes effect at once (nothing is cached on the server).
    owner.patch_program(program, origins(&[])).await;
    assert_eq!(framing(&app, "/embed/waitlist/beta").await.0, ["'none'"]);
}
