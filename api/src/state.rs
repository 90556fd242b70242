//! What every request and background task can reach: the settings, the database pool
//! and the identity provider's clients. Built once by `startup`, shared by reference.

use crate::config::Settings;
use crate::identity::Identity;
use crate::shutdown::Shutdown;
use deadpool_postgres::Pool;

pub struct AppState {
    pub settings: Settings,
    pub pool: Pool,
    /// Public signups, admitted in per-workspace batches on `pool` ([`crate::group`]).
    pub admitter: crate::group::Admitter,
    /// Rate-limit hits of one counter, counted together on `pool` ([`crate::hits`]).
    pub hits: crate::hits::Hits,
    pub identity: Identity,
    /// Seals and opens webhook and admission-hook secrets (`SECRETS_KEYS`).
    pub keyring: crate::secrets::Keyring,
    /// Cancelled when shutdown begins: background workers observe it and are spawned
    /// through it, so shutdown waits for them ([`crate::shutdown`]).
    pub shutdown: Shutdown,
}
