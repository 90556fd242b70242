//! Verifiable lottery draws (issue 16). Policy: opening freezes the program's waiting
//! entries that match the draw's filter (source, flag; `crate::draw` says what they
//! mean) as tickets and commits to a server-random seed (its SHA-256) and to the filter
//! and sorted tickets (the tickets hash); one open draw per program. Running it — a separate,
//! later owner action — reveals the seed and selects, in that one transaction, the first
//! `winners` tickets of the seed's order whose entries are still waiting, with reason
//! `lottery`, provided the seats allow them all: seats in use (active grants and
//! unexpired issued invitations) plus entries already selected plus the winners may not
//! pass the seat cap. A draw runs once. The record recomputes offline (`crate::draw`).

use super::limits;
use super::owner::{self, Owned, Scope};
use super::use_case_error;
use crate::db::audit::{self, Detail, EventType};
use crate::db::draws::{self, DrawRow, TicketRow};
use crate::db::{entries, invitations};
use crate::domain::{EntryMove, EntryState};
use crate::draw;
use deadpool_postgres::Pool;
use ring::rand::{SecureRandom, SystemRandom};
use shared::trust::DrawFilter;
use std::collections::HashSet;
use uuid::Uuid;

use_case_error! {
    pub enum DrawError with transitions {
        #[error("a draw is open already")]
        AlreadyOpen,
        #[error("the draw has run already")]
        AlreadyRun,
        #[error("no waiting entries match the filter")]
        NoCandidates,
        #[error("not enough free seats for the winners")]
        SeatsInsufficient,
    }
}

/// The reason code the winners are selected with.
pub const LOTTERY: &str = "lottery";

/// A draw with its tickets (sorted by ticket).
pub type DrawView = (DrawRow, Vec<TicketRow>);

/// Opens a draw of `winners` over the program's waiting entries that match `filter`.
pub async fn open(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    winners: i32,
    filter: DrawFilter,
) -> Result<DrawView, DrawError> {
    let mut seed = [0u8; 32];
    SystemRandom::new()
        .fill(&mut seed)
        .map_err(|_| DrawError::Db(crate::db::DbError::Other("no randomness".into())))?;
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        if draws::has_open(o.tx, o.program.id).await? {
            return Err(DrawError::AlreadyOpen);
        }
        let candidates = draws::waiting_entries(o.tx, o.program.id, &filter).await?;
        if candidates.is_empty() {
            return Err(DrawError::NoCandidates);
        }
        let mut tickets: Vec<(draw::Hash, Uuid)> =
            candidates.iter().map(|e| (draw::ticket(o.program.id, *e), *e)).collect();
        tickets.sort();
        let sorted: Vec<draw::Hash> = tickets.iter().map(|(t, _)| *t).collect();
        let row = DrawRow {
            id: Uuid::new_v4(),
            program_id: o.program.id,
            winners,
            candidates: i32::try_from(candidates.len()).unwrap_or(i32::MAX),
            seed: seed.to_vec(),
            seed_commitment: draw::commitment(&seed).to_vec(),
            tickets_hash: draw::tickets_hash(Some(&filter), &sorted).to_vec(),
            opened_at: o.now,
            run_at: None,
            format: draws::FORMAT,
            filter: filter.clone(),
        };
        let entry_ids: Vec<Uuid> = tickets.iter().map(|(_, e)| *e).collect();
        let ticket_bytes: Vec<Vec<u8>> = sorted.iter().map(|t| t.to_vec()).collect();
        draws::insert(o.tx, &row, &entry_ids, &ticket_bytes).await.map_err(|e| match e {
            e if e.is_unique(draws::ONE_OPEN) => DrawError::AlreadyOpen,
            e => e.into(),
        })?;
        let details = [
            ("drawId", Detail::Id(row.id)),
            ("winners", Detail::Number(i64::from(winners))),
            ("candidates", Detail::Number(i64::from(row.candidates))),
        ];
        audit::record(o.tx, o.program.id, None, o.actor(), EventType::DrawOpened, o.now, &details).await?;
        let tickets = draws::tickets(o.tx, row.id).await?;
        Ok((row, tickets))
    })
    .await
}

