//! A webhook receiver as an owner would run one: it verifies every Standard Webhooks
//! signature itself (ring HMAC, not the server's code), answers 500 to the first request
//! of each `webhook-id` (so every message needs a retry: "fails every other request";
//! or, [`Receiver::steady`], accepts at once), answers scripted statuses first,
//! can be taken down (its port refuses connections) and brought back on the same port,
//! and can hold requests (so a test can kill the sender mid-delivery).

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::Value;
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Default)]
pub struct Log {
    /// Keys (decoded from `whsec_…`) that may sign.
    keys: Vec<Vec<u8>>,
    /// Ed25519 public keys (decoded from `whpk_…`) whose `v1a` signatures are accepted.
    public_keys: Vec<Vec<u8>>,
    /// Requests seen per webhook-id (any outcome).
    pub requests: HashMap<String, u32>,
    /// Every accepted (2xx) message: (webhook-id, body), in arrival order.
    pub accepted: Vec<(String, Value)>,
    pub bad_signatures: u32,
    /// Ids whose request was held.
    pub held: Vec<String>,
    hold: Option<Duration>,
    /// Answers to give, in order, before anything else: (status, `Retry-After`).
    script: std::collections::VecDeque<(u16, Option<String>)>,
    /// Answer 2xx at once, without failing each message's first request.
    steady: bool,
    /// Every signed request: (webhook-id, when it arrived).
    pub arrivals: Vec<(String, std::time::Instant)>,
    /// Every accepted request as it came: its three webhook headers and its body text.
    pub raw: Vec<(serde_json::Map<String, Value>, String)>,
}

#[derive(Clone)]
pub struct Receiver {
    pub port: u16,
    pub log: Arc<Mutex<Log>>,
    server: Arc<Mutex<Option<actix_web::dev::ServerHandle>>>,
}

fn key_of(secret: &str) -> Vec<u8> {
    STANDARD.decode(secret.strip_prefix("whsec_").expect("a whsec_ secret")).expect("base64 key")
}

fn signed(log: &Log, id: &str, ts: &str, sigs: &str, body: &[u8]) -> bool {
    let message = [id.as_bytes(), b".", ts.as_bytes(), b".", body].concat();
    let v1a = log.public_keys.iter().any(|k| {
        let key = ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, k);
        sigs.split(' ')
            .filter_map(|s| s.strip_prefix("v1a,"))
            .filter_map(|s| STANDARD.decode(s).ok())
            .any(|sig| key.verify(&message, &sig).is_ok())
    });
    (v1a && fresh(ts)) || signed_v1(&log.keys, id, ts, sigs, body)
}

fn fresh(ts: &str) -> bool {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    ts.parse::<i64>().is_ok_and(|ts| (now - ts).abs() <= 300)
}

fn signed_v1(keys: &[Vec<u8>], id: &str, ts: &str, sigs: &str, body: &[u8]) -> bool {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let Ok(ts_num) = ts.parse::<i64>() else { return false };
    if (now - ts_num).abs() > 300 {
        return false;
    }
    let message = [id.as_bytes(), b".", ts.as_bytes(), b".", body].concat();
    keys.iter().any(|k| {
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, k);
        sigs.split(' ')
            .filter_map(|s| s.strip_prefix("v1,"))
            .filter_map(|s| STANDARD.decode(s).ok())
            .any(|tag| ring::hmac::verify(&key, &message, &tag).is_ok())
    })
}

