//! The connection pool across actix workers: each worker runs its own runtime and stops
//! on its own at shutdown, while the pool is shared (api/src/db/connect.rs).

use crate::support::db;

/// A worker thread with its own runtime makes the pool's only connection and returns
/// it; another request takes it; then that worker stops (as an idle actix worker does
/// during a graceful shutdown). The request in flight must still have a live connection.
#[test]
fn a_pooled_connection_outlives_the_worker_runtime_that_made_it() {
    let main = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let url = main.block_on(db::fresh_database());
    let pool = main.block_on(async { api::db::pool(&url, 1).unwrap() });

    let (made_tx, made_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let worker_pool = pool.clone();
    let worker = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let client = worker_pool.get().await.unwrap();
            client.query_one("SELECT 1", &[]).await.unwrap();
        });
        made_tx.send(()).unwrap();
        let _ = stop_rx.recv();
        drop(runtime); // the worker stops
    });
    made_rx.recv().unwrap();

    main.block_on(async {
        let client = pool.get().await.unwrap();
        stop_tx.send(()).unwrap();
        worker.join().unwrap();
        client.query_one("SELECT 1", &[]).await.expect("the connection survives its maker's runtime");
    });
}

/// Statements joined into one pipeline reach the server in argument order only when none
/// is still to be prepared: a statement already in the connection's cache goes out at
/// once, ahead of an earlier one still waiting for its prepare. `db::prepare_all` (used
/// before every pipeline that takes locks, `db::redemptions`) closes that gap. Here the
/// second statement reads what the first sets, and only the second is cached.
#[tokio::test]
async fn a_pipeline_keeps_its_order_once_every_statement_is_prepared() {
    const SET: &str = "SELECT set_config('vt.order', $1, true)";
    const READ: &str = "SELECT current_setting('vt.order', true)";
    let url = db::app_url(&db::fresh_database().await).await;
    for (n, prepare_first) in [(1, false), (2, true)] {
        // A fresh pool: an empty statement cache, then READ alone cached.
        let pool = api::db::pool(&url, 1).unwrap();
        let read = api::db::transaction(&pool, async |tx| {
            tx.prepare_cached(READ).await?;
            if prepare_first {
                api::db::prepare_all(tx, &[SET, READ]).await?;
            }
            let value = format!("set-{n}");
            let (set, read) =
                futures::join!(async { tx.query_one(&tx.prepare_cached(SET).await?, &[&value]).await }, async {
                    tx.query_one(&tx.prepare_cached(READ).await?, &[]).await
                },);
            set?;
            Ok::<_, api::db::DbError>(read?.get::<_, Option<String>>(0))
        })
        .await
        .unwrap();
        match prepare_first {
            // The hazard this guards against is real: the cached read went first.
            false => assert_ne!(read.as_deref(), Some("set-1"), "the cached statement should have overtaken"),
            true => assert_eq!(read.as_deref(), Some("set-2"), "prepared first, the pipeline keeps its order"),
        }
    }
}
