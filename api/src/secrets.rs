//! Sealed secrets (issue 26 item 5): the signing secrets Vestibule must use again — a
//! webhook endpoint's keys, the admission hook's key — are kept sealed (AES-256-GCM)
//! under the `SECRETS_KEYS` keyring, a key list of their own, so rotating
//! `SIGNUP_BINDING_KEY` no longer breaks every integration.
//!
//! * `SECRETS_KEYS` is `kid:base64` items, comma-separated, each key exactly 32 bytes; the
//!   first seals, every one opens. A sealed value names its kid:
//!   `vsk1` ‖ kid length (1 byte) ‖ kid ‖ nonce (12 bytes) ‖ ciphertext and tag, with that
//!   header followed by the context (the owning row's id) as associated data, so a value
//!   can neither move to another row nor be relabelled with another kid.
//! * Values sealed by releases before the keyring (`nonce ‖ ciphertext`, under a key
//!   derived from `SIGNUP_BINDING_KEY` with the purpose `secret-seal-v1`) still open, with
//!   the binding key the server runs with, until `vestibule reseal` has sealed every
//!   secret under the first key of `SECRETS_KEYS`.
//! * Unset `SECRETS_KEYS`: production refuses to start (`config`); development and the
//!   tests that ask for it seal the old way, under the key derived from
//!   `SIGNUP_BINDING_KEY`, exactly as before the keyring (so a development database keeps
//!   working, and `reseal` moves it once a keyring is set).

use crate::crypto;
use base64::Engine as _;
use ring::aead;

const MAGIC: &[u8; 4] = b"vsk1";
const NONCE: usize = 12;
const TAG: usize = 16;
/// Bytes of every key of the keyring.
pub const KEY_BYTES: usize = 32;

/// One key of `SECRETS_KEYS`; `Debug` shows the kid only.
#[derive(Clone, PartialEq, Eq)]
struct NamedKey {
    kid: String,
    key: [u8; KEY_BYTES],
}

/// `SECRETS_KEYS` as configured (possibly empty): the first seals, every one opens.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SecretsKeys(Vec<NamedKey>);

impl std::fmt::Debug for SecretsKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SecretsKeys").field(&self.0.iter().map(|k| k.kid.as_str()).collect::<Vec<_>>()).finish()
    }
}

/// What is wrong with a `SECRETS_KEYS` value (never the value itself).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeysError {
    #[error("SECRETS_KEYS items are kid:base64, separated by commas")]
    Shape,
    #[error("SECRETS_KEYS: a kid is 1 to 32 of A-Z a-z 0-9 _ -")]
    Kid,
    #[error("SECRETS_KEYS: kid {0} appears twice")]
    Duplicate(String),
    #[error("SECRETS_KEYS: the key of kid {0} must be the base64 of exactly 32 bytes")]
    Key(String),
}

fn kid_ok(kid: &str) -> bool {
    (1..=32).contains(&kid.len()) && kid.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn decode_key(b64: &str) -> Option<[u8; KEY_BYTES]> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD]
        .iter()
        .find_map(|e| e.decode(b64).ok())
        .and_then(|bytes| <[u8; KEY_BYTES]>::try_from(bytes).ok())
}

impl SecretsKeys {
    /// Parses `kid:base64,kid:base64,…` (spaces around items are ignored).
    pub fn parse(value: &str) -> Result<SecretsKeys, KeysError> {
        let mut keys: Vec<NamedKey> = Vec::new();
        for item in value.split(',').map(str::trim) {
            let (kid, b64) = item.split_once(':').ok_or(KeysError::Shape)?;
            let (kid, b64) = (kid.trim(), b64.trim());
            if !kid_ok(kid) {
                return Err(KeysError::Kid);
            }
            if keys.iter().any(|k| k.kid == kid) {
                return Err(KeysError::Duplicate(kid.to_owned()));
            }
            let key = decode_key(b64).ok_or_else(|| KeysError::Key(kid.to_owned()))?;
            keys.push(NamedKey { kid: kid.to_owned(), key });
        }
        Ok(SecretsKeys(keys))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The kid that seals, if any.
    pub fn first_kid(&self) -> Option<&str> {
        self.0.first().map(|k| k.kid.as_str())
    }

    /// Whether one of the keys is `bytes` (a key must not double as another setting's).
    pub fn holds_key(&self, bytes: &[u8]) -> bool {
        self.0.iter().any(|k| k.key.as_slice() == bytes)
    }
}

/// Seals and opens: the configured keys, and the key of sealed values made before them.
#[derive(Clone)]
pub struct Keyring {
    keys: SecretsKeys,
    /// The key derived from `SIGNUP_BINDING_KEY` that sealed before the keyring.
    legacy: Option<[u8; KEY_BYTES]>,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyring").field("keys", &self.keys).field("legacy", &self.legacy.is_some()).finish()
    }
}

