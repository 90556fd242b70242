//! Filling a database fast, through the real tables: programs of the owner's workspace,
//! each with a notice published before its entries, then entries, their signup
//! receipts, their `signup` events and their hour buckets, made by `generate_series`
//! inside PostgreSQL (one transaction per program, committed without waiting for the
//! disk), and the program's queue counter set from the rows. Everything the API keeps
//! consistent stays consistent, so `vestibule verify` passes on the result:
//!
//! * each entry's notice is its program's, published before the entry's choice time,
//!   which equals its creation time;
//! * entries are spread evenly over the last 30 days, ending an hour ago, so no hour
//!   bucket comes near a cap and the current hour is empty; `intake_hours` holds each
//!   program's admissions per hour, counted from the rows;
//! * one receipt per entry (a random request key and binding: no server key is needed,
//!   as nobody will ever replay these keys), one `signup` event per entry, in time order
//!   with the program's notice event first, so event ids and times rise together;
//! * every entry is `waiting`, and the entry-count triggers (V101) count them as they are
//!   inserted, so the program's queue is its row count.
//!
//! Emails are synthetic (`f<10 hex>-<n>@<one of three loadgen.example domains>`).

use anyhow::Context as _;
use std::time::Instant;
use tokio_postgres::{Client, NoTls};
use uuid::Uuid;

/// The schema's highest cap, and the queue size of the program filled to it.
pub const CAP: i32 = 100_000;
const PURPOSE: &str = "Load test of the Vestibule admission path";

/// A program made by the fill.
#[derive(Debug, Clone)]
pub struct Filled {
    pub id: Uuid,
    pub slug: String,
    pub entries: i64,
}

pub struct Plan {
    /// Entries in all programs together.
    pub total: i64,
    /// Free places left in the measured program (`CAP - room` entries).
    pub room: i64,
}

/// What the fill made: the program at its cap, the measured one just below it, and the
/// rest; plus how long it took.
pub struct Fill {
    pub full: Option<Filled>,
    pub near: Filled,
    pub others: Vec<Filled>,
    pub seconds: f64,
}

pub async fn connect(url: &str) -> anyhow::Result<Client> {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await.context("connecting to the database")?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("loadgen: database connection: {e}");
        }
    });
    Ok(client)
}

/// Sizes of the programs: one at the cap (when the total allows it), the measured one
/// at `CAP - room`, then programs of at most `CAP` for the rest.
fn sizes(plan: &Plan) -> (Option<i64>, i64, Vec<i64>) {
    let cap = i64::from(CAP);
    let near = (cap - plan.room).clamp(0, plan.total);
    let mut rest = plan.total - near;
    let full = (rest >= cap).then(|| {
        rest -= cap;
        cap
    });
    let mut others = Vec::new();
    while rest > 0 {
        let n = rest.min(cap - 1);
        others.push(n);
        rest -= n;
    }
    (full, near, others)
}

pub async fn fill(db: &Client, workspace: Uuid, run: &str, plan: &Plan) -> anyhow::Result<Fill> {
    let started = Instant::now();
    let (full, near, others) = sizes(plan);
    // The measured program is made last, so its rows are the most recently written.
    let mut made = Vec::new();
    if let Some(n) = full {
        made.push(program(db, workspace, &format!("lg-{run}-full"), n).await?);
    }
    for (i, n) in others.iter().enumerate() {
        made.push(program(db, workspace, &format!("lg-{run}-bulk{i}"), *n).await?);
    }
    let near = program(db, workspace, &format!("lg-{run}-near"), near).await?;
    eprintln!("loadgen: analyzing the filled tables");
    db.batch_execute("VACUUM (ANALYZE) entries, signup_receipts, audit_events, intake_hours, programs").await?;
    let full = full.map(|_| made.remove(0));
    Ok(Fill { full, near, others: made, seconds: started.elapsed().as_secs_f64() })
}

/// One open program with notice version 1 and `n` waiting entries.
async fn program(db: &Client, workspace: Uuid, slug: &str, n: i64) -> anyhow::Result<Filled> {
    eprintln!("loadgen: filling {slug} with {n} entries");
    let id = Uuid::new_v4();
    let notice = Uuid::new_v4();
    let sql = format!(
        r"
BEGIN;
SET LOCAL synchronous_commit TO off;
CREATE TEMP TABLE fill_clock ON COMMIT DROP AS
  SELECT clock_timestamp() - interval '30 days 1 hour' AS t0, interval '30 days' / greatest({n}, 1) AS step;
INSERT INTO programs (id, workspace_id, public_slug, purpose, queue_cap, hourly_cap, seat_cap, max_invite_days, created_at)
  SELECT '{id}', '{workspace}', '{slug}', '{PURPOSE}', {CAP}, {CAP}, {CAP}, 30, t0 - interval '2 minutes' FROM fill_clock;
INSERT INTO notices (id, program_id, version, purpose, contact_text, retention_text, published_at)
  SELECT '{notice}', '{id}', 1, '{PURPOSE}', 'Benchmark only.', 'Dropped after the run.', t0 - interval '1 minute'
  FROM fill_clock;
UPDATE programs SET current_notice_id = '{notice}', current_notice_version = 1, signup_open = true,
  pow_level = 'off', revision = revision + 2 WHERE id = '{id}';
INSERT INTO audit_events (program_id, actor_kind, event_type, event_at, details)
  SELECT '{id}', 'system', 'notice_published', t0 - interval '1 minute',
         jsonb_build_object('noticeId', '{notice}', 'version', 1) FROM fill_clock;
INSERT INTO entries (id, program_id, email_key, notice_id, permission_at, state, created_at, updated_at)
  SELECT gen_random_uuid(), '{id}',
         'f' || substr(md5('{id}' || g), 1, 10) || '-' || g || '@'
           || (ARRAY['loadgen.example', 'mail.loadgen.example', 'corp.loadgen.example'])[1 + g % 3],
         '{notice}', t, 'waiting', t, t
  FROM fill_clock, LATERAL (SELECT g, t0 + step * g AS t FROM generate_series(1, {n}) g) s;
INSERT INTO signup_receipts (program_id, request_key, binding_hmac, entry_id, accepted_at)
  SELECT program_id, gen_random_uuid(), gen_random_bytes(32), id, created_at FROM entries WHERE program_id = '{id}';
INSERT INTO audit_events (program_id, entry_id, actor_kind, event_type, event_at, details)
  SELECT program_id, id, 'public', 'signup', created_at, jsonb_build_object('noticeVersion', 1)
  FROM entries WHERE program_id = '{id}' ORDER BY created_at, id;
INSERT INTO intake_hours (program_id, bucket_start, admitted_count)
  SELECT program_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
  FROM entries WHERE program_id = '{id}' GROUP BY 1, 2;
COMMIT;"
    );
    db.batch_execute(&sql).await.with_context(|| format!("filling {slug}"))?;
    Ok(Filled { id, slug: slug.to_owned(), entries: n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_million_makes_one_full_program_one_near_its_cap_and_the_rest() {
        let (full, near, others) = sizes(&Plan { total: 1_000_000, room: 5_000 });
        assert_eq!(full, Some(100_000));
        assert_eq!(near, 95_000);
        assert_eq!(others.iter().sum::<i64>() + 100_000 + 95_000, 1_000_000);
        assert!(others.iter().all(|n| *n < i64::from(CAP)));
        assert_eq!(sizes(&Plan { total: 0, room: 5_000 }), (None, 0, vec![]));
        assert_eq!(sizes(&Plan { total: 1_000, room: 5_000 }), (None, 1_000, vec![]));
    }
}
