//! Group admission (issue 28): signups for the programs of one workspace that arrive
//! while a batch commits are admitted together, in one transaction, each with its own answer — decided in
//! arrival order exactly as if they had come one after another.
//!
//! How a batch is made to form, deterministically: a [`LockHolder`] holds the program
//! row, a first signup goes to the database and waits on it (its batch of one), and the
//! next ones gather in the instance's lane behind it. Each of them is sent only once the
//! previous one has counted its rate-limit hit — the last statement a request runs
//! before it joins the lane (the next one needs two round trips of its own before it can
//! join, so it cannot overtake). Then the lock is released. Rows written by one batch
//! share their transaction id (`xmin`), which is how the tests see the batches.

use crate::support::owner::Caps;
use crate::support::process::{self, ApiProcess};
use crate::support::race::LockHolder;
use crate::support::{Reply, TestApp, QUEUE_OF};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use uuid::Uuid;

type Pending = Pin<Box<dyn Future<Output = Reply> + Send>>;

/// Rate-limit hits counted so far (every new-key request counts one before its batch).
async fn hits(app: &TestApp) -> i64 {
    app.scalar("SELECT coalesce(sum(hits), 0)::bigint FROM rate_limit_counters", &[]).await
}

/// Starts `request` now and waits until it has counted its hit (`before` + 1).
async fn send_in_turn(app: &TestApp, request: Pending, before: i64) -> tokio::task::JoinHandle<Reply> {
    let handle = tokio::spawn(request);
    crate::support::eventually("the request counted its hit", Duration::from_secs(10), || async {
        (hits(app).await > before).then_some(())
    })
    .await;
    handle
}

fn signup(app: &TestApp, slug: &str, key: Uuid, email: &str) -> Pending {
    let (app, slug, email) = (app.clone(), slug.to_owned(), email.to_owned());
    Box::pin(async move { app.try_signup_as(&slug, key, &email, 1, true).await })
}

/// Holds `program`, sends the leader (which waits on the lock alone), then `rest` one
/// after another into the lane, releases, and answers every reply (leader first).
async fn batch_behind_a_leader(app: &TestApp, program: Uuid, slug: &str, rest: Vec<Pending>) -> Vec<Reply> {
    let hold = LockHolder::lock(&app.db_url, "programs", program).await;
    let leader = tokio::spawn(signup(app, slug, Uuid::new_v4(), "leader@example.com"));
    hold.wait_for_waiters(1).await;
    let mut handles = vec![leader];
    for request in rest {
        let before = hits(app).await;
        handles.push(send_in_turn(app, request, before).await);
    }
    hold.release().await;
    let mut replies = Vec::new();
    for h in handles {
        replies.push(h.await.expect("request task"));
    }
    replies
}

/// Entries per writing transaction, in the order they were committed.
async fn batches(app: &TestApp, program: Uuid) -> Vec<i64> {
    app.rows(
        "SELECT count(*) FROM entries WHERE program_id = $1 GROUP BY xmin::text::bigint ORDER BY min(created_at)",
        &[&program],
    )
    .await
    .iter()
    .map(|r| r.get(0))
    .collect()
}

