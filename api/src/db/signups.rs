//! The applicant's side of `entries`: the SQL of public admission (SPEC §6.2; the order
//! of its decisions is `usecases::admission`'s, and the `admit_signups` function of
//! migrations V100 and V140 takes them in that order, as V61's `admit_signup` did for one) and the
//! signed-in applicant's own entries (§6.3).
//!
//! What the database does on its own here: [`admit_batch`] calls the PL/pgSQL
//! `admit_signups` (V140), which *is* the signup policy — for a batch of attempts on the
//! programs of one workspace (`crate::group` forms them), in arrival order, it locks,
//! decides and writes the entries, their counters, receipts and `signup` events, chains
//! the events (one chain per program) and enqueues their webhooks (migrations/README.md
//! maps every trigger and function).
//!
//! Round trips: the admission transaction is one — BEGIN, `admit_signups(…)` and COMMIT
//! go out as one pipeline (with its statement prepared, tokio-postgres writes a request
//! when its future is first polled, and `join!` polls in argument order), and the
//! function takes the locks, reads fresh after them, decides and writes inside the
//! server. So the program lock is held for the batch's own work and the commit's one
//! flush, never for a client's turnaround. No `count(*)` under the lock: the queue is the
//! program's entry counts (V101's `program_entry_counts`, V145), the hour is one
//! `intake_hours` row.

use super::Result;
use crate::domain::{EntryState, InvitationState};
use chrono::{DateTime, Utc};
use deadpool_postgres::{Client, GenericClient};
use shared::questions::{JoinWith, Question};
use tokio_postgres::types::ToSql;
use uuid::Uuid;

/// A program's address for lock routing: read without a lock, rechecked under it.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub program_id: Uuid,
    pub workspace_id: Uuid,
}

/// What admission reads before its transaction, for a *public* program only (active
/// workspace, a published notice: what `GET` shows; anything else is `None`, the same
/// 404): where to lock, whether `request_key` already has a committed receipt, the
/// proof of work the form asks for, how applicants join, and the questions of the
/// notice version the applicant answered (plain reads, for the rate limiter, the
/// challenge and the answers' checks; the transaction reads the rest again, and a
/// notice version never changes).
#[derive(Debug, Clone)]
pub struct Resolved {
    pub target: Target,
    pub committed: bool,
    pub pow_level: shared::edge::PowLevel,
    pub join_with: JoinWith,
    /// `None` when the program has no such notice version (the admission then refuses
    /// it as outdated).
    pub questions: Option<Vec<Question>>,
}

pub async fn resolve(
    client: &impl GenericClient,
    slug: &str,
    request_key: Uuid,
    notice_version: i32,
) -> Result<Option<Resolved>> {
    let stmt = client
        .prepare_cached(
            "SELECT p.id, p.workspace_id, EXISTS (SELECT 1 FROM signup_receipts r \
               WHERE r.program_id = p.id AND r.request_key = $2), p.pow_level, p.join_with, \
               (SELECT n.questions FROM notices n WHERE n.program_id = p.id AND n.version = $3) \
             FROM programs p JOIN workspaces w ON w.id = p.workspace_id AND w.active \
             WHERE p.public_slug = $1 AND p.current_notice_id IS NOT NULL",
        )
        .await?;
    let row = client.query_opt(&stmt, &[&slug, &request_key, &notice_version]).await?;
    Ok(row.map(|r| Resolved {
        target: Target { program_id: r.get(0), workspace_id: r.get(1) },
        committed: r.get(2),
        pow_level: r.get::<_, &str>(3).parse().expect("programs_pow_level constraint"),
        join_with: r.get::<_, &str>(4).parse().expect("programs_join_with constraint"),
        questions: r.get::<_, Option<serde_json::Value>>(5).map(super::programs::questions_of),
    }))
}

/// The slug's program, for lock routing only.
pub async fn locate(client: &impl GenericClient, slug: &str) -> Result<Option<Target>> {
    let stmt = client.prepare_cached("SELECT id, workspace_id FROM programs WHERE public_slug = $1").await?;
    let row = client.query_opt(&stmt, &[&slug]).await?;
    Ok(row.map(|r| Target { program_id: r.get(0), workspace_id: r.get(1) }))
}

