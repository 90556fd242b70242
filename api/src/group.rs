//! Group admission (issue 28): signups for the programs of one workspace that arrive
//! together at this instance are admitted together — one transaction, one WAL flush, the
//! statements of `admit_signups` (V140) run once for the whole batch — each with its own
//! decision, answered to its own request.
//!
//! How batches form: each workspace has a lane. A signup that finds its workspace's lane
//! idle starts a batch of itself at once (no timer, so a lone signup waits for nothing);
//! while that batch commits, the signups that arrive for any program of the workspace
//! gather in the lane, and when the commit is done they go as the next batch (at most
//! [`MAX_BATCH`] at a time, in arrival order). So batches grow exactly as far as the
//! database is slower than arrivals. Across instances nothing is shared in memory: each
//! instance's batches take turns on the program row locks, which `admit_signups` takes
//! first, in the order of the programs' ids (the global order), as a single admission did.
//!
//! Why a lane per workspace and not per program (V140; until then a lane was a program's):
//! a launch spread over several programs made batches of one under any load (the bench's
//! 16 programs: 18 % and 53 % of the ceiling at 8 and 64 clients), each paying the
//! function's per-statement costs and its own commit. A lane per workspace, not one per
//! instance: a batch is one transaction, so a batch that fails fails one tenant's
//! requests only, and no workspace's signups wait behind another's commit.
//!
//! Tried and measured slower (BENCHMARKS.md, "the next batch at the lock"): sending the
//! next batch as soon as the one before has its decisions back, so that it waits for the
//! program lock inside PostgreSQL while that one's commit flushes. Batches came out
//! smaller and each signup cost more CPU (one program, 8 clients: 1,430 → 1,200 req/s),
//! and on two cores CPU per signup, not the turn-around it saved, is what bounds the rate.
//! Measured again on a machine whose cores had room (2026-12-05): 28–30 % slower at 8
//! clients, a third more CPU per signup.
//!
//! Tried and measured slower (BENCHMARKS.md, 2026-12-05), both:
//! * several lanes per workspace — its programs spread over two lanes by id, so that
//!   batches of different programs run side by side on both cores. Batches came out half
//!   as large and each signup cost half as much CPU again (16 programs, 8 clients: 786 →
//!   1,168 µs of API, PostgreSQL and client), so 16 programs at 8 clients fell 1,740 →
//!   1,350 req/s and at 64 clients 4,430 → 4,150, one program unchanged;
//! * committing a batch without waiting for its flush (`synchronous_commit = off`), so
//!   that the program lock passes on before the disk's flush (a sixth of the time a batch
//!   of four held it), answering its requests only after a flush of its own. The next
//!   batch then gathered during the batch's statements only: one program at 8 clients
//!   1,966 → 1,533 req/s, CPU per signup 701 → 910 µs. (Its first "flush of its own", a
//!   transaction that only took an id, flushed nothing — PostgreSQL commits a transaction
//!   that wrote no WAL asynchronously — which the crash test in `faults.rs` caught.)
//!
//! Where a lane runs: on the server's main (multi-threaded) runtime, where the pool's
//! connections do their I/O (`db::connect::OnRuntime`), not on the HTTP worker that took
//! its first signup — there the turn from one batch's answer to the next batch's send
//! waited behind that worker's requests. Measured twice, interleaved (BENCHMARKS.md,
//! 2026-12-03 and 2026-12-04): ahead in the means of every cell, within the machine's
//! spread. The 2026-12-03 revert blamed it for slow proof-of-work cells; on 2026-12-04 the
//! same cells were as slow without it (on ÷ off 71 % against 78 % with it).
//!
//! Not a set of lanes per HTTP worker, though each worker has its own pool (`startup::
//! serve`) and rate-limit lanes (`crate::hits`): measured (2026-12-05, interleaved), a lone
//! signup gained 15 % (no thread crossing), but two workers' batches of one workspace
//! then queue on the same program locks, and one program at 8 clients fell 2,350 → 1,430
//! req/s, at 64 clients 5,780 → 4,090.
//!
//! Failure: a batch is one transaction. A conflict (deadlock, a counter guard, another
//! writer's unique key) runs the whole batch again, deciding on what it reads then; a
//! batch that still fails answers every one of its requests `DbError::Unavailable` (503),
//! and nothing of it was written, so each request's retry with the same key is a fresh
//! attempt — or, if the commit's answer was what got lost, a replay of its receipt.
//! The batch runs in a task of its own, so a request that goes away (a client that hangs
//! up) never cancels the others' transaction.

