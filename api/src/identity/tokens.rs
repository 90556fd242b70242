//! Session token verification (SPEC §3.1): RS256 only, against `CLERK_JWT_KEY` or the
//! JWKS (cached; refetched on an unknown `kid`, at most every few seconds), with `exp`,
//! `nbf` and `iat` checked with 5 s skew, `azp` (when present) in the authorized
//! parties, a `sid` present and no `sts` of `pending`. Nothing else in a token is trusted.
//!
//! Two caches keep the provider and the CPU out of the hot path:
//!
//! * **Verified tokens.** A token whose signature and claims passed is remembered by the
//!   SHA-256 of its exact text until its `exp` (plus the skew), and never longer than
//!   [`VERIFIED_MAX_AGE`], in a map of at most [`VERIFIED_CAPACITY`] entries. A session
//!   token is sent with every request of its minute of life, so all but the first skip
//!   the RSA verification: `cargo run --release -p api --example verify_cost` measured
//!   27 µs of CPU for a full verification here (24 µs of it RSA, where ring rebuilds the
//!   key's Montgomery constants on every call), 0.7 µs for a remembered token. Only exact tokens hit: any other byte string
//!   hashes elsewhere and is verified in full. Only successes are stored, so forged
//!   tokens cannot grow the map. A new key set (a JWKS refetch) drops every entry, so a
//!   rotated-out key stops being honoured as soon as the verifier learns of it. Only the
//!   *signature* is cached: who the user is, and which emails they hold, is still asked
//!   of the provider on every recipient request (SPEC §3.2, `backend.rs`).
//! * **The key set, and its failures.** The JWKS is fetched by one request at a time
//!   (single flight); the others wait for its result. A failed fetch is remembered for
//!   [`JWKS_FAILURE_BACKOFF`]: while the provider is down, requests that would need a
//!   fetch answer 503 at once instead of each trying again (each attempt can take the
//!   client's 4 s timeout). A stale key is not used after a failed refresh: the key set
//!   is refreshed to learn of rotations, and an outage is no reason to stop learning.

use super::backend::BackendClient;
use jsonwebtoken::{decode, decode_header, Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{Mutex, RwLock};

const SKEW_SECONDS: u64 = 5;
const JWKS_MAX_AGE: Duration = Duration::from_secs(300);
/// Unknown `kid`s trigger at most one JWKS fetch per this interval, so forged tokens
/// cannot turn the API into a request amplifier against the provider.
const JWKS_MIN_REFETCH: Duration = Duration::from_secs(5);
/// How long a failed JWKS fetch is remembered before anyone tries again.
pub const JWKS_FAILURE_BACKOFF: Duration = Duration::from_secs(5);
/// The most verified tokens remembered at once (a few hundred bytes each).
const VERIFIED_CAPACITY: usize = 10_000;
/// A verified token is checked against the key set again at least this often, however
/// long it lives (Clerk's session tokens live 60 s).
const VERIFIED_MAX_AGE: Duration = Duration::from_secs(60);

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
    exp: u64,
}

enum Keys {
    Static(DecodingKey),
    Jwks { backend: BackendClient, cache: RwLock<JwksCache>, refresh: Mutex<()> },
}

#[derive(Default)]
struct JwksCache {
    keys: HashMap<String, DecodingKey>,
    fetched_at: Option<Instant>,
    /// The last failed fetch, while no fetch has succeeded since: when, and why.
    failed: Option<(Instant, String)>,
}

impl JwksCache {
    fn fresh(&self) -> bool {
        self.fetched_at.is_some_and(|t| t.elapsed() < JWKS_MAX_AGE)
    }

    /// The reason of a failure recent enough that nobody should fetch again yet.
    fn recent_failure(&self) -> Option<&str> {
        self.failed.as_ref().filter(|(t, _)| t.elapsed() < JWKS_FAILURE_BACKOFF).map(|(_, why)| why.as_str())
    }
}

