//! The "done when": a whole draw on a published quicknet round. The server (a
//! `vestibule serve` process configured through `DRAND_*`) holds quicknet's real public
//! key with a genesis moved so that round 657413 — published by the League of Entropy
//! in 2023, its signature a fixture — falls just after this draw's close. The record is
//! public before and after; `vestibule verify-draw` and `tools/verify_draw.py` agree on
//! the winners; and an edited fixed field, a wrong beacon signature, a ticket excluded
//! without a chained reason and a re-opened draw are each refused.

use super::{ticket, waiting};
use crate::common::drand::{static_relay, QUICKNET_123_SIGNATURE, QUICKNET_657413};
use crate::support::draws::{until, verify_draw, verify_draw_py, winner_lines};
use crate::support::process::{self, ApiProcess};
use crate::support::TestApp;
use chrono::{TimeDelta, Utc};
use serde_json::json;
use shared::draws::{BeaconDrawRecord, DrawState};
use uuid::Uuid;

const SLUG: &str = "fair-draw";

#[tokio::test]
async fn a_whole_draw_on_a_published_round_is_public_recomputes_two_ways_and_refuses_every_alteration() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entries) = waiting(&app, &owner, ws, SLUG, 5, 5).await;

    // Round 657413 is due 16 s from now on this server's schedule (1-second rounds); the
    // entries close 4.5 s before it, and the server's 4-second margin makes it the draw's
    // round while leaving the closer seconds to freeze the tickets.
    let (round, signature, randomness) = QUICKNET_657413;
    let round_at = Utc::now().timestamp() + 16;
    let genesis = (round_at - (round as i64 - 1)).to_string();
    let env = [
        ("DRAND_PUBLIC_KEY", api::drand::QUICKNET_PUBLIC_KEY),
        ("DRAND_GENESIS", genesis.as_str()),
        ("DRAND_PERIOD", "1"),
        ("DRAW_CLOSE_MARGIN_SECONDS", "4"),
    ];
    let server = ApiProcess::start(&app.db_url, &app.clerk, &env).await;
    let served = app.at(&server.base);
    let owner = served.as_owner(owner.user.clone());
    let closes_at = chrono::DateTime::from_timestamp(round_at, 0).unwrap() - TimeDelta::milliseconds(4500);

    // Opening fixes the rule, the winners, the close and the round; nothing is drawn yet.
    let body = json!({"winners": 2, "closesAt": api::time::rfc3339(closes_at)});
    let opened: BeaconDrawRecord = owner.try_open_draw(program, &body).await.expect(201);
    assert_eq!(
        (opened.state, opened.beacon.round, opened.beacon.public_key.as_str()),
        (DrawState::Open, round, api::drand::QUICKNET_PUBLIC_KEY)
    );
    assert_eq!((opened.tickets_hash.as_ref(), opened.tickets.len(), opened.events.len()), (None, 0, 1));
    let public = served.public_draws(SLUG).await;
    assert_eq!((public.len(), public[0].round, public[0].tickets_hash.as_ref()), (1, round, None));
    assert_eq!(served.public_draw(SLUG, opened.draw_id).await, opened, "published before it runs");
    let (ok, out) = verify_draw(&opened).await;
    assert!(ok, "an open record verifies: {out}");

    // Before the close: someone joins (a late entrant), someone is declined (excluded by
    // the chained decline), and the draw cannot run.
    served.signup(SLUG, "late@example.com").await;
    let late = served.entry_id(program, "late@example.com").await;
    owner.decline(program, entries[1], "not_eligible").await;
    owner.try_run_draw(program, opened.draw_id, &json!({})).await.expect_error(409, "draw_not_closed");

    // The close: tickets, exclusions and their hash published.
    until(&opened.closes_at).await;
    let closed = crate::support::eventually("the draw closes", std::time::Duration::from_secs(10), || async {
        let r = served.public_draw(SLUG, opened.draw_id).await;
        (r.state == DrawState::Closed).then_some(r)
    })
    .await;
    let mut everyone = entries.clone();
    everyone.push(late);
    assert_eq!(closed.tickets, super::sorted_tickets(program, &everyone), "the late entrant holds a ticket");
    assert_eq!(closed.excluded.len(), 1);
    assert_eq!(closed.excluded[0].ticket, ticket(program, entries[1]));
    let decline: i64 =
        app.scalar("SELECT id FROM audit_events WHERE entry_id = $1 AND event_type = 'declined'", &[&entries[1]]).await;
    assert_eq!(closed.excluded[0].event_id, decline, "excluded by the chained decline");
    let expected =
        super::tickets_hash(opened.draw_id, &closed.filter, &closed.tickets, &[closed.excluded[0].ticket.clone()]);
    assert_eq!(closed.tickets_hash.as_deref(), Some(expected.as_str()), "the README's recipe");

    // Running needs the round's own signature: another round's is refused, and changes nothing.
    until(&closed.beacon.round_at).await;
    let wrong = json!({"beacon": {"round": round, "signature": QUICKNET_123_SIGNATURE}});
    owner.try_run_draw(program, opened.draw_id, &wrong).await.expect_error(400, "invalid_beacon");
    let other_round = json!({"beacon": {"round": 123, "signature": QUICKNET_123_SIGNATURE}});
    owner.try_run_draw(program, opened.draw_id, &other_round).await.expect_error(400, "invalid_beacon");
    assert_eq!(served.public_draw(SLUG, opened.draw_id).await, closed, "a refused run writes nothing");
    let run: BeaconDrawRecord = owner
        .try_run_draw(program, opened.draw_id, &json!({"beacon": {"round": round, "signature": signature}}))
        .await
        .expect(200);
    assert_eq!((run.state, run.beacon.randomness.as_deref()), (DrawState::Run, Some(randomness)));
    assert_eq!(run.drawn.len(), 2);
    assert!(!run.drawn.contains(&closed.excluded[0].ticket));
    let after = served.public_draw(SLUG, opened.draw_id).await;
    assert_eq!(after, run, "published after the run");
    owner.try_run_draw(program, opened.draw_id, &json!({})).await.expect_error(409, "draw_already_run");

    // Both verifiers recompute the same winners, in the same order.
    let relay = static_relay(round, signature);
    let (ok, rust) = verify_draw(&after).await;
    assert!(ok && rust.contains("round 657413 of a drand chain other than quicknet"), "{rust}");
    let (ok, python) = verify_draw_py(&after, &["--relay", &relay]).await;
    assert!(ok, "{python}");
    let expected: Vec<String> = after.drawn.iter().enumerate().map(|(i, t)| format!("winner {} {t}", i + 1)).collect();
    assert_eq!((winner_lines(&rust), winner_lines(&python)), (expected.clone(), expected));

    refusals(&after, &relay).await;
    database_refusals(&app, opened.draw_id).await;
    drop(server);
}

