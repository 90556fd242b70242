//! Operations (issue 7): backup and restore checked by `vestibule verify`, retention
//! redaction, several API instances on one database.

use crate::support::process::{workspace_bin, ApiProcess};
use crate::support::{db, TestApp};
use serde_json::json;
use std::process::Command;
use uuid::Uuid;

/// A small but complete history: signups, decisions, an invitation redeemed, a withdrawal.
async fn populate(app: &TestApp) -> Uuid {
    let (owner, ws) = app.owner("owner@example.com").await;
    let rita = app.user("rita@example.com").await;
    let (program, _, _, code) = app.invited(&owner, ws, "ops-beta", "rita@example.com").await;
    app.redeem(&rita, &code).await.assert(200);
    for i in 0..5 {
        app.signup("ops-beta", &format!("person{i}@example.com")).await.assert(202);
    }
    let e = app.entry_id(program, "person0@example.com").await;
    app.post(
        &format!("/api/owner/programs/{program}/entries/{e}/decline"),
        &json!({"reasonCode": "not_eligible"}),
        Some(&owner),
    )
    .await
    .assert(200);
    let e = app.entry_id(program, "person1@example.com").await;
    app.post(
        &format!("/api/owner/programs/{program}/entries/{e}/withdraw"),
        &json!({"basis": "applicant_request"}),
        Some(&owner),
    )
    .await
    .assert(200);
    program
}

fn vestibule(db_url: &str, args: &[&str]) -> std::process::Output {
    Command::new(workspace_bin("vestibule")).args(args).env("DATABASE_URL", db_url).output().expect("vestibule runs")
}

/// Dumps `from` with pg_dump and restores it into a new database; returns its URL.
async fn backup_and_restore(from: &str) -> String {
    let dump = std::env::temp_dir().join(format!("vestibule-{}.dump", Uuid::new_v4().simple()));
    let out = Command::new("pg_dump").args(["-Fc", "-f"]).arg(&dump).arg(from).output().expect("pg_dump runs");
    assert!(out.status.success(), "pg_dump: {}", String::from_utf8_lossy(&out.stderr));
    let target = db::fresh_database().await;
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
        ("queue count", "UPDATE programs SET queue_count = queue_count + 1"),
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

#[tokio::test]
async fn redaction_replaces_old_withdrawn_and_declined_emails_and_keeps_every_link() {
    let app = TestApp::spawn().await;
    let program = populate(&app).await;
    let dbc = app.db().await;
    let before: i64 = dbc.query_one("SELECT count(*) FROM entries", &[]).await.unwrap().get(0);
    let cutoff = (chrono::Utc::now() + chrono::Duration::seconds(1)).to_rfc3339();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let out = vestibule(&app.db_url, &["redact", "--program", &program.to_string(), "--before", &cutoff]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "redacted 2 entries");
    let rows = dbc.query("SELECT email_key FROM entries WHERE redacted_at IS NOT NULL", &[]).await.unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        let email: &str = r.get(0);
        assert!(email.starts_with("redacted+") && email.ends_with("@redacted.invalid"), "{email}");
    }
    for gone in ["person0@example.com", "person1@example.com"] {
        let n: i64 = dbc.query_one("SELECT count(*) FROM entries WHERE email_key = $1", &[&gone]).await.unwrap().get(0);
        assert_eq!(n, 0);
    }
    let after: i64 = dbc.query_one("SELECT count(*) FROM entries", &[]).await.unwrap().get(0);
    assert_eq!(before, after);
    let events: i64 =
        dbc.query_one("SELECT count(*) FROM audit_events WHERE event_type = 'redacted'", &[]).await.unwrap().get(0);
    assert_eq!(events, 2);
    let out = vestibule(&app.db_url, &["verify"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    // A second run finds nothing more, and a future cutoff is refused.
    let out = vestibule(&app.db_url, &["redact", "--program", &program.to_string(), "--before", &cutoff]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "redacted 0 entries");
    let out = vestibule(&app.db_url, &["redact", "--program", &program.to_string(), "--before", "2999-01-01"]);
    assert!(!out.status.success());
}

#[tokio::test]
async fn two_instances_share_caps_and_rate_limits() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let caps = crate::support::flows::Caps { queue: 10, ..Default::default() };
    app.program_with(&owner, ws, "multi", caps).await;
    let a = ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    let b = ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    let http = reqwest::Client::new();
    let mut requests = Vec::new();
    for i in 0..30 {
        let base = if i % 2 == 0 { &a.base } else { &b.base };
        let body = json!({"requestKey": Uuid::new_v4(), "email": format!("m{i}@example.com"), "noticeVersion": 1, "permission": true});
        requests.push(
            http.post(format!("{base}/api/public/programs/multi/signups"))
                .header("origin", crate::support::ORIGIN)
                .json(&body)
                .send(),
        );
    }
    let statuses: Vec<u16> =
        futures::future::join_all(requests).await.into_iter().map(|r| r.unwrap().status().as_u16()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 202).count(), 10, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 20, "{statuses:?}");
    let n: i64 = app.db().await.query_one("SELECT count(*) FROM entries", &[]).await.unwrap().get(0);
    assert_eq!(n, 10);

    // The per-address signup rate is shared too (counted per minute: keep clear of the
    // minute's end so the four requests fall in one window).
    app.program_with(&owner, ws, "multi-rate", crate::support::flows::Caps::default()).await;
    app.db().await.batch_execute("DELETE FROM rate_limit_counters").await.unwrap();
    crate::support::clear_of_period_end(60, 10).await;
    let a = ApiProcess::start(&app.db_url, &app.clerk, &[("SIGNUP_RATE_PER_MINUTE", "3")]).await;
    let b = ApiProcess::start(&app.db_url, &app.clerk, &[("SIGNUP_RATE_PER_MINUTE", "3")]).await;
    let mut statuses = Vec::new();
    for i in 0..4 {
        let base = if i % 2 == 0 { &a.base } else { &b.base };
        let body = json!({"requestKey": Uuid::new_v4(), "email": format!("r{i}@example.com"), "noticeVersion": 1, "permission": true});
        let r = http
            .post(format!("{base}/api/public/programs/multi-rate/signups"))
            .header("origin", crate::support::ORIGIN)
            .json(&body)
            .send();
        statuses.push(r.await.unwrap().status().as_u16());
    }
    assert_eq!(statuses, [202, 202, 202, 429]);
}

