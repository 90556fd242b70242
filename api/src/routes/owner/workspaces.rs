//! `GET /api/owner/workspaces` and `GET /api/owner/workspaces/{id}/owners`.

use crate::http::error::Result;
use crate::identity::Session;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::membership;
use actix_web::{get, web, HttpResponse};
use shared::api::{Owner, OwnerHistoryEvent, OwnersResponse, Workspace};
use uuid::Uuid;

/// The caller's active workspaces; 404 (not an empty list) when they own none.
#[utoipa::path(operation_id = "listWorkspaces", responses(
    (status = 200, description = "The caller's active workspaces.", body = Vec<Workspace>),
    (status = 404, description = "The caller owns no active workspace."),
))]
#[get("/owner/workspaces")]
async fn list(state: web::Data<AppState>, session: Session) -> Result<HttpResponse> {
    let owned = membership::workspaces(&state.pool, &session.user_id).await?;
    let body: Vec<Workspace> = owned.into_iter().map(|(id, name)| Workspace { id, name }).collect();
    Ok(HttpResponse::Ok().json(body))
}

#[utoipa::path(operation_id = "listOwners", responses(
    (status = 200, description = "Current owners and the membership history, each owner with their name where the identity provider gives one.", body = OwnersResponse),
))]
#[get("/owner/workspaces/{id}/owners")]
async fn owners(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let (members, history) = membership::owners(&state.pool, &session.user_id, *id).await?;
    // After the read's transaction: the lookups hold no lock.
    let names = state.identity.names.resolve(members.iter().map(|m| m.clerk_user_id.as_str())).await;
    let name = |user: &str| names.get(user).cloned();
    Ok(HttpResponse::Ok().json(OwnersResponse {
        owners: members
            .into_iter()
            .map(|m| Owner { name: name(&m.clerk_user_id), clerk_user_id: m.clerk_user_id, active: m.active })
            .collect(),
        history: history
            .into_iter()
            .map(|h| OwnerHistoryEvent {
                id: h.id,
                action: h.action,
                name: name(&h.clerk_user_id),
                clerk_user_id: h.clerk_user_id,
                approval_ref: h.approval_ref,
                at: rfc3339(h.at),
            })
            .collect(),
    }))
}
