//! The Backend API subset under `/v1`: the secret-key middleware and the JWKS, user,
//! email-address, session and session-token endpoints, in Clerk's shapes.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::AUTHORIZATION;
use actix_web::middleware::Next;
use actix_web::web::{self, Bytes, Data, Json, Path};
use actix_web::{HttpResponse, ResponseError};
use serde::Deserialize;
use serde_json::json;

use crate::error::ClerkError;
use crate::keys::TokenRequest;
use crate::state::AppState;

/// Longest accepted address; the real grammar is applied by the API, not here.
const MAX_ADDRESS_LEN: usize = 320;
/// Bound on `expires_in_seconds` and `issued_offset_seconds` (ten years).
const MAX_SECONDS: i64 = 10 * 365 * 24 * 3600;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/jwks", web::get().to(jwks))
        .route("/users", web::post().to(create_user))
        .route("/users/{id}", web::get().to(get_user))
        .route("/email_addresses", web::post().to(create_email))
        .route("/email_addresses/{id}", web::patch().to(update_email))
        .route("/email_addresses/{id}", web::delete().to(delete_email))
        .route("/sessions", web::post().to(create_session))
        .route("/sessions/{id}/tokens", web::post().to(session_token))
        .route("/sessions/{id}/revoke", web::post().to(revoke_session));
}

/// Answers 401 unless the request carries `Authorization: Bearer <secret key>`.
pub async fn require_secret(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let presented = req.headers().get(AUTHORIZATION).and_then(|value| value.as_bytes().strip_prefix(b"Bearer "));
    let authorized = match (req.app_data::<Data<AppState>>(), presented) {
        (Some(state), Some(secret)) => state.secret_matches(secret),
        _ => false,
    };
    if authorized {
        Ok(next.call(req).await?.map_into_left_body())
    } else {
        let response = ClerkError::unauthenticated().error_response();
        Ok(req.into_response(response).map_into_right_body())
    }
}

async fn jwks(state: Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(state.key().jwks())
}

/// Clerk validates formats strictly; clerk-dev only asks for one `@`, so tests can store
/// addresses that the shared grammar refuses and check that the API ignores them.
fn checked_address(address: &str) -> Result<String, ClerkError> {
    let address = address.trim_matches(' ');
    if address.is_empty() || address.len() > MAX_ADDRESS_LEN || address.matches('@').count() != 1 {
        return Err(ClerkError::invalid_param("email_address"));
    }
    Ok(address.to_owned())
}

#[derive(Deserialize)]
struct CreateUser {
    #[serde(default)]
    email_address: Vec<String>,
}

async fn create_user(state: Data<AppState>, body: Json<CreateUser>) -> Result<HttpResponse, ClerkError> {
    let addresses = body.email_address.iter().map(|a| checked_address(a)).collect::<Result<Vec<_>, _>>()?;
    let user = state.store().create_user(&addresses);
    Ok(HttpResponse::Ok().json(user))
}

async fn get_user(state: Data<AppState>, id: Path<String>) -> Result<HttpResponse, ClerkError> {
    let user = {
        let store = state.store();
        if store.users_unavailable {
            return Err(ClerkError::users_unavailable());
        }
        store.user(&id)?
    };
    Ok(HttpResponse::Ok().json(user))
}

#[derive(Deserialize)]
struct CreateEmail {
    user_id: String,
    email_address: String,
    #[serde(default)]
    verified: bool,
    #[serde(default)]
    primary: bool,
}

async fn create_email(state: Data<AppState>, body: Json<CreateEmail>) -> Result<HttpResponse, ClerkError> {
    let CreateEmail { user_id, email_address, verified, primary } = body.into_inner();
    let address = checked_address(&email_address)?;
    let email = state.store().add_email(&user_id, address, verified, primary)?;
    Ok(HttpResponse::Ok().json(email))
}

#[derive(Deserialize)]
struct UpdateEmail {
    verified: Option<bool>,
    primary: Option<bool>,
}

async fn update_email(
    state: Data<AppState>,
    id: Path<String>,
    body: Json<UpdateEmail>,
) -> Result<HttpResponse, ClerkError> {
    let email = state.store().update_email(&id, body.verified, body.primary)?;
    Ok(HttpResponse::Ok().json(email))
}

async fn delete_email(state: Data<AppState>, id: Path<String>) -> Result<HttpResponse, ClerkError> {
    state.store().delete_email(&id)?;
    Ok(HttpResponse::Ok().json(json!({ "object": "email_address", "id": *id, "deleted": true })))
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
