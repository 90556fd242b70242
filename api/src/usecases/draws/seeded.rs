//! Running a draw of formats 1 and 2, opened before V110 with a server seed: it reveals
//! the seed and selects the first `winners` tickets of the seed's order whose entries are
//! still waiting, exactly as it was committed to when it was opened.

use super::run::{check_seats, select_winners};
use super::{record, DrawError};
use crate::db::audit::{self, Detail, EventType};
use crate::db::{draws, entries};
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
        let hash = |t: &[u8]| -> draw::Hash { t.try_into().expect("draw_tickets_ticket_len") };
        let by_ticket = |t: &draw::Hash| tickets.iter().find(|r| r.ticket.as_slice() == t).map(|r| r.entry_id);
        let all: Vec<draw::Hash> = tickets.iter().map(|t| hash(&t.ticket)).collect();
        let ineligible: HashSet<draw::Hash> =
            tickets.iter().filter(|t| !waiting.contains(&t.entry_id)).map(|t| hash(&t.ticket)).collect();
        let n = usize::try_from(row.winners).unwrap_or(0);
        let drawn: Vec<Uuid> = seeded::winners(&seed, &all, &ineligible, n).iter().filter_map(by_ticket).collect();
        check_seats(o, drawn.len()).await?;
        select_winners(o, &drawn, row.id).await?;
        let skipped: Vec<Uuid> =
            tickets.iter().filter(|t| !waiting.contains(&t.entry_id)).map(|t| t.entry_id).collect();
        draws::finish_seeded(o.tx, row.id, &skipped, &drawn, o.now).await?;
        let details = [("drawId", Detail::Id(row.id)), ("drawn", Detail::Number(drawn.len() as i64))];
        audit::record(o.tx, o.program.id, None, o.actor(), EventType::DrawRun, o.now, &details).await?;
        Ok(())
    })
    .await
}
