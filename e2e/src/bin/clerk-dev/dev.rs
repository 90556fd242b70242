//! The dev-only endpoints under `/dev` (no secret key; CORS for `--allowed-origin`):
//! a Frontend-API-like sign-in and token refresh for the SPA, and fault injection.
//! Tokens minted here carry `azp` = the request's `Origin`, as Clerk's Frontend API does.

use actix_cors::Cors;
use actix_web::http::header::{CONTENT_TYPE, ORIGIN};
use actix_web::web::{self, Data, Json, Path};
use actix_web::{HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::json;
use shared::EmailKey;

use crate::error::ClerkError;
use crate::keys::TokenRequest;
use crate::state::AppState;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/sign-in", web::post().to(sign_in))
        .route("/sessions/{id}/tokens", web::post().to(session_token))
        .route("/faults", web::post().to(faults));
}

/// CORS for the dev endpoints: only `origins`, only POST with a JSON body, no
/// credentials. Requests carrying any other `Origin` are refused (400, no
/// `Access-Control-Allow-Origin`) before reaching a handler; requests without an `Origin`
/// (curl, tests) pass.
pub fn cors(origins: &[String]) -> Cors {
    origins
        .iter()
        .fold(Cors::default(), |cors, origin| cors.allowed_origin(origin))
        .allowed_methods(["POST"])
        .allowed_header(CONTENT_TYPE)
        .max_age(600)
        .block_on_origin_mismatch(true)
}

/// The browser origin that asked, used as the token's `azp`.
fn request_origin(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get(ORIGIN)
        .and_then(|value| value.to_str().ok())
        .filter(|origin| !origin.is_empty() && *origin != "null")
        .map(str::to_owned)
}

fn browser_token(state: &AppState, req: &HttpRequest, session_id: &str) -> Result<String, ClerkError> {
    let request = TokenRequest { ttl: state.token_ttl(), azp: request_origin(req), offset: 0 };
    state.mint(session_id, &request)
}

#[derive(Deserialize)]
struct SignIn {
    email: String,
}

/// Finds (or creates, verified) the user with this email, opens a session and mints
/// its first token.
async fn sign_in(state: Data<AppState>, req: HttpRequest, body: Json<SignIn>) -> Result<HttpResponse, ClerkError> {
    let email = EmailKey::parse(&body.email).map_err(|_| ClerkError::invalid_email())?;
    let (user_id, session_id) = {
        let mut store = state.store();
        let user_id = store.find_or_create_by_email(&email);
        let session = store.create_session(&user_id)?;
        (user_id, session.id)
    };
    let jwt = browser_token(&state, &req, &session_id)?;
    Ok(HttpResponse::Ok().json(json!({ "userId": user_id, "sessionId": session_id, "jwt": jwt })))
}

/// A fresh token for an active session (404 once revoked or if unknown).
async fn session_token(state: Data<AppState>, req: HttpRequest, id: Path<String>) -> Result<HttpResponse, ClerkError> {
    let jwt = browser_token(&state, &req, &id)?;
    Ok(HttpResponse::Ok().json(json!({ "jwt": jwt })))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Availability {
    Ok,
    Unavailable,
}

#[derive(Serialize, Deserialize)]
struct Faults {
    users: Availability,
}

/// `{"users":"unavailable"}` makes `GET /v1/users/{id}` answer 503; `"ok"` restores it.
async fn faults(state: Data<AppState>, body: Json<Faults>) -> HttpResponse {
    state.store().users_unavailable = body.users == Availability::Unavailable;
    HttpResponse::Ok().json(Faults { users: body.users })
}
