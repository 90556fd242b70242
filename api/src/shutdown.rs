//! Graceful shutdown on SIGTERM (systemd's stop) or SIGINT. Policy, in order:
//! 1. stop accepting: the listeners close at once, so a new connection is refused and a
//!    proxy retries it on another instance;
//! 2. finish what is in flight, for at most [`DRAIN_TIMEOUT`]: actix-web (actix-http
//!    3.20, pinned by Cargo.lock) drains each keep-alive connection — the request being
//!    served completes, then the connection closes instead of waiting for another — so no
//!    client sends a request on a connection that is about to go (e2e/tests/deploy
//!    shows both under load);
//! 3. at the same time tell background workers to stop claiming work (the
//!    [`Shutdown`] token they hold is cancelled) and wait for them for at most
//!    [`WORKER_TIMEOUT`];
//! 4. close the database pool.
//!
//! A background worker is spawned through [`Shutdown::spawn_worker`] (reach it as
//! `state.shutdown`), finishes the item it holds and returns when the token is cancelled:
//! ```ignore
//! state.shutdown.spawn_worker("outbox delivery", move |stop| async move {
//!     while !stop.is_cancelled() {
//!         tokio::select! {
//!             _ = stop.cancelled() => break,
//!             claimed = claim_next(&pool) => deliver(claimed).await, // not interrupted
//!         }
//!     }
//! });
//! ```

use actix_web::dev::{Server, ServerHandle};
use futures_util::future::{join, join_all, try_join_all};
use std::future::Future;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How long requests in flight may take to finish once shutdown begins.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// How long background workers may take to put down their current item.
pub const WORKER_TIMEOUT: Duration = Duration::from_secs(10);

/// The shutdown signal background workers observe, and the set of them to wait for.
#[derive(Clone, Default)]
pub struct Shutdown {
    token: CancellationToken,
    workers: TaskTracker,
}

impl Shutdown {
    pub fn new() -> Shutdown {
        Shutdown::default()
    }

    /// Cancelled when shutdown begins.
    pub fn token(&self) -> CancellationToken {
        self.token.clone()
    }

    /// True from the moment shutdown begins.
    pub fn is_draining(&self) -> bool {
        self.token.is_cancelled()
    }

    /// Runs a background worker that shutdown waits for; it gets the token to observe.
    pub fn spawn_worker<F, Fut>(&self, name: &'static str, worker: F)
    where
        F: FnOnce(CancellationToken) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let run = worker(self.token.clone());
        self.workers.spawn(async move {
            run.await;
            tracing::info!(worker = name, "background worker stopped");
        });
    }

    fn begin(&self) {
        self.token.cancel();
    }

    /// Waits for the workers; false if one was still running at the bound.
    async fn stop_workers(&self, bound: Duration) -> bool {
        self.workers.close();
        tokio::time::timeout(bound, self.workers.wait()).await.is_ok()
    }
}

/// Resolves on SIGTERM or SIGINT.
pub async fn signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = term.recv() => tracing::info!("SIGTERM: shutting down"),
                _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT: shutting down"),
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "cannot listen for SIGTERM; only SIGINT stops the server gracefully");
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// Runs the servers until `stop` resolves, then shuts down in the order above.
pub async fn serve_until(
    servers: Vec<Server>,
    shutdown: &Shutdown,
    pool: &deadpool_postgres::Pool,
    stop: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let handles: Vec<ServerHandle> = servers.iter().map(Server::handle).collect();
    let serving = try_join_all(servers);
    tokio::pin!(serving);
    let served = tokio::select! {
        result = &mut serving => result,
        () = stop => {
            shutdown.begin();
            let stopping = join_all(handles.iter().map(|h| h.stop(true)));
            join(&mut serving, stopping).await.0
        }
    };
    shutdown.begin();
    let workers_stopped = shutdown.stop_workers(WORKER_TIMEOUT).await;
    pool.close();
    tracing::info!(workers_stopped, "shutdown complete: requests drained, pool closed");
    served.map(|_| ())
}
