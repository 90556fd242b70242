//! Webhooks from the transactional outbox (issue 13): a receiver that verifies every
//! signature, fails the first request of each message and is down for a while still
//! ends with every event exactly once by `webhook-id` — with one instance, with two
//! delivering at once, and across a SIGKILL mid-delivery and a restart. Plus the owner
//! routes: secrets shown once, rotation with overlap, the delivery log and its retry,
//! the SSRF rule, and an endpoint disabled after failing for three days.

use crate::support::integrations::ALL_EVENTS;
use crate::support::process::ApiProcess;
use crate::support::receiver::Receiver;
use crate::support::{eventually, Owner, Recipient, TestApp};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;
use uuid::Uuid;

/// Delivery settings for `vestibule serve` processes: a loopback receiver, fast polling
/// and a compressed retry schedule (5 ms, 300 ms, 1.8 s, …).
const PROCESS_ENV: [(&str, &str); 3] =
    [("WEBHOOK_ALLOW_LOOPBACK", "true"), ("OUTBOX_POLL_MS", "50"), ("OUTBOX_BACKOFF_SCALE", "0.001")];

/// The first half of a scripted run: content, signups, selection, an invitation and its
/// redemption (`content.published`, `entry.created`, `entry.selected`,
/// `invitation.issued`, `grant.created`, `entry.declined`). Returns the program id and
/// the recipient holding the grant.
pub(crate) async fn first_half(app: &TestApp, owner: &Owner, ws: Uuid, slug: &str) -> (Uuid, Recipient) {
    let invited = owner.invited(ws, slug, "rita.hook@example.com").await;
    let rita = app.recipient("rita.hook@example.com").await;
    rita.redeem(&invited.code).await;
    app.signup(slug, "dora.hook@example.com").await;
    let dora = app.entry_id(invited.program, "dora.hook@example.com").await;
    owner.decline(invited.program, dora, "not_eligible").await;
    (invited.program, rita)
}

/// The second half: an invitation revoked, a withdrawal that revokes the grant
/// (`invitation.revoked`, `entry.withdrawn`, `grant.revoked`) and more signups.
pub(crate) async fn second_half(app: &TestApp, owner: &Owner, (program, rita): (Uuid, Recipient), slug: &str) {
    let ivan = owner.selected(program, slug, "ivan.hook@example.com").await;
    let issued = owner.issue(program, ivan).await;
    owner.revoke_invitation(issued.invitation.id).await;
    rita.withdraw(slug).await;
    for i in 0..4 {
        app.signup(slug, &format!("late{i}.hook@example.com")).await;
    }
}

/// Waits until every outbox event was accepted by the receiver and nothing is pending;
/// returns the message ids.
async fn all_delivered(app: &TestApp, receiver: &Receiver, within: Duration) -> BTreeSet<String> {
    eventually("every outbox event accepted by the receiver", within, || async {
        let ids = app.outbox_message_ids().await;
        (!ids.is_empty() && app.undelivered().await == 0 && receiver.accepted_ids() == ids).then_some(ids)
    })
    .await
}

fn assert_thin(bodies: &[(String, Value)]) {
    for (id, body) in bodies {
        let text = body.to_string();
        assert!(!text.contains('@') && !text.contains("hook"), "{id} carries personal data: {text}");
        assert!(body["data"]["workspaceId"].is_string() && body["data"]["programId"].is_string(), "{text}");
        assert!(body["timestamp"].is_string(), "{text}");
    }
}

