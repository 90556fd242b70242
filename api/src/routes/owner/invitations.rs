//! Invitations: `POST …/entries/{entryId}/invitations` (issue), `POST
//! /api/owner/invitations/{id}/delivery-record`, `POST /api/owner/invitations/{id}/revoke`
//! and `POST …/programs/{id}/invitations/bulk`. Policy: locks workspace → program →
//! entry → invitation, then the request key is looked up before any state, seat or
//! expiry check (same binding replays metadata, another is 409), then the database
//! clock decides. A code leaves the server once: in the 201 built after COMMIT (JSON,
//! or the bulk CSV) — never in a replay, a log line, an event or an error.

use super::export::{csv_cell, csv_response};
use super::guard;
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::invitations::{self, FreshCode, InvitationRow};
use crate::db::owner_receipts::{self, Keyed, Receipt};
use crate::db::{self, entries, locks, locks::Strength, queue};
use crate::domain::{EntryState, InvitationState};
use crate::error::{ApiError, Result};
use crate::identity::Session;
use crate::routes::ts;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use chrono::{DateTime, Duration, DurationRound, Utc};
use shared::api::{
    BulkIssueReceipt, BulkIssueRequest, BulkIssuedInvitation, DeliveryRecordRequest, Invitation,
    IssueInvitationRequest, IssuedInvitation, BULK_ISSUE_MAX,
};
use shared::EmailKey;
use shared::ErrorCode;
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/programs/{id}/entries/{entryId}/invitations", web::post().to(issue))
        .route("/owner/programs/{id}/invitations/bulk", web::post().to(issue_bulk))
        .route("/owner/invitations/{id}/delivery-record", web::post().to(delivery_record))
        .route("/owner/invitations/{id}/revoke", web::post().to(revoke));
}

/// `expiresAt` as RFC 3339, kept to the database's microseconds; also its exact text
/// form, which the request binding covers.
fn parse_expiry(s: &str) -> Result<(DateTime<Utc>, String)> {
    let bad = || ApiError::BadRequest(ErrorCode::InvalidExpiry);
    let t = DateTime::parse_from_rfc3339(s).map_err(|_| bad())?.with_timezone(&Utc);
    let t = t.duration_trunc(Duration::microseconds(1)).map_err(|_| bad())?;
    Ok((t, ts(t)))
}

/// In the future by the database clock and at most `maxInviteDays` ahead.
fn check_expiry(expires_at: DateTime<Utc>, now: DateTime<Utc>, max_days: i32) -> Result<()> {
    if expires_at <= now || expires_at > now + Duration::days(i64::from(max_days)) {
        return Err(ApiError::Conflict(ErrorCode::ExpiryOutOfRange));
    }
    Ok(())
}

fn receipt_target_missing() -> ApiError {
    ApiError::Internal(anyhow::anyhow!("owner action receipt points at a missing row"))
}

enum Issued {
    Created(InvitationRow, FreshCode),
    Replayed(InvitationRow),
}

#[utoipa::path(
    post,
    path = "/api/owner/programs/{id}/entries/{entryId}/invitations",
    operation_id = "issueInvitation",
    tag = "owner",
    request_body = IssueInvitationRequest,
    params(("id" = Uuid, Path, description = "The program id."), ("entryId" = Uuid, Path, description = "The entry id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 201, description = "Issued: the only response that ever holds the code.", body = IssuedInvitation),
        (status = 200, description = "The same key and binding again: the invitation, without the code.", body = IssuedInvitation),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "Key bound to other fields, entry not selected, expiry out of range, or no seat available.", body = shared::ErrorBody),
    )
)]
async fn issue(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<(Uuid, Uuid)>,
    body: web::Json<IssueInvitationRequest>,
) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let (expires_at, exact) = parse_expiry(&body.expires_at)?;
    let keyed = Keyed::issue(&state.settings.signup_binding_key, body.request_key, program_id, entry_id, &exact);
    let outcome = db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let entry = entries::lock(tx, program.id, entry_id).await?.ok_or(ApiError::NotFound)?;
        let live = invitations::lock_issued(tx, entry_id).await?;
        if let Receipt::Replay { target_id } = keyed.check(tx, program.id).await? {
            let invitation = invitations::get(tx, program.id, target_id).await?;
            return Ok(Issued::Replayed(invitation.ok_or_else(receipt_target_missing)?));
        }
        let now = locks::now(tx).await?;
        let actor = Actor::Owner(owner.staff_id);
        invitations::prepare_entry(tx, program.id, entry_id, entry, live.as_ref(), actor, now).await?;
        check_expiry(expires_at, now, program.max_invite_days)?;
        if invitations::seats_in_use(tx, program.id, now).await? >= i64::from(program.seat_cap) {
            return Err(ApiError::Conflict(ErrorCode::NoSeatAvailable));
        }
        let (invitation, code) = invitations::issue(tx, program.id, entry_id, expires_at, actor, now).await?;
        keyed.record(tx, program.id, invitation.id, now).await?;
        Ok(Issued::Created(invitation, code))
    })
    .await?;
    // Committed: only now may the code leave, and only in this response.
    Ok(match outcome {
        Issued::Created(inv, code) => HttpResponse::Created()
            .json(IssuedInvitation { invitation: Invitation::from(&inv), code: Some(code.reveal()) }),
        Issued::Replayed(inv) => {
            HttpResponse::Ok().json(IssuedInvitation { invitation: Invitation::from(&inv), code: None })
        }
    })
}

