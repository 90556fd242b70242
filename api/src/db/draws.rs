//! `draws` and `draw_tickets` (issue 16, migrations V52 and V53, which added the record
//! format and the filter). Callers hold the program lock `FOR UPDATE` (writers) or
//! `FOR SHARE` (readers) first; a draw row is locked after it.

use super::Result;
use chrono::{DateTime, Utc};
use deadpool_postgres::{GenericClient, Transaction};
use shared::trust::{DrawFilter, FlagFilter};
use shared::SourceRef;
use tokio_postgres::Row;
use uuid::Uuid;

/// The unique index that allows one open draw per program.
pub const ONE_OPEN: &str = "draws_one_open_per_program";

/// The record format of every draw opened now (filter committed; see `crate::draw`).
pub const FORMAT: i16 = 2;

#[derive(Debug, Clone)]
pub struct DrawRow {
    pub id: Uuid,
    pub program_id: Uuid,
    pub winners: i32,
    pub candidates: i32,
    pub seed: Vec<u8>,
    pub seed_commitment: Vec<u8>,
    pub tickets_hash: Vec<u8>,
    pub opened_at: DateTime<Utc>,
    pub run_at: Option<DateTime<Utc>>,
    /// The record format: 1 for draws opened before filters (`filter` is then empty), 2 since.
    pub format: i16,
    pub filter: DrawFilter,
}

impl DrawRow {
    /// The filter as the record and its commitment carry it: none in format 1.
    pub fn committed_filter(&self) -> Option<&DrawFilter> {
        (self.format >= 2).then_some(&self.filter)
    }
}

const COLUMNS: &str = "id, program_id, winners, candidates, seed, seed_commitment, tickets_hash, opened_at, run_at, \
                       format, filter_source, filter_flag";

impl From<&Row> for DrawRow {
    fn from(r: &Row) -> Self {
        DrawRow {
            id: r.get(0),
            program_id: r.get(1),
            winners: r.get(2),
            candidates: r.get(3),
            seed: r.get(4),
            seed_commitment: r.get(5),
            tickets_hash: r.get(6),
            opened_at: r.get(7),
            run_at: r.get(8),
            format: r.get(9),
            filter: DrawFilter {
                source: r.get::<_, Option<String>>(10).map(|s| SourceRef::parse(&s).expect("draws_filter_source")),
                flag: r.get::<_, Option<&str>>(11).map(|f| f.parse::<FlagFilter>().expect("draws_filter_flag")),
            },
        }
    }
}

/// The program's waiting entries matching the filter (the candidates of a new draw).
/// The flags read as the queue's (`db::queue::EntryRow::flags`).
pub async fn waiting_entries(tx: &Transaction<'_>, program_id: Uuid, filter: &DrawFilter) -> Result<Vec<Uuid>> {
    let stmt = tx
        .prepare_cached(
            "SELECT id FROM entries WHERE program_id = $1 AND state = 'waiting' \
               AND ($2::text IS NULL OR source_ref = $2) \
               AND ($3::text IS NULL \
                    OR ($3 = 'disposable_domain' AND disposable_domain) \
                    OR ($3 = 'possible_duplicate' AND duplicate_of IS NOT NULL) \
                    OR ($3 = 'unflagged' AND NOT disposable_domain AND duplicate_of IS NULL)) \
             ORDER BY id",
        )
        .await?;
    let source = filter.source.as_ref().map(SourceRef::as_str);
    let flag = filter.flag.map(FlagFilter::as_str);
    Ok(tx.query(&stmt, &[&program_id, &source, &flag]).await?.iter().map(|r| r.get(0)).collect())
}

/// Whether the program has a draw that has not run.
pub async fn has_open(tx: &Transaction<'_>, program_id: Uuid) -> Result<bool> {
    let stmt =
        tx.prepare_cached("SELECT EXISTS (SELECT 1 FROM draws WHERE program_id = $1 AND run_at IS NULL)").await?;
    Ok(tx.query_one(&stmt, &[&program_id]).await?.get(0))
}

