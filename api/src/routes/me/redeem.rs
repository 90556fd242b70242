//! `POST /api/me/invitations/redeem {code, noticeVersion?, permission?}`: an invitation
//! code (43 characters of base64url) or a cohort code (16 of Crockford base32, any case,
//! dashes allowed) is redeemed by `usecases::redemption`; anything else is 400. Every
//! failure is the same 404. A usable cohort code answers 200 `notice_required` with the
//! program's current notice until the request carries that notice's version and
//! `permission: true`, with `answers` to its questions when it asks any (issue 31: a
//! cohort code skips the queue, not the questions the notice asks).

use crate::crypto;
use crate::http::client_addr::client_addr;
use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::routes::views;
use crate::state::AppState;
use crate::usecases::metering::Meter;
use crate::usecases::redemption::{self, Allowance, PresentedCode, Redeemed};
use actix_web::{post, web, HttpMessage, HttpRequest, HttpResponse};
use shared::api::{RedeemRequest, RedeemResponse};
use shared::cohort::{NoticeRequired, RedeemNoticeStep, RedeemReply};
use shared::{EntryState, ErrorCode};

/// The code's kind by its shape; a cohort code's acceptance counts only as the ticked
/// box with a version (`permission: false` is no acceptance).
fn presented(body: &RedeemRequest) -> Result<PresentedCode> {
    if let Some(digest) = crypto::code_digest(&body.code) {
        return Ok(PresentedCode::Invitation(digest));
    }
    let digest = crypto::cohort_code_digest(&body.code).ok_or(ApiError::BadRequest(ErrorCode::InvalidCode))?;
    let accepted = body.notice_version.filter(|_| body.permission == Some(true));
    let answers = body.answers.clone().unwrap_or_default();
    Ok(PresentedCode::Cohort { digest, accepted, answers })
}

#[utoipa::path(operation_id = "redeemInvitation", request_body = RedeemRequest, responses(
    (status = 200, description = "`state: active`: the code opened the program and a grant is now active. \
        `state: notice_required` (cohort codes only): nothing was written; accept the notice shown by sending \
        the code again with its `noticeVersion` and `permission: true`.", body = RedeemReply),
    (status = 400, description = "The code is neither an invitation code nor a cohort code (`invalid_code`), \
        an answer to the accepted notice's questions is missing, unknown or too long (`invalid_answer`, naming the question), \
        or the body is malformed."),
    (status = 404, description = "Unknown, foreign, unverified, used, revoked or expired code, no delivery record, \
        a cohort code used up or without a free seat, or the user already has an entry: one answer for all."),
    (status = 429, description = "Too many failed attempts for this account or address.", headers(("Retry-After" = u32, description = "Seconds to wait."))),
))]
#[post("/me/invitations/redeem")]
async fn redeem(
    state: web::Data<AppState>,
    req: HttpRequest,
    session: Session,
    body: web::Json<RedeemRequest>,
) -> Result<HttpResponse> {
    let code = presented(&body)?;
    let client = client_addr(&req, &state.settings.trusted_proxies);
    let meter = Meter::default();
    req.extensions_mut().insert(meter.clone());
    let allowance = Allowance {
        key: &state.settings.hmac_key,
        per_account: state.settings.redeem_failures_per_15min,
        meter: &meter,
    };
    let backend = &state.identity.backend;
    let pools = redemption::Pools { request: &state.pool, locking: &state.redemptions };
    let reply = match redemption::redeem(pools, backend, allowance, &session.user_id, client, &code).await? {
        Redeemed::Active(program_slug) => {
            RedeemReply::Redeemed(RedeemResponse { program_slug, state: EntryState::Active })
        }
        Redeemed::NoticeRequired { slug, notice } => RedeemReply::NoticeRequired(RedeemNoticeStep {
            program_slug: slug,
            state: NoticeRequired::NoticeRequired,
            notice: views::notice(&notice),
        }),
    };
    Ok(HttpResponse::Ok().json(reply))
}
