//! The one error body every API failure uses, `{"error":{"code","message"}}`, and the
//! one list of codes it may carry. The server builds its answers from [`ErrorCode`]; the
//! SPA matches on it; neither side spells a code as a string.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorDetail {
    /// Stable snake_case code a client can branch on.
    pub code: ErrorCode,
    /// Generic text, safe to show; never contains input or personal data.
    pub message: String,
    /// With `invalid_answer`: the id of the question whose answer is refused (the
    /// owner's id, never the applicant's text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
}

/// Every code the API sends, by the status it comes with (SPEC §6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    // 400: malformed input, refused before anything is read or written.
    InvalidBody,
    InvalidQuery,
    InvalidEmail,
    InvalidCode,
    InvalidSlug,
    InvalidPurpose,
    InvalidContactText,
    InvalidRetentionText,
    InvalidCap,
    InvalidMaxInviteDays,
    InvalidContentBody,
    InvalidRevision,
    InvalidReasonCode,
    InvalidBasis,
    InvalidCount,
    InvalidEntryIds,
    InvalidExpiry,
    InvalidDeliveryRecord,
    DeliveryRecordNamesASecret,
    InvalidLimit,
    InvalidState,
    InvalidCursor,
    InvalidSearch,
    InvalidWinners,
    InvalidTitle,
    InvalidDescription,
    InvalidRef,
    InvalidFlag,
    InvalidInvitationFilter,
    ChallengeFailed,
    InvalidProofOfWork,
    InvalidEmbedOrigins,
    InvalidLabel,
    InvalidMaxUses,
    InvalidNote,
    InvalidClerkSync,
    InvalidUrl,
    /// A webhook URL that production refuses: not https, or loopback, private or link-local.
    WebhookUrlRefused,
    InvalidEvents,
    InvalidProgramIds,
    InvalidName,
    InvalidScopes,
    /// A draw's `closesAt` in the past or more than 90 days ahead.
    InvalidClosesAt,
    /// A pasted beacon that is not the draw's round, not hex, or whose signature does not verify.
    InvalidBeacon,
    /// A notice's questions break `shared::questions`'s rules.
    InvalidQuestions,
    /// A missing required answer, an unknown choice, an answer too long or of the wrong
    /// form; `question` names it.
    InvalidAnswer,
    /// The joining address is not one of the account's verified addresses.
    EmailNotVerified,
    /// A recovery's `since` that is not an RFC 3339 time.
    InvalidSince,
    // 401
    SignedOut,
    /// The admission hook's call had a wrong or stale signature, or a replayed id.
    HookSignatureRejected,
    // 403
    OriginRejected,
    CsrfRejected,
    /// An API key without the scope the route needs.
    MissingScope,
    /// The admission hook refuses the sign-up.
    SignupNotAdmitted,
    // 404: absent, foreign, revoked or not permitted — one shape for all.
    NotFound,
    // 409
    RequestKeyReused,
    SignupClosed,
    NoticeOutdated,
    PermissionRequired,
    StaleRevision,
    SlugTaken,
    PurposeMismatch,
    NoticeRequired,
    ContentRequired,
    SeatCapBelowUse,
    InvalidTransition,
    /// The program asks applicants to join signed in (`joinWith: "account"`).
    AccountRequired,
    ExpiryOutOfRange,
    NoSeatAvailable,
    InvitationOutstanding,
    GrantActive,
    InvitationNotIssued,
    DeliveryAlreadyRecorded,
    DrawAlreadyOpen,
    DrawAlreadyRun,
    DrawNoCandidates,
    DrawSeatsInsufficient,
    /// The draw's entries have not closed yet.
    DrawNotClosed,
    DrawCancelled,
    /// The draw's beacon round is not due yet.
    BeaconNotDue,
    /// No relay is configured, or it did not answer with the round: paste the signature.
    BeaconUnavailable,
    /// A workspace already has [`crate::integrations::MAX_WEBHOOKS_PER_WORKSPACE`] webhook endpoints.
    WebhookLimit,
    /// The endpoint is disabled: enable it first (a test or a recovery is not sent to it).
    WebhookDisabled,
    // 405: a known path asked with a method it does not serve (with `Allow`).
    MethodNotAllowed,
    // 413, 415
    PayloadTooLarge,
    UnsupportedMediaType,
    // 429: a cap or an attempt rate (the body never says which).
    TooManyRequests,
    // 503
    IdentityUnavailable,
    ServiceUnavailable,
    // 500
    InternalError,
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| fmt::Error)?.replace('"', ""))
    }
}
