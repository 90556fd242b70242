//! Rate-limit hits counted together (issue 28). Every new signup counts one hit on its
//! address's counter before its admission (`usecases::admission`), and every challenge one
//! on its address's challenge counter (`usecases::public`): under a launch spike from
//! behind one address (a campus, a carrier's NAT — and the bench, all from 127.0.0.1)
//! each request was its own upsert of the same row, a transaction each, queued on that
//! row's lock. Here the hits of one counter that arrive while its previous upsert runs
//! gather and go as one upsert of `hits + n` ([`crate::db::rate_limits::count_together`]),
//! each attempt answered where it stands in arrival order — the same counts, refusals and
//! `RateLimit` fields as one upsert each.
//!
//! Batches form in a lane per counter (`crate::lanes`, as the admission's do): a hit that
//! finds its counter idle goes at once, alone (no timer); the ones that arrive meanwhile
//! go next, together. Each HTTP worker has lanes of its own (`AppState::for_worker`), and
//! a batch runs on that worker's thread with a connection of the worker's own pool: the
//! hit's round trip stays on the thread that serves the request, where on the main
//! runtime it crossed to another thread and back (measured, issue 28, interleaved A/B:
//! signups into one program at 8 clients 2,050 → 2,400 req/s, at 64 clients +20 %). So a
//! counter may have one upsert running per worker and instance at a time; each is one
//! atomic `hits + n`, so the counts stay exact, as across instances. A request must not
//! hold a connection while it waits here (with every connection of its worker's pool held
//! by a waiting request, no batch could run). A failed upsert answers each
//! of its attempts `DbError::Unavailable` (503), as the one upsert each did; counters are
//! soft state (`crate::db::rate_limits`), so a batch is never retried.

use crate::db::rate_limits::{self, Counted, Refused, Scope};
use crate::db::DbError;
use crate::lanes::Lanes;
use deadpool_postgres::Pool;
use tokio::sync::oneshot;

/// The most hits one upsert counts; later arrivals wait for the next.
const MAX_BATCH: usize = 512;

type Answer = Result<Result<Counted, Refused>, DbError>;
/// A hit waiting in its counter's lane: its limit and where to answer.
type Pending = (u32, oneshot::Sender<Answer>);
/// A counter: its scope, subject and window length.
type Key = (Scope, Vec<u8>, i32);

/// The counters of this instance with an upsert running, and what waits behind each.
#[derive(Clone)]
pub struct Hits {
    pool: Pool,
    lanes: Lanes<Key, Pending>,
    runtime: tokio::runtime::Handle,
}

impl Hits {
    /// Made on the runtime where each batch will run (an HTTP worker's, with its pool).
    pub fn new(pool: Pool) -> Self {
        Self { pool, lanes: Lanes::new(MAX_BATCH), runtime: tokio::runtime::Handle::current() }
    }

    /// Counts one attempt on the counter `(scope, subject)` of `window_secs`-second
    /// windows against `limit`, with whatever else arrives for that counter meanwhile.
    pub async fn count(&self, scope: Scope, subject: Vec<u8>, limit: u32, window_secs: i32) -> Answer {
        let (reply, answer) = oneshot::channel();
        let key = (scope, subject, window_secs);
        if let Some(batch) = self.lanes.join(&key, (limit, reply)) {
            let this = self.clone();
            self.runtime.spawn(async move {
                let counter = key.clone();
                this.lanes.drive(key, batch, |batch| this.flush(&counter, batch)).await;
            });
        }
        answer.await.unwrap_or_else(|_| Err(DbError::Unavailable("the rate-limit batch stopped".into())))
    }

    async fn flush(&self, (scope, subject, window_secs): &Key, batch: Vec<Pending>) {
        let (limits, replies): (Vec<u32>, Vec<_>) = batch.into_iter().unzip();
        let counted = async {
            let client = self.pool.get().await?;
            rate_limits::count_together(&client, *scope, subject, &limits, *window_secs).await
        }
        .await;
        match counted {
            Ok(answers) => {
                for (reply, answer) in replies.into_iter().zip(answers) {
                    let _ = reply.send(Ok(answer));
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, size = replies.len(), "rate-limit batch failed; each of its requests is answered 503");
                for reply in replies {
                    let _ = reply.send(Err(DbError::Unavailable("the rate-limit batch failed".into())));
                }
            }
        }
    }
}
