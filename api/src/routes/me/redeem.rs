//! `POST /api/me/invitations/redeem {code}`: a signed-in recipient turns a code into a
//! grant for that code's program. Policy: every failure — unknown, foreign, unverified,
//! used, revoked, expired, no delivery record — is the same 404, and failed attempts
//! are counted per account and per client address (in PostgreSQL, shared by every
//! instance) so codes cannot be guessed at volume. The identity provider is asked for
//! the user's verified emails before the transaction; the transaction takes the locks
//! workspace → program → entry → invitation → grant and decides on fresh reads.

use crate::crypto;
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::locks::{self, Strength};
use crate::db::rate_limits::{self, Scope};
use crate::db::{self, entries};
use crate::domain::EntryState;
use crate::error::{violated_constraint, ApiError, Result};
use crate::http::client_addr::client_addr;
use crate::identity::Session;
use crate::startup::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use shared::api::{RedeemRequest, RedeemResponse};
use shared::EmailKey;
use shared::ErrorCode;
use uuid::Uuid;

/// Failed attempts are counted in windows of this many seconds (SPEC §2: per 15 minutes).
const WINDOW_SECS: i32 = 15 * 60;
/// The per-address allowance is this many times the per-account one.
const ADDRESS_FACTOR: u32 = 5;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/me/invitations/redeem", web::post().to(redeem));
}

#[utoipa::path(
    post,
    path = "/api/me/invitations/redeem",
    operation_id = "redeemInvitation",
    tag = "recipient",
    request_body = RedeemRequest,
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The code opened the program: a grant is now active.", body = RedeemResponse),
        (status = 400, description = "The code is not 43 characters of unpadded base64url (`invalid_code`), or the body is malformed.", body = shared::ErrorBody),
        (status = 404, description = "Unknown, foreign, unverified, used, revoked or expired code, or no delivery record: one answer for all.", body = shared::ErrorBody),
        (status = 429, description = "Too many failed attempts for this account or address.", body = shared::ErrorBody, headers(("Retry-After" = u32, description = "Seconds to wait."))),
    )
)]
async fn redeem(
    state: web::Data<AppState>,
    req: HttpRequest,
    session: Session,
    body: web::Json<RedeemRequest>,
) -> Result<HttpResponse> {
    let digest = crypto::code_digest(&body.code).ok_or(ApiError::BadRequest(ErrorCode::InvalidCode))?;
    let limits = Limits::new(&state, &req, &session);
    limits.check(&state).await?;
    let emails = state.identity.backend.verified_emails(&session.user_id).await?;
    match redeem_in_db(&state.pool, &digest, &session.user_id, &emails).await {
        Ok(slug) => {
            crate::metrics::count("redemption", "redeemed");
            Ok(HttpResponse::Ok().json(RedeemResponse { program_slug: slug, state: EntryState::Active }))
        }
        Err(ApiError::NotFound) => {
            crate::metrics::count("redemption", "denied");
            limits.count_failure(&state).await?;
            Err(ApiError::NotFound)
        }
        Err(other) => Err(other),
    }
}

/// The rate-limit subjects of one attempt.
struct Limits {
    user: Vec<u8>,
    addr: Option<Vec<u8>>,
    per_user: u32,
}

impl Limits {
    fn new(state: &AppState, req: &HttpRequest, session: &Session) -> Self {
        let key = &state.settings.signup_binding_key;
        let addr = client_addr(req, &state.settings.trusted_proxies)
            .map(|ip| rate_limits::subject(key, Scope::RedeemAddr, &ip.to_string()));
        Limits {
            user: rate_limits::subject(key, Scope::RedeemUser, &session.user_id),
            addr,
            per_user: state.settings.redeem_failures_per_15min,
        }
    }

    /// 429 when the account or the address has used up its failed attempts.
    async fn check(&self, state: &AppState) -> Result<()> {
        if rate_limits::current(&state.pool, Scope::RedeemUser, &self.user, WINDOW_SECS).await? >= self.per_user {
            return Err(ApiError::TooManyRequests);
        }
        if let Some(addr) = &self.addr {
            let limit = self.per_user.saturating_mul(ADDRESS_FACTOR);
            if rate_limits::current(&state.pool, Scope::RedeemAddr, addr, WINDOW_SECS).await? >= limit {
                return Err(ApiError::TooManyRequests);
            }
        }
        Ok(())
    }

