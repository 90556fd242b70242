//! The public randomness of lottery draws (issue 29): a drand beacon chain, its public
//! schedule, and the verification of a round's signature (the `drand-verify` crate, the
//! League of Entropy's own BLS12-381 arithmetic). Policy: the chain is configuration
//! (`DRAND_PUBLIC_KEY`, `DRAND_GENESIS`, `DRAND_PERIOD`, `DRAND_SCHEME`), quicknet by
//! default; a draw copies the chain it was opened under, so a later change of
//! configuration never changes how an existing draw verifies. Only unchained schemes are
//! accepted: their round `r` signs SHA-256(r as big-endian u64) alone, so one round's
//! signature verifies without any other round. A round's randomness is SHA-256 of its
//! signature, as drand defines it. A signature that is not a point (`Err(InvalidPoint)`)
//! and one that does not verify (`Ok(false)`) are both refusals.
//!
//! The relay (`DRAND_RELAY_URL`, optional) is untrusted transport: whatever it answers is
//! verified like a pasted signature. Fetching happens outside any transaction.

use chrono::{DateTime, TimeDelta, Utc};
use drand_verify::{G1Pubkey, G2PubkeyFastnet, G2PubkeyRfc, Pubkey};
use ring::digest;
use std::time::Duration;

/// The League of Entropy's quicknet (drand's tlock-js `src/drand/defaults.ts`,
/// `MAINNET_CHAIN_INFO`; chain hash `52db9ba7…c84e971`).
pub const QUICKNET_PUBLIC_KEY: &str = "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a";
pub const QUICKNET_GENESIS: i64 = 1_692_803_367;
pub const QUICKNET_PERIOD: u32 = 3;
pub const QUICKNET_SCHEME: &str = "bls-unchained-g1-rfc9380";

/// The unchained schemes drand runs, by their scheme ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// quicknet: signatures on G1, public key on G2, RFC 9380 hash to curve.
    UnchainedG1Rfc9380,
    /// fastnet (deprecated by drand): as quicknet with a non-standard hash-to-curve tag.
    UnchainedOnG1,
    /// signatures on G2, public key on G1.
    PedersenUnchained,
}

impl Scheme {
    pub fn parse(id: &str) -> Option<Scheme> {
        match id {
            "bls-unchained-g1-rfc9380" => Some(Scheme::UnchainedG1Rfc9380),
            "bls-unchained-on-g1" => Some(Scheme::UnchainedOnG1),
            "pedersen-bls-unchained" => Some(Scheme::PedersenUnchained),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::UnchainedG1Rfc9380 => "bls-unchained-g1-rfc9380",
            Scheme::UnchainedOnG1 => "bls-unchained-on-g1",
            Scheme::PedersenUnchained => "pedersen-bls-unchained",
        }
    }
}

/// A beacon chain: who signs, from when, how often.
#[derive(Clone, PartialEq, Eq)]
pub struct Chain {
    pub public_key: Vec<u8>,
    /// Round 1's time, Unix seconds.
    pub genesis: i64,
    /// Seconds between rounds.
    pub period: u32,
    pub scheme: Scheme,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("public_key", &hex::encode(&self.public_key))
            .field("genesis", &self.genesis)
            .field("period", &self.period)
            .field("scheme", &self.scheme.as_str())
            .finish()
    }
}

/// Why a chain's configuration is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    #[error("the scheme is not one of bls-unchained-g1-rfc9380, bls-unchained-on-g1, pedersen-bls-unchained")]
    Scheme,
    #[error("the public key is not a point of the scheme's group")]
    PublicKey,
    #[error("the period must be at least one second and the genesis a positive time")]
    Schedule,
}

/// Why a round's signature is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the signature does not verify for this round under the chain's public key")]
pub struct BadSignature;

impl Chain {
    pub fn quicknet() -> Chain {
        Chain {
            public_key: hex::decode(QUICKNET_PUBLIC_KEY).expect("the quicknet key is hex"),
            genesis: QUICKNET_GENESIS,
            period: QUICKNET_PERIOD,
            scheme: Scheme::UnchainedG1Rfc9380,
        }
    }

