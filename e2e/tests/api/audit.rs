//! The audit history (issue 4): every owner mutation writes exactly one event, with ids,
//! states and reason codes only; the owner reads it paged in id order.

use crate::support::invitations::{delivery, expiring_in};
use crate::support::{Reply, TestApp};
use shared::api::{BulkSelectRequest, BulkSelectResponse, Content, EntryStateResponse, Invitation, IssuedInvitation};

#[tokio::test]
async fn every_mutation_writes_exactly_one_event_without_email_or_code() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("audited", 4).await;
    let e = app.queued_entries(program, 4).await;
    let before = owner.all_events(program, 3).await;
    let signups = before.iter().filter(|e| e.kind == shared::EventType::Signup).count();
    assert_eq!(signups, 4);
    let mut count = before.len();

    let mut expect = async |reply: Reply, status: u16, kind: &str| {
        reply.assert(status);
        let events = owner.all_events(program, 3).await;
        assert_eq!(events.len(), count + 1, "exactly one event for {kind}");
        let last = events.last().unwrap();
        assert_eq!((last.kind.as_str(), last.actor_kind.as_str()), (kind, "owner"));
        count += 1;
        reply
    };
    // Each answer is read strictly as its type: none but the issue answer holds a code.
    expect(owner.try_select(program, e[0], "meets_policy").await, 200, "selected").await.body::<EntryStateResponse>();
    expect(owner.try_decline(program, e[1], "not_eligible").await, 200, "declined").await.body::<EntryStateResponse>();
    let issue = owner.try_issue(program, e[0], &expiring_in(3)).await;
    let issued: IssuedInvitation = expect(issue, 201, "invite_issued").await.body();
    let code = issued.code.expect("the issue answer has the code");
    let invitation = issued.invitation.id;
    let record = delivery("email", Some("sent by hand"));
    expect(owner.try_record_delivery(invitation, &record).await, 200, "delivery_recorded").await.body::<Invitation>();
    expect(owner.try_revoke_invitation(invitation).await, 200, "invite_revoked").await.body::<Invitation>();
    expect(owner.try_withdraw(program, e[2], "owner_policy").await, 200, "withdrawn")
        .await
        .body::<EntryStateResponse>();
    expect(owner.try_put_content(program, 0, "secret text").await, 200, "content_updated").await.body::<Content>();
    let bulk = BulkSelectRequest { count: 1, reason_code: "capacity_available".into() };
    expect(owner.try_select_bulk(program, &bulk).await, 200, "selected").await.body::<BulkSelectResponse>();
    // Reads and refused requests write nothing.
    owner.entry(program, e[0]).await;
    owner.try_select(program, e[0], "meets_policy").await.assert(409);
    assert_eq!(owner.all_events(program, 3).await.len(), count);

    let events = owner.all_events(program, 3).await;
    assert!(events.windows(2).all(|w| w[0].id < w[1].id), "id order");
    for event in &events {
        let details = event.details.to_string();
        assert!(!details.contains('@'), "no email in {details}");
        assert!(!details.contains("secret text"), "no content in {details}");
        assert!(!details.contains(code.as_str()), "no code in {details}");
    }
    let selected = events.iter().find(|e| e.kind == shared::EventType::Selected).unwrap();
    assert_eq!(selected.details["reasonCode"], "meets_policy");
    assert_eq!(selected.entry_id, Some(e[0]));
}

#[tokio::test]
async fn events_are_paged_in_id_order_with_an_opaque_cursor() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("history", 5).await;
    let all = owner.events(program, "").await.events;
    assert!(all.len() >= 6, "the program's setup and five signups");
    assert_eq!(owner.all_events(program, 4).await, all, "pages concatenate to the whole history");
    assert!(all.windows(2).all(|w| w[0].id < w[1].id), "id order");
    assert_eq!(all.iter().filter(|e| e.kind == shared::EventType::Signup).count(), 5);
    for bad in ["?limit=0", "?limit=101", "?cursor=%21", "?cursor=AAAA", "?since=1"] {
        owner.get(&format!("/api/owner/programs/{program}/events{bad}")).await.assert(400);
    }
}
