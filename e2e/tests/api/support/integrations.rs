//! The owner's integration routes (webhooks, API keys, the hook secret) and what only
//! the database shows about the outbox.

use super::{Owner, Reply, TestApp};
use serde_json::json;
use shared::integrations::{DeliveriesResponse, Webhook, WebhookWithSecret};
use std::collections::BTreeSet;
use uuid::Uuid;

pub const ALL_EVENTS: [&str; 9] = [
    "entry.created",
    "entry.selected",
    "entry.declined",
    "entry.withdrawn",
    "invitation.issued",
    "invitation.revoked",
    "grant.created",
    "grant.revoked",
    "content.published",
];

impl Owner {
    pub async fn try_create_webhook(&self, ws: Uuid, body: &serde_json::Value) -> Reply {
        self.post(&format!("/api/owner/workspaces/{ws}/webhooks"), body).await
    }

    /// An endpoint at `url` subscribed to every event type.
    pub async fn create_webhook(&self, ws: Uuid, url: &str) -> WebhookWithSecret {
        self.try_create_webhook(ws, &json!({"url": url, "events": ALL_EVENTS})).await.expect(201)
    }

    pub async fn webhooks(&self, ws: Uuid) -> Vec<Webhook> {
        self.get(&format!("/api/owner/workspaces/{ws}/webhooks")).await.expect(200)
    }

    pub async fn deliveries(&self, ws: Uuid, webhook: Uuid) -> DeliveriesResponse {
        self.get(&format!("/api/owner/workspaces/{ws}/webhooks/{webhook}/deliveries?limit=100")).await.expect(200)
    }

    pub async fn rotate_webhook_secret(&self, ws: Uuid, webhook: Uuid) -> WebhookWithSecret {
        self.post(&format!("/api/owner/workspaces/{ws}/webhooks/{webhook}/rotate-secret"), &json!({})).await.expect(200)
    }
}

impl TestApp {
    /// The webhook-ids of every outbox event (`msg_` + the event id).
    pub async fn outbox_message_ids(&self) -> BTreeSet<String> {
        self.column::<String>("SELECT 'msg_' || replace(id::text, '-', '') FROM outbox_events", &[])
            .await
            .into_iter()
            .collect()
    }

    /// Webhook deliveries not yet delivered.
    pub async fn undelivered(&self) -> i64 {
        self.scalar("SELECT count(*) FROM outbox_deliveries WHERE state <> 'delivered'", &[]).await
    }
}

impl Owner {
    pub async fn create_api_key(&self, ws: Uuid, scopes: &[&str]) -> shared::integrations::ApiKeyWithSecret {
        self.post(&format!("/api/owner/workspaces/{ws}/api-keys"), &json!({"name": "product", "scopes": scopes}))
            .await
            .expect(201)
    }

    pub async fn set_hook_secret(&self, ws: Uuid) -> shared::integrations::HookSecret {
        self.post(&format!("/api/owner/workspaces/{ws}/admission-hook/secret"), &json!({})).await.expect(201)
    }
}

impl TestApp {
    /// A server API call with `key` as the bearer (no Origin, no cookie).
    pub async fn v1(&self, key: &str, path: &str) -> Reply {
        let r = self.http.get(self.url(path)).bearer_auth(key).send().await.expect("request sent");
        Reply::from(r).await
    }
}

/// Standard Webhooks headers for `body`, signed with `secret` (`whsec_…`) at `timestamp`.
pub fn signed_headers(secret: &str, id: &str, timestamp: i64, body: &str) -> [(&'static str, String); 3] {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine as _;
    let key = STANDARD.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key);
    let tag = ring::hmac::sign(&key, format!("{id}.{timestamp}.{body}").as_bytes());
    [
        ("webhook-id", id.to_owned()),
        ("webhook-timestamp", timestamp.to_string()),
        ("webhook-signature", format!("v1,{}", STANDARD.encode(tag.as_ref()))),
    ]
}

pub fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}
