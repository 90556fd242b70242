//! A format 3 record built by hand on a published quicknet round (657413), and each
//! alteration the verifier must refuse.

use super::*;
use crate::drand::QUICKNET_PUBLIC_KEY;
use shared::draws::{DrawBeacon, ExcludedTicket};
use shared::trust::FlagFilter;

const ROUND: u64 = 657_413;
const SIGNATURE: &str =
    "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b";

fn at(seconds_before_round: i64) -> String {
    crate::time::rfc3339(Chain::quicknet().round_time(ROUND) - chrono::TimeDelta::seconds(seconds_before_round))
}

struct Segment {
    program: Uuid,
    events: Vec<StoredEvent>,
}

impl Segment {
    fn push(&mut self, entry: Option<Uuid>, kind: &str, details: String) -> i64 {
        let previous = self.events.last();
        let id = previous.map_or(500, |p| p.id + 3);
        let mut e = StoredEvent {
            id,
            program_id: Some(self.program),
            chain_seq: previous.map_or(40, |p| p.chain_seq + 1),
            prev_id: previous.map(|p| p.id),
            entry_id: entry,
            actor_kind: "owner".into(),
            actor_staff_id: Some(Uuid::from_u128(0x5)),
            event_type: kind.into(),
            event_at: time(&at(30)).unwrap(),
            details,
            prev_hash: previous.map_or(vec![9; 32], |p| p.hash.clone()),
            hash: vec![],
        };
        e.hash = chain::link(&e.prev_hash, &chain::canonical(&e)).to_vec();
        self.events.push(e);
        id
    }
}

