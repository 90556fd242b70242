//! Sessions: create (Clerk allows it on development instances, for testing), mint a
//! session token, revoke. Tokens are minted only for an existing, active session: a
//! revoked session, or one of a deleted user, answers 404 `resource_not_found`.

use actix_web::web::{self, Bytes, Data, Json, Path};
use actix_web::HttpResponse;
use serde::Deserialize;
use serde_json::json;

use crate::error::ClerkError;
use crate::keys::TokenRequest;
use crate::state::AppState;

/// Bound on `expires_in_seconds` and `issued_offset_seconds` (ten years).
const MAX_SECONDS: i64 = 10 * 365 * 24 * 3600;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/sessions", web::post().to(create_session))
        .route("/sessions/{id}/tokens", web::post().to(session_token))
        .route("/sessions/{id}/revoke", web::post().to(revoke_session));
}

#[derive(Deserialize)]
struct CreateSession {
    user_id: String,
}

async fn create_session(state: Data<AppState>, body: Json<CreateSession>) -> Result<HttpResponse, ClerkError> {
    let session = state.store().create_session(&body.user_id)?;
    Ok(HttpResponse::Ok().json(session))
}

/// Body of `POST /v1/sessions/{id}/tokens`; absent or empty means all defaults.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct TokenBody {
    expires_in_seconds: Option<i64>,
    azp: Option<String>,
    /// clerk-dev extension, see the crate docs.
    issued_offset_seconds: Option<i64>,
}

async fn session_token(state: Data<AppState>, id: Path<String>, body: Bytes) -> Result<HttpResponse, ClerkError> {
    let body: TokenBody = if body.iter().all(u8::is_ascii_whitespace) {
        TokenBody::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| ClerkError::bad_body(&e.to_string()))?
    };
    let ttl = body.expires_in_seconds.unwrap_or(state.token_ttl());
    if !(1..=MAX_SECONDS).contains(&ttl) {
        return Err(ClerkError::param_out_of_range("expires_in_seconds"));
    }
    let offset = body.issued_offset_seconds.unwrap_or(0);
    if !(-MAX_SECONDS..=MAX_SECONDS).contains(&offset) {
        return Err(ClerkError::param_out_of_range("issued_offset_seconds"));
    }
    let jwt = state.mint(&id, &TokenRequest { ttl, azp: body.azp, offset })?;
    Ok(HttpResponse::Ok().json(json!({ "object": "token", "jwt": jwt })))
}

async fn revoke_session(state: Data<AppState>, id: Path<String>) -> Result<HttpResponse, ClerkError> {
    let session = state.store().revoke_session(&id)?;
    Ok(HttpResponse::Ok().json(session))
}
