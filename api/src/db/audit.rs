//! The append-only audit history. Policy: an event holds ids of our own rows, states,
//! timestamps and reason codes from fixed allow-lists — never an email, code, token,
//! free text, address or identity-provider id. `details` is built only from the typed
//! [`Detail`] values here, so nothing else can get in.

use crate::error::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use serde_json::{Map, Value};
use uuid::Uuid;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    NoticePublished,
    Signup,
    Selected,
    Declined,
    InviteIssued,
    DeliveryRecorded,
    InviteRevoked,
    InviteExpired,
    Redeemed,
    GrantRevoked,
    Withdrawn,
    ContentUpdated,
    ProgramChanged,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::NoticePublished => "notice_published",
            EventType::Signup => "signup",
            EventType::Selected => "selected",
            EventType::Declined => "declined",
            EventType::InviteIssued => "invite_issued",
            EventType::DeliveryRecorded => "delivery_recorded",
            EventType::InviteRevoked => "invite_revoked",
            EventType::InviteExpired => "invite_expired",
            EventType::Redeemed => "redeemed",
            EventType::GrantRevoked => "grant_revoked",
            EventType::Withdrawn => "withdrawn",
            EventType::ContentUpdated => "content_updated",
            EventType::ProgramChanged => "program_changed",
        }
    }
}

/// Who acted: an owner (by staff member id), the recipient, the public, or the system.
#[derive(Debug, Clone, Copy)]
pub enum Actor {
    Owner(Uuid),
    Recipient,
    Public,
    System,
}

impl Actor {
    fn kind(self) -> &'static str {
        match self {
            Actor::Owner(_) => "owner",
            Actor::Recipient => "recipient",
            Actor::Public => "public",
            Actor::System => "system",
        }
    }

    fn staff_id(self) -> Option<Uuid> {
        match self {
            Actor::Owner(id) => Some(id),
            _ => None,
        }
    }
}

/// One allowed detail value: an id, a state or reason code (a `&'static str` from an
/// allow-list), a number, a flag or a time.
#[derive(Debug, Clone)]
pub enum Detail {
    Id(Uuid),
    Code(&'static str),
    Number(i64),
    Flag(bool),
    Time(DateTime<Utc>),
}

impl From<Detail> for Value {
    fn from(d: Detail) -> Value {
        match d {
            Detail::Id(id) => Value::String(id.to_string()),
            Detail::Code(c) => Value::String(c.to_owned()),
            Detail::Number(n) => Value::from(n),
            Detail::Flag(b) => Value::Bool(b),
            Detail::Time(t) => Value::String(crate::routes::ts(t)),
        }
    }
}

/// The statement [`record`] runs (exposed so a caller can prepare it ahead of a pipeline).
pub const RECORD_SQL: &str = "INSERT INTO audit_events \
     (program_id, entry_id, actor_kind, actor_staff_id, event_type, event_at, details) \
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";

/// Appends one event at the transaction's captured clock `at`.
pub async fn record(
    tx: &Transaction<'_>,
    program_id: Uuid,
    entry_id: Option<Uuid>,
    actor: Actor,
    kind: EventType,
    at: DateTime<Utc>,
    details: &[(&'static str, Detail)],
) -> Result<i64> {
    let details: Map<String, Value> = details.iter().map(|(k, v)| ((*k).to_owned(), v.clone().into())).collect();
    let stmt = tx.prepare_cached(RECORD_SQL).await?;
    let row = tx
        .query_one(
            &stmt,
            &[&program_id, &entry_id, &actor.kind(), &actor.staff_id(), &kind.as_str(), &at, &Value::Object(details)],
        )
        .await?;
    Ok(row.get(0))
}
