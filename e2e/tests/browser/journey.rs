//! The whole journey in one browser, as issue 6 tells it, with every page it passes checked
//! for accessibility (see `a11y`): an owner sets up a program; an applicant joins through
//! the public form and sees their place; the owner selects the entry and issues an
//! invitation (the code is shown once, and not after a reload) and records its delivery;
//! the recipient signs in, redeems the code and reads the content; another program's
//! page stays not-found for them; withdrawing hides the content again.

use reqwest::Method;
use serde_json::json;
use thirtyfour::By;

use crate::browser::Browser;
use crate::flows::{sign_in, sign_out};
use crate::stack::{dist_dir, in_browser, Stack};

const OWNER: &str = "olive.owner@example.com";
const APPLICANT: &str = "ada.applicant@example.com";
const SLUG: &str = "aurora-beta";
const OTHER_SLUG: &str = "borealis-beta";
const PURPOSE: &str = "Early access to the Aurora beta: we invite people in small groups and explain how to start.";
const CONTACT: &str = "Questions about this list: privacy@aurora.example, or write to Aurora Labs, 1 Quay Street.";
const RETENTION: &str = "We keep your address until the beta ends and delete it at the latest 90 days after that.";
/// Only ever in the database and the API's answers to a grant holder — never in `web/dist`.
const PRIVATE_MARKER: &str = "marigold-7731";
const CONTENT_FIRST: &str = "Welcome to the Aurora beta.";
const CONTENT_SECOND: &str =
    "Download your build at builds.aurora.example/marigold-7731 and sign in with this address.";
const CONTENT_MARKUP: &str = "<b>This stays plain text</b>";

const GRAMMAR_HELP: &str = "Some valid but unusual addresses are not accepted";

