//! Arranging and asserting through SQL, for state the HTTP contract cannot reach in a
//! test's time (an expired invitation, a corrupted counter) and for what only the
//! database can show (rows written, digests stored). One shared connection per app.

use super::{db, TestApp};
use tokio_postgres::types::{FromSql, ToSql};
use uuid::Uuid;

/// The queue of the program `$1` as the admission reads it (V145): its entry counts but
/// withdrawn, a `bigint`. For a test's own statements: `format!("SELECT {QUEUE_OF}, …")`.
pub const QUEUE_OF: &str =
    "(SELECT coalesce(sum(n), 0)::bigint FROM program_entry_counts WHERE program_id = $1 AND state <> 'withdrawn')";

/// Parameters of an arranging or asserting SQL statement.
pub type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

impl TestApp {
    /// A new database connection of its own (for transactions a test holds open).
    pub async fn db(&self) -> tokio_postgres::Client {
        db::connect(&self.db_url).await
    }

    /// The one shared connection that arranging and asserting statements use.
    async fn sql(&self) -> &tokio_postgres::Client {
        self.sql.get_or_init(|| db::connect(&self.db_url)).await
    }

    /// Runs an arranging statement; returns the rows it touched.
    pub async fn exec(&self, sql: &str, params: Params<'_>) -> u64 {
        self.sql().await.execute(sql, params).await.unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// The one row of a query.
    pub async fn row(&self, sql: &str, params: Params<'_>) -> tokio_postgres::Row {
        self.sql().await.query_one(sql, params).await.unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// Every row of a query.
    pub async fn rows(&self, sql: &str, params: Params<'_>) -> Vec<tokio_postgres::Row> {
        self.sql().await.query(sql, params).await.unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// The one value of a one-row, one-column query.
    pub async fn scalar<T: for<'r> FromSql<'r>>(&self, sql: &str, params: Params<'_>) -> T {
        self.row(sql, params).await.get(0)
    }

    /// The first column of every row of a query, in its order.
    pub async fn column<T: for<'r> FromSql<'r>>(&self, sql: &str, params: Params<'_>) -> Vec<T> {
        self.rows(sql, params).await.iter().map(|r| r.get(0)).collect()
    }

    /// A redeemed invitation and its active grant for `entry`, written by SQL (the entry's
    /// state is the caller's to set); returns (invitation id, grant id).
    pub async fn grant_by_sql(&self, program: Uuid, entry: Uuid, clerk_user_id: &str) -> (Uuid, Uuid) {
        let invitation: Uuid = self
            .scalar(
                "INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at, terminal_at) \
                 VALUES ($1, $2, gen_random_bytes(32), 'redeemed', now(), now() + interval '7 days', now()) RETURNING id",
                &[&program, &entry],
            )
            .await;
        let grant: Uuid = self
            .scalar(
                "INSERT INTO grants (program_id, entry_id, invitation_id, clerk_user_id, granted_at) \
                 VALUES ($1, $2, $3, $4, now()) RETURNING id",
                &[&program, &entry, &invitation, &clerk_user_id],
            )
            .await;
        (invitation, grant)
    }

    /// The id of the entry with this email, read from the database.
    pub async fn entry_id(&self, program: Uuid, email: &str) -> Uuid {
        self.scalar("SELECT id FROM entries WHERE program_id = $1 AND email_key = $2", &[&program, &email]).await
    }
}
