//! `POST /api/owner/grants/{id}/revoke`: the grant becomes inactive and its entry
//! `revoked`, so the recipient's next read is denied; an inactive one is 409.

use crate::http::error::Result;
use crate::identity::Session;
use crate::routes::views;
use crate::state::AppState;
use crate::usecases::decisions;
use actix_web::{post, web, HttpResponse};
use shared::api::Grant;
use uuid::Uuid;

#[utoipa::path(operation_id = "revokeGrant", responses(
    (status = 200, description = "The grant, now inactive; the entry is revoked.", body = Grant),
    (status = 409, description = "The grant is already inactive (`invalid_transition`)."),
))]
#[post("/owner/grants/{id}/revoke")]
async fn revoke(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let grant = decisions::revoke_grant(&state.pool, &session.user_id, *id).await?;
    Ok(HttpResponse::Ok().json(views::grant(&grant)))
}