/// Free text of a delivery record: 1–`max` characters, no control characters, and
/// nothing that looks like a recipient address or a code (those never belong here).
fn attestation_text(s: &str, max: usize) -> Result<&str> {
    let n = s.chars().count();
    if n == 0 || n > max || s.trim().is_empty() || s.chars().any(char::is_control) {
        return Err(ApiError::BadRequest(ErrorCode::InvalidDeliveryRecord));
    }
    let punctuation: &[char] = &['<', '>', '(', ')', '[', ']', ',', ';', ':', '"', '\''];
    let has_address =
        s.split_whitespace().any(|w| w.contains('@') && EmailKey::parse(w.trim_matches(punctuation)).is_ok());
    let has_code = s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')).any(|run| run.len() >= 43);
    if has_address || has_code {
        return Err(ApiError::BadRequest(ErrorCode::DeliveryRecordNamesASecret));
    }
    Ok(s)
}

#[utoipa::path(
    post,
    path = "/api/owner/invitations/{id}/delivery-record",
    operation_id = "recordDelivery",
    tag = "owner",
    request_body = DeliveryRecordRequest,
    params(("id" = Uuid, Path, description = "The invitation id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The invitation with its delivery record.", body = Invitation),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "Already recorded, or the invitation is not issued or has expired.", body = shared::ErrorBody),
    )
)]
async fn delivery_record(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<Uuid>,
    body: web::Json<DeliveryRecordRequest>,
) -> Result<HttpResponse> {
    let id = path.into_inner();
    let channel = attestation_text(&body.channel, 80)?;
    let reference = body.reference.as_deref().map(|r| attestation_text(r, 160)).transpose()?;
    let key = &state.settings.signup_binding_key;
    let invitation = db::transaction(&state.pool, async |tx| {
        let (program_id, entry_id) = invitations::route(tx, id).await?.ok_or(ApiError::NotFound)?;
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        entries::lock(tx, program.id, entry_id).await?.ok_or(ApiError::NotFound)?;
        let invitation = invitations::lock(tx, program.id, id).await?.ok_or(ApiError::NotFound)?;
        let keyed = Keyed::delivery(key, body.request_key, program.id, id, channel, reference);
        if let Receipt::Replay { .. } = keyed.check(tx, program.id).await? {
            return Ok(invitation);
        }
        let now = locks::now(tx).await?;
        if invitation.state != InvitationState::Issued || invitation.expires_at <= now {
            return Err(ApiError::Conflict(ErrorCode::InvitationNotIssued));
        }
        if invitation.delivery_recorded_at.is_some() {
            return Err(ApiError::Conflict(ErrorCode::DeliveryAlreadyRecorded));
        }
        let invitation = invitations::record_delivery(tx, id, channel, reference, now).await?;
        keyed.record(tx, program.id, id, now).await?;
        let details = [("invitationId", Detail::Id(id))];
        let actor = Actor::Owner(owner.staff_id);
        audit::record(tx, program.id, Some(entry_id), actor, EventType::DeliveryRecorded, now, &details).await?;
        Ok(invitation)
    })
    .await?;
    Ok(HttpResponse::Ok().json(Invitation::from(&invitation)))
}

/// Issued → revoked, and the entry back to `selected` (a reissue needs a new key).
#[utoipa::path(
    post,
    path = "/api/owner/invitations/{id}/revoke",
    operation_id = "revokeInvitation",
    tag = "owner",
    params(("id" = Uuid, Path, description = "The invitation id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Revoked; the entry is selected again.", body = Invitation),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "The invitation is not issued (`invalid_transition`).", body = shared::ErrorBody),
    )
)]
async fn revoke(state: web::Data<AppState>, session: Session, path: web::Path<Uuid>) -> Result<HttpResponse> {
    let id = path.into_inner();
    let invitation = db::transaction(&state.pool, async |tx| {
        let (program_id, entry_id) = invitations::route(tx, id).await?.ok_or(ApiError::NotFound)?;
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let entry = entries::lock(tx, program.id, entry_id).await?.ok_or(ApiError::NotFound)?;
        let invitation = invitations::lock(tx, program.id, id).await?.ok_or(ApiError::NotFound)?;
        let now = locks::now(tx).await?;
        let revoked = invitations::finish(tx, &invitation, InvitationState::Revoked, now).await?;
        queue::set_state(tx, entry_id, entry, EntryState::Selected, now).await?;
        let details = [("invitationId", Detail::Id(id))];
        let actor = Actor::Owner(owner.staff_id);
        audit::record(tx, program.id, Some(entry_id), actor, EventType::InviteRevoked, now, &details).await?;
        Ok(revoked)
    })
    .await?;
    Ok(HttpResponse::Ok().json(Invitation::from(&invitation)))
}

