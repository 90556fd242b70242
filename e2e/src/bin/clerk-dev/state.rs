//! The shared application state: the in-memory store behind a mutex, the signing key,
//! the Backend API secret and the default token lifetime, plus the one operation that
//! spans both store and key (minting a token for an active session).

use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::error::ClerkError;
use crate::keys::{SigningKey, TokenRequest};
use crate::store::Store;

pub struct AppState {
    store: Mutex<Store>,
    key: SigningKey,
    secret: String,
    token_ttl: i64,
}

impl AppState {
    pub fn new(key: SigningKey, secret: String, token_ttl: i64) -> Self {
        Self { store: Mutex::new(Store::default()), key, secret, token_ttl }
    }

    /// Locks the store; a panic in another handler does not make the state unusable.
    pub fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits as long as `POST /dev/faults {"writeDelayMs": N}` asks before a write (or a
    /// user's membership listing, which a sync reads between its writes) applies.
    pub async fn slow_write(&self) {
        let delay = self.store().faults.write_delay_ms;
        if delay > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
        }
    }

    pub fn key(&self) -> &SigningKey {
        &self.key
    }

    pub fn token_ttl(&self) -> i64 {
        self.token_ttl
    }

    /// Whether `presented` equals the configured secret key (compared in constant time
    /// for equal lengths).
    pub fn secret_matches(&self, presented: &[u8]) -> bool {
        let expected = self.secret.as_bytes();
        expected.len() == presented.len() && expected.iter().zip(presented).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }

    /// Signs a token for session `session_id` if it exists and is active (404 otherwise).
    /// The store lock is released before signing.
    pub fn mint(&self, session_id: &str, request: &TokenRequest) -> Result<String, ClerkError> {
        let session = self.store().active_session(session_id)?;
        self.key.mint(&session.user_id, &session.id, request).map_err(|_| ClerkError::internal())
    }
}
