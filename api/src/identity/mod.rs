//! Identity (SPEC §3): who is calling, and which verified emails they hold right now.
//! Policy: the token proves the user and session; only the Backend API, asked fresh on
//! every recipient request and before any transaction, proves an email. A bad token or a
//! failed lookup is an error, never a guess (the HTTP layer answers 401 or 503).

mod backend;
mod tokens;

pub use backend::{BackendClient, LookupError, WriteOutcome};
pub use tokens::{Claims, TokenError, TokenVerifier, JWKS_FAILURE_BACKOFF};

use shared::EmailKey;

/// A caller whose session token verified (the HTTP extractor, `crate::http::extract`,
/// also checks the session-bound CSRF token on mutating requests).
#[derive(Debug, Clone)]
pub struct Session {
    pub user_id: String,
    pub session_id: String,
}

/// A signed-in user together with the verified emails the provider reports right now.
#[derive(Debug, Clone)]
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

/// Both halves of the identity provider.
pub struct Identity {
    pub verifier: TokenVerifier,
    pub backend: BackendClient,
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
        Ok(Identity { verifier, backend })
    }
}

/// Whether a string has the shape of a Clerk user id (used by the CLI before any lookup).
pub fn backend_user_id_ok(id: &str) -> bool {
    backend::is_plausible_user_id(id)
}
