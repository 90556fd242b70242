//! The delivery loop every API process runs: claim a batch (one short statement that
//! commits), deliver each claimed row concurrently with no transaction open, record each
//! outcome in its own short transaction. An idle worker polls every `OUTBOX_POLL_MS`.
//! On shutdown it stops claiming and finishes the batch it holds (bounded by the
//! delivery timeouts).

use super::{retry_delay, webhook, Call, Outcome, TargetKind, DEFER_SECS, DISABLE_AFTER_DAYS};
use crate::db::clerk_sync_log::RecordedCall;
use crate::db::outbox::{self, Attempt, Claimed, Next};
use crate::db::DbError;
use crate::state::AppState;
use actix_web::web;
use std::time::Instant;
use uuid::Uuid;

/// Deliveries claimed at once.
const BATCH: i64 = 16;

/// Starts this process's outbox worker; shutdown waits for it.
pub fn spawn(state: &web::Data<AppState>) {
    let state = state.clone();
    let http = webhook::client(state.settings.integrations.allow_loopback);
    let shutdown = state.shutdown.clone();
    shutdown.spawn_worker("outbox delivery", move |stop| async move {
        let kinds: Vec<&str> = TargetKind::ALL.iter().map(|k| k.as_str()).collect();
        while !stop.is_cancelled() {
            let worked = run_once(&state, &http, &kinds).await;
            if worked == 0 {
                tokio::select! {
                    _ = stop.cancelled() => break,
                    _ = tokio::time::sleep(state.settings.integrations.poll) => {}
                }
            }
        }
    });
}

/// One batch; returns how many deliveries were attempted.
async fn run_once(state: &AppState, http: &reqwest::Client, kinds: &[&str]) -> usize {
    let claim = Uuid::new_v4();
    // The pooled connection goes back before any network call.
    let claimed = match state.pool.get().await {
        Ok(client) => {
            outbox::claim(&client, claim, kinds, BATCH, f64::from(state.settings.integrations.lease_secs)).await
        }
        Err(e) => Err(DbError::from(e)),
    };
    let claimed = match claimed {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "outbox claim failed");
            return 0;
        }
    };
    futures_util::future::join_all(claimed.iter().map(|d| attempt(state, http, d))).await;
    claimed.len()
}

async fn attempt(state: &AppState, http: &reqwest::Client, d: &Claimed) {
    let started = Instant::now();
    let (outcome, calls) = dispatch(state, http, d).await;
    let latency_ms = i32::try_from(started.elapsed().as_millis()).unwrap_or(i32::MAX);
    if outcome == Outcome::Deferred {
        tracing::debug!(delivery = d.id, target = %d.target_kind, "outbox delivery deferred");
        if let Err(e) = defer(&state.pool, d).await {
            tracing::warn!(delivery = d.id, error = %e, "outbox deferral not recorded");
        }
        return;
    }
    let (next, status_code, recorded) = match outcome {
        Outcome::Delivered { status } => (Next::Delivered, status, "delivered"),
        Outcome::Retry { status, reason } => {
            let jitter = f64::from(u32::from_be_bytes(crate::crypto::random_bytes::<4>())) / f64::from(u32::MAX);
            let next = match retry_delay(d.attempts, state.settings.integrations.backoff_scale, jitter) {
                Some(secs) => Next::RetryIn(secs),
                None => Next::Failed,
            };
            (next, status, reason.as_str())
        }
        Outcome::Failed { reason } => (Next::Failed, None, reason.as_str()),
        Outcome::Deferred => unreachable!("handled above"),
    };
    tracing::info!(
        delivery = d.id,
        target = %d.target_kind,
        event_type = %d.event.event_type,
        attempt = d.attempts,
        outcome = recorded,
        status = status_code,
        latency_ms,
        "outbox delivery attempt"
    );
    let calls = calls
        .iter()
        .map(|c| RecordedCall {
            call: c.name.as_str(),
            outcome: c.outcome,
            status_code: c.status,
            ago_ms: i32::try_from(c.ended.elapsed().as_millis()).unwrap_or(i32::MAX),
        })
        .collect();
    let attempt = Attempt { status_code, outcome: recorded, latency_ms, calls };
    if let Err(e) = record(&state.pool, d, &attempt, next).await {
        // The lease lapses and the delivery is attempted again, with the same webhook-id.
        tracing::warn!(delivery = d.id, error = %e, "outbox outcome not recorded");
    }
}

/// Records the outcome in one short transaction, run again on a deadlock. (Written out
/// rather than through `db::transaction`: the worker's future must be `Send`, which the
/// closure-taking helper's is not.)
async fn record(pool: &deadpool_postgres::Pool, d: &Claimed, attempt: &Attempt, next: Next) -> Result<(), DbError> {
    let mut client = pool.get().await?;
    let mut tries = 0;
    loop {
        let tx = client.transaction().await?;
        let done = match outbox::finish(&tx, d, attempt, next, DISABLE_AFTER_DAYS).await {
            Ok(()) => tx.commit().await.map_err(DbError::from),
            Err(e) => Err(e),
        };
        match done {
            Err(DbError::Retry) if tries < 3 => tries += 1,
            other => return other,
        }
    }
}

/// Gives a deferred delivery back, due again shortly, its attempt not counted.
async fn defer(pool: &deadpool_postgres::Pool, d: &Claimed) -> Result<(), DbError> {
    let client = pool.get().await?;
    outbox::defer(&client, d, DEFER_SECS).await
}

/// Hands a claimed delivery to its target kind's handler; answers the outcome and the
/// Backend API calls it made (a `clerk_sync` delivery's log).
async fn dispatch(state: &AppState, http: &reqwest::Client, d: &Claimed) -> (Outcome, Vec<Call>) {
    match TargetKind::parse(&d.target_kind) {
        Some(TargetKind::Webhook) => (webhook::deliver(state, http, d).await, Vec::new()),
        Some(TargetKind::ClerkSync) => super::clerk_sync::deliver(state, d).await,
        // Not claimed (the claim names the known kinds); kept total for safety.
        None => (Outcome::Retry { status: None, reason: super::Reason::HandlerError }, Vec::new()),
    }
}
