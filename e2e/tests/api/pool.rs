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
