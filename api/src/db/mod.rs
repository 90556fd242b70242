//! The data layer: pool, migrations, the one transaction helper every writer uses, and
//! one module per table family holding SQL and row structs. It speaks SQL only: no
//! status code, no wire type; failures are [`DbError`]. Policy (SPEC §5):
//! `BEGIN ISOLATION LEVEL READ COMMITTED`, locks first in the global order workspace →
//! program → entry → invitation → grant, then fresh reads; a failure that asks for it
//! retries the whole closure a bounded number of times; every session has finite lock
//! and statement timeouts. No network call inside a transaction.

mod error;

pub mod admission_hook;
pub mod api_keys;
pub mod audit;
pub mod audit_chain;
pub mod clerk_sync;
pub mod clerk_sync_log;
pub mod cohorts;
mod connect;
pub mod content;
pub mod draws;
pub mod early_access;
pub mod entries;
pub mod erasure;
pub mod grants;
pub mod invitations;
pub mod locks;
pub mod outbox;
pub mod owner_receipts;
pub mod personal_data;
pub mod pow;
pub mod programs;
pub mod queue;
pub mod rate_limits;
pub mod redemptions;
pub mod sealed;
pub mod server_api;
pub mod signups;
pub mod staff;
pub mod webhooks;
pub mod workspace_audit;

pub use error::DbError;

/// Every function here answers in [`DbError`].
pub type Result<T, E = DbError> = std::result::Result<T, E>;

use deadpool_postgres::{Client, Manager, ManagerConfig, Pool, RecyclingMethod, Transaction};
use std::time::Duration;
use tokio_postgres::{IsolationLevel, NoTls};

mod embedded {
    refinery::embed_migrations!("../migrations");
}

/// Session settings every pooled connection starts with.
const SESSION_OPTIONS: &str =
    "-c lock_timeout=5000 -c statement_timeout=15000 -c idle_in_transaction_session_timeout=30000 -c TimeZone=UTC";

/// How many times a transaction is run in all when its error asks for a retry.
pub const MAX_ATTEMPTS: u32 = 5;

pub fn pool(database_url: &str, size: usize) -> anyhow::Result<Pool> {
    let mut config: tokio_postgres::Config = database_url.parse()?;
    let options = match config.get_options() {
        Some(existing) => format!("{existing} {SESSION_OPTIONS}"),
        None => SESSION_OPTIONS.to_owned(),
    };
    config.options(&options);
    config.application_name("vestibule");
    // Each host of a multi-host URL (primary and standby, `target_session_attrs=read-write`)
    // gets its own connect timeout, and making a connection may try them all: a primary
    // that is gone without refusing (powered off) must not use up the whole budget before
    // the promoted standby is tried. The URL's own `connect_timeout` wins.
    let connect_timeout = config.get_connect_timeout().copied().unwrap_or(Duration::from_secs(5));
    config.connect_timeout(connect_timeout);
    let hosts = u32::try_from(config.get_hosts().len().max(config.get_hostaddrs().len()).max(1)).unwrap_or(1);
    let create_timeout = connect_timeout * hosts + Duration::from_secs(1);
    let manager_config = ManagerConfig { recycling_method: RecyclingMethod::Fast };
    let manager = match tokio::runtime::Handle::try_current() {
        Ok(runtime) => Manager::from_connect(config, connect::OnRuntime(runtime), manager_config),
        Err(_) => Manager::from_config(config, NoTls, manager_config),
    };
    // Last in, first out: the connection handed out is the one most recently put back, so
    // at any load below the pool's size the same few backends do the work, with their
    // caches (plans, catalog, the CPU's own) warm, instead of every request waking the
    // least recently used of sixteen (issue 28: PostgreSQL's CPU per lone signup, 1.35 ms
    // per `admit_signups` call through the API against 0.6 ms from one pgbench connection).
    Ok(Pool::builder(manager)
        .max_size(size)
        .queue_mode(deadpool_postgres::QueueMode::Lifo)
        .wait_timeout(Some(Duration::from_secs(10)))
        .create_timeout(Some(create_timeout))
        .recycle_timeout(Some(Duration::from_secs(5)))
        .runtime(deadpool_postgres::Runtime::Tokio1)
        .build()?)
}

