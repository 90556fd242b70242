//! `POST|GET /api/owner/programs/{id}/cohort-codes` and `GET|DELETE
//! /api/owner/programs/{id}/cohort-codes/{codeId}` (`usecases::cohorts`): multi-use codes
//! for a group. A code leaves the server once, in the 201 built here after COMMIT —
//! never in a list, a log line, an event or an error.

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::routes::input::{bounded_lines, bounded_text};
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::cohorts::{self, CohortCodeRow, CohortCodeSpec, CohortCodeView};
use actix_web::{delete, get, post, web, HttpResponse};
use chrono::{DateTime, Duration, DurationRound, Utc};
use shared::cohort::{self as wire, CohortCode, CreateCohortCodeRequest, CreatedCohortCode};
use shared::ErrorCode;
use uuid::Uuid;

impl TryFrom<CreateCohortCodeRequest> for CohortCodeSpec {
    type Error = ApiError;

    fn try_from(body: CreateCohortCodeRequest) -> Result<Self> {
        let bad_expiry = || ApiError::BadRequest(ErrorCode::InvalidExpiry);
        let at = DateTime::parse_from_rfc3339(&body.expires_at).map_err(|_| bad_expiry())?.with_timezone(&Utc);
        let expires_at: DateTime<Utc> = at.duration_trunc(Duration::microseconds(1)).map_err(|_| bad_expiry())?;
        if !(1..=wire::MAX_USES).contains(&body.max_uses) {
            return Err(ApiError::BadRequest(ErrorCode::InvalidMaxUses));
        }
        let label = bounded_text(body.label, wire::LABEL_MAX_CHARS, ErrorCode::InvalidLabel)?;
        let note = body.note.map(|n| bounded_lines(n, wire::NOTE_MAX_CHARS, ErrorCode::InvalidNote)).transpose()?;
        Ok(CohortCodeSpec { label, note, max_uses: body.max_uses, expires_at })
    }
}

fn view((row, state): &CohortCodeView) -> CohortCode {
    let CohortCodeRow { id, label, note, max_uses, uses, created_at, expires_at, revoked_at, .. } = row;
    CohortCode {
        id: *id,
        label: label.clone(),
        note: note.clone(),
        max_uses: *max_uses,
        uses: *uses,
        state: *state,
        created_at: rfc3339(*created_at),
        expires_at: rfc3339(*expires_at),
        revoked_at: revoked_at.map(rfc3339),
    }
}

#[utoipa::path(operation_id = "createCohortCode", request_body = CreateCohortCodeRequest, responses(
    (status = 201, description = "Created: the only response that ever holds the code.", body = CreatedCohortCode),
    (status = 409, description = "The expiry is not in the future within the program's `maxInviteDays` (`expiry_out_of_range`)."),
))]
#[post("/owner/programs/{id}/cohort-codes")]
async fn create(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<CreateCohortCodeRequest>,
) -> Result<HttpResponse> {
    let spec = CohortCodeSpec::try_from(body.into_inner())?;
    let (created, code) = cohorts::create(&state.pool, &session.user_id, *id, &spec).await?;
    // Committed: only now may the code leave, and only in this response.
    Ok(HttpResponse::Created().json(CreatedCohortCode { cohort_code: view(&created), code: code.reveal() }))
}

#[utoipa::path(operation_id = "listCohortCodes", responses(
    (status = 200, description = "The program's cohort codes with their uses, newest first (never a code).", body = Vec<CohortCode>),
))]
#[get("/owner/programs/{id}/cohort-codes")]
async fn list(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let codes = cohorts::list(&state.pool, &session.user_id, *id).await?;
    Ok(HttpResponse::Ok().json(codes.iter().map(view).collect::<Vec<_>>()))
}

#[utoipa::path(operation_id = "getCohortCode", responses(
    (status = 200, description = "One cohort code with its uses (never the code).", body = CohortCode),
))]
#[get("/owner/programs/{id}/cohort-codes/{codeId}")]
async fn read(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    let (program, code) = path.into_inner();
    let found = cohorts::get(&state.pool, &session.user_id, program, code).await?;
    Ok(HttpResponse::Ok().json(view(&found)))
}

/// Stops further uses; grants already made stay. Repeating it answers the same.
#[utoipa::path(operation_id = "revokeCohortCode", responses(
    (status = 200, description = "The code, revoked.", body = CohortCode),
))]
#[delete("/owner/programs/{id}/cohort-codes/{codeId}")]
async fn revoke(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    let (program, code) = path.into_inner();
    let revoked = cohorts::revoke(&state.pool, &session.user_id, program, code).await?;
    Ok(HttpResponse::Ok().json(view(&revoked)))
}
