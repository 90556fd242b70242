//! `GET /api/owner/programs/{id}/audit/checkpoint`: the program's audit chain as it
//! stands (last event, count, head hash, time), for the owner to keep and later prove
//! with `vestibule verify --checkpoint FILE`.

use crate::http::error::Result;
use crate::identity::Session;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::checkpoint as chain;
use actix_web::{get, web, HttpResponse};
use shared::trust::{AuditCheckpoint, CHECKPOINT_FORMAT};
use uuid::Uuid;

#[utoipa::path(operation_id = "getAuditCheckpoint", responses(
    (status = 200, description = "The program's audit chain head.", body = AuditCheckpoint),
))]
#[get("/owner/programs/{id}/audit/checkpoint")]
async fn checkpoint(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let (head, at) = chain::checkpoint(&state.pool, &session.user_id, *id).await?;
    Ok(HttpResponse::Ok().json(AuditCheckpoint {
        format: CHECKPOINT_FORMAT.to_owned(),
        program_id: *id,
        last_event_id: head.last_event_id,
        count: head.count,
        head_hash: hex::encode(head.hash),
        at: rfc3339(at),
    }))
}
