//! `GET /api/public/programs/{slug}/challenge`: a fresh proof-of-work challenge for the
//! program's signup form, in ALTCHA's format (`crate::pow`). Policy: the same 404 as the
//! public program read for an unknown or unpublished program, and for one whose proof
//! of work is off (nothing to solve); nothing is stored — the challenge is signed
//! (`usecases::public::challenge`).

use crate::http::client_addr::client_addr;
use crate::http::error::Result;
use crate::state::AppState;
use crate::usecases::metering::Meter;
use crate::usecases::public::{self, Asker};
use actix_web::{get, web, HttpMessage, HttpRequest, HttpResponse};
use shared::api::Challenge;
use shared::Slug;

#[utoipa::path(operation_id = "getSignupChallenge", responses(
    (status = 200, description = "An ALTCHA-compatible challenge (HMAC-signed, salted, expiring in 10 minutes); its solution goes in the signup body's `altcha`.", body = Challenge),
    (status = 404, description = "Unknown slug, no notice published, or proof of work off."),
    (status = 429, description = "Too many challenges from this address (4 times `SIGNUP_RATE_PER_MINUTE` a minute).", headers(("Retry-After" = u32, description = "Seconds to wait."))),
))]
#[get("/public/programs/{slug}/challenge")]
async fn challenge(state: web::Data<AppState>, req: HttpRequest, slug: web::Path<Slug>) -> Result<HttpResponse> {
    let now = chrono::Utc::now().timestamp();
    let meter = Meter::default();
    req.extensions_mut().insert(meter.clone());
    let asker = Asker {
        key: &state.settings.hmac_key,
        signup_per_minute: state.settings.signup_rate_per_minute,
        client: client_addr(&req, &state.settings.trusted_proxies),
        meter: &meter,
        hits: &state.hits,
    };
    let challenge = public::challenge(&state.pool, asker, &slug, now).await?;
    Ok(HttpResponse::Ok().json(challenge))
}
