//! The API's answers to failures: one [`ApiError`], mapped to SPEC §6.1's status table
//! and the JSON error body with a `shared::ErrorCode`, and one `From` per use-case error
//! — the only place where a refusal becomes a status code. Policy: generic to the
//! client, complete in the log — minus personal data. Messages are fixed strings chosen
//! here; no input, database text or identity data ever reaches a response.

use crate::db::DbError;
use crate::identity::LookupError;
use crate::usecases::admission::AdmitError;
use crate::usecases::admission_hook::HookSecretError;
use crate::usecases::api_keys::ApiKeyError;
use crate::usecases::cohorts::CohortError;
use crate::usecases::decisions::DecisionError;
use crate::usecases::draws::DrawError;
use crate::usecases::erasure::ErasureError;
use crate::usecases::invitations::InvitationError;
use crate::usecases::programs::ProgramError;
use crate::usecases::recipient::RecipientError;
use crate::usecases::redemption::RedeemError;
use crate::usecases::server_api::ServerApiError;
use crate::usecases::webhooks::WebhookError;
use crate::usecases::{NotFound, ReadError};
use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use shared::{ErrorBody, ErrorCode, ErrorDetail};

pub type Result<T, E = ApiError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Malformed body, field out of bounds, bad path or query parameter.
    #[error("bad request: {0}")]
    BadRequest(ErrorCode),
    /// An answer to the form's questions is refused (400 `invalid_answer`); names the
    /// question's id (the owner's, never the applicant's text) when the notice asks it.
    #[error("invalid answer")]
    InvalidAnswer(Option<String>),
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
    /// A known path asked with a method it does not serve; the `Allow` value.
    #[error("method not allowed")]
    MethodNotAllowed(String),
    #[error("payload too large")]
    PayloadTooLarge,
    #[error("unsupported media type")]
    UnsupportedMediaType,
    /// A cap (every cap the same answer, `Retry-After: 5`) or, with the seconds until the
    /// refusing window frees, an attempt rate. The body never says which.
    #[error("too many requests")]
    TooManyRequests(Option<u32>),
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
            ApiError::InvalidAnswer(_) => ErrorCode::InvalidAnswer,
            ApiError::Unauthorized => ErrorCode::SignedOut,
            ApiError::NotFound => ErrorCode::NotFound,
            ApiError::MethodNotAllowed(_) => ErrorCode::MethodNotAllowed,
            ApiError::PayloadTooLarge => ErrorCode::PayloadTooLarge,
            ApiError::UnsupportedMediaType => ErrorCode::UnsupportedMediaType,
            ApiError::TooManyRequests(_) => ErrorCode::TooManyRequests,
            ApiError::IdentityUnavailable(_) => ErrorCode::IdentityUnavailable,
            ApiError::Unavailable(_) => ErrorCode::ServiceUnavailable,
            ApiError::Internal(_) => ErrorCode::InternalError,
        }
    }

    fn message(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "The request is malformed or a field is out of bounds.",
            ApiError::InvalidAnswer(Some(_)) => {
                "An answer is missing, too long, not one of the choices or not of the right form."
            }
            ApiError::InvalidAnswer(None) => "An answer is for a question this notice does not ask.",
            ApiError::Unauthorized => "Sign in to continue.",
            ApiError::Forbidden(_) => "This action is not allowed.",
            ApiError::NotFound => "Not found.",
            ApiError::Conflict(_) => "The request conflicts with the current state. Reload and try again.",
            ApiError::MethodNotAllowed(_) => "This method is not allowed here; see the Allow header.",
            ApiError::PayloadTooLarge => "The request body is too large.",
            ApiError::UnsupportedMediaType => "Send JSON with Content-Type: application/json.",
            ApiError::TooManyRequests(_) => "Too many requests right now. Try again later.",
            ApiError::IdentityUnavailable(_) => "The sign-in service is unavailable. Try again shortly.",
            ApiError::Unavailable(_) => "The service is temporarily unavailable. Try again shortly.",
            ApiError::Internal(_) => "Something went wrong.",
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) | ApiError::InvalidAnswer(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::TooManyRequests(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::IdentityUnavailable(_) | ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
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
        match self {
            ApiError::TooManyRequests(Some(seconds)) => {
                response.insert_header((header::RETRY_AFTER, seconds.to_string()));
            }
            ApiError::Unavailable(_) | ApiError::IdentityUnavailable(_) | ApiError::TooManyRequests(None) => {
                response.insert_header((header::RETRY_AFTER, "5"));
            }
            _ => {}
        }
        if let ApiError::MethodNotAllowed(allow) = self {
            response.insert_header((header::ALLOW, allow.as_str()));
        }
        if matches!(self, ApiError::Unauthorized) {
            response.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        let question = match self {
            ApiError::InvalidAnswer(question) => question.clone(),
            _ => None,
        };
        response
            .json(ErrorBody { error: ErrorDetail { code: self.code(), message: self.message().to_owned(), question } })
    }
}

/// The data layer's failures: a retry that never succeeded and an outage are 503s
/// (safe to retry); anything else is internal. The log gets the SQLSTATE and constraint.
impl From<DbError> for ApiError {
    fn from(e: DbError) -> Self {
        match e {
            DbError::Retry => ApiError::Unavailable("transaction kept conflicting".into()),
            DbError::Unavailable(why) => ApiError::Unavailable(why),
            DbError::Unique(constraint) => ApiError::Internal(anyhow::anyhow!("unique violation on {constraint}")),
            DbError::Other(why) => ApiError::Internal(anyhow::anyhow!(why)),
        }
    }
}

/// A user the provider no longer knows is signed out (401); any other failure of the
/// lookup is the provider being unavailable (503). Every caller maps it the same way.
impl From<LookupError> for ApiError {
    fn from(e: LookupError) -> Self {
        match e {
            LookupError::UserGone => ApiError::Unauthorized,
            LookupError::Unavailable(why) => ApiError::IdentityUnavailable(why),
        }
    }
}

impl From<NotFound> for ApiError {
    fn from(_: NotFound) -> Self {
        ApiError::NotFound
    }
}

impl From<ReadError> for ApiError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::NotFound => ApiError::NotFound,
            ReadError::Db(e) => e.into(),
        }
    }
}

