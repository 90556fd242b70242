//! Where pooled connections live. Policy: every connection is made, and its I/O driven,
//! on the runtime that built its pool, never on another thread's. The main runtime's pool
//! (batches, background work) lives there; each HTTP worker builds a pool of its own on
//! its own thread (`startup::serve`), used by its own requests only. So at shutdown, when
//! each worker stops as soon as its own requests are done, no connection dies under
//! another worker's request in flight — as one made on the worker that first needed it,
//! in a pool that all workers shared, once could.

use deadpool_postgres::Connect;
use futures_util::future::BoxFuture;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;
use tokio_postgres::{Client, Config, NoTls};

pub(super) struct OnRuntime(pub(super) Handle);

impl Connect for OnRuntime {
    fn connect(&self, config: &Config) -> BoxFuture<'_, Result<(Client, JoinHandle<()>), tokio_postgres::Error>> {
        let config = config.clone();
        let runtime = self.0.clone();
        Box::pin(async move {
            let connecting = runtime.spawn(async move { config.connect(NoTls).await });
            let (client, connection) = match connecting.await {
                Ok(result) => result?,
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                // Only when the main runtime is going away, i.e. the process is exiting.
                Err(_) => panic!("the server's runtime stopped while a database connection was being made"),
            };
            let task = runtime.spawn(async move {
                if let Err(e) = connection.await {
                    tracing::warn!(error = %e, "database connection ended");
                }
            });
            Ok((client, task))
        })
    }
}
