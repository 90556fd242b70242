//! Verifiable lottery draws (issue 16): opening commits to a seed and to the frozen
//! tickets, running reveals the seed and selects the first eligible tickets of its order
//! within the seat cap, and the downloadable record recomputes offline with
//! `vestibule verify-draw`. Each refusal changes nothing.

use crate::support::process;
use crate::support::{Caps, Owner, TestApp};
use ring::digest;
use serde_json::json;
use shared::trust::{DrawRecord, OwnDrawTicket};
use uuid::Uuid;

fn ticket(program: Uuid, entry: Uuid) -> String {
    let mut ctx = digest::Context::new(&digest::SHA256);
    ctx.update(program.as_bytes());
    ctx.update(entry.as_bytes());
    hex::encode(ctx.finish())
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(digest::digest(&digest::SHA256, bytes))
}

fn verify_draw(record: &DrawRecord) -> (bool, String) {
    let path = std::env::temp_dir().join(format!("draw-{}.json", Uuid::new_v4().simple()));
    std::fs::write(&path, serde_json::to_string_pretty(record).unwrap()).unwrap();
    let out = process::vestibule("postgres://unused", &["verify-draw", path.to_str().unwrap()], &[]);
    let _ = std::fs::remove_file(path);
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// An open program `slug` with `n` waiting signups `d{i}@example.com`.
async fn waiting(app: &TestApp, owner: &Owner, ws: Uuid, slug: &str, seats: i32, n: usize) -> (Uuid, Vec<Uuid>) {
    let program = owner.program_with(ws, slug, Caps { seats, ..Caps::default() }).await;
    let mut entries = Vec::new();
    for i in 0..n {
        let email = format!("d{i}@example.com");
        app.signup(slug, &email).await;
        entries.push(app.entry_id(program, &email).await);
    }
    (program, entries)
}

#[tokio::test]
async fn a_draw_commits_runs_once_and_its_record_recomputes_offline() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, entries) = waiting(&app, &owner, ws, "lottery", 3, 6).await;
    let draws = format!("/api/owner/programs/{program}/draws");

    let opened: DrawRecord = owner.post(&draws, &json!({"winners": 2})).await.expect(201);
    assert_eq!((opened.state.as_str(), opened.seed.as_ref(), opened.tickets.len()), ("open", None, 6));
    let mut expected: Vec<String> = entries.iter().map(|e| ticket(program, *e)).collect();
    expected.sort();
    assert_eq!(opened.tickets, expected, "ticket = SHA-256(program ‖ entry), sorted");
    let joined: Vec<u8> = expected.iter().flat_map(|t| hex::decode(t).unwrap()).collect();
    assert_eq!(opened.tickets_hash, sha256_hex(&joined));
    assert!(!serde_json::to_string(&opened).unwrap().contains('@'), "tickets reveal no email");
    owner.post(&draws, &json!({"winners": 1})).await.expect_error(409, "draw_already_open");
    assert!(verify_draw(&opened).0, "an open record verifies its tickets");

    // Someone leaves between opening and running: their ticket is skipped.
    owner.withdraw(program, entries[0], "applicant_request").await;
    let run_path = format!("{draws}/{}/run", opened.draw_id);
    let run: DrawRecord = owner.post(&run_path, &json!({})).await.expect(200);
    let seed = hex::decode(run.seed.as_ref().expect("the seed is revealed")).unwrap();
    assert_eq!(sha256_hex(&seed), opened.seed_commitment, "the seed is the one committed to at opening");
    assert_eq!((run.tickets.clone(), run.tickets_hash.clone()), (opened.tickets.clone(), opened.tickets_hash.clone()));
    assert_eq!(run.ineligible, [ticket(program, entries[0])]);
    assert_eq!(run.drawn.len(), 2);
    owner.post(&run_path, &json!({})).await.expect_error(409, "draw_already_run");

    // The winners are selected with reason `lottery`, nobody else is.
    let winners: Vec<Uuid> = entries.iter().copied().filter(|e| run.drawn.contains(&ticket(program, *e))).collect();
    assert_eq!(winners.len(), 2);
    for entry in &entries {
        let state: String = app.scalar("SELECT state FROM entries WHERE id = $1", &[entry]).await;
        let want = if winners.contains(entry) {
            "selected"
        } else if *entry == entries[0] {
            "withdrawn"
        } else {
            "waiting"
        };
        assert_eq!(state, want);
    }
    let reasons: Vec<String> = app
        .column(
            "SELECT details->>'reasonCode' FROM audit_events WHERE program_id = $1 AND event_type = 'selected'",
            &[&program],
        )
        .await;
    assert_eq!(reasons, ["lottery", "lottery"]);

    // The downloadable record recomputes offline; an altered seed or ticket list does not.
    let record: DrawRecord = owner.get(&format!("{draws}/{}", opened.draw_id)).await.expect(200);
    assert_eq!(record, run);
    let (ok, out) = verify_draw(&record);
    assert!(ok && out.starts_with("ok"), "{out}");
    let mut seed_changed = record.clone();
    seed_changed.seed = Some(hex::encode([7u8; 32]));
    let (ok, out) = verify_draw(&seed_changed);
    assert!(!ok && out.contains("seed was altered"), "{out}");
    let mut tickets_changed = record.clone();
    tickets_changed.tickets.pop();
    let (ok, out) = verify_draw(&tickets_changed);
    assert!(!ok && out.contains("ticket list was altered"), "{out}");

    // Each applicant sees their own ticket and whether it was drawn.
    for (i, entry) in entries.iter().enumerate().skip(1) {
        let me = app.recipient(&format!("d{i}@example.com")).await;
        let mine: Vec<OwnDrawTicket> = me.get("/api/me/waitlist/lottery/draws").await.expect(200);
        assert_eq!(mine.len(), 1);
        assert_eq!((mine[0].ticket.clone(), mine[0].drawn), (ticket(program, *entry), winners.contains(entry)));
    }
    let (ok, report) = {
        let out = process::vestibule(&app.db_url, &["verify"], &[]);
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    assert!(ok, "{report}");
}