/// A run draw of 2 winners over six tickets, one excluded by a `declined` event.
fn record() -> BeaconDrawRecord {
    let program = Uuid::from_u128(0xa1);
    let draw_id = Uuid::from_u128(0xd1);
    let entries: Vec<Uuid> = (0x10..0x16).map(Uuid::from_u128).collect();
    let mut r = BeaconDrawRecord {
        format: BEACON_DRAW_FORMAT.into(),
        draw_id,
        program_id: program,
        state: DrawState::Run,
        winners: 2,
        filter: DrawFilter { source: shared::SourceRef::parse("newsletter"), flag: Some(FlagFilter::Unflagged) },
        opened_at: at(60),
        closes_at: at(20),
        closed_at: Some(at(19)),
        run_at: Some(at(-5)),
        cancelled_at: None,
        cancel_reason: None,
        beacon: DrawBeacon {
            public_key: QUICKNET_PUBLIC_KEY.into(),
            genesis: crate::drand::QUICKNET_GENESIS,
            period: 3,
            scheme: "bls-unchained-g1-rfc9380".into(),
            round: ROUND,
            round_at: at(0),
            signature: Some(SIGNATURE.into()),
            randomness: Some(hex::encode(drand::randomness(&hex::decode(SIGNATURE).unwrap()))),
        },
        tickets_hash: None,
        tickets: vec![],
        excluded: vec![],
        drawn: vec![],
        not_selected: vec![],
        events: vec![],
    };
    let mut segment = Segment { program, events: vec![] };
    let fixed = hex::encode(fixed_hash(&Fixed::of(&r)));
    segment.push(None, "draw_opened", format!(r#"{{"drawId": "{draw_id}", "fixed": "{fixed}"}}"#));
    segment.push(Some(entries[5]), "signup", r#"{"noticeVersion": 1}"#.into());
    let declined = segment.push(Some(entries[2]), "declined", r#"{"reasonCode": "not_eligible"}"#.into());
    let mut tickets: Vec<Hash> = entries.iter().map(|e| ticket(program, *e)).collect();
    tickets.sort();
    let out = ticket(program, entries[2]);
    let marked: Vec<(Hash, bool)> = tickets.iter().map(|t| (*t, *t == out)).collect();
    let hash = hex::encode(tickets_hash(draw_id, &r.filter, &marked));
    segment.push(None, "draw_closed", format!(r#"{{"drawId": "{draw_id}", "tickets": 6, "ticketsHash": "{hash}"}}"#));
    let randomness: [u8; 32] = hex::decode(r.beacon.randomness.as_ref().unwrap()).unwrap().try_into().unwrap();
    let eligible: Vec<Hash> = tickets.iter().filter(|t| **t != out).copied().collect();
    r.drawn = winners(&randomness, draw_id, &eligible, 2).iter().map(hex::encode).collect();
    r.tickets = tickets.iter().map(hex::encode).collect();
    r.excluded = vec![ExcludedTicket { ticket: hex::encode(out), event_id: declined }];
    r.tickets_hash = Some(hash);
    r.events = segment.events.iter().map(chained).collect();
    r
}

fn refused(r: &BeaconDrawRecord, mentions: &str) {
    let problems = verify(r);
    assert!(problems.iter().any(|p| p.contains(mentions)), "expected “{mentions}” in {problems:?}");
}

#[test]
fn a_record_on_a_published_round_verifies() {
    let r = record();
    assert_eq!(verify(&r), Vec::<String>::new());
    assert_eq!(r.drawn.len(), 2);
    assert!(!r.drawn.contains(&r.excluded[0].ticket), "an excluded ticket is never drawn");
}

#[test]
fn an_edited_fixed_field_is_refused() {
    for edit in [
        (|r: &mut BeaconDrawRecord| r.winners = 3) as fn(&mut BeaconDrawRecord),
        |r| r.filter.flag = None,
        |r| r.closes_at = at(21),
        |r| r.opened_at = at(61),
        |r| r.draw_id = Uuid::from_u128(0xd2),
    ] {
        let mut r = record();
        edit(&mut r);
        let problems = verify(&r);
        assert!(problems.iter().any(|p| p.contains("fixed field") || p.contains("opening")), "{problems:?}");
    }
    // Another round needs another signature, and its schedule must still follow the close.
    let mut r = record();
    r.beacon.round = ROUND + 1;
    r.beacon.round_at = at(-3);
    refused(&r, "fixed field");
}

#[test]
fn a_wrong_beacon_signature_is_refused() {
    let mut r = record();
    let mut flipped = hex::decode(SIGNATURE).unwrap();
    flipped[20] ^= 1;
    r.beacon.signature = Some(hex::encode(&flipped));
    refused(&r, "beacon signature does not verify");
    // A real signature of another round, with its own randomness: still refused.
    let other = "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92";
    r.beacon.signature = Some(other.into());
    r.beacon.randomness = Some(hex::encode(drand::randomness(&hex::decode(other).unwrap())));
    refused(&r, "beacon signature does not verify");
    let mut r = record();
    r.beacon.randomness = Some(hex::encode([1u8; 32]));
    refused(&r, "randomness is not SHA-256");
}

#[test]
fn a_ticket_excluded_without_a_chained_reason_is_refused() {
    let base = record();
    let signup = base.events[1].id;
    let close = base.events[3].id;
    for event_id in [signup, close, base.events[0].id, 12345] {
        let mut r = base.clone();
        r.excluded[0].event_id = event_id;
        refused(&r, "excluded without a chained reason");
    }
    // Excluding another ticket by the decline of someone else.
    let mut r = base.clone();
    let other = r.tickets.iter().find(|t| **t != r.excluded[0].ticket).unwrap().clone();
    r.excluded[0].ticket = other;
    refused(&r, "excluded without a chained reason");
    // Dropping the event that excluded it breaks the chain.
    let mut r = base.clone();
    r.events.remove(2);
    refused(&r, "does not follow");
    // Editing it to another entry breaks its hash.
    let mut r = base;
    r.events[2].entry_id = Some(Uuid::from_u128(0x99));
    refused(&r, "was edited");
}

#[test]
fn a_re_opened_draw_is_refused() {
    for state in [DrawState::Open, DrawState::Closed] {
        let mut r = record();
        r.state = state;
        refused(&r, "never re-opened");
    }
    let mut r = record();
    r.state = DrawState::Open;
    (r.closed_at, r.tickets_hash, r.run_at, r.beacon.signature, r.beacon.randomness) = (None, None, None, None, None);
    (r.tickets, r.excluded, r.drawn) = (vec![], vec![], vec![]);
    refused(&r, "only its opening event");
}

#[test]
fn altered_tickets_or_winners_are_refused() {
    let mut r = record();
    r.tickets.pop();
    assert!(!verify(&r).is_empty());
    let mut r = record();
    r.drawn.reverse();
    refused(&r, "first eligible tickets");
    let mut r = record();
    r.excluded.clear();
    refused(&r, "ticket list was altered");
}

#[test]
fn a_close_after_the_round_or_a_run_before_it_is_refused() {
    let mut r = record();
    r.closed_at = Some(at(-1));
    refused(&r, "frozen between the close and the round");
    let mut r = record();
    r.run_at = Some(at(1));
    refused(&r, "ran before its round");
}

#[test]
fn the_fixed_text_is_line_by_line() {
    let r = record();
    let text = fixed_text(&Fixed::of(&r));
    assert!(text.starts_with("vestibule-draw/3\ndraw=00000000-0000-0000-0000-0000000000d1\nprogram="), "{text}");
    assert!(text.contains("\nwinners=2\nsource=newsletter\nflag=unflagged\nopenedAt="), "{text}");
    assert!(text.ends_with("\nperiod=3\nscheme=bls-unchained-g1-rfc9380\nround=657413\n"), "{text}");
}

#[test]
fn the_order_is_a_ranking_by_keyed_hash() {
    let tickets: Vec<Hash> = (0u8..50).map(|i| [i; 32]).collect();
    let a = order(&[1; 32], Uuid::from_u128(1), &tickets);
    let b = order(&[2; 32], Uuid::from_u128(1), &tickets);
    let c = order(&[1; 32], Uuid::from_u128(2), &tickets);
    assert_ne!(a, b, "the randomness decides");
    assert_ne!(a, c, "the draw id separates draws on one round");
    let mut sorted = a.clone();
    sorted.sort();
    assert_eq!(sorted, tickets, "a permutation of the tickets");
}
