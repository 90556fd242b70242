//! Webhook endpoints of a workspace (`/api/owner/workspaces/{id}/webhooks…`,
//! `usecases::webhooks`). A signing secret leaves the server only in the answer to a
//! create or a rotation, built here after COMMIT.

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::outbox::webhook_message_id;
use crate::routes::input::{decode_cursor, encode_cursor, page_limit};
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::webhooks::{self, event_list, AttemptRow, DeliveryRow, EndpointRow, NewWebhook};
use actix_web::{delete, get, patch, post, web, HttpResponse};
use serde::Deserialize;
use shared::integrations::{
    CreateWebhookRequest, DeliveriesResponse, DeliveryAttempt, RecoverWebhookRequest, RecoverWebhookResponse,
    SignatureScheme, UpdateWebhookRequest, Webhook, WebhookDelivery, WebhookEventType, WebhookTestResponse,
    WebhookWithSecret,
};
use shared::ErrorCode;
use uuid::Uuid;

fn view(row: EndpointRow) -> Webhook {
    Webhook {
        id: row.id,
        url: row.url,
        events: row.event_types.iter().filter_map(|t| WebhookEventType::parse(t)).collect(),
        program_ids: row.program_ids,
        enabled: row.enabled,
        disabled_reason: row.disabled_reason,
        failing_since: row.failing_since.map(rfc3339),
        previous_secret_until: row.previous_secret_until.map(rfc3339),
        created_at: rfc3339(row.created_at),
        signature: SignatureScheme::parse(&row.signature_scheme).unwrap_or_default(),
        public_key: row.public_key.as_deref().map(crate::standard_webhooks::public_key_text),
    }
}

fn delivery_view(d: DeliveryRow, attempts: &[AttemptRow]) -> Option<WebhookDelivery> {
    Some(WebhookDelivery {
        id: d.id,
        message_id: webhook_message_id(d.event_id),
        event_type: WebhookEventType::parse(&d.event_type)?,
        state: d.state,
        created_at: rfc3339(d.created_at),
        next_attempt_at: d.next_attempt_at.map(rfc3339),
        attempts: attempts
            .iter()
            .filter(|a| a.delivery_id == d.id)
            .map(|a| DeliveryAttempt {
                at: rfc3339(a.at),
                status_code: a.status_code,
                outcome: a.outcome.clone(),
                latency_ms: a.latency_ms,
            })
            .collect(),
    })
}

#[utoipa::path(operation_id = "createWebhook", request_body = CreateWebhookRequest, responses(
    (status = 201, description = "Created: the only response that holds the signing secret.", body = WebhookWithSecret),
    (status = 400, description = "Malformed or refused URL (production: https to public addresses only), no events, or a program of another workspace."),
    (status = 409, description = "`webhook_limit`: the workspace has 20 endpoints already."),
))]
#[post("/owner/workspaces/{id}/webhooks")]
async fn create(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<CreateWebhookRequest>,
) -> Result<HttpResponse> {
    let body = body.into_inner();
    let allow_loopback = state.settings.integrations.allow_loopback;
    let scheme = body.signature.unwrap_or_default();
    let new = NewWebhook::parse(body.url, &body.events, body.program_ids, allow_loopback)?.signed_with(scheme);
    let (row, secret) = webhooks::create(&state.pool, &state.keyring, &session.user_id, *id, &new).await?;
    Ok(HttpResponse::Created().json(WebhookWithSecret { webhook: view(row), secret: secret.reveal() }))
}

#[utoipa::path(operation_id = "listWebhooks", responses(
    (status = 200, description = "The workspace's endpoints (never a secret).", body = Vec<Webhook>),
))]
#[get("/owner/workspaces/{id}/webhooks")]
async fn list(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let rows = webhooks::list(&state.pool, &session.user_id, *id).await?;
    Ok(HttpResponse::Ok().json(rows.into_iter().map(view).collect::<Vec<_>>()))
}

#[utoipa::path(operation_id = "updateWebhook", request_body = UpdateWebhookRequest, responses(
    (status = 200, description = "The endpoint as changed.", body = Webhook),
))]
#[patch("/owner/workspaces/{id}/webhooks/{webhookId}")]
async fn update(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<UpdateWebhookRequest>,
) -> Result<HttpResponse> {
    let events = body.events.as_deref().map(event_list).transpose()?;
    let row = webhooks::update(&state.pool, &session.user_id, path.into_inner(), events, body.enabled).await?;
    Ok(HttpResponse::Ok().json(view(row)))
}

