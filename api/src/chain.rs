//! The audit chain as Rust computes it, independently of the database (issue 16): the
//! canonical bytes of an event, the link hash, and a walker that checks one chain event
//! by event and names each tampered event by its id. The database computes the same
//! chain when an event is written (`audit_chain_append` in `migrations/V50`); the two
//! definitions must agree byte for byte, which every `vestibule verify` run on real data
//! proves again.
//!
//! Canonical bytes, version 1: `0x01`, id (i64 BE), program (flag byte + 16 bytes),
//! chain_seq (i64 BE), prev_id (i64 BE, 0 for none), entry (flag + 16), actor kind
//! (u32 BE length + UTF-8), acting staff member (flag + 16), event type (length +
//! UTF-8), time (µs since the epoch, i64 BE), details (length + the jsonb's own text).
//! `hash = SHA-256(prev_hash || canonical)`, with 32 zero bytes before the first event.

use chrono::{DateTime, Utc};
use ring::digest;
use std::collections::HashSet;
use std::fmt;
use uuid::Uuid;

/// The `prev_hash` of a chain's first event.
pub const GENESIS: [u8; 32] = [0; 32];

/// One stored event with its chain columns, as read back (details as the jsonb's text).
#[derive(Debug, Clone)]
pub struct StoredEvent {
    pub id: i64,
    pub program_id: Option<Uuid>,
    pub chain_seq: i64,
    pub prev_id: Option<i64>,
    pub entry_id: Option<Uuid>,
    pub actor_kind: String,
    pub actor_staff_id: Option<Uuid>,
    pub event_type: String,
    pub event_at: DateTime<Utc>,
    pub details: String,
    pub prev_hash: Vec<u8>,
    pub hash: Vec<u8>,
}

fn put_uuid(out: &mut Vec<u8>, id: Option<Uuid>) {
    match id {
        None => out.push(0),
        Some(id) => {
            out.push(1);
            out.extend_from_slice(id.as_bytes());
        }
    }
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    let len = u32::try_from(text.len()).expect("event fields are bounded");
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// The event's canonical bytes (version 1, see the module doc).
pub fn canonical(e: &StoredEvent) -> Vec<u8> {
    let mut out = Vec::with_capacity(128 + e.details.len());
    out.push(1);
    out.extend_from_slice(&e.id.to_be_bytes());
    put_uuid(&mut out, e.program_id);
    out.extend_from_slice(&e.chain_seq.to_be_bytes());
    out.extend_from_slice(&e.prev_id.unwrap_or(0).to_be_bytes());
    put_uuid(&mut out, e.entry_id);
    put_text(&mut out, &e.actor_kind);
    put_uuid(&mut out, e.actor_staff_id);
    put_text(&mut out, &e.event_type);
    out.extend_from_slice(&e.event_at.timestamp_micros().to_be_bytes());
    put_text(&mut out, &e.details);
    out
}

/// `SHA-256(prev_hash || canonical)`.
pub fn link(prev_hash: &[u8], canonical: &[u8]) -> [u8; 32] {
    let mut ctx = digest::Context::new(&digest::SHA256);
    ctx.update(prev_hash);
    ctx.update(canonical);
    ctx.finish().as_ref().try_into().expect("SHA-256 is 32 bytes")
}

/// What a walk found wrong with one event, named by ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// The event's stored hash is not the hash of its own columns: it was edited.
    Edited { id: i64 },
    /// The event names a predecessor that is no longer there: that one was deleted.
    Missing { missing: i64, before: i64 },
    /// The event names a predecessor other than the event before it in id order.
    OutOfOrder { id: i64, follows: i64 },
    /// The event's `prev_hash` is not the stored hash of the event before it.
    BrokenLink { id: i64, previous: i64 },
    /// The chain's first event does not start it (it names no predecessor, yet it is
    /// not the first event — or its place in the chain says otherwise).
    BadStart { id: i64 },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Edited { id } => write!(f, "event {id} was edited (its hash does not match its contents)"),
            Finding::Missing { missing, before } => {
                write!(f, "event {missing} is missing (deleted); event {before} names it as its predecessor")
            }
            Finding::OutOfOrder { id, follows } => {
                write!(f, "event {id} is out of order (it follows event {follows} in the chain)")
            }
            Finding::BrokenLink { id, previous } => {
                write!(f, "event {id} does not link to event {previous} before it (re-ordered or replaced)")
            }
            Finding::BadStart { id } => write!(f, "event {id} does not start the chain where it stands"),
        }
    }
}

/// Walks one chain in id order: [`Walker::push`] each event, then [`Walker::finish`].
#[derive(Debug, Default)]
pub struct Walker {
    /// The previous event: (id, stored hash).
    previous: Option<(i64, Vec<u8>)>,
    /// The chain recomputed from the rows alone, from the genesis: its head and length.
    recomputed: Option<[u8; 32]>,
    count: i64,
    ids: HashSet<i64>,
    /// (event id, named predecessor) whose predecessor was not the previous event;
    /// sorted into Missing / OutOfOrder once every id of the chain is known.
    misplaced: Vec<(i64, i64)>,
    findings: Vec<Finding>,
}

impl Walker {
    pub fn new() -> Walker {
        Walker::default()
    }

