//! `draws` and `draw_tickets` (issue 16: migrations V52, V53; issue 29: V110, draws on
//! public randomness). Callers hold the program lock `FOR UPDATE` (writers) or
//! `FOR SHARE` (readers) first; a draw row is locked after it. The `draws_frozen` and
//! `draw_tickets_frozen` triggers refuse every write these functions do not make: a fixed
//! field changed, a step other than open → closed → run or → cancelled, a ticket changed
//! after the step that sets it.

use super::audit_chain::{stored_event, EVENT_COLUMNS};
use super::Result;
use crate::chain::StoredEvent;
use crate::drand::{Chain, Scheme};
use chrono::{DateTime, Utc};
use deadpool_postgres::{GenericClient, Transaction};
use shared::draws::DrawState;
use shared::trust::{DrawFilter, FlagFilter};
use shared::SourceRef;
use std::collections::HashMap;
use tokio_postgres::Row;
use uuid::Uuid;

/// The unique index that allows one open or closed draw per program.
pub const ONE_OPEN: &str = "draws_one_open_per_program";

/// The record format of every draw opened now (public randomness; see `crate::draw`).
pub const FORMAT: i16 = 3;

#[derive(Debug, Clone)]
pub struct DrawRow {
    pub id: Uuid,
    pub program_id: Uuid,
    /// 3 for draws on public randomness; 1 and 2 for seeded draws opened before V110.
    pub format: i16,
    pub state: DrawState,
    pub winners: i32,
    pub candidates: i32,
    pub filter: DrawFilter,
    pub opened_at: DateTime<Utc>,
    pub run_at: Option<DateTime<Utc>>,
    pub tickets_hash: Option<Vec<u8>>,
    pub cancelled_at: Option<DateTime<Utc>>,
    pub cancel_reason: Option<String>,
    /// Formats 1 and 2.
    pub seeded: Option<Seeded>,
    /// Format 3.
    pub beacon: Option<BeaconColumns>,
}

/// A seeded draw's secret and its commitment.
#[derive(Debug, Clone)]
pub struct Seeded {
    pub seed: Vec<u8>,
    pub commitment: Vec<u8>,
}

/// A format 3 draw's close and beacon.
#[derive(Debug, Clone)]
pub struct BeaconColumns {
    pub closes_at: DateTime<Utc>,
    pub closed_at: Option<DateTime<Utc>>,
    pub chain: Chain,
    pub round: u64,
    pub signature: Option<Vec<u8>>,
    pub randomness: Option<Vec<u8>>,
    /// The chained `draw_opened` and `draw_closed` events.
    pub opened_event: i64,
    pub closed_event: Option<i64>,
}

impl DrawRow {
    /// The filter as a seeded record and its commitment carry it: none in format 1.
    pub fn committed_filter(&self) -> Option<&DrawFilter> {
        (self.format >= 2).then_some(&self.filter)
    }
}

const COLUMNS: &str = "id, program_id, format, state, winners, candidates, filter_source, filter_flag, opened_at, \
     run_at, tickets_hash, cancelled_at, cancel_reason, seed, seed_commitment, closes_at, closed_at, chain_public_key, \
     chain_genesis, chain_period, chain_scheme, beacon_round, beacon_signature, randomness, opened_event, closed_event";

impl From<&Row> for DrawRow {
    fn from(r: &Row) -> Self {
        let seed: Option<Vec<u8>> = r.get(13);
        let key: Option<Vec<u8>> = r.get(17);
        DrawRow {
            id: r.get(0),
            program_id: r.get(1),
            format: r.get(2),
            state: DrawState::parse(r.get(3)).expect("draws_state constraint"),
            winners: r.get(4),
            candidates: r.get(5),
            filter: DrawFilter {
                source: r.get::<_, Option<String>>(6).map(|s| SourceRef::parse(&s).expect("draws_filter_source")),
                flag: r.get::<_, Option<&str>>(7).map(|f| f.parse::<FlagFilter>().expect("draws_filter_flag")),
            },
            opened_at: r.get(8),
            run_at: r.get(9),
            tickets_hash: r.get(10),
            cancelled_at: r.get(11),
            cancel_reason: r.get(12),
            seeded: seed.map(|seed| Seeded { seed, commitment: r.get(14) }),
            beacon: key.map(|public_key| BeaconColumns {
                closes_at: r.get(15),
                closed_at: r.get(16),
                chain: Chain {
                    public_key,
                    genesis: r.get(18),
                    period: u32::try_from(r.get::<_, i32>(19)).expect("draws_beacon constraint"),
                    scheme: Scheme::parse(r.get(20)).expect("draws_beacon constraint"),
                },
                round: u64::try_from(r.get::<_, i64>(21)).expect("draws_beacon constraint"),
                signature: r.get(22),
                randomness: r.get(23),
                opened_event: r.get(24),
                closed_event: r.get(25),
            }),
        }
    }
}

