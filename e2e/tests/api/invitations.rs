//! One-time invitation codes (issue 4): shown in exactly one response and stored only
//! as the SHA-256 of their bytes; replays answer metadata; seats hold under concurrency;
//! revocation, expiry and reissue; delivery records once; grant revocation.

use crate::support::invitations::{delivery, expiring_in, in_days};
use crate::support::owner::Caps;
use crate::support::race::LockHolder;
use crate::support::secrets::{assert_not_stored, hex, sha256_hex};
use crate::support::{Owner, TestApp};
use shared::api::{IssueInvitationRequest, IssuedInvitation};
use uuid::Uuid;

async fn entry_event_types(app: &TestApp, entry: Uuid) -> Vec<String> {
    app.column("SELECT event_type FROM audit_events WHERE entry_id = $1 ORDER BY id", &[&entry]).await
}

/// A program `slug` with one seat and two selected entries (a@, b@) competing for it.
pub(crate) async fn one_seat_for_two(owner: &Owner, ws: Uuid, slug: &str) -> (Uuid, [Uuid; 2]) {
    let program = owner.program_with(ws, slug, Caps { seats: 1, ..Default::default() }).await;
    let a = owner.selected(program, slug, "a@example.com").await;
    let b = owner.selected(program, slug, "b@example.com").await;
    (program, [a, b])
}

#[tokio::test]
async fn the_code_appears_in_exactly_one_response_and_only_its_digest_is_stored() {
    let app = TestApp::spawn().await;
    let (owner, program, entry) = app.one_selected("once").await;
    let request = expiring_in(5);
    let r = owner.try_issue(program, entry, &request).await;
    let issued: IssuedInvitation = r.expect(201);
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    let code = issued.code.expect("the first answer has the code");
    assert_eq!(code.len(), 43);
    assert_eq!(issued.invitation.state, shared::InvitationState::Issued);
    let invitation = issued.invitation.id;

    // The same key and fields: the same invitation, without a code.
    let replay = owner.try_issue(program, entry, &request).await;
    let replayed: IssuedInvitation = replay.expect(200);
    assert_eq!(replayed.invitation.id, invitation);
    assert_eq!(replayed.code, None);
    assert!(!replay.text.contains(&code));
    // The same key with other fields: refused, and nothing new issued.
    let rebound = IssueInvitationRequest { expires_at: in_days(6), ..request.clone() };
    owner.try_issue(program, entry, &rebound).await.expect_error(409, "request_key_reused");

    owner.record_delivery(invitation).await;
    let p = format!("/api/owner/programs/{program}");
    for later in
        [format!("{p}/entries"), format!("{p}/entries/{entry}"), format!("{p}/events"), format!("{p}/entries.csv")]
    {
        let r = owner.get(&later).await;
        r.assert(200);
        assert!(!r.text.contains(&code), "{later} shows the code");
    }
    let digests: Vec<Vec<u8>> = app.column("SELECT token_sha256 FROM invitations", &[]).await;
    assert_eq!(digests.len(), 1, "one invitation, even after the replay");
    assert_eq!(digests[0].len(), 32);
    assert_eq!(hex(&digests[0]), sha256_hex(&code), "SHA-256 of the decoded bytes");
    assert_not_stored(&app, &code).await;
    let receipt = app
        .row("SELECT action, target_id FROM owner_action_receipts WHERE request_key = $1", &[&request.request_key])
        .await;
    assert_eq!((receipt.get::<_, String>(0), receipt.get::<_, Uuid>(1)), ("issue_invitation".to_owned(), invitation));
}

#[tokio::test]
async fn two_issues_for_the_last_seat_give_one_invitation_to_the_first_in_line_in_both_orders() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    for (slug, a_first) in [("one-seat-a", true), ("one-seat-b", false)] {
        let (program, [a, b]) = one_seat_for_two(&owner, ws, slug).await;
        let (request_a, request_b) = (expiring_in(3), expiring_in(3));
        let (issue_a, issue_b) = (owner.try_issue(program, a, &request_a), owner.try_issue(program, b, &request_b));
        let hold = LockHolder::lock(&app.db_url, "programs", program).await;
        let (first, second) =
            if a_first { hold.in_order(issue_a, issue_b).await } else { hold.in_order(issue_b, issue_a).await };
        first.expect::<IssuedInvitation>(201);
        second.expect_error(409, "no_seat_available");
        let n: i64 = app
            .scalar("SELECT count(*) FROM invitations WHERE program_id = $1 AND state = 'issued'", &[&program])
            .await;
        assert_eq!(n, 1);
    }
}

