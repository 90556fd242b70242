//! HTTP routes, one module per audience (public, recipient `me`, owner), each with a
//! `configure` that mounts its resources; plus health, metrics and the SPA shell.
//! One audience's routes never call another's handlers.

pub mod health;
pub mod me;
pub mod metrics;
pub mod owner;
pub mod public;
pub mod spa;

use crate::error::ApiError;

/// Unmatched `/api/*` paths: the uniform JSON 404.
pub async fn not_found() -> Result<actix_web::HttpResponse, ApiError> {
    Err(ApiError::NotFound)
}

/// RFC 3339 in UTC with microseconds, the one timestamp format of the API.
pub fn ts(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}
