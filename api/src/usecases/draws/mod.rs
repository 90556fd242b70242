//! Lottery draws (issue 16; on public randomness since issue 29). Policy: opening fixes
//! the entrant rule, the number of winners, the instant entries close and the beacon
//! round (the first scheduled after the close plus [`DrawConfig::margin`]), chains them in
//! the `draw_opened` event and freezes the tickets of the entrants waiting now; one open
//! or closed draw per program. At the close ([`close`], at once when no later close is
//! asked for, else the background closer) the tickets of late entrants are added and
//! every ticket whose entry has left the queue since the opening is excluded, naming the
//! chained event that moved it; a close that comes after the round is due cancels the
//! draw instead (`closed_late`), since it could no longer be shown fair. Running
//! ([`run`]) needs the round's signature (from the relay, or pasted), verified against
//! the draw's chain; the winners follow from the tickets and the randomness alone, and
//! those still waiting are selected with reason `lottery` in one transaction, provided
//! the seats allow them all. A winner who left after the close is not selected and their
//! seat is not passed on: passing it on would let whoever runs the draw steer it after
//! seeing the beacon. Cancelling is an audited, public state. Draws opened before V110
//! (a server seed) still run as they were meant to ([`seeded`]).

mod close;
mod record;
mod run;
mod seeded;

pub use close::close_due;
pub use record::stored_record;
pub use run::{run, Beacon};

use super::owner::{self, Scope};
use super::use_case_error;
use crate::db::audit::{self, Detail, EventType};
use crate::db::draws::{self, NewDraw};
use crate::db::{self, DbError};
use crate::drand::Chain;
use crate::draw::{self, beacon};
use crate::time::rfc3339;
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use deadpool_postgres::Pool;
use shared::draws::{AnyDrawRecord, BeaconDrawRecord, PublicDraw, CANCEL_REASONS};
use shared::trust::{DrawFilter, DrawSummary};
use std::time::Duration;
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
        #[error("the close is in the past or too far ahead")]
        InvalidClosesAt,
        #[error("the draw's entries have not closed")]
        NotClosed,
        #[error("the draw was cancelled")]
        Cancelled,
        #[error("the beacon round is not due yet")]
        BeaconNotDue,
        #[error("no relay gave the beacon round")]
        BeaconUnavailable,
        #[error("the beacon is not the draw's round or does not verify")]
        InvalidBeacon,
        #[error("not a cancel reason")]
        InvalidReason,
    }
}

/// The reason code the winners are selected with.
pub const LOTTERY: &str = "lottery";

/// The furthest ahead entries may close.
pub const MAX_CLOSE_DAYS: i64 = 90;

/// What draws need from the configuration: the beacon chain new draws are fixed to, the
/// margin between the close and the round, and the relay to fetch rounds from.
#[derive(Debug, Clone)]
pub struct DrawConfig {
    pub chain: Chain,
    pub margin: Duration,
    pub relay: Option<String>,
}

/// An owner's new draw.
#[derive(Debug, Clone)]
pub struct OpenDraw {
    pub winners: i32,
    pub filter: DrawFilter,
    /// When entries close; `None`: at once.
    pub closes_at: Option<DateTime<Utc>>,
}

/// Opens a draw (see the module doc); answers its record.
pub async fn open(
    pool: &Pool,
    config: &DrawConfig,
    user_id: &str,
    program_id: Uuid,
    input: &OpenDraw,
) -> Result<AnyDrawRecord, DrawError> {
    // The database keeps microseconds: the close is fixed (and hashed) at that precision.
    let closes_at = input.closes_at.map(|t| t.duration_trunc(TimeDelta::microseconds(1)).unwrap_or(t));
    let draw_id = owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        if draws::has_open(o.tx, o.program.id).await? {
            return Err(DrawError::AlreadyOpen);
        }
        let closes_at = closes_at.unwrap_or(o.now);
        if closes_at < o.now || closes_at > o.now + TimeDelta::days(MAX_CLOSE_DAYS) {
            return Err(DrawError::InvalidClosesAt);
        }
        let at_once = closes_at == o.now;
        let waiting = draws::waiting_entries(o.tx, o.program.id, &input.filter).await?;
        if at_once && waiting.is_empty() {
            return Err(DrawError::NoCandidates);
        }
        let id = Uuid::new_v4();
        let round = config.chain.draw_round(closes_at, config.margin);
        let fixed = beacon::Fixed {
            draw_id: id,
            program_id: o.program.id,
            winners: input.winners,
            filter: input.filter.clone(),
            opened_at: rfc3339(o.now),
            closes_at: rfc3339(closes_at),
            public_key: hex::encode(&config.chain.public_key),
            genesis: config.chain.genesis,
            period: config.chain.period,
            scheme: config.chain.scheme.as_str().to_owned(),
            round,
        };
        let details = [
            ("drawId", Detail::Id(id)),
            ("winners", Detail::Number(i64::from(input.winners))),
            ("candidates", Detail::Number(waiting.len() as i64)),
            ("closesAt", Detail::Time(closes_at)),
            ("round", Detail::Number(i64::try_from(round).unwrap_or(i64::MAX))),
            ("fixed", Detail::Hash(beacon::fixed_hash(&fixed))),
        ];
        let event = audit::record(o.tx, o.program.id, None, o.actor(), EventType::DrawOpened, o.now, &details).await?;
        let new = NewDraw {
            id,
            program_id: o.program.id,
            winners: input.winners,
            filter: &input.filter,
            opened_at: o.now,
            closes_at,
            chain: &config.chain,
            round,
            opened_event: event,
        };
        let tickets: Vec<Vec<u8>> = waiting.iter().map(|e| draw::ticket(o.program.id, *e).to_vec()).collect();
        draws::insert(o.tx, &new, &waiting, &tickets).await.map_err(|e| match e {
            e if e.is_unique(draws::ONE_OPEN) => DrawError::AlreadyOpen,
            e => e.into(),
        })?;
        if at_once {
            let row = draws::lock(o.tx, o.program.id, id).await?.ok_or(DrawError::NotFound)?;
            close::close_locked(o.tx, &row, o.now, o.actor()).await?;
        }
        Ok(id)
    })
    .await?;
    get(pool, user_id, program_id, draw_id).await
}

