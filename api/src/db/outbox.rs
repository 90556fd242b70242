//! The outbox's delivery side (the enqueue side is the `outbox_enqueue` trigger on
//! `audit_events`, V20): claim due deliveries as leases, then record each outcome.
//! Policy: a claim is one short statement (`FOR UPDATE SKIP LOCKED`, so instances never
//! take the same row at once) that commits before any network call; an outcome is
//! recorded only by the claim that holds the lease, in its own short transaction. A
//! `clerk_sync` delivery is not claimed while another of the same grant is leased (the
//! handler's grant lock is what makes that exact; this spares it the wait).
//!
//! Fairness (issue 26 item 4): two lanes claim apart — webhooks, and the internal kinds
//! (Clerk calls), so neither queues behind the other. Each takes deliveries in turns
//! across workspaces. A webhook endpoint has at most one delivery in flight, leased on
//! its row with the delivery (so a receiver that never answers holds only its own
//! queue, and an endpoint receives its deliveries in order of due time), and a workspace
//! at most a share of endpoints in flight.

use super::clerk_sync_log::{self, RecordedCall};
use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::{Client, Transaction};
use serde_json::Value;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

/// A delivery this worker holds the lease on, with what it needs to deliver.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub id: i64,
    pub claim: Uuid,
    /// Attempts started so far, this one included.
    pub attempts: i32,
    pub target_kind: String,
    pub event: OutboxEvent,
    pub endpoint: Option<EndpointTarget>,
}

/// One integration event: its `webhook-id` basis, type, ids and the signed body.
#[derive(Debug, Clone)]
pub struct OutboxEvent {
    pub id: Uuid,
    pub event_type: String,
    pub workspace_id: Uuid,
    /// None for a `webhook.test`.
    pub program_id: Option<Uuid>,
    pub payload: Value,
}

/// Where a webhook delivery goes, and its sealed keys (the previous one while it
/// still signs).
#[derive(Clone)]
pub struct EndpointTarget {
    pub id: Uuid,
    pub url: String,
    pub secret_sealed: Vec<u8>,
    pub previous_sealed: Option<Vec<u8>>,
    /// `v1` (the sealed keys are HMAC keys) or `v1a` (Ed25519 seeds).
    pub signature_scheme: String,
}

impl std::fmt::Debug for EndpointTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EndpointTarget").field("id", &self.id).finish_non_exhaustive()
    }
}

/// A due delivery whose lease is free (repeated where the row is locked, so a row that
/// another claim took meanwhile is re-checked and skipped).
const DUE: &str = "d.state = 'pending' AND d.next_attempt_at <= clock_timestamp() \
     AND (d.claimed_until IS NULL OR d.claimed_until < clock_timestamp())";

/// Leases the picked deliveries (`pick`: their ids) and answers each with its event and
/// endpoint; $1 is the claim id, $3 the lease in seconds.
const LEASE_AND_ANSWER: &str = "claimed AS ( \
       UPDATE outbox_deliveries d SET claim_id = $1, attempts = d.attempts + 1, \
         claimed_until = clock_timestamp() + make_interval(secs => $3) \
       FROM pick WHERE d.id = pick.id \
       RETURNING d.id, d.attempts, d.target_kind, d.endpoint_id, d.event_id) \
     SELECT c.id, c.attempts, c.target_kind, e.id, e.event_type, e.workspace_id, e.program_id, e.payload, \
       w.id, w.url, w.secret_sealed, CASE WHEN w.previous_secret_until > clock_timestamp() THEN w.previous_secret_sealed END, \
       w.signature_scheme \
     FROM claimed c JOIN outbox_events e ON e.id = c.event_id LEFT JOIN webhook_endpoints w ON w.id = c.endpoint_id \
     ORDER BY c.id";

