//! The lottery's arithmetic (issue 16), shared by the server and `vestibule verify-draw`
//! so a record can be recomputed offline. A ticket is SHA-256(program id ‖ entry id)
//! (16 + 16 bytes); the commitment is SHA-256(seed) and SHA-256 of the sorted tickets
//! concatenated; the draw order is ascending HMAC-SHA256(key = seed, message = ticket),
//! and the winners are the first `winners` tickets of that order that were still
//! eligible (waiting) when the draw ran.

use ring::{digest, hmac};
use shared::trust::{DrawRecord, DRAW_FORMAT};
use std::collections::HashSet;
use uuid::Uuid;

pub type Hash = [u8; 32];

fn sha256(parts: &[&[u8]]) -> Hash {
    let mut ctx = digest::Context::new(&digest::SHA256);
    parts.iter().for_each(|p| ctx.update(p));
    ctx.finish().as_ref().try_into().expect("SHA-256 is 32 bytes")
}

pub fn ticket(program_id: Uuid, entry_id: Uuid) -> Hash {
    sha256(&[&program_id.as_bytes()[..], &entry_id.as_bytes()[..]])
}

pub fn commitment(seed: &[u8]) -> Hash {
    sha256(&[seed])
}

/// SHA-256 over the tickets in the order given (callers sort them first).
pub fn tickets_hash(sorted: &[Hash]) -> Hash {
    let mut ctx = digest::Context::new(&digest::SHA256);
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

fn parse(hex_text: &str) -> Option<Hash> {
    hex::decode(hex_text).ok()?.try_into().ok()
}

/// Recomputes a draw record; returns what does not hold (empty: it verifies).
pub fn verify(record: &DrawRecord) -> Vec<String> {
    let mut problems = Vec::new();
    if record.format != DRAW_FORMAT {
        problems.push(format!("unknown format {:?}", record.format));
        return problems;
    }
    let Some(tickets) = record.tickets.iter().map(|t| parse(t)).collect::<Option<Vec<Hash>>>() else {
        problems.push("a ticket is not 32 bytes of hex".into());
        return problems;
    };
    if !tickets.windows(2).all(|w| w[0] < w[1]) {
        problems.push("the tickets are not sorted and distinct".into());
    }
    if parse(&record.tickets_hash) != Some(tickets_hash(&tickets)) {
        problems.push("the tickets do not hash to the committed tickets hash (the ticket list was altered)".into());
    }
    match (&record.state[..], &record.seed) {
        ("open", None) => {}
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
    use super::*;

    fn record(seed: &[u8], n: i32) -> DrawRecord {
        let program = Uuid::from_u128(1);
        let mut tickets: Vec<Hash> = (10..20).map(|i| ticket(program, Uuid::from_u128(i))).collect();
        tickets.sort();
        let ineligible: HashSet<Hash> = [tickets[3]].into();
        let drawn = winners(seed, &tickets, &ineligible, n as usize);
        DrawRecord {
            format: DRAW_FORMAT.into(),
            draw_id: Uuid::from_u128(9),
            program_id: program,
            state: "run".into(),
            winners: n,
            seed_commitment: hex::encode(commitment(seed)),
            tickets_hash: hex::encode(tickets_hash(&tickets)),
            tickets: tickets.iter().map(hex::encode).collect(),
            opened_at: "2026-12-01T00:00:00.000000Z".into(),
            run_at: Some("2026-12-01T01:00:00.000000Z".into()),
            seed: Some(hex::encode(seed)),
            ineligible: ineligible.iter().map(hex::encode).collect(),
            drawn: drawn.iter().map(hex::encode).collect(),
        }
    }

    #[test]
    fn a_record_verifies_and_any_alteration_is_caught() {
        let good = record(&[7; 32], 3);
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

    #[test]
    fn the_order_depends_on_the_seed() {
        let a = record(&[1; 32], 9);
        let b = record(&[2; 32], 9);
        assert_ne!(a.drawn, b.drawn);
    }
}
