//! Invitations: issue (one entry or a batch — the same steps, set-based), the owner's
//! delivery record, and revocation. Policy: locks workspace → program → entry →
//! invitation, then the request key is looked up before any state, seat or expiry check
//! (the same binding replays metadata, another binding is refused), then the database
//! clock decides. A code exists in clear only inside [`FreshCode`], created here and
//! revealed once by the route, after COMMIT; the table keeps only its SHA-256.

use super::limits;
use super::owner::{self, Owned, Scope};
use super::use_case_error;
use crate::crypto;
use crate::db::audit::{self, Detail, EventType};
use crate::db::entries::{self, LockedEntry};
use crate::db::invitations;
use crate::db::owner_receipts::{self, Keyed, Receipt};
use crate::db::{grants, DbError};
use crate::domain::{EntryMove, EntryState, InvitationMove, InvitationState};
use chrono::{DateTime, Utc};
use deadpool_postgres::{Pool, Transaction};
use std::collections::HashMap;
use uuid::Uuid;

pub use crate::db::invitations::InvitationRow;

use_case_error! {
    pub enum InvitationError with transitions {
        #[error("request key reused with other fields")]
        KeyReused,
        #[error("expiry out of range")]
        ExpiryOutOfRange,
        #[error("no seat available")]
        NoSeatAvailable,
        #[error("an invitation is outstanding")]
        InvitationOutstanding,
        #[error("the entry holds an active grant")]
        GrantActive,
        #[error("the invitation is not issued")]
        NotIssued,
        #[error("a delivery is already recorded")]
        DeliveryAlreadyRecorded,
    }
}

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

/// An expiry as the owner asked for it: the instant, and its exact text (which the
/// request binding covers).
#[derive(Debug, Clone)]
pub struct Expiry {
    pub at: DateTime<Utc>,
    pub exact: String,
}

pub enum Issued {
    Created(InvitationRow, FreshCode),
    Replayed(InvitationRow),
}

/// Issues an invitation to one entry (selected, or invited with an expired invitation).
pub async fn issue(
    pool: &Pool,
    key: &[u8],
    user_id: &str,
    (program_id, entry_id): (Uuid, Uuid),
    request_key: Uuid,
    expiry: &Expiry,
) -> Result<Issued, InvitationError> {
    let keyed = Keyed::issue(key, request_key, program_id, entry_id, &expiry.exact);
    owner::write_entry(pool, user_id, (program_id, entry_id), async |o, entry| {
        let issued = invitations::lock_issued(o.tx, &[entry_id]).await?;
        match keyed.check(o.tx, o.program.id).await? {
            Receipt::Replay { target_id } => {
                let invitation = invitations::get(o.tx, o.program.id, target_id).await?;
                return Ok(Issued::Replayed(invitation.ok_or_else(receipt_target_missing)?));
            }
            Receipt::Reused => return Err(InvitationError::KeyReused),
            Receipt::New => {}
        }
        let mut fresh = issue_to(o, &[entry], issued, expiry.at).await?;
        let (invitation, code) = fresh.pop().map(|f| (f.invitation, f.code)).ok_or_else(receipt_target_missing)?;
        keyed.record(o.tx, o.program.id, invitation.id, o.now).await?;
        Ok(Issued::Created(invitation, code))
    })
    .await
}

/// One fresh invitation of a batch, with what the owner's CSV needs.
pub struct FreshInvitation {
    pub entry_id: Uuid,
    pub email: String,
    pub invitation: InvitationRow,
    pub code: FreshCode,
}

pub enum Batch {
    Created(Vec<FreshInvitation>),
    /// What a committed batch created: its id and (entry, invitation) pairs.
    Replayed(Uuid, Vec<(Uuid, InvitationRow)>),
}

/// Issues invitations to every listed entry (distinct, sorted ids) or to none.
pub async fn issue_batch(
    pool: &Pool,
    key: &[u8],
    user_id: &str,
    program_id: Uuid,
    sorted_entry_ids: &[Uuid],
    request_key: Uuid,
    expiry: &Expiry,
) -> Result<Batch, InvitationError> {
    let keyed = Keyed::bulk(key, request_key, program_id, sorted_entry_ids, &expiry.exact);
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let locked =
            entries::lock_many(o.tx, o.program.id, sorted_entry_ids).await?.ok_or(InvitationError::NotFound)?;
        let issued = invitations::lock_issued(o.tx, sorted_entry_ids).await?;
        match keyed.check(o.tx, o.program.id).await? {
            Receipt::Replay { target_id } => return replay_batch(o.tx, o.program.id, target_id).await,
            Receipt::Reused => return Err(InvitationError::KeyReused),
            Receipt::New => {}
        }
        let fresh = issue_to(o, &locked, issued, expiry.at).await?;
        let items: Vec<_> = fresh.iter().map(|f| (f.entry_id, f.invitation.id)).collect();
        let batch_id = owner_receipts::insert_batch(o.tx, o.program.id, &items, o.now).await?;
        keyed.record(o.tx, o.program.id, batch_id, o.now).await?;
        Ok(Batch::Created(fresh))
    })
    .await
}