    /// A chain whose public key is a valid point of its scheme's group.
    pub fn new(public_key: Vec<u8>, genesis: i64, period: u32, scheme: &str) -> Result<Chain, ChainError> {
        let scheme = Scheme::parse(scheme).ok_or(ChainError::Scheme)?;
        if period == 0 || genesis <= 0 {
            return Err(ChainError::Schedule);
        }
        let valid = match scheme {
            Scheme::UnchainedG1Rfc9380 => G2PubkeyRfc::from_variable(&public_key).is_ok(),
            Scheme::UnchainedOnG1 => G2PubkeyFastnet::from_variable(&public_key).is_ok(),
            Scheme::PedersenUnchained => G1Pubkey::from_variable(&public_key).is_ok(),
        };
        if !valid {
            return Err(ChainError::PublicKey);
        }
        Ok(Chain { public_key, genesis, period, scheme })
    }

    pub fn is_quicknet(&self) -> bool {
        *self == Chain::quicknet()
    }

    /// When round `round` (≥ 1) is scheduled: `genesis + (round − 1) × period`.
    pub fn round_time(&self, round: u64) -> DateTime<Utc> {
        let offset = i64::try_from(round.saturating_sub(1)).unwrap_or(i64::MAX / 4) * i64::from(self.period);
        DateTime::from_timestamp(self.genesis.saturating_add(offset), 0).unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    /// The first round scheduled strictly after `t`.
    pub fn first_round_after(&self, t: DateTime<Utc>) -> u64 {
        let since = t.timestamp_micros() - self.genesis * 1_000_000;
        if since < 0 {
            return 1;
        }
        let period = i64::from(self.period) * 1_000_000;
        // Round k + 1 is at genesis + k × period; the first with that > t.
        u64::try_from(since / period + 2).unwrap_or(u64::MAX)
    }

    /// The draw round for entries closing at `closes_at`: the first round scheduled more
    /// than `margin` after it, so the close is written before the round can be published.
    pub fn draw_round(&self, closes_at: DateTime<Utc>, margin: Duration) -> u64 {
        let margin = TimeDelta::from_std(margin).unwrap_or(TimeDelta::zero());
        self.first_round_after(closes_at + margin)
    }

    /// Verifies `signature` for `round`; answers the round's randomness.
    pub fn verify(&self, round: u64, signature: &[u8]) -> Result<[u8; 32], BadSignature> {
        let verified = match self.scheme {
            Scheme::UnchainedG1Rfc9380 => {
                G2PubkeyRfc::from_variable(&self.public_key).map(|k| k.verify(round, b"", signature))
            }
            Scheme::UnchainedOnG1 => {
                G2PubkeyFastnet::from_variable(&self.public_key).map(|k| k.verify(round, b"", signature))
            }
            Scheme::PedersenUnchained => {
                G1Pubkey::from_variable(&self.public_key).map(|k| k.verify(round, b"", signature))
            }
        };
        match verified {
            Ok(Ok(true)) => Ok(randomness(signature)),
            _ => Err(BadSignature),
        }
    }
}

/// A round's randomness: SHA-256 of its signature.
pub fn randomness(signature: &[u8]) -> [u8; 32] {
    digest::digest(&digest::SHA256, signature).as_ref().try_into().expect("SHA-256 is 32 bytes")
}

/// Why the relay gave no usable signature.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    #[error("the relay is unreachable or slow: {0}")]
    Unreachable(String),
    #[error("the relay answered {0}")]
    Status(u16),
    #[error("the relay's answer is not a beacon of the round asked for")]
    Malformed,
}

#[derive(serde::Deserialize)]
struct RelayBeacon {
    round: u64,
    signature: String,
}

