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
