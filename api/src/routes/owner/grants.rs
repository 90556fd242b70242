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
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/grants/{id}/revoke", web::post().to(revoke));
}

async fn revoke(state: web::Data<AppState>, session: Session, path: web::Path<Uuid>) -> Result<HttpResponse> {
    let id = path.into_inner();
    let grant = db::transaction(&state.pool, async |tx| {
        let (program_id, entry_id) = invitations::grant_route(tx, id).await?.ok_or(ApiError::NotFound)?;
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let entry = entries::lock(tx, program.id, entry_id).await?.ok_or(ApiError::NotFound)?;
        let grant = invitations::lock_grant(tx, program.id, id).await?.ok_or(ApiError::NotFound)?;
        if !grant.active {
            return Err(ApiError::Conflict("invalid_transition"));
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
