//! Issue 26 item 4: one workspace cannot starve the others. A workspace has at most 20
//! webhook endpoints (409 `webhook_limit`); claims are fair across workspaces; Clerk
//! calls do not queue behind webhooks; and a receiver that never answers holds only its
//! own deliveries, never the others'.

use crate::support::integrations::ALL_EVENTS;
use crate::support::owner::changes;
use crate::support::receiver::Receiver;
use crate::support::{eventually, TestApp};
use reqwest::Method;
use serde_json::json;
use shared::api::PatchProgramRequest;
use shared::clerk_sync::ClerkSyncSetting;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A loopback receiver that accepts every connection and never answers (nor reads); how
/// many connections it holds.
async fn black_hole() -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = Arc::new(AtomicUsize::new(0));
    let count = held.clone();
    tokio::spawn(async move {
        let mut sockets = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            sockets.push(socket);
            count.fetch_add(1, Ordering::SeqCst);
        }
    });
    (port, held)
}

#[tokio::test]
async fn a_workspace_with_twenty_silent_endpoints_and_200_events_delays_no_one_else() {
    let app = TestApp::spawn().await;
    let (hole, held) = black_hole().await;

    // Workspace A: twenty endpoints on the receiver that never answers; a 21st is refused.
    let (alice, ws_a) = app.owner("alice@example.com").await;
    for i in 0..20 {
        alice.create_webhook(ws_a, &format!("http://127.0.0.1:{hole}/hook/{i}")).await;
    }
    let one_more = json!({"url": format!("http://127.0.0.1:{hole}/hook/20"), "events": ALL_EVENTS});
    alice.try_create_webhook(ws_a, &one_more).await.expect_error(409, "webhook_limit");
    assert_eq!(alice.webhooks(ws_a).await.len(), 20, "the refused endpoint was not written");
    alice.open_program(ws_a, "crowded-beta").await;
    use futures::StreamExt as _;
    futures::stream::iter(0..200)
        .map(|i| {
            let app = app.clone();
            async move { app.signup("crowded-beta", &format!("crowd{i}@example.com")).await }
        })
        .buffer_unordered(8)
        .collect::<Vec<_>>()
        .await;
    let queued: i64 = app.scalar("SELECT count(*) FROM outbox_deliveries WHERE state = 'pending'", &[]).await;
    assert!(queued >= 3900, "A's 200 events wait for 20 endpoints each: {queued} pending");
    eventually("A's receiver holds requests that will never be answered", Duration::from_secs(10), || async {
        (held.load(Ordering::SeqCst) >= 16).then_some(())
    })
    .await;

    // Workspace B: one endpoint that answers, and a program that mirrors grants into Clerk.
    let (bob, ws_b) = app.owner("bob@example.com").await;
    let receiver = Receiver::start().await;
    receiver.trust(&bob.create_webhook(ws_b, &receiver.url()).await.secret);
    let program = bob.open_program(ws_b, "quiet-beta").await;
    bob.put_content(program, "Private").await;
    bob.set_access_enabled(program, true).await;
    let clerk = ClerkSyncSetting { public_metadata: true, organization_id: None, role: None };
    bob.patch_program(program, PatchProgramRequest { clerk: Some(clerk), ..changes() }).await;
    let code = bob.create_cohort_code(program, 1).await.code;

    let started = Instant::now();
    let rita = app.recipient("rita@example.com").await;
    rita.redeem_cohort(&code).await;
    eventually("B's first event reaches its receiver", Duration::from_secs(10), || async {
        (!receiver.accepted_ids().is_empty()).then_some(())
    })
    .await;
    let user = format!("/v1/users/{}", rita.user_id);
    eventually("B's grant reaches Clerk", Duration::from_secs(10), || async {
        let (_, u) = app.clerk.backend(Method::GET, &user, None).await;
        (u["public_metadata"]["vestibule"]["programs"]["quiet-beta"] == true).then_some(())
    })
    .await;
    assert!(started.elapsed() < Duration::from_secs(10), "B waited {:?}", started.elapsed());
}

