//! A fresh database per test, made on the PostgreSQL at `TEST_DATABASE_URL` (default
//! the local server as `postgres`), and the login the server uses on it.
//!
//! **Test as it ships.** In production the migrations run as the database owner and the
//! server logs in as a member of `vestibule_app` (README, "Database roles"). So here:
//! [`fresh_database`] answers the *owner's* URL of a database that is already migrated
//! (the test arranges and asserts through it, and the CLI runs with it, as the operator
//! does), and every server a test starts gets [`app_url`] of it instead — the same
//! database, logged in as [`APP_LOGIN`], a login role whose only rights are membership of
//! `vestibule_app`. A privilege the app role lacks is then a failing test, not a 500
//! only production would see.
//!
//! Databases are named `vt_<unix seconds>_<uuid>`; the test command drops leftovers older
//! than a few hours before a run, so several checkouts can run their suites against one
//! server at once. Migrating every test's database from scratch costs about a second, so
//! the migrations are applied once into a template, `vt_<unix seconds>_tpl<fingerprint>`
//! (the fingerprint is a digest of the migration files, so a checkout with other
//! migrations builds its own), and each test's database is a copy of it.

use tokio_postgres::NoTls;

/// The login role every test server uses: `LOGIN`, a member of `vestibule_app`, nothing
/// else. Roles are cluster-wide, so it is made once per cluster ([`app_url`]).
pub const APP_LOGIN: &str = "vestibule_test_login";
const APP_PASSWORD: &str = "vestibule_test_login";

pub fn server_url() -> String {
    std::env::var("TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into())
}

pub async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await.expect("connect to test database");
    tokio::spawn(connection);
    client
}

fn unique_name(kind: &str) -> String {
    let created = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    format!("vt_{created}_{kind}{}", uuid::Uuid::new_v4().simple())
}

/// A new, empty database (no schema): for restores and for upgrade tests that apply
/// migrations of their own. Answers the owner's URL.
pub async fn empty_database() -> String {
    let name = unique_name("");
    let admin = connect(&format!("{}/postgres", server_url())).await;
    admin.batch_execute(&format!("CREATE DATABASE {name}")).await.expect("create test database");
    format!("{}/{name}", server_url())
}

/// A new database with every migration applied, as `vestibule migrate` run by the owner
/// leaves it. Answers the owner's URL; give a server [`app_url`] of it.
pub async fn fresh_database() -> String {
    let template = template().await;
    let name = unique_name("");
    let admin = connect(&format!("{}/postgres", server_url())).await;
    admin.batch_execute(&format!("CREATE DATABASE {name} TEMPLATE {template}")).await.expect("create test database");
    format!("{}/{name}", server_url())
}

/// The migrated template of this checkout's migrations, built once per server under an
/// advisory lock (test processes run in parallel; the first one builds it).
async fn template() -> String {
    let fingerprint = migrations_fingerprint();
    let admin = connect(&format!("{}/postgres", server_url())).await;
    let find = || async {
        admin
            .query_opt(
                "SELECT datname FROM pg_database WHERE datname LIKE 'vt\\_%\\_tpl' || $1 ORDER BY datname DESC LIMIT 1",
                &[&fingerprint],
            )
            .await
            .expect("look up the template")
            .map(|r| r.get::<_, String>(0))
    };
    if let Some(name) = find().await {
        return name;
    }
    admin.batch_execute("SELECT pg_advisory_lock(hashtext('vestibule.test.template'))").await.unwrap();
    if let Some(name) = find().await {
        admin.batch_execute("SELECT pg_advisory_unlock(hashtext('vestibule.test.template'))").await.unwrap();
        return name;
    }
    // Built under a scratch name and renamed when complete, so no test ever copies a
    // half-migrated template.
    let building = unique_name("building");
    admin.batch_execute(&format!("CREATE DATABASE {building}")).await.expect("create the template");
    let url = format!("{}/{building}", server_url());
    api::db::migrate(&url).await.expect("migrate the template");
    ensure_app_login(&admin).await;
    let created = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let name = format!("vt_{created}_tpl{fingerprint}");
    admin.batch_execute(&format!("ALTER DATABASE {building} RENAME TO {name}")).await.expect("rename the template");
    admin.batch_execute("SELECT pg_advisory_unlock(hashtext('vestibule.test.template'))").await.unwrap();
    name
}

/// A digest of the migration files (names and contents): a template is reused only by
/// checkouts with exactly these migrations.
fn migrations_fingerprint() -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the migrations directory")
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    for f in files {
        ctx.update(f.file_name().unwrap().as_encoded_bytes());
        ctx.update(&std::fs::read(&f).unwrap());
    }
    ctx.finish().as_ref()[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Makes [`APP_LOGIN`] on the cluster `client` is connected to (as a role that may), when it is missing (it needs the
/// `vestibule_app` role, which migration V2 makes). Safe to race: roles are cluster-wide
/// and several test processes may get here at once.
pub async fn ensure_app_login(client: &tokio_postgres::Client) {
    let sql = format!(
        "DO $$ BEGIN
           IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_LOGIN}') THEN
             CREATE ROLE {APP_LOGIN} LOGIN PASSWORD '{APP_PASSWORD}' NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT;
           END IF;
           IF NOT pg_has_role('{APP_LOGIN}', 'vestibule_app', 'MEMBER') THEN
             GRANT vestibule_app TO {APP_LOGIN};
           END IF;
         EXCEPTION WHEN duplicate_object OR unique_violation OR internal_error THEN NULL;
         END $$;"
    );
    // A racing process made the role (or the grant) first: the statement above gave up,
    // and the state it wanted exists; check rather than trust that.
    client.batch_execute(&sql).await.expect("create the app login");
    let member: bool = client
        .query_one(&format!("SELECT pg_has_role('{APP_LOGIN}', 'vestibule_app', 'MEMBER')"), &[])
        .await
        .map(|r| r.get(0))
        .unwrap_or(false);
    if !member {
        client.batch_execute(&format!("GRANT vestibule_app TO {APP_LOGIN}")).await.expect("grant vestibule_app");
    }
}

/// The URL a server uses on the database at `owner_url`: the same host and database,
/// logged in as [`APP_LOGIN`]. Makes the login when the cluster lacks it; the database
/// must be migrated already (production's server cannot migrate: [`prepare`]).
pub async fn app_url(owner_url: &str) -> String {
    ensure_app_login(&connect(owner_url).await).await;
    let mut url = reqwest::Url::parse(owner_url).expect("a database URL");
    url.set_username(APP_LOGIN).expect("a URL with a host");
    url.set_password(Some(APP_PASSWORD)).expect("a URL with a host");
    url.to_string()
}

/// Migrates the database at `owner_url` as its owner (a no-op when it is up to date) and
/// answers the app login's URL of it: what an operator does before starting a server.
pub async fn prepare(owner_url: &str) -> String {
    api::db::migrate(owner_url).await.expect("migrate as the owner");
    app_url(owner_url).await
}