pub struct TokenVerifier {
    keys: Keys,
    authorized_parties: Vec<String>,
    validation: Validation,
    verified: std::sync::Mutex<VerifiedTokens>,
    /// Bumped whenever the key set is replaced; verified tokens of an older set are void.
    key_generation: AtomicU64,
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
        Ok(TokenVerifier {
            keys,
            authorized_parties,
            validation,
            verified: std::sync::Mutex::new(VerifiedTokens::new(VERIFIED_CAPACITY)),
            key_generation: AtomicU64::new(0),
        })
    }

    pub async fn verify(&self, token: &str) -> Result<Claims, TokenError> {
        let digest = TokenDigest::of(token);
        let generation = self.key_generation.load(Ordering::Acquire);
        if let Some(claims) = self.verified_tokens().get(&digest, generation, unix_now(), Instant::now()) {
            return Ok(claims);
        }
        let (claims, exp, generation) = self.verify_in_full(token).await?;
        self.verified_tokens().insert(digest, claims.clone(), exp, generation, Instant::now());
        Ok(claims)
    }

    fn verified_tokens(&self) -> std::sync::MutexGuard<'_, VerifiedTokens> {
        self.verified.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Signature and every claim; returns the claims, `exp`, and the key generation the
    /// signature was checked against.
    async fn verify_in_full(&self, token: &str) -> Result<(Claims, u64, u64), TokenError> {
        let header = decode_header(token).map_err(|_| TokenError::Invalid("malformed"))?;
        if header.alg != Algorithm::RS256 {
            return Err(TokenError::Invalid("algorithm"));
        }
        let (key, generation) = self.key_for(header.kid.as_deref()).await?;
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
        let now = unix_now();
        if raw.iat.is_some_and(|iat| iat > now + SKEW_SECONDS) {
            return Err(TokenError::Invalid("iat"));
        }
        Ok((Claims { sub, sid, azp: raw.azp, sts: raw.sts, iat: raw.iat }, raw.exp, generation))
    }

    /// The key for `kid` and the generation of the key set it came from.
    async fn key_for(&self, kid: Option<&str>) -> Result<(DecodingKey, u64), TokenError> {
        let (backend, cache, refresh) = match &self.keys {
            Keys::Static(key) => return Ok((key.clone(), self.key_generation.load(Ordering::Acquire))),
            Keys::Jwks { backend, cache, refresh } => (backend, cache, refresh),
        };
        let kid = kid.ok_or(TokenError::Invalid("kid"))?;
        {
            let c = cache.read().await;
            match c.keys.get(kid) {
                Some(key) if c.fresh() => return Ok((key.clone(), self.key_generation.load(Ordering::Acquire))),
                _ => {}
            }
            if let Some(why) = c.recent_failure() {
                return Err(TokenError::KeysUnavailable(why.to_owned()));
            }
        }
        // One fetch at a time; whoever waited here reads the result of the one before.
        let _single_flight = refresh.lock().await;
        {
            let c = cache.read().await;
            let recent = c.fetched_at.is_some_and(|t| t.elapsed() < JWKS_MIN_REFETCH);
            match c.keys.get(kid) {
                Some(key) if c.fresh() => return Ok((key.clone(), self.key_generation.load(Ordering::Acquire))),
                None if recent => return Err(TokenError::Invalid("unknown kid")),
                _ => {}
            }
            if let Some(why) = c.recent_failure() {
                return Err(TokenError::KeysUnavailable(why.to_owned()));
            }
        }
        let jwks = match backend.jwks().await {
            Ok(jwks) => jwks,
            Err(e) => {
                let why = e.to_string();
                cache.write().await.failed = Some((Instant::now(), why.clone()));
                return Err(TokenError::KeysUnavailable(why));
            }
        };
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
        c.failed = None;
        // Tokens verified against the previous set are checked again against this one.
        let generation = self.key_generation.fetch_add(1, Ordering::AcqRel) + 1;
        self.verified_tokens().clear();
        let key = c.keys.get(kid).cloned().ok_or(TokenError::Invalid("unknown kid"))?;
        Ok((key, generation))
    }
}

fn unix_now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

/// The SHA-256 of a token's exact text.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct TokenDigest([u8; 32]);

