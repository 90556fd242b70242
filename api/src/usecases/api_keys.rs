//! Workspace API keys: create (the key is answered once; only its SHA-256 is kept),
//! list, revoke — each an audited owner action under the workspace lock — and the
//! lookup that authenticates a server API request.

use super::webhooks::FreshSecret;
use super::{owner, use_case_error};
use crate::crypto;
use crate::db::api_keys::{self, NewKey};
use crate::db::locks::Strength;
use crate::db::{workspace_audit, DbError};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use deadpool_postgres::Pool;
use shared::integrations::ApiKeyScope;
use uuid::Uuid;

pub use crate::db::api_keys::{Caller, KeyRow};

pub const KEY_PREFIX: &str = "vst_";
/// `vst_` + 43 base64url characters (32 random bytes).
const KEY_LEN: usize = 4 + 43;

use_case_error! {
    pub enum ApiKeyError {
        #[error("invalid name")]
        InvalidName,
        #[error("invalid scopes")]
        InvalidScopes,
    }
}

/// A checked key definition: a name of 1–80 characters and 1–2 distinct scopes.
#[derive(Debug, Clone)]
pub struct NewApiKey {
    name: String,
    scopes: Vec<String>,
}

impl NewApiKey {
    pub fn parse(name: String, scopes: &[ApiKeyScope]) -> Result<NewApiKey, ApiKeyError> {
        let len = name.chars().count();
        if len == 0 || len > 80 || name.trim().is_empty() || name.chars().any(char::is_control) {
            return Err(ApiKeyError::InvalidName);
        }
        let scopes: Vec<String> =
            ApiKeyScope::ALL.into_iter().filter(|s| scopes.contains(s)).map(|s| s.as_str().to_owned()).collect();
        if scopes.is_empty() {
            return Err(ApiKeyError::InvalidScopes);
        }
        Ok(NewApiKey { name, scopes })
    }
}

pub async fn create(
    pool: &Pool,
    user_id: &str,
    workspace_id: Uuid,
    new: &NewApiKey,
) -> Result<(KeyRow, FreshSecret), ApiKeyError> {
    let key = format!("{KEY_PREFIX}{}", URL_SAFE_NO_PAD.encode(crypto::random_bytes::<32>()));
    let digest = crypto::sha256(key.as_bytes());
    let id = Uuid::new_v4();
    let row = owner::on_workspace::<_, ApiKeyError, _>(pool, user_id, workspace_id, Strength::Update, async |w| {
        let k = NewKey {
            id,
            workspace_id,
            name: &new.name,
            prefix: &key[..10],
            digest: &digest,
            scopes: &new.scopes,
            created_by: w.staff_id,
        };
        let row = api_keys::insert(w.tx, &k, w.now).await?;
        workspace_audit::record(w.tx, workspace_id, w.staff_id, "api_key.created", Some(id), w.now).await?;
        Ok(row)
    })
    .await?;
    Ok((row, FreshSecret::new(key)))
}

pub async fn list(pool: &Pool, user_id: &str, workspace_id: Uuid) -> Result<Vec<KeyRow>, ApiKeyError> {
    owner::on_workspace::<_, ApiKeyError, _>(pool, user_id, workspace_id, Strength::Share, async |w| {
        Ok(api_keys::list(w.tx, workspace_id).await?)
    })
    .await
}

pub async fn revoke(pool: &Pool, user_id: &str, (workspace_id, id): (Uuid, Uuid)) -> Result<KeyRow, ApiKeyError> {
    owner::on_workspace::<_, ApiKeyError, _>(pool, user_id, workspace_id, Strength::Update, async |w| {
        let row = api_keys::revoke(w.tx, workspace_id, id, w.now).await?.ok_or(ApiKeyError::NotFound)?;
        workspace_audit::record(w.tx, workspace_id, w.staff_id, "api_key.revoked", Some(id), w.now).await?;
        Ok(row)
    })
    .await
}

/// The caller a presented key stands for, counting the request; `None` for anything
/// that is not a current key of an active workspace.
pub async fn authenticate(pool: &Pool, presented: &str) -> Result<Option<Caller>, DbError> {
    if presented.len() != KEY_LEN || !presented.starts_with(KEY_PREFIX) {
        return Ok(None);
    }
    let client = pool.get().await?;
    api_keys::authenticate(&client, &crypto::sha256(presented.as_bytes())).await
}
