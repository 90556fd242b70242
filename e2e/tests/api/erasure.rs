//! Erasure that stays erased, and a person's own data (issue 16). An applicant or an
//! owner erases an entry: it is withdrawn if live, redacted at once with its links kept,
//! and a receipt and a keyed suppression are written. A restore from an older backup
//! brings the entry back; `vestibule verify` reports it and `vestibule redact --reapply`
//! erases it again. A later signup by the same person is a new entry and stays.

use crate::support::process;
use crate::support::{db, TestApp};
use serde_json::json;
use shared::trust::{ErasureReceipt, PersonalDataExport};
use shared::EntryState;
use std::process::Command;
use uuid::Uuid;

/// The test server's SIGNUP_BINDING_KEY (`settings.hmac_key`), as the CLI reads it.
fn key_env() -> [(&'static str, String); 1] {
    [("SIGNUP_BINDING_KEY", "01".repeat(32))]
}

fn vestibule(db_url: &str, args: &[&str]) -> (bool, String) {
    let [(name, key)] = key_env();
    let out = process::vestibule(db_url, args, &[(name, key.as_str())]);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn dump(from: &str) -> std::path::PathBuf {
    let file = std::env::temp_dir().join(format!("vestibule-{}.dump", Uuid::new_v4().simple()));
    let out = Command::new("pg_dump").args(["-Fc", "-f"]).arg(&file).arg(from).output().expect("pg_dump runs");
    assert!(out.status.success(), "pg_dump: {}", String::from_utf8_lossy(&out.stderr));
    file
}

fn restore(file: &std::path::Path, into: &str, extra: &[&str]) {
    let out = Command::new("pg_restore")
        .args(["--no-owner", "-d", into])
        .args(extra)
        .arg(file)
        .output()
        .expect("pg_restore runs");
    assert!(out.status.success(), "pg_restore: {}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test]
async fn an_applicant_erases_their_entry_and_may_sign_up_again_later() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "erasable").await;
    app.signup("erasable", "erin@example.com").await;
    app.signup("erasable", "bob@example.com").await;
    let entry = app.entry_id(program, "erin@example.com").await;
    owner.select(program, entry).await;
    let erin = app.recipient("erin@example.com").await;

    let receipt: ErasureReceipt = erin.post("/api/me/waitlist/erasable/erase", &json!({})).await.expect(200);
    let row = app.row("SELECT email_key, state, redacted_at IS NOT NULL FROM entries WHERE id = $1", &[&entry]).await;
    let (email, state, redacted): (String, String, bool) = (row.get(0), row.get(1), row.get(2));
    assert!(email.starts_with("redacted+") && email.ends_with("@redacted.invalid"), "{email}");
    assert_eq!((state.as_str(), redacted), ("withdrawn", true));
    let events: Vec<String> =
        app.column("SELECT event_type FROM audit_events WHERE entry_id = $1 ORDER BY id", &[&entry]).await;
    assert_eq!(events, ["signup", "selected", "withdrawn", "erased"]);
    let details: String = app
        .scalar("SELECT details::text FROM audit_events WHERE entry_id = $1 AND event_type = 'erased'", &[&entry])
        .await;
    assert!(details.contains(&receipt.receipt_id.to_string()) && !details.contains('@'), "{details}");
    let suppressions: i64 = app.scalar("SELECT count(*) FROM erasure_suppressions", &[]).await;
    assert_eq!(suppressions, 1);
    // The erased entry is no longer found by the address; the other person is untouched.
    erin.try_status("erasable").await.assert(404);
    erin.post("/api/me/waitlist/erasable/erase", &json!({})).await.assert(404);
    let bob: String = app.scalar("SELECT state FROM entries WHERE email_key = 'bob@example.com'", &[]).await;
    assert_eq!(bob, "waiting");

    // A later signup is a new choice: a new entry, not affected by the suppression.
    app.signup("erasable", "erin@example.com").await;
    assert_eq!(erin.status("erasable").await.state, EntryState::Waiting);
    let (ok, report) = vestibule(&app.db_url, &["verify"]);
    assert!(ok, "{report}");
    assert!(report.contains("ok    no erased entry was brought back by a restore"), "{report}");
}

#[tokio::test]
async fn an_owner_erases_an_entry_with_a_reason_and_gets_the_same_receipt_again() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let invited = owner.invited(ws, "owner-erases", "rita@example.com").await;
    let rita = app.recipient("rita@example.com").await;
    rita.redeem(&invited.code).await;
    let path = format!("/api/owner/programs/{}/entries/{}/erase", invited.program, invited.entry);
    owner.post(&path, &json!({"reasonCode": "because"})).await.expect_error(400, "invalid_reason_code");
    let (stranger, _) = app.owner("stranger@example.com").await;
    stranger.post(&path, &json!({"reasonCode": "legal_obligation"})).await.assert(404);

    let receipt: ErasureReceipt = owner.post(&path, &json!({"reasonCode": "legal_obligation"})).await.expect(200);
    let again: ErasureReceipt = owner.post(&path, &json!({"reasonCode": "legal_obligation"})).await.expect(200);
    assert_eq!(receipt, again);
    // Live → withdrawn: the grant ended and the content is closed to her at once.
    rita.try_early_access("owner-erases").await.assert(404);
    let row = app.row("SELECT active, clerk_user_id FROM grants WHERE entry_id = $1", &[&invited.entry]).await;
    let (active, clerk): (bool, String) = (row.get(0), row.get(1));
    assert!(!active && clerk.starts_with("redacted_"), "{clerk}");
    let basis: String = app.scalar("SELECT basis FROM erasures WHERE id = $1", &[&receipt.receipt_id]).await;
    assert_eq!(basis, "legal_obligation");
    let (ok, report) = vestibule(&app.db_url, &["verify"]);
    assert!(ok, "{report}");
}

#[tokio::test]
async fn an_erasure_lost_by_restoring_an_older_backup_is_reported_and_reapplied() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "restored").await;
    app.signup("restored", "erin@example.com").await;
    app.signup("restored", "bob@example.com").await;
    let old_entry = app.entry_id(program, "erin@example.com").await;
    let older = dump(&app.db_url);

    let erin = app.recipient("erin@example.com").await;
    let receipt: ErasureReceipt = erin.post("/api/me/waitlist/restored/erase", &json!({})).await.expect(200);
    app.signup("restored", "erin@example.com").await;
    let newer = dump(&app.db_url);

    // Disaster: the older backup is restored, and the suppressions carried over from
    // the newer one (README, "Restoring after an erasure").
    let restored = db::empty_database().await;
    restore(&older, &restored, &[]);
    restore(&newer, &restored, &["--data-only", "--table=erasure_suppressions"]);
    let (ok, report) = vestibule(&restored, &["verify"]);
    assert!(!ok, "verify passed a restore that brought an erased entry back:\n{report}");
    assert!(
        report.lines().any(|l| l.starts_with("FAIL  erased entry brought back by a restore")
            && l.contains(&old_entry.to_string())
            && l.contains(&receipt.receipt_id.to_string())),
        "{report}"
    );
    // Without the key the check cannot run, and says so.
    let out = process::vestibule(&restored, &["verify"], &[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("skip  erased entries brought back"));

    let (ok, out) = vestibule(&restored, &["redact", "--reapply"]);
    assert!(ok && out.contains("erased again 1 entries"), "{out}");
    let (ok, report) = vestibule(&restored, &["verify"]);
    assert!(ok, "verify after --reapply:\n{report}");
    let restored_db = db::connect(&restored).await;
    let row = restored_db
        .query_one(
            "SELECT e.email_key, x.id FROM entries e JOIN erasures x ON x.entry_id = e.id WHERE e.id = $1",
            &[&old_entry],
        )
        .await
        .unwrap();
    let (email, receipt_id): (String, Uuid) = (row.get(0), row.get(1));
    assert!(email.starts_with("redacted+"), "{email}");
    assert_eq!(receipt_id, receipt.receipt_id, "the reapplied erasure keeps its receipt");
    let (ok, again) = vestibule(&restored, &["redact", "--reapply"]);
    assert!(ok && again.contains("erased again 0 entries"), "{again}");

    // On the live database the later signup is not reported.
    let (ok, report) = vestibule(&app.db_url, &["verify"]);
    assert!(ok, "{report}");
    let _ = (std::fs::remove_file(older), std::fs::remove_file(newer));
}

