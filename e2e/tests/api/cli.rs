//! The owner maintenance CLI (SPEC §7) run as the real `vestibule` binary against a
//! fresh database and a real clerk-dev: audited changes, last-owner protection, and the
//! identity provider consulted before anything is written.

use crate::support::process;
use crate::support::TestApp;
use std::process::Output;

fn vestibule(app: &TestApp, args: &[&str]) -> Output {
    let env = [("CLERK_API_URL", app.clerk.url.as_str()), ("CLERK_SECRET_KEY", app.clerk.secret.as_str())];
    process::vestibule(&app.db_url, args, &env)
}

/// `vestibule owner grant|revoke --workspace-id WS --clerk-user-id USER --approval-ref REF`.
fn membership(app: &TestApp, action: &str, ws: &str, user: &str, approval: &str) -> Output {
    vestibule(app, &["owner", action, "--workspace-id", ws, "--clerk-user-id", user, "--approval-ref", approval])
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

    refused(&membership(&app, "revoke", &ws, &first, "T-2"), "last active owner");
    ok(&membership(&app, "grant", &ws, &second, "T-3"));
    ok(&membership(&app, "revoke", &ws, &first, "T-4"));
    refused(&membership(&app, "revoke", &ws, &second, "T-5"), "last active owner");

    // The identity provider is asked first: an unknown user changes nothing.
    refused(&membership(&app, "grant", &ws, "user_nobody", "T-6"), "no such user");
    app.clerk.users_unavailable(true).await;
    refused(&membership(&app, "grant", &ws, &first, "T-7"), "unavailable");
    app.clerk.users_unavailable(false).await;
    // Bad arguments are refused with a clear message and write nothing.
    refused(&membership(&app, "grant", &ws, "bad id!", "T-8"), "valid Clerk user id");
    refused(&membership(&app, "grant", &ws, &first, ""), "approval-ref");
    assert!(!membership(&app, "grant", "not-a-uuid", &first, "T").status.success());

    let history: Vec<(String, String)> = app
        .rows("SELECT action, approval_ref FROM staff_admin_events ORDER BY id", &[])
        .await
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
    let revoked = app.as_owner(app.clerk.session_for(&first).await);
    revoked.get("/api/owner/workspaces").await.assert(404);
    let current = app.as_owner(app.clerk.session_for(&second).await);
    assert_eq!(current.workspaces().await.len(), 1);
}

/// Issue 12, item 6: an owner whose Clerk user was deleted can still be revoked (the
/// CLI does not ask the identity provider about the user it removes), and such a row
/// does not count as an owner: revoking the last owner who can still sign in is refused
/// (before the fix the first revoke failed with "no such user" and the second passed).
#[tokio::test]
async fn a_deleted_clerk_user_can_be_revoked_and_does_not_count_as_an_owner() {
    let app = TestApp::spawn().await;
    let alice = app.clerk.create_user("alice@example.com").await;
    let bob = app.clerk.create_user("bob@example.com").await;
    let carol = app.clerk.create_user("carol@example.com").await;
    let bootstrap = |name: &str, approval: &str| {
        ok(&vestibule(
            &app,
            &["owner", "bootstrap", "--workspace-name", name, "--clerk-user-id", &alice, "--approval-ref", approval],
        ))
    };
    let ws = bootstrap("Acme", "T-1");
    ok(&membership(&app, "grant", &ws, &bob, "T-2"));
    ok(&membership(&app, "grant", &ws, &carol, "T-3"));
    app.clerk.delete_user(&bob).await;
    ok(&membership(&app, "revoke", &ws, &bob, "T-4"));

    // Carol's user is deleted too: her row is still active, but nobody can sign in as her.
    app.clerk.delete_user(&carol).await;
    refused(&membership(&app, "revoke", &ws, &alice, "T-5"), "last active owner who can still sign in");
    ok(&membership(&app, "revoke", &ws, &carol, "T-6"));
    refused(&membership(&app, "revoke", &ws, &alice, "T-7"), "last active owner");

    // Which owners can sign in is asked of the identity provider: when it is down,
    // a revoke changes nothing.
    let other = bootstrap("Other", "T-8");
    ok(&membership(&app, "grant", &other, &app.clerk.create_user("dan@example.com").await, "T-9"));
    app.clerk.users_unavailable(true).await;
    refused(&membership(&app, "revoke", &other, &alice, "T-10"), "unavailable");
    app.clerk.users_unavailable(false).await;

    let history: Vec<(String, String)> = app
        .rows("SELECT action, approval_ref FROM staff_admin_events ORDER BY id", &[])
        .await
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let expected = [
        ("bootstrap", "T-1"),
        ("grant", "T-2"),
        ("grant", "T-3"),
        ("revoke", "T-4"),
        ("revoke", "T-6"),
        ("bootstrap", "T-8"),
        ("grant", "T-9"),
    ];
    assert_eq!(history, expected.map(|(a, r)| (a.to_owned(), r.to_owned())));
}
