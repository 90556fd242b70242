//! Programs and their notices, as owners manage them: create, read with live counts,
//! change under `expectedRevision`, publish notice versions. Policy: callers hold the
//! workspace and program locks (`routes/owner/guard.rs`) before any function here that
//! decides or writes; notices are only ever appended, with the next version number.

use crate::db::locks::{ProgramRow, PROGRAM_COLUMNS};
use crate::error::{violated_constraint, ApiError, Result};
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use deadpool_postgres::Transaction;
use shared::ErrorCode;
use uuid::Uuid;

/// A validated new program (the request body turned into bounded values at the edge).
#[derive(Debug, Clone)]
pub struct NewProgram {
    pub workspace_id: Uuid,
    pub slug: shared::Slug,
    pub purpose: String,
    pub queue_cap: i32,
    pub hourly_cap: i32,
    pub seat_cap: i32,
    pub max_invite_days: i32,
}

/// Inserts a closed program without notice or content. A taken slug is 409.
pub async fn insert(tx: &Transaction<'_>, p: &NewProgram) -> Result<ProgramRow> {
    let sql = format!(
        "INSERT INTO programs (workspace_id, public_slug, purpose, queue_cap, hourly_cap, seat_cap, max_invite_days) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING {PROGRAM_COLUMNS}"
    );
    let stmt = tx.prepare_cached(&sql).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
        [&p.workspace_id, &p.slug.as_str(), &p.purpose, &p.queue_cap, &p.hourly_cap, &p.seat_cap, &p.max_invite_days];
    match tx.query_one(&stmt, &params).await {
        Ok(row) => Ok(ProgramRow::from(&row)),
        Err(e) if violated_constraint(&e) == Some("programs_public_slug_key") => {
            Err(ApiError::Conflict(ErrorCode::SlugTaken))
        }
        Err(e) => Err(e.into()),
    }
}

/// The workspace's programs, oldest first (read after the workspace lock).
pub async fn in_workspace(client: &impl GenericClient, workspace_id: Uuid) -> Result<Vec<ProgramRow>> {
    let sql = format!("SELECT {PROGRAM_COLUMNS} FROM programs WHERE workspace_id = $1 ORDER BY created_at, id");
    let stmt = client.prepare_cached(&sql).await?;
    Ok(client.query(&stmt, &[&workspace_id]).await?.iter().map(ProgramRow::from).collect())
}

/// The workspace a program belongs to, for lock routing only (no lock, no decision).
pub async fn workspace_of(client: &impl GenericClient, program_id: Uuid) -> Result<Option<Uuid>> {
    let stmt = client.prepare_cached("SELECT workspace_id FROM programs WHERE id = $1").await?;
    Ok(client.query_opt(&stmt, &[&program_id]).await?.map(|r| r.get(0)))
}

/// What an owner sees next to the program row: live counts, the current notice and
/// whether private content exists.
#[derive(Debug, Clone)]
pub struct Summary {
    pub hour: i64,
    pub seats: i64,
    pub notice: Option<NoticeRow>,
    pub has_content: bool,
}

#[derive(Debug, Clone)]
pub struct NoticeRow {
    pub id: Uuid,
    pub version: i32,
    pub purpose: String,
    pub contact_text: String,
    pub retention_text: String,
    pub published_at: DateTime<Utc>,
}

