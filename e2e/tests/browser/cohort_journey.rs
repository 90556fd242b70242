//! Cohort codes in the browser (issue 14): the owner creates a cohort code on the
//! program's "Cohort codes" page (shown once, with its uses meter), and a person who is
//! on no list redeems it at `/redeem` through the notice step — the notice exactly as
//! published, an unticked box — and reads the content. The owner then sees the use, the
//! dashboard counts them as redeemed, and switching access off says that 1 person loses
//! it. Every page is checked for accessibility.
//!
//! "On grant, in Clerk" in the browser: the owner sets it on the program page (an admin
//! role is refused in the form), a grant reaches the user's public metadata and the
//! organization in `clerk-dev`, and the owner sees the succeeded calls in the log.
//!
//! Questions (issue 31): a cohort code on a program whose notice asks a question asks it
//! in the notice step, and the owner reads the answer on the entry page.

use reqwest::Method;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

use crate::browser::Browser;
use crate::flows::{sign_in, sign_out};
use crate::stack::{in_browser, Stack};

const OWNER: &str = "cora.owner@example.com";
const NEWCOMER: &str = "nia.newcomer@example.com";
const SLUG: &str = "cohort-beta";
const PURPOSE: &str = "Early access to the Cohort beta for our launch partners.";
const CONTACT: &str = "Questions: privacy@cohort.example.";
const RETENTION: &str = "We keep your address until the beta ends.";
const CONTENT: &str = "Welcome, launch partner: your build is at builds.cohort.example.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cohort_code_lets_a_new_person_in_through_the_notice_step() {
    in_browser(|stack, b| Box::pin(journey(stack, b))).await;
}