#[utoipa::path(operation_id = "deleteWebhook", responses(
    (status = 204, description = "Deleted, with its delivery log."),
))]
#[delete("/owner/workspaces/{id}/webhooks/{webhookId}")]
async fn remove(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    webhooks::delete(&state.pool, &session.user_id, path.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[utoipa::path(operation_id = "rotateWebhookSecret", responses(
    (status = 200, description = "The new secret, shown once; the previous one signs too for 24 hours.", body = WebhookWithSecret),
))]
#[post("/owner/workspaces/{id}/webhooks/{webhookId}/rotate-secret")]
async fn rotate(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    let (row, secret) = webhooks::rotate(&state.pool, &state.keyring, &session.user_id, path.into_inner()).await?;
    Ok(HttpResponse::Ok().json(WebhookWithSecret { webhook: view(row), secret: secret.reveal() }))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct DeliveryQuery {
    cursor: Option<String>,
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

#[utoipa::path(operation_id = "listWebhookDeliveries", params(DeliveryQuery), responses(
    (status = 200, description = "Deliveries, newest first, each with every attempt (time, status, latency).", body = DeliveriesResponse),
))]
#[get("/owner/workspaces/{id}/webhooks/{webhookId}/deliveries")]
async fn deliveries(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    query: web::Query<DeliveryQuery>,
) -> Result<HttpResponse> {
    let limit = page_limit(query.limit)?;
    let before = match &query.cursor {
        Some(c) => decode_cursor(c).ok_or(ApiError::BadRequest(ErrorCode::InvalidCursor))?,
        None => i64::MAX,
    };
    let (rows, attempts) =
        webhooks::deliveries(&state.pool, &session.user_id, path.into_inner(), before, limit + 1).await?;
    let more = rows.len() as i64 > limit;
    let rows: Vec<DeliveryRow> = rows.into_iter().take(usize::try_from(limit).unwrap_or(0)).collect();
    let next_cursor = if more { rows.last().map(|d| encode_cursor(d.id)) } else { None };
    let deliveries = rows.into_iter().filter_map(|d| delivery_view(d, &attempts)).collect();
    Ok(HttpResponse::Ok().json(DeliveriesResponse { deliveries, next_cursor }))
}

#[utoipa::path(operation_id = "retryWebhookDelivery", responses(
    (status = 202, description = "The delivery is due now, with the same webhook-id."),
))]
#[post("/owner/workspaces/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/retry")]
async fn retry(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid, i64)>,
) -> Result<HttpResponse> {
    let (ws, id, delivery) = path.into_inner();
    webhooks::retry(&state.pool, &session.user_id, (ws, id), delivery).await?;
    Ok(HttpResponse::Accepted().json(serde_json::json!({})))
}

#[utoipa::path(operation_id = "testWebhook", responses(
    (status = 202, description = "A `webhook.test` message is queued for this endpoint only (`data`: `workspaceId`, `webhookId`), signed and retried like any other and listed in its delivery log.", body = WebhookTestResponse),
    (status = 409, description = "`webhook_disabled`: enable the endpoint first."),
))]
#[post("/owner/workspaces/{id}/webhooks/{webhookId}/test")]
async fn test(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    let sent = webhooks::send_test(&state.pool, &session.user_id, path.into_inner()).await?;
    Ok(HttpResponse::Accepted()
        .json(WebhookTestResponse { message_id: webhook_message_id(sent.event_id), delivery_id: sent.delivery_id }))
}

#[utoipa::path(operation_id = "recoverWebhook", request_body = RecoverWebhookRequest, responses(
    (status = 202, description = "Every event of the endpoint's subscription since `since` that it has not acknowledged — those that happened while it was disabled (`skipped` in its log), failed ones and pending ones — is due again now, each with its original `webhook-id`, in order.", body = RecoverWebhookResponse),
    (status = 400, description = "`invalid_since`: not an RFC 3339 time."),
    (status = 409, description = "`webhook_disabled`: enable the endpoint first."),
))]
#[post("/owner/workspaces/{id}/webhooks/{webhookId}/recover")]
async fn recover(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<RecoverWebhookRequest>,
) -> Result<HttpResponse> {
    let since = chrono::DateTime::parse_from_rfc3339(&body.since)
        .map_err(|_| ApiError::BadRequest(ErrorCode::InvalidSince))?
        .to_utc();
    let recovered = webhooks::recover(&state.pool, &session.user_id, path.into_inner(), since).await?;
    Ok(HttpResponse::Accepted()
        .json(RecoverWebhookResponse { recovered: i64::try_from(recovered).unwrap_or(i64::MAX) }))
}

pub fn configure(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create)
        .service(test)
        .service(recover)
        .service(list)
        .service(update)
        .service(remove)
        .service(rotate)
        .service(deliveries)
        .service(retry);
}