#[tokio::test]
async fn every_event_arrives_exactly_once_by_webhook_id_despite_failures_and_downtime() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let receiver = Receiver::start().await;
    let created = owner.create_webhook(ws, &receiver.url()).await;
    assert!(created.secret.starts_with("whsec_"), "a Standard Webhooks secret");
    receiver.trust(&created.secret);
    let listed = owner.get(&format!("/api/owner/workspaces/{ws}/webhooks")).await;
    assert!(!listed.text.contains(&created.secret[6..]), "the secret is shown once");

    let run = first_half(&app, &owner, ws, "hooks-beta").await;
    receiver.down().await;
    second_half(&app, &owner, run, "hooks-beta").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    receiver.up();

    let ids = all_delivered(&app, &receiver, Duration::from_secs(60)).await;
    {
        let log = receiver.log.lock().unwrap();
        assert_eq!(log.accepted.len(), ids.len(), "no message accepted twice");
        assert_eq!(log.bad_signatures, 0);
        let types: BTreeSet<&str> = log.accepted.iter().filter_map(|(_, b)| b["type"].as_str()).collect();
        assert_eq!(types, ALL_EVENTS.into_iter().collect(), "every event type of the run arrived");
        assert_thin(&log.accepted);
        let withdrawn: Vec<&Value> =
            log.accepted.iter().map(|(_, b)| b).filter(|b| b["type"] == "grant.revoked").collect();
        assert_eq!(withdrawn.len(), 1);
        assert_eq!(withdrawn[0]["data"]["state"], "revoked");
    }

    let deliveries = owner.deliveries(ws, created.webhook.id).await.deliveries;
    assert_eq!(deliveries.len(), ids.len());
    for d in &deliveries {
        assert_eq!(d.state, "delivered");
        assert!(d.attempts.len() >= 2, "the receiver failed the first request of {}", d.message_id);
        let last = d.attempts.last().unwrap();
        assert_eq!((last.outcome.as_str(), last.status_code), ("delivered", Some(204)));
    }
    let outcomes: BTreeSet<&str> =
        deliveries.iter().flat_map(|d| d.attempts.iter().map(|a| a.outcome.as_str())).collect();
    assert!(outcomes.contains("connection"), "some attempts met the receiver down: {outcomes:?}");
    assert!(deliveries.iter().any(|d| d.attempts.iter().any(|a| a.status_code == Some(500))));
}

#[tokio::test]
async fn two_instances_delivering_at_once_never_deliver_a_message_twice() {
    let app = TestApp::spawn_with(|s| s.integrations.poll = Duration::from_secs(3600)).await;
    let a = ApiProcess::start(&app.db_url, &app.clerk, &PROCESS_ENV).await;
    let b = ApiProcess::start(&app.db_url, &app.clerk, &PROCESS_ENV).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let receiver = Receiver::start().await;
    receiver.trust(&owner.create_webhook(ws, &receiver.url()).await.secret);
    // A second endpoint doubles the deliveries of every message.
    let other = Receiver::start().await;
    other.trust(&owner.create_webhook(ws, &other.url()).await.secret);

    let run = first_half(&app, &owner, ws, "hooks-two").await;
    second_half(&app, &owner, run, "hooks-two").await;

    let ids = all_delivered(&app, &receiver, Duration::from_secs(60)).await;
    eventually("the second endpoint has every message", Duration::from_secs(30), || async {
        (other.accepted_ids() == ids).then_some(())
    })
    .await;
    for r in [&receiver, &other] {
        let log = r.log.lock().unwrap();
        assert_eq!(log.accepted.len(), ids.len(), "no message accepted twice");
        assert!(log.requests.values().all(|n| *n == 2), "each message: one failure, one success: {:?}", log.requests);
    }
    // Webhook attempts only (grants also have a clerk_sync delivery, issue 14).
    let attempts = |p: &ApiProcess| {
        p.output().lines().filter(|l| l.contains("outbox delivery attempt") && l.contains("target=webhook")).count()
    };
    assert_eq!(attempts(&a) + attempts(&b), 4 * ids.len(), "two attempts per message and endpoint, no more");
}

