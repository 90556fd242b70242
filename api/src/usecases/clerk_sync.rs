//! The owner's delivery log of "on grant, in Clerk" (issue 14): every Backend API call
//! the `clerk_sync` outbox target made for the program's grants, newest first, and a
//! retry that makes a delivery due now. Policy: reads and the retry run through
//! `owner::read` / `owner::write`, so a foreign program is the uniform 404; a retry is
//! recorded in the workspace audit history like a webhook delivery's.

use super::owner::{self, Scope};
use super::ReadError;
use crate::db::clerk_sync_log;
use crate::db::outbox::{self, Retry};
use crate::db::workspace_audit;
use crate::outbox::MAX_ATTEMPTS;
use deadpool_postgres::Pool;
use uuid::Uuid;

pub use crate::db::clerk_sync_log::CallRow;

/// A page of the program's Clerk calls with an id below `before`, newest first.
pub async fn calls(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    before: i64,
    limit: i64,
) -> Result<Vec<CallRow>, ReadError> {
    owner::read(pool, user_id, Scope::Program(program_id), async |o| {
        Ok(clerk_sync_log::page(o.tx, o.program.id, before, limit).await?)
    })
    .await
}

/// Makes one of the program's Clerk deliveries due now, with at least one attempt left.
pub async fn retry(pool: &Pool, user_id: &str, program_id: Uuid, delivery_id: i64) -> Result<(), ReadError> {
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let retry = Retry::ClerkSync { program_id: o.program.id, delivery_id };
        if !outbox::make_due(o.tx, retry, o.now, MAX_ATTEMPTS).await? {
            return Err(ReadError::NotFound);
        }
        let ws = o.program.workspace_id;
        workspace_audit::record(o.tx, ws, o.staff_id, "clerk_sync.delivery_retried", Some(o.program.id), o.now).await?;
        Ok(())
    })
    .await
}