/// Applies the numbered migrations in `migrations/` that the database lacks.
///
/// When none is missing it changes nothing — not even refinery's `CREATE TABLE IF NOT
/// EXISTS` of its history table — so `serve` starts as the production app role, which
/// may not create tables (migrations run as the database owner, README "Production").
/// Migrations this binary does not know are allowed: during a rolling upgrade the new
/// release's expand migrations are applied while old instances still run and restart.
/// A known version whose SQL differs from what was applied is refused.
///
/// Versions below the newest applied one are applied too (ascending, each in one
/// transaction with its history row, before refinery applies the newer ones): features
/// reserve number ranges and land in any order (migrations/README.md), so a database
/// migrated by an earlier build can hold V60 and lack V20–V52. refinery alone, with
/// `abort_missing` off for the rolling-upgrade case above, would skip them silently.
pub async fn migrate(database_url: &str) -> anyhow::Result<()> {
    migrate_versions(database_url, |_| true).await
}

/// [`migrate`] with only the known versions `keep` accepts: for the upgrade tests, which
/// start from the schema of an earlier build.
#[doc(hidden)]
pub async fn migrate_versions(database_url: &str, keep: impl Fn(u32) -> bool) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let (mut client, connection) = tokio_postgres::connect(database_url, NoTls).await?;
    let handle = tokio::spawn(connection);
    let all = embedded::migrations::runner().get_migrations().clone();
    let known: Vec<refinery::Migration> = all.into_iter().filter(|m| keep(m.version())).collect();
    let runner = refinery::Runner::new(&known).set_abort_missing(false);
    let known = runner.get_migrations();
    // Fails when the history table does not exist yet: then everything is pending.
    if let Ok(applied) = runner.get_applied_migrations_async(&mut client).await {
        for a in &applied {
            if known.iter().any(|k| k.version() == a.version() && k.checksum() != a.checksum()) {
                anyhow::bail!("migration V{} in the database differs from this binary's", a.version());
            }
        }
        let pending = known.iter().filter(|k| !applied.iter().any(|a| a.version() == k.version())).count();
        let newer: Vec<u32> =
            applied.iter().map(|a| a.version()).filter(|v| !known.iter().any(|k| k.version() == *v)).collect();
        if !newer.is_empty() {
            tracing::warn!(versions = ?newer, "the database has migrations of a newer release; running on its expanded schema");
        }
        if pending == 0 {
            drop(client);
            let _ = handle.await;
            return Ok(());
        }
        let newest = applied.iter().map(|a| a.version()).max().unwrap_or(0);
        let mut gaps: Vec<&refinery::Migration> = known
            .iter()
            .filter(|k| k.version() < newest && !applied.iter().any(|a| a.version() == k.version()))
            .collect();
        gaps.sort_by_key(|m| m.version());
        for m in gaps {
            apply_gap(&mut client, m).await.with_context(|| format!("applying migration V{}", m.version()))?;
            tracing::info!(migration = %m.name(), version = m.version(), "applied migration below the newest applied one");
        }
    }
    let report = runner
        .run_async(&mut client)
        .await
        .context("applying migrations (in production run `vestibule migrate` as the database owner first)")?;
    for m in report.applied_migrations() {
        tracing::info!(migration = %m.name(), version = m.version(), "applied migration");
    }
    drop(client);
    let _ = handle.await;
    Ok(())
}