#[tokio::test]
async fn a_sigkill_mid_delivery_and_a_restart_lose_no_event() {
    let app = TestApp::spawn_with(|s| s.integrations.poll = Duration::from_secs(3600)).await;
    let env: Vec<(&str, &str)> = PROCESS_ENV.into_iter().chain([("OUTBOX_LEASE_SECS", "3")]).collect();
    let mut first = ApiProcess::start(&app.db_url, &app.clerk, &env).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let receiver = Receiver::start().await;
    receiver.trust(&owner.create_webhook(ws, &receiver.url()).await.secret);
    receiver.hold(Some(Duration::from_secs(2)));

    let run = first_half(&app, &owner, ws, "hooks-kill").await;
    eventually("a delivery is in flight", Duration::from_secs(20), || async {
        (!receiver.log.lock().unwrap().held.is_empty()).then_some(())
    })
    .await;
    first.kill().await;
    receiver.hold(None);
    second_half(&app, &owner, run, "hooks-kill").await;
    let _restarted = ApiProcess::start(&app.db_url, &app.clerk, &env).await;

    let ids = all_delivered(&app, &receiver, Duration::from_secs(60)).await;
    let log = receiver.log.lock().unwrap();
    let mut accepted: HashMap<&str, usize> = HashMap::new();
    for (id, _) in &log.accepted {
        *accepted.entry(id.as_str()).or_default() += 1;
    }
    assert_eq!(accepted.len(), ids.len());
    for (id, n) in accepted {
        // At least once; a second acceptance only for a message held when the sender died.
        assert!(n == 1 || (n == 2 && log.held.iter().any(|h| h == id)), "{id} accepted {n} times");
    }
    assert_thin(&log.accepted);
}

#[tokio::test]
async fn a_rotated_secret_and_its_predecessor_both_sign_for_a_day() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let receiver = Receiver::start().await;
    let created = owner.create_webhook(ws, &receiver.url()).await;
    let rotated = owner.rotate_webhook_secret(ws, created.webhook.id).await;
    assert_ne!(rotated.secret, created.secret);
    let until = rotated.webhook.previous_secret_until.expect("the old secret still signs");
    let until = chrono::DateTime::parse_from_rfc3339(&until).unwrap();
    let hours = (until.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_minutes();
    assert!((23 * 60..=24 * 60).contains(&hours), "about 24 hours of overlap, got {hours} minutes");

    receiver.trust_only(&created.secret);
    let program = owner.open_program(ws, "hooks-rotate").await;
    app.signup("hooks-rotate", "someone@example.com").await;
    all_delivered(&app, &receiver, Duration::from_secs(30)).await;
    receiver.trust_only(&rotated.secret);
    owner.put_content(program, "Hello").await;
    all_delivered(&app, &receiver, Duration::from_secs(30)).await;
    assert_eq!(receiver.log.lock().unwrap().bad_signatures, 0);
}

#[tokio::test]
async fn the_owner_retries_a_failed_delivery_with_the_same_webhook_id() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let receiver = Receiver::start().await;
    let created = owner.create_webhook(ws, &receiver.url()).await;
    receiver.down().await;
    owner.open_program(ws, "hooks-retry").await;
    app.signup("hooks-retry", "someone@example.com").await;
    // Arranged: the receiver was down through every attempt.
    eventually("an attempt failed", Duration::from_secs(10), || async {
        (app.scalar::<i64>("SELECT count(*) FROM outbox_attempts", &[]).await > 0).then_some(())
    })
    .await;
    let give_up = "UPDATE outbox_deliveries SET state = 'failed', attempts = 8, finished_at = now(), \
                   claim_id = NULL, claimed_until = NULL";
    app.exec(give_up, &[]).await;
    receiver.trust(&created.secret);
    receiver.up();
    let failed = owner.deliveries(ws, created.webhook.id).await.deliveries;
    assert!(failed.iter().all(|d| d.state == "failed"));
    let path = format!("/api/owner/workspaces/{ws}/webhooks/{}/deliveries/{}/retry", created.webhook.id, failed[0].id);
    owner.post(&path, &json!({})).await.assert(202);
    // One attempt was left: the receiver fails it (the first request of that id).
    eventually("the retried delivery ran and failed again", Duration::from_secs(10), || async {
        let d = owner.deliveries(ws, created.webhook.id).await.deliveries.into_iter().find(|d| d.id == failed[0].id)?;
        (d.state == "failed" && d.attempts.iter().any(|a| a.status_code == Some(500))).then_some(())
    })
    .await;
    owner.post(&path, &json!({})).await.assert(202);
    eventually("the retried delivery arrived", Duration::from_secs(10), || async {
        receiver.accepted_ids().contains(&failed[0].message_id).then_some(())
    })
    .await;

    let (stranger, _) = app.owner("stranger@example.com").await;
    stranger.post(&path, &json!({})).await.assert(404);
}

