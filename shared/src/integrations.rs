//! The integration surface's wire types (issue 13): webhook endpoints and their
//! deliveries, the thin event payloads they carry, workspace API keys and the server API
//! (`/api/v1`). Policy: no payload or list holds an email, a code, a key or an identity
//! provider id — secrets appear once, in the answer that creates them.

use crate::states::EntryState;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::api::Timestamp;

/// Webhook endpoints one workspace may have (a 21st is 409 `webhook_limit`): the
/// outbox shares its workers between workspaces, and endpoints are what a workspace
/// multiplies its share by.
pub const MAX_WEBHOOKS_PER_WORKSPACE: usize = 20;

/// The event types an endpoint subscribes to (wire names `entry.created` …), and
/// `webhook.test`, which only the owner's test sends (never subscribed to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum WebhookEventType {
    #[serde(rename = "entry.created")]
    EntryCreated,
    #[serde(rename = "entry.selected")]
    EntrySelected,
    #[serde(rename = "entry.declined")]
    EntryDeclined,
    #[serde(rename = "entry.withdrawn")]
    EntryWithdrawn,
    #[serde(rename = "invitation.issued")]
    InvitationIssued,
    #[serde(rename = "invitation.revoked")]
    InvitationRevoked,
    #[serde(rename = "grant.created")]
    GrantCreated,
    #[serde(rename = "grant.revoked")]
    GrantRevoked,
    #[serde(rename = "content.published")]
    ContentPublished,
    /// Sent to one endpoint by `POST …/webhooks/{webhookId}/test`.
    #[serde(rename = "webhook.test")]
    WebhookTest,
}

impl WebhookEventType {
    /// The types an endpoint may subscribe to.
    pub const ALL: [WebhookEventType; 9] = [
        WebhookEventType::EntryCreated,
        WebhookEventType::EntrySelected,
        WebhookEventType::EntryDeclined,
        WebhookEventType::EntryWithdrawn,
        WebhookEventType::InvitationIssued,
        WebhookEventType::InvitationRevoked,
        WebhookEventType::GrantCreated,
        WebhookEventType::GrantRevoked,
        WebhookEventType::ContentPublished,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WebhookEventType::EntryCreated => "entry.created",
            WebhookEventType::EntrySelected => "entry.selected",
            WebhookEventType::EntryDeclined => "entry.declined",
            WebhookEventType::EntryWithdrawn => "entry.withdrawn",
            WebhookEventType::InvitationIssued => "invitation.issued",
            WebhookEventType::InvitationRevoked => "invitation.revoked",
            WebhookEventType::GrantCreated => "grant.created",
            WebhookEventType::GrantRevoked => "grant.revoked",
            WebhookEventType::ContentPublished => "content.published",
            WebhookEventType::WebhookTest => "webhook.test",
        }
    }

    /// Every type a delivery may carry: the subscribable ones and the test.
    pub fn parse(s: &str) -> Option<WebhookEventType> {
        WebhookEventType::ALL.into_iter().chain([WebhookEventType::WebhookTest]).find(|t| t.as_str() == s)
    }
}

/// One event as delivered: the body that is signed. Thin: ids and the new state only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WebhookPayload {
    #[serde(rename = "type")]
    pub event_type: WebhookEventType,
    /// When the change was committed (RFC 3339, UTC).
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub timestamp: Timestamp,
    pub data: WebhookData,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookData {
    pub workspace_id: Uuid,
    /// The program of the change (every type but `webhook.test`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub program_id: Option<Uuid>,
    /// The endpoint a `webhook.test` was sent to.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub webhook_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub entry_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub invitation_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub grant_id: Option<Uuid>,
    /// The subject's new state: an entry's (`waiting`, or `active` for an entry a cohort
    /// code created with its grant, on `entry.created`; `selected`, `declined`, `withdrawn`),
    /// an invitation's (`issued`, `revoked`) or a grant's (`active`, `revoked`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub state: Option<String>,
    /// The content revision, for `content.published`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub revision: Option<i64>,
}

/// `POST …/webhooks/{webhookId}/recover`: re-send what the endpoint has not acknowledged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecoverWebhookRequest {
    /// RFC 3339: every event of the endpoint's subscription since then that it has not
    /// acknowledged (skipped while it was disabled, failed, or still pending) is sent again.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub since: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RecoverWebhookResponse {
    /// How many messages are due again, each with its original `webhook-id`, in order.
    pub recovered: i64,
}

/// The answer to `POST …/webhooks/{webhookId}/test`: the test message, queued for that
/// endpoint only (it shows in its delivery log).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookTestResponse {
    /// Its `webhook-id`.
    pub message_id: String,
    pub delivery_id: i64,
}

/// How an endpoint's messages are signed (Standard Webhooks): `v1`, HMAC-SHA256 under a
/// shared `whsec_` secret, or `v1a`, Ed25519, verified with the endpoint's `whpk_` public
/// key alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SignatureScheme {
    #[default]
    V1,
    V1a,
}

