//! What every request and background task can reach: the settings, the database pool
//! and the identity provider's clients. Built once by `startup`, shared by reference —
//! but for `pool` and `hits`: each HTTP worker holds a copy with its own pool and its own
//! rate-limit lanes on it ([`AppState::for_worker`]). The admission lanes stay one set per
//! instance, on the main runtime (`crate::group`).

use crate::config::Settings;
use crate::identity::Identity;
use crate::shutdown::Shutdown;
use deadpool_postgres::Pool;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub settings: Settings,
    /// On an HTTP worker, that worker's pool, whose connections are driven on the
    /// worker's own thread; everywhere else (batches, background tasks, the metrics
    /// listener), the pool of the server's main runtime (`startup`).
    pub pool: Pool,
    /// The main runtime's pool, whose connections are driven by threads that serve no
    /// requests, entered through a gate per workspace ([`crate::gates`]): for
    /// transactions that hold a contended lock over several round trips (a redemption
    /// holds its program's row while it reads, decides and writes), so that each next
    /// statement goes out at once, not after the worker's other requests (measured, issue
    /// 28: on the worker's own pool, redemptions into one program at 64 clients fell 325 →
    /// 291 req/s, p99 285 → 391–454 ms), and so that one workspace's wave of them leaves
    /// the admission batches of the others, and the outbox, a connection.
    pub redemptions: crate::gates::GatedPool,
    /// Public signups, admitted in per-workspace batches on the main runtime's pool
    /// ([`crate::group`]), one set of lanes for the whole instance.
    pub admitter: crate::group::Admitter,
    /// Rate-limit hits of one counter, counted together on `pool` ([`crate::hits`]): on an
    /// HTTP worker, its own lanes on its own pool.
    pub hits: crate::hits::Hits,
    pub identity: Arc<Identity>,
    /// Seals and opens webhook and admission-hook secrets (`SECRETS_KEYS`).
    pub keyring: crate::secrets::Keyring,
    /// Cancelled when shutdown begins: background workers observe it and are spawned
    /// through it, so shutdown waits for them ([`crate::shutdown`]).
    pub shutdown: Shutdown,
}

impl AppState {
    /// This state with `pool` as its pool, and rate-limit lanes of its own on it: an HTTP
    /// worker's copy, made on the worker's thread (`startup::serve`).
    pub fn for_worker(&self, pool: Pool) -> Self {
        Self { hits: crate::hits::Hits::new(pool.clone()), pool, ..self.clone() }
    }
}