#[tokio::test]
async fn an_endpoint_failing_for_three_days_is_disabled_and_says_so() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let receiver = Receiver::start().await;
    owner.create_webhook(ws, &receiver.url()).await;
    receiver.down().await;
    app.exec("UPDATE webhook_endpoints SET failing_since = now() - interval '3 days 1 hour'", &[]).await;
    owner.open_program(ws, "hooks-dead").await;
    app.signup("hooks-dead", "someone@example.com").await;
    let hook = eventually("the endpoint is disabled", Duration::from_secs(10), || async {
        owner.webhooks(ws).await.into_iter().find(|w| !w.enabled)
    })
    .await;
    assert_eq!(hook.disabled_reason.as_deref(), Some("failing"));
    assert!(hook.failing_since.is_some());

    let enabled = owner
        .patch(&format!("/api/owner/workspaces/{ws}/webhooks/{}", hook.id), &json!({"enabled": true}))
        .await
        .expect::<shared::integrations::Webhook>(200);
    assert!(enabled.enabled && enabled.disabled_reason.is_none() && enabled.failing_since.is_none());
}

#[tokio::test]
async fn webhook_routes_refuse_bad_input_and_other_workspaces() {
    let app = TestApp::spawn_with(|s| s.integrations.allow_loopback = false).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    for url in [
        "http://hooks.example.com/x",
        "https://127.0.0.1/x",
        "https://localhost/x",
        "https://10.0.0.8/x",
        "https://192.168.0.1/x",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/x",
        "https://[fd12::1]/x",
    ] {
        let reply = owner.try_create_webhook(ws, &json!({"url": url, "events": ["entry.created"]})).await;
        reply.expect_error(400, "webhook_url_refused");
    }
    let owner_ref = &owner;
    let bad = |body: Value| async move { owner_ref.try_create_webhook(ws, &body).await };
    bad(json!({"url": "not a url", "events": ["entry.created"]})).await.expect_error(400, "invalid_url");
    bad(json!({"url": "https://hooks.example.com/x", "events": []})).await.expect_error(400, "invalid_events");
    bad(json!({"url": "https://hooks.example.com/x", "events": ["entry.eaten"]})).await.assert(400);
    let foreign_program =
        json!({"url": "https://hooks.example.com/x", "events": ["entry.created"], "programIds": [Uuid::new_v4()]});
    bad(foreign_program).await.expect_error(400, "invalid_program_ids");

    let created = owner
        .try_create_webhook(ws, &json!({"url": "https://hooks.example.com/x", "events": ["grant.created"]}))
        .await
        .expect::<shared::integrations::WebhookWithSecret>(201);
    let (stranger, their_ws) = app.owner("stranger@example.com").await;
    let path = format!("/api/owner/workspaces/{ws}/webhooks");
    stranger.get(&path).await.assert(404);
    stranger.post(&path, &json!({"url": "https://hooks.example.com/y", "events": ["entry.created"]})).await.assert(404);
    let theirs = format!("/api/owner/workspaces/{their_ws}/webhooks/{}", created.webhook.id);
    stranger.patch(&theirs, &json!({"enabled": false})).await.assert(404);
    stranger.post(&format!("{theirs}/rotate-secret"), &json!({})).await.assert(404);
    stranger.get(&format!("{theirs}/deliveries")).await.assert(404);
    assert_eq!(owner.webhooks(ws).await.len(), 1);
    let delete = app
        .request(reqwest::Method::DELETE, &format!("{path}/{}", created.webhook.id), Some(&owner.user))
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), 204);
    assert!(owner.webhooks(ws).await.is_empty());
}
