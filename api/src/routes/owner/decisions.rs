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
use crate::error::{ApiError, Result};
use crate::identity::Session;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::{
    BulkSelectRequest, BulkSelectResponse, DeclineRequest, EntryStateResponse, OwnerWithdrawRequest, SelectRequest,
    BULK_SELECT_MAX, DECLINE_REASONS, SELECT_REASONS, WITHDRAW_BASES,
};
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/programs/{id}/entries/select-bulk", web::post().to(select_bulk))
        .route("/owner/programs/{id}/entries/{entryId}/select", web::post().to(select))
        .route("/owner/programs/{id}/entries/{entryId}/decline", web::post().to(decline))
        .route("/owner/programs/{id}/entries/{entryId}/withdraw", web::post().to(withdraw));
}

/// The allow-listed `&'static str` equal to `value`, or 400.
fn allowed(list: &'static [&'static str], value: &str, code: &'static str) -> Result<&'static str> {
    list.iter().copied().find(|v| *v == value).ok_or(ApiError::BadRequest(code))
}

fn answer(id: Uuid, state: &str) -> HttpResponse {
    HttpResponse::Ok().json(EntryStateResponse { id, state: state.to_owned() })
}

async fn select(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<SelectRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let reason = allowed(SELECT_REASONS, &body.reason_code, "invalid_reason_code")?;
    db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let from = entries::lock(tx, program.id, entry_id).await?.ok_or(ApiError::NotFound)?;
        let now = locks::now(tx).await?;
        queue::select(tx, program.id, entry_id, from, reason, Actor::Owner(owner.staff_id), now).await
    })
    .await?;
    Ok(answer(entry_id, "selected"))
}

async fn decline(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<DeclineRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let reason = allowed(DECLINE_REASONS, &body.reason_code, "invalid_reason_code")?;
    db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let from = entries::lock(tx, program.id, entry_id).await?.ok_or(ApiError::NotFound)?;
        let now = locks::now(tx).await?;
        queue::decline(tx, program.id, entry_id, from, reason, Actor::Owner(owner.staff_id), now).await
    })
    .await?;
    Ok(answer(entry_id, "declined"))
}

/// Repeating it answers the same, without a second event (as for the applicant).
async fn withdraw(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<OwnerWithdrawRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let basis = allowed(WITHDRAW_BASES, &body.basis, "invalid_basis")?;
    let _: Withdrawal = db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let now = locks::now(tx).await?;
        entries::withdraw(tx, &program, entry_id, Actor::Owner(owner.staff_id), basis, now).await
    })
    .await?;
    Ok(answer(entry_id, "withdrawn"))
}

/// Selects the first `count` waiting entries in queue order, in one transaction.
async fn select_bulk(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<Uuid>,
    body: web::Json<BulkSelectRequest>,
) -> Result<HttpResponse> {
    let program_id = path.into_inner();
    if !(1..=BULK_SELECT_MAX).contains(&body.count) {
        return Err(ApiError::BadRequest("invalid_count"));
    }
    let reason = allowed(SELECT_REASONS, &body.reason_code, "invalid_reason_code")?;
    let count = i64::from(body.count);
    let selected = db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let now = locks::now(tx).await?;
        queue::select_first_waiting(tx, program.id, count, reason, Actor::Owner(owner.staff_id), now).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(BulkSelectResponse { selected }))
}
