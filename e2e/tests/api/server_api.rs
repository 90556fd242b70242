//! Workspace API keys and the server API (issue 13): a key is shown once and stored as
//! its SHA-256; `/api/v1` takes only the bearer key, sees only the key's workspace,
//! needs the route's scope, counts each key's requests per minute, and the access check
//! asks the identity provider fresh (503 when it cannot).

use crate::support::TestApp;
use serde_json::json;
use shared::integrations::{AccessResponse, ApiKey, V1EntriesResponse};

#[tokio::test]
async fn a_key_is_shown_once_kept_as_a_digest_and_answers_the_access_check_fresh() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient("rita.key@example.com").await;
    let key = owner.create_api_key(ws, &["access:read", "entries:read"]).await;
    assert!(key.secret.starts_with("vst_") && key.secret.len() == 47, "{}", key.secret.len());
    assert_eq!(key.api_key.prefix, key.secret[..10]);
    let listed = owner.get(&format!("/api/owner/workspaces/{ws}/api-keys")).await;
    assert!(!listed.text.contains(&key.secret[10..]), "the key is shown once");
    let digest: Vec<u8> = app.scalar("SELECT digest FROM api_keys", &[]).await;
    assert_eq!(digest, ring::digest::digest(&ring::digest::SHA256, key.secret.as_bytes()).as_ref());

    let invited = owner.invited(ws, "key-beta", "rita.key@example.com").await;
    let access = |user: String| {
        let (app, secret) = (app.clone(), key.secret.clone());
        async move { app.v1(&secret, &format!("/api/v1/programs/key-beta/access?clerkUserId={user}")).await }
    };
    assert!(!access(rita.user_id.clone()).await.expect::<AccessResponse>(200).access, "no grant yet");
    rita.redeem(&invited.code).await;
    assert!(access(rita.user_id.clone()).await.expect::<AccessResponse>(200).access);
    let stranger = app.user("stranger@example.com").await;
    assert!(!access(stranger.user_id.clone()).await.expect::<AccessResponse>(200).access);

    app.clerk.users_unavailable(true).await;
    access(rita.user_id.clone()).await.expect_error(503, "identity_unavailable");
    app.clerk.users_unavailable(false).await;
    let email = app.clerk.email_id(&rita.user_id, "rita.key@example.com").await;
    app.clerk.set_verified(&email, false).await;
    assert!(
        !access(rita.user_id.clone()).await.expect::<AccessResponse>(200).access,
        "the email is no longer verified"
    );
    app.clerk.set_verified(&email, true).await;
    assert!(access(rita.user_id.clone()).await.expect::<AccessResponse>(200).access);

    app.signup("key-beta", "second.key@example.com").await;
    let page: V1EntriesResponse = app.v1(&key.secret, "/api/v1/programs/key-beta/entries?limit=1").await.expect(200);
    assert_eq!(page.entries.len(), 1);
    assert_eq!(page.entries[0].email, "rita.key@example.com");
    let next = page.next_cursor.expect("a second page");
    let page: V1EntriesResponse =
        app.v1(&key.secret, &format!("/api/v1/programs/key-beta/entries?limit=1&cursor={next}")).await.expect(200);
    assert_eq!(page.entries[0].email, "second.key@example.com");
    let active: V1EntriesResponse =
        app.v1(&key.secret, "/api/v1/programs/key-beta/entries?state=active").await.expect(200);
    assert_eq!(active.entries.len(), 1);
    app.v1(&key.secret, "/api/v1/programs/key-beta/entries?state=sleeping").await.expect_error(400, "invalid_state");

    let keys: Vec<ApiKey> = owner.get(&format!("/api/owner/workspaces/{ws}/api-keys")).await.expect(200);
    assert!(keys[0].last_used_at.is_some());
    let audited: i64 =
        app.scalar("SELECT count(*) FROM workspace_audit_events WHERE action = 'api_key.created'", &[]).await;
    assert_eq!(audited, 1);
}

