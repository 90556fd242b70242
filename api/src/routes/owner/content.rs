//! `GET|PUT /api/owner/programs/{id}/content`: the program's private early-access text,
//! 1–20 000 characters of plain text (clients render it escaped); writes name the
//! revision they replace (0 for the first).

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::routes::views;
use crate::state::AppState;
use crate::usecases::programs;
use actix_web::{get, put, web, HttpResponse};
use shared::api::{Content, PutContentRequest};
use shared::ErrorCode;
use uuid::Uuid;

const MAX_BODY_CHARS: usize = 20_000;

/// 404 until the first write.
#[utoipa::path(operation_id = "getContent", responses(
    (status = 200, description = "The program's private content.", body = Content),
    (status = 404, description = "No content yet, or no such program for this owner."),
))]
#[get("/owner/programs/{id}/content")]
async fn get(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let row = programs::content(&state.pool, &session.user_id, *id).await?;
    Ok(HttpResponse::Ok().json(views::content(row)))
}

#[utoipa::path(operation_id = "putContent", request_body = PutContentRequest, responses(
    (status = 200, description = "The new revision.", body = Content),
    (status = 409, description = "Stale revision (`stale_revision`)."),
))]
#[put("/owner/programs/{id}/content")]
async fn put(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<PutContentRequest>,
) -> Result<HttpResponse> {
    // 1–20 000 characters (SPEC §6.4), several lines, no other control character.
    let chars = body.body.chars().count();
    let lines = shared::text::Lines::Many;
    if chars == 0 || chars > MAX_BODY_CHARS || !body.body.chars().all(|c| shared::text::allowed_char(c, lines)) {
        return Err(ApiError::BadRequest(ErrorCode::InvalidContentBody));
    }
    if body.expected_revision < 0 {
        return Err(ApiError::BadRequest(ErrorCode::InvalidRevision));
    }
    let row = programs::put_content(&state.pool, &session.user_id, *id, body.expected_revision, &body.body).await?;
    Ok(HttpResponse::Ok().json(views::content(row)))
}