fn content() -> String {
    format!("{CONTENT_FIRST}\n\n{CONTENT_SECOND}\n{CONTENT_MARKUP}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn applicant_owner_and_recipient_meet_in_the_browser() {
    in_browser(|stack, b| Box::pin(journey(stack, b))).await;
}

async fn journey(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.named_owner(OWNER, Some(("Olive", "Oakes"))).await;

    // The owner signs in through the local sign-in page and sets the program up.
    sign_in(b, OWNER, "/owner", true).await;
    b.wait_text("Acme Labs").await;
    b.wait_text("No programs yet").await;
    let program_id = create_program(b, workspace).await;
    publish_notice(b, &program_id).await;
    write_content(b, &program_id).await;
    setup_checklist(stack, b).await;
    b.click_button("Switch access on").await;
    b.wait_text("Early access is switched on.").await;
    b.wait_text("Switch access off").await; // the page shows the new revision
    b.click_button("Open sign-ups").await;
    b.wait_text("Sign-ups are open.").await;
    b.wait_text("Close sign-ups").await;
    sign_out(b).await;

    // An applicant joins through the public form: the email first, then the notice in
    // short (the exact full text one click away), then the box and the button.
    b.open(&format!("/waitlist/{SLUG}")).await;
    b.wait_text(PURPOSE).await;
    let text = b.text().await;
    assert!(!text.contains(CONTACT) && !text.contains(RETENTION), "the full notice waits behind its summary");
    assert!(!text.contains(GRAMMAR_HELP), "the grammar help shows on error only");
    assert!(!text.contains("Owner console"), "the public form offers no owner navigation");
    let order = b
        .driver
        .execute(
            "return Array.from(document.querySelectorAll('#signup-email, .notice-full summary, #signup-permission, \
             form button[type=submit]')).map(e => e.id || e.tagName.toLowerCase())",
            Vec::new(),
        )
        .await
        .unwrap()
        .json()
        .clone();
    assert_eq!(order, json!(["signup-email", "summary", "signup-permission", "button"]), "the form's order");
    let permission = b.element("#signup-permission").await;
    assert!(!permission.is_selected().await.unwrap(), "the permission box starts unticked");
    // The disabled button says why, and is described by that text.
    b.wait_text("Enter your email address.").await;
    let button = b.element("form button[type=submit]").await;
    assert_eq!(button.attr("aria-describedby").await.unwrap().as_deref(), Some("signup-blocked"));
    b.click_summary("Read the full notice (version 1)").await;
    for text in [CONTACT, RETENTION, "Version 1, published"] {
        b.wait_text(text).await;
    }
    b.check_page("waitlist").await;
    b.fill("#signup-email", "not an address").await;
    b.wait_text("The address").await;
    b.wait_text(GRAMMAR_HELP).await;
    b.check_page("waitlist-invalid-email").await;
    b.fill("#signup-email", APPLICANT).await;
    b.wait_text("Tick the box to continue.").await;
    assert!(!b.text().await.contains(GRAMMAR_HELP), "the help goes with the error");
    b.tick("#signup-permission").await;
    b.click_button("Join the waitlist").await;
    b.wait_text("your request was received").await;
    // Whom to sign in as, to see the place.
    b.wait_text("To see your place in the queue, sign in with that same address").await;
    let place = b.driver.find(By::XPath("//a[normalize-space(.)='see my place']")).await.expect("a link to /me");
    assert_eq!(place.attr("href").await.unwrap().as_deref(), Some("/me"));
    b.check_page("waitlist-joined").await;

    // Signed in, the applicant sees their place.
    sign_in(b, APPLICANT, "/me", false).await;
    b.wait_text(SLUG).await;
    b.wait_text("Place in the queue: 1").await;
    b.check_page("me-waiting").await;
    sign_out(b).await;

    // The owner selects the entry, issues an invitation and records its delivery. Signing
    // in without a `next`, an owner lands on the console.
    b.open("/sign-in").await;
    b.fill("#sign-in-email", OWNER).await;
    b.click_button("Sign in").await;
    b.wait_path("/owner").await;
    b.wait_text(&format!("Signed in as {OWNER}")).await;
    b.wait_text(SLUG).await;
    b.wait_text("1 / 1000").await;
    b.wait_text("1 waiting").await;
    assert!(!b.text().await.contains("Getting started"), "a program that is set up has no checklist");
    b.check_page("owner-dashboard").await;
    b.open(&format!("/owner/programs/{program_id}")).await;
    b.wait_text("Entries by state").await;
    b.wait_text("1 sign-up").await;
    b.check_page("program").await;
    b.open(&format!("/owner/programs/{program_id}/queue")).await;
    b.wait_text(APPLICANT).await;
    b.fill("#queue-search", "ada.app").await;
    b.click_button("Apply").await;
    b.wait_text(APPLICANT).await;
    b.check_page("queue").await;
    b.click_summary("More actions").await;
    b.click_button("Export CSV").await;
    let csv = b.downloaded(&format!("{SLUG}-entries.csv")).await;
    let mut lines = csv.lines();
    assert!(lines.next().is_some_and(|h| h.contains("email")), "the export starts with a header: {csv}");
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 1, "one entry, one row: {csv}");
    assert!(rows[0].contains(APPLICANT) && rows[0].contains("waiting"), "{csv}");
    b.click_link(APPLICANT).await;
    b.wait_text("Decisions").await;
    b.check_page("entry").await;
    b.choose("#entry-select", "meets_policy").await;
    b.click_button("Select").await;
    b.wait_text("Selected.").await;
    b.click_button("Issue invitation").await;
    b.wait_text("This code will not be shown again.").await;
    let code = b.element("#invite-code").await.prop("value").await.unwrap().unwrap_or_default();
    assert_eq!(code.len(), 43, "a code is 43 characters of base64url: {code:?}");
    b.check_page("entry-code-panel").await;

    b.reload().await;
    b.wait_text("Invitations and access").await;
    assert!(!b.text().await.contains(&code), "the code is shown again after a reload");
    assert!(!b.driver.source().await.unwrap().contains(&code), "the code is in the page after a reload");
    assert!(!b.text().await.contains("This code will not be shown again."));
    b.choose("select[id^='channel-']", "email").await;
    b.fill("input[id^='reference-']", "ticket 42").await;
    b.click_button("Mark sent").await;
    b.wait_text("Sent by Email").await;

    b.open(&format!("/owner/programs/{program_id}/audit")).await;
    b.wait_text("Invitation marked sent by Olive Oakes").await;
    b.wait_text("Invitation issued by Olive Oakes").await;
    b.check_page("audit").await;
    b.open(&format!("/owner/workspaces/{workspace}/owners")).await;
    b.wait_text("Current owners").await;
    b.wait_text("Olive Oakes").await;
    b.check_page("owners").await;
    let other = arrange_other_program(stack, &owner, workspace).await;
    sign_out(b).await;

    // The recipient signs in, redeems the code and reads the content.
    sign_in(b, APPLICANT, "/redeem", false).await;
    b.wait_text("Paste the code").await;
    let who = b.element("header .who").await.text().await.unwrap();
    assert_eq!(who, format!("Signed in as {APPLICANT}"), "the header says who is signed in");
    b.wait_text("The code works only for the address it was sent to").await;
    b.driver.find(By::XPath("//button[normalize-space(.)='Use a different account']")).await.expect("a way out");
    b.check_page("redeem").await;
    b.fill("#redeem-code", &code).await;
    b.click_button("Redeem").await;
    b.wait_text("You're in").await;
    assert!(!b.path().await.contains(&code), "no code in the URL");
    b.click_link("Open early access").await;
    b.wait_text(CONTENT_SECOND).await;
    let paragraphs = b.driver.find_all(By::Css("article.content p.para")).await.unwrap();
    assert_eq!(paragraphs.len(), 2, "a blank line starts a new paragraph");
    assert!(b.text().await.contains(CONTENT_MARKUP), "markup in the content is shown as text");
    b.check_page("early-access").await;

    // Another program's page is not found for them, though it exists and is open.
    b.open(&format!("/early-access/{OTHER_SLUG}")).await;
    b.wait_text("Nothing to show here").await;
    assert!(!b.text().await.contains(&other), "another program's content leaks");
    b.check_page("early-access-not-found").await;

    // Withdrawing (with a confirmation) hides the content again.
    b.open("/me").await;
    b.wait_text(SLUG).await;
    b.wait_text("Active").await;
    b.check_page("me").await;
    b.click_button("Leave this waitlist").await;
    b.wait_text("Any invitation or access you have for it ends now").await;
    b.check_page("me-leave-dialog").await;
    b.click_button("Yes, leave").await;
    b.wait_text(&format!("You have left the waitlist for {SLUG}.")).await;
    b.wait_text("Withdrawn").await;
    b.open(&format!("/early-access/{SLUG}")).await;
    b.wait_text("Nothing to show here").await;
    assert!(!b.text().await.contains(PRIVATE_MARKER));
}

