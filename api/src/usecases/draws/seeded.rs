//! Running a draw of formats 1 and 2, opened before V110 with a server seed: it reveals
//! the seed and selects the first `winners` tickets of the seed's order whose entries are
//! still waiting, exactly as it was committed to when it was opened.

use super::run::{check_seats, select_winners};
use super::{record, DrawError};
use crate::db::audit::{self, Detail, EventType};
use crate::db::draws::{self, TicketRow};
use crate::db::entries;
use crate::domain::EntryState;
use crate::draw::{self, seeded};
use crate::usecases::owner::{self, Scope};
use deadpool_postgres::Pool;
use std::collections::HashSet;
use uuid::Uuid;

pub(super) async fn run(pool: &Pool, user_id: &str, program_id: Uuid, draw_id: Uuid) -> Result<(), DrawError> {
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let row = draws::lock(o.tx, o.program.id, draw_id).await?.ok_or(DrawError::NotFound)?;
        record::must_be_pending(&row)?;
        let seed = row.seeded.as_ref().ok_or(DrawError::NotFound)?.seed.clone();
        let tickets = draws::tickets(o.tx, row.id).await?;
        let mut ids: Vec<Uuid> = tickets.iter().map(|t| t.entry_id).collect();
        ids.sort();
        let locked = entries::lock_many(o.tx, o.program.id, &ids).await?.ok_or(DrawError::NotFound)?;
        let waiting: HashSet<Uuid> = locked.iter().filter(|e| e.state == EntryState::Waiting).map(|e| e.id).collect();
        let Selection { drawn, skipped } = select(&seed, &tickets, &waiting, row.winners);
        check_seats(o, drawn.len()).await?;
        select_winners(o, &drawn, row.id).await?;
        draws::finish_seeded(o.tx, row.id, &skipped, &drawn, o.now).await?;
        let details = [("drawId", Detail::Id(row.id)), ("drawn", Detail::Number(drawn.len() as i64))];
        audit::record(o.tx, o.program.id, None, o.actor(), EventType::DrawRun, o.now, &details).await?;
        Ok(())
    })
    .await
}

/// What running a seeded draw decides: the winners' entries, in draw order, and the
/// entries whose tickets no longer count (no longer waiting).
#[derive(Debug, PartialEq, Eq)]
struct Selection {
    drawn: Vec<Uuid>,
    skipped: Vec<Uuid>,
}

/// The draw's selection over the tickets frozen at opening (`crate::draw::seeded` says
/// what the order is, and recomputes it offline): the first `winners` tickets of the
/// seed's order whose entries are still `waiting`; every other entry's ticket is skipped.
fn select(seed: &[u8], tickets: &[TicketRow], waiting: &HashSet<Uuid>, winners: i32) -> Selection {
    let hash = |t: &TicketRow| -> draw::Hash { t.ticket.as_slice().try_into().expect("draw_tickets_ticket_len") };
    let all: Vec<draw::Hash> = tickets.iter().map(hash).collect();
    let (counted, skipped): (Vec<&TicketRow>, Vec<&TicketRow>) =
        tickets.iter().partition(|t| waiting.contains(&t.entry_id));
    let ineligible: HashSet<draw::Hash> = skipped.iter().map(|t| hash(t)).collect();
    let n = usize::try_from(winners).unwrap_or(0);
    let by_ticket = |h: &draw::Hash| counted.iter().find(|t| t.ticket.as_slice() == h).map(|t| t.entry_id);
    Selection {
        drawn: seeded::winners(seed, &all, &ineligible, n).iter().filter_map(by_ticket).collect(),
        skipped: skipped.iter().map(|t| t.entry_id).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tickets(program: Uuid, entries: &[Uuid]) -> Vec<TicketRow> {
        let mut rows = crate::usecases::draws::test_tickets(program, entries, &[]);
        for row in &mut rows {
            // A seeded draw (formats 1 and 2) decided eligibility when it ran.
            (row.eligible, row.excluded_by) = (None, None);
        }
        rows
    }

    #[test]
    fn the_selection_takes_the_first_waiting_tickets_in_the_seeds_order() {
        let program = Uuid::from_u128(42);
        let entries: Vec<Uuid> = (1..=8).map(Uuid::from_u128).collect();
        let rows = tickets(program, &entries);
        let seed = [7u8; 32];
        let hashes: Vec<draw::Hash> = rows.iter().map(|t| t.ticket.as_slice().try_into().unwrap()).collect();
        let in_order: Vec<Uuid> = seeded::order(&seed, &hashes)
            .iter()
            .map(|h| rows.iter().find(|t| t.ticket.as_slice() == h).unwrap().entry_id)
            .collect();

        let everyone: HashSet<Uuid> = entries.iter().copied().collect();
        let all_waiting = select(&seed, &rows, &everyone, 3);
        assert_eq!(all_waiting, Selection { drawn: in_order[..3].to_vec(), skipped: vec![] });

        // The first in order has been selected by hand since opening: its ticket is
        // skipped and the winners move up one place.
        let gone = in_order[0];
        let waiting: HashSet<Uuid> = entries.iter().copied().filter(|e| *e != gone).collect();
        let selection = select(&seed, &rows, &waiting, 3);
        assert_eq!(selection, Selection { drawn: in_order[1..4].to_vec(), skipped: vec![gone] });
    }

    #[test]
    fn the_selection_never_draws_more_than_are_waiting() {
        let program = Uuid::from_u128(42);
        let entries: Vec<Uuid> = (1..=3).map(Uuid::from_u128).collect();
        let rows = tickets(program, &entries);
        let waiting: HashSet<Uuid> = [entries[1]].into_iter().collect();
        let selection = select(&[1u8; 32], &rows, &waiting, 10);
        assert_eq!(selection.drawn, vec![entries[1]]);
        let mut skipped = selection.skipped;
        skipped.sort();
        assert_eq!(skipped, vec![entries[0], entries[2]]);
        assert!(select(&[1u8; 32], &rows, &waiting, 0).drawn.is_empty());
    }
}
