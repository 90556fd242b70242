//! The Backend API that predates this round: the secret key, users and email addresses,
//! body errors, session tokens and revocation.

use reqwest::{header, Method, StatusCode};
use serde_json::json;

use crate::support::{error_code, json_of, ClerkDev, ORIGIN, SECRET};

#[tokio::test]
async fn backend_api_requires_the_secret_key() {
    let clerk = ClerkDev::start().await;
    for auth in [None, Some("Bearer sk_test_wrong"), Some("Bearer "), Some(SECRET)] {
        let mut req = clerk.request(Method::GET, "/v1/jwks");
        if let Some(auth) = auth {
            req = req.header(header::AUTHORIZATION, auth);
        }
        let (status, body) = json_of(req.send().await.unwrap()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{auth:?}");
        assert_eq!(error_code(&body), "authentication_invalid");
        assert!(body["errors"][0]["message"].is_string() && body["errors"][0]["long_message"].is_string());
    }
    let res = clerk.request(Method::POST, "/v1/users").json(&json!({})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(clerk.api(Method::GET, "/v1/jwks", None).await.0, StatusCode::OK);
    let (status, body) = clerk.api(Method::GET, "/v1/no-such-endpoint", None).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, "resource_not_found"));
}

#[tokio::test]
async fn users_and_email_addresses() {
    let clerk = ClerkDev::start().await;
    let user = clerk.create_user("Ann@Example.com").await;
    let id = user["id"].as_str().unwrap();
    assert!(id.starts_with("user_"), "{id}");
    assert_eq!(user["object"], "user");
    assert!(user["created_at"].as_i64().unwrap() > 1_600_000_000_000, "timestamps are ms");

    let (status, fetched) = clerk.api(Method::GET, &format!("/v1/users/{id}"), None).await;
    assert_eq!(status, StatusCode::OK);
    let first = &fetched["email_addresses"][0];
    assert_eq!(first["object"], "email_address");
    assert_eq!(first["email_address"], "Ann@Example.com");
    assert_eq!(first["verification"]["status"], "verified");
    assert!(first["id"].as_str().unwrap().starts_with("idn_"));
    assert_eq!(fetched["primary_email_address_id"], first["id"]);

    let body = json!({ "user_id": id, "email_address": "second@example.com", "verified": false, "primary": false });
    let (status, email) = clerk.api(Method::POST, "/v1/email_addresses", Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{email}");
    assert_eq!(email["verification"]["status"], "unverified");
    let email_id = email["id"].as_str().unwrap();
    let path = format!("/v1/email_addresses/{email_id}");

    let (status, patched) = clerk.api(Method::PATCH, &path, Some(json!({ "verified": true }))).await;
    assert_eq!((status, &patched["verification"]["status"]), (StatusCode::OK, &json!("verified")));
    let (_, fetched) = clerk.api(Method::GET, &format!("/v1/users/{id}"), None).await;
    let statuses: Vec<_> =
        fetched["email_addresses"].as_array().unwrap().iter().map(|e| e["verification"]["status"].clone()).collect();
    assert_eq!(statuses, [json!("verified"), json!("verified")]);
    let (_, patched) = clerk.api(Method::PATCH, &path, Some(json!({ "verified": false, "primary": true }))).await;
    assert_eq!(patched["verification"]["status"], "unverified");
    let (_, fetched) = clerk.api(Method::GET, &format!("/v1/users/{id}"), None).await;
    assert_eq!(fetched["primary_email_address_id"], json!(email_id));

    let (status, deleted) = clerk.api(Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(deleted, json!({ "object": "email_address", "id": email_id, "deleted": true }));
    let (_, fetched) = clerk.api(Method::GET, &format!("/v1/users/{id}"), None).await;
    assert_eq!(fetched["email_addresses"].as_array().unwrap().len(), 1);
    assert_eq!(fetched["primary_email_address_id"], fetched["email_addresses"][0]["id"]);

    for (method, path, body) in [
        (Method::PATCH, path.as_str(), Some(json!({ "verified": true }))),
        (Method::DELETE, path.as_str(), None),
        (Method::GET, "/v1/users/user_nope", None),
        (
            Method::POST,
            "/v1/email_addresses",
            Some(json!({ "user_id": "user_nope", "email_address": "x@example.com" })),
        ),
    ] {
        let (status, body) = clerk.api(method, path, body).await;
        assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, "resource_not_found"), "{path}");
        assert_eq!(body["errors"][0]["message"], "not found");
    }
}

