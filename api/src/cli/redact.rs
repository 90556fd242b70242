//! `vestibule redact --program ID --before DATE`: retention redaction. For entries of
//! the program that are over — withdrawn, declined or revoked — and whose last change is
//! before DATE, the email is replaced by a tombstone (`redacted+<entry id>@redacted.invalid`)
//! and `redacted_at` is set; their invitations' delivery records lose the owner's free
//! text (channel `redacted`, no reference) and their (inactive) grants the Clerk user id
//! (`redacted_<grant id>`). Every row, link, time and count stays, and each entry gets one
//! `redacted` event. This is redaction, not legal erasure: backups, the receipts' keyed
//! bindings and the identity provider keep what they keep (see the README).
//! Runs under the workspace and program locks like every owner writer.

use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::locks::{self, Strength};
use crate::db::{self, DbError, TxError};
use anyhow::anyhow;
use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

/// Parses `YYYY-MM-DD` (midnight UTC) or an RFC 3339 instant.
pub fn parse_cutoff(s: &str) -> anyhow::Result<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&Utc));
    }
    let day =
        NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| anyhow!("--before must be YYYY-MM-DD or RFC 3339"))?;
    Ok(day.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc())
}

/// Why a redaction did nothing.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error("no such program; nothing was changed")]
    NoProgram,
    #[error("--before is in the future; nothing was changed")]
    CutoffInFuture,
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<tokio_postgres::Error> for Refusal {
    fn from(e: tokio_postgres::Error) -> Self {
        Refusal::Db(e.into())
    }
}

impl TxError for Refusal {
    fn retry(&self) -> bool {
        matches!(self, Refusal::Db(DbError::Retry))
    }
}

/// Redacts and returns how many entries were changed.
pub async fn redact(database_url: &str, program_id: Uuid, before: DateTime<Utc>) -> anyhow::Result<u64> {
    let pool = db::pool(database_url, 1)?;
    let outcome = db::transaction(&pool, async |tx| {
        let stmt = tx.prepare_cached("SELECT workspace_id FROM programs WHERE id = $1").await?;
        let workspace: Uuid = tx.query_opt(&stmt, &[&program_id]).await?.ok_or(Refusal::NoProgram)?.get(0);
        locks::workspace(tx, workspace, Strength::Update).await?.ok_or(Refusal::NoProgram)?;
        let program = locks::program(tx, workspace, program_id, Strength::Update).await?.ok_or(Refusal::NoProgram)?;
        let now = locks::now(tx).await?;
        if before > now {
            return Err(Refusal::CutoffInFuture);
        }
        let rows = tx
            .query(
                "SELECT id, state FROM entries WHERE program_id = $1 AND state IN ('withdrawn', 'declined', 'revoked') \
                 AND redacted_at IS NULL AND updated_at < $2 ORDER BY id FOR UPDATE",
                &[&program.id, &before],
            )
            .await?;
        let ids: Vec<Uuid> = rows.iter().map(|r| r.get(0)).collect();
        crate::db::erasure::redact_entries(tx, &ids, now).await?;
        for row in &rows {
            let (entry, state): (Uuid, &str) = (row.get(0), row.get(1));
            let from = match state {
                "withdrawn" => "withdrawn",
                "declined" => "declined",
                _ => "revoked",
            };
            let details = [("state", Detail::Code(from)), ("basis", Detail::Code("retention_expiry"))];
            audit::record(tx, program.id, Some(entry), Actor::System, EventType::Redacted, now, &details).await?;
        }
        Ok(rows.len() as u64)
    })
    .await;
    outcome.map_err(|e| anyhow!("{e}"))
}
