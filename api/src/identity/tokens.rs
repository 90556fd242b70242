//! Session token verification (SPEC §3.1): RS256 only, against `CLERK_JWT_KEY` or the
//! JWKS (cached; refetched on an unknown `kid`, at most every few seconds), with `exp`,
//! `nbf` and `iat` checked with 5 s skew, `azp` (when present) in the authorized
//! parties, a `sid` present and no `sts` of `pending`. Nothing else in a token is trusted.

use super::backend::BackendClient;
use jsonwebtoken::{decode, decode_header, Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tokio::sync::{Mutex, RwLock};

const SKEW_SECONDS: u64 = 5;
const JWKS_MAX_AGE: Duration = Duration::from_secs(300);
/// Unknown `kid`s trigger at most one JWKS fetch per this interval, so forged tokens
/// cannot turn the API into a request amplifier against the provider.
const JWKS_MIN_REFETCH: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("invalid session token: {0}")]
    Invalid(&'static str),
    #[error("signing keys unavailable: {0}")]
    KeysUnavailable(String),
}

#[derive(Debug, Clone, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub sid: String,
    #[serde(default)]
    pub azp: Option<String>,
    #[serde(default)]
    pub sts: Option<String>,
    #[serde(default)]
    pub iat: Option<u64>,
}

/// The raw claim set, so a missing `sid` is told apart from a malformed token.
#[derive(Deserialize)]
struct RawClaims {
    sub: Option<String>,
    sid: Option<String>,
    azp: Option<String>,
    sts: Option<String>,
    iat: Option<u64>,
}

enum Keys {
    Static(DecodingKey),
    Jwks { backend: BackendClient, cache: RwLock<JwksCache>, refresh: Mutex<()> },
}

#[derive(Default)]
struct JwksCache {
    keys: HashMap<String, DecodingKey>,
    fetched_at: Option<Instant>,
}

pub struct TokenVerifier {
    keys: Keys,
    authorized_parties: Vec<String>,
    validation: Validation,
}

impl TokenVerifier {
    pub fn new(pem: Option<&str>, backend: BackendClient, authorized_parties: Vec<String>) -> anyhow::Result<Self> {
        let keys = match pem {
            Some(pem) => Keys::Static(DecodingKey::from_rsa_pem(pem.replace("\\n", "\n").as_bytes())?),
            None => Keys::Jwks { backend, cache: RwLock::new(JwksCache::default()), refresh: Mutex::new(()) },
        };
        let mut validation = Validation::new(Algorithm::RS256);
        validation.leeway = SKEW_SECONDS;
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp", "nbf", "sub"]);
        Ok(TokenVerifier { keys, authorized_parties, validation })
    }

    pub async fn verify(&self, token: &str) -> Result<Claims, TokenError> {
        let header = decode_header(token).map_err(|_| TokenError::Invalid("malformed"))?;
        if header.alg != Algorithm::RS256 {
            return Err(TokenError::Invalid("algorithm"));
        }
        let key = self.key_for(header.kid.as_deref()).await?;
        let data =
            decode::<RawClaims>(token, &key, &self.validation).map_err(|_| TokenError::Invalid("signature or time"))?;
        let raw = data.claims;
        let sub = raw.sub.filter(|s| super::backend::is_plausible_user_id(s)).ok_or(TokenError::Invalid("sub"))?;
        let sid = raw.sid.filter(|s| !s.is_empty() && s.len() <= 128).ok_or(TokenError::Invalid("sid"))?;
        if raw.sts.as_deref() == Some("pending") {
            return Err(TokenError::Invalid("pending session"));
        }
        if let Some(azp) = &raw.azp {
            if !self.authorized_parties.iter().any(|p| p == azp) {
                return Err(TokenError::Invalid("azp"));
            }
        }
        let now = jsonwebtoken::get_current_timestamp();
        if raw.iat.is_some_and(|iat| iat > now + SKEW_SECONDS) {
            return Err(TokenError::Invalid("iat"));
        }
        Ok(Claims { sub, sid, azp: raw.azp, sts: raw.sts, iat: raw.iat })
    }

    async fn key_for(&self, kid: Option<&str>) -> Result<DecodingKey, TokenError> {
        let (backend, cache, refresh) = match &self.keys {
            Keys::Static(key) => return Ok(key.clone()),
            Keys::Jwks { backend, cache, refresh } => (backend, cache, refresh),
        };
        let kid = kid.ok_or(TokenError::Invalid("kid"))?;
        {
            let c = cache.read().await;
            let fresh = c.fetched_at.is_some_and(|t| t.elapsed() < JWKS_MAX_AGE);
            if let (Some(key), true) = (c.keys.get(kid), fresh) {
                return Ok(key.clone());
            }
        }
        let _single_flight = refresh.lock().await;
        {
            let c = cache.read().await;
            let fresh = c.fetched_at.is_some_and(|t| t.elapsed() < JWKS_MAX_AGE);
            let recent = c.fetched_at.is_some_and(|t| t.elapsed() < JWKS_MIN_REFETCH);
            match c.keys.get(kid) {
                Some(key) if fresh => return Ok(key.clone()),
                None if recent => return Err(TokenError::Invalid("unknown kid")),
                _ => {}
            }
        }
        let jwks = backend.jwks().await.map_err(|e| TokenError::KeysUnavailable(e.to_string()))?;
        let keys: HashMap<String, DecodingKey> = jwks
            .keys
            .into_iter()
            .filter(|k| k.kty == "RSA")
            .filter_map(|k| {
                let key = DecodingKey::from_rsa_components(k.n.as_deref()?, k.e.as_deref()?).ok()?;
                Some((k.kid?, key))
            })
            .collect();
        let mut c = cache.write().await;
        c.keys = keys;
        c.fetched_at = Some(Instant::now());
        c.keys.get(kid).cloned().ok_or(TokenError::Invalid("unknown kid"))
    }
}