fn assert_chains_verify(app: &TestApp) {
    let out = process::vestibule(&app.db_url, &["verify"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[tokio::test]
async fn a_batch_with_the_queue_cap_in_its_middle_admits_in_arrival_order_and_refuses_the_rest_alike() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    // The leader takes one place; the batch behind it has two more, then the cap.
    let program = owner.program_with(ws, "edge", Caps { queue: 3, ..Caps::default() }).await;
    let emails = ["b1@example.com", "b2@example.com", "b3@example.com", "leader@example.com", "b4@example.com"];
    let rest = emails.iter().map(|e| signup(&app, "edge", Uuid::new_v4(), e)).collect();
    let replies = batch_behind_a_leader(&app, program, "edge", rest).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses, [202, 202, 202, 429, 429, 429], "leader, b1, b2 in; b3, the known leader, b4 capped");
    // Every refusal is the same answer, the known email's included.
    assert!(replies[3..].iter().all(|r| r.text == replies[3].text), "identical 429s");
    assert_eq!(batches(&app, program).await, [1, 2], "the leader alone, then b1 and b2 in one transaction");
    let queue: Vec<String> =
        app.column("SELECT email_key FROM entries WHERE program_id = $1 ORDER BY created_at, id", &[&program]).await;
    assert_eq!(queue, ["leader@example.com", "b1@example.com", "b2@example.com"], "the queue is the arrival order");
    let counts: (i64, i64, i64, i64) = {
        let r = app
            .row(
                &format!(
                    "SELECT {QUEUE_OF}, \
                            (SELECT sum(admitted_count)::bigint FROM intake_hours WHERE program_id = $1), \
                            (SELECT count(*) FROM signup_receipts WHERE program_id = $1), \
                            (SELECT count(*) FROM audit_events WHERE program_id = $1 AND event_type = 'signup')"
                ),
                &[&program],
            )
            .await;
        (r.get(0), r.get(1), r.get(2), r.get(3))
    };
    assert_eq!(counts, (3, 3, 3, 3), "queue counter, hour bucket, receipts and events of the three");
    assert_chains_verify(&app);
}

#[tokio::test]
async fn a_batch_with_a_replay_and_a_new_key_for_the_same_email_makes_one_entry() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "same").await;
    let (first, second) = (Uuid::new_v4(), Uuid::new_v4());
    let rest = vec![
        signup(&app, "same", first, "x@example.com"),
        // The same key, the same fields: a replay of the element before it.
        signup(&app, "same", first, "x@example.com"),
        // A new key for the same email: a receipt pointing at the same entry.
        signup(&app, "same", second, "x@example.com"),
        // The first key bound to other fields: refused.
        signup(&app, "same", first, "y@example.com"),
    ];
    let replies = batch_behind_a_leader(&app, program, "same", rest).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses, [202, 202, 202, 202, 409], "{:?}", replies.iter().map(|r| &r.text).collect::<Vec<_>>());
    assert_eq!(replies[1].text, replies[2].text, "a replay is the admission's own answer");
    assert_eq!(replies[1].text, replies[3].text, "a known email's answer is a new one's");
    assert_eq!(batches(&app, program).await, [1, 1], "the leader, then the batch's one new entry");
    let x: Vec<(Uuid, Option<Uuid>)> = app
        .rows(
            "SELECT r.request_key, r.entry_id FROM signup_receipts r JOIN entries e ON e.id = r.entry_id \
             WHERE e.email_key = 'x@example.com' ORDER BY r.accepted_at",
            &[],
        )
        .await
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(x.len(), 2, "two receipts for x: its two keys");
    assert_eq!((x[0].0, x[1].0), (first, second));
    assert_eq!(x[0].1, x[1].1, "both point at the one entry");
    let y: i64 = app.scalar("SELECT count(*) FROM entries WHERE email_key = 'y@example.com'", &[]).await;
    assert_eq!(y, 0, "the refused binding wrote nothing");
    let events: i64 = app
        .scalar("SELECT count(*) FROM audit_events WHERE program_id = $1 AND event_type = 'signup'", &[&program])
        .await;
    assert_eq!(events, 2);
    // After the batch, the first key still replays and the other binding is still refused.
    app.try_signup_as("same", first, "x@example.com", 1, true).await.assert(202);
    app.try_signup_as("same", first, "y@example.com", 1, true).await.assert(409);
    assert_chains_verify(&app);
}

fn answering(app: &TestApp, slug: &str, key: Uuid, email: &str, name: Option<&str>) -> Pending {
    let (app, slug) = (app.clone(), slug.to_owned());
    let mut request = crate::support::public::signup_request(email);
    request.request_key = key;
    if let Some(name) = name {
        request.answers = serde_json::from_value(serde_json::json!({ "name": name })).unwrap();
    }
    Box::pin(async move { app.try_signup_with(&slug, &request).await })
}

