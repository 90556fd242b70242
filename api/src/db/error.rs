//! What the data layer says when a statement fails, in the terms a caller decides on:
//! run the transaction again, a unique constraint (by name) was hit, the database is
//! unavailable, or something else went wrong. Policy: the SQLSTATE and the constraint
//! name are kept for the log; a statement's parameters never are.

use tokio_postgres::error::SqlState;

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// A deadlock or a serialization failure: the whole transaction is safe to run again.
    #[error("transaction conflict; run it again")]
    Retry,
    /// A unique constraint, by name: another writer got there first.
    #[error("unique violation on {0}")]
    Unique(String),
    /// Unreachable, connection lost, out of connections or other resources, or busy past
    /// the lock/statement timeout: a 503.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("database error: {0}")]
    Other(String),
}

impl DbError {
    /// Whether this is a unique violation of `constraint`.
    pub fn is_unique(&self, constraint: &str) -> bool {
        matches!(self, DbError::Unique(c) if c == constraint)
    }
}

impl From<tokio_postgres::Error> for DbError {
    fn from(e: tokio_postgres::Error) -> Self {
        let constraint = || e.as_db_error().and_then(|d| d.constraint()).unwrap_or("-").to_owned();
        match e.code() {
            Some(c) if *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE => {
                DbError::Retry
            }
            Some(c) if *c == SqlState::UNIQUE_VIOLATION => DbError::Unique(constraint()),
            Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE || *c == SqlState::QUERY_CANCELED => {
                DbError::Unavailable(format!("database busy ({})", c.code()))
            }
            // 53: insufficient resources (too many connections, out of memory, disk full).
            Some(c) if c.code().starts_with("08") || c.code().starts_with("53") || c.code().starts_with("57") => {
                DbError::Unavailable(format!("database unavailable ({})", c.code()))
            }
            Some(c) => DbError::Other(format!("SQLSTATE {} on {}", c.code(), constraint())),
            None if e.is_closed() || is_io(&e) => DbError::Unavailable("database connection lost".into()),
            None => DbError::Other(format!("database client error: {e}")),
        }
    }
}

/// Whether a client error was caused by the connection (refused, reset, closed).
fn is_io(e: &tokio_postgres::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.is::<std::io::Error>() {
            return true;
        }
        source = s.source();
    }
    false
}

impl From<deadpool_postgres::PoolError> for DbError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        match e {
            // A connection that cannot be made is an outage, whatever the client says.
            deadpool_postgres::PoolError::Backend(db) if db.code().is_none() => {
                DbError::Unavailable("cannot connect to the database".into())
            }
            deadpool_postgres::PoolError::Backend(db) => db.into(),
            other => DbError::Unavailable(format!("database pool: {other}")),
        }
    }
}
