//! Keyed digests and one-time codes. Request bindings are HMAC-SHA256 over
//! length-prefixed fields under `SIGNUP_BINDING_KEY`, with a purpose tag first, so no
//! two field lists can collide and no plain email digest is ever stored.
//! Invitation codes are 32 bytes from the OS RNG, shown as unpadded base64url; only the
//! SHA-256 of the bytes is kept. Secrets that must be used again (signing keys) are
//! sealed by [`crate::secrets`], under their own keyring.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};
use ring::{digest, hmac};

/// HMAC-SHA256 over `purpose` and `fields`, each prefixed by its length (u32, big endian).
pub fn binding(key: &[u8], purpose: &str, fields: &[&[u8]]) -> Vec<u8> {
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    let mut ctx = hmac::Context::with_key(&key);
    for field in std::iter::once(purpose.as_bytes()).chain(fields.iter().copied()) {
        let len = u32::try_from(field.len()).expect("fields are bounded").to_be_bytes();
        ctx.update(&len);
        ctx.update(field);
    }
    ctx.sign().as_ref().to_vec()
}

/// Constant-time equality for stored bindings.
pub fn same_binding(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A fresh invitation code: (the code as shown once, the SHA-256 digest to store).
pub fn new_code() -> (String, Vec<u8>) {
    let mut bytes = [0u8; 32];
    SystemRandom::new().fill(&mut bytes).expect("the OS random source works");
    let code = URL_SAFE_NO_PAD.encode(bytes);
    (code, digest::digest(&digest::SHA256, &bytes).as_ref().to_vec())
}

/// The digest of a presented code, if it has the exact shape of one (43 base64url
/// characters decoding to 32 bytes); `None` otherwise.
pub fn code_digest(code: &str) -> Option<Vec<u8>> {
    if code.len() != 43 {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(code).ok()?;
    (bytes.len() == 32).then(|| digest::digest(&digest::SHA256, &bytes).as_ref().to_vec())
}

/// A fresh cohort code: (the code as shown once, in groups of four, and the SHA-256 of
/// its canonical text to store). 10 bytes from the OS RNG, 80 bits, as 16 characters of
/// Crockford base32.
pub fn new_cohort_code() -> (String, Vec<u8>) {
    use shared::cohort::{display_code, ALPHABET};
    let mut bytes = [0u8; 10];
    SystemRandom::new().fill(&mut bytes).expect("the OS random source works");
    let bits = bytes.iter().fold(0u128, |acc, b| (acc << 8) | u128::from(*b));
    let canonical: String = (0..16).rev().map(|i| char::from(ALPHABET[((bits >> (i * 5)) & 31) as usize])).collect();
    let digest = cohort_digest(&canonical);
    (display_code(&canonical), digest)
}

/// The digest of a cohort code as typed, if it is one (see `shared::cohort`).
pub fn cohort_code_digest(typed: &str) -> Option<Vec<u8>> {
    shared::cohort::canonical_code(typed).map(|c| cohort_digest(&c))
}

fn cohort_digest(canonical: &str) -> Vec<u8> {
    digest::digest(&digest::SHA256, canonical.as_bytes()).as_ref().to_vec()
}

/// `N` bytes from the OS RNG.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    SystemRandom::new().fill(&mut bytes).expect("the OS random source works");
    bytes
}

/// SHA-256 of `bytes` (API keys are stored as this digest only).
pub fn sha256(bytes: &[u8]) -> Vec<u8> {
    digest::digest(&digest::SHA256, bytes).as_ref().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_prefixes_keep_field_boundaries() {
        let k = [1u8; 32];
        assert_ne!(binding(&k, "p", &[b"ab", b"c"]), binding(&k, "p", &[b"a", b"bc"]));
        assert_ne!(binding(&k, "p", &[b"a"]), binding(&k, "q", &[b"a"]));
        assert_eq!(binding(&k, "p", &[b"a"]).len(), 32);
    }

    #[test]
    fn codes_round_trip_to_their_digest() {
        let (code, digest) = new_code();
        assert_eq!(code.len(), 43);
        assert_eq!(code_digest(&code), Some(digest));
        assert_ne!(new_code().0, code);
    }

    #[test]
    fn cohort_codes_round_trip_in_any_case() {
        let (code, digest) = new_cohort_code();
        assert_eq!(code.len(), 19);
        assert_eq!(cohort_code_digest(&code), Some(digest.clone()));
        assert_eq!(cohort_code_digest(&code.to_lowercase().replace('-', "")), Some(digest));
        assert_ne!(new_cohort_code().0, code);
        assert_eq!(code_digest(&code), None, "a cohort code is never read as an invitation code");
    }

    #[test]
    fn malformed_codes_have_no_digest() {
        assert_eq!(code_digest(""), None);
        assert_eq!(code_digest(&"A".repeat(42)), None);
        assert_eq!(code_digest(&"A".repeat(44)), None);
        assert_eq!(code_digest(&format!("{}=", "A".repeat(42))), None);
        assert_eq!(code_digest(&"*".repeat(43)), None);
        // 43 chars whose last char carries non-zero padding bits does not decode canonically.
        assert_eq!(code_digest(&format!("{}B", "A".repeat(42))), None);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// Any input: no panic, and a digest only for the exact shape of a code.
        #[test]
        fn the_decoder_accepts_only_canonical_32_byte_codes(s in any::<String>()) {
            if let Some(d) = code_digest(&s) {
                prop_assert_eq!(s.len(), 43);
                prop_assert_eq!(d.len(), 32);
                prop_assert_eq!(URL_SAFE_NO_PAD.encode(URL_SAFE_NO_PAD.decode(&s).unwrap()), s);
            }
        }

        /// Every 32-byte value has exactly one code, which decodes to its digest.
        #[test]
        fn every_code_round_trips(bytes in prop::array::uniform32(any::<u8>())) {
            let code = URL_SAFE_NO_PAD.encode(bytes);
            prop_assert_eq!(code_digest(&code), Some(digest::digest(&digest::SHA256, &bytes).as_ref().to_vec()));
        }

        /// Near-codes (43 characters from the alphabet and a few others) never panic.
        #[test]
        fn near_codes_never_panic(s in "[A-Za-z0-9_\\-+/=]{43}") {
            let _ = code_digest(&s);
        }
    }
}
