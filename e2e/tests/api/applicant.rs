//! The signed-in applicant's own data (issue 3, SPEC §6.3): status with position, own
//! entries across programs, withdrawal (revoking an issued invitation and an active
//! grant, idempotently) — found only through currently verified emails.

use crate::support::{TestApp, User};
use serde_json::json;
use uuid::Uuid;

/// An owner with an open program `beta` and three waiting applicants a, b, c (in order).
async fn queue() -> (TestApp, User, Uuid, Uuid) {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = app.open_program(&owner, ws, "beta").await;
    for who in ["a", "b", "c"] {
        app.signup("beta", &format!("{who}@example.com")).await.assert(202);
    }
    (app, owner, program, ws)
}

#[tokio::test]
async fn own_status_shows_state_join_time_notice_position_and_no_invitation() {
    let (app, _, _, _) = queue().await;
    let b = app.user("b@example.com").await;
    let r = app.get("/api/me/waitlist/beta", Some(&b)).await;
    r.assert(200);
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    let v = r.json();
    assert_eq!(v["state"], "waiting");
    assert_eq!(v["noticeVersion"], 1);
    assert_eq!(v["position"], 2);
    assert_eq!(v["invitation"], serde_json::Value::Null);
    assert!(v["joinedAt"].as_str().unwrap().ends_with('Z'));
    assert!(!r.text.contains("example.com"));
}

#[tokio::test]
async fn status_is_404_without_a_matching_verified_email_and_503_when_identity_is_down() {
    let (app, _, _, _) = queue().await;
    let stranger = app.user("stranger@example.com").await;
    let not_found = app.get("/api/nothing", None).await.text;
    for path in ["/api/me/waitlist/beta", "/api/me/waitlist/nope"] {
        let r = app.get(path, Some(&stranger)).await;
        r.assert(404);
        assert_eq!(r.text, not_found);
    }
    // An unverified address is not proof: the same 404.
    app.clerk.add_email(&stranger.user_id, "a@example.com", false).await;
    app.get("/api/me/waitlist/beta", Some(&stranger)).await.assert(404);
    let id = app.clerk.email_id(&stranger.user_id, "a@example.com").await;
    app.clerk.set_verified(&id, true).await;
    app.get("/api/me/waitlist/beta", Some(&stranger)).await.assert(200);
    app.clerk.users_unavailable(true).await;
    let r = app.get("/api/me/waitlist/beta", Some(&stranger)).await;
    r.assert(503);
    assert!(!r.text.contains("waiting"));
    app.get("/api/me/entries", Some(&stranger)).await.assert(503);
    app.get("/api/me/waitlist/beta", None).await.assert(401);
}

#[tokio::test]
async fn own_entries_lists_each_program_with_position_while_waiting() {
    let (app, owner, _, ws) = queue().await;
    let other = app.open_program(&owner, ws, "gamma").await;
    app.signup("gamma", "b@example.com").await.assert(202);
    let b = app.user("b@example.com").await;
    let r = app.get("/api/me/entries", Some(&b)).await;
    r.assert(200);
    let v = r.json();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!((list[0]["programSlug"].as_str(), list[0]["position"].as_i64()), (Some("beta"), Some(2)));
    assert_eq!((list[1]["programSlug"].as_str(), list[1]["position"].as_i64()), (Some("gamma"), Some(1)));
    let db = app.db().await;
    db.execute("UPDATE entries SET state = 'selected' WHERE program_id = $1", &[&other]).await.unwrap();
    let v = app.get("/api/me/entries", Some(&b)).await.json();
    assert_eq!(v[1]["state"], "selected");
    assert!(v[1].get("position").is_none(), "no position once out of the waiting queue");
    let nobody = app.user("nobody@example.com").await;
    assert_eq!(app.get("/api/me/entries", Some(&nobody)).await.json(), json!([]));
}

#[tokio::test]
async fn withdrawal_answers_withdrawn_frees_the_queue_place_and_repeats_the_same() {
    let (app, _, program, _) = queue().await;
    let a = app.user("a@example.com").await;
    let r = app.post("/api/me/waitlist/beta/withdraw", &json!({}), Some(&a)).await;
    r.assert(200);
    assert_eq!(r.json(), json!({"state": "withdrawn"}));
    let again = app.post("/api/me/waitlist/beta/withdraw", &json!({}), Some(&a)).await;
    again.assert(200);
    assert_eq!(again.text, r.text);
    let db = app.db().await;
    let row = db
        .query_one(
            "SELECT queue_count, (SELECT count(*) FROM audit_events WHERE event_type = 'withdrawn' \
               AND actor_kind = 'recipient') FROM programs WHERE id = $1",
            &[&program],
        )
        .await
        .unwrap();
    assert_eq!((row.get::<_, i32>(0), row.get::<_, i64>(1)), (2, 1));
    let status = app.get("/api/me/waitlist/beta", Some(&a)).await.json();
    assert_eq!(status["state"], "withdrawn");
    assert!(status.get("position").is_none());
    let c = app.user("c@example.com").await;
    assert_eq!(app.get("/api/me/waitlist/beta", Some(&c)).await.json()["position"], 2, "c moved up");
}

