//! A draw's life on a local drand chain: opened (closing at once), run from the relay —
//! or refused while the round is not due, the relay is down or lies — with the winners
//! still waiting selected and a winner who left after the close not replaced; pasted
//! beacons that are not the round's own; the seats; cancelling; each applicant's ticket.

use super::{ticket, waiting};
use crate::common::drand::{LocalChain, RelayMode};
use crate::support::draws::{until, verify_draw, verify_draw_py, winner_lines};
use crate::support::process;
use crate::support::TestApp;
use chrono::{TimeDelta, Utc};
use serde_json::json;
use shared::draws::{BeaconDrawRecord, DrawState};
use shared::trust::{DrawSummary, OwnDrawTicket};
use uuid::Uuid;

#[tokio::test]
async fn a_draw_runs_on_its_round_from_the_relay_and_each_applicant_sees_their_ticket() {
    let chain = LocalChain::new(11);
    let relay = chain.relay();
    // A 5-second margin: the round is surely not due when the test first asks.
    let config = api::usecases::draws::DrawConfig {
        margin: std::time::Duration::from_secs(5),
        ..chain.config(Some(relay.clone()))
    };
    let app = TestApp::spawn_with(|s| s.draws = config).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entries) = waiting(&app, &owner, ws, "lottery", 3, 6).await;

    let opened = owner.open_draw(program, 2).await;
    assert_eq!(
        (opened.state, opened.tickets.len(), opened.excluded.len()),
        (DrawState::Closed, 6, 0),
        "closed at once"
    );
    assert_eq!(opened.tickets, super::sorted_tickets(program, &entries), "ticket = SHA-256(program ‖ entry), sorted");
    assert!(!serde_json::to_string(&opened).unwrap().contains('@'), "tickets reveal no email");
    assert_eq!(opened.beacon.public_key, hex::encode(&chain.public_key));
    owner.try_open_draw(program, &json!({"winners": 1})).await.expect_error(409, "draw_already_open");
    let empty = json!({});
    let run_path = |body| owner.try_run_draw(program, opened.draw_id, body);
    run_path(&empty).await.expect_error(409, "beacon_not_due");

    // Someone leaves after the close: their ticket stays in the draw; if it wins, the
    // seat is not passed on to the next ticket.
    owner.withdraw(program, entries[0], "applicant_request").await;
    until(&opened.beacon.round_at).await;
    chain.set_relay(RelayMode::Down);
    run_path(&empty).await.expect_error(409, "beacon_unavailable");
    chain.set_relay(RelayMode::Lying);
    run_path(&empty).await.expect_error(409, "beacon_unavailable");
    chain.set_relay(RelayMode::Honest);
    let run: BeaconDrawRecord = owner.try_run_draw_bare(program, opened.draw_id).await.expect(200);
    assert_eq!(
        run.beacon.signature,
        Some(chain.sign_hex(opened.beacon.round)),
        "the round's signature, from the relay"
    );
    assert_eq!(run.drawn.len(), 2);
    run_path(&empty).await.expect_error(409, "draw_already_run");

    // The drawn still waiting are selected with reason `lottery`; nobody else is.
    let drawn: Vec<Uuid> = entries.iter().copied().filter(|e| run.drawn.contains(&ticket(program, *e))).collect();
    let lapsed = drawn.contains(&entries[0]);
    assert_eq!(run.not_selected, if lapsed { vec![ticket(program, entries[0])] } else { vec![] });
    for entry in &entries {
        let state: String = app.scalar("SELECT state FROM entries WHERE id = $1", &[entry]).await;
        let want = match (*entry == entries[0], drawn.contains(entry)) {
            (true, _) => "withdrawn",
            (false, true) => "selected",
            (false, false) => "waiting",
        };
        assert_eq!(state, want);
    }
    let reasons: Vec<String> = app
        .column(
            "SELECT details->>'reasonCode' FROM audit_events WHERE program_id = $1 AND event_type = 'selected'",
            &[&program],
        )
        .await;
    assert_eq!(reasons.len(), 2 - usize::from(lapsed));
    assert!(reasons.iter().all(|r| r == "lottery"));

    // The record recomputes both ways; the owner's list and the public list agree.
    let (ok, rust) = verify_draw(&run).await;
    let (ok_py, python) = verify_draw_py(&run, &["--relay", &relay]).await;
    assert!(ok && ok_py, "{rust}\n{python}");
    assert_eq!(winner_lines(&rust), winner_lines(&python));
    let listed: Vec<DrawSummary> = owner.get(&format!("/api/owner/programs/{program}/draws")).await.expect(200);
    assert_eq!((listed[0].format, listed[0].state, listed[0].round), (3, DrawState::Run, Some(run.beacon.round)));
    assert_eq!(app.public_draws("lottery").await[0].tickets, Some(6));

    // Each applicant sees their own ticket and whether it was drawn.
    for (i, entry) in entries.iter().enumerate().skip(1) {
        let me = app.recipient(&format!("d{i}@example.com")).await;
        let mine: Vec<OwnDrawTicket> = me.get("/api/me/waitlist/lottery/draws").await.expect(200);
        assert_eq!(mine.len(), 1);
        assert_eq!(
            (mine[0].ticket.clone(), mine[0].drawn, mine[0].draw_state.as_str()),
            (ticket(program, *entry), drawn.contains(entry), "run")
        );
    }
    let out = process::vestibule(&app.db_url, &["verify"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[tokio::test]
async fn a_pasted_beacon_must_be_the_draws_round_and_verify() {
    let chain = LocalChain::default_for_tests();
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, _) = waiting(&app, &owner, ws, "pasted", 3, 3).await;
    let opened = owner.open_draw(program, 1).await;
    until(&opened.beacon.round_at).await;
    let round = opened.beacon.round;
    let mut flipped = chain.sign(round);
    flipped[3] ^= 1;
    for (beacon, why) in [
        (json!({"round": round + 1, "signature": chain.sign_hex(round + 1)}), "another round"),
        (json!({"round": round, "signature": chain.sign_hex(round + 1)}), "another round's signature"),
        (json!({"round": round, "signature": hex::encode(&flipped)}), "a flipped byte"),
        (json!({"round": round, "signature": LocalChain::new(99).sign_hex(round)}), "another chain's key"),
        (json!({"round": round, "signature": "not hex"}), "not hex"),
        (json!({"round": round, "signature": ""}), "empty"),
    ] {
        let reply = owner.try_run_draw(program, opened.draw_id, &json!({"beacon": beacon})).await;
        assert_eq!(reply.error_code(), "invalid_beacon", "{why}: {}", reply.text);
        reply.assert(400);
    }
    for body in [json!({"beacon": {"round": round}}), json!({"seed": "00"}), json!([1])] {
        owner.try_run_draw(program, opened.draw_id, &body).await.expect_error(400, "invalid_body");
    }
    // No relay configured, no beacon given.
    owner.try_run_draw(program, opened.draw_id, &json!({})).await.expect_error(409, "beacon_unavailable");
    let selected: i64 = app.scalar("SELECT count(*) FROM entries WHERE state = 'selected'", &[]).await;
    assert_eq!(selected, 0, "refused runs select nobody");
    assert_eq!(owner.draw(program, opened.draw_id).await, opened, "and change nothing");
    let run = owner.run_draw_on(program, &opened, &chain).await;
    assert_eq!(run.state, DrawState::Run);
}

#[tokio::test]
async fn a_draw_without_enough_seats_or_candidates_is_refused() {
    let chain = LocalChain::default_for_tests();
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, _) = waiting(&app, &owner, ws, "few-seats", 1, 3).await;
    owner.try_open_draw(program, &json!({"winners": 0})).await.expect_error(400, "invalid_winners");
    let opened = owner.open_draw(program, 2).await;
    until(&opened.beacon.round_at).await;
    let body = json!({"beacon": {"round": opened.beacon.round, "signature": chain.sign_hex(opened.beacon.round)}});
    owner.try_run_draw(program, opened.draw_id, &body).await.expect_error(409, "draw_seats_insufficient");
    let selected: i64 = app.scalar("SELECT count(*) FROM entries WHERE state = 'selected'", &[]).await;
    assert_eq!(selected, 0, "a refused run selects nobody");
    assert_eq!(owner.draw(program, opened.draw_id).await.state, DrawState::Closed);

    // With the seats there, the same draw runs — on the same round, to the same result.
    let seats = shared::api::PatchProgramRequest { seat_cap: Some(2), ..crate::support::owner::changes() };
    owner.patch_program(program, seats).await;
    let run: BeaconDrawRecord = owner.try_run_draw(program, opened.draw_id, &body).await.expect(200);
    assert_eq!(run.drawn.len(), 2);

    let (empty, _) = waiting(&app, &owner, ws, "nobody-waits", 5, 0).await;
    owner.try_open_draw(empty, &json!({"winners": 1})).await.expect_error(409, "draw_no_candidates");
    let (stranger, _) = app.owner("stranger@example.com").await;
    stranger.try_open_draw(program, &json!({"winners": 1})).await.assert(404);
    stranger.get(&format!("/api/owner/programs/{program}/draws/{}", opened.draw_id)).await.assert(404);
    stranger.try_cancel_draw(program, opened.draw_id, "owner_discretion").await.assert(404);
}

