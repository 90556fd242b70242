//! Program-scoped private content (issue 5): a grant opens its own program and nothing
//! else; every writer's change denies the next read.

use crate::support::TestApp;
use serde_json::json;

const EMAIL: &str = "rita@example.com";

#[tokio::test]
async fn a_grant_to_a_never_opens_b_and_b_never_leaks_into_a() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let rita = app.user(EMAIL).await;
    let (_, _, _, code_a) = app.invited(&owner, ws, "program-a", EMAIL).await;
    app.redeem(&rita, &code_a).await.assert(200);
    // Rita also has an entry in B, selected and invited, but she has not redeemed it.
    let (program_b, _, _, _) = app.invited(&owner, ws, "program-b", EMAIL).await;
    app.put_content(&owner, program_b, "Secret of B").await.assert(200);

    let expected = app.get("/api/nothing", None).await.text;
    let a = app.get("/api/me/early-access/program-a", Some(&rita)).await;
    a.assert(200);
    assert!(a.text.contains("Private notes for program-a"));
    assert!(!a.text.contains("Secret of B"));
    let b = app.get("/api/me/early-access/program-b", Some(&rita)).await;
    b.assert(404);
    assert_eq!(b.text, expected);
    for slug in ["no-such-program", "UPPER", "x"] {
        let r = app.get(&format!("/api/me/early-access/{slug}"), Some(&rita)).await;
        r.assert(404);
        assert_eq!(r.text, expected);
    }
}

#[tokio::test]
async fn a_recipient_without_a_staff_row_gets_404_on_every_owner_route() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let rita = app.user(EMAIL).await;
    let (program, entry, invitation, code) = app.invited(&owner, ws, "beta-staff", EMAIL).await;
    app.redeem(&rita, &code).await.assert(200);
    let db = app.db().await;
    let staff: i64 = db
        .query_one("SELECT count(*) FROM staff_members WHERE clerk_user_id = $1", &[&rita.user_id])
        .await
        .unwrap()
        .get(0);
    assert_eq!(staff, 0);
    let grant: uuid::Uuid = db.query_one("SELECT id FROM grants WHERE entry_id = $1", &[&entry]).await.unwrap().get(0);
    let expected = app.get("/api/nothing", None).await.text;
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
        let r = app.get(path, Some(&rita)).await;
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
        let r = app.post(path, body, Some(&rita)).await;
        assert_eq!((path.as_str(), r.status.as_u16(), r.text.as_str()), (path.as_str(), 404, expected.as_str()));
    }
    app.get("/api/me/early-access/beta-staff", Some(&rita)).await.assert(200);
}

#[tokio::test]
async fn each_writer_denies_the_next_read() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let db = app.db().await;

    // Access switched off.
    let rita = app.user(EMAIL).await;
    let (program, _, _, code) = app.invited(&owner, ws, "gate-access", EMAIL).await;
    app.redeem(&rita, &code).await.assert(200);
    app.get("/api/me/early-access/gate-access", Some(&rita)).await.assert(200);
    app.patch_program(&owner, program, json!({"accessEnabled": false})).await.assert(200);
    app.get("/api/me/early-access/gate-access", Some(&rita)).await.assert(404);

    // Owner grant revoke.
    let (program, _, _, code) = app.invited(&owner, ws, "gate-grant", EMAIL).await;
    app.redeem(&rita, &code).await.assert(200);
    let grant: uuid::Uuid =
        db.query_one("SELECT id FROM grants WHERE program_id = $1", &[&program]).await.unwrap().get(0);
    app.post(&format!("/api/owner/grants/{grant}/revoke"), &json!({}), Some(&owner)).await.assert(200);
    app.get("/api/me/early-access/gate-grant", Some(&rita)).await.assert(404);

    // Owner-recorded withdrawal.
    let (program, entry, _, code) = app.invited(&owner, ws, "gate-owner-wd", EMAIL).await;
    app.redeem(&rita, &code).await.assert(200);
    let path = format!("/api/owner/programs/{program}/entries/{entry}/withdraw");
    app.post(&path, &json!({"basis": "applicant_request"}), Some(&owner)).await.assert(200);
    app.get("/api/me/early-access/gate-owner-wd", Some(&rita)).await.assert(404);

    // Workspace deactivated.
    let (_, _, _, code) = app.invited(&owner, ws, "gate-ws-2", EMAIL).await;
    app.redeem(&rita, &code).await.assert(200);
    app.get("/api/me/early-access/gate-ws-2", Some(&rita)).await.assert(200);
    db.execute("UPDATE workspaces SET active = false WHERE id = $1", &[&ws]).await.unwrap();
    app.get("/api/me/early-access/gate-ws-2", Some(&rita)).await.assert(404);
}

#[tokio::test]
async fn an_email_deleted_or_unverified_at_the_provider_closes_the_content() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let rita = app.user(EMAIL).await;
    let (_, _, _, code) = app.invited(&owner, ws, "gate-email", EMAIL).await;
    app.redeem(&rita, &code).await.assert(200);
    let email_id = app.clerk.email_id(&rita.user_id, EMAIL).await;
    app.clerk.set_verified(&email_id, false).await;
    app.get("/api/me/early-access/gate-email", Some(&rita)).await.assert(404);
    app.clerk.set_verified(&email_id, true).await;
    app.get("/api/me/early-access/gate-email", Some(&rita)).await.assert(200);
    app.clerk.add_email(&rita.user_id, "second@example.com", true).await;
    app.clerk.delete_email(&email_id).await;
    app.get("/api/me/early-access/gate-email", Some(&rita)).await.assert(404);
}

#[tokio::test]
async fn signed_out_reads_are_401_and_no_grant_is_404() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    app.invited(&owner, ws, "gate-none", EMAIL).await;
    app.get("/api/me/early-access/gate-none", None).await.assert(401);
    let rita = app.user(EMAIL).await;
    app.get("/api/me/early-access/gate-none", Some(&rita)).await.assert(404);
}
