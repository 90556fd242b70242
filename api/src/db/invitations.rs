//! `invitations` rows: locks, reads, inserts, the one writer of `invitations.state`,
//! delivery records and seats. Policy: the table keeps only SHA-256 of a code's bytes,
//! and no statement here ever reads the digest back. Callers hold the workspace and
//! program locks and take entry → invitation → grant locks in that order; several
//! invitations are locked in entry id order.

use super::Result;
use crate::domain::{InvitationMove, InvitationState};
use chrono::{DateTime, Utc};
use deadpool_postgres::{GenericClient, Transaction};
use tokio_postgres::Row;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct InvitationRow {
    pub id: Uuid,
    pub program_id: Uuid,
    pub entry_id: Uuid,
    pub state: InvitationState,
    pub issued_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub delivery_recorded_at: Option<DateTime<Utc>>,
    pub delivery_channel: Option<String>,
    pub delivery_reference: Option<String>,
}

/// Every column but the digest, which is never read back.
const COLUMNS: &str = "id, program_id, entry_id, state, issued_at, expires_at, delivery_recorded_at, \
                       delivery_channel, delivery_reference";

impl From<&Row> for InvitationRow {
    fn from(r: &Row) -> Self {
        InvitationRow {
            id: r.get(0),
            program_id: r.get(1),
            entry_id: r.get(2),
            state: r.get::<_, &str>(3).parse().expect("invitations_state constraint"),
            issued_at: r.get(4),
            expires_at: r.get(5),
            delivery_recorded_at: r.get(6),
            delivery_channel: r.get(7),
            delivery_reference: r.get(8),
        }
    }
}

/// (program, entry) of an invitation, for lock routing only: both are immutable, and
/// every later lock statement checks them again.
pub async fn route(tx: &Transaction<'_>, id: Uuid) -> Result<Option<(Uuid, Uuid)>> {
    let stmt = tx.prepare_cached("SELECT program_id, entry_id FROM invitations WHERE id = $1").await?;
    Ok(tx.query_opt(&stmt, &[&id]).await?.map(|r| (r.get(0), r.get(1))))
}

/// Where a code points (its invitation, program, entry and workspace), for lock routing
/// only: all four are immutable, so it may be read before the transaction, on any
/// connection; the lock statements check them again.
pub async fn route_by_digest(client: &impl GenericClient, digest: &[u8]) -> Result<Option<super::redemptions::Route>> {
    let stmt = client
        .prepare_cached(
            "SELECT i.id, i.program_id, i.entry_id, p.workspace_id FROM invitations i \
             JOIN programs p ON p.id = i.program_id WHERE i.token_sha256 = $1",
        )
        .await?;
    Ok(client.query_opt(&stmt, &[&digest]).await?.map(|r| super::redemptions::Route {
        invitation_id: r.get(0),
        program_id: r.get(1),
        entry_id: r.get(2),
        workspace_id: r.get(3),
    }))
}

pub(crate) fn lock_sql() -> String {
    format!("SELECT {COLUMNS} FROM invitations WHERE id = $1 AND program_id = $2 FOR UPDATE")
}

/// Locks one invitation of `program_id` (after its entry).
pub async fn lock(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<InvitationRow>> {
    let stmt = tx.prepare_cached(&lock_sql()).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(InvitationRow::from))
}

/// Locks the one issued invitation of each listed (locked) entry that has one, in entry
/// id order.
pub async fn lock_issued(tx: &Transaction<'_>, sorted_entry_ids: &[Uuid]) -> Result<Vec<InvitationRow>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM invitations WHERE entry_id = ANY($1) AND state = 'issued' ORDER BY entry_id FOR UPDATE"
    );
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query(&stmt, &[&sorted_entry_ids]).await?.iter().map(InvitationRow::from).collect())
}

pub async fn get(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<InvitationRow>> {
    let sql = format!("SELECT {COLUMNS} FROM invitations WHERE id = $1 AND program_id = $2");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(InvitationRow::from))
}

/// The invitations of a program with the given ids, in id order.
pub async fn get_many(tx: &Transaction<'_>, program_id: Uuid, ids: &[Uuid]) -> Result<Vec<InvitationRow>> {
    let sql = format!("SELECT {COLUMNS} FROM invitations WHERE id = ANY($1) AND program_id = $2 ORDER BY id");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query(&stmt, &[&ids, &program_id]).await?.iter().map(InvitationRow::from).collect())
}

/// The entry's invitations, oldest first.
pub async fn of_entry(tx: &Transaction<'_>, entry_id: Uuid) -> Result<Vec<InvitationRow>> {
    let sql = format!("SELECT {COLUMNS} FROM invitations WHERE entry_id = $1 ORDER BY issued_at, id");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query(&stmt, &[&entry_id]).await?.iter().map(InvitationRow::from).collect())
}

pub(crate) fn finish_sql() -> String {
    format!(
        "UPDATE invitations SET state = $2, terminal_at = $3 WHERE id = ANY($1) AND state = 'issued' \
         RETURNING {COLUMNS}"
    )
}

