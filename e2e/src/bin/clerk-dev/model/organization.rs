//! Organizations and their memberships. The store keeps [`Organization`] and
//! [`Membership`] rows; [`MembershipView`] is the Clerk `OrganizationMembership` object
//! built from them when answering, so it always embeds the current organization and the
//! member's current primary email as `public_user_data.identifier`.

use serde::Serialize;

use super::{Metadata, User};

/// A Clerk `Organization`.
#[derive(Debug, Clone, Serialize)]
pub struct Organization {
    pub id: String,
    pub object: &'static str,
    pub name: String,
    pub slug: String,
    pub image_url: &'static str,
    pub has_image: bool,
    /// Reported as given; clerk-dev does not enforce it (0 means no limit, as in Clerk).
    pub max_allowed_memberships: u32,
    pub admin_delete_enabled: bool,
    pub public_metadata: Metadata,
    pub private_metadata: Metadata,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
    /// Only present when asked for (`include_members_count=true`), as in Clerk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members_count: Option<usize>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A stored membership of one user in one organization.
#[derive(Debug, Clone)]
pub struct Membership {
    pub id: String,
    pub organization_id: String,
    pub user_id: String,
    pub role: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// Creation order; lists are ordered by it.
    pub seq: u64,
}

/// Clerk's `OrganizationMembership` object.
#[derive(Debug, Clone, Serialize)]
pub struct MembershipView {
    pub id: String,
    pub object: &'static str,
    pub role: String,
    pub permissions: Vec<&'static str>,
    pub public_metadata: Metadata,
    pub private_metadata: Metadata,
    pub organization: Organization,
    pub public_user_data: PublicUserData,
    pub created_at: i64,
    pub updated_at: i64,
}

/// `OrganizationMembership.public_user_data`.
#[derive(Debug, Clone, Serialize)]
pub struct PublicUserData {
    pub user_id: String,
    pub identifier: String,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub image_url: &'static str,
    pub has_image: bool,
}

/// The system permissions Clerk documents for its two default roles (admin: all of them;
/// member: read members and billing); custom roles carry none here.
fn permissions(role: &str) -> Vec<&'static str> {
    match role {
        "org:admin" => vec![
            "org:sys_profile:manage",
            "org:sys_profile:delete",
            "org:sys_memberships:read",
            "org:sys_memberships:manage",
            "org:sys_domains:read",
            "org:sys_domains:manage",
            "org:sys_billing:read",
            "org:sys_billing:manage",
        ],
        "org:member" => vec!["org:sys_memberships:read", "org:sys_billing:read"],
        _ => Vec::new(),
    }
}

impl Membership {
    /// The Clerk object for this membership of `user` in `organization`.
    pub fn view(&self, organization: &Organization, user: &User) -> MembershipView {
        let identifier = user
            .primary_email_address_id
            .as_ref()
            .and_then(|primary| user.email_addresses.iter().find(|e| &e.id == primary))
            .map(|e| e.email_address.clone())
            .unwrap_or_default();
        MembershipView {
            id: self.id.clone(),
            object: "organization_membership",
            role: self.role.clone(),
            permissions: permissions(&self.role),
            public_metadata: Metadata::new(),
            private_metadata: Metadata::new(),
            organization: Organization { members_count: None, ..organization.clone() },
            public_user_data: PublicUserData {
                user_id: user.id.clone(),
                identifier,
                first_name: None,
                last_name: None,
                image_url: "",
                has_image: false,
            },
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}
