//! `GET /api/me/early-access/{slug}`: a program's private content, for the one user who
//! holds an active grant of *that* program (`usecases::recipient`, `db::early_access`).
//! Any failure is the same 404.

use crate::http::error::Result;
use crate::identity::VerifiedUser;
use crate::state::AppState;
use crate::usecases::recipient;
use actix_web::{get, web, HttpResponse};
use shared::api::EarlyAccessContent;
use shared::Slug;

#[utoipa::path(operation_id = "getEarlyAccessContent", responses(
    (status = 200, description = "The program's private content and its title.", body = EarlyAccessContent),
    (status = 404, description = "No active grant of this program bound to the caller, or access is off."),
))]
#[get("/me/early-access/{slug}")]
async fn early_access(state: web::Data<AppState>, user: VerifiedUser, slug: web::Path<Slug>) -> Result<HttpResponse> {
    let c = recipient::early_access(&state.pool, &user, slug.as_str()).await?;
    Ok(HttpResponse::Ok().json(EarlyAccessContent {
        slug: slug.to_string(),
        revision: c.revision,
        body: c.body,
        title: c.title,
    }))
}
