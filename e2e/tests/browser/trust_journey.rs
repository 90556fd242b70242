//! Issues 16 and 29 in the browser: the owner opens a lottery draw over one source on the
//! program's "Lottery" page (the filter is shown in words and is in the record), runs it
//! in a separate step on its drand round (the test stack's local chain, whose relay
//! answers) and downloads its record, which recomputes offline with the same code as
//! `vestibule verify-draw`; the waitlist page links "How this draw is run", which lists
//! the draw publicly; the audit page downloads the chain's checkpoint.
//! An applicant sees their own ticket and whether it was drawn on `/me`, downloads their
//! data (theirs only), and erases their entry: the receipt id is shown and the entry is
//! gone. Every page is checked for accessibility.

use reqwest::Method;
use serde_json::json;
use shared::draws::{AnyDrawRecord, BeaconDrawRecord, DrawState};
use shared::trust::{AuditCheckpoint, PersonalDataExport};
use thirtyfour::By;
use uuid::Uuid;

use crate::browser::Browser;
use crate::flows::{sign_in, sign_out};
use crate::stack::{in_browser, Stack};

const OWNER: &str = "lena.owner@example.com";
const APPLICANTS: [&str; 3] = ["ada.applicant@example.com", "ben.applicant@example.com", "cy.applicant@example.com"];
const SLUG: &str = "lucky-beta";
const PURPOSE: &str = "Early access to the Lucky beta, seats drawn by lot.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_draws_by_lot_and_an_applicant_sees_their_ticket_then_erases_their_entry() {
    in_browser(|stack, b| Box::pin(journey(stack, b))).await;
}

async fn journey(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    let program = arrange_program(stack, &owner, workspace).await;
    // Two came from the newsletter (`?ref=newsletter`), one from elsewhere.
    for (email, source) in APPLICANTS.iter().zip([Some("newsletter"), Some("newsletter"), None]) {
        signup(stack, email, source).await;
    }

    // The owner opens a draw for one winner among the newsletter's applicants, then runs it
    // in a second step.
    sign_in(b, OWNER, &format!("/owner/programs/{program}/draws"), false).await;
    b.wait_text("No draws yet.").await;
    b.check_page("draws-empty").await;
    b.fill("#draw-winners", "1").await;
    b.fill("#draw-source", "newsletter").await;
    b.click_button("Open draw").await;
    b.wait_text("Draw opened with 2 tickets.").await;
    b.wait_text("1 to draw from 2 tickets").await;
    b.wait_text("Candidates: waiting entries from source “newsletter”.").await;
    b.wait_text("Randomness: drand round").await;
    b.check_page("draws-open").await;
    // The draw's round is due within two seconds of the close (the stack's 1-second chain
    // and margin); the relay publishes it then.
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    b.click_button("Run draw").await;
    b.click_button("Run it").await;
    b.wait_text("on the round's randomness").await;
    // Issue 27: the outcome and the way on, and the opening's news gone.
    b.wait_text("1 winner selected").await;
    let issue =
        b.driver.find(By::XPath("//a[normalize-space(.)='Issue codes to the winners']")).await.expect("the way on");
    assert_eq!(issue.attr("href").await.unwrap(), Some(format!("/owner/programs/{program}/queue?state=selected")));
    assert!(!b.text().await.contains("Draw opened"), "the opening's banner went with the run");
    b.click_button("Download record").await;
    let draw_file = until_file(b, "draw-").await;
    let record: BeaconDrawRecord = serde_json::from_str(&draw_file).expect("a draw record");
    assert_eq!((record.state, record.tickets.len(), record.drawn.len()), (DrawState::Run, 2, 1));
    assert_eq!(record.filter.source.as_ref().map(|s| s.as_str()), Some("newsletter"));
    let any = AnyDrawRecord::Beacon(Box::new(record.clone()));
    assert_eq!(api::draw::verify(&any), Vec::<String>::new(), "the downloaded record recomputes");
    assert!(!draw_file.contains('@'), "tickets reveal no email");
    b.check_page("draws-run").await;

    // The waitlist page says how the draw is run and lists it, publicly.
    b.open(&format!("/waitlist/{SLUG}")).await;
    b.wait_text("Seats here are drawn by lot.").await;
    b.check_page("waitlist-drawn-by-lot").await;
    b.click_link("How this draw is run").await;
    b.wait_text("Draws of this waitlist").await;
    b.wait_text("1 to win").await;
    b.check_page("draws-public").await;

    // The audit page hands out the chain's checkpoint.
    b.open(&format!("/owner/programs/{program}/audit")).await;
    b.wait_text("Tamper evidence").await;
    b.click_button("Download checkpoint").await;
    let checkpoint: AuditCheckpoint =
        serde_json::from_str(&b.downloaded(&format!("audit-checkpoint-{program}.json")).await).expect("a checkpoint");
    assert_eq!(checkpoint.program_id.to_string(), program);
    assert!(checkpoint.count >= 5, "notice, signups, the draw and its winner: {checkpoint:?}");
    b.check_page("audit-checkpoint").await;

    // The owner erases another applicant's entry on their request, with a reason.
    let ben = APPLICANTS[1];
    b.open(&format!("/owner/programs/{program}/queue")).await;
    b.click_link(ben).await;
    b.wait_text("Erase on the person's request").await;
    b.choose("#entry-erase", "legal_obligation").await;
    b.click_button("Erase").await;
    b.wait_text("Erased on request: the address is gone from this entry.").await;
    b.check_page("entry-erased").await;
    b.reload().await;
    b.wait_text("redacted+").await;
    assert!(!b.text().await.contains(ben), "the erased address is still shown");
    sign_out(b).await;

    // An applicant sees their ticket and whether it was drawn.
    let ada = APPLICANTS[0];
    sign_in(b, ada, "/me", false).await;
    b.wait_text("your ticket").await;
    let ticket = b.element(".tickets code.hash").await.prop("textContent").await.unwrap().unwrap_or_default();
    let outcome = if record.drawn.contains(&ticket) { "Drawn" } else { "Not drawn" };
    assert!(record.tickets.contains(&ticket), "{ticket} is one of the draw's tickets");
    b.wait_text(&format!("{outcome} · your ticket {}…", &ticket[..8])).await;
    b.check_page("me-ticket").await;

    // Their data, and nobody else's.
    b.click_button("Download my data").await;
    let text = b.downloaded("my-vestibule-data.json").await;
    let export: PersonalDataExport = serde_json::from_str(&text).expect("an export");
    assert_eq!(export.emails, [ada]);
    assert_eq!(export.entries.len(), 1);
    assert_eq!(export.entries[0].draws.len(), 1);
    for other in &APPLICANTS[1..] {
        assert!(!text.contains(other), "another person's address in the export");
    }

    // Erasure: asked first, then the receipt, and the entry is gone.
    b.click_button("Erase my entry").await;
    b.click_button("Yes, erase").await;
    b.wait_text("Receipt:").await;
    let receipt = b.element("#erasure-receipt").await.text().await.unwrap();
    assert!(Uuid::parse_str(&receipt).is_ok(), "{receipt}");
    b.wait_text("You are not on any waitlist").await;
    b.check_page("me-erased").await;
    b.reload().await;
    b.wait_text("You are not on any waitlist").await;
}

