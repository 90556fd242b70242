//! `POST /api/owner/programs/{id}/notices`: publish the next notice version.

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::routes::input::bounded_lines;
use crate::routes::views;
use crate::state::AppState;
use crate::usecases::programs::{self, NewNotice};
use actix_web::{post, web, HttpResponse};
use shared::api::PublishNoticeRequest;
use shared::ErrorCode;
use uuid::Uuid;

impl TryFrom<PublishNoticeRequest> for NewNotice {
    type Error = ApiError;

    fn try_from(body: PublishNoticeRequest) -> Result<Self> {
        Ok(NewNotice {
            purpose: bounded_lines(body.purpose, 1000, ErrorCode::InvalidPurpose)?,
            contact_text: bounded_lines(body.contact_text, 2000, ErrorCode::InvalidContactText)?,
            retention_text: bounded_lines(body.retention_text, 1000, ErrorCode::InvalidRetentionText)?,
            questions: {
                shared::questions::check_questions(&body.questions)
                    .map_err(|_| ApiError::BadRequest(ErrorCode::InvalidQuestions))?;
                body.questions
            },
        })
    }
}

#[utoipa::path(operation_id = "publishNotice", request_body = PublishNoticeRequest, responses(
    (status = 201, description = "The new notice version, with its questions.", body = shared::api::Notice),
    (status = 400, description = "A text out of bounds, or questions that break the rules (`invalid_questions`: more than 10, a bad or repeated id, a label, choices or `maxLength` wrong for the kind)."),
    (status = 409, description = "The purpose differs from the program's (`purpose_mismatch`)."),
))]
#[post("/owner/programs/{id}/notices")]
async fn publish(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<PublishNoticeRequest>,
) -> Result<HttpResponse> {
    let notice = NewNotice::try_from(body.into_inner())?;
    let published = programs::publish_notice(&state.pool, &session.user_id, *id, &notice).await?;
    Ok(HttpResponse::Created().json(views::notice(&published)))
}