#[tokio::test]
async fn the_export_holds_the_persons_own_data_and_nothing_of_anyone_else() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let invited = owner.invited(ws, "export-one", "erin@example.com").await;
    let erin = app.recipient("erin@example.com").await;
    erin.redeem(&invited.code).await;
    let second = owner.open_program(ws, "export-two").await;
    app.signup("export-two", "erin@example.com").await;
    app.signup("export-one", "bob@example.com").await;
    app.signup("export-two", "bob@example.com").await;
    let bob_entries: Vec<Uuid> = app.column("SELECT id FROM entries WHERE email_key = 'bob@example.com'", &[]).await;

    let reply = erin.get("/api/me/export").await;
    reply.assert(200);
    assert_eq!(reply.header("cache-control"), Some("private, no-store"));
    let export: PersonalDataExport = reply.body();
    assert_eq!(export.emails, ["erin@example.com"]);
    let slugs: Vec<&str> = export.entries.iter().map(|e| e.program_slug.as_str()).collect();
    assert_eq!(slugs, ["export-one", "export-two"]);
    let first = &export.entries[0];
    assert_eq!(first.state, EntryState::Active);
    assert_eq!(first.notice.retention_text, "Kept 12 months.");
    assert_eq!(first.invitations.len(), 1);
    assert!(first.invitations[0].delivered_at.is_some());
    assert_eq!(first.grants.len(), 1);
    assert!(first.grants[0].active);
    assert_eq!(export.entries[1].state, EntryState::Waiting);
    let _ = second;

    let text = reply.json().to_string();
    assert!(!text.contains("bob@example.com") && !text.contains("owner@example.com"), "{text}");
    for id in bob_entries {
        assert!(!text.contains(&id.to_string()), "another person's entry id in {text}");
    }
    assert!(!text.contains(&invited.code), "no code in the export");
    assert!(!text.contains(&erin.user_id), "no identity-provider id in the export");

    // Someone with no entries gets an empty export, not an error.
    let nobody = app.recipient("nobody@example.com").await;
    let empty: PersonalDataExport = nobody.get("/api/me/export").await.expect(200);
    assert!(empty.entries.is_empty());
}