/// The first download whose name starts with `prefix` (the draw's id is in its name).
async fn until_file(b: &Browser, prefix: &str) -> String {
    for _ in 0..100 {
        let found = std::fs::read_dir(&b.downloads)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|n| n.starts_with(prefix) && n.ends_with(".json"));
        if let Some(name) = found {
            return b.downloaded(&name).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("no download starting with {prefix}");
}

/// An open program without proof of work (the applicants sign up through the API).
async fn arrange_program(stack: &Stack, owner: &crate::common::clerk::User, workspace: Uuid) -> String {
    let body = json!({"workspaceId": workspace, "slug": SLUG, "purpose": PURPOSE, "queueCap": 100,
        "hourlyCap": 100, "seatCap": 1, "maxInviteDays": 14});
    let program = stack.call(owner, Method::POST, "/api/owner/programs", body).await;
    let id = program["id"].as_str().unwrap().to_owned();
    let notice =
        json!({"purpose": PURPOSE, "contactText": "lucky@example.com", "retentionText": "Until the beta ends."});
    stack.call(owner, Method::POST, &format!("/api/owner/programs/{id}/notices"), notice).await;
    let current = stack.call(owner, Method::GET, &format!("/api/owner/programs/{id}"), json!(null)).await;
    let patch = json!({"expectedRevision": current["revision"], "signupOpen": true, "proofOfWork": "off"});
    stack.call(owner, Method::PATCH, &format!("/api/owner/programs/{id}"), patch).await;
    id
}

async fn signup(stack: &Stack, email: &str, source: Option<&str>) {
    let mut body = json!({"requestKey": Uuid::new_v4(), "email": email, "noticeVersion": 1, "permission": true});
    if let Some(source) = source {
        body["ref"] = json!(source);
    }
    let reply = reqwest::Client::new()
        .post(format!("{}/api/public/programs/{SLUG}/signups", stack.base))
        .header("origin", &stack.base)
        .json(&body)
        .send()
        .await
        .expect("signup sent");
    assert_eq!(reply.status().as_u16(), 202, "{email}: {}", reply.text().await.unwrap_or_default());
}
