//! `GET /api/public/programs/{slug}/challenge`: a fresh proof-of-work challenge for the
//! program's signup form, in ALTCHA's format (`crate::pow`). Policy: the same 404 as the
//! public program read for an unknown or unpublished program, and for one whose proof
//! of work is off (nothing to solve); nothing is stored — the challenge is signed
//! (`usecases::public::challenge`).

use crate::http::error::Result;
use crate::state::AppState;
use crate::usecases::public;
use actix_web::{get, web, HttpResponse};
use shared::api::Challenge;
use shared::Slug;

#[utoipa::path(operation_id = "getSignupChallenge", responses(
    (status = 200, description = "An ALTCHA-compatible challenge (HMAC-signed, salted, expiring in 10 minutes); its solution goes in the signup body's `altcha`.", body = Challenge),
    (status = 404, description = "Unknown slug, no notice published, or proof of work off."),
))]
#[get("/public/programs/{slug}/challenge")]
async fn challenge(state: web::Data<AppState>, slug: web::Path<Slug>) -> Result<HttpResponse> {
    let now = chrono::Utc::now().timestamp();
    let challenge = public::challenge(&state.pool, &state.settings.hmac_key, &slug, now).await?;
    Ok(HttpResponse::Ok().json(challenge))
}
