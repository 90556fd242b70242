//! The owner's queue: `GET /api/owner/programs/{id}/entries` (paged, filtered by state),
//! `POST …/entries/search` (the same, plus an email fragment — in a body, because an
//! email never goes into a URL, where proxies and browsers keep it), and
//! `GET …/entries/{entryId}` (one entry with its notice snapshot, invitations, grant
//! and history). Policy: readers take the workspace and program `FOR SHARE` and check
//! ownership inside the transaction; an entry of another program is the uniform 404;
//! no code or digest is ever read, let alone shown.

use super::guard;
use crate::db::queue::{self, Cursor, Filter};
use crate::db::{self, audit, invitations, locks::Strength};
use crate::domain::EntryState;
use crate::error::{ApiError, Result};
use crate::identity::Session;
use crate::routes::ts;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use serde::Deserialize;
use shared::api::{EntryDetail, EntryPage, EntrySummary};
use shared::ErrorCode;
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/programs/{id}/entries", web::get().to(list))
        .route("/owner/programs/{id}/entries/search", web::post().to(search))
        .route("/owner/programs/{id}/entries/{entryId}", web::get().to(detail));
}

/// Page size bounds (SPEC §6.4: at most 100).
pub(super) const DEFAULT_LIMIT: i64 = 50;
pub(super) const MAX_LIMIT: i64 = 100;

/// `limit` when given must be 1–100.
pub(super) fn page_limit(limit: Option<i64>) -> Result<i64> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(_) => Err(ApiError::BadRequest(ErrorCode::InvalidLimit)),
    }
}

/// The query string of the plain listing: no search text (see the module policy).
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct PageQuery {
    state: Option<String>,
    cursor: Option<String>,
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
}

/// The body of a search: the listing's parameters plus the email fragment.
type ListQuery = shared::api::EntrySearch;

impl TryFrom<ListQuery> for Filter {
    type Error = ApiError;
    fn try_from(q: ListQuery) -> Result<Filter> {
        let state = q
            .state
            .map(|s| s.parse::<EntryState>().map_err(|_| ApiError::BadRequest(ErrorCode::InvalidState)))
            .transpose()?;
        let after =
            q.cursor.map(|c| Cursor::decode(&c).ok_or(ApiError::BadRequest(ErrorCode::InvalidCursor))).transpose()?;
        let email_fragment = match q.q {
            Some(f) if f.is_empty() || f.chars().count() > 254 || f.chars().any(char::is_control) => {
                return Err(ApiError::BadRequest(ErrorCode::InvalidSearch))
            }
            other => other,
        };
        Ok(Filter { state, email_fragment, after })
    }
}

#[utoipa::path(
    get,
    path = "/api/owner/programs/{id}/entries",
    operation_id = "listEntries",
    tag = "owner",
    params(("id" = Uuid, Path, description = "The program id."), PageQuery),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "One page of the queue.", body = EntryPage),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
    )
)]
async fn list(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<Uuid>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse> {
    let PageQuery { state: filter_state, cursor, limit } = query.into_inner();
    page(state, session, path.into_inner(), ListQuery { state: filter_state, cursor, limit, q: None }).await
}

#[utoipa::path(
    post,
    path = "/api/owner/programs/{id}/entries/search",
    operation_id = "searchEntries",
    tag = "owner",
    request_body = shared::api::EntrySearch,
    params(("id" = Uuid, Path, description = "The program id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "One page of the queue, filtered by the email fragment too.", body = EntryPage),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
    )
)]
async fn search(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<Uuid>,
    body: web::Json<ListQuery>,
) -> Result<HttpResponse> {
    page(state, session, path.into_inner(), body.into_inner()).await
}

async fn page(
    state: web::Data<AppState>,
    session: Session,
    program_id: Uuid,
    query: ListQuery,
) -> Result<HttpResponse> {
    let limit = page_limit(query.limit)?;
    let filter = Filter::try_from(query)?;
    let rows = db::transaction(&state.pool, async |tx| {
        guard::program(tx, &session, program_id, Strength::Share).await?;
        // One row more than asked tells whether another page follows.
        queue::page(tx, program_id, &filter, limit + 1).await
    })
    .await?;
    let more = rows.len() as i64 > limit;
    let entries: Vec<_> = rows.into_iter().take(limit as usize).collect();
    let next_cursor =
        more.then(|| entries.last().map(|e| Cursor { created_at: e.created_at, id: e.id }.encode())).flatten();
    let entries = entries
        .into_iter()
        .map(|e| EntrySummary {
            id: e.id,
            email: e.email,
            state: e.state,
            created_at: ts(e.created_at),
            notice_version: e.notice_version,
        })
        .collect();
    Ok(HttpResponse::Ok().json(EntryPage { entries, next_cursor }))
}

#[utoipa::path(
    get,
    path = "/api/owner/programs/{id}/entries/{entryId}",
    operation_id = "getEntry",
    tag = "owner",
    params(("id" = Uuid, Path, description = "The program id."), ("entryId" = Uuid, Path, description = "The entry id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The entry, its notice snapshot, invitations (never a code), grant and events.", body = EntryDetail),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
    )
)]
async fn detail(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let body = db::transaction(&state.pool, async |tx| {
        guard::program(tx, &session, program_id, Strength::Share).await?;
        let (entry, notice) = queue::one(tx, program_id, entry_id).await?.ok_or(ApiError::NotFound)?;
        let invitations = invitations::of_entry(tx, entry_id).await?;
        let grant = invitations::grant_of_entry(tx, entry_id).await?;
        let events = audit::of_entry(tx, program_id, entry_id).await?;
        Ok(EntryDetail {
            id: entry.id,
            email: entry.email,
            state: entry.state,
            created_at: ts(entry.created_at),
            permission_at: ts(entry.permission_at),
            notice,
            invitations: invitations.iter().map(Into::into).collect(),
            grant: grant.as_ref().map(Into::into),
            events: events.into_iter().map(Into::into).collect(),
        })
    })
    .await?;
    Ok(HttpResponse::Ok().json(body))
}
