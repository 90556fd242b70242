//! `GET /api/config`: which sign-in the SPA should use. Public values only.

use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use shared::api::ConfigResponse;

#[utoipa::path(operation_id = "getConfig", responses(
    (status = 200, description = "Which sign-in the SPA should use.", body = ConfigResponse),
))]
#[get("/config")]
async fn config(state: web::Data<AppState>) -> HttpResponse {
    let s = &state.settings;
    let body = ConfigResponse {
        identity: if s.is_local_identity() { "local" } else { "clerk" }.to_owned(),
        publishable_key: s.clerk_publishable_key.clone(),
        identity_dev_url: s.identity_dev_url.clone(),
    };
    HttpResponse::Ok().json(body)
}
