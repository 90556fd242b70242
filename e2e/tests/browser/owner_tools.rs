//! The owner's tools in the browser (issue 19, items 1, 4, 6, 7 and 11): closing sign-ups
//! asks first with the number waiting; the queue's toolbar (a result count, bulk actions
//! offered before anything is ticked, clear filters, sticky at 390 px); the next waiting
//! entries selected in one step, a bulk issue whose downloaded CSV holds one code per
//! entry; the queue's "not marked sent" and "expiring soon" counts, badges and filters; the
//! whole batch marked sent in one step; the dashboard's figures, each a link to the
//! filtered queue; the filtered export holding exactly the filtered rows, and the
//! unfiltered one every row; and on an entry's page the invitation message copied and
//! marked sent together (the code in the text, never in a URL).

use reqwest::Method;
use serde_json::{json, Value};
use thirtyfour::By;

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
    b.wait_text("3 entries").await;
    // The toolbar offers the bulk actions before anything is ticked, and says why they wait.
    for label in ["Select ticked", "Decline ticked", "Issue codes"] {
        let xpath = format!("//button[normalize-space(.)='{label}']");
        let button = b.driver.find(By::XPath(&xpath)).await.expect(label);
        assert!(!button.is_enabled().await.unwrap(), "{label} waits for ticks");
        assert_eq!(button.attr("aria-describedby").await.unwrap().as_deref(), Some("bulk-hint"));
    }
    b.wait_text("Tick rows to select, decline or issue codes.").await;
    // One primary action in the toolbar: the owner's next step, selecting the next entries.
    assert_eq!(primary_in_toolbar(b).await, ["Select next N"]);
    // The rest stay one click away, in "More actions" (Escape closes it).
    b.click_summary("More actions").await;
    let clear = b.driver.find(By::XPath("//button[normalize-space(.)='Clear filters']")).await.unwrap();
    assert!(clear.is_displayed().await.unwrap() && !clear.is_enabled().await.unwrap(), "nothing to clear yet");
    b.wait_text("Export: every entry.").await;
    b.check_page("queue-toolbar").await;
    b.click_summary("More actions").await;
    toolbar_stays_in_view_at_390(b).await;

    // The next two in queue order, in one step, from the toolbar.
    b.click_button("Select next N").await;
    b.fill("#next-count", "2").await;
    b.choose("#next-reason", "meets_policy").await;
    b.check_page("queue-select-next").await;
    b.click_button("Select").await;
    b.wait_text("2 entries selected.").await;

    // Both selected entries, ticked and issued at once: the CSV is the only copy of the codes.
    b.choose("#queue-state", "selected").await;
    b.click_button("Apply").await;
    b.wait_text("2 entries").await;
    b.tick("input[aria-label='Select all on this page']").await;
    b.wait_text("2 rows ticked.").await;
    // With rows ticked, issuing codes to them is the one primary action.
    assert_eq!(primary_in_toolbar(b).await, ["Issue codes"]);
    b.click_button("Issue codes").await;
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

    // Not marked sent yet, and within 48 hours of expiring: the queue counts them, and
    // each count is a filter of its own.
    b.wait_text("2 expiring within 48 hours").await;
    b.click_button("2 codes not marked sent").await;
    b.wait_text("2 entries").await;
    assert_eq!(b.element("#queue-invitation").await.prop("value").await.unwrap().as_deref(), Some("unsent"));
    assert_eq!(b.element("#queue-state").await.prop("value").await.unwrap().as_deref(), Some(""));
    // A badge on each row.
    b.wait_count("table.queue .badge-unsent", 2).await;
    // Codes issued a moment ago for one day have their whole day: not "Expires soon"
    // (shared::queue::expires_soon; checked again below for one near its end).
    assert_eq!(b.count("table.queue .badge-expiring").await, 0, "fresh codes do not expire soon");
    b.click_summary("More actions").await;
    b.wait_text("Export: the filtered entries.").await;
    b.click_summary("More actions").await;
    b.check_page("queue-batch-issued").await;

    // The whole batch marked sent in one step: the "not marked sent" queue empties.
    b.choose("#batch-channel", "email").await;
    b.click_button("Mark all 2 sent").await;
    b.wait_text("2 invitations marked sent.").await;
    b.wait_text("0 codes not marked sent").await;
    b.wait_text("No entries match.").await;
    b.wait_count("table.queue .badge-unsent", 0).await;

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
    b.wait_text("2 entries").await;
    let code = b.element("#queue-invitation").await.prop("value").await.unwrap();
    assert_eq!(code.as_deref(), Some("expiring"), "the queue opens filtered to the expiring codes");
    b.check_page("queue-expiring").await;

    // The export follows the filter: exactly the two expiring, nobody else.
    b.click_summary("More actions").await;
    b.wait_text("Export: the filtered entries.").await;
    b.click_button("Export CSV").await;
    let csv = b.downloaded(&format!("{SLUG}-entries-filtered.csv")).await;
    let expect = [(FIRST, "invited"), (SECOND, "invited")];
    assert_eq!(export_rows(&csv), expect.map(|(e, s)| (e.to_owned(), s.to_owned())), "{csv}");

    // Clear filters: the whole queue again, and an export of every entry.
    b.click_summary("More actions").await;
    b.click_button("Clear filters").await;
    b.wait_text("3 entries").await;
    assert_eq!(b.element("#queue-invitation").await.prop("value").await.unwrap().as_deref(), Some(""));
    b.click_summary("More actions").await;
    b.wait_text("Export: every entry.").await;
    b.click_button("Export CSV").await;
    let csv = b.downloaded(&format!("{SLUG}-entries.csv")).await;
    let expect = [(FIRST, "invited"), (SECOND, "invited"), (THIRD, "waiting")];
    assert_eq!(export_rows(&csv), expect.map(|(e, s)| (e.to_owned(), s.to_owned())), "{csv}");

    // One entry by hand: the invitation message, copied and marked sent together.
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

    // A code near its end does say "Expires soon": the first one, as if issued for a week
    // six days ago (its expiry, in a day, stays as it is).
    let aged = format!(
        "UPDATE invitations SET issued_at = expires_at - interval '7 days' \
         WHERE state = 'issued' AND entry_id IN (SELECT id FROM entries WHERE email_key = '{FIRST}')"
    );
    stack.as_database_owner(&aged).await;
    b.open(&queue).await;
    b.wait_text(FIRST).await;
    b.wait_count("table.queue .badge-expiring", 1).await;
    let soon = b.element("table.queue tr:has(.badge-expiring) td.email").await.text().await.unwrap();
    assert_eq!(soon, FIRST, "the code near its end is the one that expires soon");
}