/// The webhook lane: the next due delivery of each enabled endpoint with nothing in
/// flight, taken in turns across workspaces (each workspace's oldest first, then each
/// one's second, …) while a workspace has fewer than $4 endpoints in flight; each
/// endpoint taken is leased with its delivery. Up to $2 deliveries.
fn webhook_claim_sql() -> String {
    format!(
        "WITH busy AS ( \
           SELECT workspace_id, count(*) AS n FROM webhook_endpoints \
           WHERE leased_until IS NOT NULL AND leased_until > clock_timestamp() GROUP BY workspace_id), \
         head AS ( \
           SELECT h.id, w.id AS endpoint_id, w.workspace_id, h.next_attempt_at FROM webhook_endpoints w \
           CROSS JOIN LATERAL (SELECT d.id, d.next_attempt_at FROM outbox_deliveries d \
             WHERE d.endpoint_id = w.id AND {DUE} ORDER BY d.next_attempt_at, d.id LIMIT 1) h \
           WHERE w.enabled AND (w.leased_until IS NULL OR w.leased_until < clock_timestamp())), \
         ranked AS ( \
           SELECT head.id, head.endpoint_id, head.next_attempt_at, \
             row_number() OVER (PARTITION BY head.workspace_id ORDER BY head.next_attempt_at, head.id) \
               + coalesce(busy.n, 0) AS place \
           FROM head LEFT JOIN busy USING (workspace_id)), \
         pick AS ( \
           SELECT d.id, w.id AS endpoint_id FROM ranked r \
           JOIN outbox_deliveries d ON d.id = r.id JOIN webhook_endpoints w ON w.id = r.endpoint_id \
           WHERE r.place <= $4 AND {DUE} AND d.endpoint_id = w.id \
             AND w.enabled AND (w.leased_until IS NULL OR w.leased_until < clock_timestamp()) \
           ORDER BY r.place, r.next_attempt_at, r.id LIMIT $2 \
           FOR NO KEY UPDATE OF d, w SKIP LOCKED), \
         endpoints AS ( \
           UPDATE webhook_endpoints w SET lease_claim = $1, leased_until = clock_timestamp() + make_interval(secs => $3) \
           FROM pick WHERE w.id = pick.endpoint_id RETURNING w.id), \
         {LEASE_AND_ANSWER}"
    )
}

/// The internal lane (Clerk calls and other handlers of $4's kinds): each workspace's
/// oldest due deliveries, taken in turns across workspaces. A `clerk_sync` delivery is
/// left alone while another of the same grant is leased: the leased grants are read
/// once per claim (`leased`, as many as there are leases in flight), so each candidate
/// costs one lookup of its event, not a pass over the leases (a due delivery is never
/// leased itself, so it cannot match its own grant). Up to $2 deliveries.
fn internal_claim_sql() -> String {
    format!(
        "WITH leased AS MATERIALIZED ( \
           SELECT DISTINCT oe.payload -> 'data' ->> 'grantId' AS grant_id FROM outbox_deliveries o \
           JOIN outbox_events oe ON oe.id = o.event_id \
           WHERE o.claim_id IS NOT NULL AND o.claimed_until > clock_timestamp() AND o.state = 'pending' \
             AND o.target_kind = 'clerk_sync'), \
         head AS ( \
           SELECT h.id, h.next_attempt_at, ws.id AS workspace_id FROM workspaces ws \
           CROSS JOIN LATERAL (SELECT d.id, d.next_attempt_at FROM outbox_deliveries d \
             WHERE d.workspace_id = ws.id AND d.endpoint_id IS NULL AND {DUE} AND d.target_kind = ANY($4) \
               AND NOT (d.target_kind = 'clerk_sync' AND EXISTS (SELECT 1 FROM outbox_events e \
                 WHERE e.id = d.event_id AND e.payload -> 'data' ->> 'grantId' IN (SELECT grant_id FROM leased))) \
             ORDER BY d.next_attempt_at, d.id LIMIT $2) h), \
         ranked AS ( \
           SELECT id, next_attempt_at, \
             row_number() OVER (PARTITION BY workspace_id ORDER BY next_attempt_at, id) AS place FROM head), \
         pick AS ( \
           SELECT d.id FROM ranked r JOIN outbox_deliveries d ON d.id = r.id WHERE {DUE} \
           ORDER BY r.place, r.next_attempt_at, r.id LIMIT $2 FOR UPDATE OF d SKIP LOCKED), \
         {LEASE_AND_ANSWER}"
    )
}

