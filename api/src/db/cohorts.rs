//! `cohort_codes` rows and what a cohort redemption writes: the entry (already active,
//! source `cohort`), its grant and the code's use count. Policy: the table keeps only
//! the SHA-256 of a code's canonical text and no statement reads it back. A code sits
//! at the invitation's place in the lock order (workspace → program → entry → code →
//! grant); every writer of a code holds its program `FOR UPDATE` first, so `uses` is
//! decided on under that lock and the `uses <= max_uses` CHECK is only the backstop.
//!
//! Round trips of a use (issue 28, as `super::redemptions` for an invitation code): after
//! the code's route, its locks and fresh reads go out as one pipeline ([`lock_for_use`])
//! and its writes as another ([`record_use`]), so the program row is locked for two round
//! trips and the commit instead of one round trip per statement (fourteen before) — a launch that
//! hands one cohort code to a crowd queues them all on that row. Every statement of a
//! pipeline is prepared first ([`super::prepare_all`]), so they reach the server in
//! argument order and the locks are still taken in the order above.

use super::audit::{self, Actor, Detail, EventType};
use super::locks::{self, ProgramRow, Strength};
use super::programs::NoticeRow;
use super::{entries, invitations, prepare_all, Result};
use chrono::{DateTime, Utc};
use deadpool_postgres::{GenericClient, Transaction};
use tokio_postgres::Row;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct CohortCodeRow {
    pub id: Uuid,
    pub program_id: Uuid,
    pub label: String,
    pub note: Option<String>,
    pub max_uses: i32,
    pub uses: i32,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// Every column but the digest, which is never read back.
const COLUMNS: &str = "id, program_id, label, note, max_uses, uses, created_at, expires_at, revoked_at";

impl From<&Row> for CohortCodeRow {
    fn from(r: &Row) -> Self {
        CohortCodeRow {
            id: r.get(0),
            program_id: r.get(1),
            label: r.get(2),
            note: r.get(3),
            max_uses: r.get(4),
            uses: r.get(5),
            created_at: r.get(6),
            expires_at: r.get(7),
            revoked_at: r.get(8),
        }
    }
}

/// A code to store: its digest and the owner's fields.
#[derive(Debug, Clone)]
pub struct NewCohortCode<'a> {
    pub digest: &'a [u8],
    pub label: &'a str,
    pub note: Option<&'a str>,
    pub max_uses: i32,
    pub expires_at: DateTime<Utc>,
}

pub async fn insert(
    tx: &Transaction<'_>,
    program_id: Uuid,
    staff_id: Uuid,
    code: &NewCohortCode<'_>,
    now: DateTime<Utc>,
) -> Result<CohortCodeRow> {
    let sql = format!(
        "INSERT INTO cohort_codes (program_id, code_sha256, label, note, max_uses, created_at, expires_at, created_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING {COLUMNS}"
    );
    let stmt = tx.prepare_cached(&sql).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] =
        [&program_id, &code.digest, &code.label, &code.note, &code.max_uses, &now, &code.expires_at, &staff_id];
    Ok(CohortCodeRow::from(&tx.query_one(&stmt, &params).await?))
}

/// The program's codes, newest first.
pub async fn of_program(tx: &Transaction<'_>, program_id: Uuid) -> Result<Vec<CohortCodeRow>> {
    let sql = format!("SELECT {COLUMNS} FROM cohort_codes WHERE program_id = $1 ORDER BY created_at DESC, id");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query(&stmt, &[&program_id]).await?.iter().map(CohortCodeRow::from).collect())
}

pub async fn get(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<CohortCodeRow>> {
    let sql = format!("SELECT {COLUMNS} FROM cohort_codes WHERE id = $1 AND program_id = $2");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(CohortCodeRow::from))
}

/// Locks one code of `program_id` (after the program and any entry lock).
pub async fn lock(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<CohortCodeRow>> {
    let stmt = tx.prepare_cached(&lock_sql()).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(CohortCodeRow::from))
}

fn lock_sql() -> String {
    format!("SELECT {COLUMNS} FROM cohort_codes WHERE id = $1 AND program_id = $2 FOR UPDATE")
}

/// Revokes a locked code at `now`; `None` when it was revoked already.
pub async fn revoke(tx: &Transaction<'_>, id: Uuid, now: DateTime<Utc>) -> Result<Option<CohortCodeRow>> {
    let sql =
        format!("UPDATE cohort_codes SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING {COLUMNS}");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&id, &now]).await?.as_ref().map(CohortCodeRow::from))
}