    async fn count_failure(&self, state: &AppState) -> Result<()> {
        rate_limits::hit(&state.pool, Scope::RedeemUser, &self.user, WINDOW_SECS, u32::MAX).await?;
        if let Some(addr) = &self.addr {
            rate_limits::hit(&state.pool, Scope::RedeemAddr, addr, WINDOW_SECS, u32::MAX).await?;
        }
        Ok(())
    }
}

/// Where a code points, read without locks only to know what to lock.
struct Route {
    invitation: Uuid,
    program: Uuid,
    entry: Uuid,
    workspace: Uuid,
}

async fn route(tx: &deadpool_postgres::Transaction<'_>, digest: &[u8]) -> Result<Route> {
    let stmt = tx
        .prepare_cached(
            "SELECT i.id, i.program_id, i.entry_id, p.workspace_id FROM invitations i \
             JOIN programs p ON p.id = i.program_id WHERE i.token_sha256 = $1",
        )
        .await?;
    let row = tx.query_opt(&stmt, &[&digest]).await?.ok_or(ApiError::NotFound)?;
    Ok(Route { invitation: row.get(0), program: row.get(1), entry: row.get(2), workspace: row.get(3) })
}

/// The transaction; `NotFound` for every reason the code does not open the program.
async fn redeem_in_db(
    pool: &deadpool_postgres::Pool,
    digest: &[u8],
    user_id: &str,
    emails: &[EmailKey],
) -> Result<String> {
    let emails: Vec<&str> = emails.iter().map(EmailKey::as_str).collect();
    db::transaction(pool, async |tx| {
        let r = route(tx, digest).await?;
        if locks::workspace(tx, r.workspace, Strength::KeyShare).await? != Some(true) {
            return Err(ApiError::NotFound);
        }
        let program = locks::program(tx, r.workspace, r.program, Strength::Update).await?.ok_or(ApiError::NotFound)?;
        if entries::lock(tx, program.id, r.entry).await? != Some(EntryState::Invited) {
            return Err(ApiError::NotFound);
        }
        let stmt = tx
            .prepare_cached(
                "SELECT i.state = 'issued' AND i.delivery_recorded_at IS NOT NULL AND i.token_sha256 = $2, \
                   i.expires_at, e.email_key = ANY($3) \
                 FROM invitations i JOIN entries e ON e.id = i.entry_id AND e.program_id = i.program_id \
                 WHERE i.id = $1 FOR UPDATE OF i",
            )
            .await?;
        let row = tx.query_opt(&stmt, &[&r.invitation, &digest, &emails]).await?.ok_or(ApiError::NotFound)?;
        let (usable, expires_at, email_matches): (bool, DateTime<Utc>, bool) = (row.get(0), row.get(1), row.get(2));
        let stmt = tx.prepare_cached("SELECT id FROM grants WHERE entry_id = $1 FOR UPDATE").await?;
        let existing_grant = tx.query_opt(&stmt, &[&r.entry]).await?;
        let now = locks::now(tx).await?;
        if !usable || now >= expires_at || !email_matches || existing_grant.is_some() {
            return Err(ApiError::NotFound);
        }
        let stmt =
            tx.prepare_cached("UPDATE invitations SET state = 'redeemed', terminal_at = $2 WHERE id = $1").await?;
        tx.execute(&stmt, &[&r.invitation, &now]).await?;
        let stmt = tx
            .prepare_cached(
                "INSERT INTO grants (program_id, entry_id, invitation_id, clerk_user_id, granted_at) \
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
            )
            .await?;
        let grant: Uuid = match tx.query_one(&stmt, &[&program.id, &r.entry, &r.invitation, &user_id, &now]).await {
            Ok(row) => row.get(0),
            // This account already holds a grant for this program (one per program).
            Err(e) if violated_constraint(&e) == Some("grants_program_user_key") => return Err(ApiError::NotFound),
            Err(e) => return Err(e.into()),
        };
        let stmt = tx.prepare_cached("UPDATE entries SET state = 'active', updated_at = $2 WHERE id = $1").await?;
        tx.execute(&stmt, &[&r.entry, &now]).await?;
        let details = [("invitationId", Detail::Id(r.invitation)), ("grantId", Detail::Id(grant))];
        audit::record(tx, program.id, Some(r.entry), Actor::Recipient, EventType::Redeemed, now, &details).await?;
        Ok(program.slug)
    })
    .await
}
