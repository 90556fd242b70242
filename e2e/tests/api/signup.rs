//! Public signup admission (issue 3, SPEC §6.2): every branch in its order, the caps with
//! known and unknown emails, replays, bad input, concurrency, the post-lock clock and
//! the per-address rate limit — against a real PostgreSQL.

use crate::support::owner::Caps;
use crate::support::race::LockHolder;
use crate::support::{Owner, Reply, TestApp, QUEUE_OF};
use chrono::{DateTime, DurationRound as _, Utc};
use serde_json::json;
use uuid::Uuid;

/// Rows that an admission writes: entries, receipts, hour-bucket total, events, the queue (entry counts but withdrawn).
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Written {
    entries: i64,
    receipts: i64,
    hour_total: i64,
    events: i64,
    queue_count: i64,
}

async fn written(app: &TestApp, program: Uuid) -> Written {
    let r = app
        .row(
            &format!(
                "SELECT (SELECT count(*) FROM entries WHERE program_id = $1), \
                        (SELECT count(*) FROM signup_receipts WHERE program_id = $1), \
                        (SELECT coalesce(sum(admitted_count), 0)::bigint FROM intake_hours WHERE program_id = $1), \
                        (SELECT count(*) FROM audit_events WHERE program_id = $1), \
                        {QUEUE_OF}"
            ),
            &[&program],
        )
        .await;
    Written { entries: r.get(0), receipts: r.get(1), hour_total: r.get(2), events: r.get(3), queue_count: r.get(4) }
}

async fn signup_events(app: &TestApp, program: Uuid) -> i64 {
    app.scalar("SELECT count(*) FROM audit_events WHERE program_id = $1 AND event_type = 'signup'", &[&program]).await
}

/// An owner with an open program; returns (app, owner, program id).
async fn open(slug: &str, caps: Caps) -> (TestApp, Owner, Uuid) {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.program_with(ws, slug, caps).await;
    (app, owner, program)
}

/// The parts of two answers a client could compare: status, body and headers other than
/// the per-request id, the date and the address's counter (`RateLimit`: one attempt
/// further for the second answer, whatever the email).
fn assert_same_answer(a: &Reply, b: &Reply) {
    assert_eq!(a.status, b.status);
    assert_eq!(a.text, b.text);
    let visible = |r: &Reply| {
        let mut h: Vec<(String, String)> = r
            .headers
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "x-request-id" | "date" | "ratelimit"))
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_owned()))
            .collect();
        h.sort();
        h
    };
    assert_eq!(visible(a), visible(b));
}

#[tokio::test]
async fn a_new_email_is_admitted_with_entry_bucket_receipt_and_event() {
    let (app, _, program) = open("beta", Caps::default()).await;
    let before = written(&app, program).await;
    let r = app.try_signup("beta", "ann@Example.COM").await;
    r.assert(202);
    // The wire shape itself, pinned as raw JSON: a rename in `shared` must show here.
    assert_eq!(r.json(), json!({"status": "received"}));
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    let after = written(&app, program).await;
    assert_eq!(after.entries, 1);
    assert_eq!(after.receipts, 1);
    assert_eq!(after.hour_total, 1);
    assert_eq!(after.queue_count, 1);
    assert_eq!(after.events, before.events + 1);
    let e = app
        .row(
            "SELECT e.email_key, e.state, n.version, e.permission_at = e.created_at, r.entry_id = e.id \
             FROM entries e JOIN notices n ON n.id = e.notice_id JOIN signup_receipts r ON r.program_id = e.program_id",
            &[],
        )
        .await;
    assert_eq!(e.get::<_, String>(0), "ann@example.com", "domain lowercased, local part kept");
    assert_eq!(e.get::<_, String>(1), "waiting");
    assert_eq!(e.get::<_, i32>(2), 1);
    assert!(e.get::<_, bool>(3), "the choice time is the admission clock");
    assert!(e.get::<_, bool>(4), "the receipt points at the entry");
    let ev = app.row("SELECT actor_kind, details::text FROM audit_events WHERE event_type = 'signup'", &[]).await;
    assert_eq!(ev.get::<_, String>(0), "public");
    assert!(!ev.get::<_, String>(1).contains('@'), "no email in events");
}

