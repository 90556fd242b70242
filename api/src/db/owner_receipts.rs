//! Idempotency of owner actions: `owner_action_receipts`, one row per (program, request
//! key), holding an HMAC binding of the action and its fields, and the batches a bulk
//! issue created. Policy: the key is looked up first after the workspace → program
//! locks; the same binding replays (metadata only, never a code), another binding is
//! refused, and only a key never seen proceeds.

use super::Result;
use crate::crypto;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    IssueInvitation,
    RecordDelivery,
    BulkIssue,
}

impl Action {
    fn as_str(self) -> &'static str {
        match self {
            Action::IssueInvitation => "issue_invitation",
            Action::RecordDelivery => "record_delivery",
            Action::BulkIssue => "bulk_issue",
        }
    }
}

/// A request key with the binding of the fields it was sent with.
#[derive(Debug, Clone)]
pub struct Keyed {
    pub action: Action,
    pub request_key: Uuid,
    pub binding: Vec<u8>,
}

/// What the stored receipt says about a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Receipt {
    /// The key was never used in this program: go on.
    New,
    /// The same request committed before; answer from its target, do nothing again.
    Replay { target_id: Uuid },
    /// The key was used before with other fields (or for another action).
    Reused,
}

impl Keyed {
    /// `issue-invitation-v1` over (program, entry, expiry as exact RFC 3339 micros).
    pub fn issue(key: &[u8], request_key: Uuid, program: Uuid, entry: Uuid, expires_at: &str) -> Keyed {
        let binding =
            crypto::binding(key, "issue-invitation-v1", &[program.as_bytes(), entry.as_bytes(), expires_at.as_bytes()]);
        Keyed { action: Action::IssueInvitation, request_key, binding }
    }

    /// `record-delivery-v1` over (program, invitation, channel, reference or its absence).
    pub fn delivery(
        key: &[u8],
        request_key: Uuid,
        program: Uuid,
        invitation: Uuid,
        channel: &str,
        reference: Option<&str>,
    ) -> Keyed {
        let (has_reference, reference) = match reference {
            Some(r) => (&b"1"[..], r.as_bytes()),
            None => (&b"0"[..], &b""[..]),
        };
        let fields =
            [program.as_bytes().as_slice(), invitation.as_bytes(), channel.as_bytes(), has_reference, reference];
        Keyed {
            action: Action::RecordDelivery,
            request_key,
            binding: crypto::binding(key, "record-delivery-v1", &fields),
        }
    }

    /// `bulk-issue-v1` over (program, expiry, the entry ids in ascending order).
    pub fn bulk(key: &[u8], request_key: Uuid, program: Uuid, sorted_entries: &[Uuid], expires_at: &str) -> Keyed {
        let mut fields: Vec<&[u8]> = vec![program.as_bytes(), expires_at.as_bytes()];
        fields.extend(sorted_entries.iter().map(|e| e.as_bytes().as_slice()));
        Keyed { action: Action::BulkIssue, request_key, binding: crypto::binding(key, "bulk-issue-v1", &fields) }
    }

    /// Looks the key up in the locked program. Call right after the locks.
    pub async fn check(&self, tx: &Transaction<'_>, program_id: Uuid) -> Result<Receipt> {
        const SQL: &str = r"
            SELECT action, binding_hmac, target_id FROM owner_action_receipts
            WHERE program_id = $1 AND request_key = $2";
        let stmt = tx.prepare_cached(SQL).await?;
        let Some(row) = tx.query_opt(&stmt, &[&program_id, &self.request_key]).await? else {
            return Ok(Receipt::New);
        };
        let (action, binding): (&str, &[u8]) = (row.get(0), row.get(1));
        if action == self.action.as_str() && crypto::same_binding(binding, &self.binding) {
            Ok(Receipt::Replay { target_id: row.get(2) })
        } else {
            Ok(Receipt::Reused)
        }
    }

    /// Stores the receipt in the transaction that did the work.
    pub async fn record(
        &self,
        tx: &Transaction<'_>,
        program_id: Uuid,
        target_id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<()> {
        const SQL: &str = r"
            INSERT INTO owner_action_receipts (program_id, request_key, action, binding_hmac, target_id, created_at)
            VALUES ($1, $2, $3, $4, $5, $6)";
        let stmt = tx.prepare_cached(SQL).await?;
        tx.execute(&stmt, &[&program_id, &self.request_key, &self.action.as_str(), &self.binding, &target_id, &now])
            .await?;
        Ok(())
    }
}

/// Records a bulk batch and its (entry, invitation) pairs; returns the batch id.
pub async fn insert_batch(
    tx: &Transaction<'_>,
    program_id: Uuid,
    items: &[(Uuid, Uuid)],
    now: DateTime<Utc>,
) -> Result<Uuid> {
    const BATCH: &str = "INSERT INTO invitation_batches (program_id, created_at) VALUES ($1, $2) RETURNING id";
    const ITEMS: &str = r"
        INSERT INTO invitation_batch_items (batch_id, program_id, entry_id, invitation_id)
        SELECT $1, $2, e, i FROM unnest($3::uuid[], $4::uuid[]) AS t(e, i)";
    let stmt = tx.prepare_cached(BATCH).await?;
    let batch_id: Uuid = tx.query_one(&stmt, &[&program_id, &now]).await?.get(0);
    let (entries, invitations): (Vec<Uuid>, Vec<Uuid>) = items.iter().copied().unzip();
    let stmt = tx.prepare_cached(ITEMS).await?;
    tx.execute(&stmt, &[&batch_id, &program_id, &entries, &invitations]).await?;
    Ok(batch_id)
}

/// The (entry, invitation) pairs of a batch of this program, in entry id order.
pub async fn batch_items(tx: &Transaction<'_>, program_id: Uuid, batch_id: Uuid) -> Result<Vec<(Uuid, Uuid)>> {
    const SQL: &str = r"
        SELECT entry_id, invitation_id FROM invitation_batch_items
        WHERE batch_id = $1 AND program_id = $2 ORDER BY entry_id";
    let stmt = tx.prepare_cached(SQL).await?;
    Ok(tx.query(&stmt, &[&batch_id, &program_id]).await?.iter().map(|r| (r.get(0), r.get(1))).collect())
}
