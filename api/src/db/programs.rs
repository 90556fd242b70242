//! Programs and their notices, as owners manage them: create, read with live counts,
//! change under `expectedRevision`, publish notice versions. Policy: callers hold the
//! workspace and program locks (`usecases::owner`) before any function here that
//! decides or writes; notices are only ever appended, with the next version number.

use super::invitations::seats_expr;
use super::locks::{ProgramRow, PROGRAM_COLUMNS};
use super::Result;
use crate::domain::EntryState;
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use deadpool_postgres::Transaction;
use shared::edge::PowLevel;
use shared::questions::{JoinWith, Question};
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

/// The unique constraint on public slugs.
pub const SLUG_TAKEN: &str = "programs_public_slug_key";

/// Inserts a closed program without notice or content. A taken slug is
/// `DbError::Unique(SLUG_TAKEN)`.
pub async fn insert(tx: &Transaction<'_>, p: &NewProgram) -> Result<ProgramRow> {
    let sql = format!(
        "INSERT INTO programs (workspace_id, public_slug, purpose, queue_cap, hourly_cap, seat_cap, max_invite_days) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING {PROGRAM_COLUMNS}"
    );
    let stmt = tx.prepare_cached(&sql).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
        [&p.workspace_id, &p.slug.as_str(), &p.purpose, &p.queue_cap, &p.hourly_cap, &p.seat_cap, &p.max_invite_days];
    Ok(ProgramRow::from(&tx.query_one(&stmt, &params).await?))
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
    /// Every entry, whatever its state.
    pub entries: i64,
    /// Every entry not withdrawn: what the queue cap limits.
    pub queue: i64,
    pub waiting: i64,
    pub selected: i64,
    pub active: i64,
    /// Unexpired issued invitations without a delivery record.
    pub not_sent: i64,
    /// Unexpired issued invitations expiring within `EXPIRING_WITHIN_HOURS` (48).
    pub expiring_soon: i64,
    pub notice: Option<NoticeRow>,
    pub has_content: bool,
    /// "On grant, in Clerk" (issue 14); `None` when off.
    pub clerk: Option<super::clerk_sync::ClerkSync>,
}

#[derive(Debug, Clone)]
pub struct NoticeRow {
    pub id: Uuid,
    pub version: i32,
    pub purpose: String,
    pub contact_text: String,
    pub retention_text: String,
    pub published_at: DateTime<Utc>,
    /// The questions this version asks (V130; part of its immutable row).
    pub questions: Vec<Question>,
}

/// A notice's `questions` column: written only from checked [`Question`]s.
pub fn questions_of(value: serde_json::Value) -> Vec<Question> {
    serde_json::from_value(value).expect("notices.questions holds questions the server wrote")
}