/// Whether `invitation` is live at `now`: issued and not yet expired. (An issued
/// invitation past its expiry is expired in all but name until an owner action marks it.)
pub fn live(invitation: &InvitationRow, now: DateTime<Utc>) -> bool {
    invitation.state == InvitationState::Issued && now < invitation.expires_at
}

/// Whether its code may be redeemed at `now`: live, and marked sent by the owner (no
/// delivery record, no redemption).
pub fn redeemable(invitation: &InvitationRow, now: DateTime<Utc>) -> bool {
    live(invitation, now) && invitation.delivery_recorded_at.is_some()
}

/// What issuing to a locked entry takes first, decided on its state and its issued
/// invitation (if any) at `now`: nothing for a selected entry without one; for an
/// invited entry whose invitation has lapsed, that invitation's id, to be marked
/// expired; anything else is refused.
fn before_issuing(
    state: EntryState,
    issued: Option<&InvitationRow>,
    now: DateTime<Utc>,
) -> Result<Option<Uuid>, InvitationError> {
    match (state, issued) {
        (EntryState::Selected, None) => Ok(None),
        (EntryState::Invited, Some(inv)) if !live(inv, now) => Ok(Some(inv.id)),
        (_, Some(_)) => Err(InvitationError::InvitationOutstanding),
        _ => Err(InvitationError::InvalidTransition),
    }
}

/// The issuing steps shared by one and many: each locked entry must be `selected`, or
/// `invited` with its issued invitation expired (which is marked `expired`, with its
/// event, and the entry put back to `selected`); none may hold an active grant; the
/// expiry must be in the future and within `maxInviteDays`; the seats must suffice.
/// Then one statement inserts the invitations, one moves the entries, one records the
/// events — the same number of statements for one entry or five hundred.
async fn issue_to(
    o: &Owned<'_, '_>,
    locked: &[LockedEntry],
    issued: Vec<InvitationRow>,
    expires_at: DateTime<Utc>,
) -> Result<Vec<FreshInvitation>, InvitationError> {
    let issued: HashMap<Uuid, InvitationRow> = issued.into_iter().map(|i| (i.entry_id, i)).collect();
    let mut lapsed = Vec::new();
    for entry in locked {
        if let Some(invitation) = before_issuing(entry.state, issued.get(&entry.id), o.now)? {
            lapsed.push((entry.id, invitation));
        }
    }
    expire(o, &lapsed).await?;
    let ids: Vec<Uuid> = locked.iter().map(|e| e.id).collect();
    if grants::lock_of_entries(o.tx, &ids).await?.iter().any(|g| g.active) {
        return Err(InvitationError::GrantActive);
    }
    if !limits::expiry_in_window(expires_at, o.now, o.program.max_invite_days) {
        return Err(InvitationError::ExpiryOutOfRange);
    }
    let in_use = invitations::seats_in_use(o.tx, o.program.id, o.now).await?;
    if !limits::seats_free(in_use, ids.len() as i64, o.program.seat_cap) {
        return Err(InvitationError::NoSeatAvailable);
    }
    let codes: Vec<(String, Vec<u8>)> = ids.iter().map(|_| crypto::new_code()).collect();
    let rows: Vec<(Uuid, Vec<u8>)> = ids.iter().zip(&codes).map(|(id, (_, digest))| (*id, digest.clone())).collect();
    let created = invitations::insert(o.tx, o.program.id, &rows, expires_at, o.now).await?;
    let step = EntryMove::new(EntryState::Selected, EntryState::Invited)?;
    if entries::set_states(o.tx, &ids, step, o.now).await? != ids.len() as u64 {
        return Err(InvitationError::InvalidTransition);
    }
    let events: Vec<_> = created
        .iter()
        .map(|i| (i.entry_id, vec![("invitationId", Detail::Id(i.id)), ("expiresAt", Detail::Time(expires_at))]))
        .collect();
    audit::record_many(o.tx, o.program.id, &events, o.actor(), EventType::InviteIssued, o.now).await?;
    Ok(locked
        .iter()
        .zip(created)
        .zip(codes)
        .map(|((entry, invitation), (code, _))| FreshInvitation {
            entry_id: entry.id,
            email: entry.email.clone(),
            invitation,
            code: FreshCode(code),
        })
        .collect())
}