/// One admission attempt, with everything the server computed before the transaction.
/// Owned, so it can wait for its batch (`crate::group`) apart from its request. `Debug`
/// is hand-written: the address and its mailbox never reach a log.
#[derive(Clone)]
pub struct Attempt {
    pub request_key: Uuid,
    pub email: String,
    pub notice_version: i32,
    pub permission: bool,
    /// The receipt binding (an HMAC; never a plain email digest).
    pub binding: Vec<u8>,
    pub source_ref: Option<String>,
    pub disposable_domain: bool,
    /// The provider's canonical mailbox (`crate::screening::aliases`), if it has rules.
    pub mailbox_key: Option<String>,
    /// The verified proof of work's signature and expiry (`crate::pow`), to be recorded
    /// as spent (V42's `pow_spent`); `None` when the program asks for none.
    pub pow: Option<(Vec<u8>, Option<DateTime<Utc>>)>,
    /// The checked answers (`{}` for none) and whether the address is one the signed-in
    /// applicant's account has verified: stored beside a new entry by
    /// [`RECORD_BATCH_ANSWERS`], in the same transaction.
    pub answers: serde_json::Value,
    pub verified: bool,
}

impl std::fmt::Debug for Attempt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attempt")
            .field("request_key", &self.request_key)
            .field("email", &"<redacted>")
            .field("notice_version", &self.notice_version)
            .field("permission", &self.permission)
            .field("source_ref", &self.source_ref)
            .finish_non_exhaustive()
    }
}

/// What `admit_signups` decided for one attempt, in the contract's order of decisions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decided {
    /// No program of that workspace (it went away after the slug was read).
    NotFound,
    /// The key was committed before (or by an earlier attempt of the same batch): its
    /// stored binding, for the caller to compare.
    Receipt(Vec<u8>),
    /// The proof of work was used before.
    ChallengeFailed,
    Closed,
    NoticeOutdated,
    PermissionRequired,
    /// A queue or hour cap is reached; nothing was written.
    Capped,
    /// A known email: a receipt points at its entry, nothing else changed.
    Duplicate,
    /// A new entry, its counters, receipt and `signup` event.
    Admitted,
}

const ADMIT: &str = "SELECT ord, outcome, stored_binding \
     FROM admit_signups($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ORDER BY ord";

/// What the applicant said (V131's `record_batch_answers`, V140: a program per attempt): after the admission's writes,
/// in its transaction and its pipeline, it stores the answers and the verified-at-join time
/// of each entry this transaction created (those of the attempt that created it), and
/// nothing for a replay, a known address or a refusal.
const RECORD_BATCH_ANSWERS: &str = "SELECT record_batch_answers($1, $2, $3, $4)";

/// Whether an attempt has anything for [`RECORD_BATCH_ANSWERS`] to store; when no
/// attempt of a batch has, the statement is not sent at all.
fn records_answers(a: &Attempt) -> bool {
    a.verified || a.answers.as_object().is_some_and(|o| !o.is_empty())
}

