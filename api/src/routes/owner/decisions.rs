//! The owner's decisions on entries: `POST …/entries/{entryId}/select | decline |
//! withdraw` and `POST …/entries/select-bulk` and `POST …/entries/decline-flagged` (`usecases::decisions`). Reason codes and
//! bases come from the fixed allow-lists in `shared::api`; anything else is 400 before
//! any lock.

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::routes::input::allowed;
use crate::state::AppState;
use crate::usecases::decisions;
use actix_web::{post, web, HttpResponse};
use shared::api::{
    BulkSelectRequest, BulkSelectResponse, DeclineFlaggedRequest, DeclineFlaggedResponse, DeclineRequest,
    EntryStateResponse, OwnerWithdrawRequest, SelectRequest, BULK_SELECT_MAX, DECLINE_FLAGGED_MAX, DECLINE_REASONS,
    SELECT_REASONS, WITHDRAW_BASES,
};
use shared::{EntryState, ErrorCode};
use uuid::Uuid;

fn answer(id: Uuid, state: EntryState) -> HttpResponse {
    HttpResponse::Ok().json(EntryStateResponse { id, state })
}

#[utoipa::path(operation_id = "selectEntry", request_body = SelectRequest, responses(
    (status = 200, description = "Selected.", body = EntryStateResponse),
    (status = 409, description = "The entry is not waiting (`invalid_transition`)."),
))]
#[post("/owner/programs/{id}/entries/{entryId}/select")]
async fn select(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<SelectRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let reason = allowed(SELECT_REASONS, &body.reason_code, ErrorCode::InvalidReasonCode)?;
    decisions::select(&state.pool, &session.user_id, (program_id, entry_id), reason).await?;
    Ok(answer(entry_id, EntryState::Selected))
}

#[utoipa::path(operation_id = "declineEntry", request_body = DeclineRequest, responses(
    (status = 200, description = "Declined.", body = EntryStateResponse),
    (status = 409, description = "The entry cannot be declined now (`invalid_transition`)."),
))]
#[post("/owner/programs/{id}/entries/{entryId}/decline")]
async fn decline(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<DeclineRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let reason = allowed(DECLINE_REASONS, &body.reason_code, ErrorCode::InvalidReasonCode)?;
    decisions::decline(&state.pool, &session.user_id, (program_id, entry_id), reason).await?;
    Ok(answer(entry_id, EntryState::Declined))
}

/// Repeating it answers the same, without a second event (as for the applicant).
#[utoipa::path(operation_id = "withdrawEntry", request_body = OwnerWithdrawRequest, responses(
    (status = 200, description = "Withdrawn (repeating it answers the same).", body = EntryStateResponse),
    (status = 409, description = "The entry cannot be withdrawn (`invalid_transition`)."),
))]
#[post("/owner/programs/{id}/entries/{entryId}/withdraw")]
async fn withdraw(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<OwnerWithdrawRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let basis = allowed(WITHDRAW_BASES, &body.basis, ErrorCode::InvalidBasis)?;
    decisions::withdraw(&state.pool, &session.user_id, (program_id, entry_id), basis).await?;
    Ok(answer(entry_id, EntryState::Withdrawn))
}

/// Selects the first `count` waiting entries in queue order, in one transaction.
#[utoipa::path(operation_id = "selectEntries", request_body = BulkSelectRequest, responses(
    (status = 200, description = "The entries now selected, in queue order.", body = BulkSelectResponse),
))]
#[post("/owner/programs/{id}/entries/select-bulk")]
async fn select_bulk(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<BulkSelectRequest>,
) -> Result<HttpResponse> {
    if !(1..=BULK_SELECT_MAX).contains(&body.count) {
        return Err(ApiError::BadRequest(ErrorCode::InvalidCount));
    }
    let reason = allowed(SELECT_REASONS, &body.reason_code, ErrorCode::InvalidReasonCode)?;
    let count = i64::from(body.count);
    let selected = decisions::select_first_waiting(&state.pool, &session.user_id, *id, count, reason).await?;
    Ok(HttpResponse::Ok().json(BulkSelectResponse { selected }))
}

/// Declines the first `count` waiting entries with the flag, in queue order, in one
/// transaction (issue 15: fakes are flagged at admission, the owner decides).
#[utoipa::path(operation_id = "declineFlaggedEntries", request_body = DeclineFlaggedRequest, responses(
    (status = 200, description = "The entries now declined, in queue order.", body = DeclineFlaggedResponse),
))]
#[post("/owner/programs/{id}/entries/decline-flagged")]
async fn decline_flagged(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<DeclineFlaggedRequest>,
) -> Result<HttpResponse> {
    if !(1..=DECLINE_FLAGGED_MAX).contains(&body.count) {
        return Err(ApiError::BadRequest(ErrorCode::InvalidCount));
    }
    let reason = allowed(DECLINE_REASONS, &body.reason_code, ErrorCode::InvalidReasonCode)?;
    let count = i64::from(body.count);
    let declined =
        decisions::decline_first_flagged(&state.pool, &session.user_id, *id, body.flag, count, reason).await?;
    Ok(HttpResponse::Ok().json(DeclineFlaggedResponse { declined }))
}
