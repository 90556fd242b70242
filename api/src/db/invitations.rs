//! Invitations and the grants they lead to: locks, the issuing steps shared by the
//! single and the bulk issue, seats, expiry, revocation and delivery records.
//! Policy: a code exists in clear only inside [`FreshCode`], which the handler turns
//! into the one response after COMMIT; the table keeps only SHA-256 of the code's
//! bytes. Callers hold the workspace and program locks and take entry → invitation →
//! grant locks in that order.

use crate::crypto;
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::queue;
use crate::domain::{EntryState, InvitationState};
use crate::error::{ApiError, Result};
use crate::routes::ts;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use shared::ErrorCode;
use tokio_postgres::Row;
use uuid::Uuid;

/// A freshly generated code. Its `Debug` is redacted so it cannot reach a log line by
/// accident; [`FreshCode::reveal`] is called once, to build the issuing response.
pub struct FreshCode(String);

impl FreshCode {
    pub fn reveal(self) -> String {
        self.0
    }
}

impl std::fmt::Debug for FreshCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FreshCode(<redacted>)")
    }
}

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
            state: r.get::<_, &str>(3).parse::<InvitationState>().expect("invitations_state constraint"),
            issued_at: r.get(4),
            expires_at: r.get(5),
            delivery_recorded_at: r.get(6),
            delivery_channel: r.get(7),
            delivery_reference: r.get(8),
        }
    }
}

impl From<&InvitationRow> for shared::api::Invitation {
    fn from(i: &InvitationRow) -> Self {
        let delivery = match (i.delivery_recorded_at, &i.delivery_channel) {
            (Some(at), Some(channel)) => Some(shared::api::DeliveryRecord {
                recorded_at: ts(at),
                channel: channel.clone(),
                reference: i.delivery_reference.clone(),
            }),
            _ => None,
        };
        shared::api::Invitation {
            id: i.id,
            state: i.state,
            issued_at: ts(i.issued_at),
            expires_at: ts(i.expires_at),
            delivery,
        }
    }
}

/// (program, entry) of an invitation, for lock routing only: both are immutable, and
/// every later lock statement checks them again.
pub async fn route(tx: &Transaction<'_>, id: Uuid) -> Result<Option<(Uuid, Uuid)>> {
    let stmt = tx.prepare_cached("SELECT program_id, entry_id FROM invitations WHERE id = $1").await?;
    Ok(tx.query_opt(&stmt, &[&id]).await?.map(|r| (r.get(0), r.get(1))))
}

/// Locks one invitation of `program_id` (after its entry).
pub async fn lock(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<InvitationRow>> {
    let sql = format!("SELECT {COLUMNS} FROM invitations WHERE id = $1 AND program_id = $2 FOR UPDATE");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(InvitationRow::from))
}

/// Locks the entry's one issued invitation, if it has one (after the entry lock).
pub async fn lock_issued(tx: &Transaction<'_>, entry_id: Uuid) -> Result<Option<InvitationRow>> {
    let sql = format!("SELECT {COLUMNS} FROM invitations WHERE entry_id = $1 AND state = 'issued' FOR UPDATE");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&entry_id]).await?.as_ref().map(InvitationRow::from))
}

