//! What the Standard Webhooks senders do beyond delivering (issue 30 items 4–7), against
//! real receivers: a `410 Gone` disables the endpoint at once; a `429`/`503` with
//! `Retry-After` is waited out; the test event; recovery of what a disabled endpoint
//! missed; Ed25519 (`v1a`) signatures.

use crate::support::receiver::Receiver;
use crate::support::{eventually, Owner, TestApp};
use serde_json::json;
use shared::integrations::{
    RecoverWebhookResponse, SignatureScheme, WebhookEventType, WebhookTestResponse, WebhookWithSecret,
};
use std::time::Duration;
use uuid::Uuid;

/// An owner with an open program `slug` and a steady receiver subscribed to everything.
async fn subscribed(app: &TestApp, slug: &str) -> (Owner, Uuid, Receiver, Uuid) {
    let (owner, ws) = app.owner("owner@example.com").await;
    owner.open_program(ws, slug).await;
    let receiver = Receiver::start().await;
    receiver.steady();
    let created = owner.create_webhook(ws, &receiver.url()).await;
    receiver.trust(&created.secret);
    (owner, ws, receiver, created.webhook.id)
}

/// Waits until the receiver accepted `n` messages; answers the last one's webhook-id.
async fn accepted(receiver: &Receiver, n: usize) -> String {
    eventually(&format!("{n} messages accepted"), Duration::from_secs(30), || async {
        let log = receiver.log.lock().unwrap();
        (log.accepted.len() >= n).then(|| log.accepted[n - 1].0.clone())
    })
    .await
}

/// When `id` was requested, at least twice.
fn tries(receiver: &Receiver, id: &str) -> Vec<std::time::Instant> {
    let at = receiver.arrivals_of(id);
    assert!(at.len() >= 2, "{id} was requested {} times", at.len());
    at
}

/// The time between the first and the second request of `id`.
fn gap(receiver: &Receiver, id: &str) -> Duration {
    let at = tries(receiver, id);
    at[1] - at[0]
}

#[tokio::test]
async fn a_receivers_410_disables_the_endpoint_at_once() {
    let app = TestApp::spawn().await;
    let (owner, ws, receiver, hook) = subscribed(&app, "gone-beta").await;
    receiver.script(&[(410, None)]);
    app.signup("gone-beta", "ann@example.com").await;

    let disabled = eventually("the endpoint disabled", Duration::from_secs(20), || async {
        owner.webhooks(ws).await.into_iter().find(|w| w.id == hook && !w.enabled)
    })
    .await;
    assert_eq!(disabled.disabled_reason.as_deref(), Some("gone"));
    let deliveries = owner.deliveries(ws, hook).await.deliveries;
    assert_eq!(deliveries.len(), 1);
    assert_eq!(deliveries[0].state, "failed", "not retried");
    assert_eq!(deliveries[0].attempts.len(), 1);
    assert_eq!(deliveries[0].attempts[0].status_code, Some(410));

    app.signup("gone-beta", "bob@example.com").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(receiver.log.lock().unwrap().arrivals.len(), 1, "nothing more was sent to a gone endpoint");
}

