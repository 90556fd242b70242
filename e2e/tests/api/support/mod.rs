//! Test harness: a fresh database per test, a real `clerk-dev` process, the real API
//! on an ephemeral port, and typed helpers so tests read as sentences. The helpers
//! follow the API's audiences: [`public`] (signup, the public program), an [`Owner`]
//! speaking the owner routes ([`owner`], [`queue`], [`invitations`]) and a
//! [`Recipient`] speaking `/api/me` ([`recipient`]), both a [`session::Session`] of a
//! signed-in user. Every answer is read through [`Reply`] into the `shared` types;
//! [`sql`] arranges and asserts what only the database shows; [`race`] orders
//! contenders through the database.
//!
//! A `TestApp` is cheap to clone (the identity process and the arranging connection are
//! shared), so an `Owner` or a `Recipient` carries its own handle on the app.

pub mod cohorts;
pub mod draws;
pub mod integrations;
pub mod invitations;
pub mod owner;
pub mod pg;
pub mod process;
pub mod public;
pub mod queue;
pub mod race;
pub mod receiver;
pub mod recipient;
pub mod reply;
pub mod secrets;
pub mod session;
pub mod sql;

pub use crate::common::clerk::{ClerkDev, User};
pub use crate::common::{db, ORIGIN};
pub use invitations::Invited;
pub use owner::{Caps, Owner};
pub use recipient::Recipient;
pub use reply::Reply;
pub use sql::{Params, QUEUE_OF};

use api::config::Settings;
use api::startup::Application;
use reqwest::Method;
use serde::Serialize;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::OnceCell;
use uuid::Uuid;

#[derive(Clone)]
pub struct TestApp {
    /// Where requests go: the in-process server, or a process (see [`TestApp::at`]).
    pub base: String,
    /// The database owner's URL: what the test arranges and asserts through, and what the
    /// CLI runs with (the operator's access). The server itself logs in as the app login
    /// (`settings.database_url`, [`db::app_url`]).
    pub db_url: String,
    pub clerk: Arc<ClerkDev>,
    pub http: reqwest::Client,
    pub settings: Settings,
    /// The `/metrics` listener's base URL, when the test set `metrics_addr`.
    pub metrics: Option<String>,
    sql: Arc<OnceCell<tokio_postgres::Client>>,
}

/// The common test settings at [`ORIGIN`], with the outbox fast and loopback webhooks
/// allowed (the receivers run on this machine).
pub fn settings(db_url: &str, clerk: &ClerkDev) -> Settings {
    Settings {
        integrations: api::config::IntegrationSettings {
            allow_loopback: true,
            poll: Duration::from_millis(100),
            backoff_scale: 0.001,
            lease_secs: 60,
            ..Default::default()
        },
        ..crate::common::settings(db_url, clerk, ORIGIN)
    }
}

