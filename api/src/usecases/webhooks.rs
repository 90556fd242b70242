//! Webhook endpoints of a workspace (at most `MAX_WEBHOOKS_PER_WORKSPACE`): create (the
//! signing secret is answered once; a `v1a` endpoint's private key is never shown, its
//! `whpk_` public key is), list,
//! change, delete, rotate the secret (the old one keeps signing for 24 h), and the
//! delivery log with a retry. Every write is an owner action under the workspace lock,
//! recorded in `workspace_audit_events`. URLs follow the SSRF rule of
//! `outbox::target`, checked here and again at every delivery.

use super::{owner, use_case_error};
use crate::db::locks::Strength;
use crate::db::outbox::{self, Retry};
use crate::db::webhooks::{self, NewEndpoint};
use crate::db::workspace_audit;
use crate::outbox::target::{self, UrlError};
use crate::outbox::MAX_ATTEMPTS;
use crate::secrets::Keyring;
use crate::standard_webhooks;
use deadpool_postgres::Pool;
use shared::integrations::{SignatureScheme, WebhookEventType, MAX_WEBHOOKS_PER_WORKSPACE};
use uuid::Uuid;

/// How long a rotated-out secret keeps signing.
pub const ROTATION_OVERLAP_HOURS: i32 = 24;

pub use crate::db::webhooks::{AttemptRow, DeliveryRow, EndpointRow};

use_case_error! {
    pub enum WebhookError {
        #[error("invalid url")]
        InvalidUrl,
        #[error("refused url")]
        RefusedUrl,
        #[error("invalid events")]
        InvalidEvents,
        #[error("invalid program ids")]
        InvalidProgramIds,
        /// The workspace has `MAX_WEBHOOKS_PER_WORKSPACE` endpoints already.
        #[error("webhook limit reached")]
        Limit,
        /// A test or a recovery for a disabled endpoint (it would never be claimed).
        #[error("webhook disabled")]
        Disabled,
    }
}

/// A secret on its way to the one response that shows it; `Debug` never prints it.
pub struct FreshSecret(String);

impl FreshSecret {
    pub(crate) fn new(secret: String) -> FreshSecret {
        FreshSecret(secret)
    }

    pub fn reveal(self) -> String {
        self.0
    }
}

impl std::fmt::Debug for FreshSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FreshSecret(..)")
    }
}

/// A checked endpoint definition.
#[derive(Debug, Clone)]
pub struct NewWebhook {
    url: String,
    events: Vec<String>,
    program_ids: Option<Vec<Uuid>>,
    scheme: SignatureScheme,
}

/// Fresh signing material for an endpoint, made before its transaction: the key to seal
/// and what the one answer shows (`v1`: the `whsec_` secret; `v1a`: the seed to seal,
/// its public key, and the `whpk_` text).
struct Material {
    sealed_key: Vec<u8>,
    public_key: Option<Vec<u8>>,
    shown: String,
}

impl Material {
    fn new(scheme: SignatureScheme) -> Material {
        match scheme {
            SignatureScheme::V1 => {
                let (secret, key) = standard_webhooks::new_secret();
                Material { sealed_key: key, public_key: None, shown: secret }
            }
            SignatureScheme::V1a => {
                let (seed, public) = standard_webhooks::new_keypair();
                let shown = standard_webhooks::public_key_text(&public);
                Material { sealed_key: seed, public_key: Some(public), shown }
            }
        }
    }
}

/// 1–20 distinct event types, in their canonical order.
pub fn event_list(events: &[WebhookEventType]) -> Result<Vec<String>, WebhookError> {
    let list: Vec<String> =
        WebhookEventType::ALL.into_iter().filter(|t| events.contains(t)).map(|t| t.as_str().to_owned()).collect();
    if list.is_empty() {
        return Err(WebhookError::InvalidEvents);
    }
    Ok(list)
}

impl NewWebhook {
    pub fn parse(
        url: String,
        events: &[WebhookEventType],
        program_ids: Option<Vec<Uuid>>,
        allow_loopback: bool,
    ) -> Result<NewWebhook, WebhookError> {
        // The URL parser drops tabs and newlines silently; an address with a control
        // character is refused, not repaired.
        if url.len() > 2000 || url.chars().any(char::is_control) {
            return Err(WebhookError::InvalidUrl);
        }
        target::check_url(&url, allow_loopback).map_err(|e| match e {
            UrlError::Invalid => WebhookError::InvalidUrl,
            UrlError::Refused => WebhookError::RefusedUrl,
        })?;
        let program_ids = match program_ids {
            None => None,
            Some(mut ids) => {
                ids.sort();
                ids.dedup();
                if ids.is_empty() || ids.len() > 100 {
                    return Err(WebhookError::InvalidProgramIds);
                }
                Some(ids)
            }
        };
        Ok(NewWebhook { url, events: event_list(events)?, program_ids, scheme: SignatureScheme::V1 })
    }