#[tokio::test]
async fn a_draw_without_enough_seats_or_candidates_is_refused() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (program, _) = waiting(&app, &owner, ws, "few-seats", 1, 3).await;
    let draws = format!("/api/owner/programs/{program}/draws");
    owner.post(&draws, &json!({"winners": 0})).await.expect_error(400, "invalid_winners");
    let opened: DrawRecord = owner.post(&draws, &json!({"winners": 2})).await.expect(201);
    let run_path = format!("{draws}/{}/run", opened.draw_id);
    owner.post(&run_path, &json!({})).await.expect_error(409, "draw_seats_insufficient");
    let selected: i64 = app.scalar("SELECT count(*) FROM entries WHERE state = 'selected'", &[]).await;
    assert_eq!(selected, 0, "a refused run selects nobody");
    let record: DrawRecord = owner.get(&format!("{draws}/{}", opened.draw_id)).await.expect(200);
    assert_eq!((record.state.as_str(), record.seed), ("open", None), "and reveals nothing");

    // With the seats there, the same draw runs.
    owner
        .patch_program(
            program,
            shared::api::PatchProgramRequest { seat_cap: Some(2), ..crate::support::owner::changes() },
        )
        .await;
    let run: DrawRecord = owner.post(&run_path, &json!({})).await.expect(200);
    assert_eq!(run.drawn.len(), 2);

    let (empty, _) = waiting(&app, &owner, ws, "nobody-waits", 5, 0).await;
    owner
        .post(&format!("/api/owner/programs/{empty}/draws"), &json!({"winners": 1}))
        .await
        .expect_error(409, "draw_no_candidates");
    let (stranger, _) = app.owner("stranger@example.com").await;
    stranger.post(&draws, &json!({"winners": 1})).await.assert(404);
    stranger.get(&format!("{draws}/{}", opened.draw_id)).await.assert(404);
}
