//! The applicant's side of `entries`: the SQL of public admission (SPEC §6.2; the order
//! of its decisions is `usecases::admission`'s) and the signed-in applicant's own
//! entries (§6.3). The clock is captured once, after the locks and the key lookup. No
//! `count(*)` under the lock: the queue is `programs.queue_count`, the hour is one
//! `intake_hours` row, and both bumps are guarded so they never pass their caps.
//!
//! Round trips: the lock statements and the reads are pipelined (with its statement
//! prepared, tokio-postgres sends a request when its future is first polled, and
//! `try_join!` polls in argument order — [`prepare_all`] makes sure of the first part),
//! so the server still runs them one after another — each a fresh READ COMMITTED
//! snapshot taken after the previous statement's lock was granted — but the client
//! waits once. The writes are pipelined the same way. The decisions are still taken in
//! the contract's order; the email read is simply already there when the caps have passed.

use super::audit::{self, Actor, Detail, EventType};
use super::locks::{self, ProgramRow, Strength};
use super::Result;
use crate::domain::{EntryState, InvitationState};
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use deadpool_postgres::Transaction;
use futures_util::future::try_join_all;
use futures_util::try_join;
use uuid::Uuid;

/// A program's address for lock routing: read without a lock, rechecked under it.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub program_id: Uuid,
    pub workspace_id: Uuid,
}

/// What admission reads before its transaction, for a *public* program only (active
/// workspace, a published notice: what `GET` shows; anything else is `None`, the same
/// 404): where to lock, whether `request_key` already has a committed receipt, and the
/// proof of work the form asks for (plain reads, for the rate limiter and the challenge
/// check; the transaction reads all of it again).
#[derive(Debug, Clone, Copy)]
pub struct Resolved {
    pub target: Target,
    pub committed: bool,
    pub pow_level: shared::api::PowLevel,
}

pub async fn resolve(client: &impl GenericClient, slug: &str, request_key: Uuid) -> Result<Option<Resolved>> {
    let stmt = client
        .prepare_cached(
            "SELECT p.id, p.workspace_id, EXISTS (SELECT 1 FROM signup_receipts r \
               WHERE r.program_id = p.id AND r.request_key = $2), p.pow_level \
             FROM programs p JOIN workspaces w ON w.id = p.workspace_id AND w.active \
             WHERE p.public_slug = $1 AND p.current_notice_id IS NOT NULL",
        )
        .await?;
    let row = client.query_opt(&stmt, &[&slug, &request_key]).await?;
    Ok(row.map(|r| Resolved {
        target: Target { program_id: r.get(0), workspace_id: r.get(1) },
        committed: r.get(2),
        pow_level: r.get::<_, &str>(3).parse().expect("programs_pow_level constraint"),
    }))
}

/// The slug's program, for lock routing only.
pub async fn locate(client: &impl GenericClient, slug: &str) -> Result<Option<Target>> {
    let stmt = client.prepare_cached("SELECT id, workspace_id FROM programs WHERE public_slug = $1").await?;
    let row = client.query_opt(&stmt, &[&slug]).await?;
    Ok(row.map(|r| Target { program_id: r.get(0), workspace_id: r.get(1) }))
}

/// What an admission decides on, read under its locks (see the module doc).
#[derive(Debug, Clone)]
pub struct AdmissionFacts {
    /// `None` when the workspace is gone; else whether it is active.
    pub workspace_active: Option<bool>,
    pub program: Option<ProgramRow>,
    /// The stored binding of the request key, when the key was committed before.
    pub receipt: Option<Vec<u8>>,
    /// The one clock capture, after the locks.
    pub now: DateTime<Utc>,
    /// `now`'s UTC hour and that hour's admissions so far.
    pub bucket: DateTime<Utc>,
    pub hour_count: i32,
    /// The program's entry with this email, if any.
    pub known_entry: Option<Uuid>,
}

/// Takes workspace `FOR KEY SHARE` → program `FOR UPDATE` and reads, after them, the
/// request key's receipt, the clock and hour bucket, and the email's entry: one
/// pipelined round trip (see the module doc).
pub async fn read_under_locks(
    tx: &Transaction<'_>,
    target: Target,
    request_key: Uuid,
    email: &str,
) -> Result<AdmissionFacts> {
    prepare_all(tx).await?;
    let (workspace_active, program, receipt, (now, bucket, hour_count), known_entry) = try_join!(
        locks::workspace(tx, target.workspace_id, Strength::KeyShare),
        locks::program(tx, target.workspace_id, target.program_id, Strength::Update),
        receipt(tx, target.program_id, request_key),
        clock_and_hour(tx, target.program_id),
        entry_by_email(tx, target.program_id, email),
    )?;
    Ok(AdmissionFacts { workspace_active, program, receipt, now, bucket, hour_count, known_entry })
}

