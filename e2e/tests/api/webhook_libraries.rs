//! The deliveries as receivers in other languages see them (issue 30 item 9): one run
//! through every event type, a `v1` endpoint whose secret is rotated halfway and a `v1a`
//! endpoint, is captured by real receivers and handed to `e2e/webhooks/verify.py`
//! (Standard Webhooks' official Python library; `cryptography`'s Ed25519 for `v1a`;
//! `jsonschema` against each type's schema read from the served OpenAPI document) and
//! `e2e/webhooks/verify.mjs` (the official npm library; Node's Ed25519). `scripts/test`
//! installs both (`ensure_webhook_libraries` in `scripts/lib.sh`).

use crate::support::integrations::ALL_EVENTS;
use crate::support::receiver::Receiver;
use crate::support::{eventually, TestApp};
use crate::webhooks::{first_half, second_half};
use serde_json::{json, Value};
use shared::integrations::WebhookWithSecret;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

async fn all_delivered(app: &TestApp) {
    eventually("every delivery delivered", Duration::from_secs(30), || async {
        (app.undelivered().await == 0).then_some(())
    })
    .await;
}

/// The receiver's accepted requests from `from` on, each with the secrets that signed it.
fn messages(receiver: &Receiver, from: usize, signers: &[&str]) -> Vec<Value> {
    let log = receiver.log.lock().unwrap();
    log.raw[from..]
        .iter()
        .map(|(headers, body)| json!({"headers": headers, "body": body, "signers": signers}))
        .collect()
}

/// Runs a verifier; its output is shown, and it must succeed.
fn run(program: &str, args: &[&str]) {
    let out = Command::new(program).args(args).output().unwrap_or_else(|e| panic!("{program} does not run: {e}"));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    println!("{stdout}{stderr}");
    assert!(out.status.success(), "{program} {args:?} refused the deliveries:\n{stdout}\n{stderr}");
}

#[tokio::test]
async fn the_official_libraries_verify_every_delivery_and_every_body_fits_its_schema() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let python = root.join(".local/webhook-libs/bin/python");
    assert!(python.exists(), "run scripts/test (or `source scripts/lib.sh; ensure_webhook_libraries`) first");
    let app = TestApp::spawn().await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let (plain, ed) = (Receiver::start().await, Receiver::start().await);
    plain.steady();
    ed.steady();
    let v1 = owner.create_webhook(ws, &plain.url()).await;
    plain.trust(&v1.secret);
    let body = json!({"url": ed.url(), "events": ALL_EVENTS, "signature": "v1a"});
    let v1a: WebhookWithSecret = owner.try_create_webhook(ws, &body).await.expect(201);
    ed.trust_only_public(&v1a.secret);

    let run_state = first_half(&app, &owner, ws, "libs-beta").await;
    all_delivered(&app).await;
    let before = plain.log.lock().unwrap().raw.len();
    assert!(before > 0);
    let rotated = owner.rotate_webhook_secret(ws, v1.webhook.id).await;
    plain.trust(&rotated.secret);
    second_half(&app, &owner, run_state, "libs-beta").await;
    for hook in [v1.webhook.id, v1a.webhook.id] {
        owner.post(&format!("/api/owner/workspaces/{ws}/webhooks/{hook}/test"), &json!({})).await.assert(202);
    }
    all_delivered(&app).await;
    assert_eq!((plain.log.lock().unwrap().bad_signatures, ed.log.lock().unwrap().bad_signatures), (0, 0));

    let mut plain_messages = messages(&plain, 0, &[&v1.secret]);
    plain_messages.truncate(before);
    plain_messages.extend(messages(&plain, before, &[&v1.secret, &rotated.secret]));
    let capture = json!({
        "openapi": app.get("/api/openapi.json", None).await.json(),
        "v1": {"secrets": [v1.secret, rotated.secret], "messages": plain_messages},
        "v1a": {"publicKey": v1a.secret, "messages": messages(&ed, 0, &[])},
    });
    let file = std::env::temp_dir().join(format!("vestibule-webhooks-{}.json", uuid::Uuid::new_v4()));
    std::fs::write(&file, capture.to_string()).unwrap();
    let path = file.to_str().unwrap();
    run(python.to_str().unwrap(), &[root.join("e2e/webhooks/verify.py").to_str().unwrap(), path]);
    run("node", &[root.join("e2e/webhooks/verify.mjs").to_str().unwrap(), path]);
    std::fs::remove_file(&file).ok();
}
