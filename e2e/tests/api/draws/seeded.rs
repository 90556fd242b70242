//! Draws of formats 1 and 2 (issue 16: a server seed committed at the opening), made
//! before migration V110: their downloaded records verify as they did, and a seeded
//! draw still open at the upgrade runs as it was committed to. They were never public,
//! and are not listed publicly.

use super::{sha256_hex, sorted_tickets, waiting};
use crate::support::draws::{verify_draw, winner_lines};
use crate::support::TestApp;
use serde_json::json;
use shared::trust::DrawRecord;
use uuid::Uuid;

#[tokio::test]
async fn a_record_downloaded_before_public_randomness_still_verifies() {
    // Computed independently (Python's hashlib and hmac) in the format 1 rules.
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/draw-v1.json");
    let old: DrawRecord = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let (ok, out) = verify_draw(&old).await;
    assert!(ok && out.contains("format 1"), "{out}");
    let mut altered = old.clone();
    altered.seed = Some(hex::encode([7u8; 32]));
    let (ok, out) = verify_draw(&altered).await;
    assert!(!ok && out.contains("seed was altered"), "{out}");
}

#[tokio::test]
async fn a_seeded_draw_open_at_the_upgrade_runs_as_committed_and_verifies() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entries) = waiting(&app, &owner, ws, "old-draw", 3, 4).await;
    for format in [1i16, 2] {
        let seed = [format as u8; 32];
        let tickets = sorted_tickets(program, &entries);
        let mut committed = if format == 2 { b"vestibule-draw/2\nsource=\nflag=\n".to_vec() } else { vec![] };
        tickets.iter().for_each(|t| committed.extend(hex::decode(t).unwrap()));
        let draw = Uuid::new_v4();
        app.exec(
            "INSERT INTO draws (id, program_id, winners, candidates, seed, seed_commitment, tickets_hash, opened_at, \
               format, state) VALUES ($1, $2, 1, 4, $3, $4, $5, now(), $6, 'open')",
            &[
                &draw,
                &program,
                &seed.to_vec(),
                &hex::decode(sha256_hex(&seed)).unwrap(),
                &hex::decode(sha256_hex(&committed)).unwrap(),
                &format,
            ],
        )
        .await;
        let by_ticket: Vec<Vec<u8>> =
            entries.iter().map(|e| hex::decode(super::ticket(program, *e)).unwrap()).collect();
        app.exec(
            "INSERT INTO draw_tickets (draw_id, program_id, entry_id, ticket) SELECT $1, $2, e, t FROM unnest($3::uuid[], $4::bytea[]) x(e, t)",
            &[&draw, &program, &entries, &by_ticket],
        )
        .await;
        let path = format!("/api/owner/programs/{program}/draws/{draw}");
        let open: DrawRecord = owner.get(&path).await.expect(200);
        assert_eq!(
            (open.format.as_str(), open.seed.as_ref()),
            (if format == 2 { "vestibule-draw/2" } else { "vestibule-draw/1" }, None)
        );
        assert!(verify_draw(&open).await.0);
        owner
            .try_run_draw(program, draw, &json!({"beacon": {"round": 1, "signature": "00"}}))
            .await
            .expect_error(400, "invalid_beacon");
        let run: DrawRecord = owner.try_run_draw(program, draw, &json!({})).await.expect(200);
        assert_eq!((run.state.as_str(), run.seed.clone(), run.drawn.len()), ("run", Some(hex::encode(seed)), 1));
        let (ok, out) = verify_draw(&run).await;
        assert!(ok && winner_lines(&out) == [format!("winner 1 {}", run.drawn[0])], "{out}");
        owner.try_run_draw(program, draw, &json!({})).await.expect_error(409, "draw_already_run");
    }
    assert!(app.public_draws("old-draw").await.is_empty(), "seeded draws were never public");
    let out = crate::support::process::vestibule(&app.db_url, &["verify"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

/// A database with seeded draws from before V110 — one run, one still open — migrates:
/// their states are read from their rows, they verify, and their fixed fields are frozen
/// from then on.
#[tokio::test]
async fn a_database_with_seeded_draws_migrates_and_freezes_them() {
    let url = crate::support::db::empty_database().await;
    api::db::migrate_versions(&url, |v| v < 110).await.expect("the migrations before V110");
    let c = crate::support::db::connect(&url).await;
    let (ws, program, notice, draw_run, draw_open) =
        (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    c.execute("INSERT INTO workspaces (id, name) VALUES ($1, 'Old')", &[&ws]).await.unwrap();
    c.execute(
        "INSERT INTO programs (id, workspace_id, public_slug, purpose, queue_cap, hourly_cap, seat_cap, max_invite_days) \
         VALUES ($1, $2, 'old-draws', 'An old beta.', 100, 100, 10, 14)",
        &[&program, &ws],
    )
    .await
    .unwrap();
    c.execute(
        "INSERT INTO notices (id, program_id, version, purpose, contact_text, retention_text) \
         VALUES ($1, $2, 1, 'An old beta.', 'old@example.com', 'A year.')",
        &[&notice, &program],
    )
    .await
    .unwrap();
    let seed = vec![9u8; 32];
    let commitment = hex::decode(sha256_hex(&seed)).unwrap();
    for (id, run_at) in [(draw_run, Some(chrono::Utc::now())), (draw_open, None)] {
        c.execute(
            "INSERT INTO draws (id, program_id, winners, candidates, seed, seed_commitment, tickets_hash, opened_at, \
               run_at, format, filter_source) VALUES ($1, $2, 1, 1, $3, $4, $4, now() - interval '1 day', $5, 2, 'news')",
            &[&id, &program, &seed, &commitment, &run_at],
        )
        .await
        .unwrap();
    }
    let out = crate::support::process::vestibule(&url, &["migrate"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let states: Vec<String> = c
        .query("SELECT state FROM draws WHERE id = ANY($1) ORDER BY run_at NULLS LAST", &[&vec![draw_run, draw_open]])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(states, ["run", "open"]);
    let refused = c.execute("UPDATE draws SET seed = $2 WHERE id = $1", &[&draw_open, &vec![1u8; 32]]).await;
    let refused = refused.expect_err("a seed is frozen").as_db_error().map(|e| e.message().to_owned());
    assert!(refused.is_some_and(|m| m.contains("fixed fields")));
    c.execute(
        "UPDATE draws SET state = 'cancelled', cancelled_at = now(), cancel_reason = 'owner_discretion' WHERE id = $1",
        &[&draw_open],
    )
    .await
    .expect("an open seeded draw may still be cancelled");
    let report = crate::support::process::vestibule(&url, &["verify"], &[]);
    let printed = String::from_utf8_lossy(&report.stdout);
    assert!(printed.contains("ok    the draw-freezing triggers are in place"), "{printed}");
}
