//! The foundation (issue 2): tokens, identity failures, the HTTP edge, the owner guard,
//! append-only tables and the app role, production configuration refusals.

use crate::support::{TestApp, ORIGIN};
use reqwest::Method;
use serde_json::json;
use shared::api::{ConfigResponse, CreateProgramRequest, MeResponse};

#[tokio::test]
async fn me_answers_user_id_and_a_session_bound_csrf_token() {
    let app = TestApp::spawn().await;
    let user = app.recipient("ann@example.com").await;
    let r = user.get("/api/me").await;
    let me: MeResponse = r.expect(200);
    assert_eq!(me.user_id, user.user_id);
    assert_eq!(me.csrf_token, api::http::csrf::token(&app.settings.csrf_key, &user.session_id));
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    assert!(r.header("x-request-id").is_some());
}

#[tokio::test]
async fn missing_token_is_401_with_the_error_shape() {
    let app = TestApp::spawn().await;
    let r = app.get("/api/me", None).await;
    // Strictly an `ErrorBody`: a code and a message, nothing else.
    let error = r.expect_error(401, "signed_out");
    assert!(!error.message.is_empty());
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
}

#[tokio::test]
async fn session_cookie_is_accepted_like_a_bearer_token() {
    let app = TestApp::spawn().await;
    let user = app.user("cookie@example.com").await;
    let r =
        app.http.get(app.url("/api/me")).header("cookie", format!("__session={}", user.token)).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn expired_and_not_yet_valid_tokens_are_401() {
    let app = TestApp::spawn().await;
    let mut user = app.user("late@example.com").await;
    user.token =
        app.clerk.token(&user.session_id, json!({"issued_offset_seconds": -120, "expires_in_seconds": 60})).await;
    app.get("/api/me", Some(&user)).await.assert(401);
    user.token = app.clerk.token(&user.session_id, json!({"issued_offset_seconds": 120})).await;
    app.get("/api/me", Some(&user)).await.assert(401);
}

#[tokio::test]
async fn token_signed_by_another_key_is_401() {
    let app = TestApp::spawn().await;
    let other = crate::support::ClerkDev::start().await;
    let foreign = other.user("x@example.com").await;
    app.get("/api/me", Some(&foreign)).await.assert(401);
    let mut tampered = app.user("y@example.com").await;
    let mut parts: Vec<String> = tampered.token.split('.').map(str::to_owned).collect();
    parts[1] = parts[1].chars().rev().collect();
    tampered.token = parts.join(".");
    app.get("/api/me", Some(&tampered)).await.assert(401);
}

#[tokio::test]
async fn token_for_a_foreign_authorized_party_is_401_and_an_allowed_one_passes() {
    let app = TestApp::spawn().await;
    let mut user = app.user("azp@example.com").await;
    user.token = app.clerk.token(&user.session_id, json!({"azp": "https://evil.example"})).await;
    app.get("/api/me", Some(&user)).await.assert(401);
    user.token = app.clerk.token(&user.session_id, json!({"azp": ORIGIN})).await;
    app.get("/api/me", Some(&user)).await.assert(200);
}

#[tokio::test]
async fn unmatched_api_paths_are_json_404_and_unknown_static_paths_are_not_the_shell() {
    let app = TestApp::spawn().await;
    app.get("/api/nope", None).await.expect_error(404, "not_found");
    let r = app.get("/definitely-not-a-file.js", None).await;
    r.assert(404);
    assert!(!r.text.contains("<html"));
}

#[tokio::test]
async fn health_and_readiness() {
    let app = TestApp::spawn().await;
    app.get("/healthz", None).await.assert(200);
    app.get("/readyz", None).await.assert(200);
}

#[tokio::test]
async fn config_tells_the_spa_how_to_sign_in() {
    let app = TestApp::spawn().await;
    let config: ConfigResponse = app.get("/api/config", None).await.expect(200);
    assert_eq!(config.identity, "local");
    assert_eq!(config.identity_dev_url.as_deref(), Some(app.clerk.url.as_str()));
}

#[tokio::test]
async fn mutations_without_an_allowed_origin_are_403() {
    let app = TestApp::spawn().await;
    let user = app.user("o@example.com").await;
    for origin in [None, Some("null"), Some("https://evil.example")] {
        let mut rb = app.http.post(app.url("/api/owner/programs")).bearer_auth(&user.token).json(&json!({}));
        if let Some(o) = origin {
            rb = rb.header("origin", o);
        }
        let r = rb.send().await.unwrap();
        assert_eq!(r.status(), 403, "origin {origin:?}");
    }
}

#[tokio::test]
async fn signed_in_mutations_need_the_session_bound_csrf_token() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("csrf@example.com").await;
    let body = CreateProgramRequest {
        workspace_id: ws,
        slug: "csrf-test".into(),
        purpose: "p".into(),
        queue_cap: 5,
        hourly_cap: 5,
        seat_cap: 5,
        max_invite_days: 7,
    };
    let other = app.user("other@example.com").await;
    let bad_tokens = [
        None,
        Some(String::new()),
        Some("garbage".to_owned()),
        Some(api::http::csrf::token(&app.settings.csrf_key, &other.session_id)),
    ];
    for token in bad_tokens {
        let mut rb = app
            .http
            .post(app.url("/api/owner/programs"))
            .header("origin", ORIGIN)
            .bearer_auth(&owner.token)
            .json(&body);
        if let Some(t) = &token {
            rb = rb.header("x-csrf-token", t);
        }
        let r = rb.send().await.unwrap();
        assert_eq!(r.status(), 403, "token {token:?}");
    }
    let n: i64 = app.scalar("SELECT count(*) FROM programs", &[]).await;
    assert_eq!(n, 0);
}

