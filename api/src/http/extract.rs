//! Who is calling, as request extractors: [`Session`] (a verified session token, and on
//! mutating requests the session-bound CSRF token, so no mutating handler can forget it)
//! and [`VerifiedUser`] (the session plus the verified emails the identity provider
//! reports right now, looked up before the handler runs, so before any transaction).

use super::csrf;
use super::error::ApiError;
use crate::identity::{Session, TokenError, VerifiedUser};
use crate::state::AppState;
use actix_web::dev::Payload;
use actix_web::http::Method;
use actix_web::{web, FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use shared::ErrorCode;

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

pub(super) fn is_mutating(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn state_of(req: &HttpRequest) -> web::Data<AppState> {
    req.app_data::<web::Data<AppState>>().expect("AppState is registered").clone()
}

async fn session_of(req: HttpRequest) -> Result<Session, ApiError> {
    let state = state_of(&req);
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
            return Err(ApiError::Forbidden(ErrorCode::CsrfRejected));
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
            let emails = state_of(&req).identity.backend.verified_emails(&session.user_id).await?;
            Ok(VerifiedUser { session, emails })
        })
    }
}
