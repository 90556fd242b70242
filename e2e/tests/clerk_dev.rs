//! Black-box tests of the `clerk-dev` binary: each test spawns it on a free port, reads
//! the listening line, and talks HTTP to it (Backend API, dev sign-in, CORS, faults).

use std::process::Stdio;

use jsonwebtoken::{decode, decode_header, Algorithm, DecodingKey, Validation};
use reqwest::{header, Client, Method, Response, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const SECRET: &str = "sk_test_x";
const ORIGIN: &str = "http://127.0.0.1:9999";
const OTHER_ORIGIN: &str = "http://127.0.0.1:9998";
const FOREIGN_ORIGIN: &str = "http://evil.example";

/// A running clerk-dev; the child is killed when this is dropped.
struct ClerkDev {
    _child: Child,
    url: String,
    http: Client,
}

impl ClerkDev {
    async fn start() -> Self {
        Self::start_with(&[]).await
    }

    async fn start_with(extra: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_clerk-dev"))
            .args(["--bind", "127.0.0.1:0", "--secret-key", SECRET, "--allowed-origin", ORIGIN])
            .args(extra)
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn clerk-dev");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).await.expect("read listening line");
        let url = line
            .trim_end()
            .strip_prefix("clerk-dev listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        Self { _child: child, url, http: Client::new() }
    }

    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http.request(method, format!("{}{path}", self.url))
    }

    /// A Backend API call with the right secret key.
    async fn api(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut req = self.request(method, path).bearer_auth(SECRET);
        if let Some(body) = body {
            req = req.json(&body);
        }
        json_of(req.send().await.expect("request")).await
    }

    async fn create_user(&self, email: &str) -> Value {
        let body = json!({ "email_address": [email], "skip_password_requirement": true });
        let (status, user) = self.api(Method::POST, "/v1/users", Some(body)).await;
        assert_eq!(status, StatusCode::OK, "{user}");
        user
    }

    async fn create_session(&self, user_id: &str) -> String {
        let (status, session) = self.api(Method::POST, "/v1/sessions", Some(json!({ "user_id": user_id }))).await;
        assert_eq!(status, StatusCode::OK, "{session}");
        assert_eq!(session["status"], "active");
        session["id"].as_str().expect("session id").to_owned()
    }

    async fn decoding_key(&self) -> (String, DecodingKey) {
        let (status, jwks) = self.api(Method::GET, "/v1/jwks", None).await;
        assert_eq!(status, StatusCode::OK);
        let key = &jwks["keys"][0];
        assert_eq!(
            (key["kty"].as_str(), key["alg"].as_str(), key["use"].as_str()),
            (Some("RSA"), Some("RS256"), Some("sig"))
        );
        assert_eq!(key["e"], "AQAB");
        let n = key["n"].as_str().expect("n");
        let decoding = DecodingKey::from_rsa_components(n, "AQAB").expect("rsa components");
        (key["kid"].as_str().expect("kid").to_owned(), decoding)
    }

    /// Verifies `jwt` against the JWKS (RS256, kid, exp/nbf with 5 s leeway).
    async fn verify(&self, jwt: &str) -> Result<Value, jsonwebtoken::errors::Error> {
        let (kid, key) = self.decoding_key().await;
        let header = decode_header(jwt)?;
        assert_eq!(header.alg, Algorithm::RS256);
        assert_eq!(header.kid.as_deref(), Some(kid.as_str()));
        let mut validation = Validation::new(Algorithm::RS256);
        validation.leeway = 5;
        validation.validate_nbf = true;
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp", "nbf", "sub"]);
        decode::<Value>(jwt, &key, &validation).map(|data| data.claims)
    }
}

async fn json_of(res: Response) -> (StatusCode, Value) {
    let status = res.status();
    let body = res.json().await.unwrap_or(Value::Null);
    (status, body)
}

fn error_code(body: &Value) -> &str {
    body["errors"][0]["code"].as_str().unwrap_or_else(|| panic!("not a Clerk error: {body}"))
}

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

#[tokio::test]
async fn dev_sign_in_finds_or_creates_and_sets_azp_from_origin() {
    let clerk = ClerkDev::start().await;
    let sign_in = |email: &str, origin: Option<&str>| {
        let mut req = clerk.request(Method::POST, "/dev/sign-in").json(&json!({ "email": email }));
        if let Some(origin) = origin {
            req = req.header(header::ORIGIN, origin);
        }
        req.send()
    };

    let res = sign_in("dev@Example.com", Some(ORIGIN)).await.unwrap();
    assert_eq!(res.headers().get(header::ACCESS_CONTROL_ALLOW_ORIGIN).unwrap(), ORIGIN);
    let (status, first) = json_of(res).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let claims = clerk.verify(first["jwt"].as_str().unwrap()).await.expect("valid");
    assert_eq!(
        (&claims["sub"], &claims["sid"], &claims["azp"]),
        (&first["userId"], &first["sessionId"], &json!(ORIGIN))
    );
    let (_, user) = clerk.api(Method::GET, &format!("/v1/users/{}", first["userId"].as_str().unwrap()), None).await;
    assert_eq!(user["email_addresses"][0]["verification"]["status"], "verified");

    let (_, again) = json_of(sign_in(" dev@example.COM ", None).await.unwrap()).await;
    assert_eq!(again["userId"], first["userId"]);
    assert_ne!(again["sessionId"], first["sessionId"]);
    let claims = clerk.verify(again["jwt"].as_str().unwrap()).await.expect("valid");
    assert!(claims.get("azp").is_none(), "no Origin, no azp: {claims}");

    let existing = clerk.create_user("backend@example.com").await;
    let (_, found) = json_of(sign_in("backend@example.com", None).await.unwrap()).await;
    assert_eq!(found["userId"], existing["id"]);

    let path = format!("/dev/sessions/{}/tokens", first["sessionId"].as_str().unwrap());
    let res = clerk.request(Method::POST, &path).header(header::ORIGIN, ORIGIN).send().await.unwrap();
    let (status, refreshed) = json_of(res).await;
    assert_eq!(status, StatusCode::OK);
    let claims = clerk.verify(refreshed["jwt"].as_str().unwrap()).await.expect("valid");
    assert_eq!((&claims["sid"], &claims["azp"]), (&first["sessionId"], &json!(ORIGIN)));
    let res = clerk.request(Method::POST, "/dev/sessions/sess_nope/tokens").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);

    let (status, body) = json_of(sign_in("not an email", Some(ORIGIN)).await.unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    error_code(&body);
}

async fn preflight(clerk: &ClerkDev, origin: &str) -> Response {
    clerk
        .request(Method::OPTIONS, "/dev/sign-in")
        .header(header::ORIGIN, origin)
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "content-type")
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn cors_allows_only_the_configured_origins() {
    let clerk = ClerkDev::start_with(&["--allowed-origin", &format!("{OTHER_ORIGIN},http://localhost:8080")]).await;
    for origin in [ORIGIN, OTHER_ORIGIN, "http://localhost:8080"] {
        let res = preflight(&clerk, origin).await;
        assert!(res.status().is_success(), "{origin}: {}", res.status());
        assert_eq!(res.headers().get(header::ACCESS_CONTROL_ALLOW_ORIGIN).unwrap(), origin);
        let methods = res.headers().get(header::ACCESS_CONTROL_ALLOW_METHODS).unwrap().to_str().unwrap();
        assert!(methods.contains("POST"), "{methods}");
    }
    let res = preflight(&clerk, FOREIGN_ORIGIN).await;
    assert!(res.headers().get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
    let res = clerk
        .request(Method::POST, "/dev/sign-in")
        .header(header::ORIGIN, FOREIGN_ORIGIN)
        .json(&json!({ "email": "x@example.com" }))
        .send()
        .await
        .unwrap();
    assert!(res.headers().get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
    assert!(!res.status().is_success());
}

#[tokio::test]
async fn faults_make_user_lookups_fail_until_restored() {
    let clerk = ClerkDev::start().await;
    let user_id = clerk.create_user("fault@example.com").await["id"].as_str().unwrap().to_owned();
    let set = |users: &str| clerk.request(Method::POST, "/dev/faults").json(&json!({ "users": users })).send();

    let (status, body) = json_of(set("unavailable").await.unwrap()).await;
    assert_eq!((status, body), (StatusCode::OK, json!({ "users": "unavailable" })));
    let (status, body) = clerk.api(Method::GET, &format!("/v1/users/{user_id}"), None).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    error_code(&body);
    assert_eq!(clerk.api(Method::GET, "/v1/jwks", None).await.0, StatusCode::OK, "only users fail");

    let (status, body) = json_of(set("ok").await.unwrap()).await;
    assert_eq!((status, body), (StatusCode::OK, json!({ "users": "ok" })));
    assert_eq!(clerk.api(Method::GET, &format!("/v1/users/{user_id}"), None).await.0, StatusCode::OK);
    assert_eq!(set("sometimes").await.unwrap().status(), StatusCode::BAD_REQUEST);
}