/// Applies one migration older than the newest applied one, with the history row refinery
/// would write, in one transaction; a concurrent `migrate` that got there first makes it
/// a no-op (the advisory lock orders them, the history row is read after it).
async fn apply_gap(client: &mut tokio_postgres::Client, m: &refinery::Migration) -> anyhow::Result<()> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock(hashtext('vestibule.migrate'))", &[]).await?;
    let version = i32::try_from(m.version())?;
    let done = tx.query_opt("SELECT 1 FROM refinery_schema_history WHERE version = $1", &[&version]).await?;
    if done.is_none() {
        tx.batch_execute(m.sql().unwrap_or_default()).await?;
        tx.execute(
            "INSERT INTO refinery_schema_history (version, name, applied_on, checksum) \
             VALUES ($1, $2, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), $3)",
            &[&version, &m.name(), &m.checksum().to_string()],
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The error type of a transaction body: a use case's own error, which can carry a
/// [`DbError`] and says whether the whole transaction should run again.
pub trait TxError: From<DbError> {
    /// Run the transaction again: a deadlock or serialization failure, or (for a body
    /// that decides on constraint races) a writer that got in first.
    fn retry(&self) -> bool;
}

impl TxError for DbError {
    fn retry(&self) -> bool {
        matches!(self, DbError::Retry)
    }
}

/// Prepares every statement of a pipeline (and caches it on this connection) before the
/// pipeline goes out. With all of them cached, each helper's `prepare_cached` answers at
/// once and writes its request when first polled, so statements joined with
/// `futures_util::join!` reach the server in argument order; one cache miss would let a
/// later statement (a later lock) go out before an earlier one.
pub async fn prepare_all(tx: &Transaction<'_>, sqls: &[&str]) -> Result<()> {
    futures_util::future::try_join_all(sqls.iter().map(|sql| tx.prepare_cached(sql))).await?;
    Ok(())
}

/// Runs `body` in one READ COMMITTED transaction on one pooled connection and commits.
/// The closure is run again from the start (a fresh transaction) when its error says
/// [`TxError::retry`], at most [`MAX_ATTEMPTS`] times in all, so it must decide
/// everything from what it reads inside.
pub async fn transaction<T, E, F>(pool: &Pool, body: F) -> Result<T, E>
where
    E: TxError,
    F: AsyncFnMut(&Transaction<'_>) -> Result<T, E>,
{
    let mut client = pool.get().await.map_err(DbError::from)?;
    transaction_on(&mut client, body).await
}

/// Runs `body` once in a `REPEATABLE READ READ ONLY` transaction on one pooled
/// connection: every statement reads the one snapshot taken by the first, so a long read
/// (the export, streamed while the client downloads it) is consistent without holding a
/// row lock that writers would wait behind. Read-only and lock-free, it cannot meet a
/// serialization failure, so it is never retried (a retry could repeat what was sent).
pub async fn snapshot<T, E, F>(pool: &Pool, body: F) -> Result<T, E>
where
    E: From<DbError>,
    F: AsyncFnOnce(&Transaction<'_>) -> Result<T, E>,
{
    let mut client = pool.get().await.map_err(DbError::from)?;
    let tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
        .map_err(DbError::from)?;
    let value = body(&tx).await?;
    tx.commit().await.map_err(DbError::from)?;
    Ok(value)
}

/// [`transaction`] on a connection the caller already holds (so one request uses one
/// connection for its reads before the transaction and the transaction itself).
pub async fn transaction_on<T, E, F>(client: &mut Client, mut body: F) -> Result<T, E>
where
    E: TxError,
    F: AsyncFnMut(&Transaction<'_>) -> Result<T, E>,
{
    retrying(async || {
        let tx = client.build_transaction().isolation_level(IsolationLevel::ReadCommitted).start().await;
        let tx = tx.map_err(DbError::from)?;
        match body(&tx).await {
            Ok(value) => tx.commit().await.map(|()| value).map_err(|e| E::from(e.into())),
            Err(e) => {
                // Dropping `tx` rolls back; do it explicitly to surface a dead connection.
                let _ = tx.rollback().await;
                Err(e)
            }
        }
    })
    .await
}

/// Runs `attempt` — one whole transaction, committed or rolled back when it returns —
/// again from the start when its error says [`TxError::retry`], at most
/// [`MAX_ATTEMPTS`] times in all, with a short growing pause between attempts.
pub async fn retrying<T, E, F>(mut attempt: F) -> Result<T, E>
where
    E: TxError,
    F: AsyncFnMut() -> Result<T, E>,
{
    let mut n = 1;
    loop {
        match attempt().await {
            Err(e) if e.retry() && n < MAX_ATTEMPTS => {
                n += 1;
                tokio::time::sleep(Duration::from_millis(5 * u64::from(n))).await;
            }
            Err(e) if e.retry() => return Err(DbError::Unavailable("transaction kept conflicting".into()).into()),
            other => return other,
        }
    }
}
