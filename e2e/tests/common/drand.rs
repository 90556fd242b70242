//! A local drand chain for the tests (issue 29): a BLS12-381 key the test holds, signing
//! rounds exactly as quicknet does (scheme `bls-unchained-g1-rfc9380`: signature on G1 =
//! secret × hash-to-curve(SHA-256(round as big-endian u64)), domain tag
//! `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_`; public key on G2), and an HTTP relay
//! serving its published rounds at `GET /public/{round}` like drand's relays. The server
//! is configured with the chain through its `DRAND_*` settings and verifies with
//! `drand-verify` as in production; only the tests sign.
//!
//! Also the published quicknet rounds used as fixtures (their signatures verify under
//! the League of Entropy's real key).

use actix_web::{web, App, HttpResponse, HttpServer};
use api::drand::Chain;
use api::usecases::draws::DrawConfig;
use bls12_381::hash_to_curve::{ExpandMsgXmd, HashToCurve};
use bls12_381::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use serde_json::json;
use std::net::TcpListener;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

const DST: &[u8] = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_";

/// Published quicknet rounds: (round, signature, randomness).
pub const QUICKNET_657413: (u64, &str, &str) = (
    657_413,
    "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b",
    "fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587",
);
pub const QUICKNET_123_SIGNATURE: &str =
    "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92";

/// How the relay answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelayMode {
    /// Published rounds, correctly signed; 404 for a round not yet due.
    Honest = 0,
    /// 503 for everything.
    Down = 1,
    /// Another round's signature for every round asked.
    Lying = 2,
}

#[derive(Clone)]
pub struct LocalChain {
    secret: Scalar,
    pub public_key: Vec<u8>,
    pub genesis: i64,
    pub period: u32,
    mode: Arc<AtomicU8>,
}

impl LocalChain {
    /// A chain whose key derives from `seed`, with 1-second rounds since November 2023
    /// (deterministic, so a test can rebuild the chain its server was configured with).
    pub fn new(seed: u8) -> LocalChain {
        let secret = Scalar::from_bytes_wide(&[seed; 64]);
        let public_key = G2Affine::from(G2Projective::generator() * secret).to_compressed().to_vec();
        LocalChain { secret, public_key, genesis: 1_700_000_000, period: 1, mode: Arc::new(AtomicU8::new(0)) }
    }

    /// The chain every test server is configured with unless the test says otherwise.
    pub fn default_for_tests() -> LocalChain {
        LocalChain::new(7)
    }

    pub fn chain(&self) -> Chain {
        Chain::new(self.public_key.clone(), self.genesis, self.period, "bls-unchained-g1-rfc9380")
            .expect("a valid chain")
    }

    /// The draws configuration of a test server on this chain (a 1-second margin).
    pub fn config(&self, relay: Option<String>) -> DrawConfig {
        DrawConfig { chain: self.chain(), margin: Duration::from_secs(1), relay }
    }

    /// Round `round`'s signature.
    pub fn sign(&self, round: u64) -> Vec<u8> {
        let message = ring::digest::digest(&ring::digest::SHA256, &round.to_be_bytes());
        let point = <G1Projective as HashToCurve<ExpandMsgXmd<sha2::Sha256>>>::hash_to_curve(message.as_ref(), DST);
        G1Affine::from(point * self.secret).to_compressed().to_vec()
    }

    pub fn sign_hex(&self, round: u64) -> String {
        hex::encode(self.sign(round))
    }

    pub fn set_relay(&self, mode: RelayMode) {
        self.mode.store(mode as u8, Ordering::SeqCst);
    }

    /// Starts the relay on a loopback port; answers its base URL.
    pub fn relay(&self) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let chain = web::Data::new(self.clone());
        let server = HttpServer::new(move || {
            App::new().app_data(chain.clone()).route("/public/{round}", web::get().to(public_round))
        })
        .workers(1)
        .disable_signals()
        .shutdown_timeout(0)
        .listen(listener)
        .unwrap()
        .run();
        tokio::spawn(server);
        base
    }
}

async fn public_round(chain: web::Data<LocalChain>, round: web::Path<u64>) -> HttpResponse {
    let round = *round;
    let due = chain.chain().round_time(round) <= chrono::Utc::now();
    match chain.mode.load(Ordering::SeqCst) {
        1 => HttpResponse::ServiceUnavailable().finish(),
        _ if !due => HttpResponse::NotFound().finish(),
        mode => {
            let signed = if mode == 2 { chain.sign(round + 1) } else { chain.sign(round) };
            let randomness = hex::encode(api::drand::randomness(&signed));
            HttpResponse::Ok().json(json!({"round": round, "randomness": randomness, "signature": hex::encode(signed)}))
        }
    }
}

/// A relay publishing one fixed beacon (a published quicknet round, as drand's relays
/// serve it) and 404 for any other round: what `tools/verify_draw.py --relay` compares with.
pub fn static_relay(round: u64, signature: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let server = HttpServer::new(move || {
        App::new().route(
            "/public/{round}",
            web::get().to(move |asked: web::Path<u64>| async move {
                if *asked != round {
                    return HttpResponse::NotFound().finish();
                }
                let randomness = hex::encode(api::drand::randomness(&hex::decode(signature).unwrap()));
                HttpResponse::Ok().json(json!({"round": round, "randomness": randomness, "signature": signature}))
            }),
        )
    })
    .workers(1)
    .disable_signals()
    .shutdown_timeout(0)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    base
}
