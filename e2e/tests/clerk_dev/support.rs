//! The harness: a real clerk-dev process per test on a free port, and helpers for its
//! Backend API.

use std::process::Stdio;

use jsonwebtoken::{decode, decode_header, Algorithm, DecodingKey, Validation};
use reqwest::{Client, Method, Response, StatusCode};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

pub const SECRET: &str = "sk_test_x";
pub const ORIGIN: &str = "http://127.0.0.1:9999";
pub const OTHER_ORIGIN: &str = "http://127.0.0.1:9998";
pub const FOREIGN_ORIGIN: &str = "http://evil.example";

/// A running clerk-dev; the child is killed when this is dropped.
pub struct ClerkDev {
    _child: Child,
    pub url: String,
    http: Client,
}

impl ClerkDev {
    pub async fn start() -> Self {
        Self::start_with(&[]).await
    }

    pub async fn start_with(extra: &[&str]) -> Self {
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

    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http.request(method, format!("{}{path}", self.url))
    }

    /// A Backend API call with the right secret key.
    pub async fn api(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut req = self.request(method, path).bearer_auth(SECRET);
        if let Some(body) = body {
            req = req.json(&body);
        }
        json_of(req.send().await.expect("request")).await
    }

    pub async fn create_user(&self, email: &str) -> Value {
        let body = json!({ "email_address": [email], "skip_password_requirement": true });
        let (status, user) = self.api(Method::POST, "/v1/users", Some(body)).await;
        assert_eq!(status, StatusCode::OK, "{user}");
        user
    }

    /// A new user's id.
    pub async fn user_id(&self, email: &str) -> String {
        self.create_user(email).await["id"].as_str().expect("user id").to_owned()
    }

    /// `POST /dev/faults` with `body`.
    pub async fn faults(&self, body: Value) -> (StatusCode, Value) {
        json_of(self.request(Method::POST, "/dev/faults").json(&body).send().await.expect("request")).await
    }

    /// A new organization (answers 200); `created_by` becomes its `org:admin`.
    pub async fn create_org(&self, name: &str, slug: Option<&str>, created_by: Option<&str>) -> Value {
        let body = json!({ "name": name, "slug": slug, "created_by": created_by });
        let (status, org) = self.api(Method::POST, "/v1/organizations", Some(body)).await;
        assert_eq!(status, StatusCode::OK, "{org}");
        org
    }

    pub async fn create_session(&self, user_id: &str) -> String {
        let (status, session) = self.api(Method::POST, "/v1/sessions", Some(json!({ "user_id": user_id }))).await;
        assert_eq!(status, StatusCode::OK, "{session}");
        assert_eq!(session["status"], "active");
        session["id"].as_str().expect("session id").to_owned()
    }

    pub async fn decoding_key(&self) -> (String, DecodingKey) {
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
    pub async fn verify(&self, jwt: &str) -> Result<Value, jsonwebtoken::errors::Error> {
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

pub async fn json_of(res: Response) -> (StatusCode, Value) {
    let status = res.status();
    let body = res.json().await.unwrap_or(Value::Null);
    (status, body)
}

pub fn error_code(body: &Value) -> &str {
    body["errors"][0]["code"].as_str().unwrap_or_else(|| panic!("not a Clerk error: {body}"))
}