/// The toolbar's buttons styled as the primary action, by their text.
async fn primary_in_toolbar(b: &Browser) -> Vec<String> {
    let js = "return [...document.querySelectorAll('.queue-toolbar button.primary')].map(b => b.textContent.trim())";
    let seen = b.driver.execute(js, Vec::new()).await.expect("the toolbar read").json().clone();
    serde_json::from_value(seen).unwrap_or_default()
}

/// The export's (email, state) cells, sorted, after checking its header.
fn export_rows(csv: &str) -> Vec<(String, String)> {
    let mut lines = csv.lines();
    assert!(lines.next().is_some_and(|h| h.starts_with("id,email,state")), "{csv}");
    let mut rows: Vec<(String, String)> = lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[1].to_owned(), cells[2].to_owned())
        })
        .collect();
    rows.sort();
    rows
}

/// At 390 px the toolbar is `position: sticky` and still on screen, at the top, once the
/// page has scrolled past where it started.
async fn toolbar_stays_in_view_at_390(b: &Browser) {
    b.driver.set_window_rect(0, 0, 390, 900).await.expect("resize");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let js = "const bar = document.querySelector('.queue-toolbar'); \
              window.scrollTo(0, document.documentElement.scrollHeight); \
              const r = bar.getBoundingClientRect(); \
              return [getComputedStyle(bar).position, window.scrollY, r.top, r.bottom, window.innerHeight];";
    let seen = b.driver.execute(js, Vec::new()).await.expect("the toolbar measured").json().clone();
    let position = seen[0].as_str().unwrap_or_default().to_owned();
    let [scrolled, top, bottom, height] = [1, 2, 3, 4].map(|i| seen[i].as_f64().unwrap_or(-1.0));
    assert_eq!(position, "sticky", "{seen}");
    assert!(scrolled > 0.0, "the queue page is taller than a phone's screen: {seen}");
    assert!(top.abs() < 2.0 && bottom <= height, "the toolbar stays at the top of the screen: {seen}");
    b.driver.execute("window.scrollTo(0, 0); return true;", Vec::new()).await.expect("scroll back");
    b.driver.set_window_rect(0, 0, 1280, 900).await.expect("resize");
}