#[tokio::test]
async fn a_receivers_retry_after_delays_the_next_attempt_at_least_that_long() {
    // The schedule is scaled down a thousandfold: 5 ms after a first failure.
    let app = TestApp::spawn().await;
    let (owner, ws, receiver, hook) = subscribed(&app, "wait-beta").await;

    receiver.script(&[(429, Some("2"))]);
    app.signup("wait-beta", "ann@example.com").await;
    let first = accepted(&receiver, 1).await;
    assert!(
        gap(&receiver, &first) >= Duration::from_millis(1950),
        "429 Retry-After: 2 waited {:?}",
        gap(&receiver, &first)
    );

    // The HTTP-date form, with a 503: the retry comes no earlier than that instant. (Not a
    // gap from the first attempt: the date has whole seconds and is written before the
    // signup, so on a busy machine the first attempt can land well into those seconds.)
    let at = chrono::DateTime::from_timestamp(chrono::Utc::now().timestamp() + 3, 0).expect("a date");
    let until = std::time::Instant::now() + (at - chrono::Utc::now()).to_std().unwrap_or_default();
    let date = at.format("%a, %d %b %Y %H:%M:%S GMT").to_string();
    receiver.script(&[(503, Some(&date))]);
    app.signup("wait-beta", "bob@example.com").await;
    let second = accepted(&receiver, 2).await;
    let at = tries(&receiver, &second);
    assert!(
        at[1] + Duration::from_millis(50) >= until && at[1] > at[0],
        "503 until {date}: retried {:?} before it",
        until.saturating_duration_since(at[1])
    );

    // Without Retry-After the schedule applies.
    receiver.script(&[(503, None)]);
    app.signup("wait-beta", "cy@example.com").await;
    let third = accepted(&receiver, 3).await;
    assert!(gap(&receiver, &third) < Duration::from_millis(1500), "a plain 503 waited {:?}", gap(&receiver, &third));

    let deliveries = eventually("three deliveries recorded delivered", Duration::from_secs(10), || async {
        let d = owner.deliveries(ws, hook).await.deliveries;
        (d.len() == 3 && d.iter().all(|d| d.state == "delivered")).then_some(d)
    })
    .await;
    let statuses: Vec<Option<i32>> =
        deliveries.iter().rev().flat_map(|d| d.attempts.iter().map(|a| a.status_code)).collect();
    assert_eq!(statuses, [Some(429), Some(204), Some(503), Some(204), Some(503), Some(204)]);
}

#[tokio::test]
async fn the_test_event_goes_to_that_endpoint_only_and_shows_in_its_log() {
    let app = TestApp::spawn().await;
    let (owner, ws, receiver, hook) = subscribed(&app, "test-beta").await;
    let other = Receiver::start().await;
    other.steady();
    let other_hook = owner.create_webhook(ws, &other.url()).await;
    other.trust(&other_hook.secret);

    let path = format!("/api/owner/workspaces/{ws}/webhooks/{hook}/test");
    let sent: WebhookTestResponse = owner.post(&path, &json!({})).await.expect(202);
    assert!(sent.message_id.starts_with("msg_"));
    let id = accepted(&receiver, 1).await;
    assert_eq!(id, sent.message_id);
    let body = receiver.log.lock().unwrap().accepted[0].1.clone();
    assert_eq!(body["type"], "webhook.test");
    assert_eq!(body["data"], json!({"workspaceId": ws, "webhookId": hook}), "the documented payload");
    assert!(body["timestamp"].is_string());

    let log = eventually("the test delivered in the log", Duration::from_secs(10), || async {
        let d = owner.deliveries(ws, hook).await.deliveries;
        d.into_iter().find(|d| d.message_id == sent.message_id && d.state == "delivered")
    })
    .await;
    assert_eq!((log.id, log.event_type), (sent.delivery_id, WebhookEventType::WebhookTest));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(other.log.lock().unwrap().arrivals.is_empty(), "the other endpoint got nothing");
    assert!(owner.deliveries(ws, other_hook.webhook.id).await.deliveries.is_empty());

    // Another workspace's owner gets the uniform 404; a disabled endpoint is 409.
    let (stranger, _) = app.owner("stranger@example.com").await;
    stranger.post(&path, &json!({})).await.expect_error(404, "not_found");
    owner.patch(&format!("/api/owner/workspaces/{ws}/webhooks/{hook}"), &json!({"enabled": false})).await.assert(200);
    owner.post(&path, &json!({})).await.expect_error(409, "webhook_disabled");
}