/// The program's waiting entries matching the filter.
pub async fn waiting_entries(tx: &Transaction<'_>, program_id: Uuid, filter: &DrawFilter) -> Result<Vec<Uuid>> {
    let stmt = tx
        .prepare_cached(&format!(
            "SELECT id FROM entries e WHERE program_id = $1 AND state = 'waiting' AND {RULE} ORDER BY id"
        ))
        .await?;
    Ok(tx.query(&stmt, &[&program_id, &source(filter), &flag(filter)]).await?.iter().map(|r| r.get(0)).collect())
}

/// The entrant rule on `entries e` with the source as `$2` and the flag as `$3`; the
/// flags read as the queue's (`db::queue::EntryRow::flags`).
const RULE: &str = "($2::text IS NULL OR e.source_ref = $2) \
     AND ($3::text IS NULL \
          OR ($3 = 'disposable_domain' AND e.disposable_domain) \
          OR ($3 = 'possible_duplicate' AND e.duplicate_of IS NOT NULL) \
          OR ($3 = 'unflagged' AND NOT e.disposable_domain AND e.duplicate_of IS NULL))";

fn source(filter: &DrawFilter) -> Option<&str> {
    filter.source.as_ref().map(SourceRef::as_str)
}

fn flag(filter: &DrawFilter) -> Option<&'static str> {
    filter.flag.map(FlagFilter::as_str)
}

/// Whether the program has a draw that is open or closed (not run, not cancelled).
pub async fn has_open(tx: &Transaction<'_>, program_id: Uuid) -> Result<bool> {
    let stmt = tx
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM draws WHERE program_id = $1 AND state IN ('open', 'closed'))")
        .await?;
    Ok(tx.query_one(&stmt, &[&program_id]).await?.get(0))
}

/// What a new format 3 draw fixes.
#[derive(Debug, Clone)]
pub struct NewDraw<'a> {
    pub id: Uuid,
    pub program_id: Uuid,
    pub winners: i32,
    pub filter: &'a DrawFilter,
    pub opened_at: DateTime<Utc>,
    pub closes_at: DateTime<Utc>,
    pub chain: &'a Chain,
    pub round: u64,
    pub opened_event: i64,
}

/// Writes a new format 3 draw and the tickets of the entrants waiting now
/// (`entries[i]` holds `tickets[i]`).
pub async fn insert(tx: &Transaction<'_>, d: &NewDraw<'_>, entries: &[Uuid], tickets: &[Vec<u8>]) -> Result<()> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO draws (id, program_id, format, state, winners, candidates, filter_source, filter_flag, \
               opened_at, closes_at, chain_public_key, chain_genesis, chain_period, chain_scheme, beacon_round, \
               opened_event) \
             VALUES ($1, $2, 3, 'open', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        )
        .await?;
    let candidates = i32::try_from(entries.len()).unwrap_or(i32::MAX);
    let period = i32::try_from(d.chain.period).unwrap_or(i32::MAX);
    let round = i64::try_from(d.round).unwrap_or(i64::MAX);
    tx.execute(
        &stmt,
        &[
            &d.id,
            &d.program_id,
            &d.winners,
            &candidates,
            &source(d.filter),
            &flag(d.filter),
            &d.opened_at,
            &d.closes_at,
            &d.chain.public_key,
            &d.chain.genesis,
            &period,
            &d.chain.scheme.as_str(),
            &round,
            &d.opened_event,
        ],
    )
    .await?;
    add_tickets(tx, d.id, d.program_id, entries, tickets, None).await
}

/// Adds tickets (`entries[i]` holds `tickets[i]`), with their eligibility when known.
async fn add_tickets(
    tx: &Transaction<'_>,
    draw_id: Uuid,
    program_id: Uuid,
    entries: &[Uuid],
    tickets: &[Vec<u8>],
    eligible: Option<bool>,
) -> Result<()> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO draw_tickets (draw_id, program_id, entry_id, ticket, eligible) \
             SELECT $1, $2, e, t, $5 FROM unnest($3::uuid[], $4::bytea[]) AS x(e, t)",
        )
        .await?;
    tx.execute(&stmt, &[&draw_id, &program_id, &entries, &tickets, &eligible]).await?;
    Ok(())
}

