//! Issue 31 in the browser: the owner writes a notice version's questions with the form's
//! preview, an applicant answers them on the waitlist form, and the owner reads the
//! answers on the entry page and as the queue's column; a program that asks applicants to
//! sign in explains why, signs them in and takes one of their confirmed addresses. Every
//! page is checked at 1280 and 390 px (axe and the suite's own checks).

use crate::browser::Browser;
use crate::flows::{sign_in, sign_out};
use crate::stack::{in_browser, Stack};
use reqwest::Method;
use serde_json::{json, Value};

const OWNER: &str = "quinn.questions@example.com";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_applicant_answers_the_questions_the_owner_wrote_and_the_owner_reads_them() {
    in_browser(|stack, b| Box::pin(with_questions(stack, b))).await;
}

async fn with_questions(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    let program = stack.open_program(&owner, workspace, "asking-beta", "Hello.").await;

    // The owner writes two questions for version 2, watching the preview.
    sign_in(b, OWNER, &format!("/owner/programs/{program}/notice"), false).await;
    b.wait_text("Publish version 2").await;
    b.click_button("Add a question").await;
    b.fill("#q1-label", "What will you build?").await;
    b.tick("#q1-required").await;
    b.click_button("Add a question").await;
    b.fill("#q2-label", "Your role").await;
    b.choose("#q2-kind", "oneChoice").await;
    b.fill("#q2-choices", "Engineer\nFounder").await;
    b.fill("#q2-id", "role").await;
    b.wait_text("What will you build? (required)").await;
    b.element("#preview-role-1").await;
    b.check_page("notice-questions-editor").await;
    b.click_button("Publish this notice").await;
    b.wait_text("Version 2 is published").await;
    sign_out(b).await;

    // An applicant answers them.
    b.open("/waitlist/asking-beta").await;
    b.wait_text("A few questions").await;
    b.fill("#signup-email", "ada.answers@example.com").await;
    b.fill("#question-q1", "A telescope scheduler").await;
    b.tick("#question-role-1").await;
    b.tick("#signup-permission").await;
    b.check_page("waitlist-questions").await;
    b.click_button("Join the waitlist").await;
    b.wait_text("Thank you — your request was received").await;

    // The owner reads them on the entry and in the queue.
    let page = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}/entries"), Value::Null).await;
    let entry = page["entries"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(page["entries"][0]["answers"], json!({"q1": "A telescope scheduler", "role": "Founder"}));
    sign_in(b, OWNER, &format!("/owner/programs/{program}/entries/{entry}"), false).await;
    b.wait_text("A telescope scheduler").await;
    b.wait_text("Your role").await;
    b.check_page("entry-answers").await;
    b.open(&format!("/owner/programs/{program}/queue")).await;
    b.wait_text("ada.answers@example.com").await;
    b.click_summary("More actions").await;
    b.tick("#queue-show-answers").await;
    b.wait_text("q1: A telescope scheduler · role: Founder").await;
    b.check_page("queue-answers").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_applicant_joins_signed_in_with_a_confirmed_address() {
    in_browser(|stack, b| Box::pin(with_account(stack, b))).await;
}

async fn with_account(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    let program = stack.open_program(&owner, workspace, "account-beta", "Hello.").await;
    let notice = json!({"purpose": "Early access to account-beta.", "contactText": "lists@example.com",
        "retentionText": "Until launch.", "questions": [
            {"id": "team", "kind": "shortText", "label": "Your team", "required": true}]});
    stack.call(&owner, Method::POST, &format!("/api/owner/programs/{program}/notices"), notice).await;
    let current = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}"), Value::Null).await;
    let patch = json!({"expectedRevision": current["revision"], "joinWith": "account"});
    stack.call(&owner, Method::PATCH, &format!("/api/owner/programs/{program}"), patch).await;

    b.open("/waitlist/account-beta").await;
    b.wait_text("This waitlist asks you to sign in first").await;
    b.check_page("waitlist-account-signed-out").await;
    b.click_link("Sign in to join").await;
    b.wait_text("Development sign-in").await;
    b.fill("#sign-in-email", "vera.verified@example.com").await;
    b.click_button("Sign in").await;
    b.wait_path("/waitlist/account-beta").await;
    b.wait_text("Join with one of your confirmed addresses").await;
    b.wait_text("vera.verified@example.com").await;
    b.fill("#question-team", "Platform").await;
    b.tick("#signup-permission").await;
    b.check_page("waitlist-account-join").await;
    b.click_button("Join the waitlist").await;
    b.wait_text("Thank you — your request was received").await;

    let page = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}/entries"), Value::Null).await;
    let entry = &page["entries"][0];
    assert_eq!(entry["email"], "vera.verified@example.com");
    assert!(entry["verifiedAtJoin"].is_string(), "{entry}");
    assert_eq!(entry["answers"], json!({"team": "Platform"}));
}
