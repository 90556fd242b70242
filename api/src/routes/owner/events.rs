//! `GET /api/owner/programs/{id}/events?cursor=&limit=&order=&group=&actor=`: the
//! program's audit history by id (the identity column, not a timestamp), oldest first by
//! default or newest first with `order=desc`, optionally only one group of event types
//! and one kind of actor. An owner's event carries that owner's name, looked up after the
//! read. The cursor is the opaque base64url of the last id shown, tagged with the order
//! it pages in (a cursor of one order is refused in the other).

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::routes::input::page_limit;
use crate::routes::views;
use crate::state::AppState;
use crate::usecases::history::{self, EventFilter, Start};
use actix_web::{get, web, HttpResponse};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::Deserialize;
use shared::api::EventPage;
use shared::history::{EventActor, EventGroup, EventOrder};
use shared::ErrorCode;
use uuid::Uuid;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct EventQuery {
    cursor: Option<String>,
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
    /// `asc` (the default: oldest first) or `desc` (newest first).
    #[param(inline)]
    order: Option<EventOrder>,
    /// Only the events of this group of types.
    #[param(inline)]
    group: Option<EventGroup>,
    /// Only the events of this kind of actor (`applicant`: the recipient or the public form).
    #[param(inline)]
    actor: Option<EventActor>,
}

/// The first byte of a newest-first cursor; an oldest-first cursor is the bare 8 bytes.
const DESC_TAG: u8 = b'd';

fn encode_cursor(order: EventOrder, id: i64) -> String {
    match order {
        EventOrder::Asc => URL_SAFE_NO_PAD.encode(id.to_be_bytes()),
        EventOrder::Desc => {
            let mut bytes = vec![DESC_TAG];
            bytes.extend_from_slice(&id.to_be_bytes());
            URL_SAFE_NO_PAD.encode(bytes)
        }
    }
}

fn decode_cursor(order: EventOrder, s: &str) -> Option<i64> {
    let bytes = URL_SAFE_NO_PAD.decode(s).ok()?;
    let id_bytes = match (order, bytes.split_first()) {
        (EventOrder::Asc, _) => bytes.as_slice(),
        (EventOrder::Desc, Some((&DESC_TAG, rest))) => rest,
        (EventOrder::Desc, _) => return None,
    };
    let id: [u8; 8] = id_bytes.try_into().ok()?;
    Some(i64::from_be_bytes(id)).filter(|id| *id >= 0)
}

/// Where the page starts: after (oldest first) or before (newest first) the cursor's id.
fn start(order: EventOrder, cursor: Option<&str>) -> Result<Start> {
    let id =
        cursor.map(|c| decode_cursor(order, c).ok_or(ApiError::BadRequest(ErrorCode::InvalidCursor))).transpose()?;
    Ok(match order {
        EventOrder::Asc => Start::After(id.unwrap_or(0)),
        EventOrder::Desc => Start::Before(id),
    })
}

fn filter(group: Option<EventGroup>, actor: Option<EventActor>) -> EventFilter {
    EventFilter {
        types: group.map(|g| g.types().into_iter().map(|t| t.as_str()).collect()),
        actors: actor.map(|a| a.kinds().into_iter().map(|k| k.as_str()).collect()),
    }
}

#[utoipa::path(operation_id = "listEvents", params(EventQuery), responses(
    (status = 200, description = "Audit events by id, oldest first unless `order=desc`; an owner's event names that owner.", body = EventPage),
))]
#[get("/owner/programs/{id}/events")]
async fn list(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    query: web::Query<EventQuery>,
) -> Result<HttpResponse> {
    let limit = page_limit(query.limit)?;
    let order = query.order.unwrap_or_default();
    let from = start(order, query.cursor.as_deref())?;
    let filter = filter(query.group, query.actor);
    let (events, more, actors) = history::events(&state.pool, &session.user_id, *id, from, &filter, limit).await?;
    // After the read's transaction: the lookups hold no lock.
    let names = history::owner_names(&state.identity.names, actors).await;
    let next_cursor = if more { events.last().map(|e| encode_cursor(order, e.id)) } else { None };
    let events = events.into_iter().map(|e| views::event(e, &names)).collect();
    Ok(HttpResponse::Ok().json(EventPage { events, next_cursor }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_cursors_round_trip_in_their_own_order_only() {
        for order in [EventOrder::Asc, EventOrder::Desc] {
            assert_eq!(decode_cursor(order, &encode_cursor(order, 42)), Some(42));
            assert_eq!(decode_cursor(order, "x"), None);
            assert_eq!(decode_cursor(order, &encode_cursor(order, -1)), None);
        }
        assert_eq!(decode_cursor(EventOrder::Asc, &encode_cursor(EventOrder::Desc, 42)), None);
        assert_eq!(decode_cursor(EventOrder::Desc, &encode_cursor(EventOrder::Asc, 42)), None);
    }
}
