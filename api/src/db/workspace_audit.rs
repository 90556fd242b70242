//! The append-only history of workspace-level owner actions (webhooks, API keys, the
//! hook secret): ids and an action name only, never a secret or a URL.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use uuid::Uuid;

pub async fn record(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    staff_id: Uuid,
    action: &'static str,
    subject_id: Option<Uuid>,
    at: DateTime<Utc>,
) -> Result<()> {
    tx.execute(
        "INSERT INTO workspace_audit_events (workspace_id, actor_staff_id, action, subject_id, event_at) \
         VALUES ($1, $2, $3, $4, $5)",
        &[&workspace_id, &staff_id, &action, &subject_id, &at],
    )
    .await?;
    Ok(())
}
