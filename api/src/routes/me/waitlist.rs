//! `GET /api/me/waitlist/{slug}` and `POST /api/me/waitlist/{slug}/withdraw`: the
//! signed-in applicant's own entry in one program. Policy: the entry is found only
//! through an email the identity provider reports as verified right now (looked up by
//! the [`VerifiedUser`] extractor before any transaction); no match is the same 404 as
//! no program. Withdrawal is the shared transition in [`crate::db::entries::withdraw`]
//! under workspace `FOR KEY SHARE` → program `FOR UPDATE`, and repeating it answers the same.

use crate::db::audit::Actor;
use crate::db::locks::{self, Strength};
use crate::db::{self, entries, signups};
use crate::domain::EntryState;
use crate::error::{ApiError, Result};
use crate::identity::VerifiedUser;
use crate::routes::ts;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::{InvitationStatus, OwnWaitlistStatus, WithdrawResponse};
use shared::Slug;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/me/waitlist/{slug}", web::get().to(status))
        .route("/me/waitlist/{slug}/withdraw", web::post().to(withdraw));
}

#[utoipa::path(
    get,
    path = "/api/me/waitlist/{slug}",
    operation_id = "getOwnWaitlistStatus",
    tag = "recipient",
    params(("slug" = String, Path, description = "The program's public slug.", pattern = r"^[a-z0-9-]{3,60}$")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The caller's entry in the program.", body = OwnWaitlistStatus),
        (status = 404, description = "No such program, or no entry for any of the caller's verified emails.", body = shared::ErrorBody),
    )
)]
async fn status(state: web::Data<AppState>, user: VerifiedUser, path: web::Path<String>) -> Result<HttpResponse> {
    let slug = Slug::parse(&path.into_inner()).map_err(|_| ApiError::NotFound)?;
    let client = state.pool.get().await?;
    let own = signups::own_entries(&client, &user.email_strings(), Some(slug.as_str())).await?;
    let entry = own.into_iter().next().ok_or(ApiError::NotFound)?;
    Ok(HttpResponse::Ok().json(OwnWaitlistStatus {
        state: entry.state,
        joined_at: ts(entry.joined_at),
        notice_version: entry.notice_version,
        invitation: entry.invitation.map(|(state, expires_at)| InvitationStatus { state, expires_at: ts(expires_at) }),
        position: entry.position,
    }))
}

#[utoipa::path(
    post,
    path = "/api/me/waitlist/{slug}/withdraw",
    operation_id = "withdrawOwnEntry",
    tag = "recipient",
    params(("slug" = String, Path, description = "The program's public slug.", pattern = r"^[a-z0-9-]{3,60}$")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Withdrawn (repeating it answers the same).", body = WithdrawResponse),
        (status = 404, description = "No such program, or no entry for any of the caller's verified emails.", body = shared::ErrorBody),
        (status = 409, description = "The entry can no longer be withdrawn (`invalid_transition`).", body = shared::ErrorBody),
    )
)]
async fn withdraw(state: web::Data<AppState>, user: VerifiedUser, path: web::Path<String>) -> Result<HttpResponse> {
    let slug = Slug::parse(&path.into_inner()).map_err(|_| ApiError::NotFound)?;
    let emails = user.email_strings();
    let target = {
        let client = state.pool.get().await?;
        signups::locate(&client, slug.as_str()).await?.ok_or(ApiError::NotFound)?
    };
    db::transaction(&state.pool, async |tx| {
        if locks::workspace(tx, target.workspace_id, Strength::KeyShare).await? != Some(true) {
            return Err(ApiError::NotFound);
        }
        let program = locks::program(tx, target.workspace_id, target.program_id, Strength::Update)
            .await?
            .ok_or(ApiError::NotFound)?;
        let entry_id = signups::own_entry_id(tx, program.id, &emails).await?.ok_or(ApiError::NotFound)?;
        let now = locks::now(tx).await?;
        entries::withdraw(tx, &program, entry_id, Actor::Recipient, "applicant_request", now).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(WithdrawResponse { state: EntryState::Withdrawn }))
}