/// One fresh invitation of a bulk issue, with what the owner's CSV needs.
struct BulkRow {
    entry_id: Uuid,
    email: String,
    invitation: InvitationRow,
    code: FreshCode,
}

enum Bulk {
    Created(Vec<BulkRow>),
    Replayed(BulkIssueReceipt),
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
#[utoipa::path(
    post,
    path = "/api/owner/programs/{id}/invitations/bulk",
    operation_id = "issueInvitations",
    tag = "owner",
    request_body = BulkIssueRequest,
    params(("id" = Uuid, Path, description = "The program id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 201, description = "Issued to every listed entry: entry_id,email,code,expires_at as CSV, the only time the codes are shown.", content_type = "text/csv", body = String),
        (status = 200, description = "The same key and binding again: what the batch created, without codes.", body = BulkIssueReceipt),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "Key bound to other fields, an entry not selected, expiry out of range, or not enough seats.", body = shared::ErrorBody),
    )
)]
async fn issue_bulk(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<Uuid>,
    body: web::Json<BulkIssueRequest>,
) -> Result<HttpResponse> {
    let program_id = path.into_inner();
    let (expires_at, exact) = parse_expiry(&body.expires_at)?;
    let ids = sorted_entry_ids(&body.entry_ids)?;
    let keyed = Keyed::bulk(&state.settings.signup_binding_key, body.request_key, program_id, &ids, &exact);
    let outcome = db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, program_id, Strength::Update).await?;
        let locked = queue::lock_many(tx, program.id, &ids).await?.ok_or(ApiError::NotFound)?;
        let mut live = Vec::with_capacity(ids.len());
        for id in &ids {
            live.push(invitations::lock_issued(tx, *id).await?);
        }
        if let Receipt::Replay { target_id } = keyed.check(tx, program.id).await? {
            return Ok(Bulk::Replayed(replay_batch(tx, program.id, target_id).await?));
        }
        let now = locks::now(tx).await?;
        let actor = Actor::Owner(owner.staff_id);
        for ((id, entry, _), live) in locked.iter().zip(&live) {
            invitations::prepare_entry(tx, program.id, *id, *entry, live.as_ref(), actor, now).await?;
        }
        check_expiry(expires_at, now, program.max_invite_days)?;
        let in_use = invitations::seats_in_use(tx, program.id, now).await?;
        if in_use + ids.len() as i64 > i64::from(program.seat_cap) {
            return Err(ApiError::Conflict(ErrorCode::NoSeatAvailable));
        }
        let mut rows = Vec::with_capacity(ids.len());
        for (entry_id, _, email) in locked {
            let (invitation, code) = invitations::issue(tx, program.id, entry_id, expires_at, actor, now).await?;
            rows.push(BulkRow { entry_id, email, invitation, code });
        }
        let items: Vec<_> = rows.iter().map(|r| (r.entry_id, r.invitation.id)).collect();
        let batch_id = owner_receipts::insert_batch(tx, program.id, &items, now).await?;
        keyed.record(tx, program.id, batch_id, now).await?;
        Ok(Bulk::Created(rows))
    })
    .await?;
    Ok(match outcome {
        Bulk::Created(rows) => {
            let mut csv = String::from("entry_id,email,code,expires_at\r\n");
            for r in rows {
                let line = [r.entry_id.to_string(), csv_cell(&r.email), r.code.reveal(), ts(r.invitation.expires_at)];
                csv.push_str(&line.join(","));
                csv.push_str("\r\n");
            }
            csv_response(HttpResponse::Created(), "invitations.csv", csv)
        }
        Bulk::Replayed(receipt) => HttpResponse::Ok().json(receipt),
    })
}

/// What a committed batch created, as metadata.
async fn replay_batch(
    tx: &deadpool_postgres::Transaction<'_>,
    program_id: Uuid,
    batch_id: Uuid,
) -> Result<BulkIssueReceipt> {
    let mut invitations_out = Vec::new();
    for (entry_id, invitation_id) in owner_receipts::batch_items(tx, program_id, batch_id).await? {
        let invitation = invitations::get(tx, program_id, invitation_id).await?.ok_or_else(receipt_target_missing)?;
        invitations_out.push(BulkIssuedInvitation { entry_id, invitation: Invitation::from(&invitation) });
    }
    Ok(BulkIssueReceipt { batch_id, invitations: invitations_out })
}