#[tokio::test]
async fn two_instances_race_for_the_last_seat_and_only_one_wins() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let caps = crate::support::flows::Caps { seats: 1, ..Default::default() };
    let program = app.program_with(&owner, ws, "seats", caps).await;
    let mut entries = Vec::new();
    for email in ["s1@example.com", "s2@example.com"] {
        app.signup("seats", email).await.assert(202);
        let e = app.entry_id(program, email).await;
        app.select(&owner, program, e).await.assert(200);
        entries.push(e);
    }
    let a = ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    let b = ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    let http = reqwest::Client::new();
    let csrf = api::http::csrf::token(&app.settings.csrf_key, &owner.session_id);
    let expires = (chrono::Utc::now() + chrono::Duration::days(3)).to_rfc3339();
    let issue = |base: &str, entry: Uuid| {
        http.post(format!("{base}/api/owner/programs/{program}/entries/{entry}/invitations"))
            .header("origin", crate::support::ORIGIN)
            .header("x-csrf-token", &csrf)
            .bearer_auth(&owner.token)
            .json(&json!({"requestKey": Uuid::new_v4(), "expiresAt": expires}))
            .send()
    };
    let (ra, rb) = tokio::join!(issue(&a.base, entries[0]), issue(&b.base, entries[1]));
    let mut statuses = [ra.unwrap().status().as_u16(), rb.unwrap().status().as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [201, 409], "exactly one instance issues the last seat");
    let issued: i64 = app
        .db()
        .await
        .query_one("SELECT count(*) FROM invitations WHERE program_id = $1 AND state = 'issued'", &[&program])
        .await
        .unwrap()
        .get(0);
    assert_eq!(issued, 1);
}
