//! Running a draw on public randomness. The beacon is obtained and verified before any
//! transaction (the relay is a network call; the pairing check is CPU work, done on the
//! blocking pool); the transaction then re-reads the draw under its lock and decides
//! from the frozen tickets and the randomness alone.

use super::{record, seeded, DrawConfig, DrawError, LOTTERY};
use crate::db::audit::{self, Detail, EventType};
use crate::db::draws::{self, DrawRow, TicketRow};
use crate::db::{entries, invitations};
use crate::domain::{EntryMove, EntryState};
use crate::drand;
use crate::draw::{self, beacon};
use crate::usecases::limits;
use crate::usecases::owner::{self, Owned, Scope};
use deadpool_postgres::Pool;
use shared::draws::{AnyDrawRecord, DrawState};
use std::collections::HashSet;
use uuid::Uuid;

/// Where the round's signature comes from.
#[derive(Debug, Clone)]
pub enum Beacon {
    /// Pasted by the owner: (round, signature bytes as given, or `None` when not hex).
    Pasted { round: u64, signature: Option<Vec<u8>> },
    /// Fetched from the configured relay.
    Relay,
}

/// Runs a draw (see the module doc of `usecases::draws`); answers its record.
pub async fn run(
    pool: &Pool,
    config: &DrawConfig,
    user_id: &str,
    program_id: Uuid,
    draw_id: Uuid,
    beacon: Beacon,
) -> Result<AnyDrawRecord, DrawError> {
    let (row, now) = owner::read(pool, user_id, Scope::Program(program_id), async |o| {
        let row = draws::get(o.tx, o.program.id, draw_id).await?.ok_or(DrawError::NotFound)?;
        Ok::<_, DrawError>((row, o.now))
    })
    .await?;
    record::must_be_pending(&row)?;
    let Some(b) = row.beacon.clone() else {
        if matches!(beacon, Beacon::Pasted { .. }) {
            return Err(DrawError::InvalidBeacon);
        }
        seeded::run(pool, user_id, program_id, draw_id).await?;
        return super::get(pool, user_id, program_id, draw_id).await;
    };
    if row.state == DrawState::Open {
        return Err(DrawError::NotClosed);
    }
    if now < b.chain.round_time(b.round) {
        return Err(DrawError::BeaconNotDue);
    }
    let (signature, pasted) = match beacon {
        Beacon::Pasted { round, signature } => {
            (signature.filter(|_| round == b.round).ok_or(DrawError::InvalidBeacon)?, true)
        }
        Beacon::Relay => {
            let relay = config.relay.as_deref().ok_or(DrawError::BeaconUnavailable)?;
            let fetched = drand::fetch(relay, b.round).await.map_err(|e| {
                tracing::warn!(error = %e, round = b.round, "the drand relay gave no beacon");
                DrawError::BeaconUnavailable
            })?;
            (fetched, false)
        }
    };
    let (chain, round, checked) = (b.chain.clone(), b.round, signature.clone());
    let verified = tokio::task::spawn_blocking(move || chain.verify(round, &checked))
        .await
        .map_err(|e| DrawError::Db(crate::db::DbError::Other(format!("verification task: {e}"))))?;
    let randomness = match verified {
        Ok(r) => r,
        Err(_) if pasted => return Err(DrawError::InvalidBeacon),
        Err(e) => {
            tracing::warn!(error = %e, round, "the drand relay answered a signature that does not verify");
            return Err(DrawError::BeaconUnavailable);
        }
    };
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let row = draws::lock(o.tx, o.program.id, draw_id).await?.ok_or(DrawError::NotFound)?;
        record::must_be_pending(&row)?;
        finish(o, &row, &signature, &randomness).await
    })
    .await?;
    super::get(pool, user_id, program_id, draw_id).await
}

/// Draws the winners of a closed draw and selects those still waiting.
async fn finish(o: &Owned<'_, '_>, row: &DrawRow, signature: &[u8], randomness: &[u8; 32]) -> Result<(), DrawError> {
    let tickets = draws::tickets(o.tx, row.id).await?;
    let drawn = drawn(randomness, row.id, &tickets, row.winners);
    let mut sorted = drawn.clone();
    sorted.sort();
    let locked = entries::lock_many(o.tx, o.program.id, &sorted).await?.ok_or(DrawError::NotFound)?;
    let waiting: HashSet<Uuid> = locked.iter().filter(|e| e.state == EntryState::Waiting).map(|e| e.id).collect();
    let Outcome { selected, lapsed } = outcome(&drawn, &waiting);
    check_seats(o, selected.len()).await?;
    select_winners(o, &selected, row.id).await?;
    draws::finish(o.tx, row.id, &drawn, &lapsed, signature, randomness, o.now).await?;
    let round = row.beacon.as_ref().map_or(0, |b| i64::try_from(b.round).unwrap_or(i64::MAX));
    let details = [
        ("drawId", Detail::Id(row.id)),
        ("round", Detail::Number(round)),
        ("drawn", Detail::Number(drawn.len() as i64)),
        ("selected", Detail::Number(selected.len() as i64)),
        ("randomness", Detail::Hash(*randomness)),
    ];
    audit::record(o.tx, o.program.id, None, o.actor(), EventType::DrawRun, o.now, &details).await?;
    Ok(())
}