impl TokenDigest {
    fn of(token: &str) -> Self {
        let d = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
        let mut bytes = [0u8; 32];
        bytes.copy_from_slice(d.as_ref());
        TokenDigest(bytes)
    }
}

struct Verified {
    claims: Claims,
    exp: u64,
    generation: u64,
    verified_at: Instant,
}

/// Tokens whose signature and claims passed, by digest; bounded.
struct VerifiedTokens {
    map: HashMap<TokenDigest, Verified>,
    capacity: usize,
}

impl VerifiedTokens {
    fn new(capacity: usize) -> Self {
        VerifiedTokens { map: HashMap::new(), capacity }
    }

    fn usable(v: &Verified, generation: u64, now_unix: u64, now: Instant) -> bool {
        v.generation == generation
            && now_unix <= v.exp.saturating_add(SKEW_SECONDS)
            && now.saturating_duration_since(v.verified_at) < VERIFIED_MAX_AGE
    }

    /// The claims of a token verified against key set `generation` that is still
    /// within its `exp` (with the skew) and was verified less than a minute ago.
    fn get(&mut self, digest: &TokenDigest, generation: u64, now_unix: u64, now: Instant) -> Option<Claims> {
        let v = self.map.get(digest)?;
        if Self::usable(v, generation, now_unix, now) {
            return Some(v.claims.clone());
        }
        self.map.remove(digest);
        None
    }

    fn insert(&mut self, digest: TokenDigest, claims: Claims, exp: u64, generation: u64, now: Instant) {
        if self.map.len() >= self.capacity && !self.map.contains_key(&digest) {
            let now_unix = unix_now();
            self.map.retain(|_, v| Self::usable(v, generation, now_unix, now));
            if self.map.len() >= self.capacity {
                // Still full of live tokens: drop an arbitrary one (the map's order is
                // randomly seeded), which costs its holder one more RSA verification.
                if let Some(victim) = self.map.keys().next().copied() {
                    self.map.remove(&victim);
                }
            }
        }
        self.map.insert(digest, Verified { claims, exp, generation, verified_at: now });
    }

    fn clear(&mut self) {
        self.map.clear();
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{encode, EncodingKey, Header};
    use rsa::pkcs1::{EncodeRsaPrivateKey, EncodeRsaPublicKey, LineEnding};
    use std::sync::OnceLock;

    /// One RSA-2048 key pair per test binary: (private PEM, public PEM).
    fn key_pair() -> &'static (String, String) {
        static KEYS: OnceLock<(String, String)> = OnceLock::new();
        KEYS.get_or_init(|| {
            let private = rsa::RsaPrivateKey::new(&mut rand::rngs::OsRng, 2048).unwrap();
            let public = private.to_public_key();
            (private.to_pkcs1_pem(LineEnding::LF).unwrap().to_string(), public.to_pkcs1_pem(LineEnding::LF).unwrap())
        })
    }

    fn verifier() -> TokenVerifier {
        let backend = BackendClient::new("http://127.0.0.1:9", "sk_test_unused").unwrap();
        TokenVerifier::new(Some(&key_pair().1), backend, vec!["http://app.test".into()]).unwrap()
    }

    fn token(sub: &str, exp_in: i64) -> String {
        let now = unix_now() as i64;
        let claims = serde_json::json!({"sub": sub, "sid": "sess_1", "iat": now, "nbf": now, "exp": now + exp_in});
        let key = EncodingKey::from_rsa_pem(key_pair().0.as_bytes()).unwrap();
        encode(&Header::new(Algorithm::RS256), &claims, &key).unwrap()
    }

    fn claims(sub: &str) -> Claims {
        Claims { sub: sub.into(), sid: "sess_1".into(), azp: None, sts: None, iat: None }
    }

    #[tokio::test]
    async fn a_verified_token_is_remembered_and_answers_the_same() {
        let v = verifier();
        let t = token("user_a", 60);
        let first = v.verify(&t).await.unwrap();
        assert_eq!(v.verified_tokens().len(), 1);
        let second = v.verify(&t).await.unwrap();
        assert_eq!((first.sub, first.sid), (second.sub, second.sid));
        assert_eq!(v.verified_tokens().len(), 1);
    }

