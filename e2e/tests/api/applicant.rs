//! The signed-in applicant's own data (issue 3, SPEC §6.3): status with position, own
//! entries across programs, withdrawal (revoking an issued invitation and an active
//! grant, idempotently) — found only through currently verified emails.

use crate::support::{Owner, TestApp};
use serde_json::json;
use shared::api::WithdrawResponse;
use uuid::Uuid;

/// An owner with an open program `beta` and three waiting applicants a, b, c (in order);
/// returns (app, owner, program id, workspace id).
async fn queue() -> (TestApp, Owner, Uuid, Uuid) {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "beta").await;
    for who in ["a", "b", "c"] {
        app.signup("beta", &format!("{who}@example.com")).await;
    }
    (app, owner, program, ws)
}

#[tokio::test]
async fn own_status_shows_state_join_time_notice_position_and_no_invitation() {
    let (app, _, _, _) = queue().await;
    let b = app.recipient("b@example.com").await;
    let r = b.try_status("beta").await;
    let status: shared::api::OwnWaitlistStatus = r.expect(200);
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    assert_eq!(status.state, shared::EntryState::Waiting);
    assert_eq!(status.notice_version, 1);
    assert_eq!(status.position, Some(2));
    assert_eq!(status.invitation, None);
    assert!(status.joined_at.ends_with('Z'));
    assert!(!r.text.contains("example.com"));
}

#[tokio::test]
async fn status_is_404_without_a_matching_verified_email_and_503_when_identity_is_down() {
    let (app, _, _, _) = queue().await;
    let stranger = app.recipient("stranger@example.com").await;
    let not_found = app.not_found_text().await;
    for slug in ["beta", "nope"] {
        stranger.try_status(slug).await.assert_exactly(404, &not_found);
    }
    // An unverified address is not proof: the same 404.
    app.clerk.add_email(&stranger.user_id, "a@example.com", false).await;
    stranger.try_status("beta").await.assert_exactly(404, &not_found);
    let id = app.clerk.email_id(&stranger.user_id, "a@example.com").await;
    app.clerk.set_verified(&id, true).await;
    stranger.status("beta").await;
    app.clerk.users_unavailable(true).await;
    let r = stranger.try_status("beta").await;
    r.expect_error(503, "identity_unavailable");
    assert!(!r.text.contains("waiting"));
    stranger.try_entries().await.assert(503);
    app.get("/api/me/waitlist/beta", None).await.assert(401);
}

#[tokio::test]
async fn own_entries_lists_each_program_with_position_while_waiting() {
    let (app, owner, _, ws) = queue().await;
    let other = owner.open_program(ws, "gamma").await;
    app.signup("gamma", "b@example.com").await;
    let b = app.recipient("b@example.com").await;
    let list = b.entries().await;
    let shown: Vec<(&str, Option<i64>)> = list.iter().map(|e| (e.program_slug.as_str(), e.position)).collect();
    assert_eq!(shown, [("beta", Some(2)), ("gamma", Some(1))]);
    app.exec("UPDATE entries SET state = 'selected' WHERE program_id = $1", &[&other]).await;
    let list = b.entries().await;
    assert_eq!(list[1].state, shared::EntryState::Selected);
    assert_eq!(list[1].position, None, "no position once out of the waiting queue");
    let nobody = app.recipient("nobody@example.com").await;
    assert_eq!(nobody.entries().await, vec![]);
}

#[tokio::test]
async fn withdrawal_answers_withdrawn_frees_the_queue_place_and_repeats_the_same() {
    let (app, _, program, _) = queue().await;
    let a = app.recipient("a@example.com").await;
    let r = a.try_withdraw("beta").await;
    assert_eq!(r.expect::<WithdrawResponse>(200).state, shared::EntryState::Withdrawn);
    // The wire shape itself, pinned as raw JSON: a rename in `shared` must show here.
    assert_eq!(r.json(), json!({"state": "withdrawn"}));
    let again = a.try_withdraw("beta").await;
    again.assert(200);
    assert_eq!(again.text, r.text);
    let row = app
        .row(
            "SELECT queue_count, (SELECT count(*) FROM audit_events WHERE event_type = 'withdrawn' \
               AND actor_kind = 'recipient') FROM programs WHERE id = $1",
            &[&program],
        )
        .await;
    assert_eq!((row.get::<_, i32>(0), row.get::<_, i64>(1)), (2, 1));
    let status = a.status("beta").await;
    assert_eq!((status.state.as_str(), status.position), ("withdrawn", None));
    let c = app.recipient("c@example.com").await;
    assert_eq!(c.status("beta").await.position, Some(2), "c moved up");
}