/// Issue 31 in a batch: the answers go out in the admission's own pipeline (V131), and an
/// entry keeps the answers of the attempt that created it — not those of a later key for
/// the same address in the same batch — while an attempt without answers stores nothing.
#[tokio::test]
async fn a_batch_stores_each_new_entrys_own_answers_and_nothing_for_a_second_key() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.create_program(ws, "asked", Caps::default()).await.id;
    let mut notice = serde_json::to_value(crate::support::owner::notice()).unwrap();
    notice["questions"] = serde_json::json!([{"id": "name", "kind": "shortText", "label": "Name", "required": false}]);
    owner.try_publish_notice(program, &notice).await.assert(201);
    let open = shared::api::PatchProgramRequest {
        signup_open: Some(true),
        proof_of_work: Some(shared::api::PowLevel::Off),
        ..crate::support::owner::changes()
    };
    owner.patch_program(program, open).await;
    let keys: Vec<Uuid> = (0..4).map(|_| Uuid::new_v4()).collect();
    let rest = vec![
        answering(&app, "asked", keys[0], "x@example.com", Some("First")),
        answering(&app, "asked", keys[1], "x@example.com", Some("Second")),
        answering(&app, "asked", keys[2], "z@example.com", None),
        answering(&app, "asked", keys[3], "w@example.com", Some("W")),
    ];
    let replies = batch_behind_a_leader(&app, program, "asked", rest).await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses, [202, 202, 202, 202, 202], "{:?}", replies.iter().map(|r| &r.text).collect::<Vec<_>>());
    assert_eq!(batches(&app, program).await, [1, 3], "the leader, then x, z and w in one transaction");
    let stored: Vec<(String, String)> = app
        .rows(
            "SELECT e.email_key, a.answers->>'name' FROM entry_answers a JOIN entries e ON e.id = a.entry_id \
             WHERE a.program_id = $1 ORDER BY e.email_key",
            &[&program],
        )
        .await
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let expected = [("w@example.com".to_owned(), "W".to_owned()), ("x@example.com".to_owned(), "First".to_owned())];
    assert_eq!(stored, expected, "the creator's answers; none for z");
    assert_chains_verify(&app);
}

#[tokio::test]
async fn batches_form_on_two_instances_and_take_turns_on_the_program_lock() {
    const PER_INSTANCE: usize = 6;
    const CAP: i32 = 7;
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.program_with(ws, "two", Caps { queue: CAP, ..Caps::default() }).await;
    let a = ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    let b = ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    let instance = [app.at(&a.base), app.at(&b.base)];
    let hold = LockHolder::lock(&app.db_url, "programs", program).await;
    // One leader per instance waits on the lock; the others gather in their lanes.
    let mut handles = Vec::new();
    for (i, at) in instance.iter().enumerate() {
        handles.push(tokio::spawn(signup(at, "two", Uuid::new_v4(), &format!("lead{i}@example.com"))));
        hold.wait_for_waiters(i as i64 + 1).await;
    }
    let before = hits(&app).await;
    for n in 0..PER_INSTANCE {
        for (i, at) in instance.iter().enumerate() {
            handles.push(tokio::spawn(signup(at, "two", Uuid::new_v4(), &format!("m{i}-{n}@example.com"))));
        }
    }
    let all = before + 2 * PER_INSTANCE as i64;
    crate::support::eventually("every request counted its hit", Duration::from_secs(10), || async {
        (hits(&app).await >= all).then_some(())
    })
    .await;
    hold.release().await;
    let mut statuses = Vec::new();
    for h in handles {
        statuses.push(h.await.expect("request task").status.as_u16());
    }
    let total = 2 + 2 * PER_INSTANCE;
    assert_eq!(statuses.iter().filter(|s| **s == 202).count(), CAP as usize, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), total - CAP as usize, "{statuses:?}");
    let sizes = batches(&app, program).await;
    assert_eq!(sizes.iter().sum::<i64>(), i64::from(CAP));
    assert!(sizes.iter().any(|n| *n > 1), "a batch admitted several: {sizes:?}");
    let (queue, hour): (i64, i64) = {
        let r = app
            .row(
                &format!(
                    "SELECT {QUEUE_OF}, (SELECT sum(admitted_count)::bigint FROM intake_hours WHERE program_id = $1)"
                ),
                &[&program],
            )
            .await;
        (r.get(0), r.get(1))
    };
    assert_eq!((queue, hour), (i64::from(CAP), i64::from(CAP)));
    assert_chains_verify(&app);
}

/// V105 runs `admit_signups` on generic plans made once per session, so each of those
/// plans must be index-bound whatever the statistics were when it was made — here, on a
/// database whose tables were never analyzed, as a new deployment's first minute is. Every
/// statement the function runs is shown by `auto_explain` (nested statements included);
/// none of its lookups may scan a table or filter a program's rows by the looked-up key.
#[tokio::test]
async fn the_admission_plans_are_index_bound_even_on_a_never_analyzed_database() {
    let app = TestApp::spawn().await;
    admission_plans_are_index_bound(&app, "").await;
    let analyzed: i64 = app
        .scalar(
            "SELECT count(*) FROM pg_stat_user_tables WHERE relname IN ('entries', 'signup_receipts', 'audit_events') \
             AND (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL)",
            &[],
        )
        .await;
    assert_eq!(analyzed, 0, "the plans were made without statistics");
}

