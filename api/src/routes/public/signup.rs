//! `POST /api/public/programs/{slug}/signups` (SPEC §6.2). Policy: the body becomes a
//! [`NewSignup`] at the edge (nothing is written for a bad one); the admission itself is
//! one transaction in [`crate::db::signups::admit`]. Every accepted outcome — new entry,
//! known email, replayed key — is the same `202 {"status":"received"}`, and every cap is
//! the same 429, so no answer tells whether an email is on the list.
//!
//! Rate control: before the transaction, a key without a committed receipt counts one
//! hit for the client address (an HMAC of it, never the address) in a one-minute window
//! shared through PostgreSQL by every API instance; over `SIGNUP_RATE_PER_MINUTE` → 429.
//! Replays of committed keys are not counted, so a client retrying after a lost answer
//! always gets its 202. The client address is the socket peer; `X-Forwarded-For` is
//! believed only from a peer listed in `TRUSTED_PROXIES`, and then the rightmost hop
//! that is not itself a trusted proxy is the client ([`crate::http::client_addr`]).

use crate::db::rate_limits::{self, Scope};
use crate::db::signups::{self, Admission, NewSignup, Target};
use crate::db::{self};
use crate::error::{ApiError, Result};
use crate::http::client_addr::client_addr;
use crate::metrics;
use crate::startup::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use shared::api::{SignupRequest, SignupResponse};
use shared::ErrorCode;
use shared::{EmailKey, Slug};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/public/programs/{slug}/signups", web::post().to(signup));
}

impl TryFrom<SignupRequest> for NewSignup {
    type Error = ApiError;

    fn try_from(body: SignupRequest) -> Result<Self> {
        Ok(NewSignup {
            request_key: body.request_key,
            email: EmailKey::parse(&body.email).map_err(|_| ApiError::BadRequest(ErrorCode::InvalidEmail))?,
            notice_version: body.notice_version,
            permission: body.permission,
        })
    }
}

const RATE_WINDOW_SECS: i32 = 60;

#[utoipa::path(
    post,
    path = "/api/public/programs/{slug}/signups",
    operation_id = "signUp",
    tag = "public",
    request_body = SignupRequest,
    params(("slug" = String, Path, description = "The program's public slug.", pattern = r"^[a-z0-9-]{3,60}$")),
    responses(
        (status = 202, description = "Received: the same answer for a new email, a known one and a replayed key.", body = SignupResponse),
        (status = 404, description = "Unknown slug or no notice published.", body = shared::ErrorBody),
        (status = 409, description = "The key is bound to other fields, or the form is closed, the notice outdated or `permission` not `true`.", body = shared::ErrorBody),
        (status = 429, description = "A queue or hourly cap is reached, or too many new attempts from this address.", body = shared::ErrorBody, headers(("Retry-After" = u32, description = "Seconds to wait."))),
    )
)]
async fn signup(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<SignupRequest>,
) -> Result<HttpResponse> {
    let signup = NewSignup::try_from(body.into_inner())?;
    let slug = Slug::parse(&path.into_inner()).map_err(|_| ApiError::NotFound)?;
    let (target, committed) = {
        let client = state.pool.get().await?;
        signups::resolve(&client, slug.as_str(), signup.request_key).await?.ok_or(ApiError::NotFound)?
    };
    if !committed && !within_rate(&state, &req).await? {
        metrics::count("admission", "rate_limited");
        return Err(ApiError::TooManyRequests);
    }
    let binding = signup.binding(&state.settings.signup_binding_key, target.program_id);
    let outcome = match admit(&state, target, &signup, &binding).await {
        // A writer slipped a row past the locks: decide once more, now seeing it.
        Err(ApiError::Raced) => admit(&state, target, &signup, &binding).await,
        other => other,
    };
    metrics::count("admission", outcome_label(&outcome));
    match outcome {
        Ok(_) => Ok(HttpResponse::Accepted().json(SignupResponse { status: "received".to_owned() })),
        Err(ApiError::Raced) => Err(ApiError::Unavailable("signup kept racing".into())),
        Err(e) => Err(e),
    }
}

async fn admit(state: &AppState, target: Target, signup: &NewSignup, binding: &[u8]) -> Result<Admission> {
    db::transaction(&state.pool, async |tx| signups::admit(tx, target, signup, binding).await).await
}

/// Counts one new-key attempt for the client address; `false` when over the limit.
async fn within_rate(state: &AppState, req: &HttpRequest) -> Result<bool> {
    let settings = &state.settings;
    let addr = client_addr(req, &settings.trusted_proxies).map(|ip| ip.to_string()).unwrap_or_default();
    let subject = rate_limits::subject(&settings.signup_binding_key, Scope::SignupAddr, &addr);
    rate_limits::hit(&state.pool, Scope::SignupAddr, &subject, RATE_WINDOW_SECS, settings.signup_rate_per_minute).await
}

fn outcome_label(outcome: &Result<Admission>) -> &'static str {
    match outcome {
        Ok(Admission::Admitted) => "admitted",
        Ok(Admission::Duplicate) => "duplicate",
        Ok(Admission::Replay) => "replay",
        Err(ApiError::TooManyRequests) => "capped",
        Err(ApiError::Conflict(ErrorCode::RequestKeyReused)) => "key_reused",
        Err(ApiError::Conflict(_)) => "closed",
        Err(_) => "failed",
    }
}
