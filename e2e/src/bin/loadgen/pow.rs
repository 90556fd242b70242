//! The ALTCHA solver, as the SPA's Web Worker (web/pow-worker.js) solves: try
//! `number = 0, 1, 2, …, maxnumber` in order until `hex(SHA-256(salt ‖ decimal(number)))`
//! is the challenge, then hand back the payload
//! `base64(JSON {algorithm, challenge, number, salt, signature, took})` — the same keys in
//! the same order as the worker's `JSON.stringify`, `took` in whole milliseconds, standard
//! base64 with padding as `btoa` writes it — for the signup body's `altcha` field.
//!
//! The hashing is the only part that differs from the worker, and only in speed: the
//! salt's SHA-256 state is computed once and cloned per try (the worker rehashes the
//! salt each time), so a `normal` challenge takes a few milliseconds here.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ring::digest;
use serde::Serialize;
use shared::api::Challenge;
use std::time::Instant;

/// The worker's payload, field for field and in its order.
#[derive(Serialize)]
struct Payload<'a> {
    algorithm: &'a str,
    challenge: &'a str,
    number: u64,
    salt: &'a str,
    signature: &'a str,
    took: u64,
}

/// The payload for the signup body's `altcha`, or `None` when no number in
/// `0..=maxnumber` hashes to the challenge (or the challenge is not SHA-256 hex).
pub fn solve(c: &Challenge) -> Option<String> {
    let started = Instant::now();
    let number = find_number(&c.challenge, &c.salt, c.maxnumber)?;
    let payload = Payload {
        algorithm: &c.algorithm,
        challenge: &c.challenge,
        number,
        salt: &c.salt,
        signature: &c.signature,
        took: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    Some(STANDARD.encode(serde_json::to_string(&payload).ok()?))
}

/// The first `number` in `0..=max` with `SHA-256(salt ‖ decimal(number)) == challenge`.
fn find_number(challenge: &str, salt: &str, max: u64) -> Option<u64> {
    let target = decode_hex(challenge)?;
    let mut prefix = digest::Context::new(&digest::SHA256);
    prefix.update(salt.as_bytes());
    let mut digits = [0u8; 20];
    (0..=max).find(|&n| {
        let mut ctx = prefix.clone();
        ctx.update(decimal(n, &mut digits));
        ctx.finish().as_ref() == target
    })
}

/// `n` in decimal ASCII (as JavaScript's `String(n)` for integers), in `buf`'s tail.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

fn decode_hex(s: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    if s.len() != 64 {
        return None;
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::api::PowLevel;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn decimal_is_javascripts_string_of_an_integer() {
        let mut buf = [0u8; 20];
        for n in [0, 7, 10, 49_999, 500_000, u64::MAX] {
            assert_eq!(decimal(n, &mut buf), n.to_string().as_bytes());
        }
    }

    #[test]
    fn a_challenge_with_a_known_number_gives_the_workers_payload() {
        let salt = "0123456789abcdef0123456789abcdef?expires=1800000600&level=normal&slug=lg-test&";
        let number = 31_337u64;
        let challenge = hex(digest::digest(&digest::SHA256, format!("{salt}{number}").as_bytes()).as_ref());
        let c = Challenge {
            algorithm: "SHA-256".into(),
            challenge: challenge.clone(),
            maxnumber: 50_000,
            salt: salt.into(),
            signature: "ab".repeat(32),
        };
        let payload = solve(&c).expect("solvable");
        let json = String::from_utf8(STANDARD.decode(&payload).unwrap()).unwrap();
        // The worker's JSON.stringify: these keys in this order, nothing else but `took`.
        let expected_head = format!(
            r#"{{"algorithm":"SHA-256","challenge":"{challenge}","number":31337,"salt":"{salt}","signature":"{}","took":"#,
            "ab".repeat(32)
        );
        assert!(json.starts_with(&expected_head), "{json}");
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(v["took"].is_u64());
        assert_eq!(payload.len() % 4, 0, "padded, as btoa writes it");

        // Out of range or not a SHA-256 hex digest: no solution.
        assert_eq!(solve(&Challenge { maxnumber: number - 1, ..c.clone() }), None);
        assert_eq!(solve(&Challenge { challenge: "zz".repeat(32), ..c }), None);
    }

    /// The server's own challenge and check (api::pow): what loadgen solves, it accepts.
    #[test]
    fn the_server_accepts_what_loadgen_solves() {
        let key = [9u8; 32];
        let now = chrono::Utc::now().timestamp();
        for level in [PowLevel::Normal, PowLevel::Strict] {
            let c = api::pow::challenge(&key, "lg-slug", level, now).expect("a level with work");
            let payload = solve(&c).expect("solvable");
            let spend = api::pow::verify(&key, Some(&payload), "lg-slug", level, now).expect("verifies");
            assert_eq!(hex(&spend.signature), c.signature);
        }
    }
}