#[tokio::test]
async fn a_known_email_with_a_new_key_gets_the_same_202_and_nothing_but_a_receipt() {
    let (app, _, program) = open("beta", Caps::default()).await;
    let first = app.try_signup("beta", "ann@example.com").await;
    first.assert(202);
    let entry = app.entry_id(program, "ann@example.com").await;
    let entry_row = "SELECT created_at, notice_id, state FROM entries";
    let original = app.row(entry_row, &[]).await;
    let before = written(&app, program).await;

    let again = app.try_signup("beta", "ann@example.com").await;
    assert_same_answer(&first, &again);
    let after = written(&app, program).await;
    assert_eq!(after, Written { receipts: before.receipts + 1, ..before });
    let now = app.row(entry_row, &[]).await;
    assert_eq!(original.get::<_, DateTime<Utc>>(0), now.get::<_, DateTime<Utc>>(0));
    assert_eq!(original.get::<_, Uuid>(1), now.get::<_, Uuid>(1));
    assert_eq!(original.get::<_, String>(2), now.get::<_, String>(2));
    let pointing: i64 = app.scalar("SELECT count(*) FROM signup_receipts WHERE entry_id = $1", &[&entry]).await;
    assert_eq!(pointing, 2, "the duplicate's receipt points at the original entry");
}

#[tokio::test]
async fn the_same_key_retried_is_the_same_202_without_a_second_anything() {
    let (app, _, program) = open("beta", Caps::default()).await;
    let key = Uuid::new_v4();
    let first = app.try_signup_as("beta", key, "ann@example.com", 1, true).await;
    first.assert(202);
    let before = written(&app, program).await;
    let again = app.try_signup_as("beta", key, "ann@example.com", 1, true).await;
    assert_same_answer(&first, &again);
    assert_eq!(written(&app, program).await, before);
}

#[tokio::test]
async fn the_same_key_bound_to_other_fields_is_409() {
    let (app, owner, program) = open("beta", Caps::default()).await;
    let key = Uuid::new_v4();
    app.try_signup_as("beta", key, "ann@example.com", 1, true).await.assert(202);
    let before = written(&app, program).await;
    owner.publish_notice(program).await;
    for (email, version, permission) in [
        ("bob@example.com", 1, true),
        ("Ann@example.com", 1, true),
        ("ann@example.com", 2, true),
        ("ann@example.com", 1, false),
    ] {
        let r = app.try_signup_as("beta", key, email, version, permission).await;
        r.assert(409);
        assert_eq!(r.error_code(), "request_key_reused", "{email} {version} {permission}");
    }
    let after = written(&app, program).await;
    assert_eq!(after.entries, before.entries);
    assert_eq!(after.receipts, before.receipts);
}

#[tokio::test]
async fn an_outdated_notice_is_409_for_known_and_unknown_emails() {
    let (app, owner, program) = open("beta", Caps::default()).await;
    app.signup("beta", "known@example.com").await;
    assert_eq!(owner.publish_notice(program).await.version, 2);
    let before = written(&app, program).await;
    let known = app.try_signup_as("beta", Uuid::new_v4(), "known@example.com", 1, true).await;
    let unknown = app.try_signup_as("beta", Uuid::new_v4(), "new@example.com", 1, true).await;
    known.expect_error(409, "notice_outdated");
    assert_same_answer(&known, &unknown);
    for version in [0, 3, -1] {
        app.try_signup_as("beta", Uuid::new_v4(), "new@example.com", version, true).await.assert(409);
    }
    assert_eq!(written(&app, program).await, before);
    app.try_signup_as("beta", Uuid::new_v4(), "new@example.com", 2, true).await.assert(202);
}

#[tokio::test]
async fn permission_false_is_409_and_writes_nothing() {
    let (app, _, program) = open("beta", Caps::default()).await;
    app.signup("beta", "known@example.com").await;
    let before = written(&app, program).await;
    let known = app.try_signup_as("beta", Uuid::new_v4(), "known@example.com", 1, false).await;
    let unknown = app.try_signup_as("beta", Uuid::new_v4(), "new@example.com", 1, false).await;
    known.expect_error(409, "permission_required");
    assert_same_answer(&known, &unknown);
    assert_eq!(written(&app, program).await, before);
}

