//! The tamper-evident audit history (issue 16): each program's events form a hash chain
//! written by the database in the writing transaction; `vestibule verify` recomputes
//! every chain independently and names each tampered event by id, and a checkpoint the
//! owner saved proves later that today's history still begins with the one it saw.
//! Tampering is done the only way it can be: as a superuser with the triggers off.

use crate::support::process;
use crate::support::{Owner, TestApp};
use shared::trust::AuditCheckpoint;
use std::process::Output;
use uuid::Uuid;

fn verify(app: &TestApp, args: &[&str]) -> (bool, String) {
    let out: Output = process::vestibule(&app.db_url, &[&["verify"], args].concat(), &[]);
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.success(), format!("{report}{}", String::from_utf8_lossy(&out.stderr)))
}

/// An open program `slug` with `n` signups; returns its id.
async fn program_with_history(app: &TestApp, owner: &Owner, ws: Uuid, slug: &str, n: usize) -> Uuid {
    let program = owner.open_program(ws, slug).await;
    for i in 0..n {
        app.signup(slug, &format!("{slug}{i}@example.com")).await;
    }
    program
}

/// The program's event ids in id order.
async fn event_ids(app: &TestApp, program: Uuid) -> Vec<i64> {
    app.column("SELECT id FROM audit_events WHERE program_id = $1 ORDER BY id", &[&program]).await
}

/// Runs `sql` as the superuser with every trigger off (what tampering takes).
async fn tamper(app: &TestApp, sql: &str) {
    let client = app.db().await;
    client.batch_execute(&format!("SET session_replication_role = replica; {sql}")).await.unwrap();
}

async fn checkpoint(owner: &Owner, program: Uuid) -> AuditCheckpoint {
    owner.get(&format!("/api/owner/programs/{program}/audit/checkpoint")).await.expect(200)
}

fn save(cp: &AuditCheckpoint) -> String {
    let path = std::env::temp_dir().join(format!("checkpoint-{}.json", Uuid::new_v4().simple()));
    std::fs::write(&path, serde_json::to_string_pretty(cp).unwrap()).unwrap();
    path.display().to_string()
}

#[tokio::test]
async fn an_edited_a_deleted_and_a_reordered_event_are_each_reported_by_id() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let edited = program_with_history(&app, &owner, ws, "chain-edit", 3).await;
    let deleted = program_with_history(&app, &owner, ws, "chain-delete", 3).await;
    let reordered = program_with_history(&app, &owner, ws, "chain-order", 3).await;
    let untouched = program_with_history(&app, &owner, ws, "chain-fine", 2).await;
    let entry = app.entry_id(edited, "chain-edit0@example.com").await;
    owner.select(edited, entry).await;
    let (ok, report) = verify(&app, &[]);
    assert!(ok, "an untouched history verifies:\n{report}");
    assert_eq!(report.lines().filter(|l| l.starts_with("ok    audit chain of program")).count(), 4, "{report}");

    // An edit: the selection's reason is rewritten.
    let selection: i64 =
        app.scalar("SELECT id FROM audit_events WHERE program_id = $1 AND event_type = 'selected'", &[&edited]).await;
    tamper(
        &app,
        &format!("UPDATE audit_events SET details = '{{\"reasonCode\": \"priority_group\"}}' WHERE id = {selection}"),
    )
    .await;
    // A deletion in the middle of a chain.
    let gone = event_ids(&app, deleted).await[2];
    tamper(&app, &format!("DELETE FROM audit_events WHERE id = {gone}")).await;
    // Two neighbours swap places (whole rows, chain columns included).
    let ids = event_ids(&app, reordered).await;
    let (a, b) = (ids[2], ids[3]);
    tamper(
        &app,
        &format!(
            "CREATE TEMP TABLE moved AS SELECT * FROM audit_events WHERE id IN ({a}, {b}); \
             DELETE FROM audit_events WHERE id IN ({a}, {b}); \
             UPDATE moved SET id = CASE WHEN id = {a} THEN {b} ELSE {a} END; \
             INSERT INTO audit_events OVERRIDING SYSTEM VALUE SELECT * FROM moved"
        ),
    )
    .await;

    let (ok, report) = verify(&app, &[]);
    assert!(!ok, "verify passed a tampered history:\n{report}");
    let fail = |program: Uuid, what: &str| {
        report.lines().any(|l| l.starts_with(&format!("FAIL  audit chain of program {program}: {what}")))
    };
    assert!(fail(edited, &format!("event {selection} was edited")), "{report}");
    assert!(fail(deleted, &format!("event {gone} is missing (deleted)")), "{report}");
    assert!(fail(reordered, &format!("event {a} is out of order")), "{report}");
    assert!(fail(reordered, &format!("event {b} is out of order")), "{report}");
    assert!(report.contains(&format!("ok    audit chain of program {untouched}")), "{report}");
}

