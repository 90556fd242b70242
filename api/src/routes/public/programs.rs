//! `GET /api/public/programs/{slug}`: the signup form's notice (`usecases::public`).
//! Policy: only a program of an active workspace with a published notice exists
//! publicly; anything else is the same 404. The answer names the program (slug, title,
//! description) and its current notice, nothing else.

use crate::http::error::Result;
use crate::routes::views;
use crate::state::AppState;
use crate::usecases::public;
use actix_web::{get, web, HttpResponse};
use shared::api::PublicProgram;
use shared::Slug;

#[utoipa::path(operation_id = "getPublicProgram", responses(
    (status = 200, description = "The program and its current notice.", body = PublicProgram),
    (status = 404, description = "Unknown slug, inactive workspace or no notice published."),
))]
#[get("/public/programs/{slug}")]
async fn read(state: web::Data<AppState>, slug: web::Path<Slug>) -> Result<HttpResponse> {
    let p = public::program(&state.pool, &slug).await?;
    Ok(HttpResponse::Ok().json(views::public_program(&slug, p)))
}