/// Cancels a draw that has not run, with an owner's reason (audited, public).
pub async fn cancel(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    draw_id: Uuid,
    reason: &str,
) -> Result<AnyDrawRecord, DrawError> {
    let reason = *CANCEL_REASONS.iter().find(|r| **r == reason).ok_or(DrawError::InvalidReason)?;
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let row = draws::lock(o.tx, o.program.id, draw_id).await?.ok_or(DrawError::NotFound)?;
        record::must_be_pending(&row)?;
        cancel_locked(o.tx, &row, reason, o.now, o.actor()).await?;
        Ok::<_, DrawError>(())
    })
    .await?;
    get(pool, user_id, program_id, draw_id).await
}

async fn cancel_locked(
    tx: &deadpool_postgres::Transaction<'_>,
    row: &draws::DrawRow,
    reason: &'static str,
    now: DateTime<Utc>,
    actor: audit::Actor,
) -> Result<(), DbError> {
    draws::cancel(tx, row.id, reason, now).await?;
    let details = [("drawId", Detail::Id(row.id)), ("reasonCode", Detail::Code(reason))];
    audit::record(tx, row.program_id, None, actor, EventType::DrawCancelled, now, &details).await?;
    Ok(())
}

/// One draw's record, as of one snapshot.
pub async fn get(pool: &Pool, user_id: &str, program_id: Uuid, draw_id: Uuid) -> Result<AnyDrawRecord, DrawError> {
    owner::snapshot(pool, user_id, program_id, async |tx, program_id| {
        record::of(tx, program_id, draw_id).await?.ok_or(DrawError::NotFound)
    })
    .await
}

/// The program's draws, newest first.
pub async fn list(pool: &Pool, user_id: &str, program_id: Uuid) -> Result<Vec<DrawSummary>, DrawError> {
    owner::read(pool, user_id, Scope::Program(program_id), async |o| {
        Ok(draws::list(o.tx, o.program.id, false).await?.iter().map(record::summary).collect())
    })
    .await
}

/// The public program `slug`'s draws on public randomness, newest first.
pub async fn public_list(pool: &Pool, slug: &str) -> Result<Vec<PublicDraw>, DrawError> {
    db::snapshot(pool, async |tx| {
        let program = draws::public_program(tx, slug).await?.ok_or(DrawError::NotFound)?;
        Ok(draws::list(tx, program, true).await?.iter().filter_map(record::public).collect())
    })
    .await
}

/// One draw on public randomness of the public program `slug`.
pub async fn public_record(pool: &Pool, slug: &str, draw_id: Uuid) -> Result<BeaconDrawRecord, DrawError> {
    db::snapshot(pool, async |tx| {
        let program = draws::public_program(tx, slug).await?.ok_or(DrawError::NotFound)?;
        match record::of(tx, program, draw_id).await? {
            Some(AnyDrawRecord::Beacon(r)) => Ok(*r),
            _ => Err(DrawError::NotFound),
        }
    })
    .await
}

/// Tickets of `entries` as the database would hold them after the close, sorted by ticket,
/// `excluded` marked ineligible (by rule 7): the unit tests' frozen list.
#[cfg(test)]
pub(crate) fn test_tickets(program: Uuid, entries: &[Uuid], excluded: &[Uuid]) -> Vec<draws::TicketRow> {
    let mut rows: Vec<draws::TicketRow> = entries
        .iter()
        .map(|e| draws::TicketRow {
            entry_id: *e,
            ticket: draw::ticket(program, *e).to_vec(),
            eligible: Some(!excluded.contains(e)),
            excluded_by: excluded.contains(e).then_some(7),
            drawn_rank: None,
            lapsed: None,
        })
        .collect();
    rows.sort_by(|a, b| a.ticket.cmp(&b.ticket));
    rows
}
