//! Deterministic race orders: a separate connection holds a row lock while the test
//! sends requests one after another, waiting until each is queued on a lock, then
//! releases — PostgreSQL then grants the lock in arrival order.

use std::future::Future;
use std::time::Duration;

pub struct LockHolder {
    client: tokio_postgres::Client,
    db_url: String,
}

impl LockHolder {
    /// Begins a transaction and locks the row `SELECT … FROM {table} WHERE id = $1 FOR UPDATE`.
    pub async fn lock(db_url: &str, table: &str, id: uuid::Uuid) -> LockHolder {
        let client = super::db::connect(db_url).await;
        client.batch_execute("BEGIN").await.unwrap();
        client.query_one(&format!("SELECT 1 FROM {table} WHERE id = $1 FOR UPDATE"), &[&id]).await.unwrap();
        LockHolder { client, db_url: db_url.to_owned() }
    }

    /// Waits until `n` other sessions of this database are waiting on a lock.
    pub async fn wait_for_waiters(&self, n: i64) {
        let observer = super::db::connect(&self.db_url).await;
        for _ in 0..400 {
            let waiting: i64 = observer
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
                    &[],
                )
                .await
                .unwrap()
                .get(0);
            if waiting >= n {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("fewer than {n} sessions queued on a lock");
    }

    pub async fn release(&self) {
        self.client.batch_execute("COMMIT").await.unwrap();
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
