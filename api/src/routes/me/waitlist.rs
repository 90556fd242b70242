//! `GET /api/me/waitlist/{slug}` and `POST /api/me/waitlist/{slug}/withdraw`: the
//! signed-in applicant's own entry in one program (`usecases::recipient`); and
//! `POST /api/me/waitlist/{slug}/join` (issue 31): joining with one of the account's
//! currently verified addresses — the public admission (`usecases::admission`) with the
//! address vouched for, which the entry records. Programs with `joinWith: "account"`
//! take only this; the others take it too (a verified address is never worse).

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::VerifiedUser;
use crate::routes::views;
use crate::state::AppState;
use crate::usecases::admission::{self, NewSignup};
use crate::usecases::metering::Meter;
use crate::usecases::recipient;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use shared::api::{OwnWaitlistStatus, SignupRequest, SignupResponse, WithdrawResponse};
use shared::{EmailKey, EntryState, ErrorCode, Slug, SourceRef};

#[utoipa::path(operation_id = "getOwnWaitlistStatus", responses(
    (status = 200, description = "The caller's entry in the program.", body = OwnWaitlistStatus),
    (status = 404, description = "No such program, or no entry for any of the caller's verified emails."),
))]
#[get("/me/waitlist/{slug}")]
async fn status(state: web::Data<AppState>, user: VerifiedUser, slug: web::Path<Slug>) -> Result<HttpResponse> {
    let entry = recipient::status(&state.pool, &user, slug.as_str()).await?;
    Ok(HttpResponse::Ok().json(views::own_status(entry)))
}

#[utoipa::path(operation_id = "withdrawOwnEntry", responses(
    (status = 200, description = "Withdrawn (repeating it answers the same).", body = WithdrawResponse),
    (status = 404, description = "No such program, or no entry for any of the caller's verified emails."),
    (status = 409, description = "The entry can no longer be withdrawn (`invalid_transition`)."),
))]
#[post("/me/waitlist/{slug}/withdraw")]
async fn withdraw(state: web::Data<AppState>, user: VerifiedUser, slug: web::Path<Slug>) -> Result<HttpResponse> {
    recipient::withdraw(&state.pool, &user, slug.as_str()).await?;
    Ok(HttpResponse::Ok().json(WithdrawResponse { state: EntryState::Withdrawn }))
}

impl AccountJoin {
    /// The body (the public form's) as a signup: the address must be one of the account's
    /// verified ones, looked up fresh for this request (SPEC §3.2); anything else is
    /// refused before anything is read. `altcha` is ignored: no proof of work is asked.
    fn signup(self, user: &VerifiedUser) -> Result<NewSignup> {
        let body = self.0;
        let email = EmailKey::parse(&body.email).map_err(|_| ApiError::BadRequest(ErrorCode::InvalidEmail))?;
        if !user.emails.contains(&email) {
            return Err(ApiError::BadRequest(ErrorCode::EmailNotVerified));
        }
        Ok(NewSignup {
            request_key: body.request_key,
            email,
            notice_version: body.notice_version,
            permission: body.permission,
            source: body.source.as_deref().and_then(SourceRef::parse),
            altcha: None,
            answers: body.answers,
            verified: true,
        })
    }
}

struct AccountJoin(SignupRequest);

#[utoipa::path(operation_id = "joinWithAccount", request_body = SignupRequest, responses(
    (status = 202, description = "Received: the public signup's answer, for an address the account has verified; the entry records that it was verified at join. Same notice, caps and request-key binding (answers included) as the public form; no proof of work.", body = SignupResponse),
    (status = 400, description = "A bad email, an address the account has not verified (`email_not_verified`), or a bad answer (`invalid_answer`, naming the question). Nothing is written."),
    (status = 401, description = "Signed out."),
    (status = 404, description = "Unknown slug, inactive workspace or no notice published."),
    (status = 409, description = "The key is bound to other fields, or the form is closed, the notice outdated or `permission` not `true`."),
    (status = 429, description = "A queue or hourly cap is reached, or too many new attempts from this address.", headers(("Retry-After" = u32, description = "Seconds to wait."))),
    (status = 503, description = "The identity provider is unavailable."),
))]
#[post("/me/waitlist/{slug}/join")]
async fn join(
    state: web::Data<AppState>,
    req: HttpRequest,
    user: VerifiedUser,
    slug: web::Path<Slug>,
    body: web::Json<SignupRequest>,
) -> Result<HttpResponse> {
    let signup = AccountJoin(body.into_inner()).signup(&user)?;
    // The same address counter as the public form, so the same RateLimit fields.
    let meter = Meter::default();
    let gate = crate::routes::signup_gate(&state, &req, &meter);
    admission::sign_up(&state.pool, &state.admitter, gate, slug.as_str(), &signup).await?;
    Ok(HttpResponse::Accepted().json(SignupResponse { status: "received".to_owned() }))
}