/// Every cap is the same 429, for a known email and an unknown one alike.
impl From<AdmitError> for ApiError {
    fn from(e: AdmitError) -> Self {
        match e {
            AdmitError::NotFound => ApiError::NotFound,
            AdmitError::ChallengeFailed => ApiError::BadRequest(ErrorCode::ChallengeFailed),
            AdmitError::KeyReused => ApiError::Conflict(ErrorCode::RequestKeyReused),
            AdmitError::Closed => ApiError::Conflict(ErrorCode::SignupClosed),
            AdmitError::NoticeOutdated => ApiError::Conflict(ErrorCode::NoticeOutdated),
            AdmitError::PermissionRequired => ApiError::Conflict(ErrorCode::PermissionRequired),
            AdmitError::InvalidAnswer(e) => ApiError::InvalidAnswer(e.question().map(str::to_owned)),
            AdmitError::AccountRequired => ApiError::Conflict(ErrorCode::AccountRequired),
            AdmitError::Capped => ApiError::TooManyRequests(None),
            AdmitError::RateLimited { retry_after } => ApiError::TooManyRequests(Some(retry_after)),
            AdmitError::Db(e) => e.into(),
        }
    }
}

impl From<crate::usecases::public::ChallengeError> for ApiError {
    fn from(e: crate::usecases::public::ChallengeError) -> Self {
        use crate::usecases::public::ChallengeError;
        match e {
            ChallengeError::NotFound => ApiError::NotFound,
            ChallengeError::RateLimited { retry_after } => ApiError::TooManyRequests(Some(retry_after)),
            ChallengeError::Db(e) => e.into(),
        }
    }
}

/// Every reason a code does not open its program is the same 404.
impl From<RedeemError> for ApiError {
    fn from(e: RedeemError) -> Self {
        match e {
            RedeemError::Denied => ApiError::NotFound,
            RedeemError::InvalidAnswer(e) => ApiError::InvalidAnswer(e.question().map(str::to_owned)),
            RedeemError::RateLimited { retry_after } => ApiError::TooManyRequests(Some(retry_after)),
            RedeemError::Identity(e) => e.into(),
            RedeemError::Db(e) => e.into(),
        }
    }
}

impl From<RecipientError> for ApiError {
    fn from(e: RecipientError) -> Self {
        match e {
            RecipientError::NotFound => ApiError::NotFound,
            RecipientError::InvalidTransition => ApiError::Conflict(ErrorCode::InvalidTransition),
            RecipientError::Db(e) => e.into(),
        }
    }
}

impl From<ProgramError> for ApiError {
    fn from(e: ProgramError) -> Self {
        let conflict = ApiError::Conflict;
        match e {
            ProgramError::NotFound => ApiError::NotFound,
            ProgramError::StaleRevision => conflict(ErrorCode::StaleRevision),
            ProgramError::SlugTaken => conflict(ErrorCode::SlugTaken),
            ProgramError::PurposeMismatch => conflict(ErrorCode::PurposeMismatch),
            ProgramError::NoticeRequired => conflict(ErrorCode::NoticeRequired),
            ProgramError::ContentRequired => conflict(ErrorCode::ContentRequired),
            ProgramError::SeatCapBelowUse => conflict(ErrorCode::SeatCapBelowUse),
            ProgramError::ClerkSyncRefused => ApiError::BadRequest(ErrorCode::InvalidClerkSync),
            ProgramError::IdentityUnavailable => ApiError::IdentityUnavailable("organization lookup".into()),
            ProgramError::Db(e) => e.into(),
        }
    }
}

impl From<DecisionError> for ApiError {
    fn from(e: DecisionError) -> Self {
        match e {
            DecisionError::NotFound => ApiError::NotFound,
            DecisionError::InvalidTransition => ApiError::Conflict(ErrorCode::InvalidTransition),
            DecisionError::Db(e) => e.into(),
        }
    }
}

