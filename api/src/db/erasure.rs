//! Erasure's rows (issue 16): the redaction of entries (one function for erasure and
//! retention redaction: email → tombstone, delivery records without the owner's text,
//! inactive grants without the Clerk user id; every row, link and time kept), the
//! receipt, and the suppression: a keyed hash of the erased address that outlives a
//! restore from an older backup (see migration V51). The caller holds the program and
//! entry locks and has withdrawn a live entry first.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::{GenericClient, Transaction};
use uuid::Uuid;

/// The purpose tag of a suppression's keyed hash.
const SUPPRESSION_PURPOSE: &str = "erasure-suppression";

/// The keyed hash a suppression stores for `email` in `program_id`.
pub fn address_hmac(key: &[u8], program_id: Uuid, email: &str) -> Vec<u8> {
    crate::crypto::binding(key, SUPPRESSION_PURPOSE, &[&program_id.as_bytes()[..], email.as_bytes()])
}

/// Redacts locked entries and what names their person beside them: the email becomes a
/// tombstone (and the mailbox key goes with it, trigger of V41), the answers to the
/// form's questions are emptied (V130), delivery records lose
/// the owner's free text, inactive grants the Clerk user id. Retention redaction
/// (`vestibule redact`) and erasure both use it. The caller holds the program and entry
/// locks; this takes the invitation and grant locks next, in the global order.
pub async fn redact_entries(tx: &Transaction<'_>, ids: &[Uuid], now: DateTime<Utc>) -> Result<()> {
    // The rest of the lock order, entry → invitation → grant, before any write.
    let lock_invitations =
        tx.prepare_cached("SELECT id FROM invitations WHERE entry_id = ANY($1) ORDER BY id FOR UPDATE");
    tx.query(&lock_invitations.await?, &[&ids]).await?;
    let lock_grants = tx.prepare_cached("SELECT id FROM grants WHERE entry_id = ANY($1) ORDER BY id FOR UPDATE");
    tx.query(&lock_grants.await?, &[&ids]).await?;
    let entry = tx
        .prepare_cached(
            "UPDATE entries SET email_key = 'redacted+' || replace(id::text, '-', '') || '@redacted.invalid', \
             redacted_at = $2 WHERE id = ANY($1)",
        )
        .await?;
    tx.execute(&entry, &[&ids, &now]).await?;
    let deliveries = tx
        .prepare_cached(
            "UPDATE invitations SET delivery_channel = 'redacted', delivery_reference = NULL \
             WHERE entry_id = ANY($1) AND delivery_recorded_at IS NOT NULL",
        )
        .await?;
    tx.execute(&deliveries, &[&ids]).await?;
    // An over entry's grant is inactive; an active one would be left alone (and
    // `vestibule verify` reports such an entry).
    let grants = tx
        .prepare_cached(
            "UPDATE grants SET clerk_user_id = 'redacted_' || replace(id::text, '-', '') \
             WHERE entry_id = ANY($1) AND NOT active",
        )
        .await?;
    tx.execute(&grants, &[&ids]).await?;
    // The answers are personal data (issue 31): emptied; the row and its
    // verified-at-join time stay, as every other time does.
    let answers = tx.prepare_cached("UPDATE entry_answers SET answers = '{}' WHERE entry_id = ANY($1)");
    tx.execute(&answers.await?, &[&ids]).await?;
    Ok(())
}

/// Who asked for an erasure, as `erasures.requested_by` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestedBy {
    Applicant,
    Owner,
    System,
}

impl RequestedBy {
    fn as_str(self) -> &'static str {
        match self {
            RequestedBy::Applicant => "applicant",
            RequestedBy::Owner => "owner",
            RequestedBy::System => "system",
        }
    }
}

/// The erasure receipt of an entry.
#[derive(Debug, Clone, Copy)]
pub struct Receipt {
    pub id: Uuid,
    pub erased_at: DateTime<Utc>,
}

