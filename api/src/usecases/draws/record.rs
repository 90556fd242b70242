//! A draw's published forms, built from its rows: the record (format 3 with its stretch
//! of the audit chain, or the seeded record of formats 1 and 2), the owner's summary and
//! the public list item. The same code builds what the API answers and what `vestibule
//! verify` recomputes.

use super::DrawError;
use crate::db::draws::{self, DrawRow, TicketRow};
use crate::db::DbError;
use crate::draw::beacon;
use crate::time::rfc3339;
use deadpool_postgres::{GenericClient, Pool};
use shared::draws::{
    AnyDrawRecord, BeaconDrawRecord, DrawBeacon, DrawState, ExcludedTicket, PublicDraw, BEACON_DRAW_FORMAT,
};
use shared::trust::{DrawRecord, DrawSummary, DRAW_FORMAT, DRAW_FORMAT_V1};
use uuid::Uuid;

/// The draw may still be run or cancelled.
pub(super) fn must_be_pending(row: &DrawRow) -> Result<(), DrawError> {
    match row.state {
        DrawState::Open | DrawState::Closed => Ok(()),
        DrawState::Run => Err(DrawError::AlreadyRun),
        DrawState::Cancelled => Err(DrawError::Cancelled),
    }
}

/// The record of a draw of the program, as the database holds it now.
pub(super) async fn of(
    client: &impl GenericClient,
    program_id: Uuid,
    draw_id: Uuid,
) -> Result<Option<AnyDrawRecord>, DbError> {
    let Some(row) = draws::get(client, program_id, draw_id).await? else { return Ok(None) };
    let tickets = draws::tickets(client, row.id).await?;
    Ok(Some(match &row.beacon {
        None => AnyDrawRecord::Seeded(Box::new(seeded(&row, &tickets))),
        Some(b) => {
            let to = b.closed_event.unwrap_or(b.opened_event);
            let events = draws::chain_segment(client, program_id, b.opened_event, to).await?;
            AnyDrawRecord::Beacon(Box::new(beacon_record(&row, &tickets, &events)))
        }
    }))
}

/// The record of a stored draw (for `vestibule verify`).
pub async fn stored_record(pool: &Pool, program_id: Uuid, draw_id: Uuid) -> Result<Option<AnyDrawRecord>, DbError> {
    crate::db::snapshot(pool, async |tx| of(tx, program_id, draw_id).await).await
}

fn beacon_record(row: &DrawRow, tickets: &[TicketRow], events: &[crate::chain::StoredEvent]) -> BeaconDrawRecord {
    let b = row.beacon.as_ref().expect("a format 3 draw");
    let closed = b.closed_at.is_some();
    let mut drawn: Vec<&TicketRow> = tickets.iter().filter(|t| t.drawn_rank.is_some()).collect();
    drawn.sort_by_key(|t| t.drawn_rank);
    BeaconDrawRecord {
        format: BEACON_DRAW_FORMAT.to_owned(),
        draw_id: row.id,
        program_id: row.program_id,
        state: row.state,
        winners: row.winners,
        filter: row.filter.clone(),
        opened_at: rfc3339(row.opened_at),
        closes_at: rfc3339(b.closes_at),
        closed_at: b.closed_at.map(rfc3339),
        run_at: row.run_at.map(rfc3339),
        cancelled_at: row.cancelled_at.map(rfc3339),
        cancel_reason: row.cancel_reason.clone(),
        beacon: DrawBeacon {
            public_key: hex::encode(&b.chain.public_key),
            genesis: b.chain.genesis,
            period: b.chain.period,
            scheme: b.chain.scheme.as_str().to_owned(),
            round: b.round,
            round_at: rfc3339(b.chain.round_time(b.round)),
            signature: b.signature.as_ref().map(hex::encode),
            randomness: b.randomness.as_ref().map(hex::encode),
        },
        tickets_hash: row.tickets_hash.as_ref().map(hex::encode),
        // Before the close the list is still growing; it is published once frozen.
        tickets: if closed { tickets.iter().map(|t| hex::encode(&t.ticket)).collect() } else { vec![] },
        excluded: tickets
            .iter()
            .filter_map(|t| t.excluded_by.map(|event_id| ExcludedTicket { ticket: hex::encode(&t.ticket), event_id }))
            .collect(),
        drawn: drawn.iter().map(|t| hex::encode(&t.ticket)).collect(),
        not_selected: drawn.iter().filter(|t| t.lapsed == Some(true)).map(|t| hex::encode(&t.ticket)).collect(),
        events: events.iter().map(beacon::chained).collect(),
    }
}

