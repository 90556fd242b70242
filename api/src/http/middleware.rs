//! Middleware on the API scope: the Origin guard for mutating requests, the no-store
//! header, and the request log with request ids. The log names the route *pattern*,
//! never the path, query, headers or body, so no email, code, token or id leaks there.

use super::error::ApiError;
use crate::state::AppState;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderValue, CACHE_CONTROL, ORIGIN};
use actix_web::middleware::Next;
use actix_web::{web, Error};
use shared::ErrorCode;
use std::time::Instant;

/// Mutating requests need an `Origin` that is exactly one of `APP_ORIGINS`; a missing,
/// foreign or `null` origin is 403 before any route runs. Hooks (`/api/hooks/…`) are
/// called by servers, not browsers, and are authenticated by their signature instead.
pub async fn origin_guard(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    if super::extract::is_mutating(req.method()) && !req.path().starts_with("/api/hooks/") {
        let allowed = req.app_data::<web::Data<AppState>>().is_some_and(|state| {
            let origin = req.headers().get(ORIGIN).and_then(|v| v.to_str().ok());
            origin.is_some_and(|o| state.settings.app_origins.iter().any(|a| a == o))
        });
        if !allowed {
            let (req, _) = req.into_parts();
            let response = actix_web::ResponseError::error_response(&ApiError::Forbidden(ErrorCode::OriginRejected));
            return Ok(ServiceResponse::new(req, response).map_into_right_body());
        }
    }
    Ok(next.call(req).await?.map_into_left_body())
}

/// Every API response depends on identity or private data, or might: none is cached.
pub async fn no_store(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let mut res = next.call(req).await?;
    res.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    Ok(res)
}

/// Gives each request an id (echoed in `X-Request-Id`) and logs one line when it ends.
pub async fn request_log(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let started = Instant::now();
    let id = uuid::Uuid::new_v4().simple().to_string();
    let method = req.method().clone();
    let mut res = next.call(req).await?;
    // Read after routing: only then is it the resource that served the request. Before,
    // actix matches the path alone and names the first pattern that fits, ignoring the
    // method (`POST …/entries/select-bulk` would be logged as `…/entries/{entryId}`).
    let route = res.request().match_pattern().unwrap_or_else(|| "unmatched".into());
    let status = res.status().as_u16();
    if let Ok(value) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(actix_web::http::header::HeaderName::from_static("x-request-id"), value);
    }
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    crate::metrics::observe(&method, &route, status, elapsed_ms);
    tracing::info!(request_id = %id, method = %method, route = %route, status, elapsed_ms, "request");
    Ok(res)
}
