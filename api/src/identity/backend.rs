//! A small client for the subset of Clerk's Backend API the server uses: the user's
//! verified emails, an owner's display name ([`profile`]) and the JWKS. Short timeouts;
//! anything unexpected is `Unavailable`. Error strings name the failure kind only, never
//! the user id or a response body.

mod organizations;
mod profile;
mod writes;

use reqwest::StatusCode;
use serde::Deserialize;
use shared::EmailKey;
use std::time::Duration;
pub use writes::WriteOutcome;

#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    /// The provider says the user does not exist (deleted): the session is worthless.
    #[error("user no longer exists")]
    UserGone,
    #[error("identity provider unavailable: {0}")]
    Unavailable(String),
}

#[derive(Clone)]
pub struct BackendClient {
    http: reqwest::Client,
    base: String,
    secret: String,
}

#[derive(Deserialize)]
struct User {
    email_addresses: Vec<EmailAddress>,
}

#[derive(Deserialize)]
struct EmailAddress {
    email_address: String,
    verification: Option<Verification>,
}

#[derive(Deserialize)]
struct Verification {
    status: String,
}

#[derive(Deserialize)]
pub struct Jwks {
    pub keys: Vec<Jwk>,
}

#[derive(Deserialize)]
pub struct Jwk {
    pub kid: Option<String>,
    pub kty: String,
    pub n: Option<String>,
    pub e: Option<String>,
}

/// Clerk ids are short ASCII tokens; anything else never reaches a URL.
pub fn is_plausible_user_id(id: &str) -> bool {
    (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl BackendClient {
    pub fn new(base: &str, secret: &str) -> anyhow::Result<Self> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(2))
            .timeout(Duration::from_secs(4))
            // Shorter than common server keep-alive timeouts (actix: 5 s), so an idle
            // connection is dropped here before the server closes it under a request.
            .pool_idle_timeout(Duration::from_secs(4))
            .build()?;
        Ok(BackendClient { http, base: base.trim_end_matches('/').to_owned(), secret: secret.to_owned() })
    }

    /// One GET. A pooled keep-alive connection that the server closed just as it was
    /// reused fails before any answer; the request is idempotent, so a transport error
    /// other than a timeout is tried once more on a fresh connection before the lookup
    /// counts as failed (a timeout is not retried: the caller's latency is bounded).
    async fn get(&self, path: &str) -> Result<reqwest::Response, LookupError> {
        let url = format!("{}{path}", self.base);
        let first = self.http.get(&url).bearer_auth(&self.secret).send().await;
        let outcome = match first {
            Err(e) if !e.is_timeout() => self.http.get(&url).bearer_auth(&self.secret).send().await,
            other => other,
        };
        outcome.map_err(|e| {
            LookupError::Unavailable(if e.is_timeout() { "timeout".into() } else { "transport error".into() })
        })
    }

    /// The user's emails whose verification status is `verified`, normalized with the
    /// shared grammar (addresses outside it are ignored: they can match no entry).
    /// Failures are counted in the `identity` metrics family.
    pub async fn verified_emails(&self, user_id: &str) -> Result<Vec<EmailKey>, LookupError> {
        let result = self.fetch_verified_emails(user_id).await;
        match &result {
            Ok(_) => {}
            Err(LookupError::UserGone) => crate::metrics::count("identity", "user_gone"),
            Err(LookupError::Unavailable(_)) => crate::metrics::count("identity", "users_unavailable"),
        }
        result
    }

    /// `GET /v1/users/{id}` read as `T`: an implausible id or a 404 is `UserGone`, any
    /// other answer or an unexpected body `Unavailable`.
    async fn user<T: serde::de::DeserializeOwned>(&self, user_id: &str) -> Result<T, LookupError> {
        if !is_plausible_user_id(user_id) {
            return Err(LookupError::UserGone);
        }
        let response = self.get(&format!("/v1/users/{user_id}")).await?;
        match response.status() {
            StatusCode::OK => {}
            StatusCode::NOT_FOUND => return Err(LookupError::UserGone),
            other => return Err(LookupError::Unavailable(format!("users endpoint answered {}", other.as_u16()))),
        }
        response.json().await.map_err(|_| LookupError::Unavailable("unexpected user body".into()))
    }

    async fn fetch_verified_emails(&self, user_id: &str) -> Result<Vec<EmailKey>, LookupError> {
        let user: User = self.user(user_id).await?;
        let mut emails: Vec<EmailKey> = user
            .email_addresses
            .into_iter()
            .filter(|a| a.verification.as_ref().is_some_and(|v| v.status == "verified"))
            .filter_map(|a| EmailKey::parse(&a.email_address).ok())
            .collect();
        emails.sort();
        emails.dedup();
        Ok(emails)
    }

    /// Whether the user exists (the owner CLI checks this before writing).
    pub async fn user_exists(&self, user_id: &str) -> Result<bool, LookupError> {
        match self.verified_emails(user_id).await {
            Ok(_) => Ok(true),
            Err(LookupError::UserGone) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The signing keys; a failure is counted as `identity`/`jwks_unavailable`.
    pub async fn jwks(&self) -> Result<Jwks, LookupError> {
        let result = self.fetch_jwks().await;
        if result.is_err() {
            crate::metrics::count("identity", "jwks_unavailable");
        }
        result
    }

    async fn fetch_jwks(&self) -> Result<Jwks, LookupError> {
        let response = self.get("/v1/jwks").await?;
        if response.status() != StatusCode::OK {
            return Err(LookupError::Unavailable(format!("jwks endpoint answered {}", response.status().as_u16())));
        }
        response.json().await.map_err(|_| LookupError::Unavailable("unexpected jwks body".into()))
    }
}