/// The other way a kept plan goes wrong: statistics that say a table is empty. An
/// `ANALYZE` of an empty `pow_spent` (a new deployment before its first proof of work, or
/// one whose spent solutions all expired and were pruned) once made the spent-solution
/// lookup a scan for the session — every batch then read every solution spent since, under
/// the program locks, until the next autoanalyze (BENCHMARKS.md, V141). Every admission
/// table analyzed, `pow_spent` empty: still each lookup by its index.
#[tokio::test]
async fn the_admission_plans_are_index_bound_after_an_analyze_of_an_empty_table() {
    let app = TestApp::spawn().await;
    admission_plans_are_index_bound(
        &app,
        "ANALYZE pow_spent, entries, signup_receipts, audit_events, programs, intake_hours, workspaces;",
    )
    .await;
    let empty: i64 = app.scalar("SELECT count(*) FROM pow_spent", &[]).await;
    assert_eq!(empty, 0, "the spent solutions were analyzed empty");
}

/// Signs up two addresses, then shows (`auto_explain`, nested statements included) every
/// plan of one `admit_signups` call in a new session that first runs `prelude`; none of
/// its lookups may scan a table or filter a program's rows by the looked-up key.
async fn admission_plans_are_index_bound(app: &TestApp, prelude: &str) {
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "plans").await;
    for (i, email) in ["a@example.com", "b@gmail.com"].iter().enumerate() {
        app.try_signup_as("plans", Uuid::from_u128(i as u128 + 1), email, 1, true).await.assert(202);
    }
    // A batch of two: a known address and a new one sharing a mailbox, a request key
    // committed before, a proof of work; rolled back, so it writes nothing.
    let sql = format!(
        "{prelude}
         LOAD 'auto_explain';
         SET auto_explain.log_min_duration = 0;
         SET auto_explain.log_nested_statements = on;
         SET client_min_messages = log;
         BEGIN;
         SELECT count(*) FROM admit_signups('{ws}', ARRAY['{program}', '{program}']::uuid[],
           ARRAY['{}'::uuid, gen_random_uuid()], ARRAY['a@example.com', 'b.x@gmail.com'], ARRAY[1, 1],
           ARRAY[true, true], ARRAY[sha256('a'), sha256('b')], ARRAY[NULL, NULL]::text[], ARRAY[false, false],
           ARRAY['b@gmail.com', 'b@gmail.com'], ARRAY[sha256('p'), NULL], ARRAY[NULL, NULL]::timestamptz[]);
         ROLLBACK;",
        Uuid::from_u128(1)
    );
    let out = std::process::Command::new("psql")
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", &app.db_url, "-c", &sql])
        .output()
        .expect("psql runs");
    let plans = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{plans}");
    // Each lookup's own index, with the looked-up key in its condition.
    for index in ["signup_receipts_pkey", "pow_spent_pkey", "entries_mailbox_idx", "audit_chain_seq_key"] {
        assert!(plans.contains(&format!("using {index}")), "{index} not used:\n{plans}");
    }
    // The queue (V145): the program's entry counts, by their key (an index or bitmap scan).
    assert!(
        ["using program_entry_counts_pkey", "Bitmap Index Scan on program_entry_counts_pkey"]
            .iter()
            .any(|p| plans.contains(p)),
        "program_entry_counts_pkey not used:\n{plans}"
    );
    for refused in [
        "Seq Scan on entries",
        "Seq Scan on signup_receipts",
        "Seq Scan on audit_events",
        "Seq Scan on pow_spent",
        "Filter: (email_key",
        "Filter: (request_key",
        "Filter: (mailbox_key",
        "Filter: (signature",
        "Backward using audit_events_pkey",
        "Seq Scan on programs",
        "Seq Scan on intake_hours",
        "Seq Scan on program_entry_counts",
        // A plan compiled on every call (V141: a disabled scan's cost would pass
        // `jit_above_cost`).
        "JIT:",
    ] {
        assert!(!plans.contains(refused), "a plan has `{refused}`:\n{plans}");
    }
}

