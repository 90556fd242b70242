//! The signed-in applicant's own data (issue 3, SPEC §6.3): status with position, own
//! entries across programs, withdrawal (revoking an issued invitation and an active
//! grant, idempotently) — found only through currently verified emails.

use crate::support::{Owner, TestApp, QUEUE_OF};
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
            &format!(
                "SELECT {QUEUE_OF}, (SELECT count(*) FROM audit_events \
                 WHERE event_type = 'withdrawn' AND actor_kind = 'recipient')"
            ),
            &[&program],
        )
        .await;
    assert_eq!((row.get::<_, i64>(0), row.get::<_, i64>(1)), (2, 1));
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

/// Signs `email` up, invites, redeems and has the grant revoked: an entry in `revoked`.
async fn revoked_entry(app: &TestApp, owner: &Owner, program: Uuid, slug: &str, email: &str) -> Uuid {
    let entry = owner.selected(program, slug, email).await;
    let issued = owner.issue(program, entry).await;
    owner.record_delivery(issued.invitation.id).await;
    app.recipient(email).await.redeem(issued.code.as_deref().unwrap()).await;
    let grant: Uuid = app.scalar("SELECT id FROM grants WHERE entry_id = $1", &[&entry]).await;
    owner.revoke_grant(grant).await;
    entry
}

/// Issue 12, item 10: a declined or a revoked entry can still be withdrawn — by the
/// applicant or by an owner — and that frees its place in the queue (before the fix each
/// was 409 and the places were held for ever).
#[tokio::test]
async fn declined_and_revoked_entries_can_be_withdrawn_which_frees_their_places() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.program_with(ws, "full", crate::support::Caps { queue: 4, ..Default::default() }).await;
    let mut declined = Vec::new();
    for who in ["a", "b"] {
        app.signup("full", &format!("{who}@example.com")).await;
        let entry = app.entry_id(program, &format!("{who}@example.com")).await;
        owner.decline(program, entry, "not_eligible").await;
        declined.push(entry);
    }
    let revoked = revoked_entry(&app, &owner, program, "full", "c@example.com").await;
    revoked_entry(&app, &owner, program, "full", "d@example.com").await;
    app.try_signup("full", "e@example.com").await.expect_error(429, "too_many_requests");

    // Each repeats the same answer: a, declined, and d, revoked, by the applicant; b,
    // declined, and c, revoked, by an owner.
    let withdrawn = shared::EntryState::Withdrawn;
    for _ in 0..2 {
        for who in ["a", "d"] {
            let applicant = app.recipient(&format!("{who}@example.com")).await;
            assert_eq!(applicant.withdraw("full").await, WithdrawResponse { state: withdrawn });
        }
        for entry in [declined[1], revoked] {
            assert_eq!(owner.withdraw(program, entry, "owner_policy").await.state, withdrawn);
        }
    }

    assert_eq!(owner.program(program).await.counts.queue, 0, "every place is free again");
    for who in ["e", "f", "g", "h"] {
        app.signup("full", &format!("{who}@example.com")).await;
    }
    app.try_signup("full", "i@example.com").await.expect_error(429, "too_many_requests");
    let from: Vec<String> =
        app.column("SELECT details->>'from' FROM audit_events WHERE event_type = 'withdrawn' ORDER BY id", &[]).await;
    assert_eq!(from, ["declined", "revoked", "declined", "revoked"], "one event each, none for the repeats");
    let out = crate::support::process::vestibule(&app.db_url, &["verify"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

/// Issue 12, item 15: the recipient's status and list reads take no row locks, and that
/// is equivalent here (see `usecases::recipient`): each answer is one statement, so one
/// snapshot of committed rows. While a writer holds the program and entry rows mid-change,
/// the read answers at once with the last committed state (a share lock would only have
/// waited for the writer); and while writers keep committing an entry's and its
/// invitation's states together, no answer ever mixes a before with an after.
#[tokio::test]
async fn status_reads_are_one_snapshot_never_blocked_never_mixed() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "beta").await;
    let entry = owner.selected(program, "beta", "rita@example.com").await;
    let invitation = owner.issue(program, entry).await.invitation.id;
    let rita = app.recipient("rita@example.com").await;
    let seen = |s: shared::api::OwnWaitlistStatus| (s.state.as_str(), s.invitation.map(|i| i.state.as_str()));
    assert_eq!(seen(rita.status("beta").await), ("invited", Some("issued")));

    // A writer mid-change, holding the program and entry rows: the read is not blocked.
    let writer = crate::support::race::LockHolder::holding(
        &app.db_url,
        "WITH p AS (SELECT id FROM programs WHERE id = $1 FOR UPDATE) \
         UPDATE entries SET state = 'selected' WHERE id = $2 AND program_id = (SELECT id FROM p)",
        &[&program, &entry],
    )
    .await;
    let read = tokio::time::timeout(std::time::Duration::from_secs(5), rita.status("beta")).await;
    assert_eq!(seen(read.expect("the read does not wait for the writer")), ("invited", Some("issued")));
    writer.release().await;
    app.exec("UPDATE entries SET state = 'invited' WHERE id = $1", &[&entry]).await;

    // Writers flip the entry and its invitation together, commit after commit.
    let flipper = {
        let db_url = app.db_url.clone();
        tokio::spawn(async move {
            let db = crate::support::db::connect(&db_url).await;
            for _ in 0..150 {
                for (entry_state, invitation_state, terminal) in
                    [("selected", "revoked", "now()"), ("invited", "issued", "NULL")]
                {
                    db.batch_execute(&format!(
                        "BEGIN; UPDATE entries SET state = '{entry_state}' WHERE id = '{entry}'; \
                         UPDATE invitations SET state = '{invitation_state}', terminal_at = {terminal} \
                         WHERE id = '{invitation}'; COMMIT"
                    ))
                    .await
                    .unwrap();
                }
            }
        })
    };
    let mut answers = std::collections::BTreeSet::new();
    while !flipper.is_finished() {
        answers.insert(seen(rita.status("beta").await));
    }
    flipper.await.unwrap();
    for answer in &answers {
        assert!(
            [("invited", Some("issued")), ("selected", Some("revoked"))].contains(answer),
            "a mixed answer: {answer:?} (all: {answers:?})"
        );
    }
}
