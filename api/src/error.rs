//! One error type for the whole API, mapped to SPEC §6.1's status table and the JSON
//! error body. Policy: generic to the client, complete in the log — minus personal data.
//! Messages are fixed strings chosen here; no input, database text or identity data ever
//! reaches a response.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use shared::{ErrorBody, ErrorCode, ErrorDetail};

pub type Result<T, E = ApiError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Malformed body, field out of bounds, bad path or query parameter.
    #[error("bad request: {0}")]
    BadRequest(ErrorCode),
    #[error("signed out")]
    Unauthorized,
    /// Authenticated but not allowed; also a bad Origin or CSRF token.
    #[error("forbidden: {0}")]
    Forbidden(ErrorCode),
    /// Absent, foreign, revoked or not permitted: one shape for all.
    #[error("not found")]
    NotFound,
    /// Stale revision, key bound to other fields, closed form, invalid transition.
    #[error("conflict: {0}")]
    Conflict(ErrorCode),
    /// A unique violation by a writer that slipped past the locks: decide once more.
    #[error("raced")]
    Raced,
    #[error("payload too large")]
    PayloadTooLarge,
    #[error("unsupported media type")]
    UnsupportedMediaType,
    /// A cap or an attempt rate; the body never says which.
    #[error("too many requests")]
    TooManyRequests,
    /// The identity provider failed, timed out or answered unexpectedly.
    #[error("identity provider unavailable: {0}")]
    IdentityUnavailable(String),
    /// The database is unreachable or busy (lock timeout); safe to retry.
    #[error("service unavailable: {0}")]
    Unavailable(String),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl ApiError {
    fn code(&self) -> ErrorCode {
        match self {
            ApiError::BadRequest(code) | ApiError::Forbidden(code) | ApiError::Conflict(code) => *code,
            ApiError::Unauthorized => ErrorCode::SignedOut,
            ApiError::NotFound => ErrorCode::NotFound,
            ApiError::PayloadTooLarge => ErrorCode::PayloadTooLarge,
            ApiError::UnsupportedMediaType => ErrorCode::UnsupportedMediaType,
            ApiError::TooManyRequests => ErrorCode::TooManyRequests,
            ApiError::IdentityUnavailable(_) => ErrorCode::IdentityUnavailable,
            ApiError::Unavailable(_) | ApiError::Raced => ErrorCode::ServiceUnavailable,
            ApiError::Internal(_) => ErrorCode::InternalError,
        }
    }

    fn message(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "The request is malformed or a field is out of bounds.",
            ApiError::Unauthorized => "Sign in to continue.",
            ApiError::Forbidden(_) => "This action is not allowed.",
            ApiError::NotFound => "Not found.",
            ApiError::Conflict(_) => "The request conflicts with the current state. Reload and try again.",
            ApiError::PayloadTooLarge => "The request body is too large.",
            ApiError::UnsupportedMediaType => "Send JSON with Content-Type: application/json.",
            ApiError::TooManyRequests => "Too many requests right now. Try again later.",
            ApiError::IdentityUnavailable(_) => "The sign-in service is unavailable. Try again shortly.",
            ApiError::Unavailable(_) | ApiError::Raced => "The service is temporarily unavailable. Try again shortly.",
            ApiError::Internal(_) => "Something went wrong.",
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            ApiError::IdentityUnavailable(_) | ApiError::Unavailable(_) | ApiError::Raced => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            ApiError::Internal(e) => tracing::error!(error = %format!("{e:#}"), "internal error"),
            ApiError::Unavailable(why) | ApiError::IdentityUnavailable(why) => {
                tracing::warn!(reason = %why, code = %self.code(), "dependency unavailable")
            }
            _ => {}
        }
        let mut response = HttpResponse::build(self.status_code());
        response.insert_header((header::CACHE_CONTROL, "private, no-store"));
        if matches!(
            self,
            ApiError::Unavailable(_) | ApiError::IdentityUnavailable(_) | ApiError::Raced | ApiError::TooManyRequests
        ) {
            response.insert_header((header::RETRY_AFTER, "5"));
        }
        if matches!(self, ApiError::Unauthorized) {
            response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        response.json(ErrorBody { error: ErrorDetail { code: self.code(), message: self.message().to_owned() } })
    }
}

/// Classifies a database error: connection trouble and lock timeouts are retryable
/// 503s; everything else is internal. The log gets the SQLSTATE and the constraint
/// name, never the statement's parameters.
impl From<tokio_postgres::Error> for ApiError {
    fn from(e: tokio_postgres::Error) -> Self {
        use tokio_postgres::error::SqlState;
        match e.code() {
            Some(c) if *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE => {
                ApiError::Unavailable(RETRYABLE_CONFLICT.into())
            }
            Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE || *c == SqlState::QUERY_CANCELED => {
                ApiError::Unavailable(format!("database busy ({})", c.code()))
            }
            Some(c) if c.code().starts_with("08") || c.code().starts_with("57") => {
                ApiError::Unavailable(format!("database unavailable ({})", c.code()))
            }
            Some(c) => {
                let constraint = e.as_db_error().and_then(|d| d.constraint()).unwrap_or("-");
                ApiError::Internal(anyhow::anyhow!("database error {} on {constraint}", c.code()))
            }
            None if e.is_closed() || is_io(&e) => ApiError::Unavailable("database connection lost".into()),
            None => ApiError::Internal(anyhow::anyhow!("database client error: {e}")),
        }
    }
}

/// Whether a client error was caused by the connection (refused, reset, closed).
fn is_io(e: &tokio_postgres::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.is::<std::io::Error>() {
            return true;
        }
        source = s.source();
    }
    false
}

impl From<deadpool_postgres::PoolError> for ApiError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        match e {
            // A connection that cannot be made is an outage, whatever the client says.
            deadpool_postgres::PoolError::Backend(db) if db.code().is_none() => {
                ApiError::Unavailable("cannot connect to the database".into())
            }
            deadpool_postgres::PoolError::Backend(db) => db.into(),
            other => ApiError::Unavailable(format!("database pool: {other}")),
        }
    }
}

/// Marks a deadlock or serialization failure; `db::transaction` runs the body again.
pub(crate) const RETRYABLE_CONFLICT: &str = "retryable transaction conflict";

/// The constraint a unique or check violation hit, for mapping races to answers.
pub fn violated_constraint(e: &tokio_postgres::Error) -> Option<&str> {
    e.as_db_error().and_then(|d| d.constraint())
}