/// Entries per writing transaction across `programs`, in commit order, as (program
/// index, count) per transaction: which programs each batch wrote.
async fn batches_across(app: &TestApp, programs: &[Uuid]) -> Vec<Vec<(usize, i64)>> {
    let rows = app
        .rows(
            "SELECT xmin::text::bigint AS tx, program_id, count(*) FROM entries WHERE program_id = ANY ($1) \
             GROUP BY 1, 2 ORDER BY min(min(created_at)) OVER (PARTITION BY xmin::text::bigint), 1, program_id",
            &[&programs],
        )
        .await;
    let mut out: Vec<(i64, Vec<(usize, i64)>)> = Vec::new();
    for r in rows {
        let (tx, program, n): (i64, Uuid, i64) = (r.get(0), r.get(1), r.get(2));
        let at = programs.iter().position(|p| *p == program).expect("one of the programs");
        match out.last_mut() {
            Some((t, parts)) if *t == tx => parts.push((at, n)),
            _ => out.push((tx, vec![(at, n)])),
        }
    }
    out.into_iter()
        .map(|(_, mut parts)| {
            parts.sort();
            parts
        })
        .collect()
}

/// V140: a batch holds the signups for any program of one workspace. Behind a leader
/// waiting on program `a`, signups for `a` (queue cap 2) and `b` gather in the
/// workspace's lane and are admitted as one transaction, each program with its own cap,
/// counters and chain; a signup for another workspace's program does not wait for them.
#[tokio::test]
async fn a_batch_spans_the_programs_of_a_workspace_each_with_its_own_caps_and_chain() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let a = owner.program_with(ws, "span-a", Caps { queue: 2, ..Caps::default() }).await;
    let b = owner.open_program(ws, "span-b").await;
    let (other, other_ws) = app.owner("other@example.com").await;
    let elsewhere = other.open_program(other_ws, "elsewhere").await;
    let rest = vec![
        signup(&app, "span-b", Uuid::new_v4(), "b1@example.com"),
        signup(&app, "span-a", Uuid::new_v4(), "a1@example.com"),
        // The same address in the other program: a new entry there, not a duplicate.
        signup(&app, "span-b", Uuid::new_v4(), "a1@example.com"),
        // `a` is full after a1 (the leader holds its first place).
        signup(&app, "span-a", Uuid::new_v4(), "a2@example.com"),
        signup(&app, "span-b", Uuid::new_v4(), "b3@example.com"),
    ];
    let hold = LockHolder::lock(&app.db_url, "programs", a).await;
    let leader = tokio::spawn(signup(&app, "span-a", Uuid::new_v4(), "leader@example.com"));
    hold.wait_for_waiters(1).await;
    let mut handles = vec![leader];
    for request in rest {
        let before = hits(&app).await;
        handles.push(send_in_turn(&app, request, before).await);
    }
    // Another workspace's lane is its own: admitted while `a` is still held.
    app.try_signup_as("elsewhere", Uuid::new_v4(), "e@example.com", 1, true).await.assert(202);
    hold.release().await;
    let mut replies = Vec::new();
    for h in handles {
        replies.push(h.await.expect("request task"));
    }
    let statuses: Vec<u16> = replies.iter().map(|r| r.status.as_u16()).collect();
    assert_eq!(statuses, [202, 202, 202, 202, 429, 202], "{:?}", replies.iter().map(|r| &r.text).collect::<Vec<_>>());
    assert_eq!(
        batches_across(&app, &[a, b]).await,
        [vec![(0, 1)], vec![(0, 1), (1, 3)]],
        "the leader alone, then a1 and b's three in one transaction"
    );
    let queue_b: Vec<String> =
        app.column("SELECT email_key FROM entries WHERE program_id = $1 ORDER BY created_at, id", &[&b]).await;
    assert_eq!(queue_b, ["b1@example.com", "a1@example.com", "b3@example.com"], "b's queue in arrival order");
    for (program, n) in [(a, 2_i64), (b, 3), (elsewhere, 1)] {
        let r = app
            .row(
                &format!(
                    "SELECT {QUEUE_OF}, \
                            (SELECT sum(admitted_count)::bigint FROM intake_hours WHERE program_id = $1), \
                            (SELECT count(*) FROM signup_receipts WHERE program_id = $1), \
                            (SELECT array_agg(chain_seq ORDER BY chain_seq) FROM audit_events WHERE program_id = $1)"
                ),
                &[&program],
            )
            .await;
        let seqs: Vec<i64> = r.get(3);
        let counts: (i64, i64, i64) = (r.get(0), r.get(1), r.get(2));
        assert_eq!(counts, (n, n, n), "queue counter, hour bucket, receipts of each program");
        let events: i64 = app
            .scalar("SELECT count(*) FROM audit_events WHERE program_id = $1 AND event_type = 'signup'", &[&program])
            .await;
        assert_eq!(events, n, "a signup event per entry");
        assert_eq!(
            seqs.len(),
            seqs.last().copied().unwrap_or(0) as usize,
            "each program's chain is unbroken: {seqs:?}"
        );
    }
    assert_chains_verify(&app);
}

