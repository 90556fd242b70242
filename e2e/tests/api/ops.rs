//! Operations (issue 7): backup and restore checked by `vestibule verify`, retention
//! redaction, several API instances on one database.

use crate::invitations::one_seat_for_two;
use crate::support::invitations::expiring_in;
use crate::support::process::{self, ApiProcess};
use crate::support::race::LockHolder;
use crate::support::{db, TestApp};
use chrono::{DateTime, Utc};
use std::process::Command;
use uuid::Uuid;

/// A small but complete history: signups, decisions, an invitation redeemed, a withdrawal.
async fn populate(app: &TestApp) -> Uuid {
    let (owner, ws) = app.owner("owner@example.com").await;
    let rita = app.recipient("rita@example.com").await;
    let invited = owner.invited(ws, "ops-beta", "rita@example.com").await;
    rita.redeem(&invited.code).await;
    for i in 0..5 {
        app.signup("ops-beta", &format!("person{i}@example.com")).await;
    }
    let program = invited.program;
    owner.decline(program, app.entry_id(program, "person0@example.com").await, "not_eligible").await;
    owner.withdraw(program, app.entry_id(program, "person1@example.com").await, "applicant_request").await;
    program
}

fn vestibule(db_url: &str, args: &[&str]) -> std::process::Output {
    process::vestibule(db_url, args, &[])
}

