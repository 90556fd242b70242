//! Signup load: a few clients, each sending new signups one after another on its own
//! keep-alive connection, recording every request and what came back, so a test can
//! check each answer against the database afterwards.

use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// How a request ended.
#[derive(Debug, Clone)]
pub enum Answer {
    /// A complete HTTP response: status and `Retry-After`.
    Status(u16, Option<String>),
    /// No connection could be made (refused): the request was never sent.
    Refused,
    /// The connection failed after it was made (reset, closed mid-answer, timeout).
    Broken(#[allow(dead_code)] String), // read through Debug in failure messages
}

#[derive(Debug, Clone)]
pub struct Attempt {
    pub key: Uuid,
    pub email: String,
    pub answer: Answer,
}

#[derive(Default)]
pub struct Counters {
    pub accepted: AtomicUsize,
    pub unavailable: AtomicUsize,
    pub other: AtomicUsize,
    /// Requests sent again after a broken connection (see [`Load::start_with`]).
    pub resent: AtomicUsize,
}

pub struct Load {
    stop: Arc<AtomicBool>,
    pub counters: Arc<Counters>,
    tasks: Vec<tokio::task::JoinHandle<Vec<Attempt>>>,
}

/// The signup request body.
pub fn body(key: Uuid, email: &str) -> serde_json::Value {
    json!({"requestKey": key, "email": email, "noticeVersion": 1, "permission": true})
}

pub async fn send(http: &reqwest::Client, url: &str, origin: &str, key: Uuid, email: &str) -> Answer {
    match http.post(url).header("origin", origin).json(&body(key, email)).send().await {
        Ok(r) => {
            let retry = r.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_owned);
            let status = r.status().as_u16();
            match r.bytes().await {
                Ok(_) => Answer::Status(status, retry),
                Err(e) => Answer::Broken(format!("{e:?}")),
            }
        }
        Err(e) if e.is_connect() => Answer::Refused,
        Err(e) => Answer::Broken(format!("{e:?}")),
    }
}

impl Load {
    /// `clients` tasks posting to `url` until [`Load::finish`]; a task also ends at its
    /// first refused connection (the server stopped accepting).
    pub fn start(clients: usize, url: &str, origin: &str, tag: &str) -> Load {
        let clients = (0..clients)
            .map(|_| reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap())
            .collect();
        Self::start_with(clients, url, origin, tag, false)
    }

    /// As [`Load::start`], one task per given client. With `resend_broken`, a request whose
    /// connection broke is sent once more with the same request key, as the SPA does: a
    /// keep-alive connection a proxy closes just as the request goes out (nginx's reload
    /// closes idle client connections) loses nothing that way.
    pub fn start_with(clients: Vec<reqwest::Client>, url: &str, origin: &str, tag: &str, resend_broken: bool) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let counters = Arc::new(Counters::default());
        let tasks = clients
            .into_iter()
            .enumerate()
            .map(|(c, http)| {
                let (stop, counters) = (stop.clone(), counters.clone());
                let (url, origin) = (url.to_owned(), origin.to_owned());
                let email = format!("{tag}-{c}");
                tokio::spawn(async move {
                    let mut attempts = Vec::new();
                    for n in 0.. {
                        if stop.load(Ordering::SeqCst) {
                            break;
                        }
                        let (key, email) = (Uuid::new_v4(), format!("{email}-{n}@example.com"));
                        let mut answer = send(&http, &url, &origin, key, &email).await;
                        if resend_broken && matches!(answer, Answer::Broken(_)) {
                            counters.resent.fetch_add(1, Ordering::SeqCst);
                            answer = send(&http, &url, &origin, key, &email).await;
                        }
                        let counter = match answer {
                            Answer::Status(202, _) => &counters.accepted,
                            Answer::Status(503, _) => &counters.unavailable,
                            _ => &counters.other,
                        };
                        counter.fetch_add(1, Ordering::SeqCst);
                        let refused = matches!(answer, Answer::Refused);
                        let unavailable = matches!(answer, Answer::Status(503, _));
                        attempts.push(Attempt { key, email, answer });
                        if refused {
                            break;
                        }
                        if unavailable {
                            // A polite client waits a little before trying again.
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                    }
                    attempts
                })
            })
            .collect();
        Load { stop, counters, tasks }
    }

    pub fn accepted(&self) -> usize {
        self.counters.accepted.load(Ordering::SeqCst)
    }

    pub fn unavailable(&self) -> usize {
        self.counters.unavailable.load(Ordering::SeqCst)
    }

    /// Waits until `condition` holds, failing the test after `bound`.
    pub async fn wait_for(&self, what: &str, bound: Duration, condition: impl Fn(&Load) -> bool) {
        let deadline = Instant::now() + bound;
        while !condition(self) {
            assert!(
                Instant::now() < deadline,
                "load: {what} did not happen in {bound:?} (202: {}, 503: {}, other: {})",
                self.accepted(),
                self.unavailable(),
                self.counters.other.load(Ordering::SeqCst)
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Stops the clients and returns every attempt.
    pub async fn finish(self) -> Vec<Attempt> {
        self.stop.store(true, Ordering::SeqCst);
        self.collect().await
    }

    /// Waits for every client to end by itself (each ends at a refused connection).
    pub async fn collect(self) -> Vec<Attempt> {
        let mut all = Vec::new();
        for task in self.tasks {
            all.extend(task.await.unwrap());
        }
        all
    }
}
