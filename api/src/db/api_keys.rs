//! Workspace API keys: stored as SHA-256 digests only. [`authenticate`] is the one
//! statement every `/api/v1` request runs: it finds an unrevoked key of an active
//! workspace by digest, counts the request in the key's one-minute window and stamps
//! its last use.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::{GenericClient, Transaction};
use tokio_postgres::Row;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct KeyRow {
    pub id: Uuid,
    pub name: String,
    pub prefix: String,
    pub scopes: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, name, prefix, scopes, created_at, last_used_at, revoked_at";

impl From<&Row> for KeyRow {
    fn from(r: &Row) -> Self {
        KeyRow {
            id: r.get(0),
            name: r.get(1),
            prefix: r.get(2),
            scopes: r.get(3),
            created_at: r.get(4),
            last_used_at: r.get(5),
            revoked_at: r.get(6),
        }
    }
}

pub struct NewKey<'a> {
    pub id: Uuid,
    pub workspace_id: Uuid,
    pub name: &'a str,
    pub prefix: &'a str,
    pub digest: &'a [u8],
    pub scopes: &'a [String],
    pub created_by: Uuid,
}

pub async fn insert(tx: &Transaction<'_>, k: &NewKey<'_>, now: DateTime<Utc>) -> Result<KeyRow> {
    let sql = format!(
        "INSERT INTO api_keys (id, workspace_id, name, prefix, digest, scopes, created_by, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {COLUMNS}"
    );
    let row = tx
        .query_one(&sql, &[&k.id, &k.workspace_id, &k.name, &k.prefix, &k.digest, &k.scopes, &k.created_by, &now])
        .await?;
    Ok(KeyRow::from(&row))
}

pub async fn list(tx: &Transaction<'_>, workspace_id: Uuid) -> Result<Vec<KeyRow>> {
    let sql = format!("SELECT {COLUMNS} FROM api_keys WHERE workspace_id = $1 ORDER BY created_at DESC, id");
    Ok(tx.query(&sql, &[&workspace_id]).await?.iter().map(KeyRow::from).collect())
}

/// Revokes a key of the workspace (again: no change); `None` when it is not one.
pub async fn revoke(tx: &Transaction<'_>, workspace_id: Uuid, id: Uuid, now: DateTime<Utc>) -> Result<Option<KeyRow>> {
    let sql = format!(
        "UPDATE api_keys SET revoked_at = coalesce(revoked_at, $3) WHERE workspace_id = $1 AND id = $2 RETURNING {COLUMNS}"
    );
    Ok(tx.query_opt(&sql, &[&workspace_id, &id, &now]).await?.as_ref().map(KeyRow::from))
}

/// A request authenticated by a key.
#[derive(Debug, Clone)]
pub struct Caller {
    pub key_id: Uuid,
    pub workspace_id: Uuid,
    pub scopes: Vec<String>,
    /// Requests counted in the current minute, this one included.
    pub hits: i32,
}

/// The unrevoked key of an active workspace with this digest, counting this request.
pub async fn authenticate(client: &impl GenericClient, digest: &[u8]) -> Result<Option<Caller>> {
    let stmt = client
        .prepare_cached(
            "UPDATE api_keys k SET last_used_at = clock_timestamp(), \
               rate_hits = CASE WHEN k.rate_window = date_trunc('minute', clock_timestamp()) THEN k.rate_hits + 1 ELSE 1 END, \
               rate_window = date_trunc('minute', clock_timestamp()) \
             FROM workspaces w \
             WHERE k.digest = $1 AND k.revoked_at IS NULL AND w.id = k.workspace_id AND w.active \
             RETURNING k.id, k.workspace_id, k.scopes, k.rate_hits",
        )
        .await?;
    Ok(client.query_opt(&stmt, &[&digest]).await?.map(|r| Caller {
        key_id: r.get(0),
        workspace_id: r.get(1),
        scopes: r.get(2),
        hits: r.get(3),
    }))
}

/// Revokes every live key of the workspace that `staff_id` created (an owner being
/// removed, `vestibule owner revoke`); answers how many, or with `dry_run` only counts them.
pub async fn revoke_created_by(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    staff_id: Uuid,
    now: DateTime<Utc>,
    dry_run: bool,
) -> Result<u64> {
    if dry_run {
        let row = tx
            .query_one(
                "SELECT count(*) FROM api_keys WHERE workspace_id = $1 AND created_by = $2 AND revoked_at IS NULL",
                &[&workspace_id, &staff_id],
            )
            .await?;
        return Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0));
    }
    Ok(tx
        .execute(
            "UPDATE api_keys SET revoked_at = $3 WHERE workspace_id = $1 AND created_by = $2 AND revoked_at IS NULL",
            &[&workspace_id, &staff_id, &now],
        )
        .await?)
}
