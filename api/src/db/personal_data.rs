//! What Vestibule holds about one person, found by their verified emails (issue 16,
//! `GET /api/me/export`): their entries with the notice each was accepted under and the
//! choice time, the entries' invitations (never a code or its digest, never the owner's
//! delivery notes) and grants (never the identity provider's id). Nothing of any other
//! entry is read: every statement is keyed by the person's emails or their entry ids.

use super::programs::NoticeRow;
use super::Result;
use crate::domain::{EntryState, InvitationState};
use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct ExportEntry {
    pub id: Uuid,
    pub program_slug: String,
    pub email: String,
    pub state: EntryState,
    pub joined_at: DateTime<Utc>,
    pub permission_at: DateTime<Utc>,
    pub notice: NoticeRow,
    pub answers: shared::questions::Answers,
    pub verified_at_join: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone)]
pub struct ExportInvitation {
    pub entry_id: Uuid,
    pub state: InvitationState,
    pub issued_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone)]
pub struct ExportGrant {
    pub entry_id: Uuid,
    pub active: bool,
    pub granted_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

const ENTRIES: &str = "SELECT e.id, p.public_slug, e.email_key, e.state, e.created_at, e.permission_at, \
       n.id, n.version, n.purpose, n.contact_text, n.retention_text, n.published_at, n.questions, \
       coalesce(ea.answers, '{}'), ea.verified_at_join \
     FROM entries e JOIN programs p ON p.id = e.program_id JOIN notices n ON n.id = e.notice_id \
     LEFT JOIN entry_answers ea ON ea.entry_id = e.id \
     WHERE e.email_key = ANY($1) ORDER BY e.created_at, e.id";

/// The person's entries (by exact normalized email), oldest first.
pub async fn entries(client: &impl GenericClient, emails: &[&str]) -> Result<Vec<ExportEntry>> {
    let stmt = client.prepare_cached(ENTRIES).await?;
    let rows = client.query(&stmt, &[&emails]).await?;
    Ok(rows
        .iter()
        .map(|r| ExportEntry {
            id: r.get(0),
            program_slug: r.get(1),
            email: r.get(2),
            state: r.get::<_, &str>(3).parse().expect("entries_state constraint"),
            joined_at: r.get(4),
            permission_at: r.get(5),
            notice: NoticeRow {
                id: r.get(6),
                version: r.get(7),
                purpose: r.get(8),
                contact_text: r.get(9),
                retention_text: r.get(10),
                published_at: r.get(11),
                questions: super::programs::questions_of(r.get(12)),
            },
            answers: super::queue::answers_of(r.get(13)),
            verified_at_join: r.get(14),
        })
        .collect())
}

/// The invitations of the entries, oldest first; an issued one past its expiry reads `expired`.
pub async fn invitations(client: &impl GenericClient, entry_ids: &[Uuid]) -> Result<Vec<ExportInvitation>> {
    let stmt = client
        .prepare_cached(
            "SELECT entry_id, CASE WHEN state = 'issued' AND expires_at <= clock_timestamp() THEN 'expired' \
             ELSE state END, issued_at, expires_at, delivery_recorded_at FROM invitations \
             WHERE entry_id = ANY($1) ORDER BY issued_at, id",
        )
        .await?;
    let rows = client.query(&stmt, &[&entry_ids]).await?;
    Ok(rows
        .iter()
        .map(|r| ExportInvitation {
            entry_id: r.get(0),
            state: r.get::<_, &str>(1).parse().expect("invitations_state constraint"),
            issued_at: r.get(2),
            expires_at: r.get(3),
            delivered_at: r.get(4),
        })
        .collect())
}

pub async fn grants(client: &impl GenericClient, entry_ids: &[Uuid]) -> Result<Vec<ExportGrant>> {
    let stmt = client
        .prepare_cached(
            "SELECT entry_id, active, granted_at, revoked_at FROM grants WHERE entry_id = ANY($1) ORDER BY granted_at, id",
        )
        .await?;
    let rows = client.query(&stmt, &[&entry_ids]).await?;
    Ok(rows
        .iter()
        .map(|r| ExportGrant { entry_id: r.get(0), active: r.get(1), granted_at: r.get(2), revoked_at: r.get(3) })
        .collect())
}
