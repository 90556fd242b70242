//! Draws on public randomness (issue 29, record format `vestibule-draw/3`): the recipe,
//! and the verifier `vestibule verify-draw` and `vestibule verify` run on a record.
//! `tools/verify_draw.py` reimplements the same recipe; the README states it in words.
//!
//! * **Fixed at the opening** and chained in the `draw_opened` event as `fixed` =
//!   SHA-256 of the UTF-8 text of [`fixed_text`]: one `name=value` line each for the draw,
//!   the program, the winners, the rule (source, flag), the opening and close instants
//!   (as the record writes them), the chain (public key, genesis, period, scheme) and
//!   the round — the first round scheduled after the close (plus the server's margin).
//! * **Fixed at the close** and chained in the `draw_closed` event: the tickets (entrants
//!   waiting at the opening, plus those who signed up before the close, all matching the
//!   rule) and which are excluded. `ticketsHash` = SHA-256 of
//!   `vestibule-draw/3\ndraw=<id>\nsource=<source>\nflag=<flag>\n` followed, for each
//!   ticket in ascending byte order, by its 32 bytes and one byte: 0 eligible, 1 excluded.
//!   An excluded ticket names the chained event between the opening and the close that
//!   moved its entry out of the queue (`declined`, `withdrawn`, or `selected` by hand);
//!   the record carries that stretch of the chain, so the reason is checked link by link.
//! * **Run** on the round's signature, verified against the chain's key; randomness =
//!   SHA-256(signature). The eligible tickets are ranked by ascending
//!   HMAC-SHA256(key = randomness, message = draw id (16 bytes) ‖ ticket (32 bytes)),
//!   ties (never seen) by the ticket; the winners are the first `winners` of that order.
//!   A ranking by a keyed hash is a uniformly random permutation, so no ticket is favoured
//!   (no modulo bias); the draw id in the message keeps two draws on one round apart.

use super::{parse, sha256, ticket, Hash};
use crate::chain::{self, StoredEvent};
use crate::drand::{self, Chain};
use chrono::{DateTime, Utc};
use ring::hmac;
use serde_json::Value;
use shared::draws::{BeaconDrawRecord, ChainedEvent, DrawState, BEACON_DRAW_FORMAT};
use shared::trust::DrawFilter;
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// The events that may exclude a ticket between the opening and the close: each moves an
/// entry out of `waiting` (the only states a waiting entry can reach).
pub const EXCLUDING_EVENTS: [&str; 3] = ["declined", "withdrawn", "selected"];

/// What the opening fixes, as the record writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed {
    pub draw_id: Uuid,
    pub program_id: Uuid,
    pub winners: i32,
    pub filter: DrawFilter,
    pub opened_at: String,
    pub closes_at: String,
    pub public_key: String,
    pub genesis: i64,
    pub period: u32,
    pub scheme: String,
    pub round: u64,
}

impl Fixed {
    pub fn of(r: &BeaconDrawRecord) -> Fixed {
        Fixed {
            draw_id: r.draw_id,
            program_id: r.program_id,
            winners: r.winners,
            filter: r.filter.clone(),
            opened_at: r.opened_at.clone(),
            closes_at: r.closes_at.clone(),
            public_key: r.beacon.public_key.clone(),
            genesis: r.beacon.genesis,
            period: r.beacon.period,
            scheme: r.beacon.scheme.clone(),
            round: r.beacon.round,
        }
    }
}

fn rule(filter: &DrawFilter) -> (&str, &str) {
    (filter.source.as_ref().map_or("", |s| s.as_str()), filter.flag.map_or("", |f| f.as_str()))
}

/// The canonical text of what the opening fixes (see the module doc).
pub fn fixed_text(f: &Fixed) -> String {
    let (source, flag) = rule(&f.filter);
    format!(
        "{BEACON_DRAW_FORMAT}\ndraw={}\nprogram={}\nwinners={}\nsource={source}\nflag={flag}\nopenedAt={}\n\
         closesAt={}\npublicKey={}\ngenesis={}\nperiod={}\nscheme={}\nround={}\n",
        f.draw_id,
        f.program_id,
        f.winners,
        f.opened_at,
        f.closes_at,
        f.public_key,
        f.genesis,
        f.period,
        f.scheme,
        f.round
    )
}

