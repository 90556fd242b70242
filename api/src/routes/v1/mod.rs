//! The server API (`/api/v1`), for an owner's own product and CRM: authenticated only
//! by a workspace API key ([`ApiCaller`]), scoped to the key's workspace and rate-limited
//! per key. `GET /api/v1/programs/{slug}/access?clerkUserId=` (scope `access:read`) and
//! `GET /api/v1/programs/{slug}/entries` (scope `entries:read`).

use crate::http::api_key::ApiCaller;
use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::backend_user_id_ok;
use crate::routes::input::page_limit;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::queue::Filter;
use crate::usecases::server_api;
use actix_web::{get, web, HttpResponse};
use serde::Deserialize;
use shared::api::EntrySearch;
use shared::integrations::{AccessResponse, V1EntriesResponse, V1Entry};
use shared::{ErrorCode, Slug};

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct AccessQuery {
    /// The identity provider's user id (`user_…`).
    clerk_user_id: String,
}

fn slug(raw: String) -> Result<Slug> {
    Slug::try_from(raw).map_err(|_| ApiError::NotFound)
}

#[utoipa::path(operation_id = "checkAccess", params(AccessQuery), security(("apiKey" = [])), responses(
    (status = 200, description = "Whether the user holds an active grant of the program and still holds its email verified, asked of the identity provider now.", body = AccessResponse),
    (status = 401, description = "No key, an unknown key or a revoked key."),
    (status = 403, description = "The key lacks the `access:read` scope."),
    (status = 404, description = "No such program in the key's workspace."),
    (status = 429, description = "The key's per-minute rate is used up."),
    (status = 503, description = "The identity provider is unreachable: no answer rather than a guess."),
))]
#[get("/v1/programs/{slug}/access")]
async fn access(
    state: web::Data<AppState>,
    caller: ApiCaller,
    path: web::Path<String>,
    query: web::Query<AccessQuery>,
) -> Result<HttpResponse> {
    let slug = slug(path.into_inner())?;
    if !backend_user_id_ok(&query.clerk_user_id) {
        return Err(ApiError::BadRequest(ErrorCode::InvalidQuery));
    }
    let granted =
        server_api::access(&state.pool, &state.identity, &caller.0, slug.as_str(), &query.clerk_user_id).await?;
    Ok(HttpResponse::Ok().json(AccessResponse { access: granted }))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct EntriesQuery {
    state: Option<String>,
    cursor: Option<String>,
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

#[utoipa::path(operation_id = "listProgramEntries", params(EntriesQuery), security(("apiKey" = [])), responses(
    (status = 200, description = "One page of the program's entries in queue order, for a CRM sync.", body = V1EntriesResponse),
    (status = 401, description = "No key, an unknown key or a revoked key."),
    (status = 403, description = "The key lacks the `entries:read` scope."),
    (status = 404, description = "No such program in the key's workspace."),
    (status = 429, description = "The key's per-minute rate is used up."),
))]
#[get("/v1/programs/{slug}/entries")]
async fn entries(
    state: web::Data<AppState>,
    caller: ApiCaller,
    path: web::Path<String>,
    query: web::Query<EntriesQuery>,
) -> Result<HttpResponse> {
    let slug = slug(path.into_inner())?;
    let EntriesQuery { state: filter_state, cursor, limit } = query.into_inner();
    let filter = Filter::try_from(&EntrySearch { state: filter_state, cursor, ..EntrySearch::default() })?;
    let limit = page_limit(limit)?;
    let (rows, next) = server_api::entries(&state.pool, &caller.0, slug.as_str(), &filter, limit).await?;
    Ok(HttpResponse::Ok().json(V1EntriesResponse {
        entries: rows
            .into_iter()
            .map(|e| V1Entry {
                id: e.id,
                email: e.email,
                state: e.state,
                created_at: rfc3339(e.created_at),
                notice_version: e.notice_version,
                answers: e.answers,
                verified_at_join: e.verified_at_join.map(rfc3339),
            })
            .collect(),
        next_cursor: next.map(|c| c.encode()),
    }))
}

pub fn configure(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(access).service(entries);
}