/// Dumps `from` with pg_dump and restores it into a new database; returns its URL.
async fn backup_and_restore(from: &str) -> String {
    let dump = std::env::temp_dir().join(format!("vestibule-{}.dump", Uuid::new_v4().simple()));
    let out = Command::new("pg_dump").args(["-Fc", "-f"]).arg(&dump).arg(from).output().expect("pg_dump runs");
    assert!(out.status.success(), "pg_dump: {}", String::from_utf8_lossy(&out.stderr));
    let target = db::empty_database().await;
    let out =
        Command::new("pg_restore").args(["--no-owner", "-d", &target]).arg(&dump).output().expect("pg_restore runs");
    assert!(out.status.success(), "pg_restore: {}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_file(dump);
    target
}

#[tokio::test]
async fn a_restored_backup_verifies_and_a_corrupted_copy_does_not() {
    let app = TestApp::spawn().await;
    populate(&app).await;
    let restored = backup_and_restore(&app.db_url).await;
    let out = vestibule(&restored, &["verify"]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "verify failed on the restored copy:\n{report}");
    assert!(report.contains(" 0 failed"), "{report}");

    // Corruptions a careless restore or a hand edit could make; each must be reported.
    let corruptions = [
        ("an active entry has an active grant", "UPDATE entries SET state = 'active' WHERE email_key = 'person2@example.com'"),
        (
            "queue",
            "UPDATE program_entry_counts SET n = n + 1 WHERE (program_id, state) = \
             (SELECT program_id, state FROM program_entry_counts WHERE state <> 'withdrawn' AND n > 0 LIMIT 1)",
        ),
        ("hour bucket", "UPDATE intake_hours SET admitted_count = admitted_count + 1"),
        (
            "append-only triggers",
            "ALTER TABLE audit_events DISABLE TRIGGER audit_immutable; DELETE FROM audit_events WHERE event_type = 'signup' \
             AND id = (SELECT max(id) FROM audit_events WHERE event_type = 'signup')",
        ),
    ];
    for (check, sql) in corruptions {
        let copy = backup_and_restore(&app.db_url).await;
        db::connect(&copy).await.batch_execute(sql).await.unwrap();
        let out = vestibule(&copy, &["verify"]);
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(!out.status.success(), "verify passed a corrupted copy ({check}):\n{report}");
        assert!(report.lines().any(|l| l.starts_with("FAIL") && l.contains(check)), "{check} not reported:\n{report}");
    }
}

/// Issue 12, item 9: `verify` checks what each append-only trigger is — on its table,
/// for its operations, calling the blocking function (which still raises), enabled for
/// ordinary sessions — not only that a trigger of that name exists somewhere (before the
/// fix every one of these copies verified).
#[tokio::test]
async fn verify_reports_append_only_triggers_that_are_moved_rewired_or_switched_off() {
    let app = TestApp::spawn().await;
    populate(&app).await;
    let recreate = |definition: &str| {
        format!("DROP TRIGGER audit_immutable ON audit_events; CREATE TRIGGER audit_immutable {definition}")
    };
    let corruptions = [
        ("replica only", "ALTER TABLE audit_events ENABLE REPLICA TRIGGER audit_immutable".to_owned()),
        ("always", "ALTER TABLE audit_events ENABLE ALWAYS TRIGGER audit_immutable".to_owned()),
        (
            "on another table",
            recreate("BEFORE UPDATE OR DELETE ON rate_limit_counters FOR EACH ROW EXECUTE FUNCTION block_immutable_reference_edits()"),
        ),
        ("delete only", recreate("BEFORE DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION block_immutable_reference_edits()")),
        (
            "another function",
            "CREATE FUNCTION let_it_pass() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN coalesce(NEW, OLD); END $$; "
                .to_owned()
                + &recreate("BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION let_it_pass()"),
        ),
        (
            "the function emptied",
            "CREATE OR REPLACE FUNCTION block_immutable_reference_edits() RETURNS trigger LANGUAGE plpgsql \
             AS $$ BEGIN RETURN coalesce(NEW, OLD); END $$"
                .to_owned(),
        ),
    ];
    for (what, sql) in corruptions {
        let copy = backup_and_restore(&app.db_url).await;
        db::connect(&copy).await.batch_execute(&sql).await.unwrap_or_else(|e| panic!("{what}: {e}"));
        let out = vestibule(&copy, &["verify"]);
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(!out.status.success(), "verify passed a copy whose trigger is {what}:\n{report}");
        let failed = report.lines().any(|l| l.starts_with("FAIL") && l.contains("append-only triggers"));
        assert!(failed, "{what} not reported:\n{report}");
    }
}

#[tokio::test]
async fn redaction_replaces_old_withdrawn_and_declined_emails_and_keeps_every_link() {
    let app = TestApp::spawn().await;
    let program = populate(&app).await;
    let before: i64 = app.scalar("SELECT count(*) FROM entries", &[]).await;
    // The database's clock, read once the history is written: every change precedes it,
    // and by the time the CLI runs it is already past (a future cutoff is refused).
    let cutoff: DateTime<Utc> = app.scalar("SELECT clock_timestamp()", &[]).await;
    let cutoff = cutoff.to_rfc3339();
    let out = vestibule(&app.db_url, &["redact", "--program", &program.to_string(), "--before", &cutoff]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "redacted 2 entries");
    let redacted: Vec<String> = app.column("SELECT email_key FROM entries WHERE redacted_at IS NOT NULL", &[]).await;
    assert_eq!(redacted.len(), 2);
    for email in redacted {
        assert!(email.starts_with("redacted+") && email.ends_with("@redacted.invalid"), "{email}");
    }
    for gone in ["person0@example.com", "person1@example.com"] {
        let n: i64 = app.scalar("SELECT count(*) FROM entries WHERE email_key = $1", &[&gone]).await;
        assert_eq!(n, 0);
    }
    let after: i64 = app.scalar("SELECT count(*) FROM entries", &[]).await;
    assert_eq!(before, after);
    let events: i64 = app.scalar("SELECT count(*) FROM audit_events WHERE event_type = 'redacted'", &[]).await;
    assert_eq!(events, 2);
    let out = vestibule(&app.db_url, &["verify"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    // A second run finds nothing more, and a future cutoff is refused.
    let out = vestibule(&app.db_url, &["redact", "--program", &program.to_string(), "--before", &cutoff]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "redacted 0 entries");
    let out = vestibule(&app.db_url, &["redact", "--program", &program.to_string(), "--before", "2999-01-01"]);
    assert!(!out.status.success());
}

/// Issue 12, item 5: a revoked entry is redacted too, and with every over entry go the
/// owner's free text on its delivery records and the Clerk user id on its grant — while
/// every link stays (before the fix the revoked entry, the references and the ids stayed).
#[tokio::test]
async fn redaction_covers_revoked_entries_delivery_records_and_grants_and_keeps_links() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let rita = app.recipient("rita@example.com").await;
    let invited = owner.invited(ws, "ops-redact", "rita@example.com").await;
    rita.redeem(&invited.code).await;
    let rita_grant: Uuid = app.scalar("SELECT id FROM grants WHERE entry_id = $1", &[&invited.entry]).await;
    owner.revoke_grant(rita_grant).await;
    let program = invited.program;
    let walt = app.recipient("walt@example.com").await;
    let walt_entry = owner.selected(program, "ops-redact", "walt@example.com").await;
    let issued = owner.issue(program, walt_entry).await;
    owner.record_delivery(issued.invitation.id).await;
    walt.redeem(issued.code.as_deref().unwrap()).await;
    walt.withdraw("ops-redact").await;
    let links = "SELECT g.id, g.invitation_id, g.entry_id, i.entry_id FROM grants g JOIN invitations i ON i.id = g.invitation_id ORDER BY g.id";
    let links_before: Vec<(Uuid, Uuid, Uuid, Uuid)> =
        app.rows(links, &[]).await.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect();
    assert_eq!(links_before.len(), 2);

    let cutoff: DateTime<Utc> = app.scalar("SELECT clock_timestamp()", &[]).await;
    let out = vestibule(&app.db_url, &["redact", "--program", &program.to_string(), "--before", &cutoff.to_rfc3339()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "redacted 2 entries");

    let personal: i64 = app
        .scalar(
            "SELECT (SELECT count(*) FROM entries WHERE email_key NOT LIKE 'redacted+%@redacted.invalid') \
                  + (SELECT count(*) FROM invitations WHERE delivery_reference IS NOT NULL OR delivery_channel <> 'redacted') \
                  + (SELECT count(*) FROM grants WHERE clerk_user_id IN ($1, $2) OR clerk_user_id NOT LIKE 'redacted\\_%')",
            &[&rita.user.user_id, &walt.user.user_id],
        )
        .await;
    assert_eq!(personal, 0, "no email, delivery text or Clerk id of an over entry is left");
    let links_after: Vec<(Uuid, Uuid, Uuid, Uuid)> =
        app.rows(links, &[]).await.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect();
    assert_eq!(links_after, links_before, "grants still point at their invitations and entries");
    let states: Vec<String> =
        app.column("SELECT e.state FROM entries e WHERE redacted_at IS NOT NULL ORDER BY state", &[]).await;
    assert_eq!(states, ["revoked", "withdrawn"]);
    let out = vestibule(&app.db_url, &["verify"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

/// Two `vestibule serve` processes on the app's database, with `env` besides the
/// test settings; returns the processes (kept alive) and the app reached at each.
async fn two_instances(app: &TestApp, env: &[(&str, &str)]) -> ([ApiProcess; 2], [TestApp; 2]) {
    let a = ApiProcess::start(&app.db_url, &app.clerk, env).await;
    let b = ApiProcess::start(&app.db_url, &app.clerk, env).await;
    let at = [app.at(&a.base), app.at(&b.base)];
    ([a, b], at)
}

#[tokio::test]
async fn two_instances_share_caps_and_rate_limits() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let caps = crate::support::Caps { queue: 10, ..Default::default() };
    owner.program_with(ws, "multi", caps).await;
    let (_processes, instance) = two_instances(&app, &[]).await;
    let emails: Vec<String> = (0..30).map(|i| format!("m{i}@example.com")).collect();
    let replies =
        futures::future::join_all(emails.iter().enumerate().map(|(i, e)| instance[i % 2].try_signup("multi", e))).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 202).count(), 10, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 20, "{statuses:?}");
    let n: i64 = app.scalar("SELECT count(*) FROM entries", &[]).await;
    assert_eq!(n, 10);

    // The per-address signup rate is shared too (counted per minute: keep clear of the
    // minute's end so the four requests fall in one window).
    owner.program_with(ws, "multi-rate", crate::support::Caps::default()).await;
    app.exec("DELETE FROM rate_limit_counters", &[]).await;
    crate::support::clear_of_period_end(60, 10).await;
    let (_processes, instance) = two_instances(&app, &[("SIGNUP_RATE_PER_MINUTE", "3")]).await;
    let mut statuses = Vec::new();
    for i in 0..4 {
        statuses.push(instance[i % 2].try_signup("multi-rate", &format!("r{i}@example.com")).await.status.as_u16());
    }
    assert_eq!(statuses, [202, 202, 202, 429]);
}

/// Hits of one address's counter that arrive together are counted together (`api/src/
/// hits.rs`: one upsert of `hits + n` per batch, a lane per counter on each HTTP worker of
/// each instance): a burst from one address on two instances, piled up behind the counter
/// row while a test session holds it, is counted
/// exactly — every attempt once, the rate's last places to the first in line, every
/// other attempt refused alike with its `Retry-After`, and nothing written for them.
#[tokio::test]
async fn a_burst_from_one_address_on_two_instances_is_counted_exactly_when_counted_together() {
    const RATE: usize = 5;
    const BURST: usize = 16;
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.program_with(ws, "burst", crate::support::Caps::default()).await;
    crate::support::clear_of_period_end(60, 15).await;
    let rate = RATE.to_string();
    let (_processes, instance) = two_instances(&app, &[("SIGNUP_RATE_PER_MINUTE", rate.as_str())]).await;
    // The first signup makes the address's counter row; then a session holds it.
    instance[0].try_signup("burst", "first@example.com").await.assert(202);
    let hold = LockHolder::holding(
        &app.db_url,
        "SELECT 1 FROM rate_limit_counters WHERE scope = 'signup_addr' FOR UPDATE",
        &[],
    )
    .await;
    let mut handles = Vec::new();
    for i in 0..BURST {
        let at = instance[i % 2].clone();
        handles.push(tokio::spawn(async move { at.try_signup("burst", &format!("b{i}@example.com")).await }));
    }
    // Each instance's first hit (one per worker that took a request) waits on the row; the
    // rest gather behind them.
    hold.wait_for_waiters(2).await;
    hold.release().await;
    let mut replies = Vec::new();
    for h in handles {
        replies.push(h.await.expect("request task"));
    }
    let admitted = replies.iter().filter(|r| r.status.as_u16() == 202).count();
    let refused: Vec<_> = replies.iter().filter(|r| r.status.as_u16() == 429).collect();
    assert_eq!(
        (admitted, refused.len()),
        (RATE - 1, BURST + 1 - RATE),
        "{:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    for r in &refused {
        r.expect_error(429, "too_many_requests");
        crate::support::assert_retry_after_is_the_windows_end(r, 60);
    }
    let hits: i64 =
        app.scalar("SELECT sum(hits)::bigint FROM rate_limit_counters WHERE scope = 'signup_addr'", &[]).await;
    assert_eq!(hits, (BURST + 1) as i64, "every attempt counted once");
    let entries: i64 = app.scalar("SELECT count(*) FROM entries WHERE program_id = $1", &[&program]).await;
    assert_eq!(entries, RATE as i64, "the refused wrote nothing");
}

#[tokio::test]
async fn two_instances_race_for_the_last_seat_and_the_first_in_line_wins_in_both_orders() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (_processes, instance) = two_instances(&app, &[]).await;
    let [a, b] = instance.map(|at| at.as_owner(owner.user.clone()));
    for (slug, a_first) in [("seats-a-first", true), ("seats-b-first", false)] {
        let (program, [entry_a, entry_b]) = one_seat_for_two(&owner, ws, slug).await;
        let (request_a, request_b) = (expiring_in(3), expiring_in(3));
        let issue_a = a.try_issue(program, entry_a, &request_a);
        let issue_b = b.try_issue(program, entry_b, &request_b);
        let hold = LockHolder::lock(&app.db_url, "programs", program).await;
        let (first, second) =
            if a_first { hold.in_order(issue_a, issue_b).await } else { hold.in_order(issue_b, issue_a).await };
        first.assert(201);
        second.expect_error(409, "no_seat_available");
        let issued: i64 = app
            .scalar("SELECT count(*) FROM invitations WHERE program_id = $1 AND state = 'issued'", &[&program])
            .await;
        assert_eq!(issued, 1, "exactly one instance issues the last seat");
    }
}

/// Features reserve migration ranges and land in any order, so a database migrated by an
/// earlier build can hold V60 and lack lower versions that landed later. `vestibule
/// migrate` applies those too (refinery alone skipped them: `abort_missing` is off for
/// rolling upgrades), and the result verifies. Before the fix the lower versions stayed
/// unapplied and `outbox_events` did not exist.
#[tokio::test]
async fn a_database_of_an_earlier_build_gets_the_lower_numbered_migrations_it_lacks() {
    let url = db::empty_database().await;
    // The second round's first landing: the first round's schema, V6 and V60.
    api::db::migrate_versions(&url, |v| v <= 6 || v == 60).await.expect("the earlier build's migrations");
    let out = vestibule(&url, &["migrate"]);
    assert!(out.status.success(), "migrate: {}", String::from_utf8_lossy(&out.stderr));

    let client = db::connect(&url).await;
    let applied: Vec<i32> = client
        .query("SELECT version FROM refinery_schema_history ORDER BY version", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut files: Vec<i32> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations"))
        .unwrap()
        .filter_map(|f| {
            let name = f.unwrap().file_name().into_string().unwrap();
            name.strip_prefix('V')?.split_once("__")?.0.parse().ok()
        })
        .collect();
    files.sort();
    assert_eq!(applied, files, "every migration file is applied once");
    client.query_one("SELECT count(*) FROM outbox_events", &[]).await.expect("a V20 table exists");

    // Running it again changes nothing, and the schema verifies.
    let again = vestibule(&url, &["migrate"]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let report = vestibule(&url, &["verify"]);
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stdout));
}