fn claimed_from(rows: &[tokio_postgres::Row], claim: Uuid) -> Vec<Claimed> {
    rows.iter()
        .map(|r| Claimed {
            id: r.get(0),
            claim,
            attempts: r.get(1),
            target_kind: r.get(2),
            event: OutboxEvent {
                id: r.get(3),
                event_type: r.get(4),
                workspace_id: r.get(5),
                program_id: r.get(6),
                payload: r.get(7),
            },
            endpoint: r.get::<_, Option<Uuid>>(8).map(|id| EndpointTarget {
                id,
                url: r.get(9),
                secret_sealed: r.get(10),
                previous_sealed: r.get(11),
                signature_scheme: r.get(12),
            }),
        })
        .collect()
}

/// Takes up to `limit` due webhook deliveries for `lease_secs`, in one autocommitted
/// statement: at most one in flight per endpoint (across instances), and a workspace
/// with `per_workspace` endpoints in flight waits for one of them.
pub async fn claim_webhooks(
    client: &Client,
    claim: Uuid,
    limit: i64,
    lease_secs: f64,
    per_workspace: i64,
) -> Result<Vec<Claimed>> {
    // Planned on every call (see `claim_internal`).
    let rows = client.query(webhook_claim_sql().as_str(), &[&claim, &limit, &lease_secs, &per_workspace]).await?;
    Ok(claimed_from(&rows, claim))
}

/// Takes up to `limit` due deliveries of the internal target kinds this release knows
/// for `lease_secs`, in one autocommitted statement. (A kind added by a newer release is
/// left to the instances that know it, during a rolling upgrade.)
pub async fn claim_internal(
    client: &Client,
    claim: Uuid,
    kinds: &[&str],
    limit: i64,
    lease_secs: f64,
) -> Result<Vec<Claimed>> {
    // Not a cached statement: planned on every call, for the queue as it is then. The
    // outbox is empty most of the time and fills in bursts (a launch's redemptions); a
    // plan cached while it was empty scans it once per candidate, quadratic in the
    // backlog (the bench measured 25–280 ms a claim at a thousand due deliveries, the
    // worker's polls then taking most of a core from the requests that fill it). A new
    // statement's first plans are made for the table's current size.
    let rows = client.query(internal_claim_sql().as_str(), &[&claim, &limit, &lease_secs, &kinds]).await?;
    Ok(claimed_from(&rows, claim))
}

/// What one attempt saw (it is timed on the database clock when recorded: now minus
/// its latency).
#[derive(Debug, Clone)]
pub struct Attempt {
    pub status_code: Option<i32>,
    pub outcome: &'static str,
    pub latency_ms: i32,
    /// The Backend API calls a `clerk_sync` attempt made (its delivery log, V33).
    pub calls: Vec<RecordedCall>,
}

/// What becomes of the delivery after an attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    Delivered,
    /// Due again after this many seconds.
    RetryIn(f64),
    Failed,
    /// Failed, and the webhook endpoint answered `410 Gone`: it is disabled (`gone`).
    Gone,
}

/// Gives back a claimed delivery that was not attempted (another delivery of its
/// subject was running): due again in `secs`, its claim's attempt not counted.
pub async fn defer(client: &Client, delivery: &Claimed, secs: f64) -> Result<()> {
    let stmt = client
        .prepare_cached(
            "UPDATE outbox_deliveries SET claim_id = NULL, claimed_until = NULL, attempts = greatest(attempts - 1, 0), \
               next_attempt_at = clock_timestamp() + make_interval(secs => $3) \
             WHERE id = $1 AND claim_id = $2 AND state = 'pending'",
        )
        .await?;
    client.execute(&stmt, &[&delivery.id, &delivery.claim, &secs]).await?;
    Ok(())
}

