//! `POST /api/me/invitations/redeem {code}`: a code of the right shape (else 400) is
//! redeemed by `usecases::redemption`; every failure is the same 404.

use crate::crypto;
use crate::http::client_addr::client_addr;
use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::state::AppState;
use crate::usecases::redemption;
use actix_web::{post, web, HttpRequest, HttpResponse};
use shared::api::{RedeemRequest, RedeemResponse};
use shared::{EntryState, ErrorCode};

#[utoipa::path(operation_id = "redeemInvitation", request_body = RedeemRequest, responses(
    (status = 200, description = "The code opened the program: a grant is now active.", body = RedeemResponse),
    (status = 400, description = "The code is not 43 characters of unpadded base64url (`invalid_code`), or the body is malformed."),
    (status = 404, description = "Unknown, foreign, unverified, used, revoked or expired code, or no delivery record: one answer for all."),
    (status = 429, description = "Too many failed attempts for this account or address.", headers(("Retry-After" = u32, description = "Seconds to wait."))),
))]
#[post("/me/invitations/redeem")]
async fn redeem(
    state: web::Data<AppState>,
    req: HttpRequest,
    session: Session,
    body: web::Json<RedeemRequest>,
) -> Result<HttpResponse> {
    let digest = crypto::code_digest(&body.code).ok_or(ApiError::BadRequest(ErrorCode::InvalidCode))?;
    let client = client_addr(&req, &state.settings.trusted_proxies);
    let program_slug = redemption::redeem(&state, &session, client, &digest).await?;
    Ok(HttpResponse::Ok().json(RedeemResponse { program_slug, state: EntryState::Active }))
}
