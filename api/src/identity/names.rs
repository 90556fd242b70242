//! Owners' display names for owner-audience responses, looked up through the Backend API
//! with a small in-process cache. Policy: asked only after the request's transaction has
//! ended (never a network call under a lock), concurrently and within a short deadline;
//! an unavailable provider gives no name (the page says "an owner"), never an error. A
//! name lives only in memory and in the response: never in a log, event, URL or error.

use super::BackendClient;
use futures_util::future::join_all;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long an answer (a name, or "no such user") is reused.
const TTL: Duration = Duration::from_secs(300);
/// At most this many users are remembered; the oldest answer goes first.
const CAPACITY: usize = 1024;
/// A page waits at most this long for names (all lookups run at once).
const DEADLINE: Duration = Duration::from_millis(1500);

pub struct OwnerNames {
    backend: BackendClient,
    cache: Mutex<HashMap<String, (Instant, Option<String>)>>,
}

impl OwnerNames {
    pub fn new(backend: BackendClient) -> Self {
        OwnerNames { backend, cache: Mutex::new(HashMap::new()) }
    }

    /// The names of those of `user_ids` the provider could name, by Clerk user id.
    pub async fn resolve<'a>(&self, user_ids: impl IntoIterator<Item = &'a str>) -> HashMap<String, String> {
        let mut wanted: Vec<&str> = user_ids.into_iter().collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut names = HashMap::new();
        let mut missing = Vec::new();
        {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            for id in wanted {
                match cache.get(id) {
                    Some((at, name)) if at.elapsed() < TTL => {
                        if let Some(name) = name {
                            names.insert(id.to_owned(), name.clone());
                        }
                    }
                    _ => missing.push(id),
                }
            }
        }
        if missing.is_empty() {
            return names;
        }
        let lookups = join_all(missing.iter().map(|id| self.backend.display_name(id)));
        let Ok(answers) = tokio::time::timeout(DEADLINE, lookups).await else {
            crate::metrics::count("identity", "names_unavailable");
            return names;
        };
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        for (id, answer) in missing.into_iter().zip(answers) {
            // A failed lookup is not remembered: the next page asks again.
            let Ok(name) = answer else { continue };
            remember(&mut cache, id, name.clone());
            if let Some(name) = name {
                names.insert(id.to_owned(), name);
            }
        }
        names
    }
}

fn remember(cache: &mut HashMap<String, (Instant, Option<String>)>, id: &str, name: Option<String>) {
    if cache.len() >= CAPACITY && !cache.contains_key(id) {
        cache.retain(|_, (at, _)| at.elapsed() < TTL);
        if cache.len() >= CAPACITY {
            if let Some(oldest) = cache.iter().min_by_key(|(_, (at, _))| *at).map(|(k, _)| k.clone()) {
                cache.remove(&oldest);
            }
        }
    }
    cache.insert(id.to_owned(), (Instant::now(), name));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_stays_within_its_capacity_dropping_the_oldest() {
        let mut cache = HashMap::new();
        for i in 0..CAPACITY + 10 {
            remember(&mut cache, &format!("user_{i}"), None);
        }
        assert_eq!(cache.len(), CAPACITY);
        assert!(cache.contains_key(&format!("user_{}", CAPACITY + 9)));
    }
}