    /// Checks one event against the one before it; returns the chain recomputed up to
    /// and including it: (events so far, head hash), for comparing with a checkpoint.
    pub fn push(&mut self, e: &StoredEvent) -> (i64, [u8; 32]) {
        let bytes = canonical(e);
        self.ids.insert(e.id);
        let before = self.findings.len() + self.misplaced.len();
        match (&self.previous, e.prev_id) {
            (None, None) if e.chain_seq != 1 || e.prev_hash != GENESIS => {
                self.findings.push(Finding::BadStart { id: e.id })
            }
            (None, None) => {}
            (Some(_), None) => self.findings.push(Finding::BadStart { id: e.id }),
            (None, Some(named)) => self.misplaced.push((e.id, named)),
            (Some((previous, _)), Some(named)) if named != *previous => self.misplaced.push((e.id, named)),
            (Some((previous, previous_hash)), Some(_)) if *previous_hash != e.prev_hash => {
                self.findings.push(Finding::BrokenLink { id: e.id, previous: *previous })
            }
            (Some(_), Some(_)) => {}
        }
        let nothing_else = self.findings.len() + self.misplaced.len() == before;
        if nothing_else && link(&e.prev_hash, &bytes).as_slice() != e.hash.as_slice() {
            self.findings.push(Finding::Edited { id: e.id });
        }
        let head = link(self.recomputed.as_ref().map_or(&GENESIS[..], |h| &h[..]), &bytes);
        self.recomputed = Some(head);
        self.count += 1;
        self.previous = Some((e.id, e.hash.clone()));
        (self.count, head)
    }

    /// Everything found, in the order of the events.
    pub fn finish(mut self) -> Vec<Finding> {
        for (id, named) in std::mem::take(&mut self.misplaced) {
            let finding = if self.ids.contains(&named) {
                Finding::OutOfOrder { id, follows: named }
            } else {
                Finding::Missing { missing: named, before: id }
            };
            self.findings.push(finding);
        }
        self.findings.sort_by_key(|f| match f {
            Finding::Edited { id }
            | Finding::OutOfOrder { id, .. }
            | Finding::BrokenLink { id, .. }
            | Finding::BadStart { id } => *id,
            Finding::Missing { before, .. } => *before,
        });
        self.findings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: i64, seq: i64, prev: Option<(i64, [u8; 32])>) -> StoredEvent {
        let mut e = StoredEvent {
            id,
            program_id: Some(Uuid::from_u128(0xa1)),
            chain_seq: seq,
            prev_id: prev.map(|(id, _)| id),
            entry_id: None,
            actor_kind: "system".into(),
            actor_staff_id: None,
            event_type: "program_changed".into(),
            event_at: DateTime::from_timestamp_micros(1_700_000_000_000_000 + id).unwrap(),
            details: format!("{{\"n\": {id}}}"),
            prev_hash: prev.map_or(GENESIS.to_vec(), |(_, h)| h.to_vec()),
            hash: vec![],
        };
        e.hash = link(&e.prev_hash, &canonical(&e)).to_vec();
        e
    }

    fn chain(n: i64) -> Vec<StoredEvent> {
        let mut out: Vec<StoredEvent> = Vec::new();
        for i in 1..=n {
            let prev = out.last().map(|p| (p.id, p.hash.clone().try_into().unwrap()));
            out.push(event(i * 2, i, prev));
        }
        out
    }

    fn walk(events: &[StoredEvent]) -> Vec<Finding> {
        let mut w = Walker::new();
        events.iter().for_each(|e| {
            w.push(e);
        });
        w.finish()
    }

    #[test]
    fn matches_the_database_definition() {
        // Computed by PostgreSQL with `audit_canonical` of migrations/V50.
        let e = StoredEvent {
            id: 42,
            program_id: Some(Uuid::from_u128(0xa1)),
            chain_seq: 1,
            prev_id: None,
            entry_id: Some(Uuid::from_u128(0xe1)),
            actor_kind: "owner".into(),
            actor_staff_id: None,
            event_type: "selected".into(),
            event_at: "2026-12-01T00:00:00.123456Z".parse().unwrap(),
            details: r#"{"n": 3, "reasonCode": "meets_policy"}"#.into(),
            prev_hash: GENESIS.to_vec(),
            hash: vec![],
        };
        assert_eq!(
            hex::encode(link(&GENESIS, &canonical(&e))),
            "ddd044e2809a0b6d5b1fd5477f4aacd0235f412059ae5d6cb3d537b0b4887841"
        );
    }

    #[test]
    fn an_intact_chain_has_no_findings() {
        assert_eq!(walk(&chain(5)), vec![]);
    }

    #[test]
    fn each_kind_of_tampering_is_named_by_id() {
        let mut edited = chain(5);
        edited[2].details = "{\"n\": 99}".into();
        assert_eq!(walk(&edited), vec![Finding::Edited { id: 6 }]);

        let mut deleted = chain(5);
        deleted.remove(2);
        assert_eq!(walk(&deleted), vec![Finding::Missing { missing: 6, before: 8 }]);

        let mut swapped = chain(5);
        swapped.swap(1, 2);
        let findings = walk(&swapped);
        assert!(findings.iter().any(|f| matches!(f, Finding::OutOfOrder { .. })), "{findings:?}");
    }
}
