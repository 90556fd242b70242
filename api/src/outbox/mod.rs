//! The transactional outbox's delivery side. Events are enqueued by the database in the
//! transaction that appends their audit event (V20's `outbox_enqueue` trigger); every API
//! process runs one worker ([`spawn`]) that claims due deliveries as leases
//! (`db::outbox::claim`), delivers them with no transaction open, and records each
//! outcome. Retries back off about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±20 %
//! jitter), then the delivery is failed; a webhook endpoint failing for 3 days is disabled.
//!
//! Delivery is at least once: a process killed mid-delivery leaves a lease that lapses,
//! and another worker delivers again with the same `webhook-id`. A new target kind (an
//! internal handler, e.g. a Clerk sync) is a [`TargetKind`] variant, an arm in
//! `worker::dispatch`, and rows in `outbox_internal_subscriptions` (NOTES-integrations.md).

mod clerk_sync;
pub mod target;
mod webhook;
mod worker;

pub use webhook::message_id as webhook_message_id;
pub use worker::spawn;

/// Attempts in all before a delivery is failed.
pub const MAX_ATTEMPTS: i32 = 8;
/// An endpoint failing this long is disabled.
pub const DISABLE_AFTER_DAYS: i32 = 3;
/// Waits after the 1st, 2nd, … failed attempt.
const SCHEDULE_SECS: [f64; 7] = [5.0, 300.0, 1800.0, 7200.0, 18000.0, 36000.0, 36000.0];

/// Where a delivery goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// An owner's webhook endpoint (Standard Webhooks).
    Webhook,
    /// "On grant, in Clerk": the grant mirrored into Clerk (issue 14).
    ClerkSync,
}

impl TargetKind {
    pub const ALL: [TargetKind; 2] = [TargetKind::Webhook, TargetKind::ClerkSync];

    pub fn as_str(self) -> &'static str {
        match self {
            TargetKind::Webhook => "webhook",
            TargetKind::ClerkSync => "clerk_sync",
        }
    }

    pub fn parse(s: &str) -> Option<TargetKind> {
        TargetKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A Backend API call a `clerk_sync` attempt made, for its delivery log (V33).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    pub name: shared::clerk_sync::ClerkCall,
    /// `succeeded`, or the [`Reason`] it failed for (`http_status`, `connection`).
    pub outcome: &'static str,
    pub status: Option<i32>,
    pub ended: std::time::Instant,
}

/// What a handler reports for one attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    Delivered {
        status: Option<i32>,
    },
    /// Try again later (backoff), with what went wrong.
    Retry {
        status: Option<i32>,
        reason: Reason,
    },
    /// Give up now.
    Failed {
        reason: Reason,
    },
    /// The receiver answered `410 Gone`: the endpoint is disabled at once (`gone`).
    Gone {
        status: i32,
    },
    /// The receiver asked to wait (`429` or `503` with `Retry-After`): the next attempt
    /// is no sooner than `secs` from now, within the schedule's bound ([`throttled_delay`]).
    RetryAfter {
        status: i32,
        secs: f64,
    },
    /// Not attempted: another delivery of the same subject (a grant's, for `clerk_sync`)
    /// is running. Due again after [`DEFER_SECS`]; no attempt is counted or logged.
    Deferred,
}

/// How soon a deferred delivery is due again.
pub const DEFER_SECS: f64 = 0.5;

/// Why an attempt did not deliver (the stored `outcome` of the attempt).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    HttpStatus,
    Timeout,
    Connection,
    RefusedTarget,
    HandlerError,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::HttpStatus => "http_status",
            Reason::Timeout => "timeout",
            Reason::Connection => "connection",
            Reason::RefusedTarget => "refused_target",
            Reason::HandlerError => "handler_error",
        }
    }
}

/// The wait before the next attempt after `attempts` failed ones, scaled, with `jitter`
/// in [0, 1) spreading it ±20 %; `None` when no attempt is left.
pub fn retry_delay(attempts: i32, scale: f64, jitter: f64) -> Option<f64> {
    if attempts >= MAX_ATTEMPTS {
        return None;
    }
    let base = SCHEDULE_SECS.get(usize::try_from(attempts - 1).ok()?)?;
    Some(base * scale * (0.8 + 0.4 * jitter))
}

/// The wait after `attempts` failed ones when the receiver asked for `asked` seconds: the
/// schedule's own wait or the asked one, whichever is longer, but never longer than the
/// schedule's longest step (scaled), so a receiver cannot park a delivery for days; `None`
/// when no attempt is left.
pub fn throttled_delay(attempts: i32, scale: f64, jitter: f64, asked: f64) -> Option<f64> {
    let bound = SCHEDULE_SECS.iter().copied().fold(0.0, f64::max) * scale;
    retry_delay(attempts, scale, jitter).map(|scheduled| scheduled.max(asked.clamp(0.0, bound.max(scheduled))))
}

/// A `Retry-After` value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) as seconds
/// from `now`; `None` when it is neither.
pub fn parse_retry_after(value: &str, now: chrono::DateTime<chrono::Utc>) -> Option<f64> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u32>() {
        return Some(f64::from(secs));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    Some(((at.timestamp_millis() - now.timestamp_millis()) as f64 / 1000.0).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_receivers_wait_is_kept_within_the_schedules_bound() {
        assert_eq!(throttled_delay(1, 1.0, 0.5, 120.0), Some(120.0), "longer than the 5 s step");
        assert_eq!(throttled_delay(2, 1.0, 0.5, 120.0), Some(300.0), "shorter than the 5 min step");
        assert_eq!(throttled_delay(1, 1.0, 0.5, 1e9), Some(36000.0), "bounded by the longest step");
        assert_eq!(throttled_delay(1, 0.001, 0.5, 2.0), Some(2.0), "the scaled schedule's bound is 36 s");
        assert_eq!(throttled_delay(8, 1.0, 0.5, 2.0), None);
    }

    #[test]
    fn retry_after_is_seconds_or_an_http_date() {
        let now = chrono::DateTime::parse_from_rfc3339("2015-10-21T07:27:00Z").unwrap().to_utc();
        assert_eq!(parse_retry_after("120", now), Some(120.0));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now), Some(60.0));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:26:00 GMT", now), Some(0.0));
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-5", now), None);
    }

    #[test]
    fn the_schedule_backs_off_then_gives_up() {
        assert_eq!(retry_delay(1, 1.0, 0.5), Some(5.0));
        assert_eq!(retry_delay(2, 1.0, 0.5), Some(300.0));
        assert_eq!(retry_delay(7, 1.0, 0.5), Some(36000.0));
        assert_eq!(retry_delay(8, 1.0, 0.5), None);
        let low = retry_delay(3, 1.0, 0.0).unwrap();
        let high = retry_delay(3, 1.0, 0.999).unwrap();
        assert!(low >= 1440.0 && high < 2160.0 && low < high);
    }
}
