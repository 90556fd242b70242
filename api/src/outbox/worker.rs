//! The delivery loops every API process runs, one per lane (issue 26 item 4): the
//! webhook lane and the internal lane (Clerk calls) claim apart, so Clerk removals never
//! wait behind a crowd of slow receivers, and each runs its deliveries as separate
//! tasks, at most [`Lane::slots`] at once: a claim (one short statement that commits)
//! takes as many as there are free slots, each delivery runs with no transaction open
//! and records its outcome in its own short transaction, and a slot that frees wakes the
//! lane to claim again — no delivery waits for the slowest of a batch. An idle lane polls
//! every `OUTBOX_POLL_MS`. On shutdown a lane stops claiming and finishes what it holds
//! (bounded by the delivery timeouts).

use super::{retry_delay, throttled_delay, webhook, Call, Outcome, Reason, TargetKind, DEFER_SECS, DISABLE_AFTER_DAYS};
use crate::db::clerk_sync_log::RecordedCall;
use crate::db::outbox::{self, Attempt, Claimed, Next};
use crate::db::DbError;
use crate::state::AppState;
use actix_web::web;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

/// Deliveries claimed by one statement, at most.
const BATCH: usize = 32;

/// Webhook endpoints one workspace may have in flight at once, across instances: the
/// rest of the installation's receivers always find room.
pub const WEBHOOKS_IN_FLIGHT_PER_WORKSPACE: i64 = 10;

/// One delivery loop: what it claims and how many it runs at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lane {
    Webhooks,
    Internal,
}

impl Lane {
    fn name(self) -> &'static str {
        match self {
            Lane::Webhooks => "outbox webhooks",
            Lane::Internal => "outbox internal",
        }
    }

    /// Deliveries in flight in this process, at most. A webhook attempt holds no database
    /// connection while it waits for its receiver; a `clerk_sync` one holds one (its
    /// grant's lock), so the internal lane stays small beside the pool.
    fn slots(self) -> usize {
        match self {
            Lane::Webhooks => 64,
            Lane::Internal => 4,
        }
    }
}

/// Starts this process's delivery lanes; shutdown waits for them.
pub fn spawn(state: &web::Data<AppState>) {
    let http = webhook::client(state.settings.integrations.allow_loopback);
    for lane in [Lane::Webhooks, Lane::Internal] {
        let (state, http) = (state.clone(), http.clone());
        state.shutdown.clone().spawn_worker(lane.name(), move |stop| run_lane(state, http, lane, stop));
    }
}

async fn run_lane(state: web::Data<AppState>, http: reqwest::Client, lane: Lane, stop: CancellationToken) {
    let slots = Arc::new(Semaphore::new(lane.slots()));
    let freed = Arc::new(Notify::new());
    let mut running = JoinSet::new();
    while !stop.is_cancelled() {
        while running.try_join_next().is_some() {}
        let free = slots.available_permits().min(BATCH);
        let claimed = if free == 0 { Vec::new() } else { claim(&state, lane, free).await };
        let full = free > 0 && claimed.len() == free;
        for d in claimed {
            let permit = slots.clone().try_acquire_owned().expect("one free slot per claimed delivery");
            let (state, http, freed) = (state.clone(), http.clone(), freed.clone());
            running.spawn(async move {
                attempt(&state, &http, &d).await;
                drop(permit);
                freed.notify_one();
            });
        }
        // A full claim may have left more due; otherwise wait for a slot to free (its
        // endpoint may have more), for the poll, or for shutdown.
        if !full {
            tokio::select! {
                _ = stop.cancelled() => break,
                _ = freed.notified() => {}
                _ = tokio::time::sleep(state.settings.integrations.poll) => {}
            }
        }
    }
    while running.join_next().await.is_some() {}
}

/// One claim of up to `limit` deliveries for `lane`.
async fn claim(state: &AppState, lane: Lane, limit: usize) -> Vec<Claimed> {
    let claim = Uuid::new_v4();
    let lease = f64::from(state.settings.integrations.lease_secs);
    let limit = i64::try_from(limit).unwrap_or(1);
    // The pooled connection goes back before any network call.
    let claimed = match state.pool.get().await {
        Ok(client) => match lane {
            Lane::Webhooks => {
                outbox::claim_webhooks(&client, claim, limit, lease, WEBHOOKS_IN_FLIGHT_PER_WORKSPACE).await
            }
            Lane::Internal => {
                let kinds: Vec<&str> =
                    TargetKind::ALL.iter().filter(|k| **k != TargetKind::Webhook).map(|k| k.as_str()).collect();
                outbox::claim_internal(&client, claim, &kinds, limit, lease).await
            }
        },
        Err(e) => Err(DbError::from(e)),
    };
    claimed.unwrap_or_else(|e| {
        tracing::warn!(lane = lane.name(), error = %e, "outbox claim failed");
        Vec::new()
    })
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
    let jitter = f64::from(u32::from_be_bytes(crate::crypto::random_bytes::<4>())) / f64::from(u32::MAX);
    let scale = state.settings.integrations.backoff_scale;
    let (next, status_code, recorded) = match outcome {
        Outcome::Delivered { status } => (Next::Delivered, status, "delivered"),
        Outcome::Retry { status, reason } => {
            let next = retry_delay(d.attempts, scale, jitter).map_or(Next::Failed, Next::RetryIn);
            (next, status, reason.as_str())
        }
        Outcome::RetryAfter { status, secs } => {
            let next = throttled_delay(d.attempts, scale, jitter, secs).map_or(Next::Failed, Next::RetryIn);
            (next, Some(status), Reason::HttpStatus.as_str())
        }
        Outcome::Gone { status } => (Next::Gone, Some(status), Reason::HttpStatus.as_str()),
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