async fn receive(req: HttpRequest, body: web::Bytes, log: web::Data<Arc<Mutex<Log>>>) -> HttpResponse {
    let header = |n: &str| req.headers().get(n).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let (id, ts, sigs) = (header("webhook-id"), header("webhook-timestamp"), header("webhook-signature"));
    let hold = {
        let mut log = log.lock().unwrap();
        if !signed(&log, &id, &ts, &sigs, &body) {
            log.bad_signatures += 1;
            return HttpResponse::BadRequest().finish();
        }
        log.arrivals.push((id.clone(), std::time::Instant::now()));
        let n = log.requests.entry(id.clone()).or_default();
        *n += 1;
        let first = *n % 2 == 1;
        if let Some((status, retry_after)) = log.script.pop_front() {
            let mut answer = HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap());
            if let Some(value) = retry_after {
                answer.insert_header(("retry-after", value));
            }
            return answer.finish();
        }
        if first && !log.steady {
            return HttpResponse::InternalServerError().finish();
        }
        if log.hold.is_some() {
            log.held.push(id.clone());
        }
        log.hold
    };
    if let Some(hold) = hold {
        tokio::time::sleep(hold).await;
    }
    let value: Value = serde_json::from_slice(&body).expect("a JSON body");
    let headers = [("webhook-id", &id), ("webhook-timestamp", &ts), ("webhook-signature", &sigs)]
        .map(|(k, v)| (k.to_owned(), Value::String(v.clone())))
        .into_iter()
        .collect();
    let mut log = log.lock().unwrap();
    log.raw.push((headers, String::from_utf8_lossy(&body).into_owned()));
    log.accepted.push((id, value));
    HttpResponse::NoContent().finish()
}

impl Receiver {
    pub async fn start() -> Receiver {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let receiver = Receiver { port, log: Arc::new(Mutex::new(Log::default())), server: Arc::new(Mutex::new(None)) };
        receiver.up();
        receiver
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hooks/vestibule", self.port)
    }

    /// Accepts signatures made with `secret` (besides those accepted before).
    pub fn trust(&self, secret: &str) {
        self.log.lock().unwrap().keys.push(key_of(secret));
    }

    /// Accepts `v1a` signatures that verify with `public_key` (`whpk_…`) instead of any
    /// earlier key.
    pub fn trust_only_public(&self, public_key: &str) {
        let key = STANDARD.decode(public_key.strip_prefix("whpk_").expect("a whpk_ key")).expect("base64 key");
        let mut log = self.log.lock().unwrap();
        log.public_keys = vec![key];
        log.keys.clear();
    }

    /// Accepts only signatures made with `secret`.
    pub fn trust_only(&self, secret: &str) {
        self.log.lock().unwrap().keys = vec![key_of(secret)];
    }

    /// Holds every request it would accept for `hold` before answering.
    pub fn hold(&self, hold: Option<Duration>) {
        self.log.lock().unwrap().hold = hold;
    }

    /// Answers the next requests with these (status, `Retry-After`) before anything else.
    pub fn script(&self, answers: &[(u16, Option<&str>)]) {
        let mut log = self.log.lock().unwrap();
        log.script.extend(answers.iter().map(|(s, r)| (*s, r.map(str::to_owned))));
    }

    /// Accepts every message at its first request (no failing first answer).
    pub fn steady(&self) {
        self.log.lock().unwrap().steady = true;
    }

    /// When each request of `id` arrived.
    pub fn arrivals_of(&self, id: &str) -> Vec<std::time::Instant> {
        self.log.lock().unwrap().arrivals.iter().filter(|(i, _)| i == id).map(|(_, at)| *at).collect()
    }

    /// Serves on its port (again).
    pub fn up(&self) {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).expect("the receiver's port is free");
        let log = web::Data::new(self.log.clone());
        let server = HttpServer::new(move || App::new().app_data(log.clone()).default_service(web::to(receive)))
            .workers(1)
            .disable_signals()
            .shutdown_timeout(0)
            .listen(listener)
            .unwrap()
            .run();
        *self.server.lock().unwrap() = Some(server.handle());
        tokio::spawn(server);
    }

    /// Stops serving: connections to its port are refused until [`Receiver::up`].
    pub async fn down(&self) {
        let handle = self.server.lock().unwrap().take();
        if let Some(handle) = handle {
            handle.stop(false).await;
        }
    }

    /// The distinct webhook-ids accepted.
    pub fn accepted_ids(&self) -> std::collections::BTreeSet<String> {
        self.log.lock().unwrap().accepted.iter().map(|(id, _)| id.clone()).collect()
    }
}