#[tokio::test]
async fn events_missed_while_disabled_are_recorded_and_recovered_in_order_with_their_ids() {
    let app = TestApp::spawn().await;
    let (owner, ws, receiver, hook) = subscribed(&app, "recover-beta").await;
    let endpoint = format!("/api/owner/workspaces/{ws}/webhooks/{hook}");
    app.signup("recover-beta", "a@example.com").await;
    let a = accepted(&receiver, 1).await;

    owner.patch(&endpoint, &json!({"enabled": false})).await.assert(200);
    for email in ["b0@example.com", "b1@example.com", "b2@example.com"] {
        app.signup("recover-beta", email).await;
    }
    let log = owner.deliveries(ws, hook).await.deliveries;
    assert_eq!(log.len(), 4, "the events of a disabled endpoint's subscription are recorded");
    let (b2, b1, b0) = (&log[0], &log[1], &log[2]);
    for d in [b0, b1, b2] {
        assert_eq!(d.state, "skipped");
        assert!(d.attempts.is_empty());
    }
    owner
        .post(&format!("{endpoint}/recover"), &json!({"since": b1.created_at}))
        .await
        .expect_error(409, "webhook_disabled");

    owner.patch(&endpoint, &json!({"enabled": true})).await.assert(200);
    app.signup("recover-beta", "e@example.com").await;
    let e = accepted(&receiver, 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.log.lock().unwrap().arrivals.len(), 2, "re-enabling does not send what was skipped");

    owner.post(&format!("{endpoint}/recover"), &json!({"since": "yesterday"})).await.expect_error(400, "invalid_since");
    let recovered: RecoverWebhookResponse =
        owner.post(&format!("{endpoint}/recover"), &json!({"since": b1.created_at})).await.expect(202);
    assert_eq!(recovered.recovered, 2, "b1 and b2: b0 is older, a and e were acknowledged");
    accepted(&receiver, 4).await;
    let order: Vec<String> = receiver.log.lock().unwrap().accepted.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(order, [a, e, b1.message_id.clone(), b2.message_id.clone()], "original ids, in order");
    let log = eventually("the recovered deliveries recorded", Duration::from_secs(10), || async {
        let log = owner.deliveries(ws, hook).await.deliveries;
        (log.iter().filter(|d| d.state == "delivered").count() == 4).then_some(log)
    })
    .await;
    assert_eq!(log.iter().find(|d| d.id == b0.id).unwrap().state, "skipped");
}

#[tokio::test]
async fn a_v1a_endpoint_signs_with_ed25519_verified_by_its_public_key_through_a_rotation() {
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    owner.open_program(ws, "ed-beta").await;
    let receiver = Receiver::start().await;
    receiver.steady();
    let body = json!({"url": receiver.url(), "events": ["entry.created"], "signature": "v1a"});
    let created: WebhookWithSecret = owner.try_create_webhook(ws, &body).await.expect(201);
    assert_eq!(created.webhook.signature, SignatureScheme::V1a);
    assert!(created.secret.starts_with("whpk_"), "a v1a endpoint shows its public key: {}", created.secret);
    assert_eq!(created.webhook.public_key.as_deref(), Some(created.secret.as_str()));
    let hook = created.webhook.id;
    let listed = owner.webhooks(ws).await;
    assert_eq!(listed[0].public_key.as_deref(), Some(created.secret.as_str()), "a public key is no secret");
    let sealed: Vec<u8> = app.scalar("SELECT secret_sealed FROM webhook_endpoints WHERE id = $1", &[&hook]).await;
    assert!(sealed.len() > 32, "the private key is sealed");

    receiver.trust_only_public(&created.secret);
    app.signup("ed-beta", "ann@example.com").await;
    accepted(&receiver, 1).await;
    let header = receiver.log.lock().unwrap().bad_signatures;
    assert_eq!(header, 0);

    // Rotation: a new key pair; for a day both sign, so a receiver holding either verifies.
    let rotated = owner.rotate_webhook_secret(ws, hook).await;
    assert!(rotated.secret.starts_with("whpk_") && rotated.secret != created.secret);
    assert_eq!(rotated.webhook.public_key.as_deref(), Some(rotated.secret.as_str()));
    receiver.trust_only_public(&rotated.secret);
    app.signup("ed-beta", "bob@example.com").await;
    accepted(&receiver, 2).await;
    receiver.trust_only_public(&created.secret);
    app.signup("ed-beta", "cy@example.com").await;
    accepted(&receiver, 3).await;
    assert_eq!(receiver.log.lock().unwrap().bad_signatures, 0);
    // A key that never signed for it is refused (the receiver answers 400, so it is retried).
    let other = api::standard_webhooks::new_keypair().1;
    receiver.trust_only_public(&api::standard_webhooks::public_key_text(&other));
    app.signup("ed-beta", "dee@example.com").await;
    eventually("a refused signature", Duration::from_secs(10), || async {
        (receiver.log.lock().unwrap().bad_signatures > 0).then_some(())
    })
    .await;
}
