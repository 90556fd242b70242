//! `GET /api/me/entries`: the signed-in applicant's own entries across programs.

use crate::http::error::Result;
use crate::identity::VerifiedUser;
use crate::routes::views;
use crate::state::AppState;
use crate::usecases::recipient;
use actix_web::{get, web, HttpResponse};
use shared::api::OwnEntry;

#[utoipa::path(operation_id = "listOwnEntries", responses(
    (status = 200, description = "The caller's entries across programs, found through their verified emails.", body = Vec<OwnEntry>),
))]
#[get("/me/entries")]
async fn list(state: web::Data<AppState>, user: VerifiedUser) -> Result<HttpResponse> {
    let own = recipient::entries(&state.pool, &user).await?;
    Ok(HttpResponse::Ok().json(own.into_iter().map(views::own_entry).collect::<Vec<_>>()))
}