/// The winners' entries in draw order: the first `winners` of the tickets eligible at the
/// close, in the beacon's order (`crate::draw::beacon`, which recomputes it offline).
fn drawn(randomness: &[u8; 32], draw_id: Uuid, tickets: &[TicketRow], winners: i32) -> Vec<Uuid> {
    let eligible: Vec<draw::Hash> = tickets
        .iter()
        .filter(|t| t.eligible == Some(true))
        .map(|t| t.ticket.as_slice().try_into().expect("draw_tickets_ticket_len"))
        .collect();
    let n = usize::try_from(winners).unwrap_or(0);
    let entry_of = |t: &draw::Hash| tickets.iter().find(|r| r.ticket.as_slice() == t).map(|r| r.entry_id);
    beacon::winners(randomness, draw_id, &eligible, n).iter().filter_map(entry_of).collect()
}

/// Which winners are selected: those still waiting. The others left after the close;
/// their seats are not passed on to the next tickets (that would let whoever runs the
/// draw steer it after seeing the randomness).
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    selected: Vec<Uuid>,
    lapsed: Vec<Uuid>,
}

fn outcome(drawn: &[Uuid], waiting: &HashSet<Uuid>) -> Outcome {
    let (selected, lapsed) = drawn.iter().partition(|e| waiting.contains(e));
    Outcome { selected, lapsed }
}

/// Seats in use, entries already selected and the winners together within the cap.
pub(super) async fn check_seats(o: &Owned<'_, '_>, winners: usize) -> Result<(), DrawError> {
    let in_use = invitations::seats_in_use(o.tx, o.program.id, o.now).await?;
    let selected = draws::selected_count(o.tx, o.program.id).await?;
    if !limits::seats_free(in_use + selected, winners as i64, o.program.seat_cap) {
        return Err(DrawError::SeatsInsufficient);
    }
    Ok(())
}

/// waiting → selected for the winners, one `selected` event each with reason `lottery`.
pub(super) async fn select_winners(o: &Owned<'_, '_>, drawn: &[Uuid], draw_id: Uuid) -> Result<(), DrawError> {
    if drawn.is_empty() {
        return Ok(());
    }
    let step = EntryMove::new(EntryState::Waiting, EntryState::Selected)?;
    if entries::set_states(o.tx, drawn, step, o.now).await? != drawn.len() as u64 {
        return Err(DrawError::InvalidTransition);
    }
    let details = |_: &Uuid| {
        vec![("from", Detail::Code("waiting")), ("reasonCode", Detail::Code(LOTTERY)), ("drawId", Detail::Id(draw_id))]
    };
    let events: Vec<_> = drawn.iter().map(|id| (*id, details(id))).collect();
    audit::record_many(o.tx, o.program.id, &events, o.actor(), EventType::Selected, o.now).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::usecases::draws::test_tickets as tickets;

    #[test]
    fn the_winners_are_the_first_eligible_tickets_in_the_beacons_order() {
        let (program, draw_id, randomness) = (Uuid::from_u128(42), Uuid::from_u128(9), [3u8; 32]);
        let entries: Vec<Uuid> = (1..=8).map(Uuid::from_u128).collect();
        let all = tickets(program, &entries, &[]);
        let in_order = drawn(&randomness, draw_id, &all, 8);
        assert_eq!(drawn(&randomness, draw_id, &all, 3), in_order[..3]);
        // The first in order was excluded at the close: it is never drawn; the rest move up.
        let some_out = tickets(program, &entries, &[in_order[0]]);
        assert_eq!(drawn(&randomness, draw_id, &some_out, 3), in_order[1..4]);
        assert_eq!(drawn(&randomness, draw_id, &some_out, 100).len(), 7, "never more than are eligible");
        assert_ne!(drawn(&[4u8; 32], draw_id, &all, 8), in_order, "the randomness decides");
    }

    #[test]
    fn a_winner_who_left_after_the_close_is_not_replaced() {
        let drawn: Vec<Uuid> = (1..=3).map(Uuid::from_u128).collect();
        let waiting: HashSet<Uuid> = [drawn[0], drawn[2], Uuid::from_u128(4)].into_iter().collect();
        let o = outcome(&drawn, &waiting);
        assert_eq!(o, Outcome { selected: vec![drawn[0], drawn[2]], lapsed: vec![drawn[1]] });
    }
}
