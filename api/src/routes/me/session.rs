//! `GET /api/me`: the caller's user id and the CSRF token bound to their session;
//! `GET /api/me/emails`: their verified addresses, for "Signed in as …".

use crate::http::csrf;
use crate::identity::{Session, VerifiedUser};
use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use shared::api::{MeResponse, OwnEmails};

#[utoipa::path(operation_id = "getMe", responses(
    (status = 200, description = "The caller and the CSRF token bound to this session.", body = MeResponse),
))]
#[get("/me")]
async fn me(state: web::Data<AppState>, session: Session) -> HttpResponse {
    let csrf_token = csrf::token(&state.settings.csrf_key, &session.session_id);
    HttpResponse::Ok().json(MeResponse { user_id: session.user_id, csrf_token })
}

#[utoipa::path(operation_id = "getOwnEmails", responses(
    (status = 200, description = "The verified addresses the identity provider reports for the caller now.", body = OwnEmails),
))]
#[get("/me/emails")]
async fn emails(user: VerifiedUser) -> HttpResponse {
    HttpResponse::Ok().json(OwnEmails { emails: user.email_keys().into_iter().map(str::to_owned).collect() })
}
