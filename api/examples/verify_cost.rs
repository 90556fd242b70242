//! What a session token's verification costs on this machine, with and without the
//! verified-token cache (`api/src/identity/tokens.rs`): `cargo run --release -p api
//! --example verify_cost`. Prints µs per verification; BENCHMARKS.md quotes it.

use api::identity::{BackendClient, TokenVerifier};
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use rsa::pkcs1::{EncodeRsaPrivateKey, EncodeRsaPublicKey, LineEnding};
use std::time::Instant;

const N: usize = 2_000;

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let private = rsa::RsaPrivateKey::new(&mut rand::rngs::OsRng, 2048)?;
    let public_pem = private.to_public_key().to_pkcs1_pem(LineEnding::LF)?;
    let signing = EncodingKey::from_rsa_pem(private.to_pkcs1_pem(LineEnding::LF)?.as_bytes())?;
    let backend = BackendClient::new("http://127.0.0.1:9", "sk_test_unused")?;
    let now = jsonwebtoken::get_current_timestamp();
    let tokens: Vec<String> = (0..N)
        .map(|i| {
            let claims = serde_json::json!({"sub": format!("user_{i}"), "sid": format!("sess_{i}"),
                "iat": now, "nbf": now, "exp": now + 3600, "azp": "http://app.test"});
            encode(&Header::new(Algorithm::RS256), &claims, &signing)
        })
        .collect::<Result<_, _>>()?;
    let verifier = TokenVerifier::new(Some(&public_pem), backend, vec!["http://app.test".into()])?;

    // Every token once: none is remembered yet, so each is verified in full (RSA).
    let t = Instant::now();
    for token in &tokens {
        verifier.verify(token).await?;
    }
    let full = t.elapsed().as_secs_f64() * 1e6 / N as f64;
    // Every token again: all remembered.
    let t = Instant::now();
    for token in &tokens {
        verifier.verify(token).await?;
    }
    let cached = t.elapsed().as_secs_f64() * 1e6 / N as f64;
    // The RSA signature check alone, as jsonwebtoken does it (ring, from n and e).
    let key = jsonwebtoken::DecodingKey::from_rsa_pem(public_pem.as_bytes())?;
    let (message, signature) = tokens[0].rsplit_once('.').expect("a JWT");
    let t = Instant::now();
    for _ in 0..N {
        assert!(jsonwebtoken::crypto::verify(signature, message.as_bytes(), &key, Algorithm::RS256)?);
    }
    let rsa_only = t.elapsed().as_secs_f64() * 1e6 / N as f64;
    println!("full verification   {full:8.1} µs per token");
    println!("  of which RSA      {rsa_only:8.1} µs");
    println!("remembered token    {cached:8.1} µs per token");
    Ok(())
}
