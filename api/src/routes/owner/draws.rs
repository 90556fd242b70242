//! Lottery draws (issue 16): `POST /api/owner/programs/{id}/draws` `{winners, source?,
//! flag?}` opens one over the waiting entries matching the filter (a malformed filter is
//! refused by the body's own types: 400 `invalid_body`), `GET …/draws` lists them,
//! `GET …/draws/{drawId}` is the downloadable record (the seed only once run) and
//! `POST …/draws/{drawId}/run` runs it.

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::draws::{self, DrawView};
use actix_web::{get, post, web, HttpResponse};
use shared::trust::{DrawRecord, DrawSummary, OpenDrawRequest, DRAW_FORMAT, DRAW_FORMAT_V1, DRAW_MAX_WINNERS};
use shared::ErrorCode;
use uuid::Uuid;

fn state_of(has_run: bool) -> String {
    if has_run { "run" } else { "open" }.to_owned()
}

/// The record of a draw; the seed and the outcome only once it has run.
pub fn record((row, tickets): DrawView) -> DrawRecord {
    let has_run = row.run_at.is_some();
    let mut drawn: Vec<(i32, String)> =
        tickets.iter().filter_map(|t| t.drawn_rank.map(|r| (r, hex::encode(&t.ticket)))).collect();
    drawn.sort();
    DrawRecord {
        format: if row.committed_filter().is_some() { DRAW_FORMAT } else { DRAW_FORMAT_V1 }.to_owned(),
        draw_id: row.id,
        program_id: row.program_id,
        state: state_of(has_run),
        winners: row.winners,
        filter: row.committed_filter().cloned(),
        seed_commitment: hex::encode(&row.seed_commitment),
        tickets_hash: hex::encode(&row.tickets_hash),
        tickets: tickets.iter().map(|t| hex::encode(&t.ticket)).collect(),
        opened_at: rfc3339(row.opened_at),
        run_at: row.run_at.map(rfc3339),
        seed: has_run.then(|| hex::encode(&row.seed)),
        ineligible: tickets.iter().filter(|t| t.eligible == Some(false)).map(|t| hex::encode(&t.ticket)).collect(),
        drawn: drawn.into_iter().map(|(_, t)| t).collect(),
    }
}

#[utoipa::path(operation_id = "openDraw", request_body = OpenDrawRequest, responses(
    (status = 201, description = "Opened: the filter, the commitment and the frozen tickets (no seed).", body = DrawRecord),
    (status = 400, description = "Winners out of bounds (`invalid_winners`), or a malformed `source` or `flag` (`invalid_body`); nothing is written."),
    (status = 409, description = "A draw is open already (`draw_already_open`), or no waiting entry matches the filter (`draw_no_candidates`)."),
))]
#[post("/owner/programs/{id}/draws")]
async fn open(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<OpenDrawRequest>,
) -> Result<HttpResponse> {
    if !(1..=DRAW_MAX_WINNERS).contains(&body.winners) {
        return Err(ApiError::BadRequest(ErrorCode::InvalidWinners));
    }
    let view = draws::open(&state.pool, &session.user_id, *id, body.winners, body.filter()).await?;
    Ok(HttpResponse::Created().json(record(view)))
}

#[utoipa::path(operation_id = "listDraws", responses(
    (status = 200, description = "The program's draws, newest first.", body = Vec<DrawSummary>),
))]
#[get("/owner/programs/{id}/draws")]
async fn list(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let rows = draws::list(&state.pool, &session.user_id, *id).await?;
    let summaries: Vec<DrawSummary> = rows
        .into_iter()
        .map(|d| DrawSummary {
            id: d.id,
            state: state_of(d.run_at.is_some()),
            winners: d.winners,
            filter: d.filter,
            candidates: d.candidates,
            seed_commitment: hex::encode(&d.seed_commitment),
            tickets_hash: hex::encode(&d.tickets_hash),
            opened_at: rfc3339(d.opened_at),
            run_at: d.run_at.map(rfc3339),
        })
        .collect();
    Ok(HttpResponse::Ok().json(summaries))
}

#[utoipa::path(operation_id = "getDrawRecord", responses(
    (status = 200, description = "The draw record, for `vestibule verify-draw FILE`.", body = DrawRecord),
))]
#[get("/owner/programs/{id}/draws/{drawId}")]
async fn get(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    let (program_id, draw_id) = path.into_inner();
    let view = draws::get(&state.pool, &session.user_id, program_id, draw_id).await?;
    Ok(HttpResponse::Ok().json(record(view)))
}

#[utoipa::path(operation_id = "runDraw", responses(
    (status = 200, description = "Run: the seed revealed and the winners selected (reason `lottery`).", body = DrawRecord),
    (status = 409, description = "Run already (`draw_already_run`), or the seats do not allow the winners (`draw_seats_insufficient`)."),
))]
#[post("/owner/programs/{id}/draws/{drawId}/run")]
async fn run(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    let (program_id, draw_id) = path.into_inner();
    let view = draws::run(&state.pool, &session.user_id, program_id, draw_id).await?;
    Ok(HttpResponse::Ok().json(record(view)))
}
