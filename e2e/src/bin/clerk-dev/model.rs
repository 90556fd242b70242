//! The Clerk Backend API objects clerk-dev keeps and returns: User, EmailAddress and
//! Session, serialized in Clerk's JSON shapes (snake_case, timestamps in ms since the
//! epoch, an `object` discriminator on each).

use serde::Serialize;

/// A Clerk `User`, as `GET /v1/users/{id}` returns it.
#[derive(Debug, Clone, Serialize)]
pub struct User {
    pub id: String,
    pub object: &'static str,
    pub primary_email_address_id: Option<String>,
    pub email_addresses: Vec<EmailAddress>,
    pub created_at: i64,
    pub updated_at: i64,
    /// Creation order, so "the first user with this email" is well defined.
    #[serde(skip)]
    pub seq: u64,
}

/// A Clerk `EmailAddress`; only `verification.status == "verified"` counts.
#[derive(Debug, Clone, Serialize)]
pub struct EmailAddress {
    pub id: String,
    pub object: &'static str,
    pub email_address: String,
    pub verification: Verification,
    pub linked_to: Vec<serde_json::Value>,
    pub reserved: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

/// The verification of an email address, as set by the Backend API ("admin" strategy).
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    pub status: &'static str,
    pub strategy: &'static str,
    pub attempts: Option<u32>,
    pub expire_at: Option<i64>,
}

impl Verification {
    pub fn admin(verified: bool) -> Self {
        Self {
            status: if verified { "verified" } else { "unverified" },
            strategy: "admin",
            attempts: None,
            expire_at: None,
        }
    }
}

/// A Clerk `Session`; tokens are only minted while it is `active`.
#[derive(Debug, Clone, Serialize)]
pub struct Session {
    pub id: String,
    pub object: &'static str,
    pub user_id: String,
    pub client_id: String,
    pub status: SessionStatus,
    pub last_active_at: i64,
    pub expire_at: i64,
    pub abandon_at: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    Active,
    Revoked,
}

/// Milliseconds since the Unix epoch, Clerk's timestamp unit.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}
