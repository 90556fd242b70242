//! `POST|GET /api/owner/programs`, `GET|PATCH /api/owner/programs/{id}` and
//! `GET /api/owner/programs/{id}/stats`. Policy: every owner check and decision happens
//! inside one transaction after the workspace lock (writers `FOR UPDATE`, readers
//! `FOR SHARE`); a PATCH applies only to the revision the owner saw, and each change
//! bumps the revision and records one `program_changed` event.

use super::guard;
use crate::db::audit::{self, Actor, Detail, EventType};
use crate::db::locks::{self, ProgramRow, Strength};
use crate::db::programs::{self, NewProgram, NoticeRow, Settings};
use crate::db::{self};
use crate::domain::EntryState;
use crate::error::{ApiError, Result};
use crate::identity::Session;
use crate::routes::ts;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use deadpool_postgres::GenericClient;
use shared::api::{
    CreateProgramRequest, IntakeHour, Notice, PatchProgramRequest, Program, ProgramCounts, ProgramListQuery,
    ProgramStats,
};
use shared::ErrorCode;
use shared::Slug;
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/owner/programs", web::post().to(create))
        .route("/owner/programs", web::get().to(list))
        .route("/owner/programs/{id}", web::get().to(read))
        .route("/owner/programs/{id}", web::patch().to(patch))
        .route("/owner/programs/{id}/stats", web::get().to(stats));
}

/// Caps are 1–100 000 (the schema's bounds); invitations last 1–30 days at most.
const MAX_CAP: i32 = 100_000;
const MAX_INVITE_DAYS: i32 = 30;

/// Free text of 1..=`max` characters that is not only whitespace; 400 otherwise.
pub(super) fn bounded_text(text: String, max: usize, code: ErrorCode) -> Result<String> {
    let len = text.chars().count();
    if len == 0 || len > max || text.trim().is_empty() {
        return Err(ApiError::BadRequest(code));
    }
    Ok(text)
}

fn cap(value: i32) -> Result<i32> {
    match value {
        1..=MAX_CAP => Ok(value),
        _ => Err(ApiError::BadRequest(ErrorCode::InvalidCap)),
    }
}

impl TryFrom<CreateProgramRequest> for NewProgram {
    type Error = ApiError;

    fn try_from(body: CreateProgramRequest) -> Result<Self> {
        if !(1..=MAX_INVITE_DAYS).contains(&body.max_invite_days) {
            return Err(ApiError::BadRequest(ErrorCode::InvalidMaxInviteDays));
        }
        Ok(NewProgram {
            workspace_id: body.workspace_id,
            slug: Slug::parse(&body.slug).map_err(|_| ApiError::BadRequest(ErrorCode::InvalidSlug))?,
            purpose: bounded_text(body.purpose, 1000, ErrorCode::InvalidPurpose)?,
            queue_cap: cap(body.queue_cap)?,
            hourly_cap: cap(body.hourly_cap)?,
            seat_cap: cap(body.seat_cap)?,
            max_invite_days: body.max_invite_days,
        })
    }
}

pub(super) fn notice_body(n: &NoticeRow) -> Notice {
    Notice {
        version: n.version,
        purpose: n.purpose.clone(),
        contact_text: n.contact_text.clone(),
        retention_text: n.retention_text.clone(),
        published_at: ts(n.published_at),
    }
}

/// The owner's view of a program: the row plus live counts, notice and content flag.
async fn view(client: &impl GenericClient, p: &ProgramRow) -> Result<Program> {
    let summary = programs::summary(client, p).await?;
    Ok(Program {
        id: p.id,
        workspace_id: p.workspace_id,
        slug: p.slug.clone(),
        purpose: p.purpose.clone(),
        signup_open: p.signup_open,
        access_enabled: p.access_enabled,
        queue_cap: p.queue_cap,
        hourly_cap: p.hourly_cap,
        seat_cap: p.seat_cap,
        max_invite_days: p.max_invite_days,
        revision: p.revision,
        counts: ProgramCounts { queue: i64::from(p.queue_count), hour: summary.hour, seats: summary.seats },
        notice: summary.notice.as_ref().map(notice_body),
        has_content: summary.has_content,
        created_at: ts(p.created_at),
    })
}

