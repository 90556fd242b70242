//! Redemption (issue 5): a code becomes a grant only for the recipient whose currently
//! verified email is the entry's, once, while everything around it still holds.

use crate::support::race::LockHolder;
use crate::support::{TestApp, User};
use serde_json::json;
use uuid::Uuid;

const EMAIL: &str = "rita@example.com";

async fn not_found_body(app: &TestApp) -> String {
    app.get("/api/nothing", None).await.text
}

#[tokio::test]
async fn the_invited_recipient_redeems_once_and_reads_the_content() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entry, invitation, code) = app.invited(&owner, ws, "beta-one", EMAIL).await;
    let rita = app.user(EMAIL).await;

    let r = app.redeem(&rita, &code).await;
    r.assert(200);
    assert_eq!(r.json(), json!({"programSlug": "beta-one", "state": "active"}));
    let content = app.get("/api/me/early-access/beta-one", Some(&rita)).await;
    content.assert(200);
    assert_eq!(content.json()["body"], "Private notes for beta-one");
    assert_eq!(content.header("cache-control"), Some("private, no-store"));

    let db = app.db().await;
    let row = db
        .query_one(
            "SELECT i.state, e.state, g.clerk_user_id, g.active FROM invitations i JOIN entries e ON e.id = i.entry_id \
             JOIN grants g ON g.invitation_id = i.id WHERE i.id = $1",
            &[&invitation],
        )
        .await
        .unwrap();
    assert_eq!(row.get::<_, &str>(0), "redeemed");
    assert_eq!(row.get::<_, &str>(1), "active");
    assert_eq!(row.get::<_, &str>(2), rita.user_id);
    assert!(row.get::<_, bool>(3));
    let events: Vec<String> = db
        .query("SELECT event_type FROM audit_events WHERE entry_id = $1 ORDER BY id", &[&entry])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(events.last().map(String::as_str), Some("redeemed"));

    // A replay is the generic 404, and nothing changes.
    let replay = app.redeem(&rita, &code).await;
    replay.assert(404);
    assert_eq!(replay.text, not_found_body(&app).await);
    let grants: i64 =
        db.query_one("SELECT count(*) FROM grants WHERE program_id = $1", &[&program]).await.unwrap().get(0);
    assert_eq!(grants, 1);
}

#[tokio::test]
async fn every_failure_is_the_same_404() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let expected = not_found_body(&app).await;
    let (program, _, _, code) = app.invited(&owner, ws, "beta-fail", EMAIL).await;

    // Another person, even signed in and verified.
    let mallory = app.user("mallory@example.com").await;
    let r = app.redeem(&mallory, &code).await;
    r.assert(404);
    assert_eq!(r.text, expected);

    // The right address, but not verified on this account.
    let sneaky = app.user("sneaky@example.com").await;
    app.clerk.add_email(&sneaky.user_id, EMAIL, false).await;
    let r = app.redeem(&sneaky, &code).await;
    r.assert(404);
    assert_eq!(r.text, expected);

    // An unknown code of the right shape.
    let rita = app.user(EMAIL).await;
    let r = app.redeem(&rita, &"A".repeat(43)).await;
    r.assert(404);
    assert_eq!(r.text, expected);

    // Nothing was granted along the way.
    let db = app.db().await;
    let grants: i64 =
        db.query_one("SELECT count(*) FROM grants WHERE program_id = $1", &[&program]).await.unwrap().get(0);
    assert_eq!(grants, 0);
}

#[tokio::test]
async fn malformed_codes_are_400_before_any_lookup() {
    let app = TestApp::spawn().await;
    let rita = app.user(EMAIL).await;
    app.clerk.users_unavailable(true).await;
    for code in ["", "short", &"A".repeat(44), &format!("{}=", "A".repeat(42)), &"*".repeat(43)] {
        app.redeem(&rita, code).await.assert(400);
    }
    let r = app.post("/api/me/invitations/redeem", &json!({"code": "x", "extra": 1}), Some(&rita)).await;
    r.assert(400);
}

#[tokio::test]
async fn a_code_without_a_delivery_record_does_not_redeem() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = app.open_program(&owner, ws, "beta-nodeliv").await;
    app.signup("beta-nodeliv", EMAIL).await.assert(202);
    let entry = app.entry_id(program, EMAIL).await;
    app.select(&owner, program, entry).await.assert(200);
    let (invitation, code) = app.issue(&owner, program, entry).await;
    let rita = app.user(EMAIL).await;
    app.redeem(&rita, &code).await.assert(404);
    app.record_delivery(&owner, invitation).await.assert(200);
    app.redeem(&rita, &code).await.assert(200);
}

