//! `GET /api/owner/programs/{id}/entries.csv`: the owner's queue export (id, email,
//! state, created_at, notice_version, permission_at, ref, verified_at_join, then one
//! column per question of the program's notice versions) — no codes, no digests — of
//! every entry, or of those the listing's filters admit (`state`, `ref`, `flag`,
//! `invitation`; issue 19). The email search is not an export filter: its fragment may
//! only travel in a POST body, and the export is a GET; the SPA says so. Policy:
//! text a person typed (the email) is neutralized against spreadsheet formulas (a
//! leading `=`, `+`, `-`, `@`, tab or CR gets a `'` prefix) and quoted per RFC 4180.
//!
//! The export streams: a task reads the program on one snapshot in batches
//! (`usecases::queue::export`) and hands each batch, as CSV, to the response body
//! through a channel of [`IN_FLIGHT`] chunks, so the API holds a few batches whatever
//! the program's size, and a client that reads slowly slows the reading down. A 404 is
//! decided before the first byte; a failure after it cuts the body short (the chunked
//! encoding then never ends, so the client sees a broken download, not a short file).

use crate::http::error::{ApiError, Result};
use crate::identity::Session;
use crate::routes::input::queue_query;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::queue::{self, EntryRow, Filter};
use crate::usecases::ReadError;
use actix_web::body::{BodyStream, MessageBody};
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{get, web, HttpResponse, HttpResponseBuilder};
use deadpool_postgres::Pool;
use futures_util::stream;
use shared::api::EntrySearch;
use shared::questions::{answer_text, Question};
use std::cell::{Cell, OnceCell};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

/// One CSV cell of person-supplied text: formula-neutralized, then quoted if needed.
pub(super) fn csv_cell(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{s}") } else { s.to_owned() };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// A CSV download (the API scope adds `Cache-Control: private, no-store`).
pub(super) fn csv_response(
    mut builder: HttpResponseBuilder,
    filename: &str,
    body: impl MessageBody + 'static,
) -> HttpResponse {
    builder
        .insert_header((header::CONTENT_TYPE, "text/csv; charset=utf-8"))
        .insert_header((header::CONTENT_DISPOSITION, format!("attachment; filename=\"{filename}\"")))
        .body(body)
}

const HEADER: &str = "id,email,state,created_at,notice_version,permission_at,ref,verified_at_join";

/// The header line: the fixed columns, then one per question (its id; the label may
/// change between versions, the id names the answer).
fn header(columns: &[Question]) -> String {
    let mut line = HEADER.to_owned();
    for q in columns {
        line.push(',');
        line.push_str(&csv_cell(&q.id));
    }
    line.push_str("\r\n");
    line
}

/// Batches of CSV between the reading task and the response body.
const IN_FLIGHT: usize = 2;

type Chunk = std::result::Result<Bytes, std::io::Error>;

queue_query! {
    /// The export's filters: the listing's, without paging or an email fragment (see the
    /// module doc). None given: every entry, as the export has always been.
    struct ExportQuery {
        /// Only entries in this state.
        state: Option<String>,
    }
}

#[utoipa::path(operation_id = "exportEntries", params(ExportQuery), responses(
    (status = 200, description = "The queue as CSV: id,email,state,created_at,notice_version,permission_at,ref,verified_at_join, then one column per question id (answers; several choices joined by `; `), formula-neutralized; every entry, or those the filters admit.", content_type = "text/csv", body = String),
))]
#[get("/owner/programs/{id}/entries.csv")]
async fn export(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    query: web::Query<ExportQuery>,
) -> Result<HttpResponse> {
    // The listing's own parsing, so a value the listing refuses the export refuses too.
    let filter = Filter::try_from(&EntrySearch::from(query.into_inner()))?;
    let (started, decided) = oneshot::channel();
    let (chunks, body) = mpsc::channel(IN_FLIGHT);
    let reader = read_batches(state.pool.clone(), session.user_id.clone(), *id, filter, started, chunks);
    actix_web::rt::spawn(reader);
    decided.await.map_err(|_| ApiError::Internal(anyhow::anyhow!("the export's reader stopped")))??;
    // The header is the reader's first chunk: its question columns come from the snapshot.
    let csv = stream::unfold(body, |mut body| async move { body.recv().await.map(|chunk| (chunk, body)) });
    Ok(csv_response(HttpResponse::Ok(), "entries.csv", BodyStream::new(csv)))
}

/// The export's reading task: tells `started` whether the export may begin (once the
/// owner check passed and the question columns are read), sends the header, then the
/// batches as CSV.
async fn read_batches(
    pool: Pool,
    user_id: String,
    program_id: Uuid,
    filter: Filter,
    started: oneshot::Sender<std::result::Result<(), ReadError>>,
    chunks: mpsc::Sender<Chunk>,
) {
    let started = Cell::new(Some(started));
    let columns = OnceCell::new();
    let start = |questions: Vec<Question>| {
        let line = header(&questions);
        let _ = columns.set(questions);
        // The channel is empty before the first chunk, so the header always fits.
        started.take().is_some_and(|s| s.send(Ok(())).is_ok()) && chunks.try_send(Ok(Bytes::from(line))).is_ok()
    };
    let outcome = queue::export(&pool, &user_id, program_id, &filter, start, async |rows: Vec<EntryRow>| {
        let columns = columns.get().map(Vec::as_slice).unwrap_or_default();
        let mut csv = String::with_capacity(rows.len() * 128);
        rows.iter().for_each(|e| push_line(&mut csv, e, columns));
        chunks.send(Ok(Bytes::from(csv))).await.is_ok()
    })
    .await;
    match (started.take(), outcome) {
        (Some(started), outcome) => {
            let _ = started.send(outcome);
        }
        (None, Ok(())) => {}
        (None, Err(e)) => {
            tracing::error!(error = %e, "the export failed after it began");
            let _ = chunks.send(Err(std::io::Error::other("the export failed after it began"))).await;
        }
    }
}

/// One row: the columns the export has always written, whether it joined with a
/// verified account, then its answer to each question column (choices joined by `; `),
/// formula-neutralized and quoted as the email is.
fn push_line(csv: &mut String, e: &EntryRow, columns: &[Question]) {
    let fixed = [
        e.id.to_string(),
        csv_cell(&e.email),
        e.state.to_string(),
        rfc3339(e.created_at),
        e.notice_version.to_string(),
        rfc3339(e.permission_at),
        // The grammar (a-z 0-9 _ -) needs no quoting; a leading `-` is neutralized.
        e.source_ref.as_deref().map(csv_cell).unwrap_or_default(),
        e.verified_at_join.map(rfc3339).unwrap_or_default(),
    ];
    let answers = columns.iter().map(|q| e.answers.get(&q.id).map(|a| csv_cell(&answer_text(a))).unwrap_or_default());
    let line: Vec<String> = fixed.into_iter().chain(answers).collect();
    csv.push_str(&line.join(","));
    csv.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::csv_cell;

    #[test]
    fn formula_cells_are_neutralized_and_quoted() {
        assert_eq!(csv_cell("ann@example.com"), "ann@example.com");
        assert_eq!(csv_cell("=cmd@example.com"), "'=cmd@example.com");
        assert_eq!(csv_cell("+1@example.com"), "'+1@example.com");
        assert_eq!(csv_cell("-x@example.com"), "'-x@example.com");
        assert_eq!(csv_cell("@x"), "'@x");
        assert_eq!(csv_cell("a,\"b\""), "\"a,\"\"b\"\"\"");
    }
}