/// Creates a closed program without notice or content, under the workspace lock.
#[utoipa::path(
    post,
    path = "/api/owner/programs",
    operation_id = "createProgram",
    tag = "owner",
    request_body = CreateProgramRequest,
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 201, description = "The new program: closed, without notice or content.", body = Program),
        (status = 404, description = "No such workspace, or the caller does not own it.", body = shared::ErrorBody),
        (status = 409, description = "The slug is taken (`slug_taken`).", body = shared::ErrorBody),
    )
)]
async fn create(
    state: web::Data<AppState>,
    session: Session,
    body: web::Json<CreateProgramRequest>,
) -> Result<HttpResponse> {
    let new = NewProgram::try_from(body.into_inner())?;
    let program = db::transaction(&state.pool, async |tx| {
        let owner = guard::workspace(tx, &session, new.workspace_id, Strength::Update).await?;
        let now = locks::now(tx).await?;
        let program = programs::insert(tx, &new).await?;
        let details = [("created", Detail::Flag(true)), ("revision", Detail::Number(program.revision))];
        audit::record(tx, program.id, None, Actor::Owner(owner.staff_id), EventType::ProgramChanged, now, &details)
            .await?;
        view(tx, &program).await
    })
    .await?;
    Ok(HttpResponse::Created().json(program))
}

#[utoipa::path(
    get,
    path = "/api/owner/programs",
    operation_id = "listPrograms",
    tag = "owner",
    params(ProgramListQuery),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The workspace's programs.", body = Vec<Program>),
        (status = 404, description = "No such workspace, or the caller does not own it.", body = shared::ErrorBody),
    )
)]
async fn list(
    state: web::Data<AppState>,
    session: Session,
    query: web::Query<ProgramListQuery>,
) -> Result<HttpResponse> {
    let workspace_id = query.workspace_id;
    let body = db::transaction(&state.pool, async |tx| {
        guard::workspace(tx, &session, workspace_id, Strength::Share).await?;
        let mut out = Vec::new();
        for p in programs::in_workspace(tx, workspace_id).await? {
            out.push(view(tx, &p).await?);
        }
        Ok(out)
    })
    .await?;
    Ok(HttpResponse::Ok().json(body))
}

