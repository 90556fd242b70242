//! Workspace API keys (`/api/owner/workspaces/{id}/api-keys…`, `usecases::api_keys`).
//! A key leaves the server only in the answer to its creation, built here after COMMIT.

use crate::http::error::Result;
use crate::identity::Session;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::api_keys::{self, KeyRow, NewApiKey};
use actix_web::{delete, get, post, web, HttpResponse};
use shared::integrations::{ApiKey, ApiKeyScope, ApiKeyWithSecret, CreateApiKeyRequest};
use uuid::Uuid;

fn view(row: KeyRow) -> ApiKey {
    ApiKey {
        id: row.id,
        name: row.name,
        prefix: row.prefix,
        scopes: row.scopes.iter().filter_map(|s| ApiKeyScope::parse(s)).collect(),
        created_at: rfc3339(row.created_at),
        last_used_at: row.last_used_at.map(rfc3339),
        revoked_at: row.revoked_at.map(rfc3339),
    }
}

#[utoipa::path(operation_id = "createApiKey", request_body = CreateApiKeyRequest, responses(
    (status = 201, description = "Created: the only response that holds the key.", body = ApiKeyWithSecret),
    (status = 400, description = "A name outside 1–80 characters, or no scope."),
))]
#[post("/owner/workspaces/{id}/api-keys")]
async fn create(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<CreateApiKeyRequest>,
) -> Result<HttpResponse> {
    let body = body.into_inner();
    let new = NewApiKey::parse(body.name, &body.scopes)?;
    let (row, secret) = api_keys::create(&state.pool, &session.user_id, *id, &new).await?;
    Ok(HttpResponse::Created().json(ApiKeyWithSecret { api_key: view(row), secret: secret.reveal() }))
}

#[utoipa::path(operation_id = "listApiKeys", responses(
    (status = 200, description = "The workspace's keys, newest first (name, prefix, scopes, use; never the key).", body = Vec<ApiKey>),
))]
#[get("/owner/workspaces/{id}/api-keys")]
async fn list(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let rows = api_keys::list(&state.pool, &session.user_id, *id).await?;
    Ok(HttpResponse::Ok().json(rows.into_iter().map(view).collect::<Vec<_>>()))
}

#[utoipa::path(operation_id = "revokeApiKey", responses(
    (status = 200, description = "Revoked (repeating it answers the same); the key is refused from now on.", body = ApiKey),
))]
#[delete("/owner/workspaces/{id}/api-keys/{keyId}")]
async fn revoke(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    let row = api_keys::revoke(&state.pool, &session.user_id, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(view(row)))
}

pub fn configure(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create).service(list).service(revoke);
}