async fn journey(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    let program = arrange_program(stack, &owner, workspace).await;

    // Its public form is closed (a code is the way in), and the form's button says so.
    b.open(&format!("/waitlist/{SLUG}")).await;
    b.wait_text("Sign-ups are closed.").await;

    // The owner creates a code: shown once, then only its uses.
    sign_in(b, OWNER, &format!("/owner/programs/{program}/cohorts"), false).await;
    b.wait_text("No cohort codes yet.").await;
    b.check_page("cohorts-empty").await;
    b.fill("#cohort-label", "Launch partners").await;
    b.fill("#cohort-uses", "5").await;
    b.click_button("Create code").await;
    b.wait_text("This is the only time the code is shown.").await;
    let code = b.element("#cohort-code").await.prop("value").await.unwrap().unwrap_or_default();
    assert_eq!(code.len(), 19, "four groups of four: {code:?}");
    b.wait_text("0 / 5").await;
    b.check_page("cohorts-created").await;
    b.reload().await;
    b.wait_text("Launch partners").await;
    assert!(!b.driver.source().await.unwrap().contains(&code), "the code is in the page after a reload");
    sign_out(b).await;

    // A person on no list redeems it: the notice first, the box unticked.
    sign_in(b, NEWCOMER, "/redeem", false).await;
    b.fill("#redeem-code", &code.to_lowercase()).await;
    b.click_button("Redeem").await;
    for text in [PURPOSE, CONTACT, RETENTION] {
        b.wait_text(text).await;
    }
    let permission = b.element("#cohort-permission").await;
    assert!(!permission.is_selected().await.unwrap(), "the permission box starts unticked");
    b.check_page("redeem-notice").await;
    b.tick("#cohort-permission").await;
    b.click_button("Accept and join").await;
    b.wait_text("You're in").await;
    assert!(!b.path().await.to_lowercase().contains(&code.to_lowercase()), "no code in the URL");
    b.click_link("Open early access").await;
    b.wait_text(CONTENT).await;
    sign_out(b).await;

    // The owner sees the use, and switching access off says who loses it.
    sign_in(b, OWNER, &format!("/owner/programs/{program}/cohorts"), false).await;
    b.wait_text("1 / 5").await;
    b.open("/owner").await;
    b.wait_text("1 redeemed").await;
    b.open(&format!("/owner/programs/{program}")).await;
    b.click_button("Switch access off").await;
    b.wait_text("1 person loses access now").await;
    b.check_page("program-access-off-dialog").await;
    b.click_button("Cancel").await;
    b.wait_text("On: people with an active grant can read the content.").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grant_reaches_clerk_and_the_owner_sees_each_call_in_the_log() {
    in_browser(|stack, b| Box::pin(clerk_journey(stack, b))).await;
}

async fn clerk_journey(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    let program = arrange_program(stack, &owner, workspace).await;
    // The owner administers the organization (its creator is its org:admin, as in Clerk).
    let body = json!({"name": "Partners", "created_by": owner.user_id});
    let (status, org) = stack.clerk.backend(Method::POST, "/v1/organizations", Some(body)).await;
    assert!(status.is_success(), "{org}");
    let org = org["id"].as_str().unwrap().to_owned();

    // The owner sets it in the form; an admin role is refused before anything is saved.
    sign_in(b, OWNER, &format!("/owner/programs/{program}"), false).await;
    b.click_summary("On grant, in Clerk").await;
    b.wait_text("No calls yet.").await;
    b.tick("#clerk-metadata").await;
    b.fill("#clerk-org", &org).await;
    b.fill("#clerk-role", "org:admin").await;
    b.click_button("Save Clerk setting").await;
    b.wait_text("not an admin role").await;
    let saved = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}"), Value::Null).await;
    assert!(saved["clerk"].is_null(), "nothing saved with an admin role: {saved}");
    b.fill("#clerk-role", "org:member").await;
    b.click_button("Save Clerk setting").await;
    b.wait_text("Clerk setting saved.").await;
    let saved = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}"), Value::Null).await;
    assert_eq!(saved["clerk"], json!({"publicMetadata": true, "organizationId": org, "role": "org:member"}));

    // A grant: someone new redeems a cohort code (straight through the API).
    let expires = (chrono::Utc::now() + chrono::Duration::days(7)).to_rfc3339();
    let body = json!({"label": "Partners", "maxUses": 5, "expiresAt": expires});
    let created = stack.call(&owner, Method::POST, &format!("/api/owner/programs/{program}/cohort-codes"), body).await;
    let nia = stack.clerk.user(NEWCOMER).await;
    let redeem = json!({"code": created["code"], "noticeVersion": 1, "permission": true});
    stack.call(&nia, Method::POST, "/api/me/invitations/redeem", redeem).await;

    // Clerk holds it: the slug in her public metadata, her membership with the role.
    let in_clerk = || async {
        let (_, user) = stack.clerk.backend(Method::GET, &format!("/v1/users/{}", nia.user_id), None).await;
        let path = format!("/v1/users/{}/organization_memberships", nia.user_id);
        let (_, memberships) = stack.clerk.backend(Method::GET, &path, None).await;
        let role = memberships["data"]
            .as_array()
            .and_then(|d| d.iter().find(|m| m["organization"]["id"] == org.as_str()).map(|m| m["role"].clone()));
        user["public_metadata"]["vestibule"]["programs"][SLUG] == json!(true) && role == Some(json!("org:member"))
    };
    let log = format!("/api/owner/programs/{program}/clerk-sync/deliveries");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let calls = stack.call(&owner, Method::GET, &log, Value::Null).await;
        let succeeded =
            calls["calls"].as_array().map_or(0, |c| c.iter().filter(|c| c["outcome"] == "succeeded").count());
        if succeeded == 3 && in_clerk().await {
            break;
        }
        assert!(Instant::now() < deadline, "the grant never reached Clerk: {calls}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // The owner sees each call, in plain words.
    b.click_button("Refresh").await;
    for text in ["Note access on the account", "Check organization membership", "Add to organization", "Succeeded"] {
        b.wait_text(text).await;
    }
    assert!(!b.text().await.contains(&nia.user_id), "no Clerk user id on the page");
    b.check_page("clerk-sync-log").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cohort_code_asks_the_notices_questions_before_it_opens_the_program() {
    in_browser(|stack, b| Box::pin(questions_journey(stack, b))).await;
}

/// Issue 31: the notice step of a cohort code lists the notice's questions and asks them;
/// the button waits for the required answer; the owner reads it on the entry page.
async fn questions_journey(stack: &Stack, b: &Browser) {
    let (owner, workspace) = stack.owner(OWNER).await;
    let program = arrange_program(stack, &owner, workspace).await;
    let asking = json!({"purpose": PURPOSE, "contactText": CONTACT, "retentionText": RETENTION, "questions": [
        {"id": "company", "kind": "shortText", "label": "Your company", "required": true}]});
    stack.call(&owner, Method::POST, &format!("/api/owner/programs/{program}/notices"), asking).await;
    let expires = (chrono::Utc::now() + chrono::Duration::days(7)).to_rfc3339();
    let body = json!({"label": "Partners", "maxUses": 5, "expiresAt": expires});
    let created = stack.call(&owner, Method::POST, &format!("/api/owner/programs/{program}/cohort-codes"), body).await;
    let code = created["code"].as_str().unwrap().to_owned();

    sign_in(b, NEWCOMER, "/redeem", false).await;
    b.fill("#redeem-code", &code).await;
    b.click_button("Redeem").await;
    b.wait_text("Your company (short text, required)").await;
    b.tick("#cohort-permission").await;
    let accept = b.element("form:has(#cohort-permission) button[type=submit]").await;
    assert!(!accept.is_enabled().await.unwrap(), "the required answer is missing: the button waits");
    b.fill("#cohort-company", "Acme Rockets").await;
    assert!(accept.is_enabled().await.unwrap(), "answered and ticked: the button is on");
    b.check_page("redeem-notice-questions").await;
    b.click_button("Accept and join").await;
    b.wait_text("You're in").await;
    sign_out(b).await;

    let entries = stack.call(&owner, Method::GET, &format!("/api/owner/programs/{program}/entries"), Value::Null).await;
    let entry = entries["entries"][0]["id"].as_str().unwrap().to_owned();
    sign_in(b, OWNER, &format!("/owner/programs/{program}/entries/{entry}"), false).await;
    b.wait_text("Acme Rockets").await;
    b.wait_text("Joined signed in, with an address the account had confirmed").await;
}

/// An open program with its notice, content and access on, straight through the API.
async fn arrange_program(stack: &Stack, owner: &crate::common::clerk::User, workspace: uuid::Uuid) -> String {
    let body = json!({"workspaceId": workspace, "slug": SLUG, "purpose": PURPOSE, "queueCap": 100,
        "hourlyCap": 100, "seatCap": 100, "maxInviteDays": 14});
    let program = stack.call(owner, Method::POST, "/api/owner/programs", body).await;
    let id = program["id"].as_str().unwrap().to_owned();
    let notice = json!({"purpose": PURPOSE, "contactText": CONTACT, "retentionText": RETENTION});
    stack.call(owner, Method::POST, &format!("/api/owner/programs/{id}/notices"), notice).await;
    let content = json!({"expectedRevision": 0, "body": CONTENT});
    stack.call(owner, Method::PUT, &format!("/api/owner/programs/{id}/content"), content).await;
    let current = stack.call(owner, Method::GET, &format!("/api/owner/programs/{id}"), json!(null)).await;
    let patch = json!({"expectedRevision": current["revision"], "accessEnabled": true});
    stack.call(owner, Method::PATCH, &format!("/api/owner/programs/{id}"), patch).await;
    id
}
