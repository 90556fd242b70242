//! Session-bound CSRF tokens: HMAC-SHA256 of the session id under `CSRF_KEY`,
//! base64url. A token is only valid for the session it was issued to.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::hmac;

const CONTEXT: &[u8] = b"vestibule-csrf-v1\0";

fn message(session_id: &str) -> Vec<u8> {
    [CONTEXT, session_id.as_bytes()].concat()
}

pub fn token(key: &[u8], session_id: &str) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    URL_SAFE_NO_PAD.encode(hmac::sign(&key, &message(session_id)).as_ref())
}

/// Constant-time check of a presented token.
pub fn verify(key: &[u8], session_id: &str, presented: &str) -> bool {
    let Ok(tag) = URL_SAFE_NO_PAD.decode(presented) else {
        return false;
    };
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    hmac::verify(&key, &message(session_id), &tag).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_is_bound_to_session_and_key() {
        let key = [7u8; 32];
        let t = token(&key, "sess_a");
        assert!(verify(&key, "sess_a", &t));
        assert!(!verify(&key, "sess_b", &t));
        assert!(!verify(&[8u8; 32], "sess_a", &t));
        assert!(!verify(&key, "sess_a", ""));
        assert!(!verify(&key, "sess_a", "not base64 !"));
    }
}