/// Admits a batch of attempts on the programs of one workspace (arrival order; attempt
/// `i` is for `programs[i]`) as one READ COMMITTED transaction (see the module doc): one decision per attempt, in the same order. BEGIN,
/// the call and COMMIT are one pipeline (one round trip); when an attempt of the batch has
/// answers or a verified address, [`RECORD_BATCH_ANSWERS`] joins the pipeline before
/// COMMIT, and stores only what the entries this transaction created were admitted with,
/// so a replay or a known address in the same batch never stores answers. A failure rolls
/// the whole batch back and is returned: a deadlock, or a counter guard that missed, is
/// `DbError::Retry`; another writer's unique key is `DbError::Unique`.
pub async fn admit_batch(
    client: &Client,
    workspace_id: Uuid,
    programs: &[Uuid],
    attempts: &[Attempt],
) -> Result<Vec<Decided>> {
    debug_assert_eq!(programs.len(), attempts.len());
    let stmt = client.prepare_cached(ADMIT).await?;
    let keys: Vec<Uuid> = attempts.iter().map(|a| a.request_key).collect();
    let emails: Vec<&str> = attempts.iter().map(|a| a.email.as_str()).collect();
    let versions: Vec<i32> = attempts.iter().map(|a| a.notice_version).collect();
    let permissions: Vec<bool> = attempts.iter().map(|a| a.permission).collect();
    let bindings: Vec<&[u8]> = attempts.iter().map(|a| a.binding.as_slice()).collect();
    let sources: Vec<Option<&str>> = attempts.iter().map(|a| a.source_ref.as_deref()).collect();
    let disposable: Vec<bool> = attempts.iter().map(|a| a.disposable_domain).collect();
    let mailboxes: Vec<Option<&str>> = attempts.iter().map(|a| a.mailbox_key.as_deref()).collect();
    let signatures: Vec<Option<&[u8]>> = attempts.iter().map(|a| a.pow.as_ref().map(|(s, _)| s.as_slice())).collect();
    let expiries: Vec<Option<DateTime<Utc>>> = attempts.iter().map(|a| a.pow.as_ref().and_then(|(_, e)| *e)).collect();
    let params: [&(dyn ToSql + Sync); 12] = [
        &workspace_id,
        &programs,
        &keys,
        &emails,
        &versions,
        &permissions,
        &bindings,
        &sources,
        &disposable,
        &mailboxes,
        &signatures,
        &expiries,
    ];
    if !attempts.iter().any(records_answers) {
        let (begin, rows, commit) = futures_util::join!(
            client.batch_execute("BEGIN ISOLATION LEVEL READ COMMITTED"),
            client.query(&stmt, &params),
            client.batch_execute("COMMIT"),
        );
        begin?;
        let rows = rows?;
        commit?;
        return decisions(&rows, attempts.len());
    }
    // With answers: V131's batch call goes out in the same pipeline, before COMMIT (no
    // wait for the decisions under the program lock). It stores, per entry this
    // transaction created, the answers of the first attempt pointing at it — as the
    // per-attempt call did for each admitted attempt.
    let record = client.prepare_cached(RECORD_BATCH_ANSWERS).await?;
    let answers: Vec<&serde_json::Value> = attempts.iter().map(|a| &a.answers).collect();
    let verified: Vec<bool> = attempts.iter().map(|a| a.verified).collect();
    let record_params: [&(dyn ToSql + Sync); 4] = [&programs, &keys, &answers, &verified];
    let (begin, rows, recorded, commit) = futures_util::join!(
        client.batch_execute("BEGIN ISOLATION LEVEL READ COMMITTED"),
        client.query(&stmt, &params),
        client.execute(&record, &record_params),
        client.batch_execute("COMMIT"),
    );
    // A failed statement aborts the transaction: its COMMIT then rolls back (PostgreSQL
    // answers it with ROLLBACK), so nothing of the batch was written.
    begin?;
    let rows = rows?;
    recorded?;
    commit?;
    decisions(&rows, attempts.len())
}

/// The rows `admit_signups` answered, as decisions in the batch's order.
fn decisions(rows: &[tokio_postgres::Row], expected: usize) -> Result<Vec<Decided>> {
    if rows.len() != expected {
        return Err(super::DbError::Other(format!("admit_signups answered {} of {expected}", rows.len())));
    }
    rows.iter()
        .map(|row| {
            Ok(match row.get::<_, &str>(1) {
                "not_found" => Decided::NotFound,
                "receipt" => Decided::Receipt(row.get(2)),
                "challenge_failed" => Decided::ChallengeFailed,
                "closed" => Decided::Closed,
                "notice_outdated" => Decided::NoticeOutdated,
                "permission_required" => Decided::PermissionRequired,
                "capped" => Decided::Capped,
                "duplicate" => Decided::Duplicate,
                "admitted" => Decided::Admitted,
                other => return Err(super::DbError::Other(format!("admit_signups answered {other:?}"))),
            })
        })
        .collect()
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