const SUMMARY: &str = r"
SELECT
  (SELECT coalesce(sum(admitted_count), 0)::bigint FROM intake_hours
     WHERE program_id = $1
       AND bucket_start = date_trunc('hour', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'),
  (SELECT count(*) FROM grants WHERE program_id = $1 AND active)
    + (SELECT count(*) FROM invitations WHERE program_id = $1 AND state = 'issued' AND expires_at > clock_timestamp()),
  EXISTS (SELECT 1 FROM early_access_content WHERE program_id = $1),
  n.id, n.version, n.purpose, n.contact_text, n.retention_text, n.published_at
FROM (SELECT 1) one
LEFT JOIN notices n ON n.id = $2 AND n.program_id = $1";

/// Counts and the current notice of `program` (read after its lock).
pub async fn summary(client: &impl GenericClient, program: &ProgramRow) -> Result<Summary> {
    let stmt = client.prepare_cached(SUMMARY).await?;
    let r = client.query_one(&stmt, &[&program.id, &program.current_notice_id]).await?;
    let notice = r.get::<_, Option<Uuid>>(3).map(|id| NoticeRow {
        id,
        version: r.get(4),
        purpose: r.get(5),
        contact_text: r.get(6),
        retention_text: r.get(7),
        published_at: r.get(8),
    });
    Ok(Summary { hour: r.get(0), seats: r.get(1), notice, has_content: r.get(2) })
}

/// Seats in use: active grants plus issued invitations not yet expired by the database
/// clock. Call under the program lock when deciding on it.
pub async fn seats_in_use(tx: &Transaction<'_>, program_id: Uuid) -> Result<i64> {
    let stmt = tx
        .prepare_cached(
            "SELECT (SELECT count(*) FROM grants WHERE program_id = $1 AND active) \
             + (SELECT count(*) FROM invitations WHERE program_id = $1 AND state = 'issued' \
                AND expires_at > clock_timestamp())",
        )
        .await?;
    Ok(tx.query_one(&stmt, &[&program_id]).await?.get(0))
}

pub async fn has_content(tx: &Transaction<'_>, program_id: Uuid) -> Result<bool> {
    let stmt = tx.prepare_cached("SELECT EXISTS (SELECT 1 FROM early_access_content WHERE program_id = $1)").await?;
    Ok(tx.query_one(&stmt, &[&program_id]).await?.get(0))
}

/// The changeable settings of a program, as they will be after a PATCH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub signup_open: bool,
    pub access_enabled: bool,
    pub queue_cap: i32,
    pub hourly_cap: i32,
    pub seat_cap: i32,
}

impl From<&ProgramRow> for Settings {
    fn from(p: &ProgramRow) -> Self {
        Settings {
            signup_open: p.signup_open,
            access_enabled: p.access_enabled,
            queue_cap: p.queue_cap,
            hourly_cap: p.hourly_cap,
            seat_cap: p.seat_cap,
        }
    }
}

/// Writes `s` and bumps the revision; returns the row as it is now.
pub async fn update(tx: &Transaction<'_>, program_id: Uuid, s: &Settings) -> Result<ProgramRow> {
    let sql = format!(
        "UPDATE programs SET signup_open = $2, access_enabled = $3, queue_cap = $4, hourly_cap = $5, seat_cap = $6, \
         revision = revision + 1 WHERE id = $1 RETURNING {PROGRAM_COLUMNS}"
    );
    let stmt = tx.prepare_cached(&sql).await?;
    let row = tx
        .query_one(&stmt, &[&program_id, &s.signup_open, &s.access_enabled, &s.queue_cap, &s.hourly_cap, &s.seat_cap])
        .await?;
    Ok(ProgramRow::from(&row))
}

/// The text of a notice to publish (bounded at the edge).
#[derive(Debug, Clone)]
pub struct NewNotice {
    pub purpose: String,
    pub contact_text: String,
    pub retention_text: String,
}

/// Appends the next notice version at `now`, makes it current and bumps the program's
/// revision. Call under the program's `FOR UPDATE` lock, so versions stay sequential.
pub async fn publish_notice(
    tx: &Transaction<'_>,
    program: &ProgramRow,
    notice: &NewNotice,
    now: DateTime<Utc>,
) -> Result<NoticeRow> {
    let version = program.current_notice_version.unwrap_or(0) + 1;
    let stmt = tx
        .prepare_cached(
            "INSERT INTO notices (program_id, version, purpose, contact_text, retention_text, published_at) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 6] =
        [&program.id, &version, &notice.purpose, &notice.contact_text, &notice.retention_text, &now];
    let id: Uuid = tx.query_one(&stmt, &params).await?.get(0);
    let stmt = tx
        .prepare_cached(
            "UPDATE programs SET current_notice_id = $2, current_notice_version = $3, revision = revision + 1 \
             WHERE id = $1",
        )
        .await?;
    tx.execute(&stmt, &[&program.id, &id, &version]).await?;
    Ok(NoticeRow {
        id,
        version,
        purpose: notice.purpose.clone(),
        contact_text: notice.contact_text.clone(),
        retention_text: notice.retention_text.clone(),
        published_at: now,
    })
}

/// Admissions per UTC hour over the last 48 hours (hours with rows only), oldest first.
pub async fn intake_hours(client: &impl GenericClient, program_id: Uuid) -> Result<Vec<(DateTime<Utc>, i64)>> {
    let stmt = client
        .prepare_cached(
            "SELECT bucket_start, admitted_count::bigint FROM intake_hours WHERE program_id = $1 \
             AND bucket_start > date_trunc('hour', clock_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' \
                                - interval '48 hours' \
             ORDER BY bucket_start",
        )
        .await?;
    Ok(client.query(&stmt, &[&program_id]).await?.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Entries per state (states without entries are absent).
pub async fn state_counts(client: &impl GenericClient, program_id: Uuid) -> Result<Vec<(String, i64)>> {
    let stmt =
        client.prepare_cached("SELECT state, count(*) FROM entries WHERE program_id = $1 GROUP BY state").await?;
    Ok(client.query(&stmt, &[&program_id]).await?.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// A program as the public sees it: only with a published notice, in an active workspace.
pub async fn public(client: &impl GenericClient, slug: &str) -> Result<Option<(bool, NoticeRow)>> {
    let stmt = client
        .prepare_cached(
            "SELECT p.signup_open, n.id, n.version, n.purpose, n.contact_text, n.retention_text, n.published_at \
             FROM programs p JOIN workspaces w ON w.id = p.workspace_id AND w.active \
             JOIN notices n ON n.id = p.current_notice_id AND n.program_id = p.id \
             WHERE p.public_slug = $1",
        )
        .await?;
    Ok(client.query_opt(&stmt, &[&slug]).await?.map(|r| {
        let notice = NoticeRow {
            id: r.get(1),
            version: r.get(2),
            purpose: r.get(3),
            contact_text: r.get(4),
            retention_text: r.get(5),
            published_at: r.get(6),
        };
        (r.get(0), notice)
    }))
}