#[tokio::test]
async fn expired_and_revoked_codes_do_not_redeem() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (_, _, invitation, code) = app.invited(&owner, ws, "beta-exp", EMAIL).await;
    let rita = app.user(EMAIL).await;
    let db = app.db().await;
    db.execute(
        "UPDATE invitations SET issued_at = clock_timestamp() - interval '2 days', expires_at = clock_timestamp() - interval '1 second' WHERE id = $1",
        &[&invitation],
    )
    .await
    .unwrap();
    app.redeem(&rita, &code).await.assert(404);

    let (_, _, invitation, code) = app.invited(&owner, ws, "beta-rev", EMAIL).await;
    app.post(&format!("/api/owner/invitations/{invitation}/revoke"), &json!({}), Some(&owner)).await.assert(200);
    app.redeem(&rita, &code).await.assert(404);
}

#[tokio::test]
async fn a_withdrawn_entry_cannot_redeem_and_withdrawal_closes_the_content() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let rita = app.user(EMAIL).await;
    let (_, _, _, code) = app.invited(&owner, ws, "beta-wd", EMAIL).await;
    app.post("/api/me/waitlist/beta-wd/withdraw", &json!({}), Some(&rita)).await.assert(200);
    app.redeem(&rita, &code).await.assert(404);

    let (_, _, _, code) = app.invited(&owner, ws, "beta-wd2", EMAIL).await;
    app.redeem(&rita, &code).await.assert(200);
    app.get("/api/me/early-access/beta-wd2", Some(&rita)).await.assert(200);
    app.post("/api/me/waitlist/beta-wd2/withdraw", &json!({}), Some(&rita)).await.assert(200);
    app.get("/api/me/early-access/beta-wd2", Some(&rita)).await.assert(404);
}

#[tokio::test]
async fn identity_provider_down_is_503_with_no_data() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (_, _, _, code) = app.invited(&owner, ws, "beta-down", EMAIL).await;
    let rita = app.user(EMAIL).await;
    app.clerk.users_unavailable(true).await;
    let r = app.redeem(&rita, &code).await;
    r.assert(503);
    assert_eq!(r.code(), "identity_unavailable");
    app.clerk.users_unavailable(false).await;
    app.redeem(&rita, &code).await.assert(200);
    app.clerk.users_unavailable(true).await;
    let r = app.get("/api/me/early-access/beta-down", Some(&rita)).await;
    r.assert(503);
    assert!(!r.text.contains("Private notes"));
}

#[tokio::test]
async fn failed_attempts_are_rate_limited_per_account() {
    let app = TestApp::spawn_with(|s| s.redeem_failures_per_15min = 3).await;
    // Failures are counted in fixed 15-minute windows: stay inside one.
    crate::support::clear_of_period_end(900, 20).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (_, _, _, code) = app.invited(&owner, ws, "beta-rl", EMAIL).await;
    let rita = app.user(EMAIL).await;
    for i in 0..3 {
        let wrong = format!("{}{}", "B".repeat(42), ["A", "Q", "g"][i]);
        app.redeem(&rita, &wrong).await.assert(404);
    }
    let r = app.redeem(&rita, &code).await;
    r.assert(429);
    assert!(!r.text.contains('3'), "the count is not revealed: {}", r.text);
    // Another account is not affected.
    let other = app.user("other@example.com").await;
    app.redeem(&other, &format!("{}A", "C".repeat(42))).await.assert(404);
}