#[tokio::test]
async fn a_cancelled_draw_is_audited_public_and_never_runs() {
    let chain = LocalChain::default_for_tests();
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, _) = waiting(&app, &owner, ws, "cancelled", 3, 3).await;
    let later = api::time::rfc3339(Utc::now() + TimeDelta::hours(1));
    let opened: BeaconDrawRecord =
        owner.try_open_draw(program, &json!({"winners": 1, "closesAt": later})).await.expect(201);
    assert_eq!(opened.state, DrawState::Open);
    owner.try_cancel_draw(program, opened.draw_id, "because").await.expect_error(400, "invalid_reason_code");
    let cancelled: BeaconDrawRecord =
        owner.try_cancel_draw(program, opened.draw_id, "opened_in_error").await.expect(200);
    assert_eq!((cancelled.state, cancelled.cancel_reason.as_deref()), (DrawState::Cancelled, Some("opened_in_error")));
    let public = app.public_draws("cancelled").await;
    assert_eq!(
        (public[0].state, public[0].cancelled_at.is_some()),
        (DrawState::Cancelled, true),
        "cancelling is public"
    );
    let events: i64 = app
        .scalar(
            "SELECT count(*) FROM audit_events WHERE program_id = $1 AND event_type = 'draw_cancelled'",
            &[&program],
        )
        .await;
    assert_eq!(events, 1, "and audited");
    owner.try_cancel_draw(program, opened.draw_id, "owner_discretion").await.expect_error(409, "draw_cancelled");
    let body = json!({"beacon": {"round": opened.beacon.round, "signature": chain.sign_hex(opened.beacon.round)}});
    owner.try_run_draw(program, opened.draw_id, &body).await.expect_error(409, "draw_cancelled");
    let (ok, out) = verify_draw(&cancelled).await;
    assert!(ok, "a cancelled record verifies as cancelled: {out}");
    // Another draw may be opened now; the cancelled one stays listed.
    let next = owner.open_draw(program, 1).await;
    assert_ne!(next.draw_id, opened.draw_id);
    assert_eq!(app.public_draws("cancelled").await.len(), 2);
}