/// Writes a new draw and its tickets (`entries[i]` holds `tickets[i]`).
pub async fn insert(tx: &Transaction<'_>, draw: &DrawRow, entries: &[Uuid], tickets: &[Vec<u8>]) -> Result<()> {
    let stmt = tx
        .prepare_cached(&format!(
            "INSERT INTO draws ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
        ))
        .await?;
    let d = draw;
    let source = d.filter.source.as_ref().map(SourceRef::as_str);
    let flag = d.filter.flag.map(FlagFilter::as_str);
    tx.execute(
        &stmt,
        &[
            &d.id,
            &d.program_id,
            &d.winners,
            &d.candidates,
            &d.seed,
            &d.seed_commitment,
            &d.tickets_hash,
            &d.opened_at,
            &d.run_at,
            &d.format,
            &source,
            &flag,
        ],
    )
    .await?;
    let stmt = tx
        .prepare_cached(
            "INSERT INTO draw_tickets (draw_id, program_id, entry_id, ticket) \
             SELECT $1, $2, e, t FROM unnest($3::uuid[], $4::bytea[]) AS x(e, t)",
        )
        .await?;
    tx.execute(&stmt, &[&d.id, &d.program_id, &entries, &tickets]).await?;
    Ok(())
}

/// Locks a draw of the program.
pub async fn lock(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<DrawRow>> {
    let stmt =
        tx.prepare_cached(&format!("SELECT {COLUMNS} FROM draws WHERE id = $1 AND program_id = $2 FOR UPDATE")).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(DrawRow::from))
}

/// A draw of the program, unlocked (for readers under the program's shared lock).
pub async fn get(tx: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<DrawRow>> {
    let stmt = tx.prepare_cached(&format!("SELECT {COLUMNS} FROM draws WHERE id = $1 AND program_id = $2")).await?;
    Ok(tx.query_opt(&stmt, &[&id, &program_id]).await?.as_ref().map(DrawRow::from))
}

/// The program's draws, newest first.
pub async fn list(tx: &Transaction<'_>, program_id: Uuid) -> Result<Vec<DrawRow>> {
    let stmt = tx
        .prepare_cached(&format!("SELECT {COLUMNS} FROM draws WHERE program_id = $1 ORDER BY opened_at DESC, id"))
        .await?;
    Ok(tx.query(&stmt, &[&program_id]).await?.iter().map(DrawRow::from).collect())
}

/// One ticket of a draw.
#[derive(Debug, Clone)]
pub struct TicketRow {
    pub entry_id: Uuid,
    pub ticket: Vec<u8>,
    pub eligible: Option<bool>,
    pub drawn_rank: Option<i32>,
}

/// A draw's tickets, sorted by ticket.
pub async fn tickets(tx: &Transaction<'_>, draw_id: Uuid) -> Result<Vec<TicketRow>> {
    let stmt = tx
        .prepare_cached(
            "SELECT entry_id, ticket, eligible, drawn_rank FROM draw_tickets WHERE draw_id = $1 ORDER BY ticket",
        )
        .await?;
    Ok(tx
        .query(&stmt, &[&draw_id])
        .await?
        .iter()
        .map(|r| TicketRow { entry_id: r.get(0), ticket: r.get(1), eligible: r.get(2), drawn_rank: r.get(3) })
        .collect())
}

/// Marks the draw run at `now`: every ticket's eligibility, and the winners' ranks
/// (`drawn[i]` is the entry drawn at rank i + 1).
pub async fn finish(
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
    let stmt = tx.prepare_cached("UPDATE draws SET run_at = $2 WHERE id = $1").await?;
    tx.execute(&stmt, &[&draw_id, &now]).await?;
    Ok(())
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
    pub run: bool,
    pub drawn: bool,
}

/// The tickets of the listed entries, oldest draw first.
pub async fn own_tickets(client: &impl GenericClient, entry_ids: &[Uuid]) -> Result<Vec<OwnTicket>> {
    let stmt = client
        .prepare_cached(
            "SELECT t.draw_id, t.entry_id, t.ticket, d.run_at IS NOT NULL, t.drawn_rank IS NOT NULL \
             FROM draw_tickets t JOIN draws d ON d.id = t.draw_id WHERE t.entry_id = ANY($1) ORDER BY d.opened_at, d.id",
        )
        .await?;
    Ok(client
        .query(&stmt, &[&entry_ids])
        .await?
        .iter()
        .map(|r| OwnTicket { draw_id: r.get(0), entry_id: r.get(1), ticket: r.get(2), run: r.get(3), drawn: r.get(4) })
        .collect())
}
