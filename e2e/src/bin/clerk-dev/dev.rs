//! The dev-only endpoints under `/dev` (no secret key; CORS for `--allowed-origin`):
//! a Frontend-API-like sign-in and token refresh for the SPA, and fault injection.
//! Sign-in finds users by email among those that exist, so after `DELETE /v1/users/{id}`
//! signing in with that email makes a new user.
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

impl Availability {
    fn of(unavailable: bool) -> Self {
        if unavailable {
            Self::Unavailable
        } else {
            Self::Ok
        }
    }
}

/// `POST /dev/faults`: each switch given is set, the others stay as they are.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
struct SetFaults {
    users: Option<Availability>,
    writes: Option<Availability>,
    /// Milliseconds each metadata or membership write, and each listing of a user's
    /// memberships, waits before it applies (0: none).
    write_delay_ms: Option<u64>,
}

/// The switches as they are after the change.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FaultState {
    users: Availability,
    writes: Availability,
    write_delay_ms: u64,
}

/// `{"users":"unavailable"}` makes `GET /v1/users/{id}` answer 503; `{"writes":
/// "unavailable"}` makes the metadata merge and membership writes answer 503 (see
/// [`crate::store::Faults`]); `"ok"` restores either; `{"writeDelayMs": N}` makes those
/// writes and a user's membership listing wait N ms (a slow Clerk). At least one switch must be given.
async fn faults(state: Data<AppState>, body: Json<SetFaults>) -> Result<HttpResponse, ClerkError> {
    if body.users.is_none() && body.writes.is_none() && body.write_delay_ms.is_none() {
        return Err(ClerkError::bad_body("give users, writes and/or writeDelayMs"));
    }
    let now = {
        let mut store = state.store();
        if let Some(users) = body.users {
            store.faults.users_unavailable = users == Availability::Unavailable;
        }
        if let Some(writes) = body.writes {
            store.faults.writes_unavailable = writes == Availability::Unavailable;
        }
        if let Some(delay) = body.write_delay_ms {
            store.faults.write_delay_ms = delay.min(10_000);
        }
        store.faults
    };
    Ok(HttpResponse::Ok().json(FaultState {
        users: Availability::of(now.users_unavailable),
        writes: Availability::of(now.writes_unavailable),
        write_delay_ms: now.write_delay_ms,
    }))
}
