//! Self-hosted proof of work for the public signup (issue 15), in ALTCHA's challenge
//! format, so the reference widget or any ALTCHA client can solve it:
//!
//! * `GET /api/public/programs/{slug}/challenge` answers
//!   `{algorithm:"SHA-256", challenge, maxnumber, salt, signature}` where the server drew a
//!   secret `number` in `0..=maxnumber`, `challenge = hex(SHA-256(salt ‖ number))` and
//!   `signature = hex(HMAC-SHA-256(key, challenge))`. The salt carries its parameters
//!   ALTCHA-style — `<32 hex>?expires=<unix>&level=<level>&slug=<slug>&` — so they are
//!   covered by the signature without any server state (the trailing `&` keeps the
//!   number from extending the last parameter).
//! * The client finds `number` by trying `0, 1, 2, …` and sends the ALTCHA payload
//!   `base64(JSON {algorithm, challenge, number, salt, signature})` in the signup body's
//!   `altcha` field.
//! * The server verifies with one HMAC and one hash: the signature over the challenge, the
//!   hash of salt and number, then the salt's expiry, slug and level. Admission stores the
//!   signature in `pow_spent` (shared by every instance through PostgreSQL) inside its
//!   transaction, after the receipt lookup: a reused solution finds its row and is
//!   refused, a replayed request key never gets that far, and a refused admission rolls
//!   the row back (nothing written).
//!
//! Decisions:
//! * ALTCHA's classic (v1) format rather than the `altcha` crate's v2 (key derivation
//!   with PBKDF2/scrypt/Argon2): v2's check costs a full key derivation per signup on the
//!   server, while v1's is one HMAC and one SHA-256, which `ring` (already the server's
//!   crypto) does in microseconds; the community v1 crates would add a second SHA-2/HMAC
//!   stack for twenty lines.
//! * The key is derived from `SIGNUP_BINDING_KEY` with its own purpose tag, so no new
//!   secret is needed and a challenge signature can never be a request binding.
//! * Cost (expected work is half of `maxnumber` hashes; measured in headless Chromium on
//!   the 2-core test machine, see BENCHMARKS.md): `normal` = 50 000 — a few hundred ms
//!   on a phone, unnoticed while the applicant types; `strict` = 500 000 — seconds, for a
//!   program under a bot wave.
//! * Expiry is checked against this server's clock (the challenge never reaches the
//!   database); ten minutes leaves room for the usual clock skew between instances.

use crate::crypto;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ring::digest;
use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};
use serde::Deserialize;
use shared::api::{Challenge, PowLevel};

pub const ALGORITHM: &str = "SHA-256";
/// How long a challenge may be solved and used.
pub const TTL_SECS: i64 = 600;

/// The largest secret number of a level (the work), or `None` when it asks for none.
pub fn max_number(level: PowLevel) -> Option<u64> {
    match level {
        PowLevel::Off => None,
        PowLevel::Normal => Some(50_000),
        PowLevel::Strict => Some(500_000),
    }
}

fn key(secret: &[u8]) -> hmac::Key {
    hmac::Key::new(hmac::HMAC_SHA256, &crypto::binding(secret, "altcha-challenge-key-v1", &[]))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_hex(salt: &str, number: u64) -> String {
    hex(digest::digest(&digest::SHA256, format!("{salt}{number}").as_bytes()).as_ref())
}

/// A fresh challenge for `slug` at `level` (which must ask for work), valid until
/// `now + TTL_SECS`.
pub fn challenge(secret: &[u8], slug: &str, level: PowLevel, now: i64) -> Option<Challenge> {
    let max = max_number(level)?;
    let rng = SystemRandom::new();
    let mut nonce = [0u8; 16];
    let mut draw = [0u8; 8];
    rng.fill(&mut nonce).ok()?;
    rng.fill(&mut draw).ok()?;
    let number = u64::from_be_bytes(draw) % (max + 1);
    let salt = format!("{}?expires={}&level={}&slug={slug}&", hex(&nonce), now + TTL_SECS, level.as_str());
    let challenge = sha256_hex(&salt, number);
    let signature = hex(hmac::sign(&key(secret), challenge.as_bytes()).as_ref());
    Some(Challenge { algorithm: ALGORITHM.to_owned(), challenge, maxnumber: max, salt, signature })
}

/// Why a solution was refused (all the same `challenge_failed` to the client).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    Missing,
    Malformed,
    BadSignature,
    WrongNumber,
    Expired,
    OtherProgram,
    WeakerLevel,
}

/// A verified solution: what admission stores so it is never accepted again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spend {
    /// The challenge's signature (32 bytes): one challenge, one signup.
    pub signature: Vec<u8>,
    /// Unix seconds after which the row may be pruned (the challenge is dead anyway).
    pub expires_at: i64,
}

#[derive(Deserialize)]
struct Payload {
    algorithm: String,
    challenge: String,
    number: u64,
    salt: String,
    signature: String,
}

