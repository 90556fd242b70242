//! A fresh database per test, made on the PostgreSQL at `TEST_DATABASE_URL` (default
//! the local server as `postgres`). Databases are named `vt_<unix seconds>_<uuid>`; the
//! test command drops leftovers older than a few hours before a run, so several checkouts
//! can run their suites against one server at once.

use tokio_postgres::NoTls;

pub fn server_url() -> String {
    std::env::var("TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into())
}

pub async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await.expect("connect to test database");
    tokio::spawn(connection);
    client
}

pub async fn fresh_database() -> String {
    let created = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let name = format!("vt_{created}_{}", uuid::Uuid::new_v4().simple());
    let admin = connect(&format!("{}/postgres", server_url())).await;
    admin.batch_execute(&format!("CREATE DATABASE {name}")).await.expect("create test database");
    format!("{}/{name}", server_url())
}
