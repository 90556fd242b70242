//! A program's audit checkpoint (issue 16): its chain head read under the program's
//! shared lock, so no writer of the program is between its event and its commit.

use super::owner::{self, Scope};
use super::ReadError;
use crate::db::audit_chain::{self, ChainHead};
use chrono::{DateTime, Utc};
use deadpool_postgres::Pool;
use uuid::Uuid;

/// The chain head and the database clock it was read at.
pub async fn checkpoint(pool: &Pool, user_id: &str, program_id: Uuid) -> Result<(ChainHead, DateTime<Utc>), ReadError> {
    owner::read(pool, user_id, Scope::Program(program_id), async |o| {
        // Every program has its creation event; none would be a broken database.
        let head = audit_chain::head(o.tx, o.program.id).await?.ok_or(ReadError::NotFound)?;
        Ok((head, o.now))
    })
    .await
}