pub fn fixed_hash(f: &Fixed) -> Hash {
    sha256(&[fixed_text(f).as_bytes()])
}

/// The tickets hash over `(ticket, excluded)` pairs in ascending ticket order.
pub fn tickets_hash(draw_id: Uuid, filter: &DrawFilter, sorted: &[(Hash, bool)]) -> Hash {
    let (source, flag) = rule(filter);
    let mut bytes = format!("{BEACON_DRAW_FORMAT}\ndraw={draw_id}\nsource={source}\nflag={flag}\n").into_bytes();
    for (t, excluded) in sorted {
        bytes.extend_from_slice(t);
        bytes.push(u8::from(*excluded));
    }
    sha256(&[&bytes])
}

/// Every given ticket in draw order.
pub fn order(randomness: &[u8; 32], draw_id: Uuid, tickets: &[Hash]) -> Vec<Hash> {
    let key = hmac::Key::new(hmac::HMAC_SHA256, randomness);
    let mut ranked: Vec<(hmac::Tag, Hash)> = tickets
        .iter()
        .map(|t| {
            let mut ctx = hmac::Context::with_key(&key);
            ctx.update(draw_id.as_bytes());
            ctx.update(t);
            (ctx.sign(), *t)
        })
        .collect();
    ranked.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()).then(a.1.cmp(&b.1)));
    ranked.into_iter().map(|(_, t)| t).collect()
}

/// The first `n` of the eligible tickets in draw order.
pub fn winners(randomness: &[u8; 32], draw_id: Uuid, eligible: &[Hash], n: usize) -> Vec<Hash> {
    order(randomness, draw_id, eligible).into_iter().take(n).collect()
}

/// An event as the record carries it.
pub fn chained(e: &StoredEvent) -> ChainedEvent {
    ChainedEvent {
        id: e.id,
        chain_seq: e.chain_seq,
        prev_id: e.prev_id,
        entry_id: e.entry_id,
        actor_kind: e.actor_kind.clone(),
        actor_staff_id: e.actor_staff_id,
        event_type: e.event_type.clone(),
        at: crate::time::rfc3339(e.event_at),
        details: e.details.clone(),
        prev_hash: hex::encode(&e.prev_hash),
        hash: hex::encode(&e.hash),
    }
}

fn stored(e: &ChainedEvent, program_id: Uuid) -> Option<StoredEvent> {
    Some(StoredEvent {
        id: e.id,
        program_id: Some(program_id),
        chain_seq: e.chain_seq,
        prev_id: e.prev_id,
        entry_id: e.entry_id,
        actor_kind: e.actor_kind.clone(),
        actor_staff_id: e.actor_staff_id,
        event_type: e.event_type.clone(),
        event_at: time(&e.at)?,
        details: e.details.clone(),
        prev_hash: hex::decode(&e.prev_hash).ok()?,
        hash: hex::decode(&e.hash).ok()?,
    })
}

fn time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text).ok().map(|t| t.with_timezone(&Utc))
}