/// A new entry with everything its admission writes.
#[derive(Debug, Clone)]
pub struct NewEntry<'a> {
    pub program: &'a ProgramRow,
    pub email: &'a str,
    pub notice_id: Uuid,
    pub notice_version: i32,
    pub request_key: Uuid,
    pub source_ref: Option<&'a str>,
    pub disposable_domain: bool,
    /// The provider's canonical mailbox (`crate::screening::aliases`), if it has rules.
    pub mailbox_key: Option<&'a str>,
    pub binding: &'a [u8],
    pub now: DateTime<Utc>,
    pub bucket: DateTime<Utc>,
}

/// Writes an admission in one pipelined round trip: the entry, the queue counter, the
/// hour bucket, the receipt and the `signup` event. `false` when a counter guard missed
/// (something wrote around the program lock); the caller rolls back. A unique violation
/// (another writer got in first) is `DbError::Unique`.
pub async fn insert_admitted(tx: &Transaction<'_>, e: &NewEntry<'_>) -> Result<bool> {
    let entry_id = Uuid::new_v4();
    let program_id = e.program.id;
    let details = [("noticeVersion", Detail::Number(i64::from(e.notice_version)))];
    let (_, queue, hour, _, _) = try_join!(
        insert_entry(tx, entry_id, program_id, e, e.now),
        bump_queue(tx, program_id),
        bump_hour(tx, program_id, e.bucket, e.program.hourly_cap),
        insert_receipt(tx, program_id, e.request_key, e.binding, entry_id, e.now),
        audit::record(tx, program_id, Some(entry_id), Actor::Public, EventType::Signup, e.now, &details),
    )?;
    Ok(queue.is_some() && hour.is_some())
}

const RECEIPT: &str = "SELECT binding_hmac FROM signup_receipts WHERE program_id = $1 AND request_key = $2";
/// The one clock capture, its UTC hour bucket and that bucket's admissions so far.
const CLOCK_AND_HOUR: &str = r"
SELECT c.at, c.bucket,
  coalesce((SELECT admitted_count FROM intake_hours WHERE program_id = $1 AND bucket_start = c.bucket), 0)
FROM (SELECT t.at, date_trunc('hour', t.at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket
      FROM (SELECT clock_timestamp() AS at) t) c";
const ENTRY_BY_EMAIL: &str = "SELECT id FROM entries WHERE program_id = $1 AND email_key = $2";
/// The entry with its flags; `duplicate_of` is the program's earliest entry with the same
/// mailbox key (none when the key is NULL), read under the program lock.
const INSERT_ENTRY: &str = "INSERT INTO entries \
     (id, program_id, email_key, notice_id, permission_at, state, created_at, updated_at, source_ref, \
      disposable_domain, mailbox_key, duplicate_of) \
     VALUES ($1, $2, $3, $4, $5, 'waiting', $5, $5, $6, $7, $8::text, \
       (SELECT d.id FROM entries d WHERE d.program_id = $2 AND d.mailbox_key = $8::text \
        ORDER BY d.created_at, d.id LIMIT 1))";
/// One more non-withdrawn entry, never past the cap.
const BUMP_QUEUE: &str =
    "UPDATE programs SET queue_count = queue_count + 1 WHERE id = $1 AND queue_count < queue_cap RETURNING queue_count";
/// One more admission in the hour bucket, never past the hourly cap.
const BUMP_HOUR: &str = "INSERT INTO intake_hours (program_id, bucket_start, admitted_count) VALUES ($1, $2, 1) \
     ON CONFLICT (program_id, bucket_start) DO UPDATE SET admitted_count = intake_hours.admitted_count + 1 \
     WHERE intake_hours.admitted_count < $3 RETURNING admitted_count";
const INSERT_RECEIPT: &str = "INSERT INTO signup_receipts \
     (program_id, request_key, binding_hmac, entry_id, accepted_at) VALUES ($1, $2, $3, $4, $5)";

/// Prepares every statement of the admission (one pipelined round trip on a connection
/// that has not run one yet, no I/O once cached). With its statement prepared, a query
/// future sends its request on first poll, so the pipelines above reach the
/// server in argument order — locks before reads, the entry before what refers to it.
async fn prepare_all(tx: &Transaction<'_>) -> Result<()> {
    let program_lock = locks::program_sql(Strength::Update);
    let statements = [
        locks::workspace_sql(Strength::KeyShare),
        &program_lock,
        RECEIPT,
        CLOCK_AND_HOUR,
        ENTRY_BY_EMAIL,
        INSERT_ENTRY,
        BUMP_QUEUE,
        BUMP_HOUR,
        INSERT_RECEIPT,
        audit::RECORD_SQL,
    ];
    try_join_all(statements.iter().map(|sql| tx.prepare_cached(sql))).await?;
    Ok(())
}

async fn receipt(tx: &Transaction<'_>, program_id: Uuid, request_key: Uuid) -> Result<Option<Vec<u8>>> {
    let stmt = tx.prepare_cached(RECEIPT).await?;
    Ok(tx.query_opt(&stmt, &[&program_id, &request_key]).await?.map(|r| r.get(0)))
}

async fn clock_and_hour(tx: &Transaction<'_>, program_id: Uuid) -> Result<(DateTime<Utc>, DateTime<Utc>, i32)> {
    let stmt = tx.prepare_cached(CLOCK_AND_HOUR).await?;
    let r = tx.query_one(&stmt, &[&program_id]).await?;
    Ok((r.get(0), r.get(1), r.get(2)))
}

async fn entry_by_email(tx: &Transaction<'_>, program_id: Uuid, email: &str) -> Result<Option<Uuid>> {
    let stmt = tx.prepare_cached(ENTRY_BY_EMAIL).await?;
    Ok(tx.query_opt(&stmt, &[&program_id, &email]).await?.map(|r| r.get(0)))
}

async fn insert_entry(
    tx: &Transaction<'_>,
    id: Uuid,
    program_id: Uuid,
    e: &NewEntry<'_>,
    now: DateTime<Utc>,
) -> Result<()> {
    let stmt = tx.prepare_cached(INSERT_ENTRY).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] =
        [&id, &program_id, &e.email, &e.notice_id, &now, &e.source_ref, &e.disposable_domain, &e.mailbox_key];
    tx.execute(&stmt, &params).await?;
    Ok(())
}

