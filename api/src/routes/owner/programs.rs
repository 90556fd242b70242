//! `POST|GET /api/owner/programs`, `GET|PATCH /api/owner/programs/{id}` and
//! `GET /api/owner/programs/{id}/stats` (`usecases::programs`).

use crate::http::error::Result;
use crate::http::ApiError;
use crate::identity::Session;
use crate::routes::input::{bounded_lines, bounded_text};
use crate::routes::views;
use crate::state::AppState;
use crate::time::rfc3339;
use crate::usecases::programs::{self, ClerkSync, NewProgram, ProgramPatch};
use actix_web::{get, patch, post, web, HttpResponse};
use shared::api::{
    CreateProgramRequest, IntakeHour, IntakeSource, PatchProgramRequest, Program, ProgramListQuery, ProgramStats,
};
use shared::clerk_sync::{organization_id_ok, role_ok, ClerkSyncSetting};
use shared::text::Lines;
use shared::{ErrorCode, Slug};
use uuid::Uuid;

/// Caps are 1–100 000 (the schema's bounds); invitations last 1–30 days at most.
const MAX_CAP: i32 = 100_000;
const MAX_INVITE_DAYS: i32 = 30;

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
            purpose: bounded_lines(body.purpose, 1000, ErrorCode::InvalidPurpose)?,
            queue_cap: cap(body.queue_cap)?,
            hourly_cap: cap(body.hourly_cap)?,
            seat_cap: cap(body.seat_cap)?,
            max_invite_days: body.max_invite_days,
        })
    }
}

/// `""` removes the text; anything else is bounded plain text, of one line or of several.
fn optional_text(text: String, max: usize, lines: Lines, code: ErrorCode) -> Result<Option<String>> {
    match (text.is_empty(), lines) {
        (true, _) => Ok(None),
        (false, Lines::One) => bounded_text(text, max, code).map(Some),
        (false, Lines::Many) => bounded_lines(text, max, code).map(Some),
    }
}

/// The Clerk setting: an organization needs a non-admin `org:` role (an admin role is
/// refused), a role needs an organization; off is `None`.
fn clerk_setting(body: ClerkSyncSetting) -> Result<Option<ClerkSync>> {
    let bad = || ApiError::BadRequest(ErrorCode::InvalidClerkSync);
    let organization = match (body.organization_id, body.role) {
        (None, None) => None,
        (Some(org), Some(role)) if organization_id_ok(&org) && role_ok(&role) => Some((org, role)),
        _ => return Err(bad()),
    };
    Ok((body.public_metadata || organization.is_some())
        .then_some(ClerkSync { public_metadata: body.public_metadata, organization }))
}

impl ProgramPatch {
    /// The request body as bounded values; `http` embed origins are accepted only at
    /// loopback addresses and never in production (`allow_http_loopback`).
    fn from_request(body: PatchProgramRequest, allow_http_loopback: bool) -> Result<Self> {
        let embed_origins = body
            .embed_origins
            .map(|origins| {
                shared::edge::parse_embed_origins(&origins, allow_http_loopback)
                    .ok_or(ApiError::BadRequest(ErrorCode::InvalidEmbedOrigins))
            })
            .transpose()?;
        Ok(ProgramPatch {
            expected_revision: body.expected_revision,
            signup_open: body.signup_open,
            access_enabled: body.access_enabled,
            queue_cap: body.queue_cap.map(cap).transpose()?,
            hourly_cap: body.hourly_cap.map(cap).transpose()?,
            seat_cap: body.seat_cap.map(cap).transpose()?,
            clerk: body.clerk.map(clerk_setting).transpose()?,
            title: body.title.map(|t| optional_text(t, 80, Lines::One, ErrorCode::InvalidTitle)).transpose()?,
            description: body
                .description
                .map(|d| optional_text(d, 500, Lines::Many, ErrorCode::InvalidDescription))
                .transpose()?,
            proof_of_work: body.proof_of_work,
            embed_origins,
            join_with: body.join_with,
        })
    }
}

