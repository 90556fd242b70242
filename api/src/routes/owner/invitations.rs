//! Invitations: `POST …/entries/{entryId}/invitations` (issue), `POST
//! …/programs/{id}/invitations/bulk`, `POST /api/owner/invitations/{id}/delivery-record`,
//! `POST …/programs/{id}/invitations/delivery-records` (a batch marked sent) and `POST /api/owner/invitations/{id}/revoke` (`usecases::invitations`). A code leaves
//! the server once: in the 201 built here after COMMIT (JSON, or the bulk CSV) — never
//! in a replay, a log line, an event or an error.

use super::export::{csv_cell, csv_response};
use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::routes::views;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::invitations::{self, Batch, Expiry, Issued};
use actix_web::{post, web, HttpResponse};
use chrono::{DateTime, Duration, DurationRound, Utc};
use shared::api::{
    BulkDeliveryRequest, BulkDeliveryResponse, BulkIssueReceipt, BulkIssueRequest, BulkIssuedInvitation,
    DeliveryRecordRequest, Invitation, IssueInvitationRequest, IssuedInvitation, BULK_ISSUE_MAX,
};
use shared::ErrorCode;
use uuid::Uuid;

/// `expiresAt` as RFC 3339, kept to the database's microseconds, with its exact text form
/// (which the request binding covers).
fn parse_expiry(s: &str) -> Result<Expiry> {
    let bad = || ApiError::BadRequest(ErrorCode::InvalidExpiry);
    let t = DateTime::parse_from_rfc3339(s).map_err(|_| bad())?.with_timezone(&Utc);
    let at = t.duration_trunc(Duration::microseconds(1)).map_err(|_| bad())?;
    Ok(Expiry { at, exact: rfc3339(at) })
}

#[utoipa::path(operation_id = "issueInvitation", request_body = IssueInvitationRequest, responses(
    (status = 201, description = "Issued: the only response that ever holds the code.", body = IssuedInvitation),
    (status = 200, description = "The same key and binding again: the invitation, without the code.", body = IssuedInvitation),
    (status = 409, description = "Key bound to other fields, entry not selected, expiry out of range, or no seat available."),
))]
#[post("/owner/programs/{id}/entries/{entryId}/invitations")]
async fn issue(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<IssueInvitationRequest>,
) -> Result<HttpResponse> {
    let expiry = parse_expiry(&body.expires_at)?;
    let key = &state.settings.hmac_key;
    let outcome =
        invitations::issue(&state.pool, key, &session.user_id, path.into_inner(), body.request_key, &expiry).await?;
    // Committed: only now may the code leave, and only in this response.
    Ok(match outcome {
        Issued::Created(inv, code) => HttpResponse::Created()
            .json(IssuedInvitation { invitation: views::invitation(&inv), code: Some(code.reveal()) }),
        Issued::Replayed(inv) => {
            HttpResponse::Ok().json(IssuedInvitation { invitation: views::invitation(&inv), code: None })
        }
    })
}

/// Distinct entry ids, sorted (the lock order), 1–`BULK_ISSUE_MAX` of them.
fn sorted_entry_ids(ids: &[Uuid]) -> Result<Vec<Uuid>> {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.is_empty() || sorted.len() != ids.len() || sorted.len() > BULK_ISSUE_MAX {
        return Err(ApiError::BadRequest(ErrorCode::InvalidEntryIds));
    }
    Ok(sorted)
}

