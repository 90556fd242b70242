//! `GET|PUT /api/owner/programs/{id}/content`: the program's private early-access text.
//! Policy: 1–20 000 characters of plain text (clients render it escaped); writes name
//! the revision they replace (0 for the first), stale ones are 409 `stale_revision`;
//! the `content_updated` event records the new revision only, never the body.

use super::guard;
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::{self, content, locks, locks::Strength};
use crate::error::{ApiError, Result};
use crate::identity::Session;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::{Content, PutContentRequest};
use shared::ErrorCode;
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/programs/{id}/content", web::get().to(get))
        .route("/owner/programs/{id}/content", web::put().to(put));
}

const MAX_BODY_CHARS: usize = 20_000;

/// 404 until the first write.
#[utoipa::path(
    get,
    path = "/api/owner/programs/{id}/content",
    operation_id = "getContent",
    tag = "owner",
    params(("id" = Uuid, Path, description = "The program id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The program's private content.", body = Content),
        (status = 404, description = "No content yet, or no such program for this owner.", body = shared::ErrorBody),
    )
)]
async fn get(state: web::Data<AppState>, session: Session, path: web::Path<Uuid>) -> Result<HttpResponse> {
    let program_id = path.into_inner();
    let row = db::transaction(&state.pool, async |tx| {
        guard::program(tx, &session, program_id, Strength::Share).await?;
        content::get(tx, program_id).await?.ok_or(ApiError::NotFound)
    })
    .await?;
    Ok(HttpResponse::Ok().json(Content::from(row)))
}

#[utoipa::path(
    put,
    path = "/api/owner/programs/{id}/content",
    operation_id = "putContent",
    tag = "owner",
    request_body = PutContentRequest,
    params(("id" = Uuid, Path, description = "The program id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The new revision.", body = Content),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "Stale revision (`stale_revision`).", body = shared::ErrorBody),
    )
)]
async fn put(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<Uuid>,
    body: web::Json<PutContentRequest>,
) -> Result<HttpResponse> {
    let program_id = path.into_inner();
    let chars = body.body.chars().count();
    if chars == 0 || chars > MAX_BODY_CHARS {
        return Err(ApiError::BadRequest(ErrorCode::InvalidContentBody));
    }
    if body.expected_revision < 0 {
        return Err(ApiError::BadRequest(ErrorCode::InvalidRevision));
    }
    let row = db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let now = locks::now(tx).await?;
        let row = content::put(tx, program.id, body.expected_revision, &body.body, now).await?;
        let details = [("revision", Detail::Number(row.revision))];
        audit::record(tx, program.id, None, Actor::Owner(owner.staff_id), EventType::ContentUpdated, now, &details)
            .await?;
        Ok(row)
    })
    .await?;
    Ok(HttpResponse::Ok().json(Content::from(row)))
}
