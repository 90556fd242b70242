//! Draws of formats 1 and 2 (issue 16, opened before migration V110): a server seed,
//! committed at the opening and revealed by the run. New draws are format 3
//! ([`super::beacon`]); these records stay verifiable exactly as they were downloaded, and
//! a draw of these formats still open at the upgrade runs as before. A ticket is
//! SHA-256(program id ‖ entry id); the commitment is SHA-256(seed) and the tickets hash; the draw order
//! is ascending HMAC-SHA256(key = seed, message = ticket), and the winners are the first
//! `winners` tickets of that order that were still eligible (waiting) when the draw ran.
//!
//! **The filter.** A draw is over the program's waiting entries, optionally narrowed by
//! a [`DrawFilter`]: `source` (the entry's `?ref=`, the queue's grammar) and/or `flag`.
//! Decision: `flag` is either one of the queue's [`shared::edge::EntryFlag`]s ("carries
//! it") or `unflagged` ("carries none"), because the draw owners ask for is the one that
//! leaves suspected fakes out; both parts given means both must hold. The filter is
//! applied once, at opening, when the tickets are frozen; running only skips entries no
//! longer waiting (flags are set at admission and do not change).
//!
//! **Record formats.** `vestibule-draw/2` (draws opened between migrations V53 and V110) names
//! its filter, and its tickets hash is SHA-256(filter line ‖ sorted tickets), the filter
//! line being the UTF-8 text `vestibule-draw/2\nsource=<source>\nflag=<flag>\n` with an
//! empty value for an absent part (a source is never empty, so this is unambiguous). The
//! published commitment therefore fixes the population as well as the tickets: a record
//! whose filter was altered, or that was stripped of its filter and relabelled format 1,
//! no longer matches its tickets hash. `vestibule-draw/1` (draws opened before V53, all
//! over every waiting entry) has no filter and hashes the sorted tickets alone; such
//! records verify exactly as before.

use super::{parse, sha256, Hash};
use ring::{digest, hmac};
use shared::trust::{DrawFilter, DrawRecord, DRAW_FORMAT, DRAW_FORMAT_V1};
use std::collections::HashSet;

pub fn commitment(seed: &[u8]) -> Hash {
    sha256(&[seed])
}

/// The line a format 2 tickets hash begins with (see the module doc).
pub fn filter_line(filter: &DrawFilter) -> String {
    let source = filter.source.as_ref().map_or("", |s| s.as_str());
    let flag = filter.flag.map_or("", |f| f.as_str());
    format!("{DRAW_FORMAT}\nsource={source}\nflag={flag}\n")
}

/// The tickets hash over the tickets in the order given (callers sort them first):
/// preceded by the filter line for a format 2 draw (`Some` filter), alone for format 1.
pub fn tickets_hash(filter: Option<&DrawFilter>, sorted: &[Hash]) -> Hash {
    let mut ctx = digest::Context::new(&digest::SHA256);
    if let Some(filter) = filter {
        ctx.update(filter_line(filter).as_bytes());
    }
    sorted.iter().for_each(|t| ctx.update(t));
    ctx.finish().as_ref().try_into().expect("SHA-256 is 32 bytes")
}

/// Every ticket in draw order.
pub fn order(seed: &[u8], tickets: &[Hash]) -> Vec<Hash> {
    let key = hmac::Key::new(hmac::HMAC_SHA256, seed);
    let mut keyed: Vec<(Vec<u8>, Hash)> = tickets.iter().map(|t| (hmac::sign(&key, t).as_ref().to_vec(), *t)).collect();
    keyed.sort();
    keyed.into_iter().map(|(_, t)| t).collect()
}

/// The first `n` eligible tickets in draw order.
pub fn winners(seed: &[u8], tickets: &[Hash], ineligible: &HashSet<Hash>, n: usize) -> Vec<Hash> {
    order(seed, tickets).into_iter().filter(|t| !ineligible.contains(t)).take(n).collect()
}

