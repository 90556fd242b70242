//! `POST /api/owner/programs/{id}/notices`: publish the next notice version. Policy:
//! notices are append-only and numbered 1, 2, 3… under the program's `FOR UPDATE` lock;
//! a notice's purpose must be the program's own (a new purpose needs a new program).

use super::guard;
use super::programs::{bounded_text, notice_body};
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::locks::{self, Strength};
use crate::db::programs::{self, NewNotice};
use crate::db::{self};
use crate::error::{ApiError, Result};
use crate::identity::Session;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::PublishNoticeRequest;
use shared::ErrorCode;
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/programs/{id}/notices", web::post().to(publish));
}

impl TryFrom<PublishNoticeRequest> for NewNotice {
    type Error = ApiError;

    fn try_from(body: PublishNoticeRequest) -> Result<Self> {
        Ok(NewNotice {
            purpose: bounded_text(body.purpose, 1000, ErrorCode::InvalidPurpose)?,
            contact_text: bounded_text(body.contact_text, 2000, ErrorCode::InvalidContactText)?,
            retention_text: bounded_text(body.retention_text, 1000, ErrorCode::InvalidRetentionText)?,
        })
    }
}

#[utoipa::path(
    post,
    path = "/api/owner/programs/{id}/notices",
    operation_id = "publishNotice",
    tag = "owner",
    request_body = PublishNoticeRequest,
    params(("id" = Uuid, Path, description = "The program id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 201, description = "The new notice version.", body = shared::api::Notice),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "The purpose differs from the program's (`purpose_mismatch`).", body = shared::ErrorBody),
    )
)]
async fn publish(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<Uuid>,
    body: web::Json<PublishNoticeRequest>,
) -> Result<HttpResponse> {
    let id = path.into_inner();
    let notice = NewNotice::try_from(body.into_inner())?;
    let published = db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, id, Strength::Update).await?;
        if notice.purpose != program.purpose {
            return Err(ApiError::Conflict(ErrorCode::PurposeMismatch));
        }
        let now = locks::now(tx).await?;
        let row = programs::publish_notice(tx, &program, &notice, now).await?;
        let details = [("noticeId", Detail::Id(row.id)), ("version", Detail::Number(i64::from(row.version)))];
        audit::record(tx, id, None, Actor::Owner(owner.staff_id), EventType::NoticePublished, now, &details).await?;
        Ok(row)
    })
    .await?;
    Ok(HttpResponse::Created().json(notice_body(&published)))
}
