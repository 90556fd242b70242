//! Identity (SPEC §3): who is calling, and which verified emails they hold right now.
//! Policy: the token proves the user and session; only the Backend API, asked fresh on
//! every recipient request and before any transaction, proves an email. Anything that
//! fails answers 401 (bad token) or 503 (provider unreachable), never a guess.

mod backend;
mod tokens;

pub use backend::{BackendClient, LookupError};
pub use tokens::{Claims, TokenError, TokenVerifier, JWKS_FAILURE_BACKOFF};

use crate::error::ApiError;
use crate::http::csrf;
use crate::startup::AppState;
use actix_web::dev::Payload;
use actix_web::http::Method;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use shared::EmailKey;

/// A request that carries a valid session token. For mutating methods the extractor
/// also checks the session-bound CSRF token, so no mutating handler can forget it.
#[derive(Debug, Clone)]
pub struct Session {
    pub user_id: String,
    pub session_id: String,
}

/// A signed-in user together with the verified emails the provider reports right now.
#[derive(Debug, Clone)]
pub struct VerifiedUser {
    pub session: Session,
    pub emails: Vec<EmailKey>,
}

impl VerifiedUser {
    pub fn email_strings(&self) -> Vec<String> {
        self.emails.iter().map(|e| e.as_str().to_owned()).collect()
    }
}

const MAX_TOKEN_BYTES: usize = 8 * 1024;

/// The session token from `Authorization: Bearer` or, failing that, the `__session` cookie.
fn token_from(req: &HttpRequest) -> Option<String> {
    if let Some(value) = req.headers().get(actix_web::http::header::AUTHORIZATION) {
        let value = value.to_str().ok()?;
        let token = value.strip_prefix("Bearer ")?;
        return Some(token.trim().to_owned());
    }
    req.cookie("__session").map(|c| c.value().to_owned())
}

fn is_mutating(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

async fn session_of(req: HttpRequest) -> Result<Session, ApiError> {
    let state = req.app_data::<web::Data<AppState>>().expect("AppState is registered").clone();
    let token =
        token_from(&req).filter(|t| !t.is_empty() && t.len() <= MAX_TOKEN_BYTES).ok_or(ApiError::Unauthorized)?;
    let claims = state.identity.verifier.verify(&token).await.map_err(|e| match e {
        TokenError::KeysUnavailable(why) => ApiError::IdentityUnavailable(why),
        TokenError::Invalid(_) => ApiError::Unauthorized,
    })?;
    let session = Session { user_id: claims.sub, session_id: claims.sid };
    if is_mutating(req.method()) {
        let presented = req.headers().get("x-csrf-token").and_then(|v| v.to_str().ok()).unwrap_or("");
        if !csrf::verify(&state.settings.csrf_key, &session.session_id, presented) {
            return Err(ApiError::Forbidden("csrf_rejected"));
        }
    }
    Ok(session)
}

impl FromRequest for Session {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        Box::pin(session_of(req.clone()))
    }
}

impl FromRequest for VerifiedUser {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let session = session_of(req.clone()).await?;
            let state = req.app_data::<web::Data<AppState>>().expect("AppState is registered").clone();
            let emails = state.identity.backend.verified_emails(&session.user_id).await?;
            Ok(VerifiedUser { session, emails })
        })
    }
}

/// A user the provider no longer knows is signed out (401); any other failure of the
/// lookup is the provider being unavailable (503). Every caller maps it the same way.
impl From<LookupError> for ApiError {
    fn from(e: LookupError) -> Self {
        match e {
            LookupError::UserGone => ApiError::Unauthorized,
            LookupError::Unavailable(why) => ApiError::IdentityUnavailable(why),
        }
    }
}

/// Both halves of the identity provider.
pub struct Identity {
    pub verifier: TokenVerifier,
    pub backend: BackendClient,
}

impl Identity {
    pub fn new(settings: &crate::config::Settings) -> anyhow::Result<Self> {
        let backend = BackendClient::new(&settings.clerk_api_url, &settings.clerk_secret_key)?;
        let parties = if settings.clerk_authorized_parties.is_empty() {
            settings.app_origins.clone()
        } else {
            settings.clerk_authorized_parties.clone()
        };
        let verifier = TokenVerifier::new(settings.clerk_jwt_key.as_deref(), backend.clone(), parties)?;
        Ok(Identity { verifier, backend })
    }
}

/// Whether a string has the shape of a Clerk user id (used by the CLI before any lookup).
pub fn backend_user_id_ok(id: &str) -> bool {
    backend::is_plausible_user_id(id)
}
