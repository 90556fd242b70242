//! Issue 26 item 5: webhook and admission-hook secrets sealed under their own keyring,
//! `SECRETS_KEYS`, instead of a key derived from `SIGNUP_BINDING_KEY`. Secrets sealed the
//! old way (as every release before the keyring stored them) stay readable after the
//! upgrade; `vestibule reseal` seals them under the first key; after it, the old key can
//! leave the keyring and `SIGNUP_BINDING_KEY` can rotate without breaking a delivery or
//! the hook.

use crate::support::integrations::{signed_headers, unix_now};
use crate::support::process::{vestibule, ApiProcess};
use crate::support::receiver::Receiver;
use crate::support::{eventually, TestApp};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ring::aead;
use serde_json::json;
use std::time::Duration;
use uuid::Uuid;

/// The binding key the test servers start with (`support::process`), then a new one.
const OLD_BINDING_HEX: &str = "0101010101010101010101010101010101010101010101010101010101010101";
const NEW_BINDING_HEX: &str = "0303030303030303030303030303030303030303030303030303030303030303";

/// A keyring whose first key is new (`k2`) and which still holds the test servers' key.
fn rotated_keys() -> String {
    format!("k2:{},{}", STANDARD.encode([0x22u8; 32]), crate::common::SECRETS_KEYS)
}

fn k2_only() -> String {
    format!("k2:{}", STANDARD.encode([0x22u8; 32]))
}

/// Seals `secret` exactly as releases before the keyring did: AES-256-GCM under
/// HMAC-SHA256(binding key, length-prefixed "secret-seal-v1"), `nonce ‖ ciphertext`, the
/// owning row's context as associated data. Written here from that description, not
/// taken from the server's code.
fn seal_the_old_way(binding_key: &[u8], context: &[u8], secret: &[u8]) -> Vec<u8> {
    let purpose = b"secret-seal-v1";
    let prefixed = [(purpose.len() as u32).to_be_bytes().as_slice(), purpose].concat();
    let derived = ring::hmac::sign(&ring::hmac::Key::new(ring::hmac::HMAC_SHA256, binding_key), &prefixed);
    let key = aead::LessSafeKey::new(aead::UnboundKey::new(&aead::AES_256_GCM, derived.as_ref()).unwrap());
    let nonce: [u8; 12] = rand::random();
    let mut in_out = secret.to_vec();
    key.seal_in_place_append_tag(aead::Nonce::assume_unique_for_key(nonce), aead::Aad::from(context), &mut in_out)
        .unwrap();
    [nonce.as_slice(), &in_out].concat()
}

fn whsec(key: &[u8]) -> String {
    format!("whsec_{}", STANDARD.encode(key))
}

/// Asks `base`'s admission hook about `email`, signed with `secret`; the status.
async fn hook_status(app: &TestApp, base: &str, ws: Uuid, secret: &str, email: &str) -> u16 {
    let body = json!({"user": {"email": email}}).to_string();
    let headers = signed_headers(secret, &format!("msg_{}", Uuid::new_v4().simple()), unix_now(), &body);
    let mut rb =
        app.http.post(format!("{base}/api/hooks/admit/{ws}")).header("content-type", "application/json").body(body);
    for (name, value) in headers {
        rb = rb.header(name, value);
    }
    rb.send().await.unwrap().status().as_u16()
}

/// Waits until `receiver` has accepted every outbox event and nothing is pending.
async fn all_accepted(app: &TestApp, receiver: &Receiver) {
    eventually("every event accepted", Duration::from_secs(30), || async {
        let ids = app.outbox_message_ids().await;
        (app.undelivered().await == 0 && receiver.accepted_ids() == ids).then_some(())
    })
    .await;
}