#[tokio::test]
async fn bad_input_is_a_generic_400_or_404_and_writes_nothing() {
    let (app, _, program) = open("beta", Caps::default()).await;
    let before = written(&app, program).await;
    let key = Uuid::new_v4();
    // Malformed bodies on purpose: raw JSON, since no request type can hold them.
    let bodies = [
        (json!({"email": "a@example.com", "noticeVersion": 1, "permission": true}), "invalid_body"),
        (json!({"requestKey": key, "noticeVersion": 1, "permission": true}), "invalid_body"),
        (json!({"requestKey": key, "email": "a@example.com", "permission": true}), "invalid_body"),
        (json!({"requestKey": key, "email": "a@example.com", "noticeVersion": 1}), "invalid_body"),
        (
            json!({"requestKey": "not-a-uuid", "email": "a@example.com", "noticeVersion": 1, "permission": true}),
            "invalid_body",
        ),
        (
            json!({"requestKey": key, "email": "a@example.com", "noticeVersion": 1.5, "permission": true}),
            "invalid_body",
        ),
        (
            json!({"requestKey": key, "email": "a@example.com", "noticeVersion": "1", "permission": true}),
            "invalid_body",
        ),
        (json!({"requestKey": key, "email": "a@example.com", "noticeVersion": 1, "permission": "yes"}), "invalid_body"),
        (
            json!({"requestKey": key, "email": "a@example.com", "noticeVersion": 1, "permission": true, "x": 1}),
            "invalid_body",
        ),
        (json!({"requestKey": key, "email": "not an email", "noticeVersion": 1, "permission": true}), "invalid_email"),
        (
            json!({"requestKey": key, "email": "a..b@example.com", "noticeVersion": 1, "permission": true}),
            "invalid_email",
        ),
        (json!({"requestKey": key, "email": "ä@example.com", "noticeVersion": 1, "permission": true}), "invalid_email"),
    ];
    for (body, code) in bodies {
        let r = app.post("/api/public/programs/beta/signups", &body, None).await;
        r.assert(400);
        assert_eq!(r.error_code(), code, "{body}");
        assert!(!r.text.contains("example.com"), "no input echoed: {}", r.text);
    }
    for slug in ["nope", "NOPE", "a"] {
        app.try_signup(slug, "a@example.com").await.expect_error(404, "not_found");
    }
    assert_eq!(written(&app, program).await, before);
}

/// Issue 12, item 13: before publication, or once its workspace is inactive, a program
/// answers a signup exactly as an unknown slug does — the 404 its `GET` gives — and
/// nothing is written (before the fix: 409).
#[tokio::test]
async fn a_signup_to_an_unpublished_program_or_inactive_workspace_is_the_unknown_slugs_404() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let hidden = owner.create_program(ws, "hidden", Caps::default()).await.id;
    let unknown = app.try_signup("nope", "a@example.com").await;
    unknown.expect_error(404, "not_found");
    app.get("/api/public/programs/hidden", None).await.assert(404);
    assert_same_answer(&app.try_signup("hidden", "a@example.com").await, &unknown);
    assert_eq!(written(&app, hidden).await.receipts, 0);

    let open = owner.open_program(ws, "open").await;
    let key = Uuid::new_v4();
    app.try_signup_as("open", key, "a@example.com", 1, true).await.assert(202);
    app.exec("UPDATE workspaces SET active = false WHERE id = $1", &[&ws]).await;
    let before = written(&app, open).await;
    app.get("/api/public/programs/open", None).await.assert(404);
    assert_same_answer(&app.try_signup("open", "b@example.com").await, &unknown);
    assert_same_answer(&app.try_signup_as("open", key, "a@example.com", 1, true).await, &unknown);
    assert_eq!(written(&app, open).await, before);
}

#[tokio::test]
async fn a_closed_program_is_409_for_known_and_unknown_emails() {
    let (app, owner, program) = open("beta", Caps::default()).await;
    app.signup("beta", "known@example.com").await;
    owner.set_signup_open(program, false).await;
    let before = written(&app, program).await;
    let known = app.try_signup("beta", "known@example.com").await;
    let unknown = app.try_signup("beta", "new@example.com").await;
    known.expect_error(409, "signup_closed");
    assert_same_answer(&known, &unknown);
    assert_eq!(written(&app, program).await, before);
}