fn aead_key(key: &[u8; KEY_BYTES]) -> aead::LessSafeKey {
    aead::LessSafeKey::new(aead::UnboundKey::new(&aead::AES_256_GCM, key).expect("a 32-byte key"))
}

/// The key releases before the keyring sealed with: derived from the binding key with
/// its own purpose tag, so it is never the key of any binding.
fn legacy_key(binding_key: &[u8]) -> [u8; KEY_BYTES] {
    crypto::binding(binding_key, "secret-seal-v1", &[]).try_into().expect("HMAC-SHA256 is 32 bytes")
}

/// A value in the keyring's format, in parts.
struct Parts<'a> {
    kid: &'a str,
    nonce: &'a [u8],
    ciphertext: &'a [u8],
    /// Magic, kid length and kid: bound as associated data.
    header: &'a [u8],
}

fn parse_sealed(sealed: &[u8]) -> Option<Parts<'_>> {
    let rest = sealed.strip_prefix(MAGIC.as_slice())?;
    let (&len, rest) = rest.split_first()?;
    let len = usize::from(len);
    if rest.len() < len + NONCE + TAG {
        return None;
    }
    let (kid, rest) = rest.split_at(len);
    let (nonce, ciphertext) = rest.split_at(NONCE);
    let kid = std::str::from_utf8(kid).ok()?;
    Some(Parts { kid, nonce, ciphertext, header: &sealed[..MAGIC.len() + 1 + len] })
}

fn open_with(key: &[u8; KEY_BYTES], nonce: &[u8], aad: &[u8], ciphertext: &[u8]) -> Option<Vec<u8>> {
    let nonce = aead::Nonce::try_assume_unique_for_key(nonce).ok()?;
    let mut in_out = ciphertext.to_vec();
    let plain = aead_key(key).open_in_place(nonce, aead::Aad::from(aad), &mut in_out).ok()?;
    Some(plain.to_vec())
}

impl Keyring {
    /// The keyring of `keys`, also opening what `binding_key` sealed before it (and
    /// sealing that way while `keys` is empty: development without `SECRETS_KEYS`).
    pub fn new(keys: SecretsKeys, binding_key: Option<&[u8]>) -> Keyring {
        Keyring { keys, legacy: binding_key.map(legacy_key) }
    }

    /// The kid that seals, `None` while sealing the old way.
    pub fn sealing_kid(&self) -> Option<&str> {
        self.keys.first_kid()
    }

    /// Seals `secret` for `context` (the owning row's id) under the first key.
    pub fn seal(&self, context: &[u8], secret: &[u8]) -> Vec<u8> {
        let nonce = crypto::random_bytes::<NONCE>();
        let (key, header) = match self.keys.0.first() {
            Some(k) => {
                let len = u8::try_from(k.kid.len()).expect("kids are at most 32 bytes");
                (k.key, [MAGIC.as_slice(), &[len], k.kid.as_bytes()].concat())
            }
            None => (self.legacy.expect("a keyring seals with SECRETS_KEYS or the binding key"), Vec::new()),
        };
        let aad = [header.as_slice(), context].concat();
        let mut in_out = secret.to_vec();
        aead_key(&key)
            .seal_in_place_append_tag(aead::Nonce::assume_unique_for_key(nonce), aead::Aad::from(aad), &mut in_out)
            .expect("sealing cannot fail for short secrets");
        [header.as_slice(), nonce.as_slice(), &in_out].concat()
    }

    /// Opens what [`Keyring::seal`] (or a release before the keyring) made for
    /// `context`; `None` when no key of this keyring made it, or it was altered or moved.
    pub fn open(&self, context: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
        if let Some(p) = parse_sealed(sealed) {
            if let Some(k) = self.keys.0.iter().find(|k| k.kid == p.kid) {
                let aad = [p.header, context].concat();
                if let Some(plain) = open_with(&k.key, p.nonce, &aad, p.ciphertext) {
                    return Some(plain);
                }
            }
        }
        // A legacy value is random bytes from its first: it may look like a header by chance.
        let legacy = self.legacy.as_ref()?;
        if sealed.len() < NONCE + TAG {
            return None;
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE);
        open_with(legacy, nonce, context, ciphertext)
    }