#[tokio::test]
async fn malformed_and_oversized_bodies_get_clerk_errors() {
    let clerk = ClerkDev::start().await;
    let (status, body) = clerk.api(Method::POST, "/v1/users", Some(json!({ "email_address": ["no-at-sign"] }))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "form_param_format_invalid"));
    let (status, body) = clerk.api(Method::POST, "/v1/sessions", Some(json!({ "user": 1 }))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::BAD_REQUEST, "request_body_invalid"));
    let huge = json!({ "email_address": ["a".repeat(40 * 1024) + "@example.com"] });
    let (status, body) = clerk.api(Method::POST, "/v1/users", Some(huge)).await;
    assert_eq!((status, error_code(&body)), (StatusCode::PAYLOAD_TOO_LARGE, "request_body_too_large"));
}

#[tokio::test]
async fn session_tokens_verify_against_the_jwks() {
    let clerk = ClerkDev::start().await;
    let user_id = clerk.create_user("tok@example.com").await["id"].as_str().unwrap().to_owned();
    let session_id = clerk.create_session(&user_id).await;
    assert!(session_id.starts_with("sess_"));

    // No body at all, no content type.
    let res = clerk
        .request(Method::POST, &format!("/v1/sessions/{session_id}/tokens"))
        .bearer_auth(SECRET)
        .send()
        .await
        .unwrap();
    let (status, token) = json_of(res).await;
    assert_eq!((status, &token["object"]), (StatusCode::OK, &json!("token")));
    let claims = clerk.verify(token["jwt"].as_str().unwrap()).await.expect("valid token");
    assert_eq!((&claims["sub"], &claims["sid"]), (&json!(user_id), &json!(session_id)));
    assert_eq!(claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(), 60);
    assert_eq!(claims["nbf"], claims["iat"]);
    assert_eq!((&claims["iss"], &claims["v"]), (&json!(clerk.url), &json!(2)));
    assert!(claims.get("azp").is_none() && claims.get("sts").is_none(), "{claims}");

    let path = format!("/v1/sessions/{session_id}/tokens");
    let body = json!({ "expires_in_seconds": 120, "azp": ORIGIN });
    let (status, token) = clerk.api(Method::POST, &path, Some(body)).await;
    assert_eq!(status, StatusCode::OK);
    let claims = clerk.verify(token["jwt"].as_str().unwrap()).await.expect("valid token");
    assert_eq!(claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(), 120);
    assert_eq!(claims["azp"], ORIGIN);

    let (status, body) = clerk.api(Method::POST, &path, Some(json!({ "expires_in_seconds": 0 }))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "form_param_value_invalid"));
    let (status, _) = clerk.api(Method::POST, &path, Some(json!({ "expires_in": 5 }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "unknown fields are refused, not ignored");
}

#[tokio::test]
async fn issued_offset_mints_expired_and_not_yet_valid_tokens() {
    let clerk = ClerkDev::start_with(&["--token-ttl", "30"]).await;
    let user_id = clerk.create_user("offset@example.com").await["id"].as_str().unwrap().to_owned();
    let session_id = clerk.create_session(&user_id).await;
    let path = format!("/v1/sessions/{session_id}/tokens");
    let mint = |offset: i64| clerk.api(Method::POST, &path, Some(json!({ "issued_offset_seconds": offset })));

    let (_, token) = mint(-3600).await;
    let err = clerk.verify(token["jwt"].as_str().unwrap()).await.expect_err("expired");
    assert_eq!(*err.kind(), jsonwebtoken::errors::ErrorKind::ExpiredSignature);
    let (_, token) = mint(3600).await;
    let err = clerk.verify(token["jwt"].as_str().unwrap()).await.expect_err("not yet valid");
    assert_eq!(*err.kind(), jsonwebtoken::errors::ErrorKind::ImmatureSignature);
    let (_, token) = mint(-10).await;
    let claims = clerk.verify(token["jwt"].as_str().unwrap()).await.expect("still valid");
    assert_eq!(claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(), 30);
    let now = chrono::Utc::now().timestamp();
    assert!((now - 10 - claims["iat"].as_i64().unwrap()).abs() <= 2, "{claims}");
}

#[tokio::test]
async fn revoked_sessions_mint_no_tokens() {
    let clerk = ClerkDev::start().await;
    let user_id = clerk.create_user("rev@example.com").await["id"].as_str().unwrap().to_owned();
    let session_id = clerk.create_session(&user_id).await;
    let (status, session) = clerk.api(Method::POST, &format!("/v1/sessions/{session_id}/revoke"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!((&session["object"], &session["status"]), (&json!("session"), &json!("revoked")));

    let (status, body) = clerk.api(Method::POST, &format!("/v1/sessions/{session_id}/tokens"), None).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, "resource_not_found"));
    let res = clerk.request(Method::POST, &format!("/dev/sessions/{session_id}/tokens")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    for (path, body) in [
        ("/v1/sessions", Some(json!({ "user_id": "user_nope" }))),
        ("/v1/sessions/sess_nope/tokens", None),
        ("/v1/sessions/sess_nope/revoke", None),
    ] {
        let (status, body) = clerk.api(Method::POST, path, body).await;
        assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, "resource_not_found"), "{path}");
    }
}
