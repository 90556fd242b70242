//! `POST /api/owner/programs/{id}/entries/{entryId}/erase` `{reasonCode}` (issue 16): an
//! owner erases an entry on the person's request — withdrawn if live, redacted at once,
//! suppressed against restores — and gets the receipt to pass on.

use crate::http::error::Result;
use crate::identity::Session;
use crate::routes::input::allowed;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::erasure;
use actix_web::{post, web, HttpResponse};
use shared::trust::{EraseRequest, ErasureReceipt, ERASE_REASONS};
use shared::ErrorCode;
use uuid::Uuid;

#[utoipa::path(operation_id = "eraseEntry", request_body = EraseRequest, responses(
    (status = 200, description = "Erased (repeating it answers the same receipt).", body = ErasureReceipt),
))]
#[post("/owner/programs/{id}/entries/{entryId}/erase")]
async fn erase(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<EraseRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let reason = allowed(ERASE_REASONS, &body.reason_code, ErrorCode::InvalidReasonCode)?;
    let key = &state.settings.hmac_key;
    let receipt = erasure::erase_by_owner(&state.pool, &session.user_id, (program_id, entry_id), reason, key).await?;
    Ok(HttpResponse::Ok().json(ErasureReceipt { receipt_id: receipt.id, erased_at: rfc3339(receipt.erased_at) }))
}
