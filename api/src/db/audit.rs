//! The append-only audit history. Policy: an event holds ids of our own rows, states,
//! timestamps and reason codes from fixed allow-lists — never an email, code, token,
//! free text, address or identity-provider id. `details` is built only from the typed
//! [`Detail`] values here, so nothing else can get in.

use super::Result;
use crate::domain::ActorKind;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use serde_json::{Map, Value};
use uuid::Uuid;

pub use crate::domain::EventType;

/// Who acted: an owner (by staff member id), the recipient, the public, or the system.
#[derive(Debug, Clone, Copy)]
pub enum Actor {
    Owner(Uuid),
    Recipient,
    Public,
    System,
}

impl Actor {
    fn kind(self) -> ActorKind {
        match self {
            Actor::Owner(_) => ActorKind::Owner,
            Actor::Recipient => ActorKind::Recipient,
            Actor::Public => ActorKind::Public,
            Actor::System => ActorKind::System,
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
/// allow-list), a number, a flag, a time, or a SHA-256 of our own values (a draw's
/// commitments, as lowercase hex).
#[derive(Debug, Clone)]
pub enum Detail {
    Id(Uuid),
    Code(&'static str),
    Number(i64),
    Flag(bool),
    Time(DateTime<Utc>),
    Hash([u8; 32]),
}

impl From<Detail> for Value {
    fn from(d: Detail) -> Value {
        match d {
            Detail::Id(id) => Value::String(id.to_string()),
            Detail::Code(c) => Value::String(c.to_owned()),
            Detail::Number(n) => Value::from(n),
            Detail::Flag(b) => Value::Bool(b),
            Detail::Time(t) => Value::String(crate::time::rfc3339(t)),
            Detail::Hash(h) => Value::String(hex::encode(h)),
        }
    }
}

/// The statement [`record`] runs (exposed so a caller can prepare it ahead of a pipeline).
pub const RECORD_SQL: &str = "INSERT INTO audit_events \
     (program_id, entry_id, actor_kind, actor_staff_id, event_type, event_at, details) \
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id";

/// Appends one event at the transaction's captured clock `at`. The database does more on
/// its own (migrations/README.md): the V50 trigger chains the event into its program's
/// hash chain, and the V20 trigger `outbox_enqueue` (V83's version) enqueues the webhooks
/// and Clerk calls its type maps to, in this transaction, for delivery after commit.
pub async fn record(
    tx: &Transaction<'_>,
    program_id: Uuid,
    entry_id: Option<Uuid>,
    actor: Actor,
    kind: EventType,
    at: DateTime<Utc>,
    details: &[(&'static str, Detail)],
) -> Result<i64> {
    let stmt = tx.prepare_cached(RECORD_SQL).await?;
    let (kind_name, actor_kind, details) = (kind.as_str(), actor.kind().as_str(), details_object(details));
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
        [&program_id, &entry_id, &actor_kind, &actor.staff_id(), &kind_name, &at, &details];
    let row = tx.query_one(&stmt, &params).await?;
    Ok(row.get(0))
}

/// Appends one event per entry of `entries` (each with its own details), in that order,
/// in one statement: the set-based form of [`record`] for bulk operations (the same
/// triggers chain each event and enqueue its webhooks and Clerk calls).
pub async fn record_many(
    tx: &Transaction<'_>,
    program_id: Uuid,
    entries: &[(Uuid, Vec<(&'static str, Detail)>)],
    actor: Actor,
    kind: EventType,
    at: DateTime<Utc>,
) -> Result<()> {
    const SQL: &str = "INSERT INTO audit_events \
         (program_id, entry_id, actor_kind, actor_staff_id, event_type, event_at, details) \
         SELECT $1, e, $3, $4, $5, $6, d FROM unnest($2::uuid[], $7::jsonb[]) WITH ORDINALITY AS t(e, d, n) \
         ORDER BY n";
    let ids: Vec<Uuid> = entries.iter().map(|(id, _)| *id).collect();
    let details: Vec<Value> = entries.iter().map(|(_, d)| details_object(d)).collect();
    let stmt = tx.prepare_cached(SQL).await?;
    let (kind_name, actor_kind) = (kind.as_str(), actor.kind().as_str());
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
        [&program_id, &ids, &actor_kind, &actor.staff_id(), &kind_name, &at, &details];
    tx.execute(&stmt, &params).await?;
    Ok(())
}

fn details_object(details: &[(&'static str, Detail)]) -> Value {
    Value::Object(details.iter().map(|(k, v)| ((*k).to_owned(), v.clone().into())).collect::<Map<String, Value>>())
}

/// One stored event, as the owner's history shows it. `actor_staff_id` is the acting
/// owner's staff member id (for an owner's event), which the reader turns into a name.
#[derive(Debug, Clone)]
pub struct EventRow {
    pub id: i64,
    pub entry_id: Option<Uuid>,
    pub actor_kind: ActorKind,
    pub actor_staff_id: Option<Uuid>,
    pub event_type: EventType,
    pub at: DateTime<Utc>,
    pub details: Value,
}

const EVENT_COLUMNS: &str = "id, entry_id, actor_kind, actor_staff_id, event_type, event_at, details";

impl From<&tokio_postgres::Row> for EventRow {
    fn from(r: &tokio_postgres::Row) -> Self {
        EventRow {
            id: r.get(0),
            entry_id: r.get(1),
            actor_kind: r.get::<_, &str>(2).parse().expect("audit_events actor_kind constraint"),
            actor_staff_id: r.get(3),
            event_type: r.get::<_, &str>(4).parse().expect("audit_events event_type constraint"),
            at: r.get(5),
            details: r.get(6),
        }
    }
}

/// Where a page of history starts and which way it runs: after an id, oldest first, or
/// before an id (`None`: from the newest), newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    After(i64),
    Before(Option<i64>),
}

/// Which events a page holds: `None` is any; a list is the event types (actor kinds)
/// allowed. Both are matched on the rows the `(program_id, id)` index walks in order.
#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    pub types: Option<Vec<&'static str>>,
    pub actors: Option<Vec<&'static str>>,
}

/// Up to `limit` events of the program from `from` in that direction, matching `filter`.
///
/// The range is written as two row comparisons on `(program_id, id)` so that only
/// `audit_program_idx` can serve it and the scan starts at the cursor, also in a cached
/// generic plan: with `program_id = $1 AND id < $2` PostgreSQL's generic plan walks the
/// primary key and filters by program, which reads the whole table for a small program
/// (measured on 1 M events: ~5 buffers a page this way against ~18 000 that way). A
/// filter that matches few of a large program's events still walks its range.
pub async fn page(
    client: &Transaction<'_>,
    program_id: Uuid,
    from: Start,
    filter: &EventFilter,
    limit: i64,
) -> Result<Vec<EventRow>> {
    const MATCH: &str = "($3::text[] IS NULL OR event_type = ANY($3)) AND ($4::text[] IS NULL OR actor_kind = ANY($4))";
    let (bound, sql) = match from {
        Start::After(id) => (
            id,
            format!(
                "SELECT {EVENT_COLUMNS} FROM audit_events \
                 WHERE (program_id, id) > ($1, $2) AND (program_id, id) <= ($1, {}) AND {MATCH} \
                 ORDER BY program_id, id LIMIT $5",
                i64::MAX
            ),
        ),
        Start::Before(id) => (
            id.unwrap_or(i64::MAX),
            format!(
                "SELECT {EVENT_COLUMNS} FROM audit_events \
                 WHERE (program_id, id) < ($1, $2) AND (program_id, id) > ($1, 0) AND {MATCH} \
                 ORDER BY program_id DESC, id DESC LIMIT $5"
            ),
        ),
    };
    let stmt = client.prepare_cached(&sql).await?;
    let rows = client.query(&stmt, &[&program_id, &bound, &filter.types, &filter.actors, &limit]).await?;
    Ok(rows.iter().map(EventRow::from).collect())
}

/// The events of one entry of the program, in id order.
pub async fn of_entry(client: &Transaction<'_>, program_id: Uuid, entry_id: Uuid) -> Result<Vec<EventRow>> {
    let sql = format!("SELECT {EVENT_COLUMNS} FROM audit_events WHERE program_id = $1 AND entry_id = $2 ORDER BY id");
    let stmt = client.prepare_cached(&sql).await?;
    Ok(client.query(&stmt, &[&program_id, &entry_id]).await?.iter().map(EventRow::from).collect())
}
