//! Deterministic race orders: a separate connection holds a lock while the test sends
//! requests one after another, waiting until each is queued on a lock (as
//! `pg_stat_activity` shows), then releases — PostgreSQL then grants the lock in arrival
//! order. No sleep decides an order.

use chrono::{DateTime, Utc};
use std::future::Future;
use std::time::Duration;

pub struct LockHolder {
    client: tokio_postgres::Client,
    db_url: String,
}

impl LockHolder {
    /// Begins a transaction and locks the row `SELECT … FROM {table} WHERE id = $1 FOR UPDATE`.
    pub async fn lock(db_url: &str, table: &str, id: uuid::Uuid) -> LockHolder {
        let sql = format!("SELECT 1 FROM {table} WHERE id = $1 FOR UPDATE");
        Self::holding(db_url, &sql, &[&id]).await
    }

    /// Begins a transaction and runs `sql` in it, keeping whatever locks it took (an
    /// uncommitted insert, say) until [`LockHolder::release`].
    pub async fn holding(db_url: &str, sql: &str, params: super::Params<'_>) -> LockHolder {
        let client = super::db::connect(db_url).await;
        client.batch_execute("BEGIN").await.unwrap();
        let rows = client.execute(sql, params).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(rows, 1, "the held statement touches one row: {sql}");
        LockHolder { client, db_url: db_url.to_owned() }
    }

    /// Waits until `n` other sessions of this database are waiting on a lock.
    pub async fn wait_for_waiters(&self, n: i64) {
        let observer = super::db::connect(&self.db_url).await;
        let sql =
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
        super::eventually(&format!("{n} sessions queued on a lock"), Duration::from_secs(10), || async {
            let waiting: i64 = observer.query_one(sql, &[]).await.unwrap().get(0);
            (waiting >= n).then_some(())
        })
        .await;
    }

    /// The database clock (`clock_timestamp()`) as the holder sees it, still holding.
    pub async fn clock(&self) -> DateTime<Utc> {
        self.client.query_one("SELECT clock_timestamp()", &[]).await.unwrap().get(0)
    }

    pub async fn release(&self) {
        self.client.batch_execute("COMMIT").await.unwrap();
    }

    /// Runs `request` while the lock is held: waits until it is queued behind the lock,
    /// reads the database clock, then releases. Returns the request's output and the
    /// clock just before the release.
    pub async fn queued<A: Future>(&self, request: A) -> (A::Output, DateTime<Utc>) {
        let (out, released) = tokio::join!(request, async {
            self.wait_for_waiters(1).await;
            let at = self.clock().await;
            self.release().await;
            at
        });
        (out, released)
    }

    /// Runs `first` until it waits on a lock, then `second` until it waits too, then
    /// releases the held lock, so the two proceed in that order.
    pub async fn in_order<A: Future, B: Future>(&self, first: A, second: B) -> (A::Output, B::Output) {
        let (a, b, ()) = tokio::join!(
            first,
            async {
                self.wait_for_waiters(1).await;
                second.await
            },
            async {
                self.wait_for_waiters(2).await;
                self.release().await
            }
        );
        (a, b)
    }
}