#[tokio::test]
async fn revoke_frees_the_seat_and_a_new_key_reissues() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, [a, b]) = one_seat_for_two(&owner, ws, "reissue").await;
    let first_request = expiring_in(3);
    let first: IssuedInvitation = owner.try_issue(program, a, &first_request).await.expect(201);
    let first_code = first.code.clone().expect("the first answer has the code");
    let invitation = first.invitation.id;
    owner.try_issue(program, b, &expiring_in(3)).await.expect_error(409, "no_seat_available");
    owner.try_issue(program, a, &expiring_in(3)).await.expect_error(409, "invitation_outstanding");

    let r = owner.try_revoke_invitation(invitation).await;
    assert_eq!(r.expect::<shared::api::Invitation>(200).state, shared::InvitationState::Revoked);
    assert!(!r.text.contains(&first_code));
    owner.try_revoke_invitation(invitation).await.assert(409);
    assert_eq!(owner.entry(program, a).await.state, shared::EntryState::Selected);

    // The old key still answers what it did, without a code; a new key reissues.
    let replay: IssuedInvitation = owner.try_issue(program, a, &first_request).await.expect(200);
    assert_eq!(replay.invitation.state, shared::InvitationState::Revoked);
    assert_eq!(replay.code, None);
    let reissued = owner.issue(program, a).await;
    assert_ne!(reissued.code, first.code);
    let types = entry_event_types(&app, a).await;
    assert_eq!(types, ["signup", "selected", "invite_issued", "invite_revoked", "invite_issued"]);
}

#[tokio::test]
async fn an_expired_invitation_is_marked_expired_before_the_reissue() {
    let app = TestApp::spawn().await;
    let (owner, program, entry) = app.one_selected("expired").await;
    let old = owner.issue(program, entry).await;
    let old_code = old.code.unwrap();
    app.exec(
        "UPDATE invitations SET issued_at = now() - interval '3 days', expires_at = now() - interval '1 day' WHERE id = $1",
        &[&old.invitation.id],
    )
    .await;
    // One seat: the expired invitation no longer holds it, and this entry counts once.
    app.exec("UPDATE programs SET seat_cap = 1 WHERE id = $1", &[&program]).await;

    let new: IssuedInvitation = owner.try_issue(program, entry, &expiring_in(2)).await.expect(201);
    let new_code = new.code.unwrap();
    assert_ne!(new_code, old_code);
    let row =
        app.row("SELECT state, terminal_at IS NOT NULL FROM invitations WHERE id = $1", &[&old.invitation.id]).await;
    assert_eq!((row.get::<_, &str>(0), row.get::<_, bool>(1)), ("expired", true));
    let detail = owner.entry(program, entry).await;
    assert_eq!(detail.state, shared::EntryState::Invited);
    let states: Vec<&str> = detail.invitations.iter().map(|i| i.state.as_str()).collect();
    assert_eq!(states, ["expired", "issued"]);
    let types = entry_event_types(&app, entry).await;
    assert_eq!(types, ["signup", "selected", "invite_issued", "invite_expired", "invite_issued"]);
    assert_not_stored(&app, &old_code).await;
    assert_not_stored(&app, &new_code).await;
}

#[tokio::test]
async fn expiry_must_be_in_the_future_and_within_max_invite_days() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("expiry", 2).await;
    let entries = app.queued_entries(program, 2).await;
    let (entry, waiting) = (entries[0], entries[1]);
    owner.select(program, entry).await;
    for (expires_at, status, code) in [
        (in_days(-1), 409, "expiry_out_of_range"),
        (in_days(15), 409, "expiry_out_of_range"),
        ("tomorrow".to_owned(), 400, "invalid_expiry"),
        ("2030-01-01".to_owned(), 400, "invalid_expiry"),
    ] {
        let request = IssueInvitationRequest { request_key: Uuid::new_v4(), expires_at };
        let r = owner.try_issue(program, entry, &request).await;
        r.assert(status);
        assert_eq!(r.error_code(), code, "{}", request.expires_at);
    }
    owner.try_issue(program, waiting, &expiring_in(3)).await.expect_error(409, "invalid_transition"); // a waiting entry is not selected
    owner.try_issue(program, entry, &expiring_in(14)).await.expect::<IssuedInvitation>(201);
    let n: i64 = app.scalar("SELECT count(*) FROM invitations", &[]).await;
    assert_eq!(n, 1);
}

