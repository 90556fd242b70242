//! Erasure (issue 16): an applicant erases their own entry, or an owner erases one on
//! request with a reason code. Policy: a live entry is withdrawn first (the shared
//! transition: an issued invitation revoked, an active grant ended), then redacted at
//! once as retention redaction does (links kept), with a receipt, an `erased` event and a
//! suppression — a keyed hash of the address that `vestibule verify` and
//! `vestibule redact --reapply` use after a restore. An erased entry answers its receipt
//! again. A later signup with the same address is a new entry and is not affected.

use super::owner;
use super::use_case_error;
use super::{recipient, withdrawal};
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::entries::{self, LockedEntry};
use crate::db::erasure::{self, Receipt, RequestedBy, Resurrected};
use crate::db::locks::{self, Strength};
use crate::db::{self, DbError};
use crate::domain::{EntryState, InvalidTransition};
use crate::identity::VerifiedUser;
use chrono::{DateTime, Utc};
use deadpool_postgres::{Pool, Transaction};
use uuid::Uuid;

use_case_error! {
    pub enum ErasureError with transitions {}
}

/// One erasure's inputs besides the locked entry.
pub struct Request<'k> {
    pub actor: Actor,
    pub by: RequestedBy,
    /// From the erasure allow-list (`shared::trust::ERASE_REASONS`, or the reapply basis).
    pub basis: &'static str,
    pub key: &'k [u8],
    /// The receipt of the erasure being applied again (a reapply after a restore).
    pub prior: Option<Uuid>,
}

/// Erases a locked entry of the locked program (see the module doc).
pub async fn erase_locked<E>(
    tx: &Transaction<'_>,
    program_id: Uuid,
    entry: &LockedEntry,
    request: &Request<'_>,
    now: DateTime<Utc>,
) -> Result<Receipt, E>
where
    E: From<DbError> + From<InvalidTransition>,
{
    if let Some(receipt) = erasure::receipt_of(tx, entry.id).await? {
        return Ok(receipt);
    }
    let live =
        matches!(entry.state, EntryState::Waiting | EntryState::Selected | EntryState::Invited | EntryState::Active);
    if live {
        let basis = match request.basis {
            "applicant_request" | "consent_withdrawn" => "applicant_request",
            _ => "owner_policy",
        };
        withdrawal::withdraw::<E>(tx, program_id, entry, request.actor, basis, now).await?;
    }
    erasure::redact_entries(tx, &[entry.id], now).await?;
    let id = request.prior.unwrap_or_else(Uuid::new_v4);
    erasure::insert_receipt(tx, id, program_id, entry.id, request.by, request.basis, now).await?;
    if request.prior.is_none() {
        let hmac = erasure::address_hmac(request.key, program_id, &entry.email);
        erasure::insert_suppression(tx, id, program_id, &hmac, now).await?;
    }
    let details = [
        ("from", Detail::Code(entry.state.as_str())),
        ("basis", Detail::Code(request.basis)),
        ("receiptId", Detail::Id(id)),
    ];
    audit::record(tx, program_id, Some(entry.id), request.actor, EventType::Erased, now, &details).await?;
    Ok(Receipt { id, erased_at: now })
}

/// The signed-in applicant erases their entry in the program `slug`.
pub async fn erase_own(pool: &Pool, user: &VerifiedUser, slug: &str, key: &[u8]) -> Result<Receipt, ErasureError> {
    recipient::on_own_entry(pool, user, slug, async |tx, program_id, entry, now| {
        let request = Request {
            actor: Actor::Recipient,
            by: RequestedBy::Applicant,
            basis: "applicant_request",
            key,
            prior: None,
        };
        erase_locked(tx, program_id, entry, &request, now).await
    })
    .await
}

/// An owner erases an entry of their program on the person's request.
pub async fn erase_by_owner(
    pool: &Pool,
    user_id: &str,
    entry: (Uuid, Uuid),
    reason: &'static str,
    key: &[u8],
) -> Result<Receipt, ErasureError> {
    owner::write_entry(pool, user_id, entry, async |o, entry| {
        let request = Request { actor: o.actor(), by: RequestedBy::Owner, basis: reason, key, prior: None };
        erase_locked(o.tx, o.program.id, &entry, &request, o.now).await
    })
    .await
}

/// Erases again, program by program under the usual locks, every entry a restore
/// brought back (`vestibule redact --reapply`); returns how many were erased.
pub async fn reapply(pool: &Pool, key: &[u8]) -> Result<usize, ErasureError> {
    let found = {
        let client = pool.get().await.map_err(DbError::from)?;
        erasure::resurrected(&client, key).await?
    };
    let mut by_program: std::collections::BTreeMap<Uuid, Vec<Resurrected>> = Default::default();
    for r in found {
        by_program.entry(r.program_id).or_default().push(r);
    }
    let mut erased = 0;
    for (program_id, list) in by_program {
        erased += db::transaction::<_, ErasureError, _>(pool, async |tx| {
            let workspace = crate::db::programs::workspace_of(tx, program_id).await?.ok_or(ErasureError::NotFound)?;
            locks::workspace(tx, workspace, Strength::Update).await?.ok_or(ErasureError::NotFound)?;
            let program =
                locks::program(tx, workspace, program_id, Strength::Update).await?.ok_or(ErasureError::NotFound)?;
            let mut ids: Vec<Uuid> = list.iter().map(|r| r.entry_id).collect();
            ids.sort();
            let locked = entries::lock_many(tx, program.id, &ids).await?.ok_or(ErasureError::NotFound)?;
            let now = locks::now(tx).await?;
            for entry in &locked {
                let prior = list.iter().find(|r| r.entry_id == entry.id).map(|r| r.erasure_id);
                let request = Request {
                    actor: Actor::System,
                    by: RequestedBy::System,
                    basis: "reapplied_after_restore",
                    key,
                    prior,
                };
                erase_locked::<ErasureError>(tx, program.id, entry, &request, now).await?;
            }
            Ok(locked.len())
        })
        .await?;
    }
    Ok(erased)
}