/// `None` if one more would pass the cap.
async fn bump_queue(tx: &Transaction<'_>, program_id: Uuid) -> Result<Option<i32>> {
    let stmt = tx.prepare_cached(BUMP_QUEUE).await?;
    Ok(tx.query_opt(&stmt, &[&program_id]).await?.map(|r| r.get(0)))
}

/// `None` if one more would pass `cap`.
async fn bump_hour(tx: &Transaction<'_>, program_id: Uuid, bucket: DateTime<Utc>, cap: i32) -> Result<Option<i32>> {
    let stmt = tx.prepare_cached(BUMP_HOUR).await?;
    Ok(tx.query_opt(&stmt, &[&program_id, &bucket, &cap]).await?.map(|r| r.get(0)))
}

/// The receipt of a known email's signup: points at the original entry, nothing else.
pub async fn insert_receipt(
    tx: &Transaction<'_>,
    program_id: Uuid,
    request_key: Uuid,
    binding: &[u8],
    entry_id: Uuid,
    now: DateTime<Utc>,
) -> Result<()> {
    let stmt = tx.prepare_cached(INSERT_RECEIPT).await?;
    tx.execute(&stmt, &[&program_id, &request_key, &binding, &entry_id, &now]).await?;
    Ok(())
}

// ---------------------------------------------------------------- own entries (§6.3)

/// One of the caller's entries, found by one of their verified emails.
#[derive(Debug, Clone)]
pub struct OwnEntry {
    pub slug: String,
    pub state: EntryState,
    pub joined_at: DateTime<Utc>,
    pub notice_version: i32,
    /// 1-based place among the program's waiting entries (by time, then id), while waiting.
    pub position: Option<i64>,
    /// The latest invitation: its state (an issued one past its expiry reads `expired`)
    /// and expiry.
    pub invitation: Option<(InvitationState, DateTime<Utc>)>,
}

/// The earliest entry per program whose email is one of `emails`, in programs of active
/// workspaces, optionally only the program `slug`. One statement, one snapshot.
const OWN_ENTRIES: &str = r"
SELECT * FROM (
  SELECT DISTINCT ON (e.program_id) p.public_slug, e.state, e.created_at, n.version,
    CASE WHEN e.state = 'waiting' THEN
      (SELECT count(*) FROM entries q WHERE q.program_id = e.program_id AND q.state = 'waiting'
         AND (q.created_at, q.id) <= (e.created_at, e.id)) END,
    CASE WHEN i.state = 'issued' AND i.expires_at <= clock_timestamp() THEN 'expired' ELSE i.state END,
    i.expires_at
  FROM entries e
  JOIN programs p ON p.id = e.program_id
  JOIN workspaces ws ON ws.id = p.workspace_id AND ws.active
  JOIN notices n ON n.id = e.notice_id
  LEFT JOIN LATERAL (SELECT state, expires_at FROM invitations
                     WHERE entry_id = e.id ORDER BY issued_at DESC, id DESC LIMIT 1) i ON true
  WHERE e.email_key = ANY($1) AND ($2::text IS NULL OR p.public_slug = $2)
  ORDER BY e.program_id, e.created_at, e.id
) own ORDER BY created_at, public_slug";

pub async fn own_entries(client: &impl GenericClient, emails: &[&str], slug: Option<&str>) -> Result<Vec<OwnEntry>> {
    if emails.is_empty() {
        return Ok(Vec::new());
    }
    let stmt = client.prepare_cached(OWN_ENTRIES).await?;
    let rows = client.query(&stmt, &[&emails, &slug]).await?;
    Ok(rows
        .iter()
        .map(|r| OwnEntry {
            slug: r.get(0),
            state: r.get::<_, &str>(1).parse().expect("entries_state constraint"),
            joined_at: r.get(2),
            notice_version: r.get(3),
            position: r.get(4),
            invitation: r
                .get::<_, Option<&str>>(5)
                .map(|state| (state.parse().expect("invitations_state constraint"), r.get(6))),
        })
        .collect())
}
