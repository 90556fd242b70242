//! What the attempt limiters counted for one request, handed back to the edge whatever
//! the use case answers: the edge publishes it as the IETF `RateLimit-Policy` and
//! `RateLimit` fields (`http::rate_limit`). A use case that counts an attempt records
//! each counter's [`Usage`] here; one that counts nothing records nothing, so only
//! counted answers carry the fields.

pub use crate::db::rate_limits::Usage;
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, Default)]
pub struct Meter(Arc<Mutex<Vec<Usage>>>);

impl Meter {
    /// Records where the counters of this attempt stand (replacing an earlier record of
    /// the same policy).
    pub fn record(&self, usage: &[Usage]) {
        let mut recorded = self.0.lock().unwrap_or_else(|e| e.into_inner());
        recorded.retain(|u| usage.iter().all(|n| n.policy != u.policy));
        recorded.extend_from_slice(usage);
    }

    /// The attempt was taken back (it did not count against the quota).
    pub fn refunded(&self) {
        let mut recorded = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for u in recorded.iter_mut() {
            u.remaining = (u.remaining + 1).min(u.quota);
        }
    }

    pub fn usage(&self) -> Vec<Usage> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}