/// Issue 26 item 8 (failed before: the check ignored the program's switch and answered
/// `true`): while the owner has switched the program's access off, nobody has access —
/// the same rule as the early-access page — and switching it on restores it.
#[tokio::test]
async fn the_access_check_says_no_while_the_programs_access_is_switched_off() {
    let (app, owner, ws, rita) = TestApp::owner_and_recipient("rita.switch@example.com").await;
    let key = owner.create_api_key(ws, &["access:read"]).await.secret;
    let invited = owner.invited(ws, "switch-beta", "rita.switch@example.com").await;
    rita.redeem(&invited.code).await;
    let path = format!("/api/v1/programs/switch-beta/access?clerkUserId={}", rita.user_id);
    assert!(app.v1(&key, &path).await.expect::<AccessResponse>(200).access);
    owner.set_access_enabled(invited.program, false).await;
    assert!(!app.v1(&key, &path).await.expect::<AccessResponse>(200).access, "access is switched off");
    owner.set_access_enabled(invited.program, true).await;
    assert!(app.v1(&key, &path).await.expect::<AccessResponse>(200).access);
}

#[tokio::test]
async fn the_server_api_refuses_revoked_foreign_unscoped_and_excess_calls() {
    let app = TestApp::spawn_with(|s| s.integrations.api_key_rate_per_minute = 5).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    owner.open_program(ws, "key-gamma").await;
    let (other, other_ws) = app.owner("other@example.com").await;
    other.open_program(other_ws, "key-delta").await;
    let entries_only = owner.create_api_key(ws, &["entries:read"]).await.secret;
    let access_only = owner.create_api_key(ws, &["access:read"]).await.secret;
    let foreign = other.create_api_key(other_ws, &["access:read", "entries:read"]).await;

    let path = "/api/v1/programs/key-gamma/entries";
    let no_key = app.http.get(app.url(path)).send().await.unwrap();
    assert_eq!(no_key.status(), 401);
    app.v1("vst_not-a-key", path).await.expect_error(401, "signed_out");
    app.v1(&format!("vst_{}", "A".repeat(43)), path).await.expect_error(401, "signed_out");
    app.v1(&owner.token, path).await.expect_error(401, "signed_out");
    let with_cookie = app.http.get(app.url(path)).header("cookie", format!("__session={}", owner.token)).send().await;
    assert_eq!(with_cookie.unwrap().status(), 401, "a session cookie is not a key");

    app.v1(&access_only, path).await.expect_error(403, "missing_scope");
    app.v1(&entries_only, "/api/v1/programs/key-gamma/access?clerkUserId=user_x")
        .await
        .expect_error(403, "missing_scope");
    app.v1(&foreign.secret, path).await.expect_error(404, "not_found");
    app.v1(&foreign.secret, "/api/v1/programs/key-gamma/access?clerkUserId=user_x")
        .await
        .expect_error(404, "not_found");
    app.v1(&entries_only, "/api/v1/programs/no-such-program/entries").await.expect_error(404, "not_found");

    let revoke = format!("/api/owner/workspaces/{other_ws}/api-keys/{}", foreign.api_key.id);
    let stranger_revoke = app.request(reqwest::Method::DELETE, &revoke, Some(&owner.user)).send().await.unwrap();
    assert_eq!(stranger_revoke.status(), 404, "another workspace's key");
    let revoked = app.request(reqwest::Method::DELETE, &revoke, Some(&other.user)).send().await.unwrap();
    assert_eq!(revoked.status(), 200);
    app.v1(&foreign.secret, "/api/v1/programs/key-delta/entries").await.expect_error(401, "signed_out");

    crate::support::clear_of_period_end(60, 5).await;
    let limited = owner.create_api_key(ws, &["entries:read"]).await.secret;
    for _ in 0..5 {
        app.v1(&limited, path).await.assert(200);
    }
    app.v1(&limited, path).await.expect_error(429, "too_many_requests");
    app.v1(&entries_only, path).await.assert(200);

    let keys = format!("/api/owner/workspaces/{ws}/api-keys");
    owner.post(&keys, &json!({"name": "", "scopes": ["entries:read"]})).await.expect_error(400, "invalid_name");
    owner.post(&keys, &json!({"name": "x", "scopes": []})).await.expect_error(400, "invalid_scopes");
}
