//! Clerk-shaped errors: `{"errors":[{message,long_message,code,meta}],"clerk_trace_id"}`
//! with the status codes Clerk's Backend API uses, plus the JSON-extractor error handler
//! that turns malformed or oversized bodies into the same shape.

use std::fmt;

use actix_web::error::{JsonPayloadError, QueryPayloadError};
use actix_web::{http::StatusCode, HttpRequest, HttpResponse, ResponseError};
use serde_json::json;

use crate::store::random_id;

/// One Clerk API error; rendered as a single-entry `errors` array. Messages name the
/// kind of thing and the parameter, never an id or an address.
#[derive(Debug, Clone)]
pub struct ClerkError {
    status: StatusCode,
    message: &'static str,
    long_message: String,
    code: &'static str,
    /// The body parameter at fault, reported as `meta.param_name` like Clerk's form errors.
    param: Option<String>,
}

impl ClerkError {
    fn new(status: StatusCode, code: &'static str, message: &'static str, long: impl Into<String>) -> Self {
        Self { status, message, long_message: long.into(), code, param: None }
    }

    fn with_param(self, param: &str) -> Self {
        Self { param: Some(param.to_owned()), ..self }
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
        .with_param(param)
    }

    /// 422 for a parameter whose value is not one the endpoint accepts.
    pub fn invalid_value(param: &str, allowed: &str) -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "form_param_value_invalid",
            "is invalid",
            format!("{param} does not match the allowed values: {allowed}"),
        )
        .with_param(param)
    }

    /// 422 for a unique parameter (an organization slug) that is already taken.
    pub fn identifier_exists(param: &str) -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "form_identifier_exists",
            "is taken",
            format!("That {param} is taken. Please try another."),
        )
        .with_param(param)
    }

    /// 400 when `created_by` names no user (`POST /v1/organizations`).
    pub fn creator_not_found() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "organization_creator_not_found",
            "creator not found",
            "No user was found with the given created_by id",
        )
        .with_param("created_by")
    }

    /// 400 when the user already belongs to the organization.
    pub fn already_member() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "already_a_member_in_organization",
            "already a member",
            "The user is already a member of the organization.",
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
        .with_param(param)
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

    /// 503 for metadata and membership writes while `{"writes":"unavailable"}` is in force.
    pub fn writes_unavailable() -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "service_unavailable",
            "Service unavailable",
            "Writes are unavailable (fault injected through POST /dev/faults)",
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
                "meta": match &self.param {
                    Some(param) => json!({ "param_name": param }),
                    None => json!({}),
                },
            }],
            "clerk_trace_id": random_id(""),
        }))
    }
}

/// `QueryConfig::error_handler`: a query string that does not parse answers 400.
pub fn query_error(err: QueryPayloadError, _req: &HttpRequest) -> actix_web::Error {
    ClerkError::new(StatusCode::BAD_REQUEST, "request_query_invalid", "Query invalid", err.to_string()).into()
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