#[tokio::test]
async fn secrets_sealed_the_old_way_survive_the_upgrade_reseal_and_a_binding_key_rotation() {
    let app = TestApp::spawn_with(|s| s.integrations.poll = Duration::from_secs(3600)).await;
    let (owner, ws) = app.owner("owner@example.com").await;
    let receiver = Receiver::start().await;
    let endpoint = owner.create_webhook(ws, &receiver.url()).await.webhook.id;
    owner.set_hook_secret(ws).await;
    owner.invited(ws, "keys-beta", "ivy.keys@example.com").await;

    // The database as the release before the keyring left it: both secrets sealed under
    // the key derived from SIGNUP_BINDING_KEY.
    let old_binding = hex::decode(OLD_BINDING_HEX).unwrap();
    let (webhook_key, hook_key) = ([0x11u8; 32], [0x12u8; 32]);
    let sealed = seal_the_old_way(&old_binding, endpoint.as_bytes(), &webhook_key);
    app.exec("UPDATE webhook_endpoints SET secret_sealed = $1 WHERE id = $2", &[&sealed, &endpoint]).await;
    let hook_context = [b"admission-hook:".as_slice(), ws.as_bytes()].concat();
    let sealed = seal_the_old_way(&old_binding, &hook_context, &hook_key);
    app.exec("UPDATE hook_secrets SET secret_sealed = $1 WHERE workspace_id = $2", &[&sealed, &ws]).await;
    receiver.trust_only(&whsec(&webhook_key));

    // Upgraded: a server with SECRETS_KEYS opens both with the binding key it runs with.
    let upgraded = ApiProcess::start(&app.db_url, &app.clerk, &[("WEBHOOK_ALLOW_LOOPBACK", "true")]).await;
    app.at(&upgraded.base).signup("keys-beta", "someone.keys@example.com").await;
    all_accepted(&app, &receiver).await;
    assert_eq!(hook_status(&app, &upgraded.base, ws, &whsec(&hook_key), "ivy.keys@example.com").await, 200);
    assert_eq!(hook_status(&app, &upgraded.base, ws, &whsec(&hook_key), "nobody.keys@example.com").await, 403);
    drop(upgraded);

    // `reseal` with a new first key moves both under it, and says so.
    let out = vestibule(
        &app.db_url,
        &["reseal"],
        &[("SECRETS_KEYS", &rotated_keys()), ("SIGNUP_BINDING_KEY", OLD_BINDING_HEX)],
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{printed}{}", String::from_utf8_lossy(&out.stderr));
    assert!(printed.contains("webhook secrets: 1 resealed under k2, 0 already under it, 0 unreadable"), "{printed}");
    assert!(printed.contains("admission hook secrets: 1 resealed under k2, 0 already under it"), "{printed}");
    for sealed in app
        .column::<Vec<u8>>("SELECT secret_sealed FROM webhook_endpoints", &[])
        .await
        .into_iter()
        .chain(app.column::<Vec<u8>>("SELECT secret_sealed FROM hook_secrets", &[]).await)
    {
        assert!(sealed.starts_with(b"vsk1\x02k2"), "sealed under k2: {:?}", &sealed[..8]);
    }
    let again = vestibule(&app.db_url, &["reseal"], &[("SECRETS_KEYS", &rotated_keys())]);
    let printed = String::from_utf8_lossy(&again.stdout);
    assert!(printed.contains("webhook secrets: 0 resealed under k2, 1 already under it"), "{printed}");

    // The old key leaves the keyring and SIGNUP_BINDING_KEY rotates: nothing breaks.
    let k2 = k2_only();
    let env =
        [("WEBHOOK_ALLOW_LOOPBACK", "true"), ("SECRETS_KEYS", k2.as_str()), ("SIGNUP_BINDING_KEY", NEW_BINDING_HEX)];
    let rotated = ApiProcess::start(&app.db_url, &app.clerk, &env).await;
    app.at(&rotated.base).signup("keys-beta", "another.keys@example.com").await;
    all_accepted(&app, &receiver).await;
    assert_eq!(receiver.log.lock().unwrap().bad_signatures, 0, "every delivery signed with the old secret");
    assert_eq!(hook_status(&app, &rotated.base, ws, &whsec(&hook_key), "ivy.keys@example.com").await, 200);
    assert!(!rotated.output().contains("does not open"), "every secret opened");

    // Without its key, a secret is unreadable and reseal says so (exit 1).
    let lost = vestibule(&app.db_url, &["reseal"], &[("SECRETS_KEYS", crate::common::SECRETS_KEYS)]);
    assert!(!lost.status.success());
    assert!(String::from_utf8_lossy(&lost.stdout)
        .contains("webhook secrets: 0 resealed under test1, 0 already under it, 1 unreadable"));
}
