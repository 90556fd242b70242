//! The server API's use cases (`/api/v1`, an owner's product calling with a workspace
//! API key): the access check and the entry listing. Both need the key's scope and
//! see only the key's workspace (another workspace's program is the uniform 404).
//!
//! The access check asks the identity provider fresh, like the early-access page: an
//! active grant counts only while the grant's email is still among the user's verified
//! emails. The lookup happens with no transaction open and no connection held; an
//! unreachable provider is an error (503), never a guess.

use super::queue::{Cursor, EntryRow, Filter};
use super::use_case_error;
use crate::db::api_keys::Caller;
use crate::db::queue;
use crate::db::{self, server_api};
use crate::identity::{Identity, LookupError};
use deadpool_postgres::Pool;
use shared::integrations::ApiKeyScope;

use_case_error! {
    pub enum ServerApiError {
        #[error("the key lacks the scope")]
        MissingScope,
        #[error("identity provider unavailable: {0}")]
        IdentityUnavailable(String),
    }
}

fn require(caller: &Caller, scope: ApiKeyScope) -> Result<(), ServerApiError> {
    if caller.scopes.iter().any(|s| s == scope.as_str()) {
        Ok(())
    } else {
        Err(ServerApiError::MissingScope)
    }
}

/// Whether `user_id` may use the program's product right now.
pub async fn access(
    pool: &Pool,
    identity: &Identity,
    caller: &Caller,
    slug: &str,
    user_id: &str,
) -> Result<bool, ServerApiError> {
    require(caller, ApiKeyScope::AccessRead)?;
    let program = {
        let client = pool.get().await.map_err(db::DbError::from)?;
        let program = server_api::program(&client, caller.workspace_id, slug).await?.ok_or(ServerApiError::NotFound)?;
        // No grant: no need to ask anyone.
        if !server_api::granted(&client, program, user_id, None).await? {
            return Ok(false);
        }
        program
    };
    let emails = match identity.backend.verified_emails(user_id).await {
        Ok(emails) => emails,
        Err(LookupError::UserGone) => return Ok(false),
        Err(LookupError::Unavailable(why)) => return Err(ServerApiError::IdentityUnavailable(why)),
    };
    let keys: Vec<&str> = emails.iter().map(|e| e.as_str()).collect();
    let client = pool.get().await.map_err(db::DbError::from)?;
    Ok(server_api::granted(&client, program, user_id, Some(&keys)).await?)
}

/// A page of the program's entries, for a CRM sync.
pub async fn entries(
    pool: &Pool,
    caller: &Caller,
    slug: &str,
    filter: &Filter,
    limit: i64,
) -> Result<(Vec<EntryRow>, Option<Cursor>), ServerApiError> {
    require(caller, ApiKeyScope::EntriesRead)?;
    let mut rows = db::transaction(pool, async |tx| {
        let program = server_api::program(tx, caller.workspace_id, slug).await?.ok_or(ServerApiError::NotFound)?;
        let now = crate::db::locks::now(tx).await?;
        Ok::<_, ServerApiError>(queue::page(tx, program, filter, now, limit + 1).await?)
    })
    .await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(usize::try_from(limit).unwrap_or(0));
    let next = rows.last().filter(|_| more).map(|e| Cursor { created_at: e.created_at, id: e.id });
    Ok((rows, next))
}
