//! Program-scoped private content (issue 5): a grant opens its own program and nothing
//! else; every writer's change denies the next read.

use crate::support::owner::changes;
use crate::support::{Invited, Owner, Recipient, TestApp};
use serde_json::json;
use shared::api::PatchProgramRequest;
use uuid::Uuid;

const EMAIL: &str = "rita@example.com";

/// A program `slug` whose code rita has redeemed and whose content she has just read.
async fn opened(owner: &Owner, ws: Uuid, rita: &Recipient, slug: &str) -> Invited {
    let invited = owner.invited(ws, slug, EMAIL).await;
    rita.redeem(&invited.code).await;
    rita.early_access(slug).await;
    invited
}

#[tokio::test]
async fn a_grant_to_a_never_opens_b_and_b_never_leaks_into_a() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient(EMAIL).await;
    opened(&owner, ws, &rita, "program-a").await;
    // Rita also has an entry in B, selected and invited, but she has not redeemed it.
    let b = owner.invited(ws, "program-b", EMAIL).await;
    owner.put_content(b.program, "Secret of B").await;

    let expected = app.not_found_text().await;
    let a = rita.try_early_access("program-a").await;
    assert_eq!(a.expect::<shared::api::EarlyAccessContent>(200).body, "Private notes for program-a");
    assert!(!a.text.contains("Secret of B"));
    for slug in ["program-b", "no-such-program", "UPPER", "x"] {
        rita.try_early_access(slug).await.assert_exactly(404, &expected);
    }
}

#[tokio::test]
async fn a_recipient_without_a_staff_row_gets_404_on_every_owner_route() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient(EMAIL).await;
    let invited = opened(&owner, ws, &rita, "beta-staff").await;
    let (program, entry, invitation) = (invited.program, invited.entry, invited.invitation);
    let staff: i64 = app.scalar("SELECT count(*) FROM staff_members WHERE clerk_user_id = $1", &[&rita.user_id]).await;
    assert_eq!(staff, 0);
    let grant: Uuid = app.scalar("SELECT id FROM grants WHERE entry_id = $1", &[&entry]).await;
    let expected = app.not_found_text().await;
    let gets = [
        "/api/owner/workspaces".to_owned(),
        format!("/api/owner/workspaces/{ws}/owners"),
        format!("/api/owner/programs?workspaceId={ws}"),
        format!("/api/owner/programs/{program}"),
        format!("/api/owner/programs/{program}/entries"),
        format!("/api/owner/programs/{program}/entries/{entry}"),
        format!("/api/owner/programs/{program}/content"),
        format!("/api/owner/programs/{program}/events"),
        format!("/api/owner/programs/{program}/entries.csv"),
    ];
    for path in &gets {
        let r = rita.get(path).await;
        assert_eq!((path.as_str(), r.status.as_u16(), r.text.as_str()), (path.as_str(), 404, expected.as_str()));
    }
    let posts = [
        (format!("/api/owner/programs/{program}/entries/{entry}/select"), json!({"reasonCode": "meets_policy"})),
        (format!("/api/owner/invitations/{invitation}/revoke"), json!({})),
        (format!("/api/owner/grants/{grant}/revoke"), json!({})),
        (
            format!("/api/owner/programs/{program}/notices"),
            json!({"purpose": "p", "contactText": "c", "retentionText": "r"}),
        ),
    ];
    for (path, body) in &posts {
        let r = rita.post(path, body).await;
        assert_eq!((path.as_str(), r.status.as_u16(), r.text.as_str()), (path.as_str(), 404, expected.as_str()));
    }
    rita.early_access("beta-staff").await;
}

#[tokio::test]
async fn each_writer_denies_the_next_read() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient(EMAIL).await;
    let open = async |slug: &str| opened(&owner, ws, &rita, slug).await;

    // Access switched off.
    let invited = open("gate-access").await;
    owner.set_access_enabled(invited.program, false).await;
    rita.try_early_access("gate-access").await.assert(404);

    // Owner grant revoke.
    let invited = open("gate-grant").await;
    let grant: Uuid = app.scalar("SELECT id FROM grants WHERE program_id = $1", &[&invited.program]).await;
    owner.revoke_grant(grant).await;
    rita.try_early_access("gate-grant").await.assert(404);

    // Owner-recorded withdrawal.
    let invited = open("gate-owner-wd").await;
    owner.withdraw(invited.program, invited.entry, "applicant_request").await;
    rita.try_early_access("gate-owner-wd").await.assert(404);

    // Workspace deactivated.
    open("gate-ws-2").await;
    app.exec("UPDATE workspaces SET active = false WHERE id = $1", &[&ws]).await;
    rita.try_early_access("gate-ws-2").await.assert(404);
}

#[tokio::test]
async fn an_email_deleted_or_unverified_at_the_provider_closes_the_content() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient(EMAIL).await;
    opened(&owner, ws, &rita, "gate-email").await;
    let email_id = app.clerk.email_id(&rita.user_id, EMAIL).await;
    app.clerk.set_verified(&email_id, false).await;
    rita.try_early_access("gate-email").await.assert(404);
    app.clerk.set_verified(&email_id, true).await;
    rita.early_access("gate-email").await;
    app.clerk.add_email(&rita.user_id, "second@example.com", true).await;
    app.clerk.delete_email(&email_id).await;
    rita.try_early_access("gate-email").await.assert(404);
}

#[tokio::test]
async fn a_user_deleted_at_the_provider_is_signed_out_of_the_content() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient(EMAIL).await;
    opened(&owner, ws, &rita, "gate-deleted").await;
    app.clerk.delete_user(&rita.user_id).await;
    // Her token still verifies, but the fresh lookup finds no user: signed out, not 404.
    rita.try_early_access("gate-deleted").await.expect_error(401, "signed_out");
    rita.try_entries().await.expect_error(401, "signed_out");
    let grants: i64 = app.scalar("SELECT count(*) FROM grants WHERE active", &[]).await;
    assert_eq!(grants, 1, "a lookup that finds no user changes nothing");
}

#[tokio::test]
async fn signed_out_reads_are_401_and_no_grant_is_404() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    owner.invited(ws, "gate-none", EMAIL).await;
    app.get("/api/me/early-access/gate-none", None).await.assert(401);
    let rita = app.recipient(EMAIL).await;
    rita.try_early_access("gate-none").await.assert(404);
}

#[tokio::test]
async fn the_content_comes_with_the_programs_title_when_it_has_one() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient(EMAIL).await;
    let invited = opened(&owner, ws, &rita, "titled-beta").await;
    let untitled = rita.try_early_access("titled-beta").await;
    assert_eq!(untitled.json()["title"], serde_json::Value::Null, "no title yet: {}", untitled.text);
    assert_eq!(untitled.body::<shared::api::EarlyAccessContent>().title, None);

    let title = PatchProgramRequest { title: Some("Titled Beta".into()), ..changes() };
    owner.patch_program(invited.program, title).await;
    let content = rita.early_access("titled-beta").await;
    assert_eq!(
        (content.slug.as_str(), content.title.as_deref(), content.body.as_str()),
        ("titled-beta", Some("Titled Beta"), "Private notes for titled-beta")
    );
    let doc = app.get("/api/openapi.json", None).await.json();
    let schema = &doc["components"]["schemas"]["EarlyAccessContent"];
    assert!(schema["properties"]["title"].is_object(), "the title is documented: {schema}");
}