pub async fn get(client: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<InvitationRow>> {
    let sql = format!("SELECT {COLUMNS} FROM invitations WHERE id = $1 AND program_id = $2");
    let stmt = client.prepare_cached(&sql).await?;
    Ok(client.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(InvitationRow::from))
}

/// The entry's invitations, oldest first.
pub async fn of_entry(client: &Transaction<'_>, entry_id: Uuid) -> Result<Vec<InvitationRow>> {
    let sql = format!("SELECT {COLUMNS} FROM invitations WHERE entry_id = $1 ORDER BY issued_at, id");
    let stmt = client.prepare_cached(&sql).await?;
    Ok(client.query(&stmt, &[&entry_id]).await?.iter().map(InvitationRow::from).collect())
}

/// Ends a locked, issued invitation (`revoked` or `expired`) at `now`; returns it as it
/// is now.
pub async fn finish(
    tx: &Transaction<'_>,
    inv: &InvitationRow,
    to: InvitationState,
    now: DateTime<Utc>,
) -> Result<InvitationRow> {
    if !inv.state.may_become(to) {
        return Err(ApiError::Conflict(ErrorCode::InvalidTransition));
    }
    let sql = format!("UPDATE invitations SET state = $2, terminal_at = $3 WHERE id = $1 RETURNING {COLUMNS}");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(InvitationRow::from(&tx.query_one(&stmt, &[&inv.id, &to.as_str(), &now]).await?))
}

/// Seats in use: active grants plus issued invitations unexpired at `now`.
pub async fn seats_in_use(tx: &Transaction<'_>, program_id: Uuid, now: DateTime<Utc>) -> Result<i64> {
    const SQL: &str = r"
        SELECT (SELECT count(*) FROM grants WHERE program_id = $1 AND active)
             + (SELECT count(*) FROM invitations WHERE program_id = $1 AND state = 'issued' AND expires_at > $2)";
    let stmt = tx.prepare_cached(SQL).await?;
    Ok(tx.query_one(&stmt, &[&program_id, &now]).await?.get(0))
}

/// Makes a locked entry (whose issued invitation, if any, is locked too) ready for a
/// new invitation: `selected`, or `invited` with an expired invitation, which is marked
/// `expired` (with its event) and the entry put back to `selected`. No active grant.
pub async fn prepare_entry(
    tx: &Transaction<'_>,
    program_id: Uuid,
    entry_id: Uuid,
    state: EntryState,
    issued: Option<&InvitationRow>,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<()> {
    match (state, issued) {
        (EntryState::Selected, None) => {}
        (EntryState::Invited, Some(inv)) if inv.expires_at <= now => {
            finish(tx, inv, InvitationState::Expired, now).await?;
            queue::set_state(tx, entry_id, EntryState::Invited, EntryState::Selected, now).await?;
            let details = [("invitationId", Detail::Id(inv.id))];
            audit::record(tx, program_id, Some(entry_id), actor, EventType::InviteExpired, now, &details).await?;
        }
        (_, Some(_)) => return Err(ApiError::Conflict(ErrorCode::InvitationOutstanding)),
        _ => return Err(ApiError::Conflict(ErrorCode::InvalidTransition)),
    }
    let stmt = tx.prepare_cached("SELECT id FROM grants WHERE entry_id = $1 AND active FOR UPDATE").await?;
    if tx.query_opt(&stmt, &[&entry_id]).await?.is_some() {
        return Err(ApiError::Conflict(ErrorCode::GrantActive));
    }
    Ok(())
}

/// Issues an invitation to a prepared (`selected`) entry: a fresh code whose digest is
/// stored, the entry `invited`, one `invite_issued` event.
pub async fn issue(
    tx: &Transaction<'_>,
    program_id: Uuid,
    entry_id: Uuid,
    expires_at: DateTime<Utc>,
    actor: Actor,
    now: DateTime<Utc>,
) -> Result<(InvitationRow, FreshCode)> {
    let (code, digest) = crypto::new_code();
    let sql = format!(
        "INSERT INTO invitations (program_id, entry_id, token_sha256, state, issued_at, expires_at) \
         VALUES ($1, $2, $3, 'issued', $4, $5) RETURNING {COLUMNS}"
    );
    let stmt = tx.prepare_cached(&sql).await?;
    let row = tx.query_one(&stmt, &[&program_id, &entry_id, &digest, &now, &expires_at]).await?;
    let invitation = InvitationRow::from(&row);
    queue::set_state(tx, entry_id, EntryState::Selected, EntryState::Invited, now).await?;
    let details = [("invitationId", Detail::Id(invitation.id)), ("expiresAt", Detail::Time(expires_at))];
    audit::record(tx, program_id, Some(entry_id), actor, EventType::InviteIssued, now, &details).await?;
    Ok((invitation, FreshCode(code)))
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

#[derive(Debug, Clone)]
pub struct GrantRow {
    pub id: Uuid,
    pub entry_id: Uuid,
    pub active: bool,
    pub granted_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

const GRANT_COLUMNS: &str = "id, entry_id, active, granted_at, revoked_at";

impl From<&Row> for GrantRow {
    fn from(r: &Row) -> Self {
        GrantRow { id: r.get(0), entry_id: r.get(1), active: r.get(2), granted_at: r.get(3), revoked_at: r.get(4) }
    }
}

impl From<&GrantRow> for shared::api::Grant {
    fn from(g: &GrantRow) -> Self {
        shared::api::Grant {
            id: g.id,
            active: g.active,
            granted_at: ts(g.granted_at),
            revoked_at: g.revoked_at.map(ts),
        }
    }
}

/// (program, entry) of a grant, for lock routing only (immutable; rechecked under lock).
pub async fn grant_route(tx: &Transaction<'_>, id: Uuid) -> Result<Option<(Uuid, Uuid)>> {
    let stmt = tx.prepare_cached("SELECT program_id, entry_id FROM grants WHERE id = $1").await?;
    Ok(tx.query_opt(&stmt, &[&id]).await?.map(|r| (r.get(0), r.get(1))))
}

/// Locks a grant of `program_id` (after its entry and any invitation lock).
pub async fn lock_grant(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<GrantRow>> {
    let sql = format!("SELECT {GRANT_COLUMNS} FROM grants WHERE id = $1 AND program_id = $2 FOR UPDATE");
    let stmt = tx.prepare_cached(&sql).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(GrantRow::from))
}

pub async fn grant_of_entry(client: &Transaction<'_>, entry_id: Uuid) -> Result<Option<GrantRow>> {
    let sql = format!("SELECT {GRANT_COLUMNS} FROM grants WHERE entry_id = $1");
    let stmt = client.prepare_cached(&sql).await?;
    Ok(client.query_opt(&stmt, &[&entry_id]).await?.as_ref().map(GrantRow::from))
}

/// Deactivates a locked, active grant at `now`.
pub async fn revoke_grant(tx: &Transaction<'_>, id: Uuid, now: DateTime<Utc>) -> Result<GrantRow> {
    let sql =
        format!("UPDATE grants SET active = false, revoked_at = $2 WHERE id = $1 AND active RETURNING {GRANT_COLUMNS}");
    let stmt = tx.prepare_cached(&sql).await?;
    let row = tx.query_opt(&stmt, &[&id, &now]).await?.ok_or(ApiError::Conflict(ErrorCode::InvalidTransition))?;
    Ok(GrantRow::from(&row))
}
