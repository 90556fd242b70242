//! Lottery draws (issues 16 and 29): `POST /api/owner/programs/{id}/draws` `{winners,
//! source?, flag?, closesAt?}` opens one on public randomness (a malformed filter is
//! refused by the body's own types: 400 `invalid_body`), `GET …/draws` lists them,
//! `GET …/draws/{drawId}` is the downloadable record, `POST …/draws/{drawId}/run` runs
//! it on its beacon round — `{"beacon": {"round", "signature"}}`, or no body (or `{}`)
//! for the configured relay — and `POST …/draws/{drawId}/cancel` `{reasonCode}` cancels
//! it before it runs. Everything a format 3 draw publishes is also public
//! (`routes/public/draws.rs`).

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::state::AppState;
use crate::usecases::draws::{self, Beacon, OpenDraw};
use actix_web::http::header;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use shared::draws::{AnyDrawRecord, CancelDrawRequest, RunDrawRequest};
use shared::trust::{DrawSummary, OpenDrawRequest, DRAW_MAX_WINNERS};
use shared::ErrorCode;
use uuid::Uuid;

#[utoipa::path(operation_id = "openDraw", request_body = OpenDrawRequest, responses(
    (status = 201, description = "Opened: the rule, the close and the beacon round, chained in the `draw_opened` event (closed at once when no `closesAt` is given).", body = AnyDrawRecord),
    (status = 400, description = "Winners out of bounds (`invalid_winners`), a malformed `source` or `flag` (`invalid_body`), or `closesAt` in the past or more than 90 days ahead (`invalid_closes_at`); nothing is written."),
    (status = 409, description = "A draw is open already (`draw_already_open`), or no waiting entry matches the filter for a draw closing at once (`draw_no_candidates`)."),
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
    let closes_at = match &body.closes_at {
        None => None,
        Some(text) => Some(
            chrono::DateTime::parse_from_rfc3339(text)
                .map_err(|_| ApiError::BadRequest(ErrorCode::InvalidClosesAt))?
                .to_utc(),
        ),
    };
    let input = OpenDraw { winners: body.winners, filter: body.filter(), closes_at };
    let record = draws::open(&state.pool, &state.settings.draws, &session.user_id, *id, &input).await?;
    Ok(HttpResponse::Created().json(record))
}

#[utoipa::path(operation_id = "listDraws", responses(
    (status = 200, description = "The program's draws, newest first.", body = Vec<DrawSummary>),
))]
#[get("/owner/programs/{id}/draws")]
async fn list(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    Ok(HttpResponse::Ok().json(draws::list(&state.pool, &session.user_id, *id).await?))
}

#[utoipa::path(operation_id = "getDrawRecord", responses(
    (status = 200, description = "The draw record, for `vestibule verify-draw FILE` (and, format 3, `tools/verify_draw.py FILE`).", body = AnyDrawRecord),
))]
#[get("/owner/programs/{id}/draws/{drawId}")]
async fn get(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    let (program_id, draw_id) = path.into_inner();
    Ok(HttpResponse::Ok().json(draws::get(&state.pool, &session.user_id, program_id, draw_id).await?))
}

#[utoipa::path(operation_id = "runDraw", request_body(content = RunDrawRequest, description = "Optional: without a body (or `{}`) the round is fetched from `DRAND_RELAY_URL`."), responses(
    (status = 200, description = "Run: the beacon's randomness taken and the winners still waiting selected (reason `lottery`).", body = AnyDrawRecord),
    (status = 400, description = "The pasted beacon is not the draw's round, not hex, or does not verify (`invalid_beacon`); nothing is written."),
    (status = 409, description = "Run already (`draw_already_run`), cancelled (`draw_cancelled`), entries not closed (`draw_not_closed`), the round not due yet (`beacon_not_due`), no relay answered with the round (`beacon_unavailable`), or the seats do not allow the winners (`draw_seats_insufficient`)."),
))]
#[post("/owner/programs/{id}/draws/{drawId}/run")]
async fn run(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse> {
    let (program_id, draw_id) = path.into_inner();
    let beacon = match optional_json::<RunDrawRequest>(&req, &body)?.and_then(|r| r.beacon) {
        None => Beacon::Relay,
        Some(b) => Beacon::Pasted { round: b.round, signature: hex::decode(b.signature.trim()).ok() },
    };
    let config = &state.settings.draws;
    Ok(HttpResponse::Ok().json(draws::run(&state.pool, config, &session.user_id, program_id, draw_id, beacon).await?))
}

#[utoipa::path(operation_id = "cancelDraw", request_body = CancelDrawRequest, responses(
    (status = 200, description = "Cancelled (audited, and public for a format 3 draw).", body = AnyDrawRecord),
    (status = 400, description = "Not a cancel reason (`invalid_reason_code`)."),
    (status = 409, description = "Run already (`draw_already_run`) or cancelled already (`draw_cancelled`)."),
))]
#[post("/owner/programs/{id}/draws/{drawId}/cancel")]
async fn cancel(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<CancelDrawRequest>,
) -> Result<HttpResponse> {
    let (program_id, draw_id) = path.into_inner();
    let record = draws::cancel(&state.pool, &session.user_id, program_id, draw_id, &body.reason_code).await?;
    Ok(HttpResponse::Ok().json(record))
}

/// A body that may be absent: empty is `None`; otherwise it must be JSON (415) of the
/// type (400), as `web::Json` would demand.
fn optional_json<T: serde::de::DeserializeOwned>(req: &HttpRequest, body: &[u8]) -> Result<Option<T>> {
    if body.is_empty() {
        return Ok(None);
    }
    let json = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<mime_guess::mime::Mime>().ok())
        .is_some_and(|m| m.type_() == "application" && m.subtype() == "json");
    if !json {
        return Err(ApiError::UnsupportedMediaType);
    }
    serde_json::from_slice(body).map(Some).map_err(|_| ApiError::BadRequest(ErrorCode::InvalidBody))
}
