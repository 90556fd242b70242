//! `GET /api/owner/programs/{id}/events?cursor=&limit=`: the program's audit history in
//! id order (the identity column, not a timestamp). The cursor is the opaque base64url
//! of the last id shown.

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::routes::input::page_limit;
use crate::routes::views;
use crate::state::AppState;
use crate::usecases::queue;
use actix_web::{get, web, HttpResponse};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::Deserialize;
use shared::api::EventPage;
use shared::ErrorCode;
use uuid::Uuid;

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

#[utoipa::path(operation_id = "listEvents", params(EventQuery), responses(
    (status = 200, description = "Audit events in id order.", body = EventPage),
))]
#[get("/owner/programs/{id}/events")]
async fn list(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    query: web::Query<EventQuery>,
) -> Result<HttpResponse> {
    let limit = page_limit(query.limit)?;
    let after = match &query.cursor {
        Some(c) => decode_cursor(c).ok_or(ApiError::BadRequest(ErrorCode::InvalidCursor))?,
        None => 0,
    };
    let (events, more) = queue::events(&state.pool, &session.user_id, *id, after, limit).await?;
    let next_cursor = if more { events.last().map(|e| encode_cursor(e.id)) } else { None };
    Ok(HttpResponse::Ok().json(EventPage { events: events.into_iter().map(views::event).collect(), next_cursor }))
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
