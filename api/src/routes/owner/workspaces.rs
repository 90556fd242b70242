//! `GET /api/owner/workspaces` and `GET /api/owner/workspaces/{id}/owners`.

use super::guard;
use crate::db::{self, locks::Strength, staff};
use crate::error::{ApiError, Result};
use crate::identity::Session;
use crate::routes::ts;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::{Owner, OwnerHistoryEvent, OwnersResponse, Workspace};
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/workspaces", web::get().to(list)).route("/owner/workspaces/{id}/owners", web::get().to(owners));
}

/// The caller's active workspaces; 404 (not an empty list) when they own none.
#[utoipa::path(
    get,
    path = "/api/owner/workspaces",
    operation_id = "listWorkspaces",
    tag = "owner",
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The caller's active workspaces.", body = Vec<Workspace>),
        (status = 404, description = "The caller owns no active workspace.", body = shared::ErrorBody),
    )
)]
async fn list(state: web::Data<AppState>, session: Session) -> Result<HttpResponse> {
    let client = state.pool.get().await?;
    let workspaces = staff::owned_workspaces(&**client, &session.user_id).await?;
    if workspaces.is_empty() {
        return Err(ApiError::NotFound);
    }
    let body: Vec<Workspace> = workspaces.into_iter().map(|(id, name)| Workspace { id, name }).collect();
    Ok(HttpResponse::Ok().json(body))
}

#[utoipa::path(
    get,
    path = "/api/owner/workspaces/{id}/owners",
    operation_id = "listOwners",
    tag = "owner",
    params(("id" = Uuid, Path, description = "The workspace id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Current owners and the membership history.", body = OwnersResponse),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
    )
)]
async fn owners(state: web::Data<AppState>, session: Session, path: web::Path<Uuid>) -> Result<HttpResponse> {
    let workspace_id = path.into_inner();
    let body = db::transaction(&state.pool, async |tx| {
        guard::workspace(tx, &session, workspace_id, Strength::Share).await?;
        let owners = staff::members(&**tx, workspace_id).await?;
        let history = staff::history(&**tx, workspace_id).await?;
        Ok(OwnersResponse {
            owners: owners.into_iter().map(|m| Owner { clerk_user_id: m.clerk_user_id, active: m.active }).collect(),
            history: history
                .into_iter()
                .map(|h| OwnerHistoryEvent {
                    id: h.id,
                    action: h.action,
                    clerk_user_id: h.clerk_user_id,
                    approval_ref: h.approval_ref,
                    at: ts(h.at),
                })
                .collect(),
        })
    })
    .await?;
    Ok(HttpResponse::Ok().json(body))
}