/// The dashboard's checklist for a program not yet open: what is done is ticked, each step
/// links to where it is done, and "Copy public link" copies the form's address and ticks
/// the last step. Its "Open sign-ups" step leads to the program's overview.
async fn setup_checklist(stack: &Stack, b: &Browser) {
    b.open("/owner").await;
    b.wait_text("Getting started").await;
    b.wait_text("Give it a title — ").await; // issue 27: the checklist asks for a title
    for step in ["Publish the notice", "Write the content"] {
        b.wait_text(&format!("✓ {step} — done")).await;
    }
    for step in ["Open sign-ups", "Share the public link"] {
        b.wait_text(&format!("○ {step} — to do")).await;
    }
    b.capture_clipboard().await;
    b.click_button("Copy public link").await;
    b.wait_text("Public link copied.").await;
    assert_eq!(b.copied().await, format!("{}/waitlist/{SLUG}", stack.base));
    b.wait_text("✓ Share the public link — done").await;
    b.check_page("owner-dashboard-new").await;
    b.click_link("Open sign-ups").await;
    b.wait_text("Entries by state").await;
}

/// Creates the program from the dashboard's form; returns its id from the new page's path.
async fn create_program(b: &Browser, workspace: uuid::Uuid) -> String {
    b.click_summary("Create a program").await;
    b.fill(&format!("#new-slug-{workspace}"), SLUG).await;
    b.fill(&format!("#new-purpose-{workspace}"), PURPOSE).await;
    b.click_button("Create program").await;
    b.wait_text("Publish a notice before opening sign-ups.").await;
    b.check_page("program-new").await;
    let path = b.path().await;
    path.strip_prefix("/owner/programs/").expect("the program's page").to_owned()
}

async fn publish_notice(b: &Browser, program_id: &str) {
    b.open(&format!("/owner/programs/{program_id}/notice")).await;
    b.wait_text("No notice is published yet").await;
    b.fill("#notice-contact", CONTACT).await;
    b.fill("#notice-retention", RETENTION).await;
    b.wait_text(RETENTION).await; // the live preview
    b.click_button("Publish this notice").await;
    b.wait_text("Version 1 is published").await;
    b.check_page("notice").await;
}

async fn write_content(b: &Browser, program_id: &str) {
    b.open(&format!("/owner/programs/{program_id}/content")).await;
    b.wait_text("Nothing written yet.").await;
    b.fill("#content-body", &content()).await;
    b.wait_text(CONTENT_SECOND).await; // the live preview
    b.click_button("Save").await;
    b.wait_text("Saved: version 1 of the content is what recipients see now.").await;
    b.check_page("content-editor").await;
}

/// A second program with its own content, open and with access on, set up straight
/// through the API; returns its private text.
async fn arrange_other_program(stack: &Stack, owner: &crate::common::clerk::User, workspace: uuid::Uuid) -> String {
    let purpose = "Early access to the Borealis beta.";
    let body = json!({"workspaceId": workspace, "slug": OTHER_SLUG, "purpose": purpose, "queueCap": 10,
        "hourlyCap": 10, "seatCap": 10, "maxInviteDays": 7});
    let program = stack.call(owner, Method::POST, "/api/owner/programs", body).await;
    let id = program["id"].as_str().unwrap().to_owned();
    let notice = json!({"purpose": purpose, "contactText": "borealis@example.com", "retentionText": "Until launch."});
    stack.call(owner, Method::POST, &format!("/api/owner/programs/{id}/notices"), notice).await;
    let secret = "Borealis private notes: juniper-5520.".to_owned();
    let content = json!({"expectedRevision": 0, "body": secret});
    stack.call(owner, Method::PUT, &format!("/api/owner/programs/{id}/content"), content).await;
    let current = stack.call(owner, Method::GET, &format!("/api/owner/programs/{id}"), json!(null)).await;
    let patch = json!({"expectedRevision": current["revision"], "signupOpen": true, "accessEnabled": true});
    stack.call(owner, Method::PATCH, &format!("/api/owner/programs/{id}"), patch).await;
    secret
}

/// The built SPA is public: no private content may be baked into it.
#[test]
fn the_built_spa_holds_no_private_content() {
    let dist = dist_dir();
    assert!(dist.join("index.html").is_file(), "build the SPA first with scripts/build-web");
    let mut stack = vec![dist];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            for needle in [PRIVATE_MARKER, CONTENT_SECOND, "juniper-5520"] {
                let found = bytes.windows(needle.len()).any(|w| w == needle.as_bytes());
                assert!(!found, "{} contains private content ({needle:?})", path.display());
            }
        }
    }
}
