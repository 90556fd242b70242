//! Webhook endpoints of a workspace and the owner's view of their deliveries. Every
//! function takes the workspace id and matches it in SQL, so a foreign endpoint is
//! simply absent. Signing secrets are stored sealed (`crypto::seal`), never plain.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use tokio_postgres::Row;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct EndpointRow {
    pub id: Uuid,
    pub url: String,
    pub event_types: Vec<String>,
    pub program_ids: Option<Vec<Uuid>>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub failing_since: Option<DateTime<Utc>>,
    pub previous_secret_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    /// `v1` or `v1a`.
    pub signature_scheme: String,
    /// The `v1a` public key.
    pub public_key: Option<Vec<u8>>,
}

const COLUMNS: &str = "id, url, event_types, program_ids, enabled, disabled_reason, failing_since, \
     CASE WHEN previous_secret_until > clock_timestamp() THEN previous_secret_until END, created_at, \
     signature_scheme, public_key";

impl From<&Row> for EndpointRow {
    fn from(r: &Row) -> Self {
        EndpointRow {
            id: r.get(0),
            url: r.get(1),
            event_types: r.get(2),
            program_ids: r.get(3),
            enabled: r.get(4),
            disabled_reason: r.get(5),
            failing_since: r.get(6),
            previous_secret_until: r.get(7),
            created_at: r.get(8),
            signature_scheme: r.get(9),
            public_key: r.get(10),
        }
    }
}

pub struct NewEndpoint<'a> {
    pub id: Uuid,
    pub workspace_id: Uuid,
    pub url: &'a str,
    pub event_types: &'a [String],
    pub program_ids: Option<&'a [Uuid]>,
    pub secret_sealed: &'a [u8],
    pub signature_scheme: &'a str,
    pub public_key: Option<&'a [u8]>,
}

pub async fn insert(tx: &Transaction<'_>, e: &NewEndpoint<'_>, now: DateTime<Utc>) -> Result<EndpointRow> {
    let sql = format!(
        "INSERT INTO webhook_endpoints (id, workspace_id, url, event_types, program_ids, secret_sealed, created_at, updated_at, \
           signature_scheme, public_key) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9) RETURNING {COLUMNS}"
    );
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 9] = [
        &e.id,
        &e.workspace_id,
        &e.url,
        &e.event_types,
        &e.program_ids,
        &e.secret_sealed,
        &now,
        &e.signature_scheme,
        &e.public_key,
    ];
    let row = tx.query_one(&sql, &params).await?;
    Ok(EndpointRow::from(&row))
}

/// How many endpoints the workspace has.
pub async fn count(tx: &Transaction<'_>, workspace_id: Uuid) -> Result<usize> {
    let row = tx.query_one("SELECT count(*) FROM webhook_endpoints WHERE workspace_id = $1", &[&workspace_id]).await?;
    Ok(usize::try_from(row.get::<_, i64>(0)).unwrap_or(usize::MAX))
}

/// How many of `ids` (distinct) are programs of the workspace.
pub async fn programs_in_workspace(tx: &Transaction<'_>, workspace_id: Uuid, ids: &[Uuid]) -> Result<usize> {
    let row = tx
        .query_one("SELECT count(*) FROM programs WHERE workspace_id = $1 AND id = ANY($2)", &[&workspace_id, &ids])
        .await?;
    Ok(usize::try_from(row.get::<_, i64>(0)).unwrap_or(0))
}

pub async fn list(tx: &Transaction<'_>, workspace_id: Uuid) -> Result<Vec<EndpointRow>> {
    let sql = format!("SELECT {COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY created_at, id");
    Ok(tx.query(&sql, &[&workspace_id]).await?.iter().map(EndpointRow::from).collect())
}

pub async fn get(tx: &Transaction<'_>, workspace_id: Uuid, id: Uuid) -> Result<Option<EndpointRow>> {
    let sql = format!("SELECT {COLUMNS} FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2");
    Ok(tx.query_opt(&sql, &[&workspace_id, &id]).await?.as_ref().map(EndpointRow::from))
}

/// The endpoint's signature scheme, under the workspace lock its writers take.
pub async fn scheme(tx: &Transaction<'_>, workspace_id: Uuid, id: Uuid) -> Result<Option<String>> {
    let row = tx
        .query_opt(
            "SELECT signature_scheme FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2",
            &[&workspace_id, &id],
        )
        .await?;
    Ok(row.map(|r| r.get(0)))
}

