//! The real `clerk-dev` process, one per test, and helpers that use its Backend API.

use reqwest::StatusCode;
use serde_json::{json, Value};
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

pub struct ClerkDev {
    pub url: String,
    pub secret: String,
    http: reqwest::Client,
    child: tokio::sync::Mutex<Child>,
}

/// A user of clerk-dev with an open session and a long-lived token.
#[derive(Debug, Clone)]
pub struct User {
    pub user_id: String,
    pub session_id: String,
    pub token: String,
}

impl ClerkDev {
    pub async fn start() -> ClerkDev {
        Self::start_for(super::ORIGIN).await
    }

    /// Starts clerk-dev whose dev endpoints (`/dev/sign-in`) allow the browser `origin`.
    pub async fn start_for(origin: &str) -> ClerkDev {
        Self::launch("127.0.0.1:0", &format!("sk_test_{}", uuid::Uuid::new_v4().simple()), origin).await
    }

    /// Starts clerk-dev on `bind` (use the old address to bring an identity provider back).
    pub async fn start_on(bind: &str, secret: &str) -> ClerkDev {
        Self::launch(bind, secret, super::ORIGIN).await
    }

    async fn launch(bind: &str, secret: &str, origin: &str) -> ClerkDev {
        let secret = secret.to_owned();
        let mut child = Command::new(env!("CARGO_BIN_EXE_clerk-dev"))
            .args(["--bind", bind, "--secret-key", &secret, "--token-ttl", "3600"])
            .args(["--allowed-origin", origin])
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("clerk-dev starts");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let line = lines.next_line().await.unwrap().expect("clerk-dev prints its address");
        let url = line.rsplit(' ').next().unwrap().to_owned();
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        ClerkDev { url, secret, http: reqwest::Client::new(), child: tokio::sync::Mutex::new(child) }
    }

    /// Stops the process: the identity provider is gone (see [`ClerkDev::start_on`]).
    pub async fn kill(&self) {
        let _ = self.child.lock().await.kill().await;
    }

    pub async fn backend(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut rb = self.http.request(method, format!("{}{path}", self.url)).bearer_auth(&self.secret);
        if let Some(body) = body {
            rb = rb.json(&body);
        }
        let r = rb.send().await.expect("clerk-dev answers");
        let status = r.status();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn create_user(&self, email: &str) -> String {
        self.create_named_user(email, None, None).await
    }

    /// A user with one verified email and, where given, Clerk's `first_name` / `last_name`.
    pub async fn create_named_user(&self, email: &str, first: Option<&str>, last: Option<&str>) -> String {
        let body = json!({"email_address": [email], "first_name": first, "last_name": last,
            "skip_password_requirement": true});
        let (s, user) = self.backend(reqwest::Method::POST, "/v1/users", Some(body)).await;
        assert_eq!(s, StatusCode::OK, "{user}");
        user["id"].as_str().unwrap().to_owned()
    }

    pub async fn session_for(&self, user_id: &str) -> User {
        let (s, session) = self.backend(reqwest::Method::POST, "/v1/sessions", Some(json!({"user_id": user_id}))).await;
        assert_eq!(s, StatusCode::OK, "{session}");
        let session_id = session["id"].as_str().unwrap().to_owned();
        let token = self.token(&session_id, json!({})).await;
        User { user_id: user_id.to_owned(), session_id, token }
    }

    pub async fn token(&self, session_id: &str, body: Value) -> String {
        let (s, token) =
            self.backend(reqwest::Method::POST, &format!("/v1/sessions/{session_id}/tokens"), Some(body)).await;
        assert_eq!(s, StatusCode::OK, "{token}");
        token["jwt"].as_str().unwrap().to_owned()
    }

    pub async fn user(&self, email: &str) -> User {
        let id = self.create_user(email).await;
        self.session_for(&id).await
    }

    /// Adds an email to a user; returns its id.
    pub async fn add_email(&self, user_id: &str, email: &str, verified: bool) -> String {
        let body = json!({"user_id": user_id, "email_address": email, "verified": verified, "primary": false});
        let (s, e) = self.backend(reqwest::Method::POST, "/v1/email_addresses", Some(body)).await;
        assert_eq!(s, StatusCode::OK, "{e}");
        e["id"].as_str().unwrap().to_owned()
    }

    /// The id of the user's email with this address.
    pub async fn email_id(&self, user_id: &str, email: &str) -> String {
        let (_, user) = self.backend(reqwest::Method::GET, &format!("/v1/users/{user_id}"), None).await;
        user["email_addresses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["email_address"] == email)
            .map(|e| e["id"].as_str().unwrap().to_owned())
            .expect("the user has that email")
    }

    pub async fn set_verified(&self, email_id: &str, verified: bool) {
        let (s, e) = self
            .backend(
                reqwest::Method::PATCH,
                &format!("/v1/email_addresses/{email_id}"),
                Some(json!({"verified": verified})),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{e}");
    }

    pub async fn delete_email(&self, email_id: &str) {
        let (s, e) = self.backend(reqwest::Method::DELETE, &format!("/v1/email_addresses/{email_id}"), None).await;
        assert_eq!(s, StatusCode::OK, "{e}");
    }

    /// Deletes the user (`DELETE /v1/users/{id}`): it is gone and its sessions mint no
    /// more tokens.
    pub async fn delete_user(&self, user_id: &str) {
        let (s, body) = self.backend(reqwest::Method::DELETE, &format!("/v1/users/{user_id}"), None).await;
        assert_eq!(s, StatusCode::OK, "{body}");
    }

    async fn fault(&self, switch: &str, down: bool) {
        let r = self
            .http
            .post(format!("{}/dev/faults", self.url))
            .json(&json!({ switch: if down { "unavailable" } else { "ok" } }))
            .send()
            .await
            .expect("clerk-dev answers");
        assert!(r.status().is_success());
    }

    /// Makes `GET /v1/users/*` fail (true) or work again (false).
    pub async fn users_unavailable(&self, down: bool) {
        self.fault("users", down).await;
    }
}