    /// The same endpoint, signing with `scheme`.
    pub fn signed_with(self, scheme: SignatureScheme) -> NewWebhook {
        NewWebhook { scheme, ..self }
    }
}

pub async fn create(
    pool: &Pool,
    keyring: &Keyring,
    user_id: &str,
    workspace_id: Uuid,
    new: &NewWebhook,
) -> Result<(EndpointRow, FreshSecret), WebhookError> {
    let material = Material::new(new.scheme);
    let id = Uuid::new_v4();
    let sealed = keyring.seal(id.as_bytes(), &material.sealed_key);
    let row = owner::on_workspace::<_, WebhookError, _>(pool, user_id, workspace_id, Strength::Update, async |w| {
        // Counted under the workspace lock every endpoint writer takes.
        if webhooks::count(w.tx, workspace_id).await? >= MAX_WEBHOOKS_PER_WORKSPACE {
            return Err(WebhookError::Limit);
        }
        if let Some(ids) = &new.program_ids {
            if webhooks::programs_in_workspace(w.tx, workspace_id, ids).await? != ids.len() {
                return Err(WebhookError::InvalidProgramIds);
            }
        }
        let endpoint = NewEndpoint {
            id,
            workspace_id,
            url: &new.url,
            event_types: &new.events,
            program_ids: new.program_ids.as_deref(),
            secret_sealed: &sealed,
            signature_scheme: new.scheme.as_str(),
            public_key: material.public_key.as_deref(),
        };
        let row = webhooks::insert(w.tx, &endpoint, w.now).await?;
        workspace_audit::record(w.tx, workspace_id, w.staff_id, "webhook.created", Some(id), w.now).await?;
        Ok(row)
    })
    .await?;
    Ok((row, FreshSecret(material.shown)))
}

pub async fn list(pool: &Pool, user_id: &str, workspace_id: Uuid) -> Result<Vec<EndpointRow>, WebhookError> {
    owner::on_workspace::<_, WebhookError, _>(pool, user_id, workspace_id, Strength::Share, async |w| {
        Ok(webhooks::list(w.tx, workspace_id).await?)
    })
    .await
}

pub async fn update(
    pool: &Pool,
    user_id: &str,
    (workspace_id, id): (Uuid, Uuid),
    events: Option<Vec<String>>,
    enabled: Option<bool>,
) -> Result<EndpointRow, WebhookError> {
    owner::on_workspace::<_, WebhookError, _>(pool, user_id, workspace_id, Strength::Update, async |w| {
        let row = webhooks::update(w.tx, workspace_id, id, events.as_deref(), enabled, w.now).await?;
        let row = row.ok_or(WebhookError::NotFound)?;
        workspace_audit::record(w.tx, workspace_id, w.staff_id, "webhook.updated", Some(id), w.now).await?;
        Ok(row)
    })
    .await
}

pub async fn delete(pool: &Pool, user_id: &str, (workspace_id, id): (Uuid, Uuid)) -> Result<(), WebhookError> {
    owner::on_workspace::<_, WebhookError, _>(pool, user_id, workspace_id, Strength::Update, async |w| {
        if !webhooks::delete(w.tx, workspace_id, id).await? {
            return Err(WebhookError::NotFound);
        }
        workspace_audit::record(w.tx, workspace_id, w.staff_id, "webhook.deleted", Some(id), w.now).await?;
        Ok(())
    })
    .await
}

pub async fn rotate(
    pool: &Pool,
    keyring: &Keyring,
    user_id: &str,
    (workspace_id, id): (Uuid, Uuid),
) -> Result<(EndpointRow, FreshSecret), WebhookError> {
    // Both kinds are made before the transaction (no key generation under the lock); the
    // endpoint's scheme, read under it, picks one.
    let fresh = [SignatureScheme::V1, SignatureScheme::V1a].map(|scheme| {
        let material = Material::new(scheme);
        (keyring.seal(id.as_bytes(), &material.sealed_key), material)
    });
    let (row, shown) =
        owner::on_workspace::<_, WebhookError, _>(pool, user_id, workspace_id, Strength::Update, async |w| {
            let scheme = webhooks::scheme(w.tx, workspace_id, id).await?.ok_or(WebhookError::NotFound)?;
            let (sealed, material) = &fresh[usize::from(scheme == SignatureScheme::V1a.as_str())];
            let keys = (sealed.as_slice(), material.public_key.as_deref());
            let row = webhooks::rotate(w.tx, workspace_id, id, keys, w.now, ROTATION_OVERLAP_HOURS).await?;
            let row = row.ok_or(WebhookError::NotFound)?;
            workspace_audit::record(w.tx, workspace_id, w.staff_id, "webhook.secret_rotated", Some(id), w.now).await?;
            Ok((row, material.shown.clone()))
        })
        .await?;
    Ok((row, FreshSecret(shown)))
}