/// Locks a draw of the program.
pub async fn lock(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<DrawRow>> {
    let stmt =
        tx.prepare_cached(&format!("SELECT {COLUMNS} FROM draws WHERE id = $1 AND program_id = $2 FOR UPDATE")).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(DrawRow::from))
}

/// A draw of the program, unlocked (for readers under the program's shared lock).
pub async fn get(client: &impl GenericClient, program_id: Uuid, id: Uuid) -> Result<Option<DrawRow>> {
    let stmt = client.prepare_cached(&format!("SELECT {COLUMNS} FROM draws WHERE id = $1 AND program_id = $2")).await?;
    Ok(client.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(DrawRow::from))
}

/// The program's draws, newest first; with `beacon_only`, format 3 draws only.
pub async fn list(client: &impl GenericClient, program_id: Uuid, beacon_only: bool) -> Result<Vec<DrawRow>> {
    let stmt = client
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM draws WHERE program_id = $1 AND (NOT $2 OR format = 3) ORDER BY opened_at DESC, id"
        ))
        .await?;
    Ok(client.query(&stmt, &[&program_id, &beacon_only]).await?.iter().map(DrawRow::from).collect())
}

/// Every format 3 draw (for `vestibule verify`): (program, draw).
pub async fn all_beacon_draws(client: &impl GenericClient) -> Result<Vec<(Uuid, Uuid)>> {
    let stmt =
        client.prepare_cached("SELECT program_id, id FROM draws WHERE format = 3 ORDER BY opened_at, id").await?;
    Ok(client.query(&stmt, &[]).await?.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// One ticket of a draw.
#[derive(Debug, Clone)]
pub struct TicketRow {
    pub entry_id: Uuid,
    pub ticket: Vec<u8>,
    pub eligible: Option<bool>,
    pub excluded_by: Option<i64>,
    pub drawn_rank: Option<i32>,
    pub lapsed: Option<bool>,
}

/// A draw's tickets, sorted by ticket.
pub async fn tickets(client: &impl GenericClient, draw_id: Uuid) -> Result<Vec<TicketRow>> {
    let stmt = client
        .prepare_cached(
            "SELECT entry_id, ticket, eligible, excluded_by, drawn_rank, lapsed FROM draw_tickets WHERE draw_id = $1 \
             ORDER BY ticket",
        )
        .await?;
    Ok(client
        .query(&stmt, &[&draw_id])
        .await?
        .iter()
        .map(|r| TicketRow {
            entry_id: r.get(0),
            ticket: r.get(1),
            eligible: r.get(2),
            excluded_by: r.get(3),
            drawn_rank: r.get(4),
            lapsed: r.get(5),
        })
        .collect())
}

/// Marks a seeded draw run at `now`: every ticket's eligibility, and the winners' ranks
/// (`drawn[i]` is the entry drawn at rank i + 1).
pub async fn finish_seeded(
    tx: &Transaction<'_>,
    draw_id: Uuid,
    ineligible: &[Uuid],
    drawn: &[Uuid],
    now: DateTime<Utc>,
) -> Result<()> {
    let stmt = tx
        .prepare_cached(
            "UPDATE draw_tickets t SET eligible = NOT (t.entry_id = ANY($2)), \
               drawn_rank = (SELECT n::int FROM unnest($3::uuid[]) WITH ORDINALITY AS w(e, n) WHERE w.e = t.entry_id) \
             WHERE t.draw_id = $1",
        )
        .await?;
    tx.execute(&stmt, &[&draw_id, &ineligible, &drawn]).await?;
    let stmt = tx.prepare_cached("UPDATE draws SET state = 'run', run_at = $2 WHERE id = $1").await?;
    tx.execute(&stmt, &[&draw_id, &now]).await?;
    Ok(())
}

/// The chain position (`chain_seq`) of a program's event.
pub async fn event_seq(tx: &Transaction<'_>, program_id: Uuid, event_id: i64) -> Result<Option<i64>> {
    let stmt = tx.prepare_cached("SELECT chain_seq FROM audit_events WHERE id = $1 AND program_id = $2").await?;
    Ok(tx.query_opt(&stmt, &[&event_id, &program_id]).await?.map(|r| r.get(0)))
}

/// Entries that signed up through the public form after chain position `after` and
/// match the rule: the draw's late entrants (whatever their state now).
pub async fn late_entrants(
    tx: &Transaction<'_>,
    program_id: Uuid,
    after: i64,
    filter: &DrawFilter,
) -> Result<Vec<Uuid>> {
    let stmt = tx
        .prepare_cached(&format!(
            "SELECT e.id FROM audit_events a JOIN entries e ON e.id = a.entry_id AND e.program_id = a.program_id \
             WHERE a.program_id = $1 AND a.chain_seq > $4 AND a.event_type = 'signup' AND e.source = 'signup' \
               AND {RULE} ORDER BY e.id"
        ))
        .await?;
    let rows = tx.query(&stmt, &[&program_id, &source(filter), &flag(filter), &after]).await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Which of the entries are not waiting now, each with the first event after chain
/// position `after` that moved it (of `kinds`), if there is one.
pub async fn departures(
    tx: &Transaction<'_>,
    program_id: Uuid,
    entries: &[Uuid],
    after: i64,
    kinds: &[&str],
) -> Result<HashMap<Uuid, Option<i64>>> {
    // One pass over the chain since the opening (`audit_chain_seq_key`), not one per entry.
    let stmt = tx
        .prepare_cached(
            "SELECT e.id, x.id FROM entries e LEFT JOIN ( \
               SELECT DISTINCT ON (a.entry_id) a.entry_id, a.id FROM audit_events a \
               WHERE a.program_id = $1 AND a.chain_seq > $3 AND a.event_type = ANY($4) AND a.entry_id = ANY($2) \
               ORDER BY a.entry_id, a.chain_seq) x ON x.entry_id = e.id \
             WHERE e.program_id = $1 AND e.id = ANY($2) AND e.state <> 'waiting'",
        )
        .await?;
    let rows = tx.query(&stmt, &[&program_id, &entries, &after, &kinds]).await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// How a close leaves the tickets.
#[derive(Debug, Clone)]
pub struct Closing {
    /// Late entrants' tickets (`late_entries[i]` holds `late_tickets[i]`).
    pub late_entries: Vec<Uuid>,
    pub late_tickets: Vec<Vec<u8>>,
    /// Excluded entries and the event that excluded each.
    pub excluded: Vec<(Uuid, i64)>,
    pub tickets_hash: Vec<u8>,
    pub candidates: i32,
    pub closed_event: i64,
}

/// Freezes an open format 3 draw's tickets at `now` (the step open → closed).
pub async fn close(
    tx: &Transaction<'_>,
    draw_id: Uuid,
    program_id: Uuid,
    c: &Closing,
    now: DateTime<Utc>,
) -> Result<()> {
    add_tickets(tx, draw_id, program_id, &c.late_entries, &c.late_tickets, None).await?;
    let (ids, events): (Vec<Uuid>, Vec<i64>) = c.excluded.iter().copied().unzip();
    let stmt = tx
        .prepare_cached(
            "UPDATE draw_tickets t SET eligible = x.ev IS NULL, excluded_by = x.ev \
             FROM (SELECT d.entry_id, w.ev FROM draw_tickets d \
                   LEFT JOIN unnest($2::uuid[], $3::bigint[]) AS w(e, ev) ON w.e = d.entry_id \
                   WHERE d.draw_id = $1) x \
             WHERE t.draw_id = $1 AND t.entry_id = x.entry_id",
        )
        .await?;
    tx.execute(&stmt, &[&draw_id, &ids, &events]).await?;
    let stmt = tx
        .prepare_cached(
            "UPDATE draws SET state = 'closed', closed_at = $2, tickets_hash = $3, candidates = $4, closed_event = $5 \
             WHERE id = $1",
        )
        .await?;
    tx.execute(&stmt, &[&draw_id, &now, &c.tickets_hash, &c.candidates, &c.closed_event]).await?;
    Ok(())
}

/// Marks a closed format 3 draw run at `now` (`drawn[i]` is the entry drawn at rank
/// i + 1; `lapsed` those of them no longer waiting, so not selected).
pub async fn finish(
    tx: &Transaction<'_>,
    draw_id: Uuid,
    drawn: &[Uuid],
    lapsed: &[Uuid],
    signature: &[u8],
    randomness: &[u8],
    now: DateTime<Utc>,
) -> Result<()> {
    let stmt = tx
        .prepare_cached(
            "UPDATE draw_tickets t SET drawn_rank = w.n::int, lapsed = (t.entry_id = ANY($3)) \
             FROM unnest($2::uuid[]) WITH ORDINALITY AS w(e, n) WHERE t.draw_id = $1 AND t.entry_id = w.e",
        )
        .await?;
    tx.execute(&stmt, &[&draw_id, &drawn, &lapsed]).await?;
    let stmt = tx
        .prepare_cached(
            "UPDATE draws SET state = 'run', run_at = $2, beacon_signature = $3, randomness = $4 WHERE id = $1",
        )
        .await?;
    tx.execute(&stmt, &[&draw_id, &now, &signature, &randomness]).await?;
    Ok(())
}

/// Cancels an open or closed draw at `now`.
pub async fn cancel(tx: &Transaction<'_>, draw_id: Uuid, reason: &str, now: DateTime<Utc>) -> Result<()> {
    let stmt = tx
        .prepare_cached("UPDATE draws SET state = 'cancelled', cancelled_at = $2, cancel_reason = $3 WHERE id = $1")
        .await?;
    tx.execute(&stmt, &[&draw_id, &now, &reason]).await?;
    Ok(())
}

/// Format 3 draws whose entries are due to close at `now`: (workspace, program, draw).
pub async fn due_to_close(client: &impl GenericClient) -> Result<Vec<(Uuid, Uuid, Uuid)>> {
    let stmt = client
        .prepare_cached(
            "SELECT p.workspace_id, d.program_id, d.id FROM draws d JOIN programs p ON p.id = d.program_id \
             WHERE d.state = 'open' AND d.format = 3 AND d.closes_at <= clock_timestamp() ORDER BY d.closes_at LIMIT 50",
        )
        .await?;
    Ok(client.query(&stmt, &[]).await?.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
}

/// How long until the next format 3 draw is due to close (zero when one is due).
pub async fn next_close_in(client: &impl GenericClient) -> Result<Option<std::time::Duration>> {
    let stmt = client
        .prepare_cached(
            "SELECT greatest(extract(epoch FROM min(closes_at) - clock_timestamp()), 0)::float8 FROM draws \
             WHERE state = 'open' AND format = 3",
        )
        .await?;
    let seconds: Option<f64> = client.query_one(&stmt, &[]).await?.get(0);
    Ok(seconds.map(std::time::Duration::from_secs_f64))
}

/// The program's chained events from position `from` to `to`, inclusive, in chain order.
pub async fn chain_segment(
    client: &impl GenericClient,
    program_id: Uuid,
    from: i64,
    to: i64,
) -> Result<Vec<StoredEvent>> {
    let sql = format!(
        "SELECT {EVENT_COLUMNS} FROM audit_events \
         WHERE program_id = $1 AND chain_seq BETWEEN (SELECT chain_seq FROM audit_events WHERE id = $2) \
           AND (SELECT chain_seq FROM audit_events WHERE id = $3) ORDER BY chain_seq"
    );
    let stmt = client.prepare_cached(&sql).await?;
    Ok(client.query(&stmt, &[&program_id, &from, &to]).await?.iter().map(stored_event).collect())
}

/// Entries of the program in state `selected` (they will take seats once invited).
pub async fn selected_count(tx: &Transaction<'_>, program_id: Uuid) -> Result<i64> {
    let stmt = tx.prepare_cached("SELECT count(*) FROM entries WHERE program_id = $1 AND state = 'selected'").await?;
    Ok(tx.query_one(&stmt, &[&program_id]).await?.get(0))
}

/// A ticket of one of a person's entries.
#[derive(Debug, Clone)]
pub struct OwnTicket {
    pub draw_id: Uuid,
    pub entry_id: Uuid,
    pub ticket: Vec<u8>,
    pub state: DrawState,
    pub drawn: bool,
    pub excluded: bool,
}

/// The tickets of the listed entries, oldest draw first.
pub async fn own_tickets(client: &impl GenericClient, entry_ids: &[Uuid]) -> Result<Vec<OwnTicket>> {
    let stmt = client
        .prepare_cached(
            "SELECT t.draw_id, t.entry_id, t.ticket, d.state, t.drawn_rank IS NOT NULL, t.excluded_by IS NOT NULL \
             FROM draw_tickets t JOIN draws d ON d.id = t.draw_id WHERE t.entry_id = ANY($1) ORDER BY d.opened_at, d.id",
        )
        .await?;
    Ok(client
        .query(&stmt, &[&entry_ids])
        .await?
        .iter()
        .map(|r| OwnTicket {
            draw_id: r.get(0),
            entry_id: r.get(1),
            ticket: r.get(2),
            state: DrawState::parse(r.get(3)).expect("draws_state constraint"),
            drawn: r.get(4),
            excluded: r.get(5),
        })
        .collect())
}

/// The id of the public program `slug` (an active workspace's, with a notice published:
/// the same programs `GET /api/public/programs/{slug}` shows).
pub async fn public_program(client: &impl GenericClient, slug: &str) -> Result<Option<Uuid>> {
    let stmt = client
        .prepare_cached(
            "SELECT p.id FROM programs p JOIN workspaces w ON w.id = p.workspace_id AND w.active \
             WHERE p.public_slug = $1 AND p.current_notice_id IS NOT NULL",
        )
        .await?;
    Ok(client.query_opt(&stmt, &[&slug]).await?.map(|r| r.get(0)))
}
