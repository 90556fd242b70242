//! `POST /api/me/waitlist/{slug}/erase` and `GET /api/me/export` (issue 16): the signed-in
//! person erases their own entry (withdrawn if live, redacted at once, a receipt to
//! keep), takes a copy of everything Vestibule holds about them, and sees their tickets
//! in a program's lottery draws and whether they were drawn.

use crate::http::error::Result;
use crate::identity::VerifiedUser;
use crate::routes::views;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::erasure;
use crate::usecases::personal_data::{self, OwnTicket};
use actix_web::{get, post, web, HttpResponse};
use shared::trust::{
    ErasureReceipt, ExportedEntry, ExportedGrant, ExportedInvitation, OwnDrawTicket, PersonalDataExport,
};
use shared::Slug;

#[utoipa::path(operation_id = "eraseOwnEntry", responses(
    (status = 200, description = "Erased: the receipt.", body = ErasureReceipt),
    (status = 404, description = "No such program, or no entry for any of the caller's verified emails (an erased entry is no longer found by its email)."),
))]
#[post("/me/waitlist/{slug}/erase")]
async fn erase(state: web::Data<AppState>, user: VerifiedUser, slug: web::Path<Slug>) -> Result<HttpResponse> {
    let receipt = erasure::erase_own(&state.pool, &user, slug.as_str(), &state.settings.hmac_key).await?;
    Ok(HttpResponse::Ok().json(ErasureReceipt { receipt_id: receipt.id, erased_at: rfc3339(receipt.erased_at) }))
}

#[utoipa::path(operation_id = "exportOwnData", responses(
    (status = 200, description = "The caller's entries, the notice each was accepted under, choice times, states, invitations (no codes) and grants.", body = PersonalDataExport),
))]
#[get("/me/export")]
async fn export(state: web::Data<AppState>, user: VerifiedUser) -> Result<HttpResponse> {
    let data = personal_data::export(&state.pool, &user).await?;
    let entries = data
        .entries
        .iter()
        .map(|e| ExportedEntry {
            program_slug: e.program_slug.clone(),
            email: e.email.clone(),
            state: e.state,
            joined_at: rfc3339(e.joined_at),
            choice_at: rfc3339(e.permission_at),
            notice: views::notice(&e.notice),
            invitations: data
                .invitations
                .iter()
                .filter(|i| i.entry_id == e.id)
                .map(|i| ExportedInvitation {
                    state: i.state,
                    issued_at: rfc3339(i.issued_at),
                    expires_at: rfc3339(i.expires_at),
                    delivered_at: i.delivered_at.map(rfc3339),
                })
                .collect(),
            grants: data
                .grants
                .iter()
                .filter(|g| g.entry_id == e.id)
                .map(|g| ExportedGrant {
                    active: g.active,
                    granted_at: rfc3339(g.granted_at),
                    revoked_at: g.revoked_at.map(rfc3339),
                })
                .collect(),
            draws: data.tickets.iter().filter(|t| t.entry_id == e.id).map(own_ticket).collect(),
            answers: e.answers.clone(),
            verified_at_join: e.verified_at_join.map(rfc3339),
        })
        .collect();
    let emails = user.email_keys().into_iter().map(str::to_owned).collect();
    Ok(HttpResponse::Ok().json(PersonalDataExport { generated_at: rfc3339(data.at), emails, entries }))
}

fn own_ticket(t: &OwnTicket) -> OwnDrawTicket {
    OwnDrawTicket {
        draw_id: t.draw_id,
        ticket: hex::encode(&t.ticket),
        draw_state: t.state.as_str().to_owned(),
        drawn: t.drawn,
        excluded: t.excluded,
    }
}

#[utoipa::path(operation_id = "listOwnDrawTickets", responses(
    (status = 200, description = "The caller's tickets in the program's draws, and whether each was drawn.", body = Vec<OwnDrawTicket>),
    (status = 404, description = "No such program, or no entry for any of the caller's verified emails."),
))]
#[get("/me/waitlist/{slug}/draws")]
async fn draws(state: web::Data<AppState>, user: VerifiedUser, slug: web::Path<Slug>) -> Result<HttpResponse> {
    let tickets = personal_data::own_draws(&state.pool, &user, slug.as_str()).await?;
    Ok(HttpResponse::Ok().json(tickets.iter().map(own_ticket).collect::<Vec<_>>()))
}