/// The record of a draw of formats 1 and 2: the seed and the outcome only once run.
fn seeded(row: &DrawRow, tickets: &[TicketRow]) -> DrawRecord {
    let has_run = row.state == DrawState::Run;
    let seeded = row.seeded.as_ref().expect("a seeded draw has its seed");
    let mut drawn: Vec<(i32, String)> =
        tickets.iter().filter_map(|t| t.drawn_rank.map(|r| (r, hex::encode(&t.ticket)))).collect();
    drawn.sort();
    DrawRecord {
        format: if row.committed_filter().is_some() { DRAW_FORMAT } else { DRAW_FORMAT_V1 }.to_owned(),
        draw_id: row.id,
        program_id: row.program_id,
        state: row.state.as_str().to_owned(),
        winners: row.winners,
        filter: row.committed_filter().cloned(),
        seed_commitment: hex::encode(&seeded.commitment),
        tickets_hash: row.tickets_hash.as_ref().map(hex::encode).unwrap_or_default(),
        tickets: tickets.iter().map(|t| hex::encode(&t.ticket)).collect(),
        opened_at: rfc3339(row.opened_at),
        run_at: row.run_at.map(rfc3339),
        seed: has_run.then(|| hex::encode(&seeded.seed)),
        ineligible: tickets.iter().filter(|t| t.eligible == Some(false)).map(|t| hex::encode(&t.ticket)).collect(),
        drawn: drawn.into_iter().map(|(_, t)| t).collect(),
    }
}

/// A draw as its owner lists it.
pub(super) fn summary(d: &DrawRow) -> DrawSummary {
    let b = d.beacon.as_ref();
    DrawSummary {
        id: d.id,
        format: d.format,
        state: d.state,
        winners: d.winners,
        filter: d.filter.clone(),
        candidates: d.candidates,
        seed_commitment: d.seeded.as_ref().map(|s| hex::encode(&s.commitment)),
        tickets_hash: d.tickets_hash.as_ref().map(hex::encode),
        opened_at: rfc3339(d.opened_at),
        closes_at: b.map(|b| rfc3339(b.closes_at)),
        round: b.map(|b| b.round),
        round_at: b.map(|b| rfc3339(b.chain.round_time(b.round))),
        run_at: d.run_at.map(rfc3339),
        cancelled_at: d.cancelled_at.map(rfc3339),
    }
}

/// A format 3 draw as the public list shows it (the ticket count only once frozen).
pub(super) fn public(d: &DrawRow) -> Option<PublicDraw> {
    let b = d.beacon.as_ref()?;
    Some(PublicDraw {
        id: d.id,
        state: d.state,
        winners: d.winners,
        filter: d.filter.clone(),
        opened_at: rfc3339(d.opened_at),
        closes_at: rfc3339(b.closes_at),
        round: b.round,
        round_at: rfc3339(b.chain.round_time(b.round)),
        tickets_hash: d.tickets_hash.as_ref().map(hex::encode),
        tickets: b.closed_at.map(|_| d.candidates),
        run_at: d.run_at.map(rfc3339),
        cancelled_at: d.cancelled_at.map(rfc3339),
    })
}
