//! Draws on public randomness, published (issue 29): `GET /api/public/programs/{slug}/draws`
//! lists a public program's draws — opened at, rule, winners, close, beacon round and its
//! time, after the close the tickets hash, after the run the time — and
//! `GET …/draws/{drawId}` is the full record (format 3), which anyone can recompute with
//! `tools/verify_draw.py` or `vestibule verify-draw`. No session; tickets name no one.
//! Draws opened before V110 (a server seed) were never public and are not listed.

use crate::http::error::Result;
use crate::state::AppState;
use crate::usecases::draws;
use actix_web::{get, web, HttpResponse};
use shared::draws::{BeaconDrawRecord, PublicDraw};
use shared::Slug;
use uuid::Uuid;

#[utoipa::path(operation_id = "listPublicDraws", responses(
    (status = 200, description = "The program's draws on public randomness, newest first.", body = Vec<PublicDraw>),
    (status = 404, description = "Unknown slug, inactive workspace or no notice published."),
))]
#[get("/public/programs/{slug}/draws")]
async fn list(state: web::Data<AppState>, slug: web::Path<Slug>) -> Result<HttpResponse> {
    Ok(HttpResponse::Ok().json(draws::public_list(&state.pool, slug.as_str()).await?))
}

#[utoipa::path(operation_id = "getPublicDraw", responses(
    (status = 200, description = "The draw's record (format `vestibule-draw/3`).", body = BeaconDrawRecord),
    (status = 404, description = "No such public program, or no such draw on public randomness in it."),
))]
#[get("/public/programs/{slug}/draws/{drawId}")]
async fn get(state: web::Data<AppState>, path: web::Path<(Slug, Uuid)>) -> Result<HttpResponse> {
    let (slug, draw_id) = path.into_inner();
    Ok(HttpResponse::Ok().json(draws::public_record(&state.pool, slug.as_str(), draw_id).await?))
}
