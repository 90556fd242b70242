//! `vestibule verify`: checks a database (typically one restored from a backup) for the
//! links the product's promises rest on, and prints one line per check. Exit status 1
//! when any check fails. It only reads.
//!
//! The checks: notice ↔ entry (an entry's notice is its own program's and was published
//! before the applicant's choice), choice time, invitation ↔ entry, grant ↔ invitation ↔
//! entry (or grant ↔ cohort code), counters (queue count, hour buckets of public signups,
//! cohort code uses, the per-state entry counts of V101) against the rows they count, notice versions without gaps, the
//! append-only triggers in place (each on its table, calling the blocking function,
//! enabled), and the audit history in commit order per program (ids and times rise
//! together) with one `signup` per entry.
//! Then every audit chain is recomputed, and each checkpoint given is proved a prefix of
//! today's chain (`verify_chain`); erasures are checked (`verify_erasure`), and every
//! lottery draw on public randomness is recomputed from its rows (`verify_draws`).

use super::verify_chain::{self, SavedCheckpoint};
use anyhow::Context;
use tokio_postgres::NoTls;

/// A named check: a query that counts offending rows (0 = pass).
struct Check {
    name: &'static str,
    sql: &'static str,
}

const CHECKS: &[Check] = &[
    Check {
        name: "every entry's notice belongs to its program",
        sql: "SELECT count(*) FROM entries e LEFT JOIN notices n ON n.id = e.notice_id AND n.program_id = e.program_id WHERE n.id IS NULL",
    },
    Check {
        name: "every choice was made after its notice was published",
        sql: "SELECT count(*) FROM entries e JOIN notices n ON n.id = e.notice_id WHERE e.permission_at < n.published_at",
    },
    Check {
        name: "every choice time is at or before the entry's creation",
        sql: "SELECT count(*) FROM entries WHERE permission_at > created_at",
    },
    Check {
        name: "every program's current notice is its latest version",
        sql: "SELECT count(*) FROM programs p WHERE p.current_notice_version IS DISTINCT FROM \
              (SELECT max(version) FROM notices n WHERE n.program_id = p.id)",
    },
    Check {
        name: "notice versions run 1..n without gaps",
        sql: "SELECT count(*) FROM (SELECT program_id, count(*) AS n, max(version) AS m FROM notices GROUP BY program_id) v WHERE n <> m",
    },
    Check {
        name: "every invitation points at an entry of its own program",
        sql: "SELECT count(*) FROM invitations i LEFT JOIN entries e ON e.id = i.entry_id AND e.program_id = i.program_id WHERE e.id IS NULL",
    },
    Check {
        name: "an issued invitation's entry is invited, or it has expired unnoticed",
        sql: "SELECT count(*) FROM invitations i JOIN entries e ON e.id = i.entry_id WHERE i.state = 'issued' AND e.state <> 'invited'",
    },
    Check {
        name: "every invitation has its idempotency receipt",
        sql: "SELECT count(*) FROM invitations i WHERE NOT EXISTS (SELECT 1 FROM owner_action_receipts r WHERE r.program_id = i.program_id \
              AND r.action = 'issue_invitation' AND r.target_id = i.id) AND NOT EXISTS (SELECT 1 FROM invitation_batch_items b \
              JOIN owner_action_receipts r ON r.target_id = b.batch_id AND r.action = 'bulk_issue' WHERE b.invitation_id = i.id)",
    },
    Check {
        name: "each program's entry counts per state equal its entries",
        sql: "SELECT count(*) FROM (SELECT program_id, state, count(*) AS n FROM entries GROUP BY 1, 2) e \
              FULL JOIN (SELECT program_id, state, n FROM program_entry_counts WHERE n > 0) c USING (program_id, state) \
              WHERE e.n IS DISTINCT FROM c.n",
    },
    Check {
        name: "every signup receipt points at an entry",
        sql: "SELECT count(*) FROM signup_receipts WHERE entry_id IS NULL",
    },
    Check {
        name: "every grant's invitation is redeemed and of the same entry and program",
        sql: "SELECT count(*) FROM grants g LEFT JOIN invitations i ON i.id = g.invitation_id AND i.entry_id = g.entry_id \
              AND i.program_id = g.program_id AND i.state = 'redeemed' WHERE g.invitation_id IS NOT NULL AND i.id IS NULL",
    },
    Check {
        name: "every redeemed invitation has exactly one grant",
        sql: "SELECT count(*) FROM invitations i WHERE i.state = 'redeemed' AND (SELECT count(*) FROM grants g WHERE g.invitation_id = i.id) <> 1",
    },
    Check {
        name: "each cohort code's use count equals its grants, within its maximum",
        sql: "SELECT count(*) FROM cohort_codes c WHERE c.uses > c.max_uses \
              OR c.uses <> (SELECT count(*) FROM grants g WHERE g.cohort_code_id = c.id AND g.program_id = c.program_id)",
    },
    Check {
        name: "an active grant's entry is active",
        sql: "SELECT count(*) FROM grants g JOIN entries e ON e.id = g.entry_id WHERE g.active AND e.state <> 'active'",
    },
    Check {
        name: "an active entry has an active grant",
        sql: "SELECT count(*) FROM entries e WHERE e.state = 'active' AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.entry_id = e.id AND g.active)",
    },
    Check {
        name: "every receipt points at an entry of its program",
        sql: "SELECT count(*) FROM signup_receipts r LEFT JOIN entries e ON e.id = r.entry_id AND e.program_id = r.program_id \
              WHERE r.entry_id IS NOT NULL AND e.id IS NULL",
    },
    Check {
        name: "each program's queue (its entry counts but withdrawn, V145) equals its non-withdrawn entries",
        sql: "SELECT count(*) FROM programs p WHERE (SELECT coalesce(sum(c.n), 0) FROM program_entry_counts c \
              WHERE c.program_id = p.id AND c.state <> 'withdrawn') \
              <> (SELECT count(*) FROM entries e WHERE e.program_id = p.id AND e.state <> 'withdrawn')",
    },
    Check {
        name: "each hour bucket equals the entries admitted in that hour",
        sql: "SELECT count(*) FROM (SELECT program_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AS h, count(*) AS n FROM entries WHERE source = 'signup' GROUP BY 1, 2) a \
              FULL JOIN (SELECT program_id, bucket_start AT TIME ZONE 'UTC' AS h, admitted_count AS n FROM intake_hours WHERE admitted_count > 0) b \
              ON a.program_id = b.program_id AND a.h = b.h WHERE a.n IS DISTINCT FROM b.n",
    },
    Check {
        name: "every entry has exactly one signup event",
        sql: "SELECT count(*) FROM entries e WHERE (SELECT count(*) FROM audit_events a WHERE a.entry_id = e.id AND a.event_type = 'signup') <> 1",
    },
    Check {
        name: "every invitation has its issue event",
        sql: "SELECT count(*) FROM invitations i WHERE NOT EXISTS (SELECT 1 FROM audit_events a WHERE a.entry_id = i.entry_id \
              AND a.event_type = 'invite_issued' AND a.details->>'invitationId' = i.id::text)",
    },
    Check {
        name: "audit history is in commit order within each program (ids and times rise together)",
        sql: "SELECT count(*) FROM (SELECT event_at < lag(event_at) OVER (PARTITION BY program_id ORDER BY id) AS backwards FROM audit_events) x WHERE backwards",
    },
    Check {
        name: "the append-only triggers are in place",
        sql: APPEND_ONLY_TRIGGERS,
    },
    Check {
        name: "the audit chain trigger is in place",
        // BEFORE INSERT FOR EACH ROW (tgtype 1 + 2 + 4), on audit_events, enabled for
        // ordinary sessions, calling the chain function.
        sql: "SELECT 1 - count(*) FROM pg_trigger t WHERE t.tgname = 'audit_chain' AND NOT t.tgisinternal \
              AND t.tgrelid = to_regclass('audit_events') AND t.tgtype = 7 AND t.tgenabled = 'O' \
              AND t.tgfoid = to_regproc('audit_chain_append')",
    },
    Check {
        name: "seats in use stay within each program's seat cap",
        sql: "SELECT count(*) FROM programs p WHERE p.seat_cap < (SELECT count(*) FROM grants g WHERE g.program_id = p.id AND g.active) \
              + (SELECT count(*) FROM invitations i WHERE i.program_id = p.id AND i.state = 'issued' AND i.expires_at > clock_timestamp())",
    },
];