/// The programs of a workspace (or the one program `only`) with their summaries, oldest
/// first, in one statement; counts are taken at `now`, the transaction's clock (the entries per
/// state come from V101's `program_entry_counts`, kept by the writers: no scan of the queue).
pub async fn with_summaries(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    only: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<Vec<(ProgramRow, Summary)>> {
    let program_columns: Vec<String> = PROGRAM_COLUMNS.split(", ").map(|c| format!("p.{c}")).collect();
    let sql = format!(
        "SELECT {columns}, \
           (SELECT coalesce(sum(admitted_count), 0)::bigint FROM intake_hours WHERE program_id = p.id \
              AND bucket_start = date_trunc('hour', $3 AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), \
           {seats}, \
           EXISTS (SELECT 1 FROM early_access_content WHERE program_id = p.id), \
           n.id, n.version, n.purpose, n.contact_text, n.retention_text, n.published_at, \
           s.waiting, s.selected, s.active, o.not_sent, o.expiring_soon, \
           cs.public_metadata, CASE WHEN cs.organization_checked_at IS NOT NULL THEN cs.organization_id END, \
           cs.organization_role, s.entries, n.questions, s.queue \
         FROM programs p LEFT JOIN notices n ON n.id = p.current_notice_id AND n.program_id = p.id \
         LEFT JOIN program_clerk_sync cs ON cs.program_id = p.id \
         CROSS JOIN LATERAL (SELECT coalesce(sum(n) FILTER (WHERE state = 'waiting'), 0)::bigint AS waiting, \
              coalesce(sum(n) FILTER (WHERE state = 'selected'), 0)::bigint AS selected, \
              coalesce(sum(n) FILTER (WHERE state = 'active'), 0)::bigint AS active, \
              coalesce(sum(n), 0)::bigint AS entries, \
              coalesce(sum(n) FILTER (WHERE state <> 'withdrawn'), 0)::bigint AS queue \
              FROM program_entry_counts WHERE program_id = p.id) s \
         CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE delivery_recorded_at IS NULL) AS not_sent, \
              count(*) FILTER (WHERE expires_at <= $3::timestamptz + interval '{soon} hours') AS expiring_soon \
              FROM invitations WHERE program_id = p.id AND state = 'issued' AND expires_at > $3) o \
         WHERE p.workspace_id = $1 AND ($2::uuid IS NULL OR p.id = $2) ORDER BY p.created_at, p.id",
        columns = program_columns.join(", "),
        seats = seats_expr("p.id", "$3"),
        soon = shared::queue::EXPIRING_WITHIN_HOURS,
    );
    let stmt = tx.prepare_cached(&sql).await?;
    let width = program_columns.len();
    Ok(tx
        .query(&stmt, &[&workspace_id, &only, &now])
        .await?
        .iter()
        .map(|r| {
            let notice = r.get::<_, Option<Uuid>>(width + 3).map(|id| NoticeRow {
                id,
                version: r.get(width + 4),
                purpose: r.get(width + 5),
                contact_text: r.get(width + 6),
                retention_text: r.get(width + 7),
                published_at: r.get(width + 8),
                questions: questions_of(r.get(width + 18)),
            });
            let summary = Summary {
                hour: r.get(width),
                seats: r.get(width + 1),
                waiting: r.get(width + 9),
                selected: r.get(width + 10),
                active: r.get(width + 11),
                not_sent: r.get(width + 12),
                expiring_soon: r.get(width + 13),
                entries: r.get(width + 17),
                queue: r.get(width + 19),
                notice,
                has_content: r.get(width + 2),
                clerk: r.get::<_, Option<bool>>(width + 14).map(|public_metadata| super::clerk_sync::ClerkSync {
                    public_metadata,
                    organization: r.get::<_, Option<String>>(width + 15).zip(r.get::<_, Option<String>>(width + 16)),
                }),
            };
            (ProgramRow::from(r), summary)
        })
        .collect())
}

pub async fn has_content(tx: &Transaction<'_>, program_id: Uuid) -> Result<bool> {
    let stmt = tx.prepare_cached("SELECT EXISTS (SELECT 1 FROM early_access_content WHERE program_id = $1)").await?;
    Ok(tx.query_one(&stmt, &[&program_id]).await?.get(0))
}

/// The changeable settings of a program, as they will be after a PATCH.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramSettings {
    pub signup_open: bool,
    pub access_enabled: bool,
    pub queue_cap: i32,
    pub hourly_cap: i32,
    pub seat_cap: i32,
    pub title: Option<String>,
    pub description: Option<String>,
    pub pow_level: PowLevel,
    pub embed_origins: Vec<String>,
    pub join_with: JoinWith,
}

impl From<&ProgramRow> for ProgramSettings {
    fn from(p: &ProgramRow) -> Self {
        ProgramSettings {
            signup_open: p.signup_open,
            access_enabled: p.access_enabled,
            queue_cap: p.queue_cap,
            hourly_cap: p.hourly_cap,
            seat_cap: p.seat_cap,
            title: p.title.clone(),
            description: p.description.clone(),
            pow_level: p.pow_level,
            embed_origins: p.embed_origins.clone(),
            join_with: p.join_with,
        }
    }
}

/// Writes `s` and bumps the revision; returns the row as it is now.
pub async fn update(tx: &Transaction<'_>, program_id: Uuid, s: &ProgramSettings) -> Result<ProgramRow> {
    let sql = format!(
        "UPDATE programs SET signup_open = $2, access_enabled = $3, queue_cap = $4, hourly_cap = $5, seat_cap = $6, \
         title = $7, description = $8, pow_level = $9, embed_origins = $10, join_with = $11, revision = revision + 1 WHERE id = $1 \
         RETURNING {PROGRAM_COLUMNS}"
    );
    let stmt = tx.prepare_cached(&sql).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 11] = [
        &program_id,
        &s.signup_open,
        &s.access_enabled,
        &s.queue_cap,
        &s.hourly_cap,
        &s.seat_cap,
        &s.title,
        &s.description,
        &s.pow_level.as_str(),
        &s.embed_origins,
        &s.join_with.as_str(),
    ];
    let row = tx.query_one(&stmt, &params).await?;
    Ok(ProgramRow::from(&row))
}

