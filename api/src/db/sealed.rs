//! Every sealed secret, for `vestibule reseal`: a webhook endpoint's signing key and the
//! previous one while it still signs, and each workspace's admission-hook key. Policy: a
//! re-sealed value replaces the old one only if the row still holds that old value (a
//! rotation that commits meanwhile wins), one short statement per row.

use super::Result;
use deadpool_postgres::GenericClient;
use uuid::Uuid;

/// Where a sealed secret lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SealedKind {
    /// `webhook_endpoints.secret_sealed`, sealed for the endpoint id.
    Webhook,
    /// `webhook_endpoints.previous_secret_sealed` while it still signs.
    WebhookPrevious,
    /// `hook_secrets.secret_sealed`, sealed for the workspace's hook context.
    Hook,
}

impl SealedKind {
    pub const ALL: [SealedKind; 3] = [SealedKind::Webhook, SealedKind::WebhookPrevious, SealedKind::Hook];

    fn select(self) -> &'static str {
        match self {
            SealedKind::Webhook => "SELECT id, secret_sealed FROM webhook_endpoints ORDER BY id",
            SealedKind::WebhookPrevious => {
                "SELECT id, previous_secret_sealed FROM webhook_endpoints \
                 WHERE previous_secret_sealed IS NOT NULL AND previous_secret_until > clock_timestamp() ORDER BY id"
            }
            SealedKind::Hook => "SELECT workspace_id, secret_sealed FROM hook_secrets ORDER BY workspace_id",
        }
    }

    fn swap(self) -> &'static str {
        match self {
            SealedKind::Webhook => {
                "UPDATE webhook_endpoints SET secret_sealed = $3 WHERE id = $1 AND secret_sealed = $2"
            }
            SealedKind::WebhookPrevious => {
                "UPDATE webhook_endpoints SET previous_secret_sealed = $3 WHERE id = $1 AND previous_secret_sealed = $2"
            }
            SealedKind::Hook => {
                "UPDATE hook_secrets SET secret_sealed = $3 WHERE workspace_id = $1 AND secret_sealed = $2"
            }
        }
    }
}

/// One sealed value and the id of the row that owns it.
#[derive(Debug, Clone)]
pub struct Sealed {
    pub owner: Uuid,
    pub value: Vec<u8>,
}

/// Every sealed value of one kind.
pub async fn list(client: &impl GenericClient, kind: SealedKind) -> Result<Vec<Sealed>> {
    let rows = client.query(kind.select(), &[]).await?;
    Ok(rows.iter().map(|r| Sealed { owner: r.get(0), value: r.get(1) }).collect())
}

/// Replaces `old` with `new` if the row still holds `old`; false when it changed meanwhile.
pub async fn replace(
    client: &impl GenericClient,
    kind: SealedKind,
    owner: Uuid,
    old: &[u8],
    new: &[u8],
) -> Result<bool> {
    Ok(client.execute(kind.swap(), &[&owner, &old, &new]).await? == 1)
}

/// Forgets previous webhook secrets whose overlap has ended (they never sign again).
pub async fn drop_expired_previous(client: &impl GenericClient) -> Result<u64> {
    Ok(client
        .execute(
            "UPDATE webhook_endpoints SET previous_secret_sealed = NULL, previous_secret_until = NULL \
             WHERE previous_secret_sealed IS NOT NULL AND previous_secret_until <= clock_timestamp()",
            &[],
        )
        .await?)
}
