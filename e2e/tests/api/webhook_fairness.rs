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