#[tokio::test]
async fn a_checkpoint_saved_before_an_edit_fails_after_it_even_when_the_chain_is_rehashed() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = program_with_history(&app, &owner, ws, "kept", 3).await;
    let cp = checkpoint(&owner, program).await;
    let ids = event_ids(&app, program).await;
    assert_eq!((cp.program_id, cp.last_event_id, cp.count), (program, *ids.last().unwrap(), ids.len() as i64));
    assert_eq!(cp.head_hash.len(), 64);
    let file = save(&cp);

    // History goes on: the checkpoint stays a prefix of the chain.
    app.signup("kept", "later@example.com").await;
    let (ok, report) = verify(&app, &["--checkpoint", &file]);
    assert!(ok && report.contains(&format!("ok    checkpoint {file}")), "{report}");

    // A careful forger edits an early event and recomputes every hash after it: the
    // chain is consistent again, but it is no longer the history the checkpoint saw.
    tamper(
        &app,
        &format!(
            "UPDATE audit_events SET event_at = event_at - interval '1 day' WHERE id = {}; \
             DO $$ DECLARE r record; h bytea := decode(repeat('00', 32), 'hex'); BEGIN \
               FOR r IN SELECT * FROM audit_events WHERE program_id = '{program}' ORDER BY id LOOP \
                 UPDATE audit_events SET prev_hash = h, hash = sha256(h || audit_canonical(r.id, r.program_id, \
                   r.chain_seq, r.prev_id, r.entry_id, r.actor_kind, r.actor_staff_id, r.event_type, r.event_at, \
                   r.details)) WHERE id = r.id RETURNING hash INTO h; \
               END LOOP; END $$",
            ids[1]
        ),
    )
    .await;
    let (_, plain) = verify(&app, &[]);
    assert!(
        plain.contains(&format!("ok    audit chain of program {program}")),
        "rehashed chain is consistent:\n{plain}"
    );
    let (ok, report) = verify(&app, &["--checkpoint", &file]);
    assert!(!ok, "{report}");
    assert!(report.lines().any(|l| l.starts_with(&format!("FAIL  checkpoint {file}"))), "{report}");
    let _ = std::fs::remove_file(file);
}

#[tokio::test]
async fn the_checkpoint_is_the_owners_alone() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "mine").await;
    let (stranger, _) = app.owner("stranger@example.com").await;
    let path = format!("/api/owner/programs/{program}/audit/checkpoint");
    stranger.get(&path).await.assert(404);
    app.get(&path, None).await.assert(401);
    let reply = owner.get(&path).await;
    reply.assert(200);
    assert_eq!(reply.header("cache-control"), Some("private, no-store"));
}

/// An event recorded outside the batch admission (a redemption, an owner's action) reads
/// its program's chain head under the program lock. Whatever the statistics say — here,
/// that this program holds every event, while another program has since recorded
/// thousands — the head is found by the program's own chain index, not by walking the
/// newer events of the others (V135).
#[tokio::test]
async fn recording_an_event_reads_its_own_chain_head_not_the_other_programs_newer_events() {
    use crate::support::db;
    const OTHERS: i64 = 3000;
    let owner_url = db::fresh_database().await;
    let admin = db::connect(&owner_url).await;
    let ids: Vec<Uuid> = admin
        .query(
            "WITH w AS (INSERT INTO workspaces (name) VALUES ('heads') RETURNING id) \
             INSERT INTO programs (workspace_id, public_slug, purpose, queue_cap, hourly_cap, seat_cap, max_invite_days) \
             SELECT id, slug, 'chain heads', 100, 100, 100, 7 FROM w, (VALUES ('quiet'), ('busy')) s(slug) \
             RETURNING id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let (quiet, busy) = (ids[0], ids[1]);
    let record = "INSERT INTO audit_events (program_id, actor_kind, event_type, event_at) \
                  SELECT $1, 'system', 'notice_published', clock_timestamp() FROM generate_series(1, $2::int8)";
    admin.execute(record, &[&quiet, &5_i64]).await.unwrap();
    admin
        .batch_execute("ANALYZE audit_events; ALTER TABLE audit_events SET (autovacuum_enabled = false)")
        .await
        .unwrap();
    admin.execute(record, &[&busy, &OTHERS]).await.unwrap();

    let pool = api::db::pool(&db::app_url(&owner_url).await, 1).unwrap();
    let mut client = pool.get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    let now = chrono::Utc::now();
    use api::db::audit::{record as record_event, Actor, EventType};
    record_event(&tx, quiet, None, Actor::System, EventType::NoticePublished, now, &[]).await.unwrap();
    let buffers = crate::support::pages_read(&tx, &["audit_events"]).await;
    tx.commit().await.unwrap();
    assert!(buffers < 40, "one event beside {OTHERS} newer ones of another program read {buffers} pages");
    let seq: i64 = admin
        .query_one("SELECT max(chain_seq) FROM audit_events WHERE program_id = $1", &[&quiet])
        .await
        .unwrap()
        .get(0);
    assert_eq!(seq, 6, "the quiet program's chain goes on from its own head");
    let out = process::vestibule(&owner_url, &["verify"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}