/// Issue 12, item 4: an address is refused wherever it sits in the text, not only as a
/// whole word (`to:…`, `mailto:…`, a trailing dot, percent-encoded).
#[tokio::test]
async fn a_delivery_record_naming_an_address_anywhere_is_refused() {
    let app = TestApp::spawn().await;
    let (owner, program, entry) = app.one_selected("delivery").await;
    let invitation = owner.issue(program, entry).await.invitation.id;
    for text in ["to:alice@example.com", "alice@example.com.", "mailto:alice@example.com", "alice%40example.com"] {
        for record in
            [delivery(text, None), delivery("email", Some(text)), delivery("email", Some(&format!("sent {text} ok")))]
        {
            owner.try_record_delivery(invitation, &record).await.expect_error(400, "delivery_record_names_a_secret");
        }
    }
    let none: i64 = app.scalar("SELECT count(*) FROM invitations WHERE delivery_recorded_at IS NOT NULL", &[]).await;
    assert_eq!(none, 0, "nothing was recorded");
    owner.try_record_delivery(invitation, &delivery("Slack DM @alice", Some("ticket #12"))).await.assert(200);
}

#[tokio::test]
async fn a_delivery_record_is_taken_once_and_is_idempotent_by_key() {
    let app = TestApp::spawn().await;
    let (owner, program, entry) = app.one_selected("delivery").await;
    let issued = owner.issue(program, entry).await;
    let (invitation, code) = (issued.invitation.id, issued.code.unwrap());

    for bad in [
        delivery("", None),
        delivery(&"c".repeat(81), None),
        delivery("email", Some(&"r".repeat(161))),
        delivery("email", Some("")),
        delivery("email to u0@example.com", None),
        delivery("email", Some("sent to <u0@example.com>")),
        delivery("email", Some(&format!("code {code}"))),
    ] {
        owner.try_record_delivery(invitation, &bad).await.assert(400);
    }
    let record = delivery("phone", Some("call #12"));
    let first = owner.try_record_delivery(invitation, &record).await;
    let recorded: shared::api::Invitation = first.expect(200);
    let taken = recorded.delivery.as_ref().expect("the record is on the invitation");
    assert_eq!((taken.channel.as_str(), taken.reference.as_deref()), ("phone", Some("call #12")));
    let replay = owner.try_record_delivery(invitation, &record).await;
    assert_eq!(replay.expect::<shared::api::Invitation>(200), recorded);
    let rebound = shared::api::DeliveryRecordRequest { reference: None, ..record.clone() };
    owner.try_record_delivery(invitation, &rebound).await.expect_error(409, "request_key_reused");
    owner.try_record_delivery(invitation, &delivery("sms", None)).await.expect_error(409, "delivery_already_recorded");

    let types = entry_event_types(&app, entry).await;
    assert_eq!(types.iter().filter(|t| *t == "delivery_recorded").count(), 1);
    // Only an issued invitation takes a record.
    owner.revoke_invitation(invitation).await;
    let other = owner.issue(program, entry).await.invitation.id;
    owner.revoke_invitation(other).await;
    owner.try_record_delivery(other, &delivery("sms", None)).await.expect_error(409, "invitation_not_issued");
    owner.try_record_delivery(Uuid::new_v4(), &delivery("sms", None)).await.assert(404);
}

#[tokio::test]
async fn grant_revocation_deactivates_the_grant_and_denies_the_next_read() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let invited = owner.invited(ws, "granted", "gina@example.com").await;
    let (program, entry) = (invited.program, invited.entry);
    let gina = app.recipient("gina@example.com").await;
    gina.redeem(&invited.code).await;
    gina.early_access("granted").await;
    let detail = owner.entry(program, entry).await;
    assert_eq!(detail.state, shared::EntryState::Active);
    let grant = detail.grant.expect("the redemption made a grant");
    assert!(grant.active);

    let revoked = owner.revoke_grant(grant.id).await;
    assert!(!revoked.active);
    assert!(revoked.revoked_at.is_some());
    gina.try_early_access("granted").await.assert(404);
    owner.try_revoke_grant(grant.id).await.assert(409);
    assert_eq!(owner.entry(program, entry).await.state, shared::EntryState::Revoked);
    let types = entry_event_types(&app, entry).await;
    assert_eq!(types.last().map(String::as_str), Some("grant_revoked"));
    assert_eq!(types.iter().filter(|t| *t == "grant_revoked").count(), 1);
    // A redeemed entry cannot be issued again.
    owner.try_issue(program, entry, &expiring_in(3)).await.assert(409);
}