/// The text of a notice to publish (bounded at the edge).
#[derive(Debug, Clone)]
pub struct NewNotice {
    pub purpose: String,
    pub contact_text: String,
    pub retention_text: String,
    /// Checked against `shared::questions::check_questions` at the edge.
    pub questions: Vec<Question>,
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
            "INSERT INTO notices (program_id, version, purpose, contact_text, retention_text, published_at, questions) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .await?;
    let questions = serde_json::to_value(&notice.questions).expect("questions serialize");
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
        [&program.id, &version, &notice.purpose, &notice.contact_text, &notice.retention_text, &now, &questions];
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
        questions: notice.questions.clone(),
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

/// The program's entries of the last 48 UTC hours per source (`?ref=`) and hour:
/// `(source, bucket_start, count)`, ordered by source then hour. Counted from the entries
/// themselves (the hour counters do not know sources), so removed entries are not in it.
/// The window's start is read from `statement_timestamp()` (stable within the statement),
/// so it is an index condition on `(program_id, created_at)` and the read touches the
/// window's entries only; `clock_timestamp()` (volatile) made it a filter over the whole
/// program (94 ms against 10 ms at 100 000 entries, issue 28).
pub async fn intake_sources(
    client: &impl GenericClient,
    program_id: Uuid,
) -> Result<Vec<(Option<String>, DateTime<Utc>, i64)>> {
    let stmt = client
        .prepare_cached(
            "SELECT source_ref, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, \
                    count(*) \
             FROM entries WHERE program_id = $1 \
             AND created_at > date_trunc('hour', statement_timestamp() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' \
                              - interval '48 hours' \
             GROUP BY 1, 2 ORDER BY 1 NULLS LAST, 2",
        )
        .await?;
    Ok(client.query(&stmt, &[&program_id]).await?.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
}

/// Entries per state (states without entries are absent), from the counts the writing
/// transactions keep (V101's `program_entry_counts`): one row per state, whatever the
/// program's size.
pub async fn state_counts(client: &impl GenericClient, program_id: Uuid) -> Result<Vec<(EntryState, i64)>> {
    let stmt =
        client.prepare_cached("SELECT state, n FROM program_entry_counts WHERE program_id = $1 AND n > 0").await?;
    Ok(client
        .query(&stmt, &[&program_id])
        .await?
        .iter()
        .map(|r| (r.get::<_, &str>(0).parse().expect("entries_state constraint"), r.get(1)))
        .collect())
}

/// A program as the public sees it: only with a published notice, in an active workspace.
#[derive(Debug, Clone)]
pub struct PublicRow {
    pub signup_open: bool,
    pub notice: NoticeRow,
    pub title: Option<String>,
    pub description: Option<String>,
    pub pow_level: PowLevel,
    pub embed_origins: Vec<String>,
    pub join_with: JoinWith,
}

pub async fn public(client: &impl GenericClient, slug: &str) -> Result<Option<PublicRow>> {
    let stmt = client
        .prepare_cached(
            "SELECT p.signup_open, n.id, n.version, n.purpose, n.contact_text, n.retention_text, n.published_at, \
                    p.title, p.description, p.pow_level, p.embed_origins, n.questions, p.join_with \
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
            questions: questions_of(r.get(11)),
        };
        PublicRow {
            signup_open: r.get(0),
            notice,
            title: r.get(7),
            description: r.get(8),
            pow_level: r.get::<_, &str>(9).parse().expect("programs_pow_level constraint"),
            embed_origins: r.get(10),
            join_with: r.get::<_, &str>(12).parse().expect("programs_join_with constraint"),
        }
    }))
}

/// The origins allowed to frame `slug`'s embedded form; `None` when the program is not
/// public (unknown slug, inactive workspace or no notice), exactly as [`public`] decides.
pub async fn embed_origins(client: &impl GenericClient, slug: &str) -> Result<Option<Vec<String>>> {
    let stmt = client
        .prepare_cached(
            "SELECT p.embed_origins FROM programs p JOIN workspaces w ON w.id = p.workspace_id AND w.active \
             WHERE p.public_slug = $1 AND p.current_notice_id IS NOT NULL",
        )
        .await?;
    Ok(client.query_opt(&stmt, &[&slug]).await?.map(|r| r.get(0)))
}