use crate::db::signups::{self, Attempt, Decided, Target};
use crate::db::{self, DbError};
use crate::lanes::Lanes;
use deadpool_postgres::Pool;
use tokio::sync::oneshot;
use uuid::Uuid;

/// The most attempts one transaction admits; later arrivals wait for the next batch.
pub const MAX_BATCH: usize = 256;

type Reply = oneshot::Sender<Result<Decided, DbError>>;

/// An attempt waiting in its workspace's lane, with its program and where to answer.
type Pending = (Uuid, Attempt, Reply);

/// The per-workspace lanes of this instance.
#[derive(Clone)]
pub struct Admitter {
    pool: Pool,
    /// By workspace id.
    lanes: Lanes<Uuid, Pending>,
    runtime: tokio::runtime::Handle,
}

impl Admitter {
    /// Made on the server's main runtime (`startup`), where each lane will run.
    pub fn new(pool: Pool) -> Self {
        Self { pool, lanes: Lanes::new(MAX_BATCH), runtime: tokio::runtime::Handle::current() }
    }

    /// Admits `attempt` into `target`'s program with whatever else arrives for the
    /// programs of its workspace meanwhile; answers this attempt's own decision.
    pub async fn admit(&self, target: Target, attempt: Attempt) -> Result<Decided, DbError> {
        let (reply, answer) = oneshot::channel();
        let workspace_id = target.workspace_id;
        if let Some(batch) = self.lanes.join(&workspace_id, (target.program_id, attempt, reply)) {
            let this = self.clone();
            self.runtime.spawn(async move {
                this.lanes.drive(workspace_id, batch, |batch| this.commit(workspace_id, batch)).await;
            });
        }
        answer.await.unwrap_or_else(|_| Err(DbError::Unavailable("the admission batch stopped".into())))
    }

    async fn commit(&self, workspace_id: Uuid, batch: Vec<Pending>) {
        let size = batch.len();
        let mut programs = Vec::with_capacity(size);
        let mut attempts = Vec::with_capacity(size);
        let mut replies = Vec::with_capacity(size);
        for (program, attempt, reply) in batch {
            programs.push(program);
            attempts.push(attempt);
            replies.push(reply);
        }
        let decided = self.decide(workspace_id, &programs, &attempts).await;
        crate::metrics::count("admission_batch", size_label(size));
        match decided {
            Ok(decisions) => {
                for (reply, decision) in replies.into_iter().zip(decisions) {
                    let _ = reply.send(Ok(decision));
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, size, "admission batch failed; each of its requests is answered 503");
                for reply in replies {
                    let _ = reply.send(Err(DbError::Unavailable("the admission batch failed".into())));
                }
            }
        }
    }
}

impl Admitter {
    /// One transaction for the batch, run again (a bounded number of times, as
    /// `db::retrying` does) on a conflict or on another writer's unique key: both mean a
    /// writer got in around the locks, and the batch decides again on what it reads then.
    async fn decide(
        &self,
        workspace_id: Uuid,
        programs: &[Uuid],
        attempts: &[Attempt],
    ) -> Result<Vec<Decided>, DbError> {
        let mut n: u64 = 1;
        loop {
            let client = self.pool.get().await?;
            match signups::admit_batch(&client, workspace_id, programs, attempts).await {
                Err(DbError::Retry | DbError::Unique(_)) if n < u64::from(db::MAX_ATTEMPTS) => {
                    n += 1;
                    drop(client);
                    tokio::time::sleep(std::time::Duration::from_millis(5 * n)).await;
                }
                Err(DbError::Retry | DbError::Unique(_)) => {
                    return Err(DbError::Unavailable("transaction kept conflicting".into()))
                }
                other => return other,
            }
        }
    }
}

/// Batch sizes as a metric label: a few fixed buckets.
fn size_label(size: usize) -> &'static str {
    match size {
        0..=1 => "1",
        2..=4 => "2-4",
        5..=16 => "5-16",
        17..=64 => "17-64",
        _ => "65+",
    }
}
