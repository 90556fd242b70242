//! `POST /api/hooks/admit/{workspaceId}`: an identity provider's before-user-created
//! hook (`usecases::admission_hook`). Answers as such a provider expects: 200 `{}`
//! allows the sign-up; 403 with a short message refuses it; 401 refuses the call (a
//! wrong or stale signature, a re-used id on another body; the same message again is
//! answered as the first time); 500 when the database is unavailable, so
//! the provider refuses the sign-up too. Server to server: no Origin, no session.

use crate::state::AppState;
use crate::usecases::admission_hook::{self, HookError, Signed};
use actix_web::{post, web, HttpRequest, HttpResponse};
use serde_json::json;
use shared::ErrorCode;
use uuid::Uuid;

/// What the hook reads of the provider's payload (the rest is ignored).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct AdmitPayload {
    user: AdmitUser,
}

#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct AdmitUser {
    email: String,
}

const REFUSED: &str = "Sign-ups are invite-only. Join the waitlist first.";

fn error(status: actix_web::http::StatusCode, code: ErrorCode, message: &str) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header(("cache-control", "private, no-store"))
        .json(json!({"error": {"code": code, "message": message, "http_code": status.as_u16()}}))
}

#[utoipa::path(operation_id = "admitSignup",
    request_body(content = AdmitPayload, description = "The provider's before-user-created payload; `user.email` is read, the rest ignored."),
    params(
        ("webhook-id" = String, Header, description = "The message id; the same message again is answered as the first time, another body under a used id is refused."),
        ("webhook-timestamp" = String, Header, description = "Unix seconds; more than 5 minutes away is refused."),
        ("webhook-signature" = String, Header, description = "`v1,<base64 HMAC-SHA256>` under the workspace's hook secret."),
    ),
    responses(
        (status = 200, description = "Allowed (`{}`): the email holds an unexpired issued invitation or an active grant in the workspace."),
        (status = 401, description = "Wrong or stale signature, or a used webhook-id on another body (`hook_signature_rejected`)."),
        (status = 403, description = "Refused: `{\"error\":{\"code\":\"signup_not_admitted\",\"message\",\"http_code\":403}}`."),
        (status = 404, description = "No such active workspace, or no hook secret set."),
        (status = 500, description = "The database is unavailable: the provider refuses the sign-up."),
    ))]
#[post("/hooks/admit/{workspaceId}")]
async fn admit(state: web::Data<AppState>, req: HttpRequest, path: web::Path<Uuid>, body: web::Bytes) -> HttpResponse {
    use actix_web::http::StatusCode;
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or("");
    let signed = Signed {
        message_id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        body: &body,
    };
    match admission_hook::admit(&state.pool, &state.keyring, &state.settings.hmac_key, *path, &signed).await {
        Ok(true) => HttpResponse::Ok().insert_header(("cache-control", "private, no-store")).json(json!({})),
        Ok(false) => error(StatusCode::FORBIDDEN, ErrorCode::SignupNotAdmitted, REFUSED),
        Err(HookError::NotFound) => error(StatusCode::NOT_FOUND, ErrorCode::NotFound, "Not found."),
        Err(e @ (HookError::Signature(_) | HookError::Replayed)) => {
            tracing::info!(reason = %e, "admission hook call refused");
            error(StatusCode::UNAUTHORIZED, ErrorCode::HookSignatureRejected, "The signature is not valid.")
        }
        Err(HookError::Db(e)) => {
            tracing::warn!(error = %e, "admission hook: database unavailable");
            error(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::InternalError, "Something went wrong.")
        }
    }
}

pub fn configure(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(admit);
}