/// The internal lane's claim under a burst (issue 28): the outbox is empty most of the
/// time and fills at once when a launch's redemptions each enqueue a Clerk call. A claim
/// must then read the backlog about once, not once per candidate: the leased grants are
/// read once, and the claim is planned for the queue as it is (a plan cached while the
/// outbox was empty scanned it per candidate — 147,000 buffers for one claim at 941 due
/// deliveries in the bench). Counted in buffers, on the claiming connection, after six
/// claims on the empty outbox with its statistics saying empty, as a worker starts.
#[tokio::test]
async fn an_internal_claim_reads_a_burst_backlog_once_not_once_per_candidate() {
    use crate::support::db;
    const DUE: i64 = 3000;
    const LEASED: i64 = 8;
    let owner_url = db::fresh_database().await;
    let admin = db::connect(&owner_url).await;
    let program: uuid::Uuid = admin
        .query_one(
            "WITH w AS (INSERT INTO workspaces (name) VALUES ('burst') RETURNING id) \
             INSERT INTO programs (workspace_id, public_slug, purpose, queue_cap, hourly_cap, seat_cap, max_invite_days) \
             SELECT id, 'burst', 'a burst of Clerk calls', 100000, 100000, 100000, 7 FROM w RETURNING id",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    admin.batch_execute("ANALYZE outbox_events; ANALYZE outbox_deliveries").await.unwrap();

    let pool = api::db::pool(&db::app_url(&owner_url).await, 1).unwrap();
    let client = pool.get().await.unwrap();
    let kinds = ["clerk_sync"];
    for _ in 0..6 {
        let claimed = api::db::outbox::claim_internal(&client, uuid::Uuid::new_v4(), &kinds, 8, 30.0).await.unwrap();
        assert!(claimed.is_empty());
    }

    // The burst: DUE due Clerk calls, each for its own grant, and LEASED more in flight.
    // Written beneath the triggers (no audit rows behind the events); the claim reads
    // only these two tables.
    admin
        .batch_execute(&format!(
            "SET session_replication_role = replica;
             INSERT INTO outbox_events (id, audit_event_id, workspace_id, program_id, event_type, payload, created_at)
               SELECT gen_random_uuid(), n, p.workspace_id, p.id, 'grant.created',
                 jsonb_build_object('data', jsonb_build_object('grantId', gen_random_uuid())), clock_timestamp()
               FROM programs p, generate_series(1, {total}) n WHERE p.id = '{program}';
             INSERT INTO outbox_deliveries (event_id, target_kind, workspace_id, next_attempt_at, created_at,
                 claim_id, claimed_until)
               SELECT e.id, 'clerk_sync', e.workspace_id, clock_timestamp() - interval '1 minute', clock_timestamp(),
                 CASE WHEN e.audit_event_id <= {LEASED} THEN gen_random_uuid() END,
                 CASE WHEN e.audit_event_id <= {LEASED} THEN clock_timestamp() + interval '1 hour' END
               FROM outbox_events e;
             SET session_replication_role = DEFAULT;",
            total = DUE + LEASED
        ))
        .await
        .unwrap();

    client.batch_execute("BEGIN").await.unwrap();
    let claimed = api::db::outbox::claim_internal(&client, uuid::Uuid::new_v4(), &kinds, 8, 30.0).await.unwrap();
    let buffers: i64 = client
        .query_one(
            "SELECT sum(pg_stat_get_xact_blocks_fetched(oid))::int8 FROM pg_class \
             WHERE relname IN ('outbox_deliveries', 'outbox_events') OR relname LIKE 'outbox\\_%\\_idx' \
               OR relname LIKE 'outbox\\_%\\_pkey'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    client.batch_execute("ROLLBACK").await.unwrap();
    assert_eq!(claimed.len(), 8, "the oldest due deliveries are claimed");
    // The backlog is a few hundred pages; a pass per candidate is hundreds of thousands.
    let pages: i64 = admin
        .query_one(
            "SELECT (pg_relation_size('outbox_deliveries') + pg_relation_size('outbox_events'))::int8 / 8192",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert!(buffers < 4 * pages + 2000, "one claim fetched {buffers} buffers over a backlog of {pages} pages");
}