/// Makes `user_id` the first owner of a new workspace through the maintenance path (as
/// `vestibule owner bootstrap` does); returns the workspace id.
pub async fn bootstrap_owner(db_url: &str, user_id: &str) -> Uuid {
    let pool = api::db::pool(db_url, 1).unwrap();
    let name = format!("Workspace of {}", &user_id[..8.min(user_id.len())]);
    api::db::transaction(&pool, async |tx| api::db::staff::bootstrap(tx, &name, user_id, "test-approval").await)
        .await
        .expect("bootstrap")
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        Self::spawn_with(|_| {}).await
    }

    /// Starts everything, letting the test adjust the settings first.
    pub async fn spawn_with(adjust: impl FnOnce(&mut Settings)) -> TestApp {
        Self::spawn_on(db::fresh_database().await, adjust).await
    }

    /// Starts everything on an existing database (e.g. a private cluster's), given by its
    /// owner's URL: it is migrated as the owner, and the server logs in as the app login
    /// ([`db::app_url`]), as in production.
    pub async fn spawn_on(db_url: String, adjust: impl FnOnce(&mut Settings)) -> TestApp {
        api::telemetry::init();
        let clerk = ClerkDev::start().await;
        let mut settings = settings(&db::prepare(&db_url).await, &clerk);
        adjust(&mut settings);
        let server = Application::build(settings.clone()).await.expect("server builds");
        let base = format!("http://127.0.0.1:{}", server.port());
        let metrics = server.metrics_port().map(|port| format!("http://127.0.0.1:{port}"));
        tokio::spawn(server.run());
        TestApp { metrics, settings, ..Self::attach(&base, &db_url, clerk) }
    }

    /// The harness for a server the test started itself (a `vestibule serve` process
    /// with the test settings, see [`process::ApiProcess`]) at `base` on `db_url`.
    pub fn attach(base: &str, db_url: &str, clerk: ClerkDev) -> TestApp {
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        TestApp {
            base: base.to_owned(),
            db_url: db_url.to_owned(),
            settings: settings(db_url, &clerk),
            clerk: Arc::new(clerk),
            http,
            metrics: None,
            sql: Arc::default(),
        }
    }

    /// The same app reached at another base: a `vestibule serve` process on this
    /// database. Owners and recipients made from it speak to that process.
    pub fn at(&self, base: &str) -> TestApp {
        TestApp { base: base.to_owned(), ..self.clone() }
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

    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&(impl Serialize + ?Sized)>,
        user: Option<&User>,
    ) -> Reply {
        let mut rb = self.request(method, path, user);
        if let Some(body) = body {
            rb = rb.json(body);
        }
        Reply::from(rb.send().await.expect("request sent")).await
    }

    pub async fn get(&self, path: &str, user: Option<&User>) -> Reply {
        self.send(Method::GET, path, None::<&()>, user).await
    }

    pub async fn post(&self, path: &str, body: &(impl Serialize + ?Sized), user: Option<&User>) -> Reply {
        self.send(Method::POST, path, Some(body), user).await
    }

    pub async fn patch(&self, path: &str, body: &(impl Serialize + ?Sized), user: Option<&User>) -> Reply {
        self.send(Method::PATCH, path, Some(body), user).await
    }

    pub async fn put(&self, path: &str, body: &(impl Serialize + ?Sized), user: Option<&User>) -> Reply {
        self.send(Method::PUT, path, Some(body), user).await
    }

    /// A signed-in user with one verified email, who calls no route yet (see
    /// [`TestApp::recipient`] and [`TestApp::owner`] for those who do).
    pub async fn user(&self, email: &str) -> User {
        self.clerk.user(email).await
    }

    /// A signed-in user with one verified email, speaking the `/api/me` routes.
    pub async fn recipient(&self, email: &str) -> Recipient {
        self.as_recipient(self.user(email).await)
    }

    pub fn as_recipient(&self, user: User) -> Recipient {
        Recipient::new(self.clone(), user)
    }

    /// A signed-in owner of a new workspace; returns the owner and the workspace id.
    pub async fn owner(&self, email: &str) -> (Owner, Uuid) {
        let user = self.user(email).await;
        let ws = bootstrap_owner(&self.db_url, &user.user_id).await;
        (self.as_owner(user), ws)
    }

    /// A fresh app with an owner (and their workspace) and `email` signed in as a
    /// recipient: the cast of most redemption and content tests.
    pub async fn owner_and_recipient(email: &str) -> (TestApp, Owner, Uuid, Recipient) {
        let app = TestApp::spawn().await;
        let (owner, ws) = app.owner("owner@example.com").await;
        let recipient = app.recipient(email).await;
        (app, owner, ws, recipient)
    }

    /// `user` speaking the owner routes (whether or not they are an owner).
    pub fn as_owner(&self, user: User) -> Owner {
        Owner::new(self.clone(), user)
    }
}

/// Polls `check` every 25 ms until it gives a value, for at most `deadline`; panics
/// with `what` when it never does. For conditions that become true by themselves (a
/// process up, a session queued, a cache refreshed), never to order two requests.
pub async fn eventually<T, F: Future<Output = Option<T>>>(
    what: &str,
    deadline: Duration,
    mut check: impl FnMut() -> F,
) -> T {
    let until = tokio::time::Instant::now() + deadline;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(tokio::time::Instant::now() < until, "not within {deadline:?}: {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Pages (buffers) `tx` has read so far from `tables` and all their indexes — how a test
/// shows a statement reads a few pages rather than one per row.
pub async fn pages_read(tx: &tokio_postgres::Transaction<'_>, tables: &[&str]) -> i64 {
    let sql = "SELECT sum(pg_stat_get_xact_blocks_fetched(c.oid))::int8 FROM pg_class c \
               WHERE c.oid = ANY($1::text[]::regclass[]) \
                  OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = ANY($1::text[]::regclass[]))";
    tx.query_one(sql, &[&tables]).await.unwrap().get(0)
}

/// Waits, when the wall clock is within `margin` seconds of the end of a UTC period of
/// `period` seconds (a rate-limit minute, an intake hour), until the next period starts,
/// so a test that fills a per-period counter never straddles two periods. This waits out
/// a real window the server counts in; it orders nothing.
pub async fn clear_of_period_end(period: u64, margin: u64) {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let left = period - now % period;
    if left <= margin {
        tokio::time::sleep(Duration::from_secs(left + 1)).await;
    }
}

/// Issue 12, item 12: a rate-limit 429 says how long until the window that refused
/// frees — the fixed UTC window of `period` seconds the server counts in — not a constant.
pub fn assert_retry_after_is_the_windows_end(r: &Reply, period: u64) {
    r.assert(429);
    let said: u64 = r.header("retry-after").expect("a Retry-After").parse().expect("whole seconds");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let left = period - now % period;
    assert!(said.abs_diff(left) <= 2, "Retry-After {said}, but the window frees in {left} s");
}
