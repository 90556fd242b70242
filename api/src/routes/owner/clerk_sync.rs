//! `GET /api/owner/programs/{id}/clerk-sync/deliveries` and `POST
//! …/clerk-sync/deliveries/{deliveryId}/retry` (`usecases::clerk_sync`): the delivery log
//! of "on grant, in Clerk", one row per Backend API call, paged newest first like a
//! webhook's deliveries. A row names Vestibule's own ids and the call's result only.

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::routes::input::{decode_cursor, encode_cursor, page_limit};
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::clerk_sync::{self, CallRow};
use actix_web::{get, post, web, HttpResponse};
use serde::Deserialize;
use shared::clerk_sync::{ClerkCall, ClerkCallOutcome, ClerkSyncCallLog, ClerkSyncCallsResponse};
use shared::ErrorCode;
use uuid::Uuid;

fn view(row: CallRow) -> Option<ClerkSyncCallLog> {
    let succeeded = row.outcome == "succeeded";
    let open = row.latest && !succeeded && row.delivery_state != "delivered";
    let outcome = match (succeeded, open && row.delivery_state == "pending") {
        (true, _) => ClerkCallOutcome::Succeeded,
        (false, true) => ClerkCallOutcome::Pending,
        (false, false) => ClerkCallOutcome::Failed,
    };
    Some(ClerkSyncCallLog {
        id: row.id,
        delivery_id: row.delivery_id,
        call: ClerkCall::parse(&row.call)?,
        event_type: row.event_type,
        grant_id: row.grant_id,
        entry_id: row.entry_id,
        attempt: i32::try_from(row.attempt).unwrap_or(i32::MAX),
        outcome,
        status_code: row.status_code,
        error: (row.outcome == "connection").then(|| row.outcome.clone()),
        next_attempt_at: (outcome == ClerkCallOutcome::Pending).then(|| rfc3339(row.next_attempt_at)),
        can_retry: open,
        at: rfc3339(row.at),
    })
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct LogQuery {
    cursor: Option<String>,
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

#[utoipa::path(operation_id = "listClerkSyncDeliveries", params(LogQuery), responses(
    (status = 200, description = "Every Clerk Backend API call made for the program's grants, newest first: the call, the grant and entry it serves, the attempt, the outcome (with Clerk's status, or `connection` when no answer came; a failed call of a delivery still pending says when it is tried again) and the time. Never a Clerk user id, an email or a response body.", body = ClerkSyncCallsResponse),
))]
#[get("/owner/programs/{id}/clerk-sync/deliveries")]
async fn deliveries(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    query: web::Query<LogQuery>,
) -> Result<HttpResponse> {
    let limit = page_limit(query.limit)?;
    let before = match &query.cursor {
        Some(c) => decode_cursor(c).ok_or(ApiError::BadRequest(ErrorCode::InvalidCursor))?,
        None => i64::MAX,
    };
    let rows = clerk_sync::calls(&state.pool, &session.user_id, *id, before, limit + 1).await?;
    let more = rows.len() as i64 > limit;
    let rows: Vec<CallRow> = rows.into_iter().take(usize::try_from(limit).unwrap_or(0)).collect();
    let next_cursor = if more { rows.last().map(|c| encode_cursor(c.id)) } else { None };
    let calls = rows.into_iter().filter_map(view).collect();
    Ok(HttpResponse::Ok().json(ClerkSyncCallsResponse { calls, next_cursor }))
}

#[utoipa::path(operation_id = "retryClerkSyncDelivery", responses(
    (status = 202, description = "The delivery is due now: its calls are made again (each is idempotent)."),
))]
#[post("/owner/programs/{id}/clerk-sync/deliveries/{deliveryId}/retry")]
async fn retry(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, i64)>) -> Result<HttpResponse> {
    let (program, delivery) = path.into_inner();
    clerk_sync::retry(&state.pool, &session.user_id, program, delivery).await?;
    Ok(HttpResponse::Accepted().json(serde_json::json!({})))
}

pub fn configure(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(deliveries).service(retry);
}