/// Recomputes a draw record; returns what does not hold (empty: it verifies).
pub fn verify(record: &DrawRecord) -> Vec<String> {
    let mut problems = Vec::new();
    match (record.format.as_str(), &record.filter) {
        (DRAW_FORMAT, Some(_)) | (DRAW_FORMAT_V1, None) => {}
        (DRAW_FORMAT, None) => problems.push(format!("a {DRAW_FORMAT} record names its filter; this one has none")),
        (DRAW_FORMAT_V1, Some(_)) => problems.push(format!("a {DRAW_FORMAT_V1} record has no filter; this one has")),
        (other, _) => problems.push(format!("unknown format {other:?}")),
    }
    if !problems.is_empty() {
        return problems;
    }
    let Some(tickets) = record.tickets.iter().map(|t| parse(t)).collect::<Option<Vec<Hash>>>() else {
        problems.push("a ticket is not 32 bytes of hex".into());
        return problems;
    };
    if !tickets.windows(2).all(|w| w[0] < w[1]) {
        problems.push("the tickets are not sorted and distinct".into());
    }
    if parse(&record.tickets_hash) != Some(tickets_hash(record.filter.as_ref(), &tickets)) {
        problems.push(match record.filter {
            Some(_) => "the filter and tickets do not hash to the committed tickets hash \
                        (the filter or the ticket list was altered)"
                .into(),
            None => "the tickets do not hash to the committed tickets hash (the ticket list was altered)".into(),
        });
    }
    match (&record.state[..], &record.seed) {
        ("open" | "cancelled", None) => {}
        ("run", Some(seed_hex)) => {
            let Ok(seed) = hex::decode(seed_hex) else {
                problems.push("the seed is not hex".into());
                return problems;
            };
            if parse(&record.seed_commitment) != Some(commitment(&seed)) {
                problems.push("the seed does not hash to the commitment (the seed was altered)".into());
            }
            let ineligible: Option<HashSet<Hash>> = record.ineligible.iter().map(|t| parse(t)).collect();
            let drawn: Option<Vec<Hash>> = record.drawn.iter().map(|t| parse(t)).collect();
            let (Some(ineligible), Some(drawn)) = (ineligible, drawn) else {
                problems.push("an ineligible or drawn ticket is not 32 bytes of hex".into());
                return problems;
            };
            if !ineligible.iter().all(|t| tickets.binary_search(t).is_ok()) {
                problems.push("an ineligible ticket is not among the candidates".into());
            }
            let n = usize::try_from(record.winners).unwrap_or(0);
            if winners(&seed, &tickets, &ineligible, n) != drawn {
                problems.push("the drawn tickets are not the first eligible ones in the seed's order".into());
            }
        }
        (state, _) => problems.push(format!("state {state:?} does not match whether a seed is given")),
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::super::ticket;
    use super::*;
    use shared::trust::FlagFilter;
    use uuid::Uuid;

    /// A run draw over ten tickets, one of them no longer waiting; format 2 when a filter
    /// is given, else format 1.
    fn record(seed: &[u8], n: i32, filter: Option<DrawFilter>) -> DrawRecord {
        let program = Uuid::from_u128(1);
        let mut tickets: Vec<Hash> = (10..20).map(|i| ticket(program, Uuid::from_u128(i))).collect();
        tickets.sort();
        let ineligible: HashSet<Hash> = [tickets[3]].into();
        let drawn = winners(seed, &tickets, &ineligible, n as usize);
        DrawRecord {
            format: if filter.is_some() { DRAW_FORMAT } else { DRAW_FORMAT_V1 }.into(),
            draw_id: Uuid::from_u128(9),
            program_id: program,
            state: "run".into(),
            winners: n,
            seed_commitment: hex::encode(commitment(seed)),
            tickets_hash: hex::encode(tickets_hash(filter.as_ref(), &tickets)),
            filter,
            tickets: tickets.iter().map(hex::encode).collect(),
            opened_at: "2026-12-01T00:00:00.000000Z".into(),
            run_at: Some("2026-12-01T01:00:00.000000Z".into()),
            seed: Some(hex::encode(seed)),
            ineligible: ineligible.iter().map(hex::encode).collect(),
            drawn: drawn.iter().map(hex::encode).collect(),
        }
    }

    fn newsletter_unflagged() -> DrawFilter {
        DrawFilter { source: shared::SourceRef::parse("newsletter"), flag: Some(FlagFilter::Unflagged) }
    }

    #[test]
    fn a_record_verifies_and_any_alteration_is_caught() {
        for filter in [None, Some(DrawFilter::default()), Some(newsletter_unflagged())] {
            let good = record(&[7; 32], 3, filter);
            assert_eq!(verify(&good), Vec::<String>::new());
            assert_eq!(good.drawn.len(), 3);

            let mut seed = good.clone();
            seed.seed = Some(hex::encode([8u8; 32]));
            assert!(verify(&seed).iter().any(|p| p.contains("seed was altered")));

            let mut tickets = good.clone();
            tickets.tickets.remove(0);
            assert!(verify(&tickets).iter().any(|p| p.contains("ticket list was altered")));

            let mut drawn = good.clone();
            drawn.drawn.reverse();
            assert!(verify(&drawn).iter().any(|p| p.contains("drawn tickets")));
        }
    }

    #[test]
    fn the_filter_is_part_of_the_commitment() {
        let good = record(&[7; 32], 3, Some(newsletter_unflagged()));
        let altered = |f: DrawFilter| DrawRecord { filter: Some(f), ..good.clone() };
        for other in [
            DrawFilter::default(),
            DrawFilter { flag: None, ..newsletter_unflagged() },
            DrawFilter { source: shared::SourceRef::parse("newsletter2"), ..newsletter_unflagged() },
            DrawFilter {
                flag: Some(FlagFilter::Has(shared::edge::EntryFlag::DisposableDomain)),
                ..newsletter_unflagged()
            },
        ] {
            assert!(verify(&altered(other)).iter().any(|p| p.contains("the filter or the ticket list was altered")));
        }
        // Stripped of its filter and relabelled as an old record, it no longer matches.
        let downgraded = DrawRecord { format: DRAW_FORMAT_V1.into(), filter: None, ..good.clone() };
        assert!(verify(&downgraded).iter().any(|p| p.contains("ticket list was altered")));
        let unlabelled = DrawRecord { filter: None, ..good.clone() };
        assert!(verify(&unlabelled).iter().any(|p| p.contains("names its filter")));
        let v1 = record(&[7; 32], 3, None);
        assert!(verify(&DrawRecord { filter: Some(DrawFilter::default()), ..v1 })
            .iter()
            .any(|p| p.contains("has no filter")));
    }

    #[test]
    fn a_format_1_record_downloaded_before_filters_still_verifies() {
        // Computed independently (Python's hashlib and hmac) in the format 1 rules.
        let text = include_str!("../../../e2e/tests/fixtures/draw-v1.json");
        let old: DrawRecord = serde_json::from_str(text).expect("a format 1 record parses");
        assert_eq!((old.format.as_str(), old.filter.as_ref()), (DRAW_FORMAT_V1, None));
        assert_eq!(verify(&old), Vec::<String>::new());
        assert!(!serde_json::to_string(&old).unwrap().contains("filter"), "written back unchanged in shape");
    }

    #[test]
    fn the_order_depends_on_the_seed() {
        let a = record(&[1; 32], 9, None);
        let b = record(&[2; 32], 9, None);
        assert_ne!(a.drawn, b.drawn);
    }
}