    #[tokio::test]
    async fn a_token_differing_from_a_remembered_one_is_verified_in_full() {
        let v = verifier();
        let t = token("user_a", 60);
        v.verify(&t).await.unwrap();
        // Flip one character of the signature: a different digest, and a bad signature.
        let mut forged = t.clone().into_bytes();
        let last = forged.len() - 2;
        forged[last] = if forged[last] == b'A' { b'B' } else { b'A' };
        let forged = String::from_utf8(forged).unwrap();
        assert!(matches!(v.verify(&forged).await, Err(TokenError::Invalid(_))));
        // A token for another user, signed by another key: refused, never remembered.
        let other = rsa::RsaPrivateKey::new(&mut rand::rngs::OsRng, 2048).unwrap();
        let other = EncodingKey::from_rsa_pem(other.to_pkcs1_pem(LineEnding::LF).unwrap().as_bytes()).unwrap();
        let now = unix_now();
        let claims = serde_json::json!({"sub": "user_b", "sid": "s", "iat": now, "nbf": now, "exp": now + 60});
        let foreign = encode(&Header::new(Algorithm::RS256), &claims, &other).unwrap();
        assert!(matches!(v.verify(&foreign).await, Err(TokenError::Invalid(_))));
        assert_eq!(v.verified_tokens().len(), 1, "failures are never remembered");
    }

    #[tokio::test]
    async fn an_expired_token_is_refused_even_when_remembered() {
        let v = verifier();
        // Expired beyond the skew: refused in full, and so never remembered.
        assert!(v.verify(&token("user_a", -(SKEW_SECONDS as i64) - 2)).await.is_err());
        assert_eq!(v.verified_tokens().len(), 0);
        // A remembered entry stops answering once its exp (plus the skew) has passed.
        let mut cache = VerifiedTokens::new(8);
        let d = TokenDigest::of("t");
        let now = Instant::now();
        cache.insert(d, claims("user_a"), 1_000, 0, now);
        assert!(cache.get(&d, 0, 1_000 + SKEW_SECONDS, now).is_some());
        assert!(cache.get(&d, 0, 1_000 + SKEW_SECONDS + 1, now).is_none());
        assert_eq!(cache.len(), 0, "the expired entry is dropped");
    }

    #[test]
    fn entries_age_out_and_die_with_their_key_set() {
        let mut cache = VerifiedTokens::new(8);
        let d = TokenDigest::of("t");
        let then = Instant::now();
        cache.insert(d, claims("user_a"), u64::MAX / 2, 3, then);
        assert!(cache.get(&d, 3, 0, then + VERIFIED_MAX_AGE - Duration::from_millis(1)).is_some());
        assert!(cache.get(&d, 4, 0, then).is_none(), "another key set");
        cache.insert(d, claims("user_a"), u64::MAX / 2, 3, then);
        assert!(cache.get(&d, 3, 0, then + VERIFIED_MAX_AGE).is_none(), "verified too long ago");
    }

    #[test]
    fn the_cache_stays_within_its_capacity() {
        let mut cache = VerifiedTokens::new(100);
        let now = Instant::now();
        for i in 0..1_000 {
            cache.insert(TokenDigest::of(&i.to_string()), claims("u"), u64::MAX / 2, 0, now);
            assert!(cache.len() <= 100);
        }
        assert_eq!(cache.len(), 100);
        // Dead entries are the first to go.
        let mut cache = VerifiedTokens::new(2);
        cache.insert(TokenDigest::of("dead"), claims("u"), 0, 0, now);
        cache.insert(TokenDigest::of("live"), claims("u"), u64::MAX / 2, 0, now);
        cache.insert(TokenDigest::of("new"), claims("u"), u64::MAX / 2, 0, now);
        assert!(cache.get(&TokenDigest::of("live"), 0, unix_now(), now).is_some());
        assert!(cache.get(&TokenDigest::of("new"), 0, unix_now(), now).is_some());
    }
}
