//! Issue 19, item 8: the audit history in plain words. `GET …/events` keeps its default
//! (oldest first), and pages newest first with `order=desc`, narrows by `group` and
//! `actor`, refuses bad values with 400; an owner's event names that owner (their Clerk
//! name, else their email) and no other actor; the owners page names owners; an outage of
//! the identity provider leaves the pages answering, without names.

use crate::support::{Owner, TestApp};
use api::usecases::membership::{self, Change};
use shared::api::AuditEvent;
use shared::history::{EventActor, EventGroup};
use shared::{ActorKind, EventType};
use uuid::Uuid;

/// Every event of `query`'s filter, newest first, `limit` at a time.
async fn all_desc(owner: &Owner, program: Uuid, query: &str, limit: u32) -> Vec<AuditEvent> {
    let mut events = Vec::new();
    let mut page = owner.events(program, &format!("?order=desc&limit={limit}{query}")).await;
    loop {
        assert!(page.events.len() <= limit as usize);
        events.extend(page.events);
        match page.next_cursor {
            Some(c) => page = owner.events(program, &format!("?order=desc&limit={limit}{query}&cursor={c}")).await,
            None => return events,
        }
    }
}

/// A signed-in owner of `ws` with Clerk's name set (or not), granted as the CLI does.
async fn co_owner(app: &TestApp, ws: Uuid, email: &str, name: Option<(&str, &str)>) -> Owner {
    let user_id = app.clerk.create_named_user(email, name.map(|n| n.0), name.map(|n| n.1)).await;
    let pool = api::db::pool(&app.db_url, 1).unwrap();
    membership::change(&pool, ws, &user_id, "test-approval", &Change::Grant).await.expect("granted");
    app.as_owner(app.clerk.session_for(&user_id).await)
}

#[tokio::test]
async fn newest_first_pages_are_the_history_reversed_and_the_default_is_unchanged() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("newest", 5).await;
    let oldest_first = owner.all_events(program, 100).await;
    assert_eq!(owner.events(program, "").await.events, oldest_first, "no order: oldest first, as before");
    assert_eq!(owner.events(program, "?order=asc").await.events, oldest_first);
    let mut newest_first = all_desc(&owner, program, "", 2).await;
    assert!(newest_first.windows(2).all(|w| w[0].id > w[1].id), "newest first");
    newest_first.reverse();
    assert_eq!(newest_first, oldest_first, "pages of two concatenate to the whole history");

    // A cursor pages only in the order that made it.
    let asc = owner.events(program, "?limit=2").await.next_cursor.unwrap();
    let desc = owner.events(program, "?limit=2&order=desc").await.next_cursor.unwrap();
    owner.get(&format!("/api/owner/programs/{program}/events?order=desc&cursor={asc}")).await.assert(400);
    owner.get(&format!("/api/owner/programs/{program}/events?cursor={desc}")).await.assert(400);
}

#[tokio::test]
async fn filters_narrow_by_group_and_actor_in_both_orders() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("filtered", 3).await;
    let e = app.queued_entries(program, 3).await;
    owner.select(program, e[0]).await;
    owner.decline(program, e[1], "not_eligible").await;
    let all = owner.all_events(program, 100).await;

    for group in EventGroup::ALL {
        let want: Vec<_> = all.iter().filter(|ev| EventGroup::of(ev.kind) == group).cloned().collect();
        let query = format!("&group={}", group.as_str());
        let mut got = all_desc(&owner, program, &query, 1).await;
        got.reverse();
        assert_eq!(got, want, "group {}", group.as_str());
        let asc = owner.events(program, &format!("?limit=100{query}")).await.events;
        assert_eq!(asc, want, "group {} oldest first", group.as_str());
    }
    let decisions = owner.events(program, "?group=decisions").await.events;
    let kinds: Vec<EventType> = decisions.iter().map(|ev| ev.kind).collect();
    assert_eq!(kinds, [EventType::Selected, EventType::Declined]);

    for actor in EventActor::ALL {
        let want: Vec<_> = all.iter().filter(|ev| EventActor::of(ev.actor_kind) == actor).cloned().collect();
        let got = owner.events(program, &format!("?limit=100&actor={}", actor.as_str())).await.events;
        assert_eq!(got, want, "actor {}", actor.as_str());
    }
    let applicants = owner.events(program, "?actor=applicant&group=signups").await.events;
    assert_eq!(applicants.len(), 3, "the three public sign-ups");
    assert!(applicants.iter().all(|ev| ev.kind == EventType::Signup && ev.actor_name.is_none()));
    let none = owner.events(program, "?actor=system&group=decisions&order=desc").await;
    assert!(none.events.is_empty() && none.next_cursor.is_none());
}

