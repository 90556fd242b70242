//! The close of a draw on public randomness: the moment its tickets and exclusions are
//! frozen, chained in the `draw_closed` event. It runs in the opening's transaction when
//! entries close at once, else in the background closer ([`close_due`], polled by a
//! server task) as soon as `closes_at` has passed — as a system writer of the program:
//! workspace `FOR KEY SHARE`, program `FOR UPDATE` (so every writer of the program has
//! committed or waits), the draw, then the clock.

use super::cancel_locked;
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::draws::{self, Closing, DrawRow};
use crate::db::locks::{self, Strength};
use crate::db::DbError;
use crate::draw::{self, beacon};
use chrono::{DateTime, Utc};
use deadpool_postgres::{Pool, Transaction};
use shared::draws::{DrawState, CANCEL_CLOSED_LATE};
use std::collections::HashSet;
use uuid::Uuid;

/// Closes every format 3 draw whose entries are due to close; answers how many it closed
/// (or cancelled as late), and how long until the next one is due.
pub async fn close_due(pool: &Pool) -> Result<(usize, Option<std::time::Duration>), DbError> {
    let mut client = pool.get().await?;
    let due = draws::due_to_close(&client).await?;
    let mut closed = 0;
    for (workspace, program, draw) in due {
        closed += usize::from(close_one(&mut client, workspace, program, draw).await?);
    }
    Ok((closed, draws::next_close_in(&client).await?))
}

/// One draw's close in its own transaction, run again on a deadlock. (Written out rather
/// than through `db::transaction`: the closer task's future must be `Send`, which the
/// closure-taking helper's is not.)
async fn close_one(
    client: &mut deadpool_postgres::Client,
    workspace: Uuid,
    program: Uuid,
    draw: Uuid,
) -> Result<bool, DbError> {
    let mut tries = 0;
    loop {
        let tx = client.transaction().await?;
        let done = match close_if_due(&tx, workspace, program, draw).await {
            Ok(done) => tx.commit().await.map(|()| done).map_err(DbError::from),
            Err(e) => Err(e),
        };
        match done {
            Err(DbError::Retry) if tries < 3 => tries += 1,
            other => return other,
        }
    }
}

async fn close_if_due(tx: &Transaction<'_>, workspace: Uuid, program: Uuid, draw: Uuid) -> Result<bool, DbError> {
    locks::workspace(tx, workspace, Strength::KeyShare).await?;
    if locks::program(tx, workspace, program, Strength::Update).await?.is_none() {
        return Ok(false);
    }
    let Some(row) = draws::lock(tx, program, draw).await? else { return Ok(false) };
    let now = locks::now(tx).await?;
    let due = row.beacon.as_ref().is_some_and(|b| b.closes_at <= now);
    if row.state != DrawState::Open || !due {
        return Ok(false);
    }
    close_locked(tx, &row, now, Actor::System).await?;
    Ok(true)
}

/// Freezes an open format 3 draw at `now`, under the program lock: the tickets of late
/// entrants are added, and each ticket whose entry is no longer waiting is excluded by
/// the first chained event since the opening that moved it (a departure without such an
/// event — which no writer of this server makes — leaves the ticket eligible). When the
/// round is already due, the draw is cancelled as `closed_late` instead.
pub(super) async fn close_locked(
    tx: &Transaction<'_>,
    row: &DrawRow,
    now: DateTime<Utc>,
    actor: Actor,
) -> Result<(), DbError> {
    let b = row.beacon.as_ref().expect("a format 3 draw has its beacon");
    if now >= b.chain.round_time(b.round) {
        return cancel_locked(tx, row, CANCEL_CLOSED_LATE, now, Actor::System).await;
    }
    let opened = draws::event_seq(tx, row.program_id, b.opened_event).await?.expect("draws_opened_event");
    let frozen = draws::tickets(tx, row.id).await?;
    let known: HashSet<Uuid> = frozen.iter().map(|t| t.entry_id).collect();
    let late: Vec<Uuid> = draws::late_entrants(tx, row.program_id, opened, &row.filter)
        .await?
        .into_iter()
        .filter(|e| !known.contains(e))
        .collect();
    let late_tickets: Vec<draw::Hash> = late.iter().map(|e| draw::ticket(row.program_id, *e)).collect();
    let everyone: Vec<Uuid> = known.iter().copied().chain(late.iter().copied()).collect();
    let departures = draws::departures(tx, row.program_id, &everyone, opened, &beacon::EXCLUDING_EVENTS).await?;
    let excluded: Vec<(Uuid, i64)> = departures.iter().filter_map(|(e, ev)| ev.map(|ev| (*e, ev))).collect();
    let out: HashSet<Uuid> = excluded.iter().map(|(e, _)| *e).collect();
    let mut marked: Vec<(draw::Hash, bool)> = frozen
        .iter()
        .map(|t| (t.ticket.as_slice().try_into().expect("draw_tickets_ticket_len"), out.contains(&t.entry_id)))
        .chain(late.iter().zip(&late_tickets).map(|(e, t)| (*t, out.contains(e))))
        .collect();
    marked.sort();
    let tickets_hash = beacon::tickets_hash(row.id, &row.filter, &marked);
    let details = [
        ("drawId", Detail::Id(row.id)),
        ("tickets", Detail::Number(marked.len() as i64)),
        ("excluded", Detail::Number(excluded.len() as i64)),
        ("ticketsHash", Detail::Hash(tickets_hash)),
    ];
    let closed_event = audit::record(tx, row.program_id, None, actor, EventType::DrawClosed, now, &details).await?;
    let closing = Closing {
        late_entries: late,
        late_tickets: late_tickets.iter().map(|t| t.to_vec()).collect(),
        excluded,
        tickets_hash: tickets_hash.to_vec(),
        candidates: i32::try_from(marked.len()).unwrap_or(i32::MAX),
        closed_event,
    };
    draws::close(tx, row.id, row.program_id, &closing, now).await
}