/// Where a code points — (code, program, workspace) — for lock routing only: all three
/// are immutable, so it may be read before the transaction, on any connection; the lock
/// statements check them again.
pub async fn route_by_digest(client: &impl GenericClient, digest: &[u8]) -> Result<Option<Route>> {
    let stmt = client
        .prepare_cached(
            "SELECT c.id, c.program_id, p.workspace_id FROM cohort_codes c \
             JOIN programs p ON p.id = c.program_id WHERE c.code_sha256 = $1",
        )
        .await?;
    Ok(client.query_opt(&stmt, &[&digest]).await?.map(|r| Route {
        code_id: r.get(0),
        program_id: r.get(1),
        workspace_id: r.get(2),
    }))
}

/// Where a code points, from [`route_by_digest`] (read without a lock).
#[derive(Debug, Clone, Copy)]
pub struct Route {
    pub code_id: Uuid,
    pub program_id: Uuid,
    pub workspace_id: Uuid,
}

/// What a use decides on, read under its locks, and the database clock after them.
#[derive(Debug)]
pub struct Locked {
    /// The workspace's `active`; `None` when it is gone.
    pub workspace_active: Option<bool>,
    pub program: Option<ProgramRow>,
    /// Whether the caller already has an entry in the program (locked if so).
    pub has_entry: bool,
    pub code: Option<CohortCodeRow>,
    pub now: DateTime<Utc>,
    /// Seats in use at `now` (`invitations::seats_expr`).
    pub seats_in_use: i64,
    /// Whether the caller holds a grant (active or not) in the program: one per user.
    pub granted: bool,
    /// The program's current notice, read after the program lock.
    pub notice: Option<NoticeRow>,
}

const CURRENT_NOTICE_SQL: &str = "SELECT n.id, n.version, n.purpose, n.contact_text, n.retention_text, \
     n.published_at, n.questions FROM programs p JOIN notices n ON n.id = p.current_notice_id AND n.program_id = p.id \
     WHERE p.id = $1";
const USER_HAS_GRANT_SQL: &str = "SELECT 1 FROM grants WHERE program_id = $1 AND clerk_user_id = $2";

/// The clock, captured once after the locks (`locks::NOW_SQL`'s), and the seats in use at it.
fn clock_and_seats_sql() -> String {
    format!("SELECT t.now, {} FROM (SELECT clock_timestamp() AS now) t", invitations::seats_expr("$1", "t.now"))
}

/// Takes a use's locks in the global order — workspace `FOR KEY SHARE`, program `FOR
/// UPDATE`, the caller's entry (if any), the code — then reads the clock, the seats in use
/// at it, the caller's grant and the current notice: one round trip.
pub async fn lock_for_use(tx: &Transaction<'_>, route: Route, clerk_user_id: &str, emails: &[&str]) -> Result<Locked> {
    let (program_sql, code_sql, clock_sql) = (locks::program_sql(Strength::Update), lock_sql(), clock_and_seats_sql());
    let sqls = [
        locks::workspace_sql(Strength::KeyShare),
        &program_sql,
        entries::LOCK_OWN_SQL,
        &code_sql,
        &clock_sql,
        USER_HAS_GRANT_SQL,
        CURRENT_NOTICE_SQL,
    ];
    prepare_all(tx, &sqls).await?;
    // From the cache now: a statement given as text would be prepared when first polled,
    // a round trip that lets the ones after it go out first.
    let clock_stmt = tx.prepare_cached(&clock_sql).await?;
    let granted_stmt = tx.prepare_cached(USER_HAS_GRANT_SQL).await?;
    let notice_stmt = tx.prepare_cached(CURRENT_NOTICE_SQL).await?;
    let (workspace, program, own, code, clock, granted, notice) = futures_util::join!(
        locks::workspace(tx, route.workspace_id, Strength::KeyShare),
        locks::program(tx, route.workspace_id, route.program_id, Strength::Update),
        entries::lock_own(tx, route.program_id, emails),
        lock(tx, route.program_id, route.code_id),
        async { tx.query_one(&clock_stmt, &[&route.program_id]).await },
        async { tx.query_opt(&granted_stmt, &[&route.program_id, &clerk_user_id]).await },
        async { tx.query_opt(&notice_stmt, &[&route.program_id]).await },
    );
    let (workspace_active, program, has_entry, code) = (workspace?, program?, own?.is_some(), code?);
    let clock = clock?;
    Ok(Locked {
        workspace_active,
        program,
        has_entry,
        code,
        now: clock.get(0),
        seats_in_use: clock.get(1),
        granted: granted?.is_some(),
        notice: notice?.map(|r| NoticeRow {
            id: r.get(0),
            version: r.get(1),
            purpose: r.get(2),
            contact_text: r.get(3),
            retention_text: r.get(4),
            published_at: r.get(5),
            questions: super::programs::questions_of(r.get(6)),
        }),
    })
}

