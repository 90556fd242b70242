#![allow(dead_code)] // shared by every test module; each uses a part
//! Test harness: a fresh database per test, a real `clerk-dev` process, the real API
//! on an ephemeral port, and typed helpers so tests read as sentences.

pub mod flows;
pub mod pg;
pub mod process;
pub mod race;

pub use crate::common::clerk::{ClerkDev, User};
pub use crate::common::{db, ORIGIN};
use api::config::{AppEnv, Settings};
use api::startup::Application;
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::Value;
use uuid::Uuid;

pub struct TestApp {
    pub base: String,
    pub db_url: String,
    pub clerk: ClerkDev,
    pub http: reqwest::Client,
    pub settings: Settings,
    /// The `/metrics` listener's base URL, when the test set `metrics_addr`.
    pub metrics: Option<String>,
}

pub fn settings(db_url: &str, clerk: &ClerkDev) -> Settings {
    Settings {
        database_url: db_url.to_owned(),
        bind_addr: "127.0.0.1:0".into(),
        app_env: AppEnv::Development,
        app_origins: vec![ORIGIN.into()],
        hmac_key: vec![1; 32],
        csrf_key: vec![2; 32],
        clerk_secret_key: clerk.secret.clone(),
        clerk_api_url: clerk.url.clone(),
        clerk_jwt_key: None,
        clerk_authorized_parties: vec![ORIGIN.into()],
        clerk_publishable_key: None,
        identity_dev_url: Some(clerk.url.clone()),
        static_dir: "../web/dist".into(),
        signup_rate_per_minute: 1000,
        redeem_failures_per_15min: 10,
        trusted_proxies: vec![],
        db_pool_size: 8,
        metrics_addr: None,
    }
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        Self::spawn_with(|_| {}).await
    }

    /// Starts everything, letting the test adjust the settings first.
    pub async fn spawn_with(adjust: impl FnOnce(&mut Settings)) -> TestApp {
        api::telemetry::init();
        let db_url = db::fresh_database().await;
        let clerk = ClerkDev::start().await;
        let mut settings = settings(&db_url, &clerk);
        adjust(&mut settings);
        let app = Application::build(settings.clone()).await.expect("server builds");
        let base = format!("http://127.0.0.1:{}", app.port());
        let metrics = app.metrics_port().map(|port| format!("http://127.0.0.1:{port}"));
        tokio::spawn(app.run());
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        TestApp { base, db_url, clerk, http, settings, metrics }
    }

    /// A direct database connection for arranging and asserting.
    pub async fn db(&self) -> tokio_postgres::Client {
        db::connect(&self.db_url).await
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request with the allowed Origin and, when `user` is given, their token and CSRF token.
    pub fn request(&self, method: Method, path: &str, user: Option<&User>) -> reqwest::RequestBuilder {
        let mut rb = self.http.request(method.clone(), self.url(path)).header("origin", ORIGIN);
        if let Some(user) = user {
            rb = rb.bearer_auth(&user.token);
            if method != Method::GET {
                rb = rb.header("x-csrf-token", api::http::csrf::token(&self.settings.csrf_key, &user.session_id));
            }
        }
        rb
    }

    pub async fn get(&self, path: &str, user: Option<&User>) -> Reply {
        Reply::from(self.request(Method::GET, path, user).send().await.expect("request sent")).await
    }

    pub async fn post(&self, path: &str, body: &Value, user: Option<&User>) -> Reply {
        Reply::from(self.request(Method::POST, path, user).json(body).send().await.expect("request sent")).await
    }

    pub async fn patch(&self, path: &str, body: &Value, user: Option<&User>) -> Reply {
        Reply::from(self.request(Method::PATCH, path, user).json(body).send().await.expect("request sent")).await
    }

    pub async fn put(&self, path: &str, body: &Value, user: Option<&User>) -> Reply {
        Reply::from(self.request(Method::PUT, path, user).json(body).send().await.expect("request sent")).await
    }

    /// A signed-in user with one verified email.
    pub async fn user(&self, email: &str) -> User {
        self.clerk.user(email).await
    }

    /// A signed-in owner of a new workspace; returns the owner and the workspace id.
    pub async fn owner(&self, email: &str) -> (User, Uuid) {
        let user = self.user(email).await;
        let pool = api::db::pool(&self.db_url, 1).unwrap();
        let name = format!("Workspace of {}", &user.user_id[..8.min(user.user_id.len())]);
        let ws = api::db::transaction(&pool, async |tx| {
            api::db::staff::bootstrap(tx, &name, &user.user_id, "test-approval").await
        })
        .await
        .expect("bootstrap");
        (user, ws)
    }
}

/// Waits, when the wall clock is within `margin` seconds of the end of a UTC period of
/// `period` seconds (a rate-limit minute, an intake hour), until the next period starts,
/// so a test that fills a per-period counter never straddles two periods.
pub async fn clear_of_period_end(period: u64, margin: u64) {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let left = period - now % period;
    if left <= margin {
        tokio::time::sleep(std::time::Duration::from_secs(left + 1)).await;
    }
}

/// A response read to the end: status, headers and body.
pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Reply {
    pub async fn from(r: reqwest::Response) -> Reply {
        let status = r.status();
        let headers = r.headers().clone();
        let text = r.text().await.unwrap_or_default();
        Reply { status, headers, text }
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|_| panic!("not JSON ({}): {}", self.status, self.text))
    }

    pub fn parse<T: DeserializeOwned>(&self) -> T {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("unexpected body ({}): {e}: {}", self.status, self.text))
    }

    /// The error code of an error body.
    pub fn code(&self) -> String {
        self.json()["error"]["code"].as_str().unwrap_or_default().to_owned()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    #[track_caller]
    pub fn assert(&self, status: u16) -> &Self {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.text);
        self
    }
}
