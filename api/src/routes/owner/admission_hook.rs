//! The workspace's admission hook secret (`/api/owner/workspaces/{id}/admission-hook…`,
//! `usecases::admission_hook`): its status, and a fresh secret shown once.

use crate::http::error::Result;
use crate::identity::Session;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::admission_hook;
use actix_web::{get, post, web, HttpResponse};
use shared::integrations::{AdmissionHookStatus, HookSecret};
use uuid::Uuid;

fn hook_path(ws: Uuid) -> String {
    format!("/api/hooks/admit/{ws}")
}

#[utoipa::path(operation_id = "getAdmissionHook", responses(
    (status = 200, description = "Whether a hook secret is set, and the path the provider calls.", body = AdmissionHookStatus),
))]
#[get("/owner/workspaces/{id}/admission-hook")]
async fn status(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let at = admission_hook::status(&state.pool, &session.user_id, *id).await?;
    Ok(HttpResponse::Ok().json(AdmissionHookStatus {
        configured: at.is_some(),
        created_at: at.map(rfc3339),
        path: hook_path(*id),
    }))
}

#[utoipa::path(operation_id = "setAdmissionHookSecret", responses(
    (status = 201, description = "A fresh secret (replacing any), shown this once.", body = HookSecret),
))]
#[post("/owner/workspaces/{id}/admission-hook/secret")]
async fn set_secret(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let secret = admission_hook::set_secret(&state.pool, &state.keyring, &session.user_id, *id).await?;
    Ok(HttpResponse::Created().json(HookSecret { secret: secret.reveal(), path: hook_path(*id) }))
}

pub fn configure(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(status).service(set_secret);
}
