//! `POST /api/owner/grants/{id}/revoke`: the grant becomes inactive and its entry
//! `revoked`, so the recipient's next read is denied. Policy: the grant is resolved to
//! its program only to route the locks (workspace → program → entry → grant), and every
//! lock statement checks the program again; a foreign grant is the uniform 404; an
//! inactive one is 409. A revoked entry is final (a new cycle needs a new program).

use super::guard;
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::{self, entries, invitations, locks, locks::Strength, queue};
use crate::domain::EntryState;
use crate::error::{ApiError, Result};
use crate::identity::Session;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::Grant;
use shared::ErrorCode;
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/grants/{id}/revoke", web::post().to(revoke));
}

#[utoipa::path(
    post,
    path = "/api/owner/grants/{id}/revoke",
    operation_id = "revokeGrant",
    tag = "owner",
    params(("id" = Uuid, Path, description = "The grant id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The grant, now inactive; the entry is revoked.", body = Grant),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "The grant is already inactive (`invalid_transition`).", body = shared::ErrorBody),
    )
)]
async fn revoke(state: web::Data<AppState>, session: Session, path: web::Path<Uuid>) -> Result<HttpResponse> {
    let id = path.into_inner();
    let grant = db::transaction(&state.pool, async |tx| {
        let (program_id, entry_id) = invitations::grant_route(tx, id).await?.ok_or(ApiError::NotFound)?;
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let entry = entries::lock(tx, program.id, entry_id).await?.ok_or(ApiError::NotFound)?;
        let grant = invitations::lock_grant(tx, program.id, id).await?.ok_or(ApiError::NotFound)?;
        if !grant.active {
            return Err(ApiError::Conflict(ErrorCode::InvalidTransition));
        }
        let now = locks::now(tx).await?;
        queue::set_state(tx, entry_id, entry, EntryState::Revoked, now).await?;
        let grant = invitations::revoke_grant(tx, id, now).await?;
        let details = [("grantId", Detail::Id(id))];
        let actor = Actor::Owner(owner.staff_id);
        audit::record(tx, program.id, Some(entry_id), actor, EventType::GrantRevoked, now, &details).await?;
        Ok(grant)
    })
    .await?;
    Ok(HttpResponse::Ok().json(Grant::from(&grant)))
}