/// V140 across two instances: each instance's lane gathers signups for programs `p` and
/// `q` of one workspace in opposite arrival orders (`q` first on one, `p` first on the
/// other) while both rows are held; released, the two batches lock `p` and `q` in the
/// programs' id order, so they take turns without a deadlock, and each program's cap holds.
#[tokio::test]
async fn batches_spanning_programs_on_two_instances_lock_in_one_order_without_deadlock() {
    const CAP: i32 = 5;
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let p = owner.program_with(ws, "turn-p", Caps { queue: CAP, ..Caps::default() }).await;
    let q = owner.program_with(ws, "turn-q", Caps { queue: CAP, ..Caps::default() }).await;
    let deadlocks = || async {
        app.scalar::<i64>("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()", &[]).await
    };
    let deadlocks_before = deadlocks().await;
    let one = ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    let two = ApiProcess::start(&app.db_url, &app.clerk, &[]).await;
    let instance = [app.at(&one.base), app.at(&two.base)];
    let hold_p = LockHolder::lock(&app.db_url, "programs", p).await;
    let hold_q = LockHolder::lock(&app.db_url, "programs", q).await;
    // A leader per instance waits on a held row (one on each), so each lane gathers.
    let mut handles = vec![
        tokio::spawn(signup(&instance[0], "turn-p", Uuid::new_v4(), "lead0@example.com")),
        tokio::spawn(signup(&instance[1], "turn-q", Uuid::new_v4(), "lead1@example.com")),
    ];
    hold_p.wait_for_waiters(2).await;
    let before = hits(&app).await;
    for n in 0..4 {
        for (i, at) in instance.iter().enumerate() {
            // Instance one: q, p, q, p …; instance two: p, q, p, q …
            let slug = if (n + i) % 2 == 0 { "turn-q" } else { "turn-p" };
            handles.push(tokio::spawn(signup(at, slug, Uuid::new_v4(), &format!("m{i}-{n}@example.com"))));
        }
    }
    let all = before + 8;
    crate::support::eventually("every request counted its hit", Duration::from_secs(10), || async {
        (hits(&app).await >= all).then_some(())
    })
    .await;
    hold_q.release().await;
    hold_p.release().await;
    let mut statuses = Vec::new();
    for h in handles {
        statuses.push(h.await.expect("request task").status.as_u16());
    }
    // Ten signups, five per program: all within the caps, all admitted, none a 503.
    assert_eq!(statuses, [202; 10], "{statuses:?}");
    for program in [p, q] {
        let r = app
            .row(
                &format!(
                    "SELECT {QUEUE_OF}, \
                            (SELECT sum(admitted_count)::bigint FROM intake_hours WHERE program_id = $1), \
                            (SELECT count(*) FROM entries WHERE program_id = $1)"
                ),
                &[&program],
            )
            .await;
        let counts: (i64, i64, i64) = (r.get(0), r.get(1), r.get(2));
        assert_eq!(counts, (i64::from(CAP), i64::from(CAP), i64::from(CAP)));
    }
    let spans = batches_across(&app, &[p, q]).await;
    assert!(spans.iter().any(|parts| parts.len() == 2), "a transaction wrote both programs: {spans:?}");
    assert_eq!(deadlocks().await, deadlocks_before, "no deadlock between the instances' batches");
    // One more past the cap of each, on either instance: refused alike.
    instance[0].try_signup_as("turn-p", Uuid::new_v4(), "late-p@example.com", 1, true).await.assert(429);
    instance[1].try_signup_as("turn-q", Uuid::new_v4(), "late-q@example.com", 1, true).await.assert(429);
    assert_chains_verify(&app);
}
