//! `GET /api/me`: the caller's user id and the CSRF token bound to their session.

use crate::http::csrf;
use crate::identity::Session;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::MeResponse;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/me", web::get().to(me));
}

#[utoipa::path(
    get,
    path = "/api/me",
    operation_id = "getMe",
    tag = "recipient",
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The caller and the CSRF token bound to this session.", body = MeResponse),
    )
)]
async fn me(state: web::Data<AppState>, session: Session) -> HttpResponse {
    let csrf_token = csrf::token(&state.settings.csrf_key, &session.session_id);
    HttpResponse::Ok().json(MeResponse { user_id: session.user_id, csrf_token })
}