/// Records an attempt and, if `claim` still holds the lease, the delivery's next state;
/// for a webhook, the endpoint's health: a success clears its failure record, a failure
/// starts one, an endpoint failing for `disable_after_days` is disabled, and one that
/// answered `410 Gone` is disabled at once.
pub async fn finish(
    tx: &Transaction<'_>,
    delivery: &Claimed,
    attempt: &Attempt,
    next: Next,
    disable_after_days: i32,
) -> Result<()> {
    // Endpoint before delivery: the order a cascading endpoint delete locks them in.
    // The endpoint's lease goes with its delivery's (when this claim still holds it).
    if let Some(endpoint) = &delivery.endpoint {
        if next == Next::Gone {
            tx.execute(
                "UPDATE webhook_endpoints SET enabled = false, \
                   disabled_reason = CASE WHEN enabled THEN 'gone' ELSE disabled_reason END, \
                   lease_claim = CASE WHEN lease_claim = $2 THEN NULL ELSE lease_claim END, \
                   leased_until = CASE WHEN lease_claim = $2 THEN NULL ELSE leased_until END \
                 WHERE id = $1",
                &[&endpoint.id, &delivery.claim],
            )
            .await?;
        } else if next == Next::Delivered {
            tx.execute(
                "UPDATE webhook_endpoints SET failing_since = NULL, \
                   lease_claim = CASE WHEN lease_claim = $2 THEN NULL ELSE lease_claim END, \
                   leased_until = CASE WHEN lease_claim = $2 THEN NULL ELSE leased_until END \
                 WHERE id = $1 AND (failing_since IS NOT NULL OR lease_claim = $2)",
                &[&endpoint.id, &delivery.claim],
            )
            .await?;
        } else {
            tx.execute(
                "UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, clock_timestamp()), \
                   enabled = enabled AND NOT coalesce(failing_since < clock_timestamp() - make_interval(days => $2), false), \
                   disabled_reason = CASE WHEN enabled AND failing_since < clock_timestamp() - make_interval(days => $2) \
                     THEN 'failing' ELSE disabled_reason END, \
                   lease_claim = CASE WHEN lease_claim = $3 THEN NULL ELSE lease_claim END, \
                   leased_until = CASE WHEN lease_claim = $3 THEN NULL ELSE leased_until END \
                 WHERE id = $1",
                &[&endpoint.id, &disable_after_days, &delivery.claim],
            )
            .await?;
        }
    }
    let (state, retry_in) = match next {
        Next::Delivered => ("delivered", 0.0),
        Next::RetryIn(secs) => ("pending", secs),
        Next::Failed | Next::Gone => ("failed", 0.0),
    };
    let updated = tx
        .execute(
            "UPDATE outbox_deliveries SET state = $3, claim_id = NULL, claimed_until = NULL, \
               next_attempt_at = CASE WHEN $3 = 'pending' THEN clock_timestamp() + make_interval(secs => $4) ELSE next_attempt_at END, \
               finished_at = CASE WHEN $3 = 'pending' THEN NULL ELSE clock_timestamp() END \
             WHERE id = $1 AND claim_id = $2",
            &[&delivery.id, &delivery.claim, &state, &retry_in],
        )
        .await?;
    if updated == 0 {
        tracing::warn!(delivery = delivery.id, "outbox lease lapsed before the outcome was recorded");
    }
    let recorded = tx
        .query_opt(
            "INSERT INTO outbox_attempts (delivery_id, attempted_at, status_code, outcome, latency_ms) \
             SELECT $1, clock_timestamp() - make_interval(secs => $4::int / 1000.0), $2, $3, $4 \
             WHERE EXISTS (SELECT 1 FROM outbox_deliveries WHERE id = $1) RETURNING id",
            &[&delivery.id, &attempt.status_code, &attempt.outcome, &attempt.latency_ms],
        )
        .await?;
    if let (Some(row), Some(program_id)) = (recorded, delivery.event.program_id) {
        clerk_sync_log::insert(tx, row.get(0), program_id, &attempt.calls).await?;
    }
    Ok(())
}

