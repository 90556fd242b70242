//! The owner maintenance CLI (SPEC §7) run as the real `vestibule` binary against a
//! fresh database and a real clerk-dev: audited changes, last-owner protection, and the
//! identity provider consulted before anything is written.

use crate::support::process::workspace_bin;
use crate::support::TestApp;
use std::process::{Command, Output};

fn vestibule(app: &TestApp, args: &[&str]) -> Output {
    Command::new(workspace_bin("vestibule"))
        .args(args)
        .env("DATABASE_URL", &app.db_url)
        .env("CLERK_API_URL", &app.clerk.url)
        .env("CLERK_SECRET_KEY", &app.clerk.secret)
        .output()
        .expect("vestibule runs")
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn refused(out: &Output, why: &str) {
    assert!(!out.status.success(), "expected a refusal ({why})");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(why), "stderr: {stderr}");
}

#[tokio::test]
async fn owners_change_only_through_audited_cli_steps_and_the_last_owner_stays() {
    let app = TestApp::spawn().await;
    let first = app.clerk.create_user("first@example.com").await;
    let second = app.clerk.create_user("second@example.com").await;
    let ws = ok(&vestibule(
        &app,
        &["owner", "bootstrap", "--workspace-name", "Acme", "--clerk-user-id", &first, "--approval-ref", "TICKET-1"],
    ));
    uuid::Uuid::parse_str(&ws).expect("bootstrap prints the workspace id");

    refused(
        &vestibule(
            &app,
            &["owner", "revoke", "--workspace-id", &ws, "--clerk-user-id", &first, "--approval-ref", "T-2"],
        ),
        "last active owner",
    );
    ok(&vestibule(
        &app,
        &["owner", "grant", "--workspace-id", &ws, "--clerk-user-id", &second, "--approval-ref", "T-3"],
    ));
    ok(&vestibule(
        &app,
        &["owner", "revoke", "--workspace-id", &ws, "--clerk-user-id", &first, "--approval-ref", "T-4"],
    ));
    refused(
        &vestibule(
            &app,
            &["owner", "revoke", "--workspace-id", &ws, "--clerk-user-id", &second, "--approval-ref", "T-5"],
        ),
        "last active owner",
    );

    // The identity provider is asked first: an unknown user changes nothing.
    refused(
        &vestibule(
            &app,
            &["owner", "grant", "--workspace-id", &ws, "--clerk-user-id", "user_nobody", "--approval-ref", "T-6"],
        ),
        "no such user",
    );
    app.clerk.users_unavailable(true).await;
    refused(
        &vestibule(
            &app,
            &["owner", "grant", "--workspace-id", &ws, "--clerk-user-id", &first, "--approval-ref", "T-7"],
        ),
        "unavailable",
    );
    app.clerk.users_unavailable(false).await;
    // Bad arguments are refused with a clear message and write nothing.
    refused(
        &vestibule(
            &app,
            &["owner", "grant", "--workspace-id", &ws, "--clerk-user-id", "bad id!", "--approval-ref", "T-8"],
        ),
        "valid Clerk user id",
    );
    refused(
        &vestibule(&app, &["owner", "grant", "--workspace-id", &ws, "--clerk-user-id", &first, "--approval-ref", ""]),
        "approval-ref",
    );
    let out = vestibule(
        &app,
        &["owner", "grant", "--workspace-id", "not-a-uuid", "--clerk-user-id", &first, "--approval-ref", "T"],
    );
    assert!(!out.status.success());

    let db = app.db().await;
    let history: Vec<(String, String)> = db
        .query("SELECT action, approval_ref FROM staff_admin_events ORDER BY id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let expected = [("bootstrap", "TICKET-1"), ("grant", "T-3"), ("revoke", "T-4")];
    assert_eq!(history, expected.map(|(a, r)| (a.to_owned(), r.to_owned())));
    let listing = ok(&vestibule(&app, &["owner", "list", "--workspace-id", &ws]));
    assert!(
        listing.contains(&format!("{second}\tactive")) && listing.contains(&format!("{first}\trevoked")),
        "{listing}"
    );

    // The revoked owner is now treated like a stranger by the API.
    let revoked = app.clerk.session_for(&first).await;
    app.get("/api/owner/workspaces", Some(&revoked)).await.assert(404);
    let current = app.clerk.session_for(&second).await;
    app.get("/api/owner/workspaces", Some(&current)).await.assert(200);
}