/// Both verifiers refuse `altered`, each saying so.
async fn both(altered: &BeaconDrawRecord, relay: &str, rust_says: &str, python_says: &str) {
    let (ok, out) = verify_draw(altered).await;
    assert!(!ok && out.contains(rust_says), "verify-draw: {out}");
    let (ok, out) = verify_draw_py(altered, &["--relay", relay]).await;
    assert!(!ok && out.contains(python_says), "verify_draw.py: {out}");
}

/// Each alteration of the published record is refused by both verifiers.
async fn refusals(record: &BeaconDrawRecord, relay: &str) {
    // An edited fixed field.
    both(&BeaconDrawRecord { winners: 3, ..record.clone() }, relay, "fixed field", "fixed field").await;
    let mut closes = record.clone();
    closes.closes_at = api::time::rfc3339(Utc::now() - TimeDelta::seconds(30));
    both(&closes, relay, "fixed field", "fixed field").await;
    // A wrong beacon signature: a flipped byte, or another round's whole beacon with the
    // winners recomputed from it.
    let mut flipped = record.clone();
    let mut sig = hex::decode(flipped.beacon.signature.as_ref().unwrap()).unwrap();
    sig[7] ^= 0x40;
    flipped.beacon.signature = Some(hex::encode(&sig));
    both(&flipped, relay, "beacon signature does not verify", "randomness is not SHA-256").await;
    let mut forged = record.clone();
    forged.beacon.signature = Some(QUICKNET_123_SIGNATURE.into());
    let other = api::drand::randomness(&hex::decode(QUICKNET_123_SIGNATURE).unwrap());
    forged.beacon.randomness = Some(hex::encode(other));
    let excluded: Vec<&String> = record.excluded.iter().map(|x| &x.ticket).collect();
    let eligible: Vec<[u8; 32]> = record
        .tickets
        .iter()
        .filter(|t| !excluded.contains(t))
        .map(|t| hex::decode(t).unwrap().try_into().unwrap())
        .collect();
    forged.drawn = api::draw::beacon::winners(&other, record.draw_id, &eligible, 2).iter().map(hex::encode).collect();
    both(&forged, relay, "beacon signature does not verify", "relay publishes another signature").await;
    // A ticket excluded without a chained reason: pointed at a signup event instead.
    let mut unreasoned = record.clone();
    let signup = record.events.iter().find(|e| e.event_type == "signup").expect("the late signup is chained");
    unreasoned.excluded[0].event_id = signup.id;
    both(&unreasoned, relay, "excluded without a chained reason", "excluded without a chained reason").await;
    let mut moved = record.clone();
    moved.excluded[0].ticket = record.drawn[0].clone();
    both(&moved, relay, "excluded without a chained reason", "excluded without a chained reason").await;
    // A re-opened draw.
    let reopened = BeaconDrawRecord { state: DrawState::Open, ..record.clone() };
    both(&reopened, relay, "never re-opened", "never re-opened").await;
    let reclosed = BeaconDrawRecord { state: DrawState::Closed, ..record.clone() };
    both(&reclosed, relay, "never re-opened", "never re-opened").await;
}

