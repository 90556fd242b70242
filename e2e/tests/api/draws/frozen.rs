//! What the close freezes: every way an entry leaves the queue between the opening and
//! the close excludes its ticket by the chained event that moved it, and nothing after
//! the close does; a close the server could only write after the round was due cancels
//! the draw (`closed_late`) instead of freezing it.

use super::{ticket, waiting};
use crate::support::draws::{until, verify_draw, verify_draw_py};
use crate::support::race::LockHolder;
use crate::support::TestApp;
use chrono::{TimeDelta, Utc};
use serde_json::json;
use shared::draws::{BeaconDrawRecord, DrawState};
use std::time::Duration;

async fn closed(app: &TestApp, slug: &str, draw: uuid::Uuid) -> BeaconDrawRecord {
    crate::support::eventually("the draw closes", Duration::from_secs(10), || async {
        let r = app.public_draw(slug, draw).await;
        (r.state != DrawState::Open).then_some(r)
    })
    .await
}

#[tokio::test]
async fn leaving_before_the_close_excludes_by_the_chained_event_and_leaving_after_does_not() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entries) = waiting(&app, &owner, ws, "window", 5, 5).await;
    let closes = api::time::rfc3339(Utc::now() + TimeDelta::seconds(10));
    let opened: BeaconDrawRecord =
        owner.try_open_draw(program, &json!({"winners": 2, "closesAt": closes})).await.expect(201);

    // Declined by the owner, withdrawn by the applicant, selected by hand: all before the close.
    owner.decline(program, entries[0], "duplicate_person").await;
    app.recipient("d1@example.com").await.withdraw("window").await;
    owner.select(program, entries[2]).await;
    // A late entrant who also leaves before the close.
    app.signup("window", "late@example.com").await;
    let late = app.entry_id(program, "late@example.com").await;
    owner.decline(program, late, "not_eligible").await;

    let record = closed(&app, "window", opened.draw_id).await;
    assert_eq!(record.state, DrawState::Closed);
    let excluded: Vec<(String, String)> = record
        .excluded
        .iter()
        .map(|x| {
            let event = record.events.iter().find(|e| e.id == x.event_id).expect("the reason is in the record");
            (x.ticket.clone(), event.event_type.clone())
        })
        .collect();
    let mut want = vec![
        (ticket(program, entries[0]), "declined".to_owned()),
        (ticket(program, entries[1]), "withdrawn".to_owned()),
        (ticket(program, entries[2]), "selected".to_owned()),
        (ticket(program, late), "declined".to_owned()),
    ];
    want.sort();
    let mut got = excluded;
    got.sort();
    assert_eq!(got, want);
    assert_eq!(record.tickets.len(), 6);

    // Leaving after the close changes nothing frozen.
    owner.decline(program, entries[3], "not_eligible").await;
    assert_eq!(app.public_draw("window", opened.draw_id).await, record);
    let (ok, out) = verify_draw(&record).await;
    let (ok_py, py) = verify_draw_py(&record, &[]).await;
    assert!(ok && ok_py, "{out}\n{py}");
}

#[tokio::test]
async fn a_close_held_past_the_rounds_time_cancels_the_draw_as_late() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, _) = waiting(&app, &owner, ws, "held", 3, 2).await;
    let closes = api::time::rfc3339(Utc::now() + TimeDelta::seconds(2));
    let opened: BeaconDrawRecord =
        owner.try_open_draw(program, &json!({"winners": 1, "closesAt": closes})).await.expect(201);
    // Hold the program row past the round's time: the closer waits behind it.
    let holder = LockHolder::lock(&app.db_url, "programs", program).await;
    until(&opened.closes_at).await;
    holder.wait_for_waiters(1).await;
    until(&opened.beacon.round_at).await;
    holder.release().await;
    let record = closed(&app, "held", opened.draw_id).await;
    assert_eq!((record.state, record.cancel_reason.as_deref()), (DrawState::Cancelled, Some("closed_late")));
    assert!(record.tickets.is_empty() && record.tickets_hash.is_none(), "nothing was frozen after the round");
    let actor: String = app
        .scalar(
            "SELECT actor_kind FROM audit_events WHERE program_id = $1 AND event_type = 'draw_cancelled'",
            &[&program],
        )
        .await;
    assert_eq!(actor, "system");
    assert!(verify_draw(&record).await.0);
}
