//! Gates (issue 28): at most `width` holders per key at once; the rest wait here, in
//! memory, in arrival order. Redemptions pass their workspace's gate before they take a
//! connection of the main runtime's pool ([`GatedPool`], `AppState::redemptions`).
//!
//! Why: a redemption holds its program's row over several round trips, so redemptions
//! into one program take turns on that lock inside PostgreSQL, each holding a pooled
//! connection while it waits. The main runtime's pool is small (a quarter of
//! `DB_POOL_SIZE`, at least four, `startup::PoolShares`) and also carries every
//! workspace's admission batches and the outbox. Without a gate, one workspace's wave of
//! redemptions (a launch e-mail's readers, say) took every connection, and another
//! workspace's admission batch queued for one behind the whole wave: a tenant slowed the
//! rest. With it, a workspace holds at most half the pool; its other redemptions wait at
//! the gate, where they cost no connection, and a waiting turn on the lock is all they
//! lose (two in the database keep the lock busy: while one holds it, the next waits
//! inside PostgreSQL with its statements sent).
//!
//! Measured (issue 28, 2026-12-06, BENCHMARKS.md): without the gate, a wave into one
//! program also starved the outbox, which runs on the same pool — each grant's Clerk sync
//! (issue 14) waited behind the wave: at 64 clients, 1,400 of 1,500 were still to make
//! when the last redemption was answered. Its req/s looked better for it (360 against
//! 300 with the gate) but the work was only deferred: counting the time until every
//! grant's sync was made, invitation codes at 64 clients went 220–234 → 285 a second,
//! and the outbox kept up (80–180 left at the end).
//!
//! A key's entry exists only while someone holds or waits at its gate.

use deadpool_postgres::Pool;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;
use uuid::Uuid;

type Map<K> = Arc<Mutex<HashMap<K, Arc<Semaphore>>>>;

pub struct Gates<K> {
    gates: Map<K>,
    width: usize,
}

impl<K> Clone for Gates<K> {
    fn clone(&self) -> Self {
        Self { gates: self.gates.clone(), width: self.width }
    }
}

impl<K: Hash + Eq + Clone> Gates<K> {
    /// Gates that let `width` (at least one) holders of a key through at once.
    pub fn new(width: usize) -> Self {
        Self { gates: Arc::default(), width: width.max(1) }
    }

    /// Waits for a turn at `key`'s gate (first come, first through); the turn lasts as
    /// long as the returned [`Pass`].
    pub async fn enter(&self, key: K) -> Pass<K> {
        let semaphore = self
            .gates
            .lock()
            .expect("gates")
            .entry(key.clone())
            .or_insert_with(|| Arc::new(Semaphore::new(self.width)))
            .clone();
        // Built before the wait, so a caller that goes away while waiting still tidies up.
        let mut pass =
            Pass { gates: self.gates.clone(), key, semaphore: Some(semaphore), through: false, waited: false };
        let semaphore = pass.semaphore.as_ref().expect("held until drop");
        // No one jumps the line: while anyone waits, a freed turn is theirs, not free.
        match semaphore.try_acquire() {
            Ok(turn) => turn.forget(),
            Err(_) => {
                semaphore.acquire().await.expect("a gate is never closed").forget();
                pass.waited = true;
            }
        }
        pass.through = true;
        pass
    }

    /// How many keys have someone holding or waiting at their gate.
    #[cfg(test)]
    fn busy(&self) -> usize {
        self.gates.lock().expect("gates").len()
    }
}

/// A turn at a gate (or a place in its line, until [`Gates::enter`] returns it).
pub struct Pass<K: Hash + Eq> {
    gates: Map<K>,
    key: K,
    /// Given up in `drop`, under the map's lock.
    semaphore: Option<Arc<Semaphore>>,
    through: bool,
    waited: bool,
}

impl<K: Hash + Eq> Pass<K> {
    /// Whether the gate was full when this pass came, so that it waited for a turn.
    pub fn waited(&self) -> bool {
        self.waited
    }
}

impl<K: Hash + Eq> Drop for Pass<K> {
    fn drop(&mut self) {
        // Under the map's lock, so that a count of one means only the map holds the gate:
        // every other handle is made under this lock and given up under it.
        let mut gates = self.gates.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(semaphore) = self.semaphore.take() {
            if self.through {
                semaphore.add_permits(1);
            }
        }
        if gates.get(&self.key).is_some_and(|s| Arc::strong_count(s) == 1) {
            gates.remove(&self.key);
        }
    }
}

/// The main runtime's pool (`AppState::redemptions`), taken through a gate per
/// workspace that lets half its connections through (at least one).
#[derive(Clone)]
pub struct GatedPool {
    pool: Pool,
    gates: Gates<Uuid>,
}

impl GatedPool {
    pub fn new(pool: Pool) -> Self {
        let width = pool.status().max_size / 2;
        Self { pool, gates: Gates::new(width) }
    }

    /// Waits for `workspace_id`'s turn; then the pool is the caller's to use while the
    /// pass lives. Counted (`vestibule_events_total{family="redemption_gate"}`) as
    /// `at_once` or `waited`, so an operator sees when a workspace's redemptions queue.
    pub async fn enter(&self, workspace_id: Uuid) -> (Pass<Uuid>, &Pool) {
        let pass = self.gates.enter(workspace_id).await;
        crate::metrics::count("redemption_gate", if pass.waited() { "waited" } else { "at_once" });
        (pass, &self.pool)
    }
}

#[cfg(test)]
mod tests {
    use super::Gates;
    use std::time::Duration;

    async fn pending<F: std::future::Future>(f: &mut std::pin::Pin<Box<F>>) -> bool {
        tokio::time::timeout(Duration::from_millis(50), f.as_mut()).await.is_err()
    }

    #[tokio::test]
    async fn a_gate_lets_its_width_through_and_the_next_in_arrival_order() {
        let gates: Gates<u8> = Gates::new(2);
        let first = gates.enter(1).await;
        let second = gates.enter(1).await;
        let mut third = Box::pin(gates.enter(1));
        assert!(pending(&mut third).await, "a third waits while two hold key 1");
        let other = gates.enter(2).await;
        assert_eq!(gates.busy(), 2, "another key has its own gate");
        let mut fourth = Box::pin(gates.enter(1));
        assert!(pending(&mut fourth).await);
        assert!(!first.waited() && !second.waited() && !other.waited());
        drop(first);
        let third = third.await;
        assert!(third.waited());
        assert!(pending(&mut fourth).await, "the one that came first goes first");
        drop(second);
        let fourth = fourth.await;
        drop((third, fourth, other));
        assert_eq!(gates.busy(), 0, "idle gates are gone");
    }

    #[tokio::test]
    async fn a_caller_that_stops_waiting_leaves_no_gate_behind_and_takes_no_turn() {
        let gates: Gates<u8> = Gates::new(1);
        let holder = gates.enter(7).await;
        let mut gone = Box::pin(gates.enter(7));
        assert!(pending(&mut gone).await);
        drop(gone);
        drop(holder);
        assert_eq!(gates.busy(), 0);
        let a = gates.enter(7).await;
        let mut b = Box::pin(gates.enter(7));
        assert!(pending(&mut b).await, "the width is still one: the abandoned wait took no turn");
        drop(a);
        drop(b.await);
        assert_eq!(gates.busy(), 0);
    }
}
