//! `GET /api/me/waitlist/{slug}` and `POST /api/me/waitlist/{slug}/withdraw`: the
//! signed-in applicant's own entry in one program (`usecases::recipient`).

use crate::http::error::Result;
use crate::identity::VerifiedUser;
use crate::routes::views;
use crate::state::AppState;
use crate::usecases::recipient;
use actix_web::{get, post, web, HttpResponse};
use shared::api::{OwnWaitlistStatus, WithdrawResponse};
use shared::{EntryState, Slug};

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