/// A page of the endpoint's deliveries, newest first, with their attempts.
pub async fn deliveries(
    pool: &Pool,
    user_id: &str,
    (workspace_id, id): (Uuid, Uuid),
    before: i64,
    limit: i64,
) -> Result<(Vec<DeliveryRow>, Vec<AttemptRow>), WebhookError> {
    owner::on_workspace::<_, WebhookError, _>(pool, user_id, workspace_id, Strength::Share, async |w| {
        webhooks::get(w.tx, workspace_id, id).await?.ok_or(WebhookError::NotFound)?;
        Ok(webhooks::deliveries(w.tx, workspace_id, id, before, limit).await?)
    })
    .await
}

/// Makes one delivery due now, with at least one attempt left.
pub async fn retry(
    pool: &Pool,
    user_id: &str,
    (workspace_id, id): (Uuid, Uuid),
    delivery_id: i64,
) -> Result<(), WebhookError> {
    owner::on_workspace::<_, WebhookError, _>(pool, user_id, workspace_id, Strength::Update, async |w| {
        let retry = Retry::Webhook { workspace_id, endpoint_id: id, delivery_id };
        if !outbox::make_due(w.tx, retry, w.now, MAX_ATTEMPTS).await? {
            return Err(WebhookError::NotFound);
        }
        workspace_audit::record(w.tx, workspace_id, w.staff_id, "webhook.delivery_retried", Some(id), w.now).await?;
        Ok(())
    })
    .await
}

/// The `webhook.test` message queued by [`send_test`]: its event id (the `webhook-id`
/// basis) and its delivery.
#[derive(Debug, Clone, Copy)]
pub struct TestMessage {
    pub event_id: Uuid,
    pub delivery_id: i64,
}

/// The documented `webhook.test` body: the workspace and the endpoint, nothing else.
pub fn test_payload(workspace_id: Uuid, endpoint_id: Uuid, now: chrono::DateTime<chrono::Utc>) -> serde_json::Value {
    serde_json::json!({
        "type": WebhookEventType::WebhookTest.as_str(),
        "timestamp": now.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string(),
        "data": {"workspaceId": workspace_id, "webhookId": endpoint_id},
    })
}

/// Queues a `webhook.test` event for this one endpoint, due now, signed and retried like
/// any other delivery and listed in its delivery log. A disabled endpoint is refused.
pub async fn send_test(
    pool: &Pool,
    user_id: &str,
    (workspace_id, id): (Uuid, Uuid),
) -> Result<TestMessage, WebhookError> {
    owner::on_workspace::<_, WebhookError, _>(pool, user_id, workspace_id, Strength::Update, async |w| {
        let endpoint = webhooks::get(w.tx, workspace_id, id).await?.ok_or(WebhookError::NotFound)?;
        if !endpoint.enabled {
            return Err(WebhookError::Disabled);
        }
        let payload = test_payload(workspace_id, id, w.now);
        let (event_id, delivery_id) = outbox::enqueue_test(w.tx, workspace_id, id, &payload, w.now).await?;
        workspace_audit::record(w.tx, workspace_id, w.staff_id, "webhook.tested", Some(id), w.now).await?;
        Ok(TestMessage { event_id, delivery_id })
    })
    .await
}

/// Sends again every event of the endpoint's subscription since `since` that it has not
/// acknowledged — those recorded while it was disabled included — each with its original
/// `webhook-id`, in order ([`outbox::recover`]). The endpoint must be enabled.
pub async fn recover(
    pool: &Pool,
    user_id: &str,
    (workspace_id, id): (Uuid, Uuid),
    since: chrono::DateTime<chrono::Utc>,
) -> Result<u64, WebhookError> {
    owner::on_workspace::<_, WebhookError, _>(pool, user_id, workspace_id, Strength::Update, async |w| {
        let endpoint = webhooks::get(w.tx, workspace_id, id).await?.ok_or(WebhookError::NotFound)?;
        if !endpoint.enabled {
            return Err(WebhookError::Disabled);
        }
        let recovered = outbox::recover(w.tx, workspace_id, id, since, w.now).await?;
        workspace_audit::record(w.tx, workspace_id, w.staff_id, "webhook.recovered", Some(id), w.now).await?;
        Ok(recovered)
    })
    .await
}