/// Ends locked, issued invitations (the move's target state) at `now`: the one writer
/// of `invitations.state`. Returns them as they are now, in id order.
pub async fn finish(
    tx: &Transaction<'_>,
    ids: &[Uuid],
    step: InvitationMove,
    now: DateTime<Utc>,
) -> Result<Vec<InvitationRow>> {
    let stmt = tx.prepare_cached(&finish_sql()).await?;
    let mut rows: Vec<InvitationRow> =
        tx.query(&stmt, &[&ids, &step.to().as_str(), &now]).await?.iter().map(InvitationRow::from).collect();
    rows.sort_by_key(|r| r.id);
    Ok(rows)
}

/// Seats in use at `now` (the transaction's clock): active grants plus issued
/// invitations not yet expired. Call under the program lock when deciding on it.
pub async fn seats_in_use(tx: &Transaction<'_>, program_id: Uuid, now: DateTime<Utc>) -> Result<i64> {
    let stmt = tx.prepare_cached(&format!("SELECT {}", seats_expr("$1", "$2"))).await?;
    Ok(tx.query_one(&stmt, &[&program_id, &now]).await?.get(0))
}

/// The one definition of seats in use, as an SQL expression of a program id and a time:
/// the program's active grants plus its issued invitations not yet expired at `now`.
///
/// Policy (issue 28, figures in constant time): the active grants are read as the kept
/// count of the program's `active` entries (`program_entry_counts`, V101), not counted
/// row by row. The two are one number: an entry holds at most one grant
/// (`grants_entry_id_key`), a grant is active exactly while its entry is `active` (every
/// transition moves both in one transaction under the program lock; `vestibule verify`
/// checks both directions). Counting `grants` read an index entry (and, until vacuum
/// marks the pages, a heap page) for every active grant of the program, on each
/// issue, cohort-code use and program read, under the program lock: O(everyone
/// admitted so far) for a launch's cohort code. The invitations part still counts rows,
/// but only the issued, unexpired ones (`invite_program_issued_idx`): the codes
/// outstanding now.
pub fn seats_expr(program: &str, now: &str) -> String {
    format!(
        "(coalesce((SELECT n FROM program_entry_counts WHERE program_id = {program} AND state = 'active'), 0) \
          + (SELECT count(*) FROM invitations WHERE program_id = {program} AND state = 'issued' AND expires_at > {now}))"
    )
}

/// Inserts one issued invitation per (entry, digest), all expiring at `expires_at`;
/// returns them in the order given.
pub async fn insert(
    tx: &Transaction<'_>,
    program_id: Uuid,
    entries_and_digests: &[(Uuid, Vec<u8>)],
    expires_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Vec<InvitationRow>> {
    let sql = format!(
        "INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at) \
         SELECT $1, e, d, 'issued', $4, $5 FROM unnest($2::uuid[], $3::bytea[]) AS t(e, d) RETURNING {COLUMNS}"
    );
    let entries: Vec<Uuid> = entries_and_digests.iter().map(|(e, _)| *e).collect();
    let digests: Vec<&[u8]> = entries_and_digests.iter().map(|(_, d)| d.as_slice()).collect();
    let stmt = tx.prepare_cached(&sql).await?;
    let rows = tx.query(&stmt, &[&program_id, &entries, &digests, &now, &expires_at]).await?;
    let place: std::collections::HashMap<Uuid, usize> = entries.iter().enumerate().map(|(i, e)| (*e, i)).collect();
    let mut out: Vec<InvitationRow> = rows.iter().map(InvitationRow::from).collect();
    out.sort_by_key(|r| place.get(&r.entry_id).copied());
    Ok(out)
}

/// Stores the owner's attestation that they sent the invitation.
pub async fn record_delivery(
    tx: &Transaction<'_>,
    id: Uuid,
    channel: &str,
    reference: Option<&str>,
    now: DateTime<Utc>,
) -> Result<InvitationRow> {
    let sql = format!(
        "UPDATE invitations SET delivery_recorded_at = $2, delivery_channel = $3, delivery_reference = $4 \
         WHERE id = $1 RETURNING {COLUMNS}"
    );
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(InvitationRow::from(&tx.query_one(&stmt, &[&id, &now, &channel, &reference]).await?))
}

/// Records one delivery (channel, reference) on every listed invitation at `now`.
pub async fn record_deliveries(
    tx: &Transaction<'_>,
    ids: &[Uuid],
    channel: &str,
    reference: Option<&str>,
    now: DateTime<Utc>,
) -> Result<u64> {
    let stmt = tx
        .prepare_cached(
            "UPDATE invitations SET delivery_recorded_at = $2, delivery_channel = $3, delivery_reference = $4 \
             WHERE id = ANY($1)",
        )
        .await?;
    Ok(tx.execute(&stmt, &[&ids, &now, &channel, &reference]).await?)
}