/// Runs an open draw: reveals the seed and selects the winners (see the module doc).
pub async fn run(pool: &Pool, user_id: &str, program_id: Uuid, draw_id: Uuid) -> Result<DrawView, DrawError> {
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let row = draws::lock(o.tx, o.program.id, draw_id).await?.ok_or(DrawError::NotFound)?;
        if row.run_at.is_some() {
            return Err(DrawError::AlreadyRun);
        }
        let tickets = draws::tickets(o.tx, row.id).await?;
        let mut ids: Vec<Uuid> = tickets.iter().map(|t| t.entry_id).collect();
        ids.sort();
        let locked = entries::lock_many(o.tx, o.program.id, &ids).await?.ok_or(DrawError::NotFound)?;
        let waiting: HashSet<Uuid> = locked.iter().filter(|e| e.state == EntryState::Waiting).map(|e| e.id).collect();
        let Selection { drawn, skipped } = select(&row.seed, &tickets, &waiting, row.winners);
        check_seats(o, drawn.len()).await?;
        select_winners(o, &drawn, row.id).await?;
        draws::finish(o.tx, row.id, &skipped, &drawn, o.now).await?;
        let details = [("drawId", Detail::Id(row.id)), ("drawn", Detail::Number(drawn.len() as i64))];
        audit::record(o.tx, o.program.id, None, o.actor(), EventType::DrawRun, o.now, &details).await?;
        let row = DrawRow { run_at: Some(o.now), ..row };
        Ok((row, draws::tickets(o.tx, draw_id).await?))
    })
    .await
}

/// What running a draw decides: the winners' entries, in draw order, and the entries
/// whose tickets no longer count (no longer waiting).
#[derive(Debug, PartialEq, Eq)]
struct Selection {
    drawn: Vec<Uuid>,
    skipped: Vec<Uuid>,
}

/// The draw's selection over the tickets frozen at opening (`crate::draw` says what the
/// order is, and recomputes it offline): the first `winners` tickets of the seed's order
/// whose entries are still `waiting`; every other entry's ticket is skipped.
fn select(seed: &[u8], tickets: &[TicketRow], waiting: &HashSet<Uuid>, winners: i32) -> Selection {
    let hash = |t: &TicketRow| -> draw::Hash { t.ticket.as_slice().try_into().expect("draw_tickets_ticket_len") };
    let all: Vec<draw::Hash> = tickets.iter().map(hash).collect();
    let (counted, skipped): (Vec<&TicketRow>, Vec<&TicketRow>) =
        tickets.iter().partition(|t| waiting.contains(&t.entry_id));
    let ineligible: HashSet<draw::Hash> = skipped.iter().map(|t| hash(t)).collect();
    let n = usize::try_from(winners).unwrap_or(0);
    let by_ticket = |h: &draw::Hash| counted.iter().find(|t| t.ticket.as_slice() == h).map(|t| t.entry_id);
    Selection {
        drawn: draw::winners(seed, &all, &ineligible, n).iter().filter_map(by_ticket).collect(),
        skipped: skipped.iter().map(|t| t.entry_id).collect(),
    }
}

/// Seats in use, entries already selected and the winners together within the cap.
async fn check_seats(o: &Owned<'_, '_>, winners: usize) -> Result<(), DrawError> {
    let in_use = invitations::seats_in_use(o.tx, o.program.id, o.now).await?;
    let selected = draws::selected_count(o.tx, o.program.id).await?;
    if !limits::seats_free(in_use + selected, winners as i64, o.program.seat_cap) {
        return Err(DrawError::SeatsInsufficient);
    }
    Ok(())
}

/// waiting → selected for the winners, one `selected` event each with reason `lottery`.
async fn select_winners(o: &Owned<'_, '_>, drawn: &[Uuid], draw_id: Uuid) -> Result<(), DrawError> {
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

/// One draw with its tickets.
pub async fn get(pool: &Pool, user_id: &str, program_id: Uuid, draw_id: Uuid) -> Result<DrawView, DrawError> {
    owner::read(pool, user_id, Scope::Program(program_id), async |o| {
        let row = draws::get(o.tx, o.program.id, draw_id).await?.ok_or(DrawError::NotFound)?;
        let tickets = draws::tickets(o.tx, row.id).await?;
        Ok((row, tickets))
    })
    .await
}

/// The program's draws, newest first.
pub async fn list(pool: &Pool, user_id: &str, program_id: Uuid) -> Result<Vec<DrawRow>, DrawError> {
    owner::read(pool, user_id, Scope::Program(program_id), async |o| Ok(draws::list(o.tx, o.program.id).await?)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tickets(program: Uuid, entries: &[Uuid]) -> Vec<TicketRow> {
        let mut rows: Vec<TicketRow> = entries
            .iter()
            .map(|e| TicketRow {
                entry_id: *e,
                ticket: draw::ticket(program, *e).to_vec(),
                eligible: None,
                drawn_rank: None,
            })
            .collect();
        rows.sort_by(|a, b| a.ticket.cmp(&b.ticket));
        rows
    }

    #[test]
    fn the_selection_takes_the_first_waiting_tickets_in_the_seeds_order() {
        let program = Uuid::from_u128(42);
        let entries: Vec<Uuid> = (1..=8).map(Uuid::from_u128).collect();
        let rows = tickets(program, &entries);
        let seed = [7u8; 32];
        let hashes: Vec<draw::Hash> = rows.iter().map(|t| t.ticket.as_slice().try_into().unwrap()).collect();
        let in_order: Vec<Uuid> = draw::order(&seed, &hashes)
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