impl SignatureScheme {
    pub fn as_str(self) -> &'static str {
        match self {
            SignatureScheme::V1 => "v1",
            SignatureScheme::V1a => "v1a",
        }
    }

    pub fn parse(s: &str) -> Option<SignatureScheme> {
        [SignatureScheme::V1, SignatureScheme::V1a].into_iter().find(|v| v.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", schema(example = json!({"url": "https://hooks.example.com/vestibule", "events": ["entry.created", "entry.selected"]})))]
pub struct CreateWebhookRequest {
    /// `https://…` (production refuses loopback, private and link-local targets).
    #[cfg_attr(feature = "openapi", schema(max_length = 2000))]
    pub url: String,
    pub events: Vec<WebhookEventType>,
    /// Only these programs of the workspace; every program when absent.
    #[serde(default)]
    pub program_ids: Option<Vec<Uuid>>,
    /// `v1` (default) or `v1a`.
    #[serde(default)]
    pub signature: Option<SignatureScheme>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateWebhookRequest {
    #[serde(default)]
    pub events: Option<Vec<WebhookEventType>>,
    /// Re-enabling an endpoint that was disabled for failing clears its failure record.
    #[serde(default)]
    pub enabled: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    pub id: Uuid,
    pub url: String,
    pub events: Vec<WebhookEventType>,
    pub program_ids: Option<Vec<Uuid>>,
    pub enabled: bool,
    /// `owner` (turned off), `failing` (disabled after failing for 3 days) or `gone` (the
    /// receiver answered `410 Gone`).
    pub disabled_reason: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub failing_since: Option<Timestamp>,
    /// Until when the previous secret still signs, after a rotation.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub previous_secret_until: Option<Timestamp>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    pub signature: SignatureScheme,
    /// For `v1a`: the current `whpk_` public key receivers verify with.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub public_key: Option<String>,
}

/// The answer to a create or a rotation: the signing secret, shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookWithSecret {
    pub webhook: Webhook,
    /// `v1`: `whsec_` + base64 of the key (Standard Webhooks), shown this once. `v1a`: the
    /// new `whpk_` public key (the private key never leaves the server).
    pub secret: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryAttempt {
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: Timestamp,
    pub status_code: Option<i32>,
    /// `delivered`, `http_status`, `timeout`, `connection`, `refused_target`.
    pub outcome: String,
    pub latency_ms: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookDelivery {
    pub id: i64,
    /// The `webhook-id` header, stable across retries.
    pub message_id: String,
    pub event_type: WebhookEventType,
    /// `pending`, `delivered`, `failed`, or `skipped` (the event happened while the endpoint
    /// was disabled: recorded, not sent; `…/recover` sends it).
    pub state: String,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub next_attempt_at: Option<Timestamp>,
    pub attempts: Vec<DeliveryAttempt>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveriesResponse {
    pub deliveries: Vec<WebhookDelivery>,
    pub next_cursor: Option<String>,
}

// ---------------------------------------------------------------- API keys

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ApiKeyScope {
    #[serde(rename = "access:read")]
    AccessRead,
    #[serde(rename = "entries:read")]
    EntriesRead,
}

impl ApiKeyScope {
    pub const ALL: [ApiKeyScope; 2] = [ApiKeyScope::AccessRead, ApiKeyScope::EntriesRead];

    pub fn as_str(self) -> &'static str {
        match self {
            ApiKeyScope::AccessRead => "access:read",
            ApiKeyScope::EntriesRead => "entries:read",
        }
    }

    pub fn parse(s: &str) -> Option<ApiKeyScope> {
        ApiKeyScope::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", schema(example = json!({"name": "Reporting", "scopes": ["access:read", "entries:read"]})))]
pub struct CreateApiKeyRequest {
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 80))]
    pub name: String,
    pub scopes: Vec<ApiKeyScope>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    pub id: Uuid,
    pub name: String,
    /// The key's first characters, to tell keys apart (not a secret).
    pub prefix: String,
    pub scopes: Vec<ApiKeyScope>,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub last_used_at: Option<Timestamp>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub revoked_at: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyWithSecret {
    pub api_key: ApiKey,
    /// `vst_…`, shown this once; only its SHA-256 is kept.
    pub secret: String,
}

/// The admission hook's secret (`whsec_…`), shown once when it is made or replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct HookSecret {
    pub secret: String,
    /// The URL to give the identity provider.
    pub path: String,
}

// ---------------------------------------------------------------- server API (/api/v1)

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccessResponse {
    /// True when the user holds an active grant of the program and still holds its
    /// email verified at the identity provider, right now.
    pub access: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct V1Entry {
    pub id: Uuid,
    pub email: String,
    pub state: EntryState,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: Timestamp,
    pub notice_version: i32,
    /// The answers to that notice version's questions, by question id (empty once
    /// redacted).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeMap<String, crate::questions::Answer>))]
    pub answers: crate::questions::Answers,
    /// When the entry joined signed in, with an address the account had verified.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub verified_at_join: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct V1EntriesResponse {
    pub entries: Vec<V1Entry>,
    pub next_cursor: Option<String>,
}

/// Whether the workspace's admission hook has a secret, and where the provider calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AdmissionHookStatus {
    pub configured: bool,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub created_at: Option<Timestamp>,
    pub path: String,
}