/// Fills a cap, then shows a known and an unknown email get the identical 429 and that
/// nothing at all was written.
async fn full_cap_is_the_same_429_for_everyone(caps: Caps) {
    let (app, _, program) = open("beta", caps).await;
    app.signup("beta", "one@example.com").await;
    app.signup("beta", "two@example.com").await;
    let before = written(&app, program).await;
    assert_eq!(before.entries, 2);
    let known = app.try_signup("beta", "one@example.com").await;
    let unknown = app.try_signup("beta", "three@example.com").await;
    assert_eq!(known.header("retry-after"), Some("5"), "a cap's 429 is the same for everyone");
    known.expect_error(429, "too_many_requests");
    assert_same_answer(&known, &unknown);
    assert_eq!(written(&app, program).await, before, "no receipt, entry, event or count");
}

#[tokio::test]
async fn a_full_queue_is_the_same_429_for_known_and_unknown_emails() {
    full_cap_is_the_same_429_for_everyone(Caps { queue: 2, ..Caps::default() }).await;
}

#[tokio::test]
async fn a_full_hour_is_the_same_429_for_known_and_unknown_emails() {
    // The hour bucket must not turn over between filling the cap and testing it.
    crate::support::clear_of_period_end(3600, 20).await;
    full_cap_is_the_same_429_for_everyone(Caps { hourly: 2, ..Caps::default() }).await;
}

#[tokio::test]
async fn a_committed_key_replays_202_after_the_cap_fills_the_program_closes_and_the_notice_changes() {
    let (app, owner, program) = open("beta", Caps { queue: 2, ..Caps::default() }).await;
    let (known_key, dup_key) = (Uuid::new_v4(), Uuid::new_v4());
    let replay = |key| app.try_signup_as("beta", key, "ann@example.com", 1, true);
    replay(known_key).await.assert(202);
    replay(dup_key).await.assert(202);
    app.signup("beta", "bob@example.com").await;
    app.try_signup("beta", "cat@example.com").await.assert(429);
    replay(known_key).await.assert(202);
    replay(dup_key).await.assert(202);
    owner.set_signup_open(program, false).await;
    replay(known_key).await.assert(202);
    owner.publish_notice(program).await;
    owner.set_signup_open(program, true).await;
    replay(known_key).await.assert(202);
    replay(dup_key).await.assert(202);
    let w = written(&app, program).await;
    assert_eq!((w.entries, w.receipts, w.queue_count), (2, 3, 2));
    assert_eq!(signup_events(&app, program).await, 2);
}

#[tokio::test]
async fn with_queue_cap_k_three_k_parallel_signups_admit_exactly_k() {
    const K: usize = 5;
    let (app, _, program) = open("rush", Caps { queue: K as i32, ..Caps::default() }).await;
    let emails: Vec<String> = (0..3 * K).map(|i| format!("p{i}@example.com")).collect();
    let replies = futures::future::join_all(emails.iter().map(|email| app.try_signup("rush", email))).await;
    let accepted = replies.iter().filter(|r| r.status == 202).count();
    let capped = replies.iter().filter(|r| r.status == 429).count();
    assert_eq!((accepted, capped), (K, 2 * K), "{:?}", replies.iter().map(|r| r.status).collect::<Vec<_>>());
    let w = written(&app, program).await;
    assert_eq!((w.entries, w.receipts, w.hour_total, w.queue_count), (K as i64, K as i64, K as i64, K as i64));
    assert_eq!(signup_events(&app, program).await, K as i64);
}

#[tokio::test]
async fn twenty_parallel_requests_with_one_key_create_one_entry() {
    let (app, _, program) = open("rush", Caps::default()).await;
    let key = Uuid::new_v4();
    let replies =
        futures::future::join_all((0..20).map(|_| app.try_signup_as("rush", key, "same@example.com", 1, true))).await;
    assert!(replies.iter().all(|r| r.status == 202), "{:?}", replies.iter().map(|r| &r.text).collect::<Vec<_>>());
    let w = written(&app, program).await;
    assert_eq!((w.entries, w.receipts, w.hour_total, w.queue_count), (1, 1, 1, 1));
    assert_eq!(signup_events(&app, program).await, 1);
}

