//! PostgreSQL failover under signup load (issue 17 item 4), following the runbook: the
//! production roles and a synchronous standby (`harness::replication`), the server as
//! `vestibule_login` with a `DATABASE_URL` naming both nodes (`target_session_attrs=
//! read-write`, from `deploy/vestibule.env.example`). The primary is stopped at once, the
//! standby promoted; the server is never restarted.

use crate::harness::instance::{free_port, Instance};
use crate::harness::load::{send, Answer, Load};
use crate::harness::replication::{Pair, APP_PASSWORD, BACKUP_PASSWORD};
use crate::support::process::workspace_bin;
use crate::support::Caps;
use crate::support::TestApp;
use std::collections::HashSet;
use std::time::Duration;

#[tokio::test]
async fn a_failover_under_load_answers_503_meanwhile_recovers_without_restart_and_keeps_every_admitted_signup() {
    let pair = Pair::start();
    let (primary, standby) = (&pair.primary, &pair.standby);

    // Arrange through the API as an owner would (an in-process server on the primary).
    let app = TestApp::spawn_on(primary.superuser_url("vestibule"), |_| {}).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let caps = Caps { queue: 100_000, hourly: 100_000, ..Caps::default() };
    owner.program_with(ws, "failover", caps).await;

    let both = format!(
        "postgres://vestibule_login:{APP_PASSWORD}@127.0.0.1:{},127.0.0.1:{}/vestibule",
        primary.port, standby.port
    );
    let port = free_port();
    let instance =
        Instance::start(&format!("127.0.0.1:{port}"), port, &both, &[("SIGNUP_RATE_PER_MINUTE", "100000")]).await;
    let pid = instance.pid();
    let url = format!("{}/api/public/programs/failover/signups", instance.base);
    let origin = "https://waitlist.example.com";
    let load = Load::start(6, &url, origin, "failover");
    load.wait_for("30 admissions", Duration::from_secs(60), |l| l.accepted() >= 30).await;

    pair.stop_primary_immediately();
    let unavailable_before = load.unavailable();
    load.wait_for("503s while no node accepts writes", Duration::from_secs(30), |l| {
        l.unavailable() >= unavailable_before + 5
    })
    .await;
    pair.promote_standby();
    // A promoted standby has no standby of its own: it must not wait for one.
    assert_eq!(standby.psql("postgres", &["-c", "SHOW synchronous_standby_names"]).trim(), "");
    let accepted_at_promotion = load.accepted();
    load.wait_for("30 admissions on the promoted standby", Duration::from_secs(60), |l| {
        l.accepted() >= accepted_at_promotion + 30
    })
    .await;
    let attempts = load.finish().await;
    assert_eq!(instance.pid(), pid, "the server was restarted");

    // Every answer was a 202 or a 503 that says when to come back.
    let mut admitted = HashSet::new();
    let mut unavailable = Vec::new();
    for a in &attempts {
        match &a.answer {
            Answer::Status(202, _) => {
                admitted.insert(a.email.clone());
            }
            Answer::Status(503, Some(_)) => unavailable.push(a.clone()),
            other => panic!(
                "unexpected answer during failover: {other:?}\n{}\nstandby:\n{}",
                instance.output(),
                pair.log(standby)
            ),
        }
    }
    assert!(unavailable.len() >= 5);

    let new_primary = crate::support::db::connect(&standby.superuser_url("vestibule")).await;
    let stored = |rows: Vec<tokio_postgres::Row>| rows.iter().map(|r| r.get::<_, String>(0)).collect::<HashSet<_>>();
    let entries = stored(new_primary.query("SELECT email_key FROM entries", &[]).await.unwrap());
    assert!(admitted.is_subset(&entries), "202s missing on the new primary: {:?}", admitted.difference(&entries));

    // A client retrying its 503s with the same request key gets 202 each time, and then
    // the database holds exactly the signups that were answered 202.
    let http = reqwest::Client::new();
    for a in &unavailable {
        match send(&http, &url, origin, a.key, &a.email).await {
            Answer::Status(202, _) => {
                admitted.insert(a.email.clone());
            }
            other => panic!("a retried signup got {other:?}"),
        }
    }
    let entries = stored(new_primary.query("SELECT email_key FROM entries", &[]).await.unwrap());
    assert_eq!(entries, admitted);

    // The runbook's checks on the new primary, as the backup role: verify and a dump.
    let backup_url = standby.url("vestibule_backup", BACKUP_PASSWORD, "vestibule");
    let out = std::process::Command::new(workspace_bin("vestibule"))
        .arg("verify")
        .env_clear()
        .env("DATABASE_URL", &backup_url)
        .output()
        .unwrap();
    assert!(out.status.success(), "verify on the new primary:\n{}", String::from_utf8_lossy(&out.stdout));
    let dump = pair.root().join("after-failover.dump");
    let out = std::process::Command::new("pg_dump").args(["-Fc", "-f"]).arg(&dump).arg(&backup_url).output().unwrap();
    assert!(out.status.success(), "pg_dump as vestibule_backup: {}", String::from_utf8_lossy(&out.stderr));
}
