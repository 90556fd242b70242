//! The sign-up admission hook (an identity provider's before-user-created hook, as in
//! `reference/supabase-waitlist-block.md`): verify the Standard Webhooks signature with
//! the workspace's hook secret (5-minute window; a repeated `webhook-id` with the same body
//! — a provider's retry — gets the decision given the first time, with any other body it is
//! refused as a replay), then
//! allow the sign-up only for an email holding an unexpired issued invitation or an
//! active grant in the workspace. Plus the owner's side: set or replace the secret
//! (shown once, audited).

use super::webhooks::FreshSecret;
use super::{owner, use_case_error};
use crate::crypto;
use crate::db::locks::Strength;
use crate::db::{self, admission_hook, workspace_audit, DbError};
use crate::secrets::Keyring;
use crate::standard_webhooks::{self, VerifyError};
use chrono::{DateTime, Utc};
use deadpool_postgres::Pool;
use shared::EmailKey;
use uuid::Uuid;

/// Message ids are kept a little longer than the timestamp window.
const RECEIPT_KEEP_SECS: f64 = (standard_webhooks::TOLERANCE_SECS * 2) as f64;

/// The associated data the workspace's hook secret is sealed for.
pub fn context(workspace_id: Uuid) -> Vec<u8> {
    [b"admission-hook:".as_slice(), workspace_id.as_bytes()].concat()
}

/// The headers and body as received.
pub struct Signed<'a> {
    pub message_id: &'a str,
    pub timestamp: &'a str,
    pub signature: &'a str,
    pub body: &'a [u8],
}

#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// No such active workspace, or no hook secret set.
    #[error("no hook here")]
    NotFound,
    #[error("signature refused: {0}")]
    Signature(#[from] VerifyError),
    #[error("replayed webhook-id")]
    Replayed,
    #[error(transparent)]
    Db(#[from] DbError),
}

impl db::TxError for HookError {
    fn retry(&self) -> bool {
        matches!(self, HookError::Db(DbError::Retry))
    }
}

/// Whether the sign-up of the email in the verified body may proceed.
pub async fn admit(
    pool: &Pool,
    keyring: &Keyring,
    server_key: &[u8],
    workspace_id: Uuid,
    signed: &Signed<'_>,
) -> Result<bool, HookError> {
    let sealed = {
        let client = pool.get().await.map_err(DbError::from)?;
        admission_hook::secret(&client, workspace_id).await?.ok_or(HookError::NotFound)?.0
    };
    let key = keyring.open(&context(workspace_id), &sealed).ok_or(HookError::NotFound)?;
    let now = Utc::now().timestamp();
    standard_webhooks::verify(&[&key], signed.message_id, signed.timestamp, signed.signature, signed.body, now)?;
    let email = email_of(signed.body);
    let binding = receipt_binding(server_key, workspace_id, signed);
    db::transaction(pool, async |tx| {
        let admitted = match &email {
            Some(email) => admission_hook::admitted(tx, workspace_id, email.as_str()).await?,
            None => false,
        };
        let seen =
            admission_hook::receipt(tx, workspace_id, signed.message_id, &binding, admitted, RECEIPT_KEEP_SECS).await?;
        match seen {
            None => Ok(admitted),
            Some(first) => repeated(&first, &binding),
        }
    })
    .await
}

/// A keyed binding of one hook message — the workspace, its id and its exact body — kept
/// with the receipt (never a plain digest of the email the body holds).
fn receipt_binding(server_key: &[u8], workspace_id: Uuid, signed: &Signed<'_>) -> Vec<u8> {
    crypto::binding(
        server_key,
        "admission-hook-receipt",
        &[workspace_id.as_bytes(), signed.message_id.as_bytes(), signed.body],
    )
}

/// A `webhook-id` seen before: the provider retrying the same message gets the decision it
/// was given the first time (refusing the retry would refuse an admitted sign-up); the same
/// id on another body is a replay and admits nothing.
fn repeated(first: &admission_hook::Receipt, binding: &[u8]) -> Result<bool, HookError> {
    match (&first.binding, first.admitted) {
        (Some(b), Some(admitted)) if crypto::same_binding(b, binding) => Ok(admitted),
        _ => Err(HookError::Replayed),
    }
}

/// `user.email` of the provider's payload, normalized; `None` when absent or invalid.
fn email_of(body: &[u8]) -> Option<EmailKey> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    EmailKey::parse(value.get("user")?.get("email")?.as_str()?).ok()
}

use_case_error! {
    /// The owner's side of the hook.
    pub enum HookSecretError {}
}

/// Whether the hook has a secret, and since when.
pub async fn status(pool: &Pool, user_id: &str, workspace_id: Uuid) -> Result<Option<DateTime<Utc>>, HookSecretError> {
    owner::on_workspace::<_, HookSecretError, _>(pool, user_id, workspace_id, Strength::Share, async |w| {
        Ok(admission_hook::secret(w.tx, workspace_id).await?.map(|(_, at)| at))
    })
    .await
}

/// Sets a fresh secret (replacing any), shown once.
pub async fn set_secret(
    pool: &Pool,
    keyring: &Keyring,
    user_id: &str,
    workspace_id: Uuid,
) -> Result<FreshSecret, HookSecretError> {
    let (secret, key) = standard_webhooks::new_secret();
    let sealed = keyring.seal(&context(workspace_id), &key);
    owner::on_workspace::<_, HookSecretError, _>(pool, user_id, workspace_id, Strength::Update, async |w| {
        admission_hook::set_secret(w.tx, workspace_id, &sealed, w.now).await?;
        workspace_audit::record(w.tx, workspace_id, w.staff_id, "admission_hook.secret_set", None, w.now).await?;
        Ok(())
    })
    .await?;
    Ok(FreshSecret::new(secret))
}