#[tokio::test]
async fn bad_order_group_or_actor_is_a_400() {
    let app = TestApp::spawn().await;
    let (owner, _, program) = app.queue_of("refused", 1).await;
    for bad in [
        "?order=up",
        "?order=DESC",
        "?order=",
        "?group=everything",
        "?group=selected",
        "?actor=recipient",
        "?actor=",
        "?order=desc&cursor=%21",
        "?order=desc&cursor=AAAAAAAAAAA",
    ] {
        let reply = owner.get(&format!("/api/owner/programs/{program}/events{bad}")).await;
        reply.assert(400);
        assert!(!reply.text.contains("example.com"), "{bad}: {}", reply.text);
    }
}

#[tokio::test]
async fn an_owners_event_names_that_owner_and_nobody_else_is_named() {
    let app = TestApp::spawn().await;
    let jo_id = app.clerk.create_named_user("jo@example.com", Some("Jo"), Some("March")).await;
    let ws = crate::support::bootstrap_owner(&app.db_url, &jo_id).await;
    let jo = app.as_owner(app.clerk.session_for(&jo_id).await);
    let program = jo.open_program(ws, "named").await;
    app.signup("named", "u0@example.com").await;
    app.signup("named", "u1@example.com").await;
    let e = app.queued_entries(program, 2).await;
    jo.select(program, e[0]).await;
    let amy = co_owner(&app, ws, "amy@example.com", None).await;
    amy.decline(program, e[1], "not_eligible").await;

    let events = owner_events(&jo, program).await;
    let selected = events.iter().find(|ev| ev.kind == EventType::Selected).unwrap();
    assert_eq!(selected.actor_name.as_deref(), Some("Jo March"), "Clerk's first and last name");
    let declined = events.iter().find(|ev| ev.kind == EventType::Declined).unwrap();
    assert_eq!(declined.actor_name.as_deref(), Some("amy@example.com"), "no name: the email");
    for ev in &events {
        match ev.actor_kind {
            ActorKind::Owner => assert!(ev.actor_name.is_some(), "{ev:?}"),
            _ => assert_eq!(ev.actor_name, None, "only owners are named: {ev:?}"),
        }
    }
    // The entry's history names the owner too; its sign-up names nobody.
    let detail = amy.entry(program, e[1]).await;
    let names: Vec<_> = detail.events.iter().map(|ev| ev.actor_name.as_deref()).collect();
    assert_eq!(names, [None, Some("amy@example.com")]);

    let owners = amy.owners(ws).await;
    let named: Vec<_> = owners.owners.iter().map(|o| (o.clerk_user_id.as_str(), o.name.as_deref())).collect();
    assert!(named.contains(&(jo_id.as_str(), Some("Jo March"))), "{named:?}");
    assert!(named.contains(&(amy.user_id.as_str(), Some("amy@example.com"))), "{named:?}");
    assert!(owners.history.iter().all(|h| h.name.is_some()), "{:?}", owners.history);

    // Another workspace's owner sees neither the events nor the names: the uniform 404.
    let (stranger, _) = app.owner("stranger@example.com").await;
    for query in ["", "?order=desc", "?group=decisions&actor=owner"] {
        stranger.get(&format!("/api/owner/programs/{program}/events{query}")).await.assert(404);
    }
    stranger.get(&format!("/api/owner/workspaces/{ws}/owners")).await.assert(404);
}

async fn owner_events(owner: &Owner, program: Uuid) -> Vec<AuditEvent> {
    owner.events(program, "?limit=100&order=desc").await.events
}

#[tokio::test]
async fn with_the_identity_provider_down_the_history_answers_without_names() {
    let app = TestApp::spawn().await;
    let (owner, ws, program) = app.queue_of("unnamed", 1).await;
    let entry = app.queued_entries(program, 1).await[0];
    owner.select(program, entry).await;
    // Before any page asked for a name: nothing is cached yet.
    app.clerk.users_unavailable(true).await;
    let events = owner_events(&owner, program).await;
    assert!(events.iter().any(|ev| ev.actor_kind == ActorKind::Owner));
    assert!(events.iter().all(|ev| ev.actor_name.is_none()), "no names while Clerk is down");
    assert!(owner.entry(program, entry).await.events.iter().all(|ev| ev.actor_name.is_none()));
    let owners = owner.owners(ws).await;
    assert!(owners.owners.iter().all(|o| o.name.is_none()) && owners.history.iter().all(|h| h.name.is_none()));
    // Back up: the next page names the owner (a failure was not remembered).
    app.clerk.users_unavailable(false).await;
    let events = owner_events(&owner, program).await;
    let selected = events.iter().find(|ev| ev.kind == EventType::Selected).unwrap();
    assert_eq!(selected.actor_name.as_deref(), Some("owner@example.com"));
}