/// The receipt of an already erased entry, if any.
pub async fn receipt_of(client: &impl GenericClient, entry_id: Uuid) -> Result<Option<Receipt>> {
    let stmt = client.prepare_cached("SELECT id, erased_at FROM erasures WHERE entry_id = $1").await?;
    Ok(client.query_opt(&stmt, &[&entry_id]).await?.map(|r| Receipt { id: r.get(0), erased_at: r.get(1) }))
}

/// Writes the receipt `id` (kept when the entry has one already, as after a reapply).
pub async fn insert_receipt(
    tx: &Transaction<'_>,
    id: Uuid,
    program_id: Uuid,
    entry_id: Uuid,
    by: RequestedBy,
    basis: &str,
    at: DateTime<Utc>,
) -> Result<()> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO erasures (id, program_id, entry_id, requested_by, basis, erased_at) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
        )
        .await?;
    tx.execute(&stmt, &[&id, &program_id, &entry_id, &by.as_str(), &basis, &at]).await?;
    Ok(())
}

pub async fn insert_suppression(
    tx: &Transaction<'_>,
    erasure_id: Uuid,
    program_id: Uuid,
    address_hmac: &[u8],
    at: DateTime<Utc>,
) -> Result<()> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO erasure_suppressions (erasure_id, program_id, address_hmac, erased_at) VALUES ($1, $2, $3, $4)",
        )
        .await?;
    tx.execute(&stmt, &[&erasure_id, &program_id, &address_hmac, &at]).await?;
    Ok(())
}

/// A live entry that a suppression says was erased after it was made: what a restore
/// from an older backup brings back.
#[derive(Debug, Clone)]
pub struct Resurrected {
    pub entry_id: Uuid,
    pub program_id: Uuid,
    pub erasure_id: Uuid,
    pub erased_at: DateTime<Utc>,
}

/// Every unredacted entry made before a suppression of its program, with its email
/// (hashed by the caller; the key never reaches the database).
pub async fn candidates(client: &impl GenericClient) -> Result<Vec<(Uuid, Uuid, String, DateTime<Utc>)>> {
    let stmt = client
        .prepare_cached(
            "SELECT e.id, e.program_id, e.email_key, e.created_at FROM entries e WHERE e.redacted_at IS NULL \
             AND EXISTS (SELECT 1 FROM erasure_suppressions s WHERE s.program_id = e.program_id \
                         AND s.erased_at > e.created_at) ORDER BY e.program_id, e.id",
        )
        .await?;
    Ok(client.query(&stmt, &[]).await?.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3))).collect())
}

/// One suppression: (erasure id, keyed hash, time of the erasure).
pub type Suppression = (Uuid, Vec<u8>, DateTime<Utc>);

/// The suppressions of a program, oldest first.
pub async fn suppressions(client: &impl GenericClient, program_id: Uuid) -> Result<Vec<Suppression>> {
    let stmt = client
        .prepare_cached(
            "SELECT erasure_id, address_hmac, erased_at FROM erasure_suppressions WHERE program_id = $1 ORDER BY erased_at",
        )
        .await?;
    Ok(client.query(&stmt, &[&program_id]).await?.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
}

/// The entries erased before and brought back since (a restore), found with `key`.
pub async fn resurrected(client: &impl GenericClient, key: &[u8]) -> Result<Vec<Resurrected>> {
    let mut found = Vec::new();
    let mut program: Option<(Uuid, Vec<Suppression>)> = None;
    for (entry_id, program_id, email, created_at) in candidates(client).await? {
        if program.as_ref().is_none_or(|(p, _)| *p != program_id) {
            program = Some((program_id, suppressions(client, program_id).await?));
        }
        let (_, list) = program.as_ref().expect("set above");
        let hmac = address_hmac(key, program_id, &email);
        let matched = list.iter().find(|(_, h, at)| crate::crypto::same_binding(h, &hmac) && *at > created_at);
        if let Some((erasure_id, _, erased_at)) = matched {
            found.push(Resurrected { entry_id, program_id, erasure_id: *erasure_id, erased_at: *erased_at });
        }
    }
    Ok(found)
}
