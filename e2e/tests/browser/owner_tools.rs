//! The owner's tools in the browser (issue 19, items 1, 4, 7 and 11): closing sign-ups
//! asks first with the number waiting; the next waiting entries selected in one step, a
//! bulk issue whose downloaded CSV holds one code per entry; the dashboard's figures, each
//! a link to the filtered queue; the queue's "not marked sent" and "expiring soon" badges
//! and counts, the whole batch marked sent in one step, the queue export checked row by
//! row, and on an entry's page the invitation message copied and marked sent together (the
//! code in the text, never in a URL).

use reqwest::Method;
use serde_json::{json, Value};

use crate::browser::Browser;
use crate::flows::sign_in;
use crate::stack::{in_browser, Stack};

const OWNER: &str = "tess.tools@example.com";
const SLUG: &str = "tools-beta";
const FIRST: &str = "first.in.line@example.com";
const SECOND: &str = "second.in.line@example.com";
const THIRD: &str = "third.in.line@example.com";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_issued_downloaded_and_marked_sent_and_a_message_is_copied() {
    in_browser(|stack, b| Box::pin(tools(stack, b))).await;
}

async fn tools(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    let id = stack.open_program(&owner, workspace, SLUG, "Welcome to the tools beta.").await;
    // Sign-ups arranged through the API carry no proof of work.
    let current = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{id}"), Value::Null).await;
    let patch = json!({"expectedRevision": current["revision"], "proofOfWork": "off"});
    stack.call(&owner, Method::PATCH, &format!("/api/owner/programs/{id}"), patch).await;
    for email in [FIRST, SECOND, THIRD] {
        stack.signup(SLUG, email).await;
    }
    let queue = format!("/owner/programs/{id}/queue");
    sign_in(b, OWNER, &format!("/owner/programs/{id}"), false).await;

    // Closing sign-ups says whom it affects, with the program's own count.
    b.click_button("Close sign-ups").await;
    b.wait_text("Sign-ups close now; 3 people are waiting and keep their place.").await;
    b.click_button("Cancel").await;
    b.wait_text("Open: the public form accepts sign-ups.").await;

    b.open(&queue).await;
    b.wait_text(THIRD).await;
    b.wait_text("Showing 3 entries").await;

    // The next two in queue order, in one step.
    b.click_summary("Select the next waiting entries").await;
    b.fill("#next-count", "2").await;
    b.choose("#next-reason", "meets_policy").await;
    b.click_button("Select").await;
    b.wait_text("2 entries selected.").await;

    // Both selected entries, ticked and issued at once: the CSV is the only copy of the codes.
    b.choose("#queue-state", "selected").await;
    b.click_button("Apply").await;
    b.wait_text("Showing 2 entries").await;
    b.tick("input[aria-label='Select all on this page']").await;
    b.fill("#bulk-days", "1").await;
    b.click_button("Issue and download codes").await;
    let csv = b.downloaded(&format!("{SLUG}-invitations.csv")).await;
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("entry_id,email,code,expires_at"), "{csv}");
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "one row per ticked entry: {csv}");
    let mut emails: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    emails.sort_unstable();
    assert_eq!(emails, [FIRST, SECOND], "the first two in line: {csv}");
    for row in &rows {
        assert_eq!(row[2].len(), 43, "a code is 43 characters of base64url: {row:?}");
        assert!(row[3].ends_with('Z'), "an RFC 3339 expiry: {row:?}");
    }
    b.wait_text("Invitations issued.").await;

    // Not marked sent yet, and within 48 hours of expiring: the queue says so.
    b.choose("#queue-state", "invited").await;
    b.click_button("Apply").await;
    b.wait_text("2 codes not marked sent").await;
    b.wait_text("2 expiring within 48 hours").await;
    b.wait_count("table.queue .badge-unsent", 2).await; // a badge on each row
    b.wait_count("table.queue .badge-expiring", 2).await;
    b.check_page("queue-batch-issued").await;

    // The whole batch marked sent in one step.
    b.choose("#batch-channel", "email").await;
    b.click_button("Mark all 2 sent").await;
    b.wait_text("2 invitations marked sent.").await;
    b.wait_text("0 codes not marked sent").await;
    b.wait_count("table.queue .badge-unsent", 0).await; // no row is left unsent

    // The dashboard at a glance: each figure links to the queue, filtered.
    b.open("/owner").await;
    for figure in [
        "1 waiting",
        "0 selected without a code",
        "0 codes not marked sent",
        "2 codes expiring within 48 h",
        "0 redeemed",
        "8 seats free",
    ] {
        b.wait_text(figure).await;
    }
    assert!(!b.text().await.contains("Getting started"), "an open program has no checklist");
    b.check_page("owner-dashboard-figures").await;
    b.click_link("2 codes expiring within 48 h").await;
    b.wait_path(&queue).await;
    b.wait_text("Showing 2 entries").await;
    let state = b.element("#queue-state").await.prop("value").await.unwrap();
    assert_eq!(state.as_deref(), Some("invited"), "the queue opens filtered to the invited");

    // The export holds every entry, whatever the filter (and the toolbar says so).
    b.wait_text("The export holds every entry").await;
    b.click_button("Export CSV").await;
    let csv = b.downloaded(&format!("{SLUG}-entries.csv")).await;
    let mut lines = csv.lines();
    assert!(lines.next().is_some_and(|h| h.starts_with("id,email,state")), "{csv}");
    let mut rows: Vec<(String, String)> = lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[1].to_owned(), cells[2].to_owned())
        })
        .collect();
    rows.sort();
    let expect = [(FIRST, "invited"), (SECOND, "invited"), (THIRD, "waiting")];
    assert_eq!(rows, expect.map(|(e, s)| (e.to_owned(), s.to_owned())), "{csv}");

    // One entry by hand: the invitation message, copied and marked sent together.
    b.choose("#queue-state", "").await;
    b.click_button("Apply").await;
    b.click_link(THIRD).await;
    b.wait_text("Decisions").await;
    b.choose("#entry-select", "meets_policy").await;
    b.click_button("Select").await;
    b.wait_text("Selected.").await;
    b.click_button("Issue invitation").await;
    b.wait_text("This code will not be shown again.").await;
    let code = b.element("#invite-code").await.prop("value").await.unwrap().unwrap_or_default();
    assert_eq!(code.len(), 43);
    let grouped: Vec<String> = code.as_bytes().chunks(4).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
    b.wait_text(&grouped.join(" ")).await;
    b.capture_clipboard().await;
    b.choose("select[id^='channel-']", "messaging_app").await;
    b.click_button("Copy invitation message and mark sent").await;
    b.wait_text("Invitation message copied and marked sent.").await;
    let message = b.copied().await;
    assert!(message.contains(&code), "the message holds the code: {message}");
    assert!(message.contains(&format!("{}/redeem ", stack.base)), "and the redeem page's address: {message}");
    assert!(message.contains(THIRD) && message.contains(SLUG), "{message}");
    assert!(!message.contains(&format!("/{code}")) && !message.contains(&format!("={code}")), "no code in a URL");
    b.wait_text("Sent by Messaging app").await;
}