/// Marks lapsed invitations `expired` and puts their entries back to `selected`, with
/// one `invite_expired` event each.
async fn expire(o: &Owned<'_, '_>, lapsed: &[(Uuid, Uuid)]) -> Result<(), InvitationError> {
    if lapsed.is_empty() {
        return Ok(());
    }
    let (entry_ids, invitation_ids): (Vec<Uuid>, Vec<Uuid>) = lapsed.iter().copied().unzip();
    let end = InvitationMove::new(InvitationState::Issued, InvitationState::Expired)?;
    invitations::finish(o.tx, &invitation_ids, end, o.now).await?;
    let back = EntryMove::new(EntryState::Invited, EntryState::Selected)?;
    entries::set_states(o.tx, &entry_ids, back, o.now).await?;
    let events: Vec<_> = lapsed.iter().map(|(entry, inv)| (*entry, vec![("invitationId", Detail::Id(*inv))])).collect();
    audit::record_many(o.tx, o.program.id, &events, o.actor(), EventType::InviteExpired, o.now).await?;
    Ok(())
}

async fn replay_batch(tx: &Transaction<'_>, program_id: Uuid, batch_id: Uuid) -> Result<Batch, InvitationError> {
    let items = owner_receipts::batch_items(tx, program_id, batch_id).await?;
    let ids: Vec<Uuid> = items.iter().map(|(_, i)| *i).collect();
    let mut rows: HashMap<Uuid, InvitationRow> =
        invitations::get_many(tx, program_id, &ids).await?.into_iter().map(|r| (r.id, r)).collect();
    let pairs = items
        .into_iter()
        .map(|(entry, inv)| rows.remove(&inv).map(|row| (entry, row)).ok_or_else(receipt_target_missing))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Batch::Replayed(batch_id, pairs))
}

fn receipt_target_missing() -> InvitationError {
    InvitationError::Db(DbError::Other("owner action receipt points at a missing row".into()))
}

/// The owner's attestation that they sent the invitation: once per invitation,
/// idempotent by request key, only while it is issued and unexpired.
pub async fn record_delivery(
    pool: &Pool,
    key: &[u8],
    user_id: &str,
    invitation_id: Uuid,
    request_key: Uuid,
    (channel, reference): (&str, Option<&str>),
) -> Result<InvitationRow, InvitationError> {
    owner::write(pool, user_id, Scope::Invitation(invitation_id), async |o| {
        let entry_id = o.entry_id.ok_or(InvitationError::NotFound)?;
        entries::lock(o.tx, o.program.id, entry_id).await?.ok_or(InvitationError::NotFound)?;
        let invitation =
            invitations::lock(o.tx, o.program.id, invitation_id).await?.ok_or(InvitationError::NotFound)?;
        let keyed = Keyed::delivery(key, request_key, o.program.id, invitation_id, channel, reference);
        match keyed.check(o.tx, o.program.id).await? {
            Receipt::Replay { .. } => return Ok(invitation),
            Receipt::Reused => return Err(InvitationError::KeyReused),
            Receipt::New => {}
        }
        if !live(&invitation, o.now) {
            return Err(InvitationError::NotIssued);
        }
        if invitation.delivery_recorded_at.is_some() {
            return Err(InvitationError::DeliveryAlreadyRecorded);
        }
        let invitation = invitations::record_delivery(o.tx, invitation_id, channel, reference, o.now).await?;
        keyed.record(o.tx, o.program.id, invitation_id, o.now).await?;
        let details = [("invitationId", Detail::Id(invitation_id))];
        audit::record(o.tx, o.program.id, Some(entry_id), o.actor(), EventType::DeliveryRecorded, o.now, &details)
            .await?;
        Ok(invitation)
    })
    .await
}

/// What marking a batch sent did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deliveries {
    pub marked: usize,
    pub already_marked: usize,
}

