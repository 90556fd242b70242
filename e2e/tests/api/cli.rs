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

/// Issue 26 item 6 (failed before: a removed owner's API keys kept answering, and the CLI
/// said nothing of what they had set up). Revoking an owner revokes the API keys they
/// created — not their co-owners' — and lists the webhook endpoints they created;
/// `--keep-api-keys` leaves the keys valid and says how many.
#[tokio::test]
async fn revoking_an_owner_stops_the_api_keys_they_created_and_lists_their_webhooks() {
    let app = TestApp::spawn().await;
    let (alice, ws) = app.owner("alice@example.com").await;
    let wss = ws.to_string();
    let bob_user = app.user("bob@example.com").await;
    ok(&membership(&app, "grant", &wss, &bob_user.user_id, "T-1"));
    let bob = app.as_owner(bob_user);
    alice.open_program(ws, "keys-beta").await;
    let alices = alice.create_api_key(ws, &["access:read"]).await.secret;
    let bobs =
        [bob.create_api_key(ws, &["access:read"]).await.secret, bob.create_api_key(ws, &["entries:read"]).await.secret];
    let hook = bob.create_webhook(ws, "http://127.0.0.1:9/bobs-hook").await.webhook.id;
    alice.create_webhook(ws, "http://127.0.0.1:9/alices-hook").await;
    let probe = "/api/v1/programs/keys-beta/entries";
    app.v1(&bobs[1], probe).await.assert(200);

    let out = ok(&membership(&app, "revoke", &wss, &bob.user_id, "T-2"));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..3],
        ["revoked", "api keys revoked: 2", "webhook endpoints created by this owner: 1 (review them)"]
    );
    assert_eq!(lines[3], format!("{hook}\tenabled\thttp://127.0.0.1:9/bobs-hook"));
    assert_eq!(lines.len(), 4, "{out}");
    for key in &bobs {
        app.v1(key, "/api/v1/programs/keys-beta/access?clerkUserId=user_x").await.expect_error(401, "signed_out");
    }
    app.v1(&alices, "/api/v1/programs/keys-beta/access?clerkUserId=user_x").await.assert(200);

    // Kept on request: the key stays valid and the CLI says so.
    let carol_user = app.user("carol@example.com").await;
    ok(&membership(&app, "grant", &wss, &carol_user.user_id, "T-3"));
    let carol = app.as_owner(carol_user);
    let carols = carol.create_api_key(ws, &["access:read"]).await.secret;
    let args = [
        "owner",
        "revoke",
        "--workspace-id",
        &wss,
        "--clerk-user-id",
        &carol.user_id,
        "--approval-ref",
        "T-4",
        "--keep-api-keys",
    ];
    let out = ok(&vestibule(&app, &args));
    assert!(out.contains("api keys kept: 1 (created by this owner, still valid)"), "{out}");
    assert!(out.contains("webhook endpoints created by this owner: 0"), "{out}");
    app.v1(&carols, "/api/v1/programs/keys-beta/access?clerkUserId=user_x").await.assert(200);
}