/// Changes the subscribed types and/or the enabled flag. Enabling clears the failure
/// record; disabling says the owner did it.
pub async fn update(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    id: Uuid,
    event_types: Option<&[String]>,
    enabled: Option<bool>,
    now: DateTime<Utc>,
) -> Result<Option<EndpointRow>> {
    let sql = format!(
        "UPDATE webhook_endpoints SET event_types = coalesce($3, event_types), \
           enabled = coalesce($4, enabled), \
           disabled_reason = CASE WHEN $4 IS NULL THEN disabled_reason WHEN $4 THEN NULL ELSE 'owner' END, \
           failing_since = CASE WHEN $4 THEN NULL ELSE failing_since END, updated_at = $5 \
         WHERE workspace_id = $1 AND id = $2 RETURNING {COLUMNS}"
    );
    let row = tx.query_opt(&sql, &[&workspace_id, &id, &event_types, &enabled, &now]).await?;
    Ok(row.as_ref().map(EndpointRow::from))
}

/// Deletes the endpoint and (cascading) its delivery log.
pub async fn delete(tx: &Transaction<'_>, workspace_id: Uuid, id: Uuid) -> Result<bool> {
    Ok(tx.execute("DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2", &[&workspace_id, &id]).await?
        == 1)
}

/// Installs a new secret (for `v1a`, a new seed and its `public_key`); the current one
/// keeps signing for `overlap_hours`.
pub async fn rotate(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    id: Uuid,
    (sealed, public_key): (&[u8], Option<&[u8]>),
    now: DateTime<Utc>,
    overlap_hours: i32,
) -> Result<Option<EndpointRow>> {
    let sql = format!(
        "UPDATE webhook_endpoints SET previous_secret_sealed = secret_sealed, secret_sealed = $3, \
           previous_secret_until = $4::timestamptz + make_interval(hours => $5), updated_at = $4, public_key = $6 \
         WHERE workspace_id = $1 AND id = $2 RETURNING {COLUMNS}"
    );
    let row = tx.query_opt(&sql, &[&workspace_id, &id, &sealed, &now, &overlap_hours, &public_key]).await?;
    Ok(row.as_ref().map(EndpointRow::from))
}

#[derive(Debug, Clone)]
pub struct DeliveryRow {
    pub id: i64,
    pub event_id: Uuid,
    pub event_type: String,
    pub state: String,
    pub created_at: DateTime<Utc>,
    pub next_attempt_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone)]
pub struct AttemptRow {
    pub delivery_id: i64,
    pub at: DateTime<Utc>,
    pub status_code: Option<i32>,
    pub outcome: String,
    pub latency_ms: i32,
}

/// Up to `limit` deliveries of the endpoint with an id below `before`, newest first,
/// with every attempt of each (oldest first).
pub async fn deliveries(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    endpoint_id: Uuid,
    before: i64,
    limit: i64,
) -> Result<(Vec<DeliveryRow>, Vec<AttemptRow>)> {
    let rows = tx
        .query(
            "SELECT d.id, d.event_id, e.event_type, d.state, d.created_at, \
               CASE WHEN d.state = 'pending' THEN d.next_attempt_at END \
             FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id \
             JOIN webhook_endpoints w ON w.id = d.endpoint_id \
             WHERE w.workspace_id = $1 AND d.endpoint_id = $2 AND d.id < $3 ORDER BY d.id DESC LIMIT $4",
            &[&workspace_id, &endpoint_id, &before, &limit],
        )
        .await?;
    let deliveries: Vec<DeliveryRow> = rows
        .iter()
        .map(|r| DeliveryRow {
            id: r.get(0),
            event_id: r.get(1),
            event_type: r.get(2),
            state: r.get(3),
            created_at: r.get(4),
            next_attempt_at: r.get(5),
        })
        .collect();
    let ids: Vec<i64> = deliveries.iter().map(|d| d.id).collect();
    let attempts = tx
        .query(
            "SELECT delivery_id, attempted_at, status_code, outcome, latency_ms FROM outbox_attempts \
             WHERE delivery_id = ANY($1) ORDER BY id",
            &[&ids],
        )
        .await?
        .iter()
        .map(|r| AttemptRow {
            delivery_id: r.get(0),
            at: r.get(1),
            status_code: r.get(2),
            outcome: r.get(3),
            latency_ms: r.get(4),
        })
        .collect();
    Ok((deliveries, attempts))
}

/// The workspace's endpoints that `staff_id` created (from the workspace history's
/// `webhook.created` entries): (id, URL, enabled), oldest first.
pub async fn created_by(tx: &Transaction<'_>, workspace_id: Uuid, staff_id: Uuid) -> Result<Vec<(Uuid, String, bool)>> {
    let rows = tx
        .query(
            "SELECT w.id, w.url, w.enabled FROM webhook_endpoints w \
             JOIN workspace_audit_events a ON a.subject_id = w.id AND a.workspace_id = w.workspace_id \
             WHERE w.workspace_id = $1 AND a.actor_staff_id = $2 AND a.action = 'webhook.created' \
             ORDER BY w.created_at, w.id",
            &[&workspace_id, &staff_id],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
}
