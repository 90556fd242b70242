//! The in-memory state behind clerk-dev: users with their email addresses and metadata,
//! sessions, organizations with their memberships ([`organizations`]), and the injected
//! faults. Every operation is synchronous and short; callers hold the lock only for the
//! call and never across I/O or token signing.

mod metadata;
mod organizations;

use std::collections::HashMap;

use rand::{distributions::Alphanumeric, Rng};
use shared::EmailKey;

use crate::error::ClerkError;
use crate::model::organization::{Membership, Organization};
use crate::model::{now_ms, EmailAddress, FixedUserFields, Metadata, Session, SessionStatus, User, Verification};

pub use metadata::MetadataPatch;
pub use organizations::{NewOrganization, Page};

/// Session lifetime reported in `expire_at` / `abandon_at` (informational only).
const SESSION_EXPIRE_MS: i64 = 7 * 24 * 3600 * 1000;
const SESSION_ABANDON_MS: i64 = 30 * 24 * 3600 * 1000;

/// `<prefix>` followed by 27 random alphanumerics, like Clerk's ids.
pub fn random_id(prefix: &str) -> String {
    let tail: String = rand::thread_rng().sample_iter(&Alphanumeric).take(27).map(char::from).collect();
    format!("{prefix}{tail}")
}

/// Outages injected through `POST /dev/faults`.
#[derive(Debug, Default, Clone, Copy)]
pub struct Faults {
    /// `GET /v1/users/{id}` answers 503.
    pub users_unavailable: bool,
    /// The writes an outbox retries answer 503: `PATCH /v1/users/{id}/metadata`,
    /// `POST /v1/organizations/{id}/memberships` and
    /// `DELETE /v1/organizations/{id}/memberships/{user_id}`.
    pub writes_unavailable: bool,
    /// Those writes, and a user's membership listing, take this long (a slow Clerk), in ms.
    pub write_delay_ms: u64,
}

#[derive(Debug, Default)]
pub struct Store {
    users: HashMap<String, User>,
    /// Email address id → owning user id.
    email_owner: HashMap<String, String>,
    sessions: HashMap<String, Session>,
    organizations: HashMap<String, Organization>,
    /// (organization id, user id) → membership.
    memberships: HashMap<(String, String), Membership>,
    next_seq: u64,
    pub faults: Faults,
}

impl Store {
    fn next_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// Creates a user whose `addresses` are all verified (the first becomes primary),
    /// with the given name (first, last) and initial metadata.
    pub fn create_user(&mut self, addresses: &[String], name: [Option<String>; 2], metadata: MetadataPatch) -> User {
        let [first_name, last_name] = name;
        let now = now_ms();
        let mut user = User {
            id: random_id("user_"),
            object: "user",
            primary_email_address_id: None,
            email_addresses: Vec::new(),
            first_name,
            last_name,
            public_metadata: Metadata::new(),
            private_metadata: Metadata::new(),
            unsafe_metadata: Metadata::new(),
            created_at: now,
            updated_at: now,
            fixed: FixedUserFields::new(),
            seq: self.next_seq(),
        };
        metadata.apply(&mut user);
        let id = user.id.clone();
        self.users.insert(id.clone(), user);
        for address in addresses {
            self.attach_email(&id, address.clone(), true, false);
        }
        self.users[&id].clone()
    }

    pub fn user(&self, id: &str) -> Result<User, ClerkError> {
        self.users.get(id).cloned().ok_or_else(|| ClerkError::not_found("user"))
    }

    /// Deletes a user with everything that hangs off it: email addresses, sessions (so
    /// they mint no more tokens) and organization memberships. Organizations it created
    /// stay, as in Clerk.
    pub fn delete_user(&mut self, id: &str) -> Result<(), ClerkError> {
        let user = self.users.remove(id).ok_or_else(|| ClerkError::not_found("user"))?;
        for email in &user.email_addresses {
            self.email_owner.remove(&email.id);
        }
        self.sessions.retain(|_, session| session.user_id != id);
        self.memberships.retain(|(_, user_id), _| user_id != id);
        Ok(())
    }

    /// Merges `patch` into the user's metadata (see [`MetadataPatch::apply`]).
    pub fn update_metadata(&mut self, id: &str, patch: MetadataPatch) -> Result<User, ClerkError> {
        let user = self.users.get_mut(id).ok_or_else(|| ClerkError::not_found("user"))?;
        patch.apply(user);
        user.updated_at = now_ms();
        Ok(user.clone())
    }