#[utoipa::path(
    get,
    path = "/api/owner/programs/{id}",
    operation_id = "getProgram",
    tag = "owner",
    params(("id" = Uuid, Path, description = "The program id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The program with its revision, caps, counts and current notice.", body = Program),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
    )
)]
async fn read(state: web::Data<AppState>, session: Session, path: web::Path<Uuid>) -> Result<HttpResponse> {
    let id = path.into_inner();
    let body = db::transaction(&state.pool, async |tx| {
        let (_, program) = guard::program(tx, &session, id, Strength::Share).await?;
        view(tx, &program).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(body))
}

/// Applies the owner's changes to the revision they saw. Opening signup needs a notice,
/// enabling access needs content, and the seat cap never drops below seats in use.
/// Lowering the queue or hour cap keeps every existing entry.
#[utoipa::path(
    patch,
    path = "/api/owner/programs/{id}",
    operation_id = "updateProgram",
    tag = "owner",
    request_body = PatchProgramRequest,
    params(("id" = Uuid, Path, description = "The program id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The program after the change.", body = Program),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
        (status = 409, description = "Stale revision, no notice to open with, no content to enable, or a seat cap below seats in use.", body = shared::ErrorBody),
    )
)]
async fn patch(
    state: web::Data<AppState>,
    session: Session,
    path: web::Path<Uuid>,
    body: web::Json<PatchProgramRequest>,
) -> Result<HttpResponse> {
    let id = path.into_inner();
    let req = body.into_inner();
    let caps = (req.queue_cap.map(cap).transpose()?, req.hourly_cap.map(cap).transpose()?);
    let seat_cap = req.seat_cap.map(cap).transpose()?;
    let body = db::transaction(&state.pool, async |tx| {
        let (owner, program) = guard::program(tx, &session, id, Strength::Update).await?;
        if program.revision != req.expected_revision {
            return Err(ApiError::Conflict(ErrorCode::StaleRevision));
        }
        let before = Settings::from(&program);
        let after = Settings {
            signup_open: req.signup_open.unwrap_or(before.signup_open),
            access_enabled: req.access_enabled.unwrap_or(before.access_enabled),
            queue_cap: caps.0.unwrap_or(before.queue_cap),
            hourly_cap: caps.1.unwrap_or(before.hourly_cap),
            seat_cap: seat_cap.unwrap_or(before.seat_cap),
        };
        if after == before {
            return view(tx, &program).await;
        }
        check_preconditions(tx, &program, &before, &after).await?;
        let now = locks::now(tx).await?;
        let updated = programs::update(tx, id, &after).await?;
        let details = changes(&before, &after, updated.revision);
        audit::record(tx, id, None, Actor::Owner(owner.staff_id), EventType::ProgramChanged, now, &details).await?;
        view(tx, &updated).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(body))
}

async fn check_preconditions(
    tx: &deadpool_postgres::Transaction<'_>,
    program: &ProgramRow,
    before: &Settings,
    after: &Settings,
) -> Result<()> {
    if after.signup_open && !before.signup_open && program.current_notice_id.is_none() {
        return Err(ApiError::Conflict(ErrorCode::NoticeRequired));
    }
    if after.access_enabled && !before.access_enabled && !programs::has_content(tx, program.id).await? {
        return Err(ApiError::Conflict(ErrorCode::ContentRequired));
    }
    if after.seat_cap < before.seat_cap && i64::from(after.seat_cap) < programs::seats_in_use(tx, program.id).await? {
        return Err(ApiError::Conflict(ErrorCode::SeatCapBelowUse));
    }
    Ok(())
}

/// The event details of a PATCH: each changed field's new value and the new revision.
fn changes(before: &Settings, after: &Settings, revision: i64) -> Vec<(&'static str, Detail)> {
    let mut details = Vec::new();
    if before.signup_open != after.signup_open {
        details.push(("signupOpen", Detail::Flag(after.signup_open)));
    }
    if before.access_enabled != after.access_enabled {
        details.push(("accessEnabled", Detail::Flag(after.access_enabled)));
    }
    for (name, old, new) in [
        ("queueCap", before.queue_cap, after.queue_cap),
        ("hourlyCap", before.hourly_cap, after.hourly_cap),
        ("seatCap", before.seat_cap, after.seat_cap),
    ] {
        if old != new {
            details.push((name, Detail::Number(i64::from(new))));
        }
    }
    details.push(("revision", Detail::Number(revision)));
    details
}

/// The dashboard's numbers. The owner check holds the workspace `FOR SHARE`; the counts
/// are read without the program lock, so a large queue never stalls admissions.
#[utoipa::path(
    get,
    path = "/api/owner/programs/{id}/stats",
    operation_id = "getProgramStats",
    tag = "owner",
    params(("id" = Uuid, Path, description = "The program id.")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Admissions per recent UTC hour and entries per state.", body = ProgramStats),
        (status = 404, description = "No such object, or the caller is not an owner of its workspace (one shape for all).", body = shared::ErrorBody),
    )
)]
async fn stats(state: web::Data<AppState>, session: Session, path: web::Path<Uuid>) -> Result<HttpResponse> {
    let id = path.into_inner();
    let body = db::transaction(&state.pool, async |tx| {
        let workspace_id = programs::workspace_of(tx, id).await?.ok_or(ApiError::NotFound)?;
        guard::workspace(tx, &session, workspace_id, Strength::Share).await?;
        let hours = programs::intake_hours(tx, id).await?;
        let mut states: std::collections::BTreeMap<EntryState, i64> = EntryState::ALL.iter().map(|s| (*s, 0)).collect();
        for (state, n) in programs::state_counts(tx, id).await? {
            states.insert(state.parse().expect("entries_state constraint"), n);
        }
        Ok(ProgramStats {
            intake_hours: hours.into_iter().map(|(at, n)| IntakeHour { bucket_start: ts(at), admitted: n }).collect(),
            states,
        })
    })
    .await?;
    Ok(HttpResponse::Ok().json(body))
}