/// Marks the issued invitations of these entries (distinct, sorted ids) sent through one
/// channel: every entry must hold an issued, unexpired invitation, or nothing changes.
/// Set semantics instead of a request key: an invitation marked before is left as it was
/// and counted, so a retry after a lost answer marks nothing twice. One statement records
/// the deliveries and one the `delivery_recorded` events, in the same transaction.
pub async fn record_deliveries(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    sorted_entry_ids: &[Uuid],
    (channel, reference): (&str, Option<&str>),
) -> Result<Deliveries, InvitationError> {
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        entries::lock_many(o.tx, o.program.id, sorted_entry_ids).await?.ok_or(InvitationError::NotFound)?;
        let issued = invitations::lock_issued(o.tx, sorted_entry_ids).await?;
        if issued.len() != sorted_entry_ids.len() || issued.iter().any(|i| i.expires_at <= o.now) {
            return Err(InvitationError::NotIssued);
        }
        let (before, todo): (Vec<_>, Vec<_>) = issued.into_iter().partition(|i| i.delivery_recorded_at.is_some());
        if !todo.is_empty() {
            let ids: Vec<Uuid> = todo.iter().map(|i| i.id).collect();
            invitations::record_deliveries(o.tx, &ids, channel, reference, o.now).await?;
            let events: Vec<_> = todo.iter().map(|i| (i.entry_id, vec![("invitationId", Detail::Id(i.id))])).collect();
            audit::record_many(o.tx, o.program.id, &events, o.actor(), EventType::DeliveryRecorded, o.now).await?;
        }
        Ok(Deliveries { marked: todo.len(), already_marked: before.len() })
    })
    .await
}

/// Issued → revoked, and the entry back to `selected` (a reissue needs a new key).
pub async fn revoke(pool: &Pool, user_id: &str, invitation_id: Uuid) -> Result<InvitationRow, InvitationError> {
    owner::write(pool, user_id, Scope::Invitation(invitation_id), async |o| {
        let entry_id = o.entry_id.ok_or(InvitationError::NotFound)?;
        let entry = entries::lock(o.tx, o.program.id, entry_id).await?.ok_or(InvitationError::NotFound)?;
        let invitation =
            invitations::lock(o.tx, o.program.id, invitation_id).await?.ok_or(InvitationError::NotFound)?;
        let end = InvitationMove::new(invitation.state, InvitationState::Revoked)?;
        let back = EntryMove::new(entry.state, EntryState::Selected)?;
        let revoked = invitations::finish(o.tx, &[invitation_id], end, o.now).await?;
        if !entries::set_state(o.tx, entry_id, back, o.now).await? {
            return Err(InvitationError::InvalidTransition);
        }
        let details = [("invitationId", Detail::Id(invitation_id))];
        audit::record(o.tx, o.program.id, Some(entry_id), o.actor(), EventType::InviteRevoked, o.now, &details).await?;
        revoked.into_iter().next().ok_or(InvitationError::InvalidTransition)
    })
    .await
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use chrono::Duration;

    pub fn invitation(state: InvitationState, expires_at: DateTime<Utc>, sent: bool) -> InvitationRow {
        InvitationRow {
            id: Uuid::from_u128(7),
            program_id: Uuid::nil(),
            entry_id: Uuid::from_u128(1),
            state,
            issued_at: expires_at - Duration::days(7),
            expires_at,
            delivery_recorded_at: sent.then_some(expires_at - Duration::days(6)),
            delivery_channel: sent.then(|| "email".to_owned()),
            delivery_reference: None,
        }
    }

    #[test]
    fn an_invitation_is_live_while_issued_and_unexpired_and_redeemable_once_sent() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let later = now + Duration::hours(1);
        assert!(live(&invitation(InvitationState::Issued, later, false), now));
        assert!(!live(&invitation(InvitationState::Issued, now, true), now), "expiring now is expired");
        for ended in [InvitationState::Redeemed, InvitationState::Revoked, InvitationState::Expired] {
            assert!(!live(&invitation(ended, later, true), now), "{ended:?}");
        }
        assert!(redeemable(&invitation(InvitationState::Issued, later, true), now));
        assert!(!redeemable(&invitation(InvitationState::Issued, later, false), now), "not marked sent");
    }

    #[test]
    fn issuing_needs_a_selected_entry_or_a_lapsed_invitation() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let lapsed = invitation(InvitationState::Issued, now - Duration::seconds(1), true);
        let live_one = invitation(InvitationState::Issued, now + Duration::days(1), true);
        assert!(matches!(before_issuing(EntryState::Selected, None, now), Ok(None)));
        assert!(matches!(before_issuing(EntryState::Invited, Some(&lapsed), now), Ok(Some(id)) if id == lapsed.id));
        assert!(matches!(
            before_issuing(EntryState::Invited, Some(&live_one), now),
            Err(InvitationError::InvitationOutstanding)
        ));
        assert!(matches!(before_issuing(EntryState::Waiting, None, now), Err(InvitationError::InvalidTransition)));
        assert!(matches!(before_issuing(EntryState::Active, None, now), Err(InvitationError::InvalidTransition)));
    }
}
