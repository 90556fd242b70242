//! Identity (SPEC §3): who is calling, and which verified emails they hold right now.
//! Policy: the token proves the user and session; only the Backend API, asked fresh on
//! every recipient request and before any transaction, proves an email. A bad token or a
//! failed lookup is an error, never a guess (the HTTP layer answers 401 or 503).

mod backend;
mod names;
mod tokens;

pub use backend::{BackendClient, LookupError, WriteOutcome};
pub use names::OwnerNames;
pub use tokens::{Claims, TokenError, TokenVerifier, JWKS_FAILURE_BACKOFF};

use shared::EmailKey;
use std::fmt;

/// A caller whose session token verified (the HTTP extractor, `crate::http::extract`,
/// also checks the session-bound CSRF token on mutating requests). `Debug` is redacted:
/// a Clerk id is personal data and never reaches a log.
#[derive(Clone)]
pub struct Session {
    pub user_id: String,
    pub session_id: String,
}

/// A signed-in user together with the verified emails the provider reports right now.
/// `Debug` is redacted: it tells how many emails, never which.
#[derive(Clone)]
pub struct VerifiedUser {
    pub session: Session,
    pub emails: Vec<EmailKey>,
}

impl VerifiedUser {
    /// The verified emails as the identity keys entries are stored under.
    pub fn email_keys(&self) -> Vec<&str> {
        self.emails.iter().map(EmailKey::as_str).collect()
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session").field("user_id", &"<redacted>").field("session_id", &"<redacted>").finish()
    }
}

impl fmt::Debug for VerifiedUser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerifiedUser")
            .field("session", &self.session)
            .field("emails", &format_args!("<{} redacted>", self.emails.len()))
            .finish()
    }
}

/// Both halves of the identity provider.
pub struct Identity {
    pub verifier: TokenVerifier,
    pub backend: BackendClient,
    /// Owners' display names for the owner pages, cached briefly.
    pub names: OwnerNames,
}

impl Identity {
    pub fn new(settings: &crate::config::Settings) -> anyhow::Result<Self> {
        let backend = BackendClient::new(&settings.clerk_api_url, &settings.clerk_secret_key)?;
        let parties = if settings.clerk_authorized_parties.is_empty() {
            settings.app_origins.clone()
        } else {
            settings.clerk_authorized_parties.clone()
        };
        let verifier = TokenVerifier::new(settings.clerk_jwt_key.as_deref(), backend.clone(), parties)?;
        Ok(Identity { verifier, names: OwnerNames::new(backend.clone()), backend })
    }
}

/// Whether a string has the shape of a Clerk user id (used by the CLI before any lookup).
pub fn backend_user_id_ok(id: &str) -> bool {
    backend::is_plausible_user_id(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_of_a_verified_user_holds_no_address_and_no_clerk_id() {
        let user = VerifiedUser {
            session: Session { user_id: "user_2secretid".into(), session_id: "sess_2secretid".into() },
            emails: vec![EmailKey::parse("alice@example.com").unwrap(), EmailKey::parse("bob@example.org").unwrap()],
        };
        for shown in [format!("{user:?}"), format!("{user:#?}"), format!("{:?}", user.session)] {
            for secret in ["alice", "bob", "example", "secretid"] {
                assert!(!shown.contains(secret), "{secret} in {shown}");
            }
        }
        assert!(format!("{user:?}").contains("2 redacted"));
    }
}
