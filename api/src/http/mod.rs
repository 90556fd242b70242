//! The HTTP edge, shared by every route: the answers to failures ([`ApiError`]), the
//! caller extractors, body and parameter limits, the Origin and CSRF guards, response
//! headers (browser security headers in [`security_headers`]), client addresses and the
//! request log. Everything but the error mapping runs before a handler's own logic, so
//! malformed input never reaches a route.

pub mod api_key;
pub mod client_addr;
pub mod csrf;
pub mod error;
pub mod extract;
pub mod methods;
pub mod middleware;
pub mod rate_limit;
pub mod security_headers;

pub use error::ApiError;

use actix_web::error::JsonPayloadError;
use actix_web::web;
use shared::ErrorCode;

/// Largest request body accepted anywhere (SPEC §6.1).
pub const MAX_BODY_BYTES: usize = 32 * 1024;

/// JSON bodies: `application/json` only (415), ≤ 32 KiB (413), well-formed with known
/// fields only (400; request types deny unknown fields).
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(MAX_BODY_BYTES)
        .content_type_required(true)
        .content_type(|mime| mime.type_() == "application" && mime.subtype() == "json")
        .error_handler(|err, _req| {
            let api = match err {
                JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
                    ApiError::PayloadTooLarge
                }
                JsonPayloadError::ContentType => ApiError::UnsupportedMediaType,
                _ => ApiError::BadRequest(ErrorCode::InvalidBody),
            };
            api.into()
        })
}

/// Raw payloads (bodies no handler reads as JSON) are bounded too.
pub fn payload_config() -> web::PayloadConfig {
    web::PayloadConfig::new(MAX_BODY_BYTES)
}

/// A path segment that does not parse (an id that is not a UUID) names nothing: 404.
pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|_, _| ApiError::NotFound.into())
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|_, _| ApiError::BadRequest(ErrorCode::InvalidQuery).into())
}