/// Issues invitations to every listed entry or to none; the codes come back once, as CSV.
#[utoipa::path(operation_id = "issueInvitations", request_body = BulkIssueRequest, responses(
    (status = 201, description = "Issued to every listed entry: entry_id,email,code,expires_at as CSV, the only time the codes are shown.", content_type = "text/csv", body = String),
    (status = 200, description = "The same key and binding again: what the batch created, without codes.", body = BulkIssueReceipt),
    (status = 409, description = "Key bound to other fields, an entry not selected, expiry out of range, or not enough seats."),
))]
#[post("/owner/programs/{id}/invitations/bulk")]
async fn issue_bulk(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<BulkIssueRequest>,
) -> Result<HttpResponse> {
    let expiry = parse_expiry(&body.expires_at)?;
    let ids = sorted_entry_ids(&body.entry_ids)?;
    let key = &state.settings.hmac_key;
    let outcome =
        invitations::issue_batch(&state.pool, key, &session.user_id, *id, &ids, body.request_key, &expiry).await?;
    Ok(match outcome {
        Batch::Created(fresh) => {
            let mut csv = String::from("entry_id,email,code,expires_at\r\n");
            for f in fresh {
                let line =
                    [f.entry_id.to_string(), csv_cell(&f.email), f.code.reveal(), rfc3339(f.invitation.expires_at)];
                csv.push_str(&line.join(","));
                csv.push_str("\r\n");
            }
            csv_response(HttpResponse::Created(), "invitations.csv", csv)
        }
        Batch::Replayed(batch_id, pairs) => HttpResponse::Ok().json(BulkIssueReceipt {
            batch_id,
            invitations: pairs
                .iter()
                .map(|(entry_id, inv)| BulkIssuedInvitation { entry_id: *entry_id, invitation: views::invitation(inv) })
                .collect(),
        }),
    })
}

/// Free text of a delivery record: 1–`max` characters, no control characters, and
/// nothing that looks like a recipient address or a code (those never belong here).
fn attestation_text(s: &str, max: usize) -> Result<&str> {
    let n = s.chars().count();
    if n == 0 || n > max || s.trim().is_empty() || s.chars().any(char::is_control) {
        return Err(ApiError::BadRequest(ErrorCode::InvalidDeliveryRecord));
    }
    let has_address = shared::contains_address(s);
    let has_code = s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')).any(|run| run.len() >= 43);
    if has_address || has_code {
        return Err(ApiError::BadRequest(ErrorCode::DeliveryRecordNamesASecret));
    }
    Ok(s)
}

#[utoipa::path(operation_id = "recordDelivery", request_body = DeliveryRecordRequest, responses(
    (status = 200, description = "The invitation with its delivery record.", body = Invitation),
    (status = 409, description = "Already recorded, or the invitation is not issued or has expired."),
))]
#[post("/owner/invitations/{id}/delivery-record")]
async fn delivery_record(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<DeliveryRecordRequest>,
) -> Result<HttpResponse> {
    let channel = attestation_text(&body.channel, 80)?;
    let reference = body.reference.as_deref().map(|r| attestation_text(r, 160)).transpose()?;
    let key = &state.settings.hmac_key;
    let texts = (channel, reference);
    let invitation =
        invitations::record_delivery(&state.pool, key, &session.user_id, *id, body.request_key, texts).await?;
    Ok(HttpResponse::Ok().json(views::invitation(&invitation)))
}

/// After a bulk issue: the batch marked sent through one channel, in one audited step.
#[utoipa::path(operation_id = "recordDeliveries", request_body = BulkDeliveryRequest, responses(
    (status = 200, description = "Every listed entry's invitation is marked sent (those marked before are left as they were).", body = BulkDeliveryResponse),
    (status = 409, description = "An entry holds no issued, unexpired invitation (`invitation_not_issued`); nothing was marked."),
))]
#[post("/owner/programs/{id}/invitations/delivery-records")]
async fn delivery_records(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<BulkDeliveryRequest>,
) -> Result<HttpResponse> {
    let channel = attestation_text(&body.channel, 80)?;
    let reference = body.reference.as_deref().map(|r| attestation_text(r, 160)).transpose()?;
    let ids = sorted_entry_ids(&body.entry_ids)?;
    let done = invitations::record_deliveries(&state.pool, &session.user_id, *id, &ids, (channel, reference)).await?;
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    Ok(HttpResponse::Ok()
        .json(BulkDeliveryResponse { marked: count(done.marked), already_marked: count(done.already_marked) }))
}

/// Issued → revoked, and the entry back to `selected` (a reissue needs a new key).
#[utoipa::path(operation_id = "revokeInvitation", responses(
    (status = 200, description = "Revoked; the entry is selected again.", body = Invitation),
    (status = 409, description = "The invitation is not issued (`invalid_transition`)."),
))]
#[post("/owner/invitations/{id}/revoke")]
async fn revoke(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let invitation = invitations::revoke(&state.pool, &session.user_id, *id).await?;
    Ok(HttpResponse::Ok().json(views::invitation(&invitation)))
}
