//! The Clerk Backend API objects clerk-dev keeps and returns: User, EmailAddress and
//! Session (organizations live in [`organization`]), serialized in Clerk's JSON shapes
//! (snake_case, timestamps in ms since the epoch, an `object` discriminator on each).

pub mod organization;

use serde::Serialize;
use serde_json::{Map, Value};

/// A JSON object: Clerk's `public_metadata`, `private_metadata` and `unsafe_metadata`.
pub type Metadata = Map<String, Value>;

/// A Clerk `User`, as `GET /v1/users/{id}` returns it.
#[derive(Debug, Clone, Serialize)]
pub struct User {
    pub id: String,
    pub object: &'static str,
    pub primary_email_address_id: Option<String>,
    pub email_addresses: Vec<EmailAddress>,
    /// As given at creation (Clerk's `first_name` / `last_name` parameters), else null.
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub public_metadata: Metadata,
    pub private_metadata: Metadata,
    pub unsafe_metadata: Metadata,
    pub created_at: i64,
    pub updated_at: i64,
    /// The fields clerk-dev never changes, present so that clients (Clerk's own SDK
    /// among them) read a complete User.
    #[serde(flatten)]
    pub fixed: FixedUserFields,
    /// Creation order, so "the first user with this email" is well defined.
    #[serde(skip)]
    pub seq: u64,
}

/// The rest of Clerk's User object, at the values a user made through the Backend API
/// with only email addresses (and perhaps a name) has: no username, image, phone, wallet, password, second factor
/// or external account, never signed in, not banned or locked.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FixedUserFields {
    external_id: Option<String>,
    username: Option<String>,
    image_url: &'static str,
    has_image: bool,
    primary_phone_number_id: Option<String>,
    primary_web3_wallet_id: Option<String>,
    phone_numbers: [Value; 0],
    web3_wallets: [Value; 0],
    passkeys: [Value; 0],
    external_accounts: [Value; 0],
    saml_accounts: [Value; 0],
    enterprise_accounts: [Value; 0],
    password_enabled: bool,
    password_last_updated_at: Option<i64>,
    two_factor_enabled: bool,
    totp_enabled: bool,
    backup_code_enabled: bool,
    mfa_enabled_at: Option<i64>,
    mfa_disabled_at: Option<i64>,
    last_sign_in_at: Option<i64>,
    last_active_at: Option<i64>,
    banned: bool,
    locked: bool,
    deprovisioned: bool,
    lockout_expires_in_seconds: Option<i64>,
    verification_attempts_remaining: Option<i64>,
    legal_accepted_at: Option<i64>,
    create_organization_enabled: bool,
    create_organizations_limit: Option<i64>,
    delete_self_enabled: bool,
    locale: Option<String>,
    timezone: Option<String>,
}

impl FixedUserFields {
    pub fn new() -> Self {
        Self { create_organization_enabled: true, delete_self_enabled: true, ..Self::default() }
    }
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
