//! The audit log and the owners page in plain words (issue 19, item 8): the history reads
//! newest first as sentences that name the owner by their Clerk name, a filter narrows it
//! (and says when nothing matches), the order can be turned round, an entry's history
//! reads and filters the same way, and the owners page shows owners by name.

use reqwest::Method;
use serde_json::{json, Value};

use crate::browser::Browser;
use crate::flows::sign_in;
use crate::stack::{in_browser, Stack};

const OWNER: &str = "jo.history@example.com";
const SLUG: &str = "history-beta";
const FIRST: &str = "first.history@example.com";
const SECOND: &str = "second.history@example.com";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_reads_newest_first_names_the_owner_and_filters() {
    in_browser(|stack, b| Box::pin(history(stack, b))).await;
}

/// The sentences of the events shown, top to bottom.
async fn sentences(b: &Browser) -> Vec<String> {
    let mut out = Vec::new();
    for e in b.driver.find_all(thirtyfour::By::Css("ol.events .event-sentence")).await.unwrap_or_default() {
        out.push(e.text().await.unwrap_or_default());
    }
    out
}

/// Waits until the list's sentences satisfy `ok` (filters apply as soon as they are
/// chosen); returns them.
async fn wait_list(b: &Browser, what: &str, ok: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let now = sentences(b).await;
        if ok(&now) {
            return now;
        }
        assert!(tokio::time::Instant::now() < deadline, "wanted {what}, the page shows {now:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

async fn wait_sentences(b: &Browser, want: &[&str]) {
    wait_list(b, &format!("{want:?}"), |now| now == want).await;
}

async fn history(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.named_owner(OWNER, Some(("Jo", "March"))).await;
    let id = stack.open_program(&owner, workspace, SLUG, "Welcome to the history beta.").await;
    let current = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{id}"), Value::Null).await;
    let patch = json!({"expectedRevision": current["revision"], "proofOfWork": "off"});
    stack.call(&owner, Method::PATCH, &format!("/api/owner/programs/{id}"), patch).await;
    for email in [FIRST, SECOND] {
        stack.signup(SLUG, email).await;
    }
    let entries = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{id}/entries"), Value::Null).await;
    let entry = |email: &str| {
        let list = entries["entries"].as_array().unwrap();
        list.iter().find(|e| e["email"] == email).unwrap()["id"].as_str().unwrap().to_owned()
    };
    let (first, second) = (entry(FIRST), entry(SECOND));
    let path = |entry: &str, action: &str| format!("/api/owner/programs/{id}/entries/{entry}/{action}");
    stack.call(&owner, Method::POST, &path(&first, "select"), json!({"reasonCode": "meets_policy"})).await;
    stack.call(&owner, Method::POST, &path(&second, "decline"), json!({"reasonCode": "not_eligible"})).await;

    sign_in(b, OWNER, &format!("/owner/programs/{id}/audit"), false).await;
    b.wait_text("Declined by Jo March — not eligible").await;
    let all = sentences(b).await;
    assert_eq!(
        all[..4],
        [
            "Declined by Jo March — not eligible",
            "Selected by Jo March — meets policy",
            "Joined the waitlist",
            "Joined the waitlist"
        ],
        "newest first: {all:?}"
    );
    assert_eq!(all.last().map(String::as_str), Some("Program created by Jo March"), "{all:?}");
    assert!(!b.text().await.contains("by an owner"), "the owner is named");
    assert!(all.iter().any(|s| s == "Proof of work set to off by Jo March"), "a settings change in words: {all:?}");

    b.choose("#audit-group", "decisions").await;
    wait_sentences(b, &["Declined by Jo March — not eligible", "Selected by Jo March — meets policy"]).await;
    b.choose("#audit-group", "signups").await;
    wait_sentences(b, &["Joined the waitlist", "Joined the waitlist"]).await;
    b.choose("#audit-actor", "owner").await;
    b.wait_text("No events match.").await;
    b.choose("#audit-group", "").await;
    b.choose("#audit-order", "asc").await;
    let oldest =
        wait_list(b, "oldest first", |now| now.first().is_some_and(|s| s == "Program created by Jo March")).await;
    assert_eq!(oldest.last().map(String::as_str), Some("Declined by Jo March — not eligible"), "{oldest:?}");
    assert!(!oldest.iter().any(|s| s == "Joined the waitlist"), "owners only: {oldest:?}");
    b.check_page("audit-filtered").await;

    // The entry's own history: newest first, and the same filters in the page.
    b.open(&format!("/owner/programs/{id}/entries/{second}")).await;
    wait_sentences(b, &["Declined by Jo March — not eligible", "Joined the waitlist"]).await;
    b.choose("#history-actor", "applicant").await;
    wait_sentences(b, &["Joined the waitlist"]).await;
    b.choose("#history-actor", "system").await;
    b.wait_text("No events match.").await;

    b.open(&format!("/owner/workspaces/{workspace}/owners")).await;
    b.wait_text("Current owners").await;
    b.wait_text("Jo March").await;
}