    /// Whether `sealed` is sealed under the key that seals now (nothing for `reseal` to do).
    pub fn is_current(&self, context: &[u8], sealed: &[u8]) -> bool {
        match (self.keys.first_kid(), parse_sealed(sealed)) {
            (Some(first), Some(p)) => p.kid == first && self.open(context, sealed).is_some(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;

    fn keys(items: &[(&str, u8)]) -> SecretsKeys {
        let text: Vec<String> = items.iter().map(|(kid, b)| format!("{kid}:{}", STANDARD.encode([*b; 32]))).collect();
        SecretsKeys::parse(&text.join(",")).unwrap()
    }

    /// Exactly what releases before the keyring did (`crypto::seal` of issue 13).
    fn seal_the_old_way(binding_key: &[u8], context: &[u8], secret: &[u8]) -> Vec<u8> {
        let key = aead_key(&legacy_key(binding_key));
        let nonce = [9u8; 12];
        let mut in_out = secret.to_vec();
        key.seal_in_place_append_tag(aead::Nonce::assume_unique_for_key(nonce), aead::Aad::from(context), &mut in_out)
            .unwrap();
        [nonce.as_slice(), &in_out].concat()
    }

    #[test]
    fn the_first_key_seals_and_every_key_opens() {
        let old = Keyring::new(keys(&[("k1", 1)]), None);
        let sealed = old.seal(b"row-1", b"secret");
        assert!(sealed.starts_with(b"vsk1\x02k1"));
        let both = Keyring::new(keys(&[("k2", 2), ("k1", 1)]), None);
        assert_eq!(both.open(b"row-1", &sealed).as_deref(), Some(&b"secret"[..]));
        assert!(!both.is_current(b"row-1", &sealed) && old.is_current(b"row-1", &sealed));
        let resealed = both.seal(b"row-1", b"secret");
        assert!(resealed.starts_with(b"vsk1\x02k2") && both.is_current(b"row-1", &resealed));
        assert_eq!(old.open(b"row-1", &resealed), None, "k2 is not in the old keyring");
        assert_eq!(both.open(b"row-2", &sealed), None, "bound to its row");
        assert_ne!(both.seal(b"row-1", b"secret"), resealed, "a fresh nonce each time");
    }

    #[test]
    fn a_relabelled_or_altered_value_does_not_open() {
        let ring = Keyring::new(keys(&[("a", 1), ("b", 1)]), None);
        let sealed = ring.seal(b"row", b"secret");
        let relabelled = [b"vsk1\x01b".as_slice(), &sealed[6..]].concat();
        assert_eq!(ring.open(b"row", &relabelled), None, "the kid is bound in the associated data");
        let mut altered = sealed.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert_eq!(ring.open(b"row", &altered), None);
        assert_eq!(ring.open(b"row", b"vsk1"), None);
        assert_eq!(ring.open(b"row", b""), None);
    }

    #[test]
    fn secrets_sealed_before_the_keyring_still_open_with_the_binding_key() {
        let binding = [7u8; 32];
        let sealed = seal_the_old_way(&binding, b"row", b"old secret");
        let ring = Keyring::new(keys(&[("k1", 1)]), Some(&binding));
        assert_eq!(ring.open(b"row", &sealed).as_deref(), Some(&b"old secret"[..]));
        assert!(!ring.is_current(b"row", &sealed), "reseal moves it under k1");
        assert_eq!(Keyring::new(keys(&[("k1", 1)]), Some(&[8u8; 32])).open(b"row", &sealed), None);
        assert_eq!(Keyring::new(keys(&[("k1", 1)]), None).open(b"row", &sealed), None);
        // Without SECRETS_KEYS (development), sealing is the old way, byte for byte in shape.
        let dev = Keyring::new(SecretsKeys::default(), Some(&binding));
        let fresh = dev.seal(b"row", b"new secret");
        assert_eq!(fresh.len(), NONCE + b"new secret".len() + TAG);
        assert_eq!(ring.open(b"row", &fresh).as_deref(), Some(&b"new secret"[..]));
    }

    #[test]
    fn the_setting_is_parsed_strictly_and_never_echoed() {
        let k = STANDARD.encode([1u8; 32]);
        assert_eq!(SecretsKeys::parse(&format!(" a:{k} , b-2:{k}")).unwrap().first_kid(), Some("a"));
        assert_eq!(SecretsKeys::parse(&k), Err(KeysError::Shape));
        assert_eq!(SecretsKeys::parse(&format!("a b:{k}")), Err(KeysError::Kid));
        assert_eq!(SecretsKeys::parse(&format!(":{k}")), Err(KeysError::Kid));
        assert_eq!(SecretsKeys::parse(&format!("a:{k},a:{k}")), Err(KeysError::Duplicate("a".into())));
        let short = STANDARD.encode([1u8; 31]);
        let e = SecretsKeys::parse(&format!("a:{short}")).unwrap_err();
        assert_eq!(e, KeysError::Key("a".into()));
        assert!(!e.to_string().contains(&short));
        assert_eq!(format!("{:?}", SecretsKeys::parse(&format!("a:{k}")).unwrap()), "SecretsKeys([\"a\"])");
    }
}