impl From<InvitationError> for ApiError {
    fn from(e: InvitationError) -> Self {
        let conflict = ApiError::Conflict;
        match e {
            InvitationError::NotFound => ApiError::NotFound,
            InvitationError::KeyReused => conflict(ErrorCode::RequestKeyReused),
            InvitationError::InvalidTransition => conflict(ErrorCode::InvalidTransition),
            InvitationError::ExpiryOutOfRange => conflict(ErrorCode::ExpiryOutOfRange),
            InvitationError::NoSeatAvailable => conflict(ErrorCode::NoSeatAvailable),
            InvitationError::InvitationOutstanding => conflict(ErrorCode::InvitationOutstanding),
            InvitationError::GrantActive => conflict(ErrorCode::GrantActive),
            InvitationError::NotIssued => conflict(ErrorCode::InvitationNotIssued),
            InvitationError::DeliveryAlreadyRecorded => conflict(ErrorCode::DeliveryAlreadyRecorded),
            InvitationError::Db(e) => e.into(),
        }
    }
}

impl From<ErasureError> for ApiError {
    fn from(e: ErasureError) -> Self {
        match e {
            ErasureError::NotFound => ApiError::NotFound,
            ErasureError::InvalidTransition => ApiError::Conflict(ErrorCode::InvalidTransition),
            ErasureError::Db(e) => e.into(),
        }
    }
}

impl From<CohortError> for ApiError {
    fn from(e: CohortError) -> Self {
        match e {
            CohortError::NotFound => ApiError::NotFound,
            CohortError::ExpiryOutOfRange => ApiError::Conflict(ErrorCode::ExpiryOutOfRange),
            CohortError::Db(e) => e.into(),
        }
    }
}

impl From<WebhookError> for ApiError {
    fn from(e: WebhookError) -> Self {
        match e {
            WebhookError::NotFound => ApiError::NotFound,
            WebhookError::InvalidUrl => ApiError::BadRequest(ErrorCode::InvalidUrl),
            WebhookError::RefusedUrl => ApiError::BadRequest(ErrorCode::WebhookUrlRefused),
            WebhookError::Disabled => ApiError::Conflict(ErrorCode::WebhookDisabled),
            WebhookError::InvalidEvents => ApiError::BadRequest(ErrorCode::InvalidEvents),
            WebhookError::InvalidProgramIds => ApiError::BadRequest(ErrorCode::InvalidProgramIds),
            WebhookError::Limit => ApiError::Conflict(ErrorCode::WebhookLimit),
            WebhookError::Db(e) => e.into(),
        }
    }
}

impl From<DrawError> for ApiError {
    fn from(e: DrawError) -> Self {
        let conflict = ApiError::Conflict;
        match e {
            DrawError::NotFound => ApiError::NotFound,
            DrawError::InvalidTransition => conflict(ErrorCode::InvalidTransition),
            DrawError::AlreadyOpen => conflict(ErrorCode::DrawAlreadyOpen),
            DrawError::AlreadyRun => conflict(ErrorCode::DrawAlreadyRun),
            DrawError::NoCandidates => conflict(ErrorCode::DrawNoCandidates),
            DrawError::SeatsInsufficient => conflict(ErrorCode::DrawSeatsInsufficient),
            DrawError::NotClosed => conflict(ErrorCode::DrawNotClosed),
            DrawError::Cancelled => conflict(ErrorCode::DrawCancelled),
            DrawError::BeaconNotDue => conflict(ErrorCode::BeaconNotDue),
            DrawError::BeaconUnavailable => conflict(ErrorCode::BeaconUnavailable),
            DrawError::InvalidClosesAt => ApiError::BadRequest(ErrorCode::InvalidClosesAt),
            DrawError::InvalidBeacon => ApiError::BadRequest(ErrorCode::InvalidBeacon),
            DrawError::InvalidReason => ApiError::BadRequest(ErrorCode::InvalidReasonCode),
            DrawError::Db(e) => e.into(),
        }
    }
}

impl From<ApiKeyError> for ApiError {
    fn from(e: ApiKeyError) -> Self {
        match e {
            ApiKeyError::NotFound => ApiError::NotFound,
            ApiKeyError::InvalidName => ApiError::BadRequest(ErrorCode::InvalidName),
            ApiKeyError::InvalidScopes => ApiError::BadRequest(ErrorCode::InvalidScopes),
            ApiKeyError::Db(e) => e.into(),
        }
    }
}

impl From<ServerApiError> for ApiError {
    fn from(e: ServerApiError) -> Self {
        match e {
            ServerApiError::NotFound => ApiError::NotFound,
            ServerApiError::MissingScope => ApiError::Forbidden(ErrorCode::MissingScope),
            ServerApiError::IdentityUnavailable(why) => ApiError::IdentityUnavailable(why),
            ServerApiError::Db(e) => e.into(),
        }
    }
}

impl From<HookSecretError> for ApiError {
    fn from(e: HookSecretError) -> Self {
        match e {
            HookSecretError::NotFound => ApiError::NotFound,
            HookSecretError::Db(e) => e.into(),
        }
    }
}
