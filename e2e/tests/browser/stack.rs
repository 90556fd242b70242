//! The real stack for one browser test: a fresh database, `clerk-dev` allowing the API's
//! origin, and the API on a real `http://127.0.0.1:PORT` serving the SPA built into it
//! from `web/dist`. The port is bound first because the origin must be in `APP_ORIGINS`
//! and `CLERK_AUTHORIZED_PARTIES` before the server starts.

use std::net::TcpListener;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;

use futures::future::LocalBoxFuture;
use futures::FutureExt as _;

use api::config::Settings;
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
    /// The database owner's URL (the maintenance channel's access); the server's own
    /// login is in `settings`.
    owner_db_url: String,
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
        // Migrated as the owner; the server logs in as the app login, as in production.
        let owner_db_url = db::fresh_database().await;
        let db_url = db::app_url(&owner_db_url).await;
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let clerk = ClerkDev::start_for(&base).await;
        // Lottery draws run on a local drand chain whose relay answers the SPA's "Run draw".
        let relay = crate::common::drand::LocalChain::default_for_tests().relay();
        let mut settings = crate::common::settings(&db_url, &clerk, &base);
        settings.draws = crate::common::drand::LocalChain::default_for_tests().config(Some(relay));
        let app = Application::build_with_listener(settings.clone(), listener).await.expect("server builds");
        tokio::spawn(app.run());
        Stack { base, clerk, owner_db_url, settings, http: reqwest::Client::new() }
    }

    /// Makes `email` the owner of a new workspace (the maintenance channel, as the CLI
    /// does); they sign in through the SPA like anyone else. Returns the workspace id.
    pub async fn owner(&self, email: &str) -> (User, Uuid) {
        self.named_owner(email, None).await
    }

    /// [`Stack::owner`] with Clerk's first and last name set (the pages name owners by it).
    pub async fn named_owner(&self, email: &str, name: Option<(&str, &str)>) -> (User, Uuid) {
        let user_id = self.clerk.create_named_user(email, name.map(|n| n.0), name.map(|n| n.1)).await;
        let pool = api::db::pool(&self.owner_db_url, 1).unwrap();
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

impl Stack {
    /// A program set up straight through the API: a notice, `content`, sign-ups open and
    /// access on. Returns its id.
    pub async fn open_program(&self, owner: &User, workspace: Uuid, slug: &str, content: &str) -> String {
        let purpose = format!("Early access to {slug}.");
        let body = serde_json::json!({"workspaceId": workspace, "slug": slug, "purpose": purpose, "queueCap": 10,
            "hourlyCap": 10, "seatCap": 10, "maxInviteDays": 7});
        let program = self.call(owner, Method::POST, "/api/owner/programs", body).await;
        let id = program["id"].as_str().unwrap().to_owned();
        let notice = serde_json::json!({"purpose": purpose, "contactText": "lists@example.com", "retentionText": "Until launch."});
        self.call(owner, Method::POST, &format!("/api/owner/programs/{id}/notices"), notice).await;
        let content = serde_json::json!({"expectedRevision": 0, "body": content});
        self.call(owner, Method::PUT, &format!("/api/owner/programs/{id}/content"), content).await;
        let current = self.call(owner, Method::GET, &format!("/api/owner/programs/{id}"), Value::Null).await;
        let patch =
            serde_json::json!({"expectedRevision": current["revision"], "signupOpen": true, "accessEnabled": true});
        self.call(owner, Method::PATCH, &format!("/api/owner/programs/{id}"), patch).await;
        id
    }

    /// Runs `sql` as the database owner: only to move time for a test (an invitation
    /// issued long ago), never to arrange what the app itself can do.
    pub async fn as_database_owner(&self, sql: &str) {
        let pool = api::db::pool(&self.owner_db_url, 1).unwrap();
        pool.get().await.expect("a connection").batch_execute(sql).await.expect(sql);
    }

    /// A public signup through the API (notice version 1, permission given).
    pub async fn signup(&self, slug: &str, email: &str) {
        let body =
            serde_json::json!({"requestKey": Uuid::new_v4(), "email": email, "noticeVersion": 1, "permission": true});
        let response = self
            .http
            .post(format!("{}/api/public/programs/{slug}/signups", self.base))
            .header("origin", &self.base)
            .json(&body)
            .send()
            .await
            .expect("request sent");
        assert_eq!(response.status().as_u16(), 202, "signup of {email}: {}", response.text().await.unwrap_or_default());
    }
}
