//! `GET /api/me`: the caller's user id and the CSRF token bound to their session.

use crate::http::csrf;
use crate::identity::Session;
use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use shared::api::MeResponse;

#[utoipa::path(operation_id = "getMe", responses(
    (status = 200, description = "The caller and the CSRF token bound to this session.", body = MeResponse),
))]
#[get("/me")]
async fn me(state: web::Data<AppState>, session: Session) -> HttpResponse {
    let csrf_token = csrf::token(&state.settings.csrf_key, &session.session_id);
    HttpResponse::Ok().json(MeResponse { user_id: session.user_id, csrf_token })
}