/// A delivery an owner asks to retry, with what it must belong to: a `clerk_sync`
/// delivery of one of the program's events, or a delivery to one of the workspace's
/// webhook endpoints.
#[derive(Debug, Clone, Copy)]
pub enum Retry {
    ClerkSync { program_id: Uuid, delivery_id: i64 },
    Webhook { workspace_id: Uuid, endpoint_id: Uuid, delivery_id: i64 },
}

/// Makes a delivery due now again, whatever its state, with at least one of
/// `max_attempts` left; the workers take it on their next claim. False when it does not
/// belong where `retry` says (the owner's uniform 404).
pub async fn make_due(tx: &Transaction<'_>, retry: Retry, now: DateTime<Utc>, max_attempts: i32) -> Result<bool> {
    const DUE: &str = "UPDATE outbox_deliveries d SET state = 'pending', next_attempt_at = $1, finished_at = NULL, \
                       attempts = least(d.attempts, $2 - 1)";
    let (owned_by, ids): (&str, Vec<&(dyn ToSql + Sync)>) = match &retry {
        Retry::ClerkSync { program_id, delivery_id } => (
            "FROM outbox_events e WHERE e.id = d.event_id AND e.program_id = $3 AND d.id = $4 \
             AND d.target_kind = 'clerk_sync'",
            vec![program_id, delivery_id],
        ),
        Retry::Webhook { workspace_id, endpoint_id, delivery_id } => (
            "FROM webhook_endpoints w WHERE w.id = d.endpoint_id AND w.workspace_id = $3 AND d.id = $4 \
             AND d.endpoint_id = $5",
            vec![workspace_id, delivery_id, endpoint_id],
        ),
    };
    let stmt = tx.prepare_cached(&format!("{DUE} {owned_by}")).await?;
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![&now, &max_attempts];
    params.extend(ids);
    Ok(tx.execute(&stmt, &params).await? == 1)
}

/// Queues a `webhook.test` event (`payload`) for the one endpoint, due now; answers the
/// event id and the delivery id.
pub async fn enqueue_test(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    endpoint_id: Uuid,
    payload: &Value,
    now: DateTime<Utc>,
) -> Result<(Uuid, i64)> {
    let row = tx
        .query_one(
            "WITH ev AS (INSERT INTO outbox_events (workspace_id, event_type, payload, created_at) \
               VALUES ($1, 'webhook.test', $3, $4) RETURNING id) \
             INSERT INTO outbox_deliveries (event_id, target_kind, endpoint_id, workspace_id, next_attempt_at, created_at) \
             SELECT ev.id, 'webhook', $2, $1, $4, $4 FROM ev RETURNING event_id, id",
            &[&workspace_id, &endpoint_id, &payload, &now],
        )
        .await?;
    Ok((row.get(0), row.get(1)))
}

/// Makes every delivery to the endpoint of an event since `since` that it has not
/// acknowledged (skipped while it was disabled, failed, or pending and not in flight) due
/// at `now`, in their original order (the claim takes an endpoint's equal-due deliveries
/// by id); a skipped or failed one starts the schedule afresh. Answers how many.
pub async fn recover(
    tx: &Transaction<'_>,
    workspace_id: Uuid,
    endpoint_id: Uuid,
    since: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<u64> {
    Ok(tx
        .execute(
            "UPDATE outbox_deliveries d SET next_attempt_at = $4, finished_at = NULL, \
               attempts = CASE WHEN d.state = 'pending' THEN d.attempts ELSE 0 END, state = 'pending' \
             FROM outbox_events e, webhook_endpoints w \
             WHERE e.id = d.event_id AND w.id = d.endpoint_id AND w.workspace_id = $1 AND d.endpoint_id = $2 \
               AND e.created_at >= $3 AND d.state <> 'delivered' \
               AND (d.claimed_until IS NULL OR d.claimed_until < clock_timestamp())",
            &[&workspace_id, &endpoint_id, &since, &now],
        )
        .await?)
}
