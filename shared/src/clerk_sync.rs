//! "On grant, in Clerk" (issue 14): a program's setting that mirrors each active grant
//! into the user's Clerk `public_metadata.vestibule.programs.<slug>` and, optionally,
//! into an organization membership with a non-admin role.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClerkSyncSetting {
    pub public_metadata: bool,
    /// A Clerk organization id (`org_…`); with it, `role` is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(pattern = r"^[A-Za-z0-9_]{1,64}$"))]
    pub organization_id: Option<String>,
    /// `org:<key>`, never an admin role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(pattern = r"^org:[a-z0-9_-]{1,60}$"))]
    pub role: Option<String>,
}

/// One Backend API call of the delivery log, in plain words for the owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum ClerkCall {
    /// `PATCH /v1/users/{id}/metadata` setting the program's key.
    MetadataAdd,
    /// The same call deleting the key (`null`).
    MetadataRemove,
    /// `GET /v1/users/{id}/organization_memberships`: does the user already belong?
    MembershipCheck,
    /// `POST /v1/organizations/{org}/memberships`.
    MembershipAdd,
    /// `DELETE /v1/organizations/{org}/memberships/{user}`.
    MembershipRemove,
}

impl ClerkCall {
    pub const ALL: [ClerkCall; 5] = [
        ClerkCall::MetadataAdd,
        ClerkCall::MetadataRemove,
        ClerkCall::MembershipCheck,
        ClerkCall::MembershipAdd,
        ClerkCall::MembershipRemove,
    ];

    /// The stored name (`clerk_sync_calls.call`).
    pub fn as_str(self) -> &'static str {
        match self {
            ClerkCall::MetadataAdd => "metadata_add",
            ClerkCall::MetadataRemove => "metadata_remove",
            ClerkCall::MembershipCheck => "membership_check",
            ClerkCall::MembershipAdd => "membership_add",
            ClerkCall::MembershipRemove => "membership_remove",
        }
    }

    pub fn parse(s: &str) -> Option<ClerkCall> {
        ClerkCall::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// What the call does, for the owner's table.
    pub fn label(self) -> &'static str {
        match self {
            ClerkCall::MetadataAdd => "Note access on the account",
            ClerkCall::MetadataRemove => "Remove the note from the account",
            ClerkCall::MembershipCheck => "Check organization membership",
            ClerkCall::MembershipAdd => "Add to organization",
            ClerkCall::MembershipRemove => "Remove from organization",
        }
    }
}

/// A call's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum ClerkCallOutcome {
    Succeeded,
    /// Failed, and its delivery will not try again by itself (a later attempt made the
    /// calls again, or the delivery gave up).
    Failed,
    /// Failed in its delivery's latest attempt; tried again at `nextAttemptAt`.
    Pending,
}

/// One row of the "On grant, in Clerk" delivery log: ids of Vestibule's own rows and the
/// call's result only — never a Clerk user id, an email or a response body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClerkSyncCallLog {
    pub id: i64,
    /// The outbox delivery the call belongs to (what a retry names).
    pub delivery_id: i64,
    pub call: ClerkCall,
    /// `grant.created` (put into Clerk) or `grant.revoked` (taken back).
    pub event_type: String,
    pub grant_id: Option<uuid::Uuid>,
    pub entry_id: Option<uuid::Uuid>,
    /// 1 for the delivery's first attempt.
    pub attempt: i32,
    pub outcome: ClerkCallOutcome,
    /// Clerk's HTTP status; absent when no answer came.
    pub status_code: Option<i32>,
    /// `connection` when no answer came (refused, reset or timed out).
    pub error: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub next_attempt_at: Option<crate::api::Timestamp>,
    /// The call failed in its delivery's latest attempt and the delivery is not done:
    /// the owner may make it due now.
    pub can_retry: bool,
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: crate::api::Timestamp,
}

/// A page of the log, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClerkSyncCallsResponse {
    pub calls: Vec<ClerkSyncCallLog>,
    pub next_cursor: Option<String>,
}

/// An organization id Clerk could have issued (`org_` and base62).
pub fn organization_id_ok(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A non-admin organization role: `org:<key>`, the key without "admin".
pub fn role_ok(role: &str) -> bool {
    role.strip_prefix("org:").is_some_and(|key| {
        (1..=60).contains(&key.len())
            && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
            && !key.contains("admin")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admin_roles_are_refused() {
        assert!(role_ok("org:member") && role_ok("org:beta_tester"));
        for bad in ["org:admin", "org:billing_admin", "member", "org:", "org:Member"] {
            assert!(!role_ok(bad), "{bad}");
        }
    }
}