/// Each append-only trigger by name, table and type (`tgtype` bits: 1 row, 2 before,
/// 8 delete, 16 update, 32 truncate), and what must hold of it: it is on that table,
/// calls `block_immutable_reference_edits` — which still raises — and is enabled for
/// ordinary sessions as the migrations leave it (`tgenabled = 'O'`). A trigger recreated
/// on another table, pointed at a no-op function, or set `DISABLE`/`REPLICA`/`ALWAYS`
/// fails the check.
const APPEND_ONLY_TRIGGERS: &str = "SELECT count(*) FROM (VALUES \
      ('notices_immutable', 'notices', 27), ('audit_immutable', 'audit_events', 27), \
      ('staff_admin_events_immutable', 'staff_admin_events', 27), ('notices_no_truncate', 'notices', 34), \
      ('audit_no_truncate', 'audit_events', 34), ('staff_admin_events_no_truncate', 'staff_admin_events', 34)) \
    AS want(name, tbl, kind) WHERE NOT EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_proc f ON f.oid = t.tgfoid \
      WHERE t.tgname = want.name AND t.tgrelid = to_regclass(want.tbl) AND NOT t.tgisinternal \
      AND t.tgtype = want.kind AND t.tgenabled = 'O' \
      AND f.oid = to_regproc('block_immutable_reference_edits') AND f.prosrc ~ 'RAISE\\s+EXCEPTION')";

/// Runs every check against `database_url`, then the audit chains and `checkpoints`;
/// returns the number that failed.
pub async fn verify(database_url: &str, checkpoints: &[SavedCheckpoint]) -> anyhow::Result<usize> {
    let (client, connection) = tokio_postgres::connect(database_url, NoTls).await.context("connecting")?;
    tokio::spawn(connection);
    client.batch_execute("SET default_transaction_read_only = on").await?;
    let mut failed = 0;
    for check in CHECKS {
        let offending: i64 = client.query_one(check.sql, &[]).await.with_context(|| check.name)?.get(0);
        if offending == 0 {
            println!("ok    {}", check.name);
        } else {
            failed += 1;
            println!("FAIL  {} ({offending} offending)", check.name);
        }
    }
    let chain_failures = verify_chain::verify(&client, checkpoints).await?
        + super::verify_erasure::verify(&client, database_url).await?
        + super::verify_draws::verify(&client, database_url).await?;
    println!(
        "{} checks, {failed} failed; audit chains, checkpoints, erasures and draws: {chain_failures} failed",
        CHECKS.len()
    );
    Ok(failed + chain_failures)
}