/// Asks a drand HTTP relay for `round`'s signature: `GET {relay}/public/{round}`, where
/// `relay` is the chain's base URL there (for quicknet at drand's own relays,
/// `https://api.drand.sh/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971`).
/// The caller verifies what comes back.
pub async fn fetch(relay: &str, round: u64) -> Result<Vec<u8>, RelayError> {
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .redirect(reqwest::redirect::Policy::limited(2))
        .build()
        .map_err(|e| RelayError::Unreachable(e.to_string()))?;
    let url = format!("{}/public/{round}", relay.trim_end_matches('/'));
    let reply = http.get(url).send().await.map_err(|e| RelayError::Unreachable(e.to_string()))?;
    if !reply.status().is_success() {
        return Err(RelayError::Status(reply.status().as_u16()));
    }
    let beacon: RelayBeacon = reply.json().await.map_err(|_| RelayError::Malformed)?;
    if beacon.round != round {
        return Err(RelayError::Malformed);
    }
    hex::decode(beacon.signature).map_err(|_| RelayError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published quicknet rounds (signatures from drand's relays, cited in drand-verify's
    /// and other projects' tests) with the randomness drand publishes for them.
    pub const QUICKNET_ROUNDS: [(u64, &str, &str); 4] = [
        (
            1,
            "b55e7cb2d5c613ee0b2e28d6750aabbb78c39dcc96bd9d38c2c2e12198df95571de8e8e402a0cc48871c7089a2b3af4b",
            "1466a6cd24e327188770752f6134001c64d6efcc590ccc26b721611ad96f165a",
        ),
        (
            123,
            "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92",
            "fb8f7bc29bf24db51871ec8c79f3a1e4bd0557bc0dfcee9ed1d924e69d1c60dc",
        ),
        (
            657413,
            "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b",
            "fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587",
        ),
        (
            14517013,
            "83236a954108c9de257b6a10c838f3e3f215eb3bd25c2261f42b4a6204d6b00a3f216b8d88dcd7947cba97d39f2e16c5",
            "97d920a0817f74b4dbff89a721faeda4ea307bc5d8890ebb833700ea68b2d106",
        ),
    ];

    #[test]
    fn published_quicknet_rounds_verify_under_the_default_chain() {
        let chain = Chain::quicknet();
        for (round, signature, randomness) in QUICKNET_ROUNDS {
            let signature = hex::decode(signature).unwrap();
            assert_eq!(chain.verify(round, &signature).map(hex::encode), Ok(randomness.to_owned()), "round {round}");
        }
    }

    #[test]
    fn a_wrong_round_or_a_flipped_byte_is_refused() {
        let chain = Chain::quicknet();
        let (round, signature, _) = QUICKNET_ROUNDS[2];
        let signature = hex::decode(signature).unwrap();
        assert_eq!(chain.verify(round + 1, &signature), Err(BadSignature), "another round");
        for i in [0, 10, 47] {
            let mut flipped = signature.clone();
            flipped[i] ^= 0x01;
            assert_eq!(chain.verify(round, &flipped), Err(BadSignature), "byte {i}");
        }
        assert_eq!(chain.verify(round, &signature[..47]), Err(BadSignature), "short");
        assert_eq!(chain.verify(round, &[]), Err(BadSignature), "empty");
        let other = hex::decode(QUICKNET_ROUNDS[1].1).unwrap();
        assert_eq!(chain.verify(round, &other), Err(BadSignature), "another round's signature");
    }

    #[test]
    fn the_schedule_is_quicknets() {
        let chain = Chain::quicknet();
        assert_eq!(chain.round_time(1).timestamp(), QUICKNET_GENESIS);
        // Round 657413 was published at genesis + 657412 × 3 s.
        assert_eq!(chain.round_time(657_413).timestamp(), QUICKNET_GENESIS + 657_412 * 3);
        let at = chain.round_time(657_413);
        assert_eq!(chain.first_round_after(at), 657_414, "strictly after");
        assert_eq!(chain.first_round_after(at - TimeDelta::microseconds(1)), 657_413);
        assert_eq!(chain.first_round_after(at - TimeDelta::seconds(3)), 657_413);
        assert_eq!(chain.draw_round(at - TimeDelta::seconds(10), Duration::from_secs(10)), 657_414);
        assert_eq!(chain.draw_round(at - TimeDelta::seconds(11), Duration::from_secs(10)), 657_413);
        assert_eq!(chain.first_round_after(DateTime::from_timestamp(0, 0).unwrap()), 1);
    }

    #[test]
    fn a_chain_needs_a_key_of_its_schemes_group() {
        let key = hex::decode(QUICKNET_PUBLIC_KEY).unwrap();
        assert!(Chain::new(key.clone(), QUICKNET_GENESIS, 3, QUICKNET_SCHEME).unwrap().is_quicknet());
        assert_eq!(Chain::new(key.clone(), QUICKNET_GENESIS, 3, "pedersen-bls-chained"), Err(ChainError::Scheme));
        assert_eq!(Chain::new(key.clone(), QUICKNET_GENESIS, 3, "pedersen-bls-unchained"), Err(ChainError::PublicKey));
        assert_eq!(Chain::new(key[..95].to_vec(), QUICKNET_GENESIS, 3, QUICKNET_SCHEME), Err(ChainError::PublicKey));
        assert_eq!(Chain::new(key, QUICKNET_GENESIS, 0, QUICKNET_SCHEME), Err(ChainError::Schedule));
    }
}
