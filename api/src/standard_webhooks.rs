//! Standard Webhooks 1.0 (<https://www.standardwebhooks.com>): signing what the outbox
//! delivers and verifying what the admission hook receives. A secret is `whsec_` + the
//! base64 of its key; a signature is `v1,` + base64 HMAC-SHA256 over
//! `{webhook-id}.{webhook-timestamp}.{body}`; the `webhook-signature` header may carry
//! several, space-separated (during a rotation both keys sign).
//!
//! The asymmetric scheme `v1a` signs the same content with Ed25519: the endpoint's public
//! key is shown as `whpk_` + base64 of its 32 bytes, and a receiver verifies with it alone
//! (`v1a,` + base64 of the 64-byte signature). The private key is a 32-byte seed, sealed
//! like a `v1` secret and never shown.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ring::hmac;

pub const SECRET_PREFIX: &str = "whsec_";
pub const PUBLIC_KEY_PREFIX: &str = "whpk_";
/// How far a received `webhook-timestamp` may be from now, either way.
pub const TOLERANCE_SECS: i64 = 5 * 60;

/// A fresh secret: (`whsec_…` as shown once, the key bytes to seal and sign with).
pub fn new_secret() -> (String, Vec<u8>) {
    let key = crate::crypto::random_bytes::<32>();
    (format!("{SECRET_PREFIX}{}", STANDARD.encode(key)), key.to_vec())
}

/// A fresh Ed25519 key pair for `v1a`: (the seed to seal and sign with, the public key's
/// 32 bytes).
pub fn new_keypair() -> (Vec<u8>, Vec<u8>) {
    let seed = crate::crypto::random_bytes::<32>();
    let pair = ring::signature::Ed25519KeyPair::from_seed_unchecked(&seed).expect("32 bytes are an Ed25519 seed");
    (seed.to_vec(), ring::signature::KeyPair::public_key(&pair).as_ref().to_vec())
}

/// How a public key is shown: `whpk_` + base64.
pub fn public_key_text(public: &[u8]) -> String {
    format!("{PUBLIC_KEY_PREFIX}{}", STANDARD.encode(public))
}

/// The `v1a` `webhook-signature` value for one seed; `None` if it is not a seed.
pub fn sign_v1a(seed: &[u8], msg_id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    let pair = ring::signature::Ed25519KeyPair::from_seed_unchecked(seed).ok()?;
    let message = [msg_id.as_bytes(), b".", timestamp.to_string().as_bytes(), b".", body].concat();
    Some(format!("v1a,{}", STANDARD.encode(pair.sign(&message).as_ref())))
}

/// The `webhook-signature` value for one key.
pub fn sign(key: &[u8], msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    let mut ctx = hmac::Context::with_key(&key);
    ctx.update(msg_id.as_bytes());
    ctx.update(b".");
    ctx.update(timestamp.to_string().as_bytes());
    ctx.update(b".");
    ctx.update(body);
    format!("v1,{}", STANDARD.encode(ctx.sign().as_ref()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("missing or malformed webhook headers")]
    Malformed,
    #[error("webhook timestamp outside the tolerance")]
    Timestamp,
    #[error("no valid signature")]
    Signature,
}

/// Checks the headers of a received message against `keys` at `now` (unix seconds).
pub fn verify(
    keys: &[&[u8]],
    msg_id: &str,
    timestamp: &str,
    signatures: &str,
    body: &[u8],
    now: i64,
) -> Result<(), VerifyError> {
    if msg_id.is_empty() || msg_id.len() > 256 {
        return Err(VerifyError::Malformed);
    }
    let ts: i64 = timestamp.trim().parse().map_err(|_| VerifyError::Malformed)?;
    if (now - ts).abs() > TOLERANCE_SECS {
        return Err(VerifyError::Timestamp);
    }
    for key in keys {
        let key = hmac::Key::new(hmac::HMAC_SHA256, key);
        let message = [msg_id.as_bytes(), b".", ts.to_string().as_bytes(), b".", body].concat();
        for candidate in signatures.split(' ') {
            let Some(b64) = candidate.strip_prefix("v1,") else { continue };
            let Ok(tag) = STANDARD.decode(b64) else { continue };
            if hmac::verify(&key, &message, &tag).is_ok() {
                return Ok(());
            }
        }
    }
    Err(VerifyError::Signature)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks reference libraries.
    #[test]
    fn signs_the_reference_example() {
        let key = STANDARD.decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        let sig = sign(&key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn verifies_with_any_current_key_inside_the_window() {
        let (old, new) = (vec![1u8; 32], vec![2u8; 32]);
        let header = format!("{} {}", sign(&new, "msg_1", 1000, b"{}"), sign(&old, "msg_1", 1000, b"{}"));
        assert_eq!(verify(&[&old], "msg_1", "1000", &header, b"{}", 1010), Ok(()));
        assert_eq!(verify(&[&new], "msg_1", "1000", &header, b"{}", 700), Ok(()));
        assert_eq!(verify(&[&[3u8; 32]], "msg_1", "1000", &header, b"{}", 1000), Err(VerifyError::Signature));
        assert_eq!(verify(&[&new], "msg_2", "1000", &header, b"{}", 1000), Err(VerifyError::Signature));
        assert_eq!(verify(&[&new], "msg_1", "1000", &header, b"{ }", 1000), Err(VerifyError::Signature));
        assert_eq!(verify(&[&new], "msg_1", "1000", &header, b"{}", 1301), Err(VerifyError::Timestamp));
        assert_eq!(verify(&[&new], "msg_1", "soon", &header, b"{}", 1000), Err(VerifyError::Malformed));
    }

    #[test]
    fn a_v1a_signature_verifies_with_the_public_key_only() {
        let (seed, public) = new_keypair();
        let header = sign_v1a(&seed, "msg_1", 1000, b"{}").unwrap();
        let sig = STANDARD.decode(header.strip_prefix("v1a,").unwrap()).unwrap();
        let key = ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, &public);
        assert!(key.verify(b"msg_1.1000.{}", &sig).is_ok());
        assert!(key.verify(b"msg_1.1000.{ }", &sig).is_err());
        assert!(public_key_text(&public).starts_with("whpk_"));
        assert_eq!(sign_v1a(&[1u8; 5], "msg_1", 1000, b"{}"), None);
    }

    #[test]
    fn a_fresh_secret_carries_its_key() {
        let (secret, key) = new_secret();
        assert_eq!(STANDARD.decode(secret.strip_prefix(SECRET_PREFIX).unwrap()).unwrap(), key);
    }
}
