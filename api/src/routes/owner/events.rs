//! `GET /api/owner/programs/{id}/events?cursor=&limit=`: the program's audit history in
//! id order (the identity column, not a timestamp). Policy: the cursor is the opaque
//! base64url of the last id shown; events hold ids, states and reason codes only.

use super::entries::page_limit;
use super::guard;
use crate::db::{self, audit, locks::Strength};
use crate::error::{ApiError, Result};
use crate::identity::Session;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::Deserialize;
use shared::api::EventPage;
use shared::ErrorCode;
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/programs/{id}/events", web::get().to(list));
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct EventQuery {
    cursor: Option<String>,
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

fn encode_cursor(id: i64) -> String {
    URL_SAFE_NO_PAD.encode(id.to_be_bytes())
}

fn decode_cursor(s: &str) -> Option<i64> {
    let bytes: [u8; 8] = URL_SAFE_NO_PAD.decode(s).ok()?.try_into().ok()?;
    Some(i64::from_be_bytes(bytes)).filter(|id| *id >= 0)
}

#[utoipa::path(
    get,
    path = "/api/owner/programs/{id}/events",
    operation_id = "listEvents",
    tag = "owner",
    params(("id" = Uuid, Path, description = "The program id."), EventQuery),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Audit events in id order.", body = EventPage),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
    )
)]
async fn list(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<Uuid>,
    query: web::Query<EventQuery>,
) -> Result<HttpResponse> {
    let program_id = path.into_inner();
    let limit = page_limit(query.limit)?;
    let after = match &query.cursor {
        Some(c) => decode_cursor(c).ok_or(ApiError::BadRequest(ErrorCode::InvalidCursor))?,
        None => 0,
    };
    let rows = db::transaction(&state.pool, async |tx| {
        guard::program(tx, &session, program_id, Strength::Share).await?;
        audit::page(tx, program_id, after, limit + 1).await
    })
    .await?;
    let more = rows.len() as i64 > limit;
    let events: Vec<_> = rows.into_iter().take(limit as usize).collect();
    let next_cursor = if more { events.last().map(|e| encode_cursor(e.id)) } else { None };
    Ok(HttpResponse::Ok().json(EventPage { events: events.into_iter().map(Into::into).collect(), next_cursor }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_cursors_round_trip() {
        assert_eq!(decode_cursor(&encode_cursor(42)), Some(42));
        assert_eq!(decode_cursor("x"), None);
        assert_eq!(decode_cursor(&encode_cursor(-1)), None);
    }
}
