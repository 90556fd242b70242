//! The owner's queue: `GET /api/owner/programs/{id}/entries` (paged, filtered by state,
//! source, flag and live invitation), `POST …/entries/search` (the same, plus an email
//! fragment — in a body, because an email never goes into a URL, where proxies and
//! browsers keep it), and `GET …/entries/{entryId}` (one entry with its notice snapshot,
//! invitations, grant and history). The cursor is opaque and holds only a time and an id.

use crate::http::error::Result;
use crate::identity::Session;
use crate::routes::input::{page_limit, queue_query};
use crate::routes::views;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::history;
use crate::usecases::queue::{self, Filter};
use actix_web::{get, post, web, HttpResponse};
use shared::api::{EntryDetail, EntryPage, EntrySearch};
use uuid::Uuid;

queue_query! {
    /// The query string of the plain listing: no search text (see the module doc).
    struct PageQuery {
        state: Option<String>,
        cursor: Option<String>,
        #[param(minimum = 1, maximum = 100)]
        limit: Option<i64>,
    }
}

#[utoipa::path(operation_id = "listEntries", params(PageQuery), responses(
    (status = 200, description = "One page of the queue.", body = EntryPage),
))]
#[get("/owner/programs/{id}/entries")]
async fn list(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse> {
    page(&state, &session, *id, query.into_inner().into()).await
}

#[utoipa::path(operation_id = "searchEntries", request_body = EntrySearch, responses(
    (status = 200, description = "One page of the queue, filtered by the email fragment too.", body = EntryPage),
))]
#[post("/owner/programs/{id}/entries/search")]
async fn search(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<EntrySearch>,
) -> Result<HttpResponse> {
    page(&state, &session, *id, body.into_inner()).await
}

async fn page(state: &AppState, session: &Session, program_id: Uuid, query: EntrySearch) -> Result<HttpResponse> {
    let limit = page_limit(query.limit)?;
    let filter = Filter::try_from(&query)?;
    let (rows, next) = queue::page(&state.pool, &session.user_id, program_id, &filter, limit).await?;
    Ok(HttpResponse::Ok().json(EntryPage {
        entries: rows.into_iter().map(views::entry_summary).collect(),
        next_cursor: next.map(|c| c.encode()),
    }))
}

#[utoipa::path(operation_id = "getEntry", responses(
    (status = 200, description = "The entry, its notice snapshot, invitations (never a code), grant and events.", body = EntryDetail),
))]
#[get("/owner/programs/{id}/entries/{entryId}")]
async fn detail(state: web::Data<AppState>, session: Session, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse> {
    let (program_id, entry_id) = path.into_inner();
    let d = queue::detail(&state.pool, &session.user_id, program_id, entry_id).await?;
    // After the read's transaction: the lookups hold no lock.
    let names = history::owner_names(&state.identity.names, d.actors).await;
    let flags = d.entry.flags();
    Ok(HttpResponse::Ok().json(EntryDetail {
        id: d.entry.id,
        email: d.entry.email,
        state: d.entry.state,
        created_at: rfc3339(d.entry.created_at),
        permission_at: rfc3339(d.entry.permission_at),
        notice: views::notice(&d.notice),
        invitations: d.invitations.iter().map(views::invitation).collect(),
        grant: d.grant.as_ref().map(views::grant),
        events: d.events.into_iter().map(|e| views::event(e, &names)).collect(),
        flags,
        duplicate_of: d.entry.duplicate_of,
        source: d.entry.source_ref,
        answers: d.entry.answers,
        verified_at_join: d.entry.verified_at_join.map(rfc3339),
    }))
}