/// An event's detail, as text (ids and hashes are strings, counts numbers).
fn detail(e: &ChainedEvent, name: &str) -> Option<String> {
    let details: Value = serde_json::from_str(&e.details).ok()?;
    match details.get(name)? {
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Recomputes a format 3 record; returns what does not hold (empty: it verifies).
pub fn verify(r: &BeaconDrawRecord) -> Vec<String> {
    let mut problems = Vec::new();
    if r.format != BEACON_DRAW_FORMAT {
        return vec![format!("unknown format {:?}", r.format)];
    }
    if let Some(p) = state_problem(r) {
        return vec![p];
    }
    let Ok(chain) = hex::decode(&r.beacon.public_key)
        .map_err(|_| ())
        .and_then(|k| Chain::new(k, r.beacon.genesis, r.beacon.period, &r.beacon.scheme).map_err(|_| ()))
    else {
        return vec!["the beacon's chain is not a valid drand chain (public key, scheme or schedule)".into()];
    };
    problems.extend(schedule_problems(r, &chain));
    let events = match check_events(r) {
        Ok(events) => events,
        Err(p) => {
            problems.push(p);
            return problems;
        }
    };
    let Some(tickets) = r.tickets.iter().map(|t| parse(t)).collect::<Option<Vec<Hash>>>() else {
        problems.push("a ticket is not 32 bytes of hex".into());
        return problems;
    };
    if !tickets.windows(2).all(|w| w[0] < w[1]) {
        problems.push("the tickets are not sorted and distinct".into());
    }
    let excluded = check_exclusions(r, &events, &tickets, &mut problems);
    if let Some(hash) = &r.tickets_hash {
        let marked: Vec<(Hash, bool)> = tickets.iter().map(|t| (*t, excluded.contains(t))).collect();
        if parse(hash) != Some(tickets_hash(r.draw_id, &r.filter, &marked)) {
            problems.push(
                "the rule, tickets and exclusions do not hash to the tickets hash (the ticket list was altered)".into(),
            );
        }
    }
    if r.state == DrawState::Run {
        let eligible: Vec<Hash> = tickets.iter().filter(|t| !excluded.contains(*t)).copied().collect();
        problems.extend(run_problems(r, &chain, &eligible));
    }
    problems
}

/// Fields present exactly when the state says so: a record whose state was set back to
/// `open` or `closed` while it carries a run, or a cancellation, does not pass.
fn state_problem(r: &BeaconDrawRecord) -> Option<String> {
    let closed = r.closed_at.is_some() && r.tickets_hash.is_some();
    let not_closed = r.closed_at.is_none() && r.tickets_hash.is_none() && r.tickets.is_empty() && r.excluded.is_empty();
    let ran = r.run_at.is_some() && r.beacon.signature.is_some() && r.beacon.randomness.is_some();
    let not_run = r.run_at.is_none()
        && r.beacon.signature.is_none()
        && r.beacon.randomness.is_none()
        && r.drawn.is_empty()
        && r.not_selected.is_empty();
    let cancelled = r.cancelled_at.is_some() && r.cancel_reason.is_some();
    let not_cancelled = r.cancelled_at.is_none() && r.cancel_reason.is_none();
    let consistent = match r.state {
        DrawState::Open => not_closed && not_run && not_cancelled,
        DrawState::Closed => closed && not_run && not_cancelled,
        DrawState::Run => closed && ran && not_cancelled,
        DrawState::Cancelled => (closed || not_closed) && not_run && cancelled,
    };
    (!consistent).then(|| {
        format!(
            "the record's state `{}` does not match its close, run and cancellation fields (a draw only moves \
             open → closed → run, or to cancelled; it is never re-opened)",
            r.state
        )
    })
}

fn schedule_problems(r: &BeaconDrawRecord, chain: &Chain) -> Vec<String> {
    let mut problems = Vec::new();
    let round_at = chain.round_time(r.beacon.round);
    if time(&r.beacon.round_at) != Some(round_at) {
        problems.push(format!("round {} is not scheduled at {} on this chain", r.beacon.round, r.beacon.round_at));
    }
    let (Some(opened), Some(closes)) = (time(&r.opened_at), time(&r.closes_at)) else {
        return vec!["the opening or close instant is not an RFC 3339 time".into()];
    };
    if closes < opened || round_at <= closes {
        problems.push("the beacon round is not scheduled after the close".into());
    }
    if let Some(closed) = r.closed_at.as_deref().map(time) {
        if closed.is_none_or(|c| c < closes || c >= round_at) {
            problems.push("the tickets were not frozen between the close and the round's time".into());
        }
    }
    if let Some(run) = r.run_at.as_deref().map(time) {
        if run.is_none_or(|t| t < round_at) {
            problems.push("the draw ran before its round was due".into());
        }
    }
    problems
}

/// The chained events from the opening to the close: intact, linked, and saying what the
/// record says. Answers them by id.
fn check_events(r: &BeaconDrawRecord) -> Result<HashMap<i64, (usize, &ChainedEvent)>, String> {
    let first = r.events.first().ok_or("the record has no chained opening event")?;
    let mut previous: Option<&ChainedEvent> = None;
    for e in &r.events {
        let s = stored(e, r.program_id).ok_or_else(|| format!("event {} is malformed", e.id))?;
        if chain::link(&s.prev_hash, &chain::canonical(&s)).as_slice() != s.hash.as_slice() {
            return Err(format!("event {} was edited (its hash does not match its contents)", e.id));
        }
        if let Some(p) = previous {
            if e.prev_id != Some(p.id) || e.prev_hash != p.hash || e.chain_seq != p.chain_seq + 1 {
                return Err(format!("event {} does not follow event {} in the chain", e.id, p.id));
            }
        }
        previous = Some(e);
    }
    let draw = r.draw_id.to_string();
    if first.event_type != "draw_opened" || detail(first, "drawId").as_deref() != Some(draw.as_str()) {
        return Err("the first event is not this draw's opening".into());
    }
    if detail(first, "fixed") != Some(hex::encode(fixed_hash(&Fixed::of(r)))) {
        return Err("a fixed field (winners, rule, times or beacon) differs from the one chained at the opening".into());
    }
    let last = r.events.last().expect("not empty");
    if r.closed_at.is_some() {
        let closes_this = r.events.len() >= 2
            && last.event_type == "draw_closed"
            && detail(last, "drawId").as_deref() == Some(draw.as_str());
        if !closes_this {
            return Err("the last event is not this draw's close".into());
        }
        if detail(last, "ticketsHash") != r.tickets_hash || detail(last, "tickets") != Some(r.tickets.len().to_string())
        {
            return Err("the tickets differ from those chained at the close (the ticket list was altered)".into());
        }
    } else if r.events.len() != 1 {
        return Err("a draw not closed carries only its opening event".into());
    }
    Ok(r.events.iter().enumerate().map(|(i, e)| (e.id, (i, e))).collect())
}

/// Each excluded ticket is a ticket whose entry a chained event strictly between the
/// opening and the close moved out of the queue. Answers the excluded tickets.
fn check_exclusions(
    r: &BeaconDrawRecord,
    events: &HashMap<i64, (usize, &ChainedEvent)>,
    tickets: &[Hash],
    problems: &mut Vec<String>,
) -> HashSet<Hash> {
    let mut excluded = HashSet::new();
    for x in &r.excluded {
        let Some(t) = parse(&x.ticket).filter(|t| tickets.binary_search(t).is_ok()) else {
            problems.push(format!("excluded ticket {} is not among the tickets", x.ticket));
            continue;
        };
        let justified = events.get(&x.event_id).is_some_and(|(i, e)| {
            *i > 0
                && *i + 1 < r.events.len()
                && EXCLUDING_EVENTS.contains(&e.event_type.as_str())
                && e.entry_id.is_some_and(|entry| ticket(r.program_id, entry) == t)
        });
        if !justified {
            problems.push(format!(
                "ticket {} is excluded without a chained reason between the opening and the close",
                x.ticket
            ));
        }
        if !excluded.insert(t) {
            problems.push(format!("ticket {} is excluded twice", x.ticket));
        }
    }
    excluded
}

fn run_problems(r: &BeaconDrawRecord, chain: &Chain, eligible: &[Hash]) -> Vec<String> {
    let signature = r.beacon.signature.as_deref().and_then(|s| hex::decode(s).ok()).unwrap_or_default();
    let Ok(randomness) = chain.verify(r.beacon.round, &signature) else {
        return vec![format!(
            "the beacon signature does not verify for round {} under the chain's public key",
            r.beacon.round
        )];
    };
    let mut problems = Vec::new();
    if r.beacon.randomness.as_deref() != Some(hex::encode(drand::randomness(&signature)).as_str()) {
        problems.push("the randomness is not SHA-256 of the beacon signature".into());
    }
    let n = usize::try_from(r.winners).unwrap_or(0);
    let expected: Vec<String> = winners(&randomness, r.draw_id, eligible, n).iter().map(hex::encode).collect();
    if expected != r.drawn {
        problems.push("the drawn tickets are not the first eligible tickets in the beacon's order".into());
    }
    if !r.not_selected.iter().all(|t| r.drawn.contains(t)) {
        problems.push("a ticket marked not selected was not drawn".into());
    }
    problems
}

#[cfg(test)]
mod tests;
