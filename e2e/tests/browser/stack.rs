//! The real stack for one browser test: a fresh database, `clerk-dev` allowing the API's
//! origin, and the API on a real `http://127.0.0.1:PORT` serving the SPA built into it
//! from `web/dist`. The port is bound first because the origin must be in `APP_ORIGINS`
//! and `CLERK_AUTHORIZED_PARTIES` before the server starts.

use std::net::TcpListener;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;

use futures::future::LocalBoxFuture;
use futures::FutureExt as _;

use api::config::{AppEnv, Settings};
use api::startup::Application;
use reqwest::Method;
use serde_json::Value;
use uuid::Uuid;

use crate::browser::Browser;
use crate::common::clerk::{ClerkDev, User};
use crate::common::db;

/// Runs `test` against a fresh stack in a fresh browser, then fails on any console error
/// or CSP violation it left (after the test's own failure, if it had one).
pub async fn in_browser<F>(test: F)
where
    F: for<'a> FnOnce(&'a Stack, &'a Browser) -> LocalBoxFuture<'a, ()>,
{
    let stack = Stack::start().await;
    let browser = Browser::launch(&stack.base).await;
    let outcome = AssertUnwindSafe(test(&stack, &browser)).catch_unwind().await;
    let errors = browser.console_errors().await;
    browser.quit().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
    assert!(errors.is_empty(), "the browser console reported errors: {errors:#?}");
}

pub struct Stack {
    /// The API's origin, which is also the browser's.
    pub base: String,
    pub clerk: ClerkDev,
    settings: Settings,
    http: reqwest::Client,
}

/// The built SPA; the test command runs `scripts/build-web` before the tests.
pub fn dist_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../web/dist")
}

impl Stack {
    pub async fn start() -> Stack {
        let dist = dist_dir();
        assert!(
            dist.join("index.html").is_file(),
            "{} is missing: build the SPA first with scripts/build-web (scripts/test does)",
            dist.join("index.html").display()
        );
        api::telemetry::init();
        let db_url = db::fresh_database().await;
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let clerk = ClerkDev::start_for(&base).await;
        let settings = Settings {
            database_url: db_url,
            bind_addr: "127.0.0.1:0".into(),
            app_env: AppEnv::Development,
            app_origins: vec![base.clone()],
            hmac_key: vec![1; 32],
            csrf_key: vec![2; 32],
            clerk_secret_key: clerk.secret.clone(),
            clerk_api_url: clerk.url.clone(),
            clerk_jwt_key: None,
            clerk_authorized_parties: vec![base.clone()],
            clerk_publishable_key: None,
            identity_dev_url: Some(clerk.url.clone()),
            static_dir: None,
            signup_rate_per_minute: 1000,
            redeem_failures_per_15min: 10,
            trusted_proxies: vec![],
            db_pool_size: 8,
            metrics_addr: None,
            integrations: Default::default(),
        };
        let app = Application::build_with_listener(settings.clone(), listener).await.expect("server builds");
        tokio::spawn(app.run());
        Stack { base, clerk, settings, http: reqwest::Client::new() }
    }

    /// Makes `email` the owner of a new workspace (the maintenance channel, as the CLI
    /// does); they sign in through the SPA like anyone else. Returns the workspace id.
    pub async fn owner(&self, email: &str) -> (User, Uuid) {
        let user_id = self.clerk.create_user(email).await;
        let pool = api::db::pool(&self.settings.database_url, 1).unwrap();
        let workspace = api::db::transaction(&pool, async |tx| {
            api::db::staff::bootstrap(tx, "Acme Labs", &user_id, "browser-test").await
        })
        .await
        .expect("bootstrap");
        (self.clerk.session_for(&user_id).await, workspace)
    }

    /// An owner call straight to the API, for arranging what a test does not look at.
    pub async fn call(&self, user: &User, method: Method, path: &str, body: Value) -> Value {
        let csrf = api::http::csrf::token(&self.settings.csrf_key, &user.session_id);
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("origin", &self.base)
            .header("x-csrf-token", csrf)
            .bearer_auth(&user.token);
        if !body.is_null() {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request sent");
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        assert!(status.is_success(), "{path}: {status} {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }
}