#[tokio::test]
async fn a_close_instant_is_in_the_future_and_within_90_days() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, _) = waiting(&app, &owner, ws, "closing", 3, 1).await;
    for closes in [
        api::time::rfc3339(Utc::now() - TimeDelta::seconds(5)),
        api::time::rfc3339(Utc::now() + TimeDelta::days(91)),
        "tomorrow".to_owned(),
        "2030-01-01".to_owned(),
    ] {
        owner
            .try_open_draw(program, &json!({"winners": 1, "closesAt": closes}))
            .await
            .expect_error(400, "invalid_closes_at");
    }
    owner.try_open_draw(program, &json!({"winners": 1, "closesAt": 5})).await.expect_error(400, "invalid_body");
    assert_eq!(app.scalar::<i64>("SELECT count(*) FROM draws", &[]).await, 0, "nothing written");
    // A close in the future leaves the draw open; nobody waiting yet is fine then.
    let (empty, _) = waiting(&app, &owner, ws, "empty-now", 3, 0).await;
    let later = api::time::rfc3339(Utc::now() + TimeDelta::days(89));
    let open: BeaconDrawRecord =
        owner.try_open_draw(empty, &json!({"winners": 1, "closesAt": later})).await.expect(201);
    assert_eq!((open.state, open.closes_at), (DrawState::Open, later));
}

#[tokio::test]
async fn a_chain_is_configured_whole_or_not_at_all() {
    let app = TestApp::spawn().await;
    let base = [
        ("APP_ORIGINS", crate::support::ORIGIN),
        ("SIGNUP_BINDING_KEY", &"01".repeat(32)),
        ("CSRF_KEY", &"02".repeat(32)),
        ("CLERK_SECRET_KEY", "sk_test_config"),
        ("BIND_ADDR", "127.0.0.1:0"),
    ]
    .map(|(k, v)| (k, v.to_owned()));
    let key = hex::encode(&LocalChain::default_for_tests().public_key);
    for (extra, says) in [
        (vec![("DRAND_PUBLIC_KEY", key.clone())], "set together"),
        (vec![("DRAND_GENESIS", "1700000000".into()), ("DRAND_PERIOD", "1".into())], "set together"),
        (vec![("DRAND_SCHEME", "pedersen-bls-chained".into())], "set together"),
        (
            vec![
                ("DRAND_PUBLIC_KEY", key[..40].to_owned()),
                ("DRAND_GENESIS", "1700000000".into()),
                ("DRAND_PERIOD", "1".into()),
            ],
            "public key is not a point",
        ),
        (
            vec![
                ("DRAND_PUBLIC_KEY", key.clone()),
                ("DRAND_GENESIS", "1700000000".into()),
                ("DRAND_PERIOD", "1".into()),
                ("DRAND_SCHEME", "pedersen-bls-chained".into()),
            ],
            "scheme is not one of",
        ),
        (vec![("DRAND_RELAY_URL", "ftp://relay".into())], "DRAND_RELAY_URL"),
        (vec![("DRAW_CLOSE_MARGIN_SECONDS", "86400".into())], "DRAW_CLOSE_MARGIN_SECONDS"),
    ] {
        let env: Vec<(&str, &str)> = base.iter().chain(extra.iter()).map(|(k, v)| (*k, v.as_str())).collect();
        let serve = tokio::process::Command::new(process::workspace_bin("vestibule"))
            .arg("serve")
            .env("DATABASE_URL", &app.db_url)
            .envs(env)
            .kill_on_drop(true)
            .output();
        let out = tokio::time::timeout(std::time::Duration::from_secs(20), serve)
            .await
            .unwrap_or_else(|_| panic!("{extra:?}: the server started"))
            .unwrap();
        let printed = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!out.status.success() && printed.contains(says), "{extra:?}: {printed}");
    }
}