#[tokio::test]
async fn the_admission_clock_is_read_after_the_program_lock_is_released() {
    let (app, _, program) = open("beta", Caps::default()).await;
    let hold = LockHolder::lock(&app.db_url, "programs", program).await;
    // The signup queues behind the held program lock (the holder waits until
    // pg_stat_activity shows it waiting), then the lock is released.
    let (signup, released) = hold.queued(app.try_signup("beta", "late@example.com")).await;
    signup.assert(202);

    let row = app
        .row(
            "SELECT e.created_at, e.permission_at, h.bucket_start, r.accepted_at, \
                    (SELECT event_at FROM audit_events WHERE event_type = 'signup') \
             FROM entries e JOIN intake_hours h ON h.program_id = e.program_id \
             JOIN signup_receipts r ON r.entry_id = e.id WHERE e.program_id = $1",
            &[&program],
        )
        .await;
    let created: DateTime<Utc> = row.get(0);
    assert!(created >= released, "entry time {created} is after the lock was released at {released}");
    assert_eq!(row.get::<_, DateTime<Utc>>(1), created, "choice time is the same captured clock");
    let bucket: DateTime<Utc> = row.get(2);
    assert_eq!(bucket, created.duration_trunc(chrono::TimeDelta::hours(1)).unwrap(), "bucket of the captured clock");
    assert_eq!(row.get::<_, DateTime<Utc>>(3), created);
    assert_eq!(row.get::<_, DateTime<Utc>>(4), created);
}

#[tokio::test]
async fn one_address_gets_429_past_the_rate_but_committed_keys_still_replay() {
    let app = TestApp::spawn_with(|s| s.signup_rate_per_minute = 3).await;
    // The rate window is a fixed UTC minute the server counts in: start well inside one.
    crate::support::clear_of_period_end(60, 15).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let program = owner.open_program(ws, "beta").await;
    let first = Uuid::new_v4();
    app.try_signup_as("beta", first, "a@example.com", 1, true).await.assert(202);
    app.signup("beta", "b@example.com").await;
    app.signup("beta", "c@example.com").await;
    let before = written(&app, program).await;
    let refused = app.try_signup("beta", "d@example.com").await;
    refused.expect_error(429, "too_many_requests");
    crate::support::assert_retry_after_is_the_windows_end(&refused, 60);
    assert_eq!(written(&app, program).await, before);
    app.try_signup_as("beta", first, "a@example.com", 1, true).await.assert(202);
    app.try_signup("beta", "a@example.com").await.assert(429);
}

#[tokio::test]
async fn an_uncommitted_entry_of_another_writer_is_waited_for_then_decided_as_a_known_email() {
    let (app, _, program) = open("beta", Caps::default()).await;
    // A writer that skips the program lock inserts the same email and holds its commit.
    // (Its foreign-key check holds the program row FOR KEY SHARE, which the admission's
    // FOR UPDATE waits for; a unique conflict is therefore re-decided, never a 500.)
    let writer = LockHolder::holding(
        &app.db_url,
        "INSERT INTO entries (program_id, email_key, notice_id, permission_at, state) \
         SELECT id, 'race@example.com', current_notice_id, now(), 'waiting' FROM programs WHERE id = $1",
        &[&program],
    )
    .await;
    // The writer commits only once pg_stat_activity shows the signup waiting for it.
    let (r, _) = writer.queued(app.try_signup("beta", "race@example.com")).await;
    r.assert(202);
    // The wire shape itself, pinned as raw JSON: a known email's answer is the new one's.
    assert_eq!(r.json(), json!({"status": "received"}));
    let w = written(&app, program).await;
    // The writer's entry is in the queue (V145: the queue is the entry counts, which its
    // own insert moved); no hour bucket, no event: the signup added nothing but its receipt.
    assert_eq!((w.entries, w.receipts, w.hour_total, w.queue_count), (1, 1, 0, 1), "decided as a known email");
    assert_eq!(signup_events(&app, program).await, 0);
}
