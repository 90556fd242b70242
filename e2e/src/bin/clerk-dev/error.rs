//! Clerk-shaped errors: `{"errors":[{message,long_message,code,meta}],"clerk_trace_id"}`
//! with the status codes Clerk's Backend API uses, plus the JSON-extractor error handler
//! that turns malformed or oversized bodies into the same shape.

use std::fmt;

use actix_web::{error::JsonPayloadError, http::StatusCode, HttpRequest, HttpResponse, ResponseError};
use serde_json::json;

use crate::store::random_id;

/// One Clerk API error; rendered as a single-entry `errors` array.
#[derive(Debug, Clone)]
pub struct ClerkError {
    status: StatusCode,
    message: &'static str,
    long_message: String,
    code: &'static str,
}

impl ClerkError {
    fn new(status: StatusCode, code: &'static str, message: &'static str, long: impl Into<String>) -> Self {
        Self { status, message, long_message: long.into(), code }
    }

    /// 404 `resource_not_found`; `what` names the kind of resource, never its id.
    pub fn not_found(what: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "resource_not_found",
            "not found",
            format!("The requested {what} was not found"),
        )
    }

    /// 401 for a missing or wrong `Authorization: Bearer <secret key>`.
    pub fn unauthenticated() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "authentication_invalid",
            "Invalid authentication",
            "Unable to authenticate the request, you need to supply an active API key",
        )
    }

    /// 422 for a parameter whose format is wrong (e.g. an email address).
    pub fn invalid_param(param: &str) -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "form_param_format_invalid",
            "is invalid",
            format!("{param} is invalid"),
        )
    }

    /// 400 for `POST /dev/sign-in` with an email the shared grammar refuses.
    pub fn invalid_email() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "form_param_format_invalid",
            "is invalid",
            "email must be a valid email address",
        )
    }

    /// 422 for a numeric parameter outside its allowed range.
    pub fn param_out_of_range(param: &str) -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "form_param_value_invalid",
            "is invalid",
            format!("{param} is out of range"),
        )
    }

    /// 400 for a body that is not the JSON the endpoint expects.
    pub fn bad_body(detail: &str) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "request_body_invalid", "Request body invalid", detail.to_owned())
    }

    /// 413 for a body above the 32 KiB limit.
    pub fn body_too_large() -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request_body_too_large",
            "Request body too large",
            "The request body exceeds 32 KiB",
        )
    }

    /// 500 when a token cannot be signed (never expected).
    pub fn internal() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_clerk_error",
            "Something went wrong",
            "clerk-dev failed to sign the session token",
        )
    }

    /// 503 while `POST /dev/faults {"users":"unavailable"}` is in force.
    pub fn users_unavailable() -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "service_unavailable",
            "Service unavailable",
            "The users service is unavailable (fault injected through POST /dev/faults)",
        )
    }
}

impl fmt::Display for ClerkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl ResponseError for ClerkError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status).json(json!({
            "errors": [{
                "message": self.message,
                "long_message": self.long_message,
                "code": self.code,
                "meta": {},
            }],
            "clerk_trace_id": random_id(""),
        }))
    }
}

/// `JsonConfig::error_handler`: malformed bodies answer 400, oversized ones 413.
pub fn json_error(err: JsonPayloadError, _req: &HttpRequest) -> actix_web::Error {
    let clerk = match &err {
        JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
            ClerkError::body_too_large()
        }
        JsonPayloadError::ContentType => ClerkError::bad_body("Content-Type must be application/json"),
        JsonPayloadError::Deserialize(e) => ClerkError::bad_body(&e.to_string()),
        _ => ClerkError::bad_body("The request body could not be read"),
    };
    clerk.into()
}