/// Creates a closed program without notice or content, under the workspace lock.
#[utoipa::path(operation_id = "createProgram", request_body = CreateProgramRequest, responses(
    (status = 201, description = "The new program: closed, without notice or content.", body = Program),
    (status = 404, description = "No such workspace, or the caller does not own it."),
    (status = 409, description = "The slug is taken (`slug_taken`)."),
))]
#[post("/owner/programs")]
async fn create(
    state: web::Data<AppState>,
    session: Session,
    body: web::Json<CreateProgramRequest>,
) -> Result<HttpResponse> {
    let new = NewProgram::try_from(body.into_inner())?;
    let program = programs::create(&state.pool, &session.user_id, &new).await?;
    Ok(HttpResponse::Created().json(views::program(&program)))
}

#[utoipa::path(operation_id = "listPrograms", params(ProgramListQuery), responses(
    (status = 200, description = "The workspace's programs.", body = Vec<Program>),
    (status = 404, description = "No such workspace, or the caller does not own it."),
))]
#[get("/owner/programs")]
async fn list(
    state: web::Data<AppState>,
    session: Session,
    query: web::Query<ProgramListQuery>,
) -> Result<HttpResponse> {
    let all = programs::list(&state.pool, &session.user_id, query.workspace_id).await?;
    Ok(HttpResponse::Ok().json(all.iter().map(views::program).collect::<Vec<_>>()))
}

#[utoipa::path(operation_id = "getProgram", responses(
    (status = 200, description = "The program with its revision, caps, counts and current notice.", body = Program),
))]
#[get("/owner/programs/{id}")]
async fn read(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let program = programs::get(&state.pool, &session.user_id, *id).await?;
    Ok(HttpResponse::Ok().json(views::program(&program)))
}

/// Applies the owner's changes to the revision they saw. Opening signup needs a notice,
/// enabling access needs content, and the seat cap never drops below seats in use.
/// Lowering the queue or hour cap keeps every existing entry.
#[utoipa::path(operation_id = "updateProgram", request_body = PatchProgramRequest, responses(
    (status = 200, description = "The program after the change.", body = Program),
    (status = 400, description = "A value out of bounds (`invalid_cap`, `invalid_title`, `invalid_description`, `invalid_embed_origins`, …), or a Clerk setting naming an organization the caller is not an `org:admin` member of in Clerk, or a role outside `CLERK_SYNC_ROLES` (`invalid_clerk_sync`)."),
    (status = 409, description = "Stale revision, no notice to open with, no content to enable, or a seat cap below seats in use."),
    (status = 503, description = "Clerk could not be asked about the organization (`identity_unavailable`)."),
))]
#[patch("/owner/programs/{id}")]
async fn patch(
    state: web::Data<AppState>,
    session: Session,
    id: web::Path<Uuid>,
    body: web::Json<PatchProgramRequest>,
) -> Result<HttpResponse> {
    let loopback = state.settings.app_env != crate::config::AppEnv::Production;
    let change = ProgramPatch::from_request(body.into_inner(), loopback)?;
    let clerk = programs::ClerkOrgCheck {
        backend: &state.identity.backend,
        allowed_roles: &state.settings.integrations.clerk_sync_roles,
    };
    let program = programs::patch(&state.pool, &session.user_id, *id, change, clerk).await?;
    Ok(HttpResponse::Ok().json(views::program(&program)))
}

/// The dashboard's numbers (read without the program lock, so a large queue never
/// stalls admissions).
#[utoipa::path(operation_id = "getProgramStats", responses(
    (status = 200, description = "Admissions per recent UTC hour and entries per state.", body = ProgramStats),
))]
#[get("/owner/programs/{id}/stats")]
async fn stats(state: web::Data<AppState>, session: Session, id: web::Path<Uuid>) -> Result<HttpResponse> {
    let stats = programs::stats(&state.pool, &session.user_id, *id).await?;
    Ok(HttpResponse::Ok().json(ProgramStats {
        intake_hours: stats
            .intake_hours
            .into_iter()
            .map(|(at, admitted)| IntakeHour { bucket_start: rfc3339(at), admitted })
            .collect(),
        states: stats.states,
        intake_sources: stats
            .intake_sources
            .into_iter()
            .map(|(source, hours)| IntakeSource {
                source,
                hours: hours
                    .into_iter()
                    .map(|(at, admitted)| IntakeHour { bucket_start: rfc3339(at), admitted })
                    .collect(),
            })
            .collect(),
    }))
}