/// Verifies an ALTCHA payload against `slug`'s current `level` at `now` (unix seconds).
pub fn verify(secret: &[u8], payload: Option<&str>, slug: &str, level: PowLevel, now: i64) -> Result<Spend, Refusal> {
    let payload = payload.ok_or(Refusal::Missing)?;
    let bytes = STANDARD.decode(payload.trim_end_matches('=')).or_else(|_| STANDARD.decode(payload));
    let bytes = bytes.map_err(|_| Refusal::Malformed)?;
    let p: Payload = serde_json::from_slice(&bytes).map_err(|_| Refusal::Malformed)?;
    if p.algorithm != ALGORITHM || p.salt.len() > 200 {
        return Err(Refusal::Malformed);
    }
    let signature = decode_hex(&p.signature).ok_or(Refusal::Malformed)?;
    hmac::verify(&key(secret), p.challenge.as_bytes(), &signature).map_err(|_| Refusal::BadSignature)?;
    if !crypto::same_binding(sha256_hex(&p.salt, p.number).as_bytes(), p.challenge.as_bytes()) {
        return Err(Refusal::WrongNumber);
    }
    let params = SaltParams::parse(&p.salt).ok_or(Refusal::Malformed)?;
    if params.expires <= now {
        return Err(Refusal::Expired);
    }
    if params.slug != slug {
        return Err(Refusal::OtherProgram);
    }
    if max_number(params.level) < max_number(level) {
        return Err(Refusal::WeakerLevel);
    }
    Ok(Spend { signature, expires_at: params.expires })
}

struct SaltParams<'a> {
    expires: i64,
    level: PowLevel,
    slug: &'a str,
}

impl<'a> SaltParams<'a> {
    fn parse(salt: &'a str) -> Option<SaltParams<'a>> {
        let (_, query) = salt.split_once('?')?;
        let (mut expires, mut level, mut slug) = (None, None, None);
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=')? {
                ("expires", v) => expires = v.parse().ok(),
                ("level", v) => level = v.parse().ok(),
                ("slug", v) => slug = Some(v),
                _ => {}
            }
        }
        Some(SaltParams { expires: expires?, level: level?, slug: slug? })
    }
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if s.len() != 64 {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

/// Finds the number by brute force and returns the payload, as an ALTCHA client does
/// (for tests and tools; the browser solves in its Web Worker).
pub fn solve(c: &Challenge) -> Option<String> {
    let number = (0..=c.maxnumber).find(|n| sha256_hex(&c.salt, *n) == c.challenge)?;
    let payload = serde_json::json!({
        "algorithm": c.algorithm, "challenge": c.challenge, "number": number, "salt": c.salt, "signature": c.signature,
    });
    Some(STANDARD.encode(payload.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = &[7; 32];
    const NOW: i64 = 1_800_000_000;

    fn solved(level: PowLevel) -> (Challenge, String) {
        let c = challenge(KEY, "beta", level, NOW).unwrap();
        let payload = solve(&c).unwrap();
        (c, payload)
    }

    #[test]
    fn a_solved_challenge_verifies_once_per_signature() {
        let (c, payload) = solved(PowLevel::Normal);
        let spend = verify(KEY, Some(&payload), "beta", PowLevel::Normal, NOW).unwrap();
        assert_eq!(hex(&spend.signature), c.signature);
        assert_eq!(spend.expires_at, NOW + TTL_SECS);
        assert!(c.salt.ends_with('&'));
    }

    #[test]
    fn every_refusal() {
        let (_, payload) = solved(PowLevel::Normal);
        let v = |p: Option<&str>, slug, level, now| verify(KEY, p, slug, level, now);
        assert_eq!(v(None, "beta", PowLevel::Normal, NOW), Err(Refusal::Missing));
        assert_eq!(v(Some("not base64!"), "beta", PowLevel::Normal, NOW), Err(Refusal::Malformed));
        assert_eq!(v(Some(&STANDARD.encode("{}")), "beta", PowLevel::Normal, NOW), Err(Refusal::Malformed));
        assert_eq!(verify(&[8; 32], Some(&payload), "beta", PowLevel::Normal, NOW), Err(Refusal::BadSignature));
        assert_eq!(v(Some(&payload), "beta", PowLevel::Normal, NOW + TTL_SECS), Err(Refusal::Expired));
        assert_eq!(v(Some(&payload), "other", PowLevel::Normal, NOW), Err(Refusal::OtherProgram));
        assert_eq!(v(Some(&payload), "beta", PowLevel::Strict, NOW), Err(Refusal::WeakerLevel));
        let mut wrong: serde_json::Value = serde_json::from_slice(&STANDARD.decode(&payload).unwrap()).unwrap();
        wrong["number"] = serde_json::json!(wrong["number"].as_u64().unwrap() + 1);
        assert_eq!(
            v(Some(&STANDARD.encode(wrong.to_string())), "beta", PowLevel::Normal, NOW),
            Err(Refusal::WrongNumber)
        );
    }

    #[test]
    fn a_stronger_challenge_serves_a_weaker_level() {
        let c = challenge(KEY, "beta", PowLevel::Strict, NOW).unwrap();
        assert_eq!(c.maxnumber, 500_000);
        // Solving is fine in tests (500k hashes at most); only the level check matters here.
        let payload = solve(&c).unwrap();
        assert!(verify(KEY, Some(&payload), "beta", PowLevel::Normal, NOW).is_ok());
    }

    #[test]
    fn off_asks_for_no_work() {
        assert!(challenge(KEY, "beta", PowLevel::Off, NOW).is_none());
    }
}
