//! The owner's decisions on entries: `POST …/entries/{entryId}/select | decline |
//! withdraw` and `POST …/entries/select-bulk`. Policy: reason codes and bases come from
//! the fixed allow-lists in `shared::api` (anything else is 400 before any lock); the
//! transition is decided under workspace → program → entry locks by the entry state
//! machine (409 `invalid_transition` otherwise); each entry that changes gets exactly
//! one event. The owner-recorded withdrawal is the applicant's transition.

use super::guard;
use crate::db::audit::Actor;
use crate::db::entries::{self, Withdrawal};
use crate::db::{self, locks, locks::Strength, queue};
use crate::domain::EntryState;
use crate::error::{ApiError, Result};
use crate::identity::Session;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::{
    BulkSelectRequest, BulkSelectResponse, DeclineRequest, EntryStateResponse, OwnerWithdrawRequest, SelectRequest,
    BULK_SELECT_MAX, DECLINE_REASONS, SELECT_REASONS, WITHDRAW_BASES,
};
use shared::ErrorCode;
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/programs/{id}/entries/select-bulk", web::post().to(select_bulk))
        .route("/owner/programs/{id}/entries/{entryId}/select", web::post().to(select))
        .route("/owner/programs/{id}/entries/{entryId}/decline", web::post().to(decline))
        .route("/owner/programs/{id}/entries/{entryId}/withdraw", web::post().to(withdraw));
}

/// The allow-listed `&'static str` equal to `value`, or 400.
fn allowed(list: &'static [&'static str], value: &str, code: ErrorCode) -> Result<&'static str> {
    list.iter().copied().find(|v| *v == value).ok_or(ApiError::BadRequest(code))
}

fn answer(id: Uuid, state: EntryState) -> HttpResponse {
    HttpResponse::Ok().json(EntryStateResponse { id, state })
}

#[utoipa::path(
    post,
    path = "/api/owner/programs/{id}/entries/{entryId}/select",
    operation_id = "selectEntry",
    tag = "owner",
    request_body = SelectRequest,
    params(("id" = Uuid, Path, description = "The program id."), ("entryId" = Uuid, Path, description = "The entry id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Selected.", body = EntryStateResponse),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "The entry is not waiting (`invalid_transition`).", body = shared::ErrorBody),
    )
)]
async fn select(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<SelectRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let reason = allowed(SELECT_REASONS, &body.reason_code, ErrorCode::InvalidReasonCode)?;
    db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let from = entries::lock(tx, program.id, entry_id).await?.ok_or(ApiError::NotFound)?;
        let now = locks::now(tx).await?;
        queue::select(tx, program.id, entry_id, from, reason, Actor::Owner(owner.staff_id), now).await
    })
    .await?;
    Ok(answer(entry_id, EntryState::Selected))
}

#[utoipa::path(
    post,
    path = "/api/owner/programs/{id}/entries/{entryId}/decline",
    operation_id = "declineEntry",
    tag = "owner",
    request_body = DeclineRequest,
    params(("id" = Uuid, Path, description = "The program id."), ("entryId" = Uuid, Path, description = "The entry id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Declined.", body = EntryStateResponse),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "The entry cannot be declined now (`invalid_transition`).", body = shared::ErrorBody),
    )
)]
async fn decline(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<DeclineRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let reason = allowed(DECLINE_REASONS, &body.reason_code, ErrorCode::InvalidReasonCode)?;
    db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let from = entries::lock(tx, program.id, entry_id).await?.ok_or(ApiError::NotFound)?;
        let now = locks::now(tx).await?;
        queue::decline(tx, program.id, entry_id, from, reason, Actor::Owner(owner.staff_id), now).await
    })
    .await?;
    Ok(answer(entry_id, EntryState::Declined))
}

/// Repeating it answers the same, without a second event (as for the applicant).
#[utoipa::path(
    post,
    path = "/api/owner/programs/{id}/entries/{entryId}/withdraw",
    operation_id = "withdrawEntry",
    tag = "owner",
    request_body = OwnerWithdrawRequest,
    params(("id" = Uuid, Path, description = "The program id."), ("entryId" = Uuid, Path, description = "The entry id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Withdrawn (repeating it answers the same).", body = EntryStateResponse),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "The entry cannot be withdrawn (`invalid_transition`).", body = shared::ErrorBody),
    )
)]
async fn withdraw(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<OwnerWithdrawRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let basis = allowed(WITHDRAW_BASES, &body.basis, ErrorCode::InvalidBasis)?;
    let _: Withdrawal = db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let now = locks::now(tx).await?;
        entries::withdraw(tx, &program, entry_id, Actor::Owner(owner.staff_id), basis, now).await
    })
    .await?;
    Ok(answer(entry_id, EntryState::Withdrawn))
}

/// Selects the first `count` waiting entries in queue order, in one transaction.
#[utoipa::path(
    post,
    path = "/api/owner/programs/{id}/entries/select-bulk",
    operation_id = "selectEntries",
    tag = "owner",
    request_body = BulkSelectRequest,
    params(("id" = Uuid, Path, description = "The program id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The entries now selected, in queue order.", body = BulkSelectResponse),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
    )
)]
async fn select_bulk(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<Uuid>,
    body: web::Json<BulkSelectRequest>,
) -> Result<HttpResponse> {
    let program_id = path.into_inner();
    if !(1..=BULK_SELECT_MAX).contains(&body.count) {
        return Err(ApiError::BadRequest(ErrorCode::InvalidCount));
    }
    let reason = allowed(SELECT_REASONS, &body.reason_code, ErrorCode::InvalidReasonCode)?;
    let count = i64::from(body.count);
    let selected = db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let now = locks::now(tx).await?;
        queue::select_first_waiting(tx, program.id, count, reason, Actor::Owner(owner.staff_id), now).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(BulkSelectResponse { selected }))
}