/// The database never holds an active grant on a revoked invitation or a withdrawn entry.
async fn assert_invariants(app: &TestApp) {
    let db = app.db().await;
    let bad: i64 = db
        .query_one(
            "SELECT count(*) FROM grants g JOIN invitations i ON i.id = g.invitation_id JOIN entries e ON e.id = g.entry_id \
             WHERE g.active AND (i.state <> 'redeemed' OR e.state <> 'active')",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(bad, 0);
}

async fn race_setup(app: &TestApp, slug: &str) -> (User, Uuid, Uuid, String, User) {
    let (owner, ws) = app.owner(&format!("owner-{slug}@example.com")).await;
    let (program, _, invitation, code) = app.invited(&owner, ws, slug, EMAIL).await;
    let rita = app.user(EMAIL).await;
    (owner, program, invitation, code, rita)
}

#[tokio::test]
async fn revoke_versus_redeem_in_both_orders() {
    let app = TestApp::spawn().await;
    // Revoke queued first: it wins, the redemption finds nothing.
    let (owner, program, invitation, code, rita) = race_setup(&app, "race-rv1").await;
    let hold = LockHolder::lock(&app.db_url, "programs", program).await;
    let revoke_path = format!("/api/owner/invitations/{invitation}/revoke");
    let (revoke, redeem) =
        hold.in_order(app.post(&revoke_path, &json!({}), Some(&owner)), app.redeem(&rita, &code)).await;
    assert_eq!((revoke.status.as_u16(), redeem.status.as_u16()), (200, 404));
    assert_invariants(&app).await;

    // Redeem queued first: it wins, the revocation finds no issued invitation.
    let (owner, program, invitation, code, rita) = race_setup(&app, "race-rv2").await;
    let hold = LockHolder::lock(&app.db_url, "programs", program).await;
    let revoke_path = format!("/api/owner/invitations/{invitation}/revoke");
    let (redeem, revoke) =
        hold.in_order(app.redeem(&rita, &code), app.post(&revoke_path, &json!({}), Some(&owner))).await;
    assert_eq!((redeem.status.as_u16(), revoke.status.as_u16()), (200, 409));
    assert_invariants(&app).await;
}

#[tokio::test]
async fn withdraw_versus_redeem_in_both_orders() {
    let app = TestApp::spawn().await;
    let withdraw_path = |slug: &str| format!("/api/me/waitlist/{slug}/withdraw");
    let (_, program, _, code, rita) = race_setup(&app, "race-wd1").await;
    let hold = LockHolder::lock(&app.db_url, "programs", program).await;
    let (withdraw, redeem) =
        hold.in_order(app.post(&withdraw_path("race-wd1"), &json!({}), Some(&rita)), app.redeem(&rita, &code)).await;
    assert_eq!((withdraw.status.as_u16(), redeem.status.as_u16()), (200, 404));
    assert_invariants(&app).await;

    let (_, program, _, code, rita) = race_setup(&app, "race-wd2").await;
    let hold = LockHolder::lock(&app.db_url, "programs", program).await;
    let (redeem, withdraw) =
        hold.in_order(app.redeem(&rita, &code), app.post(&withdraw_path("race-wd2"), &json!({}), Some(&rita))).await;
    assert_eq!((redeem.status.as_u16(), withdraw.status.as_u16()), (200, 200));
    assert_invariants(&app).await;
    // The withdrawal that came second deactivated the fresh grant.
    let db = app.db().await;
    let active: i64 =
        db.query_one("SELECT count(*) FROM grants WHERE program_id = $1 AND active", &[&program]).await.unwrap().get(0);
    assert_eq!(active, 0);
}

#[tokio::test]
async fn grant_revoke_versus_read_in_both_orders() {
    let app = TestApp::spawn().await;
    for (slug, revoke_first) in [("race-rd1", true), ("race-rd2", false)] {
        let (owner, program, _, code, rita) = race_setup(&app, slug).await;
        app.redeem(&rita, &code).await.assert(200);
        let db = app.db().await;
        let grant: Uuid =
            db.query_one("SELECT id FROM grants WHERE program_id = $1", &[&program]).await.unwrap().get(0);
        let revoke_path = format!("/api/owner/grants/{grant}/revoke");
        let read_path = format!("/api/me/early-access/{slug}");
        let hold = LockHolder::lock(&app.db_url, "programs", program).await;
        let (revoke, read) = if revoke_first {
            hold.in_order(app.post(&revoke_path, &json!({}), Some(&owner)), app.get(&read_path, Some(&rita))).await
        } else {
            let (read, revoke) =
                hold.in_order(app.get(&read_path, Some(&rita)), app.post(&revoke_path, &json!({}), Some(&owner))).await;
            (revoke, read)
        };
        revoke.assert(200);
        // A reader that got the lock first may finish its already-authorized read; a
        // revocation that committed first denies it.
        read.assert(if revoke_first { 404 } else { 200 });
        app.get(&read_path, Some(&rita)).await.assert(404);
        assert_invariants(&app).await;
    }
}