/// The database refuses the same alterations, whoever asks; one made with the trigger
/// disabled (a superuser's) is reported by `vestibule verify`.
async fn database_refusals(app: &TestApp, draw: Uuid) {
    let (ok, report) = verify(app);
    assert!(ok && report.contains("ok    every draw on public randomness recomputes (1 draws)"), "{report}");
    let db = app.db().await;
    for role in ["vestibule_app", "postgres"] {
        db.batch_execute(&format!("SET ROLE {role}")).await.unwrap();
        for edit in [
            "UPDATE draws SET winners = 3 WHERE id = $1",
            "UPDATE draws SET beacon_round = beacon_round + 1 WHERE id = $1",
            "UPDATE draws SET beacon_signature = '\\x00' WHERE id = $1",
            "UPDATE draws SET state = 'open', run_at = NULL, beacon_signature = NULL, randomness = NULL WHERE id = $1",
            "UPDATE draws SET state = 'cancelled', cancelled_at = now(), cancel_reason = 'owner_discretion' WHERE id = $1",
            "UPDATE draw_tickets SET excluded_by = NULL, eligible = true WHERE draw_id = $1",
            "UPDATE draw_tickets SET drawn_rank = NULL WHERE draw_id = $1",
            "DELETE FROM draw_tickets WHERE draw_id = $1",
            "DELETE FROM draws WHERE id = $1",
        ] {
            let refused = db.execute(edit, &[&draw]).await.expect_err(edit);
            let refused = refused.as_db_error().map(|e| e.message().to_owned()).unwrap_or_default();
            assert!(refused.contains("draw"), "{role}: {edit}: {refused}");
        }
    }
    db.batch_execute("RESET ROLE").await.unwrap();
    db.batch_execute("ALTER TABLE draws DISABLE TRIGGER draws_frozen").await.unwrap();
    db.execute("UPDATE draws SET winners = 3 WHERE id = $1", &[&draw]).await.unwrap();
    let (ok, report) = verify(app);
    assert!(!ok && report.contains("FAIL  the draw-freezing triggers are in place"), "{report}");
    db.batch_execute("ALTER TABLE draws ENABLE TRIGGER draws_frozen").await.unwrap();
    let (ok, report) = verify(app);
    assert!(report.contains("ok    the draw-freezing triggers are in place"), "{report}");
    assert!(!ok && report.contains(&format!("FAIL  draw {draw}: a fixed field")), "{report}");
}

fn verify(app: &TestApp) -> (bool, String) {
    let out = process::vestibule(&app.db_url, &["verify"], &[]);
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}