/// What one use writes.
#[derive(Debug, Clone)]
pub struct CohortUse<'a> {
    pub program_id: Uuid,
    pub code_id: Uuid,
    pub email: &'a str,
    pub notice_id: Uuid,
    /// The accepted notice's version (the `signup` event's detail).
    pub notice_version: i32,
    pub clerk_user_id: &'a str,
    pub now: DateTime<Utc>,
    /// The checked answers to the accepted notice's questions (`{}` for none).
    pub answers: serde_json::Value,
}

const USE_CODE_SQL: &str = "UPDATE cohort_codes SET uses = uses + 1 WHERE id = $1 AND uses < max_uses RETURNING uses";
const INSERT_ENTRY_SQL: &str = "INSERT INTO entries \
     (id, program_id, email_key, notice_id, permission_at, state, source, created_at, updated_at) \
     VALUES ($1, $2, $3, $4, $5, 'active', 'cohort', $5, $5)";
const INSERT_GRANT_SQL: &str =
    "INSERT INTO grants (id, program_id, entry_id, cohort_code_id, clerk_user_id, granted_at) \
     VALUES ($1, $2, $3, $4, $5, $6)";
const INSERT_ANSWERS_SQL: &str =
    "INSERT INTO entry_answers (entry_id, program_id, answers, verified_at_join) VALUES ($1, $2, $3, $4)";

/// One use, in one round trip: the code's use count (guarded: `None` when it would pass
/// `max_uses`, which the caller's lock already ruled out — the caller then rolls back what
/// was pipelined after it), the entry (active, the notice accepted at `now`; its insert
/// moves the program's entry counts, and so its queue, V145), the grant, the entry's
/// answers with its address recorded as verified at `now` (V130's `entry_answers`), and
/// the `signup` and `redeemed` events.
/// The entry's and grant's ids are chosen here so the statements after them can name
/// them. Returns (entry, grant) ids.
pub async fn record_use(tx: &Transaction<'_>, u: &CohortUse<'_>) -> Result<Option<(Uuid, Uuid)>> {
    let sqls = [USE_CODE_SQL, INSERT_ENTRY_SQL, INSERT_GRANT_SQL, INSERT_ANSWERS_SQL, audit::RECORD_SQL];
    prepare_all(tx, &sqls).await?;
    // From the cache now (see `lock_for_use`).
    let use_code = tx.prepare_cached(USE_CODE_SQL).await?;
    let insert_entry = tx.prepare_cached(INSERT_ENTRY_SQL).await?;
    let insert_grant = tx.prepare_cached(INSERT_GRANT_SQL).await?;
    let insert_answers = tx.prepare_cached(INSERT_ANSWERS_SQL).await?;
    let (entry, grant) = (Uuid::new_v4(), Uuid::new_v4());
    let signup = [("noticeVersion", Detail::Number(i64::from(u.notice_version))), ("source", Detail::Code("cohort"))];
    let used = [("cohortCodeId", Detail::Id(u.code_id)), ("grantId", Detail::Id(grant))];
    let (used_code, inserted, granted, answered, signed_up, redeemed) = futures_util::join!(
        async { tx.query_opt(&use_code, &[&u.code_id]).await },
        async { tx.execute(&insert_entry, &[&entry, &u.program_id, &u.email, &u.notice_id, &u.now]).await },
        async {
            tx.execute(&insert_grant, &[&grant, &u.program_id, &entry, &u.code_id, &u.clerk_user_id, &u.now]).await
        },
        async { tx.execute(&insert_answers, &[&entry, &u.program_id, &u.answers, &u.now]).await },
        audit::record(tx, u.program_id, Some(entry), Actor::Recipient, EventType::Signup, u.now, &signup),
        audit::record(tx, u.program_id, Some(entry), Actor::Recipient, EventType::Redeemed, u.now, &used),
    );
    // The first failure, in pipeline order, is the real one (the rest failed after it).
    if used_code?.is_none() {
        return Ok(None);
    }
    inserted?;
    granted?;
    answered?;
    signed_up?;
    redeemed?;
    Ok(Some((entry, grant)))
}