#[tokio::test]
async fn withdrawal_needs_csrf_a_matching_entry_and_a_reachable_identity_provider() {
    let (app, _, program, _) = queue().await;
    let a = app.recipient("a@example.com").await;
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
    let stranger = app.recipient("stranger@example.com").await;
    stranger.try_withdraw("beta").await.assert(404);
    a.try_withdraw("nope").await.assert(404);
    app.clerk.users_unavailable(true).await;
    a.try_withdraw("beta").await.assert(503);
    let waiting: i64 =
        app.scalar("SELECT count(*) FROM entries WHERE program_id = $1 AND state = 'waiting'", &[&program]).await;
    assert_eq!(waiting, 3, "nothing was withdrawn");
}

/// Arranges an issued invitation (entry invited) for `a` and a redeemed invitation with
/// an active grant (entry active) for `b`, directly in SQL.
async fn invitation_and_grant(app: &TestApp, program: Uuid, b_user: &str) -> (Uuid, Uuid) {
    let a = app.entry_id(program, "a@example.com").await;
    let b = app.entry_id(program, "b@example.com").await;
    app.exec("UPDATE entries SET state = 'invited' WHERE id = $1", &[&a]).await;
    app.exec("UPDATE entries SET state = 'active' WHERE id = $1", &[&b]).await;
    let invitation: Uuid = app
        .scalar(
            "INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at) \
             VALUES ($1, $2, gen_random_bytes(32), 'issued', now(), now() + interval '7 days') RETURNING id",
            &[&program, &a],
        )
        .await;
    let (_, grant) = app.grant_by_sql(program, b, b_user).await;
    (invitation, grant)
}

#[tokio::test]
async fn withdrawal_revokes_an_issued_invitation_and_an_active_grant() {
    let (app, _, program, _) = queue().await;
    let a = app.recipient("a@example.com").await;
    let b = app.recipient("b@example.com").await;
    let (invitation, grant) = invitation_and_grant(&app, program, &b.user_id).await;
    let status = a.status("beta").await;
    assert_eq!(status.invitation.map(|i| i.state), Some(shared::InvitationState::Issued));
    assert_eq!(status.position, None);

    for user in [&a, &b, &a, &b] {
        assert_eq!(user.withdraw("beta").await, WithdrawResponse { state: shared::EntryState::Withdrawn });
    }
    let inv: String = app.scalar("SELECT state FROM invitations WHERE id = $1", &[&invitation]).await;
    assert_eq!(inv, "revoked");
    let active: bool = app.scalar("SELECT active FROM grants WHERE id = $1", &[&grant]).await;
    assert!(!active);
    let events: Vec<String> =
        app.column("SELECT details::text FROM audit_events WHERE event_type = 'withdrawn' ORDER BY id", &[]).await;
    assert_eq!(events.len(), 2, "one event per withdrawal, none for the repeats");
    assert!(events[0].contains(&invitation.to_string()));
    assert!(events[1].contains(&grant.to_string()));
    let status = a.status("beta").await;
    assert_eq!(
        (status.state, status.invitation.map(|i| i.state)),
        (shared::EntryState::Withdrawn, Some(shared::InvitationState::Revoked))
    );
}

/// Issue 19, item 2: the header's "Signed in as …" comes from the caller's verified
/// addresses, asked of the identity provider; nobody signed out gets any.
#[tokio::test]
async fn the_signed_in_user_reads_their_own_verified_addresses() {
    let (app, _, _, _) = queue().await;
    let b = app.recipient("b@example.com").await;
    let own: shared::api::OwnEmails = b.get("/api/me/emails").await.expect(200);
    assert_eq!(own.emails, ["b@example.com"]);
    app.get("/api/me/emails", None).await.assert(401);
}
