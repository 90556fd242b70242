//! The Backend API subset under `/v1`, in Clerk's shapes: the secret-key middleware, the
//! JWKS, and one module per resource family ([`users`], [`email_addresses`], [`sessions`],
//! [`organizations`]). Decisions where Clerk's documentation is silent or could not be
//! checked are in each module's doc.

mod email_addresses;
mod organizations;
mod sessions;
mod users;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::AUTHORIZATION;
use actix_web::middleware::Next;
use actix_web::web::{self, Data};
use actix_web::{HttpResponse, ResponseError};
use serde::{Deserialize, Serialize};

use crate::error::ClerkError;
use crate::model::Metadata;
use crate::state::AppState;
use crate::store::Page;

/// Longest accepted address; the real grammar is applied by the API, not here.
const MAX_ADDRESS_LEN: usize = 320;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/jwks", web::get().to(jwks));
    users::routes(cfg);
    email_addresses::routes(cfg);
    sessions::routes(cfg);
    organizations::routes(cfg);
}

/// Answers 401 unless the request carries `Authorization: Bearer <secret key>`.
pub async fn require_secret(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let presented = req.headers().get(AUTHORIZATION).and_then(|value| value.as_bytes().strip_prefix(b"Bearer "));
    let authorized = match (req.app_data::<Data<AppState>>(), presented) {
        (Some(state), Some(secret)) => state.secret_matches(secret),
        _ => false,
    };
    if authorized {
        Ok(next.call(req).await?.map_into_left_body())
    } else {
        let response = ClerkError::unauthenticated().error_response();
        Ok(req.into_response(response).map_into_right_body())
    }
}

async fn jwks(state: Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(state.key().jwks())
}

/// Clerk validates formats strictly; clerk-dev only asks for one `@`, so tests can store
/// addresses that the shared grammar refuses and check that the API ignores them.
fn checked_address(address: &str) -> Result<String, ClerkError> {
    let address = address.trim_matches(' ');
    if address.is_empty() || address.len() > MAX_ADDRESS_LEN || address.matches('@').count() != 1 {
        return Err(ClerkError::invalid_param("email_address"));
    }
    Ok(address.to_owned())
}

/// A metadata parameter, when given, must be a JSON object; other values are refused. A
/// top-level `null` counts as absent (serde reads it as `None`), so it changes nothing.
fn checked_metadata(param: &str, value: Option<serde_json::Value>) -> Result<Option<Metadata>, ClerkError> {
    match value {
        None => Ok(None),
        Some(serde_json::Value::Object(map)) => Ok(Some(map)),
        Some(_) => Err(ClerkError::invalid_param(param)),
    }
}

/// Clerk's list parameters: `limit` 1–500 (default 10), `offset` ≥ 0 (default 0), and
/// where the endpoint has it, `order_by` `created_at` with an optional `+`/`-` (default
/// newest first).
#[derive(Deserialize)]
struct ListQuery {
    limit: Option<i64>,
    offset: Option<i64>,
    order_by: Option<String>,
}

impl ListQuery {
    fn page(&self) -> Result<Page, ClerkError> {
        let limit = self.limit.unwrap_or(10);
        if !(1..=500).contains(&limit) {
            return Err(ClerkError::param_out_of_range("limit"));
        }
        let offset = self.offset.unwrap_or(0);
        if offset < 0 {
            return Err(ClerkError::param_out_of_range("offset"));
        }
        let newest_first = match self.order_by.as_deref() {
            None | Some("-created_at") => true,
            Some("created_at" | "+created_at") => false,
            Some(_) => return Err(ClerkError::invalid_value("order_by", "created_at, +created_at, -created_at")),
        };
        Ok(Page { limit: limit as usize, offset: offset as usize, newest_first })
    }
}

/// Clerk's paginated list body.
#[derive(Serialize)]
struct Paginated<T> {
    data: Vec<T>,
    total_count: usize,
}
