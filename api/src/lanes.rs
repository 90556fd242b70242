//! Lanes (issue 28): work for one key that arrives while that key's batch runs waits
//! behind it and goes as the next batch, so batches grow exactly as far as the work is
//! slower than arrivals, and a lone item goes at once, alone (no timer). Group admission
//! keeps a lane per workspace (`crate::group`), the rate-limit hits one per counter
//! (`crate::hits`).
//!
//! A lane exists only while a batch of its key runs: the first item to find none opens
//! it and its caller drives it ([`Lanes::drive`]) until nothing waits. Should the driver
//! end early (a panic), the lane closes and the items waiting in it are dropped — an item
//! that carries a reply channel is then answered that its batch stopped.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

pub struct Lanes<K, T> {
    lanes: Arc<Mutex<HashMap<K, Vec<T>>>>,
    max_batch: usize,
}

impl<K, T> Clone for Lanes<K, T> {
    fn clone(&self) -> Self {
        Self { lanes: self.lanes.clone(), max_batch: self.max_batch }
    }
}

impl<K: Hash + Eq + Clone, T> Lanes<K, T> {
    /// Lanes whose batches hold at most `max_batch` items (later arrivals wait for the next).
    pub fn new(max_batch: usize) -> Self {
        Self { lanes: Arc::default(), max_batch }
    }

    /// Queues `item` behind the batch of `key` that is running; when none is, opens the
    /// key's lane and answers the batch of `item` alone, for the caller to [`drive`](Self::drive).
    pub fn join(&self, key: &K, item: T) -> Option<Vec<T>> {
        let mut lanes = self.lanes.lock().expect("lanes");
        match lanes.get_mut(key) {
            Some(waiting) => {
                waiting.push(item);
                None
            }
            None => {
                lanes.insert(key.clone(), Vec::new());
                Some(vec![item])
            }
        }
    }

    /// Runs `batch`, then each batch that gathered behind it (in arrival order, at most
    /// `max_batch` at a time), one after another, until none waits; then closes the lane.
    pub async fn drive<F, Fut>(&self, key: K, mut batch: Vec<T>, mut run: F)
    where
        F: FnMut(Vec<T>) -> Fut,
        Fut: Future<Output = ()>,
    {
        let mut open = Open { lanes: &self.lanes, key: Some(key) };
        loop {
            run(batch).await;
            let key = open.key.as_ref().expect("open lane");
            let mut lanes = self.lanes.lock().expect("lanes");
            let Some(waiting) = lanes.get_mut(key) else { break };
            if waiting.is_empty() {
                lanes.remove(key);
                open.key = None;
                break;
            }
            let rest = waiting.split_off(waiting.len().min(self.max_batch));
            batch = std::mem::replace(waiting, rest);
        }
    }
}

/// Closes a lane whose driver ended without closing it.
struct Open<'a, K: Hash + Eq, T> {
    lanes: &'a Mutex<HashMap<K, Vec<T>>>,
    key: Option<K>,
}

impl<K: Hash + Eq, T> Drop for Open<'_, K, T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            if let Ok(mut lanes) = self.lanes.lock() {
                lanes.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lanes;
    use std::sync::{Arc, Mutex};

    #[tokio::test]
    async fn items_that_arrive_while_a_batch_runs_go_next_in_arrival_order_and_the_lane_closes() {
        let lanes: Lanes<&str, u32> = Lanes::new(2);
        let first = lanes.join(&"k", 1).expect("an idle key opens its lane");
        assert_eq!(first, [1]);
        assert!(lanes.join(&"other", 9).is_some(), "another key's lane is its own");
        let ran = Arc::new(Mutex::new(Vec::new()));
        let during = lanes.clone();
        lanes
            .drive("k", first, |batch| {
                let (ran, during) = (ran.clone(), during.clone());
                async move {
                    if batch == [1] {
                        // Arrivals while the first batch runs: at most two a batch.
                        for item in 2..=6 {
                            assert!(during.join(&"k", item).is_none(), "queued behind the running batch");
                        }
                    }
                    ran.lock().unwrap().push(batch);
                }
            })
            .await;
        assert_eq!(*ran.lock().unwrap(), [vec![1], vec![2, 3], vec![4, 5], vec![6]]);
        assert!(lanes.join(&"k", 7).is_some(), "the lane closed when nothing waited");
    }

    #[tokio::test]
    async fn a_driver_that_panics_closes_its_lane_and_drops_what_waited() {
        let lanes: Lanes<u8, tokio::sync::oneshot::Sender<()>> = Lanes::new(8);
        let (first, _first_answer) = tokio::sync::oneshot::channel();
        let batch = lanes.join(&1, first).expect("opens");
        let (waiting, waiting_answer) = tokio::sync::oneshot::channel();
        assert!(lanes.join(&1, waiting).is_none());
        let driver = lanes.clone();
        let ended = tokio::spawn(async move { driver.drive(1, batch, |_| async { panic!("the batch failed") }).await });
        assert!(ended.await.is_err(), "the driver panicked");
        assert!(waiting_answer.await.is_err(), "the waiting item was dropped, its reply closed");
        let (again, _) = tokio::sync::oneshot::channel();
        assert!(lanes.join(&1, again).is_some(), "the lane is open to a new batch");
    }
}
