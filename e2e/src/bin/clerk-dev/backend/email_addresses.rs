//! Email addresses: add to a user, set verification or primary, delete.

use actix_web::web::{self, Data, Json, Path};
use actix_web::HttpResponse;
use serde::Deserialize;
use serde_json::json;

use super::checked_address;
use crate::error::ClerkError;
use crate::state::AppState;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/email_addresses", web::post().to(create_email))
        .route("/email_addresses/{id}", web::patch().to(update_email))
        .route("/email_addresses/{id}", web::delete().to(delete_email));
}

#[derive(Deserialize)]
struct CreateEmail {
    user_id: String,
    email_address: String,
    #[serde(default)]
    verified: bool,
    #[serde(default)]
    primary: bool,
}

async fn create_email(state: Data<AppState>, body: Json<CreateEmail>) -> Result<HttpResponse, ClerkError> {
    let CreateEmail { user_id, email_address, verified, primary } = body.into_inner();
    let address = checked_address(&email_address)?;
    let email = state.store().add_email(&user_id, address, verified, primary)?;
    Ok(HttpResponse::Ok().json(email))
}

#[derive(Deserialize)]
struct UpdateEmail {
    verified: Option<bool>,
    primary: Option<bool>,
}

async fn update_email(
    state: Data<AppState>,
    id: Path<String>,
    body: Json<UpdateEmail>,
) -> Result<HttpResponse, ClerkError> {
    let email = state.store().update_email(&id, body.verified, body.primary)?;
    Ok(HttpResponse::Ok().json(email))
}

async fn delete_email(state: Data<AppState>, id: Path<String>) -> Result<HttpResponse, ClerkError> {
    state.store().delete_email(&id)?;
    Ok(HttpResponse::Ok().json(json!({ "object": "email_address", "id": *id, "deleted": true })))
}