    /// Adds an address to an existing user; it becomes primary when asked or when the
    /// user has none yet.
    pub fn add_email(
        &mut self,
        user_id: &str,
        address: String,
        verified: bool,
        primary: bool,
    ) -> Result<EmailAddress, ClerkError> {
        if !self.users.contains_key(user_id) {
            return Err(ClerkError::not_found("user"));
        }
        Ok(self.attach_email(user_id, address, verified, primary))
    }

    fn attach_email(&mut self, user_id: &str, address: String, verified: bool, primary: bool) -> EmailAddress {
        let now = now_ms();
        let email = EmailAddress {
            id: random_id("idn_"),
            object: "email_address",
            email_address: address,
            verification: Verification::admin(verified),
            linked_to: Vec::new(),
            reserved: false,
            created_at: now,
            updated_at: now,
        };
        self.email_owner.insert(email.id.clone(), user_id.to_owned());
        if let Some(user) = self.users.get_mut(user_id) {
            if primary || user.primary_email_address_id.is_none() {
                user.primary_email_address_id = Some(email.id.clone());
            }
            user.email_addresses.push(email.clone());
            user.updated_at = now;
        }
        email
    }

    /// Sets the verification status and/or makes the address primary.
    pub fn update_email(
        &mut self,
        id: &str,
        verified: Option<bool>,
        primary: Option<bool>,
    ) -> Result<EmailAddress, ClerkError> {
        let user = self.email_user_mut(id)?;
        let now = now_ms();
        if primary == Some(true) {
            user.primary_email_address_id = Some(id.to_owned());
        }
        user.updated_at = now;
        let email = user
            .email_addresses
            .iter_mut()
            .find(|e| e.id == id)
            .ok_or_else(|| ClerkError::not_found("email address"))?;
        if let Some(verified) = verified {
            email.verification = Verification::admin(verified);
        }
        email.updated_at = now;
        Ok(email.clone())
    }

    /// Removes an address; if it was primary, the user's next address (if any) takes over.
    pub fn delete_email(&mut self, id: &str) -> Result<(), ClerkError> {
        let user = self.email_user_mut(id)?;
        user.email_addresses.retain(|e| e.id != id);
        if user.primary_email_address_id.as_deref() == Some(id) {
            user.primary_email_address_id = user.email_addresses.first().map(|e| e.id.clone());
        }
        user.updated_at = now_ms();
        self.email_owner.remove(id);
        Ok(())
    }

    fn email_user_mut(&mut self, email_id: &str) -> Result<&mut User, ClerkError> {
        self.email_owner
            .get(email_id)
            .and_then(|user_id| self.users.get_mut(user_id))
            .ok_or_else(|| ClerkError::not_found("email address"))
    }

    /// The earliest-created user owning an address (verified or not) equal to `email`
    /// under the shared grammar, or a new user with `email` verified.
    pub fn find_or_create_by_email(&mut self, email: &EmailKey) -> String {
        let found = self
            .users
            .values()
            .filter(|u| u.email_addresses.iter().any(|e| EmailKey::parse(&e.email_address).is_ok_and(|k| &k == email)))
            .min_by_key(|u| u.seq);
        match found {
            Some(user) => user.id.clone(),
            None => self.create_user(&[email.as_str().to_owned()], [None, None], MetadataPatch::default()).id,
        }
    }

    pub fn create_session(&mut self, user_id: &str) -> Result<Session, ClerkError> {
        if !self.users.contains_key(user_id) {
            return Err(ClerkError::not_found("user"));
        }
        let now = now_ms();
        let session = Session {
            id: random_id("sess_"),
            object: "session",
            user_id: user_id.to_owned(),
            client_id: random_id("client_"),
            status: SessionStatus::Active,
            last_active_at: now,
            expire_at: now + SESSION_EXPIRE_MS,
            abandon_at: now + SESSION_ABANDON_MS,
            created_at: now,
            updated_at: now,
        };
        self.sessions.insert(session.id.clone(), session.clone());
        Ok(session)
    }

    /// The session if it exists and is still active: the only state tokens are minted in.
    pub fn active_session(&self, id: &str) -> Result<Session, ClerkError> {
        self.sessions
            .get(id)
            .filter(|s| s.status == SessionStatus::Active)
            .cloned()
            .ok_or_else(|| ClerkError::not_found("active session"))
    }

    pub fn revoke_session(&mut self, id: &str) -> Result<Session, ClerkError> {
        let session = self.sessions.get_mut(id).ok_or_else(|| ClerkError::not_found("session"))?;
        if session.status == SessionStatus::Active {
            session.status = SessionStatus::Revoked;
            session.updated_at = now_ms();
        }
        Ok(session.clone())
    }
}