#[tokio::test]
async fn withdrawal_needs_csrf_a_matching_entry_and_a_reachable_identity_provider() {
    let (app, _, program, _) = queue().await;
    let a = app.user("a@example.com").await;
    let r = app
        .http
        .post(app.url("/api/me/waitlist/beta/withdraw"))
        .header("origin", crate::support::ORIGIN)
        .bearer_auth(&a.token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let stranger = app.user("stranger@example.com").await;
    app.post("/api/me/waitlist/beta/withdraw", &json!({}), Some(&stranger)).await.assert(404);
    app.post("/api/me/waitlist/nope/withdraw", &json!({}), Some(&a)).await.assert(404);
    app.clerk.users_unavailable(true).await;
    app.post("/api/me/waitlist/beta/withdraw", &json!({}), Some(&a)).await.assert(503);
    let db = app.db().await;
    let waiting: i64 = db
        .query_one("SELECT count(*) FROM entries WHERE program_id = $1 AND state = 'waiting'", &[&program])
        .await
        .unwrap()
        .get(0);
    assert_eq!(waiting, 3, "nothing was withdrawn");
}

/// Arranges an issued invitation (entry invited) for `a` and a redeemed invitation with
/// an active grant (entry active) for `b`, directly in SQL.
async fn invitation_and_grant(app: &TestApp, program: Uuid, b_user: &str) -> (Uuid, Uuid) {
    let db = app.db().await;
    let a = app.entry_id(program, "a@example.com").await;
    let b = app.entry_id(program, "b@example.com").await;
    db.execute("UPDATE entries SET state = 'invited' WHERE id = $1", &[&a]).await.unwrap();
    db.execute("UPDATE entries SET state = 'active' WHERE id = $1", &[&b]).await.unwrap();
    let invitation: Uuid = db
        .query_one(
            "INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at) \
             VALUES ($1, $2, gen_random_bytes(32), 'issued', now(), now() + interval '7 days') RETURNING id",
            &[&program, &a],
        )
        .await
        .unwrap()
        .get(0);
    let redeemed: Uuid = db
        .query_one(
            "INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at, terminal_at) \
             VALUES ($1, $2, gen_random_bytes(32), 'redeemed', now(), now() + interval '7 days', now()) RETURNING id",
            &[&program, &b],
        )
        .await
        .unwrap()
        .get(0);
    let grant: Uuid = db
        .query_one(
            "INSERT INTO grants (program_id, entry_id, invitation_id, clerk_user_id, granted_at) \
             VALUES ($1, $2, $3, $4, now()) RETURNING id",
            &[&program, &b, &redeemed, &b_user],
        )
        .await
        .unwrap()
        .get(0);
    (invitation, grant)
}

#[tokio::test]
async fn withdrawal_revokes_an_issued_invitation_and_an_active_grant() {
    let (app, _, program, _) = queue().await;
    let a = app.user("a@example.com").await;
    let b = app.user("b@example.com").await;
    let (invitation, grant) = invitation_and_grant(&app, program, &b.user_id).await;
    let status = app.get("/api/me/waitlist/beta", Some(&a)).await.json();
    assert_eq!(status["invitation"]["state"], "issued");
    assert!(status.get("position").is_none());

    for user in [&a, &b, &a, &b] {
        let r = app.post("/api/me/waitlist/beta/withdraw", &json!({}), Some(user)).await;
        r.assert(200);
        assert_eq!(r.json(), json!({"state": "withdrawn"}));
    }
    let db = app.db().await;
    let inv: String = db.query_one("SELECT state FROM invitations WHERE id = $1", &[&invitation]).await.unwrap().get(0);
    assert_eq!(inv, "revoked");
    let active: bool = db.query_one("SELECT active FROM grants WHERE id = $1", &[&grant]).await.unwrap().get(0);
    assert!(!active);
    let events: Vec<String> = db
        .query("SELECT details::text FROM audit_events WHERE event_type = 'withdrawn' ORDER BY id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(events.len(), 2, "one event per withdrawal, none for the repeats");
    assert!(events[0].contains(&invitation.to_string()));
    assert!(events[1].contains(&grant.to_string()));
    let status = app.get("/api/me/waitlist/beta", Some(&a)).await.json();
    assert_eq!(
        (status["state"].as_str(), status["invitation"]["state"].as_str()),
        (Some("withdrawn"), Some("revoked"))
    );
}