#[tokio::test]
async fn owner_routes_give_the_same_404_to_non_owners_revoked_and_foreign_owners() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("own@example.com").await;
    let (foreign, _) = app.owner("foreign@example.com").await;
    let stranger = app.as_owner(app.user("stranger@example.com").await);
    assert_eq!(owner.workspaces().await.iter().map(|w| w.id).collect::<Vec<_>>(), [ws]);
    let owners = owner.owners(ws).await;
    assert!(owners.owners.iter().any(|o| o.clerk_user_id == owner.user_id && o.active));

    let not_found = app.not_found_text().await;
    stranger.get("/api/owner/workspaces").await.assert_exactly(404, &not_found);
    for who in [&stranger, &foreign] {
        who.get(&format!("/api/owner/workspaces/{ws}/owners")).await.assert_exactly(404, &not_found);
    }
    app.exec("UPDATE staff_members SET active = false WHERE clerk_user_id = $1", &[&owner.user_id]).await;
    owner.get("/api/owner/workspaces").await.assert_exactly(404, &not_found);
    owner.get(&format!("/api/owner/workspaces/{ws}/owners")).await.assert(404);
}

#[tokio::test]
async fn append_only_tables_reject_update_and_delete() {
    let app = TestApp::spawn().await;
    app.owner("audit@example.com").await;
    let db = app.db().await;
    for sql in [
        "UPDATE staff_admin_events SET approval_ref = 'x'",
        "DELETE FROM staff_admin_events",
        "TRUNCATE staff_admin_events CASCADE",
    ] {
        let e = db.batch_execute(sql).await.expect_err(sql);
        assert!(e.as_db_error().unwrap().message().contains("append-only"), "{sql}");
    }
}

/// Issue 26 item 1: the server under test logs in as production's does — a login whose
/// only rights come from membership of `vestibule_app` — never as the superuser that
/// arranges the test (a privilege the app role lacks must fail here, not in production).
#[tokio::test]
async fn the_server_logs_in_as_a_member_of_vestibule_app_and_nothing_more() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("login@example.com").await;
    owner.open_program(ws, "login-check").await;
    let db = app.db().await;
    let logins: Vec<String> = db
        .query(
            // Other than the test's own (superuser) connections, which arrange the test.
            "SELECT DISTINCT usename::text FROM pg_stat_activity WHERE datname = current_database() AND usename <> current_user",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(logins, [crate::support::db::APP_LOGIN], "the server's pooled connections");
    let row = db
        .query_one(
            "SELECT r.rolsuper, r.rolcreatedb, r.rolcreaterole, r.rolbypassrls, pg_has_role(r.rolname, 'vestibule_app', 'MEMBER'),
                    has_schema_privilege(r.rolname, 'public', 'CREATE'),
                    (SELECT count(*) FROM pg_auth_members m WHERE m.member = r.oid)
             FROM pg_roles r WHERE r.rolname = $1",
            &[&crate::support::db::APP_LOGIN],
        )
        .await
        .unwrap();
    let flags: (bool, bool, bool, bool, bool, bool, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4), row.get(5), row.get(6));
    assert_eq!(flags, (false, false, false, false, true, false, 1), "a member of vestibule_app and nothing more");
}

#[tokio::test]
async fn the_app_role_cannot_update_or_delete_append_only_tables() {
    let app = TestApp::spawn().await;
    app.owner("role@example.com").await;
    let db = app.db().await;
    db.batch_execute("BEGIN; SET LOCAL ROLE vestibule_app").await.unwrap();
    for sql in ["UPDATE audit_events SET details = '{}'", "DELETE FROM notices", "DELETE FROM staff_admin_events"] {
        db.batch_execute("SAVEPOINT s").await.unwrap();
        let e = db.batch_execute(sql).await.expect_err(sql);
        assert_eq!(e.code().unwrap().code(), "42501", "{sql}: permission denied expected");
        db.batch_execute("ROLLBACK TO SAVEPOINT s").await.unwrap();
    }
    db.batch_execute("SELECT count(*) FROM staff_admin_events").await.unwrap();
    db.batch_execute("ROLLBACK").await.unwrap();
}

#[tokio::test]
async fn request_body_rules_apply_before_handlers() {
    let app = TestApp::spawn().await;
    let (owner, _) = app.owner("body@example.com").await;
    let req = |ct: &str, body: Vec<u8>| {
        app.request(Method::POST, "/api/owner/programs", Some(&owner.user))
            .header("content-type", ct.to_owned())
            .body(body)
    };
    let r = req("text/plain", b"{}".to_vec()).send().await.unwrap();
    assert_eq!(r.status(), 415);
    let r = req("application/json", vec![b' '; 33 * 1024]).send().await.unwrap();
    assert_eq!(r.status(), 413);
    let r = req("application/json", b"{not json".to_vec()).send().await.unwrap();
    assert_eq!(r.status(), 400);
    let r = req("application/json", br#"{"workspaceId":"00000000-0000-0000-0000-000000000000","slug":"abc","purpose":"p","queueCap":1,"hourlyCap":1,"seatCap":1,"maxInviteDays":1,"extra":1}"#.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
}
