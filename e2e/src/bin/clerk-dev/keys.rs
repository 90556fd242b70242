//! The instance signing key and session tokens: an RSA-2048 (e=65537) key generated at
//! start, published as a JWKS, and used to mint RS256 session tokens with Clerk's v2
//! claims (`sub`, `sid`, `iat`, `nbf`, `exp`, `iss`, `v`, optional `azp`).

use anyhow::Context;
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use rsa::pkcs1::{EncodeRsaPrivateKey, LineEnding};
use rsa::{traits::PublicKeyParts, RsaPrivateKey};
use serde::Serialize;
use serde_json::{json, Value};

use crate::store::random_id;

/// What a caller asks for when minting a token for an active session.
#[derive(Debug)]
pub struct TokenRequest {
    /// Lifetime in seconds; `exp = iat + ttl`.
    pub ttl: i64,
    /// The authorized party (the browser origin); omitted from the token when `None`.
    pub azp: Option<String>,
    /// Test-only: shifts `iat`/`nbf`/`exp` by this many seconds.
    pub offset: i64,
}

#[derive(Serialize)]
struct Claims<'a> {
    sub: &'a str,
    sid: &'a str,
    iat: i64,
    nbf: i64,
    exp: i64,
    iss: &'a str,
    v: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    azp: Option<&'a str>,
}

pub struct SigningKey {
    kid: String,
    encoding: EncodingKey,
    jwks: Value,
    issuer: String,
}

impl SigningKey {
    /// Generates a fresh RSA-2048 key; tokens carry `iss = issuer`.
    pub fn generate(issuer: String) -> anyhow::Result<Self> {
        let private = RsaPrivateKey::new(&mut rand::rngs::OsRng, 2048).context("generating the RSA key")?;
        let pem = private.to_pkcs1_pem(LineEnding::LF).context("encoding the RSA key")?;
        let encoding = EncodingKey::from_rsa_pem(pem.as_bytes()).context("loading the RSA key")?;
        let kid = random_id("ins_dev_");
        let jwks = json!({
            "keys": [{
                "kty": "RSA",
                "kid": kid,
                "use": "sig",
                "alg": "RS256",
                "n": URL_SAFE_NO_PAD.encode(private.n().to_bytes_be()),
                "e": URL_SAFE_NO_PAD.encode(private.e().to_bytes_be()),
            }]
        });
        Ok(Self { kid, encoding, jwks, issuer })
    }

    /// The `GET /v1/jwks` body.
    pub fn jwks(&self) -> &Value {
        &self.jwks
    }

    /// Signs a session token for `user_id`/`session_id`.
    pub fn mint(&self, user_id: &str, session_id: &str, req: &TokenRequest) -> anyhow::Result<String> {
        let iat = chrono::Utc::now().timestamp() + req.offset;
        let claims = Claims {
            sub: user_id,
            sid: session_id,
            iat,
            nbf: iat,
            exp: iat + req.ttl,
            iss: &self.issuer,
            v: 2,
            azp: req.azp.as_deref(),
        };
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(self.kid.clone());
        encode(&header, &claims, &self.encoding).context("signing the session token")
    }
}
