//! `POST /api/public/programs/{slug}/signups` (SPEC §6.2): the body becomes a
//! [`NewSignup`] at the edge (nothing is written for a bad one); the admission is
//! `usecases::admission`. Every accepted outcome is the same `202 {"status":"received"}`.

use crate::http::error::Result;
use crate::http::ApiError;
use crate::state::AppState;
use crate::usecases::admission::{self, NewSignup};
use crate::usecases::metering::Meter;
use actix_web::{post, web, HttpRequest, HttpResponse};
use shared::api::{SignupRequest, SignupResponse};
use shared::{EmailKey, ErrorCode, Slug, SourceRef};

impl TryFrom<SignupRequest> for NewSignup {
    type Error = ApiError;

    fn try_from(body: SignupRequest) -> Result<Self> {
        Ok(NewSignup {
            request_key: body.request_key,
            email: EmailKey::parse(&body.email).map_err(|_| ApiError::BadRequest(ErrorCode::InvalidEmail))?,
            notice_version: body.notice_version,
            permission: body.permission,
            // A source outside the grammar is dropped, never refused (issue 15).
            source: body.source.as_deref().and_then(SourceRef::parse),
            altcha: body.altcha,
            answers: body.answers,
            verified: false,
        })
    }
}

#[utoipa::path(operation_id = "signUp", request_body = SignupRequest, responses(
    (status = 202, description = "Received: the same answer for a new email, a known one and a replayed key.", body = SignupResponse),
    (status = 400, description = "A bad email; an answer missing, too long, not one of the choices or for no question of the notice (`invalid_answer`, with `question` naming it); or a missing, wrong, expired or reused proof-of-work solution (`challenge_failed`) for a new request key. Nothing is written."),
    (status = 404, description = "Unknown slug, inactive workspace or no notice published (as its `GET`)."),
    (status = 409, description = "The key is bound to other fields (the answers included), or the form is closed, the notice outdated or `permission` not `true`, or the program asks applicants to join signed in (`account_required`: `POST /api/me/waitlist/{slug}/join`)."),
    (status = 429, description = "A queue or hourly cap is reached, or too many new attempts from this address.", headers(("Retry-After" = u32, description = "Seconds to wait."))),
))]
#[post("/public/programs/{slug}/signups")]
async fn signup(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<SignupRequest>,
    slug: web::Path<Slug>,
) -> Result<HttpResponse> {
    let signup = NewSignup::try_from(body.into_inner())?;
    let meter = Meter::default();
    let gate = crate::routes::signup_gate(&state, &req, &meter);
    admission::sign_up(&state.pool, &state.admitter, gate, slug.as_str(), &signup).await?;
    Ok(HttpResponse::Accepted().json(SignupResponse { status: "received".to_owned() }))
}
