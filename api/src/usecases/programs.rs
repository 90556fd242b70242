//! Programs as owners manage them: create, list, read with live counts, change under
//! `expectedRevision`, the dashboard's numbers, notice versions and the private content.
//! Policy: a change applies only to the revision the owner saw; each change bumps the
//! revision and records one event; opening signup needs a current notice, enabling
//! access needs content, and the seat cap never drops below the seats in use.

use super::limits;
use super::owner::{self, OwnedWorkspace, Scope};
use super::use_case_error;
use crate::db::audit::{self, Detail, EventType};
use crate::db::clerk_sync;
use crate::db::content;
use crate::db::locks::{ProgramRow, Strength};
use crate::db::programs::{self, ProgramSettings, Summary};
use crate::db::{invitations, DbError};
use crate::domain::EntryState;
use crate::identity::{BackendClient, LookupError};
use chrono::{DateTime, Utc};
use deadpool_postgres::Pool;
use std::collections::BTreeMap;
use uuid::Uuid;

// What a route hands in and gets back: records the data layer binds or reads whole.
pub use crate::db::clerk_sync::ClerkSync;
pub use crate::db::content::ContentRow;
pub use crate::db::programs::{NewNotice, NewProgram, NoticeRow};

use_case_error! {
    pub enum ProgramError {
        #[error("stale revision")]
        StaleRevision,
        #[error("slug taken")]
        SlugTaken,
        #[error("purpose differs from the program's")]
        PurposeMismatch,
        #[error("a notice is required to open sign-ups")]
        NoticeRequired,
        #[error("content is required to enable access")]
        ContentRequired,
        #[error("seat cap below seats in use")]
        SeatCapBelowUse,
        /// The Clerk setting names an organization the saving owner does not administer
        /// (or Clerk does not know), or a role outside `CLERK_SYNC_ROLES`.
        #[error("clerk setting refused")]
        ClerkSyncRefused,
        #[error("identity provider unavailable")]
        IdentityUnavailable,
    }
}

/// What saving an organization into the Clerk setting asks first: the roles the operator
/// allows (`CLERK_SYNC_ROLES`) and the Backend API, for the saving owner's own role in
/// that organization.
pub struct ClerkOrgCheck<'a> {
    pub backend: &'a BackendClient,
    pub allowed_roles: &'a [String],
}

/// The role every organization admin holds in Clerk; only they may point a program at
/// their organization.
pub const ORG_ADMIN: &str = "org:admin";

/// Whether an owner whose role in the organization is `held` (`None`: not a member, or no
/// such organization) may have a program give `role` there, with `allowed` the operator's
/// `CLERK_SYNC_ROLES`.
pub fn may_sync_into_organization(role: &str, allowed: &[String], held: Option<&str>) -> bool {
    allowed.iter().any(|a| a == role) && held == Some(ORG_ADMIN)
}

/// A program with what an owner sees next to it.
pub type ProgramView = (ProgramRow, Summary);

/// The owner's changes to a program; `None` keeps the current value. The title and
/// description are `Some(None)` to remove them.
#[derive(Debug, Clone, Default)]
pub struct ProgramPatch {
    pub expected_revision: i64,
    pub signup_open: Option<bool>,
    pub access_enabled: Option<bool>,
    pub queue_cap: Option<i32>,
    pub hourly_cap: Option<i32>,
    pub seat_cap: Option<i32>,
    /// "On grant, in Clerk": `Some(None)` switches it off.
    pub clerk: Option<Option<ClerkSync>>,
    pub title: Option<Option<String>>,
    pub description: Option<Option<String>>,
    pub proof_of_work: Option<shared::api::PowLevel>,
    /// Already parsed and deduplicated (`shared::edge::parse_embed_origins`).
    pub embed_origins: Option<Vec<String>>,
    pub join_with: Option<shared::questions::JoinWith>,
}

/// Creates a closed program without notice or content, under the workspace lock.
pub async fn create(pool: &Pool, user_id: &str, new: &NewProgram) -> Result<ProgramView, ProgramError> {
    owner::on_workspace(pool, user_id, new.workspace_id, Strength::Update, async |w| {
        let program = programs::insert(w.tx, new).await.map_err(|e| match e {
            e if e.is_unique(programs::SLUG_TAKEN) => ProgramError::SlugTaken,
            e => e.into(),
        })?;
        let details = [("created", Detail::Flag(true)), ("revision", Detail::Number(program.revision))];
        audit::record(w.tx, program.id, None, actor(w), EventType::ProgramChanged, w.now, &details).await?;
        view_of(w, program.id).await
    })
    .await
}

/// The workspace's programs with their counts, oldest first (one statement).
pub async fn list(pool: &Pool, user_id: &str, workspace_id: Uuid) -> Result<Vec<ProgramView>, ProgramError> {
    owner::on_workspace(pool, user_id, workspace_id, Strength::Share, async |w| {
        Ok(programs::with_summaries(w.tx, w.workspace_id, None, w.now).await?)
    })
    .await
}

pub async fn get(pool: &Pool, user_id: &str, program_id: Uuid) -> Result<ProgramView, ProgramError> {
    owner::read(pool, user_id, Scope::Program(program_id), async |o| view(o).await).await
}

/// Applies the owner's changes to the revision they saw. Lowering the queue or hour cap
/// keeps every existing entry. A Clerk setting with an organization is saved only when
/// the saving owner administers that organization in Clerk, asked before the transaction
/// ([`ClerkOrgCheck`]; the ownership read comes first, so a foreign program stays the
/// uniform 404 and never causes a call to Clerk).
pub async fn patch(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    change: ProgramPatch,
    clerk: ClerkOrgCheck<'_>,
) -> Result<ProgramView, ProgramError> {
    if let Some((org, role)) = change.clerk.as_ref().and_then(|c| c.as_ref()).and_then(|c| c.organization.as_ref()) {
        if !clerk.allowed_roles.iter().any(|a| a == role) {
            return Err(ProgramError::ClerkSyncRefused);
        }
        owner::read(pool, user_id, Scope::Program(program_id), async |_| Ok::<_, ProgramError>(())).await?;
        let held = match clerk.backend.organization_role(user_id, org).await {
            Ok(held) => held,
            Err(LookupError::UserGone) => None,
            Err(LookupError::Unavailable(_)) => return Err(ProgramError::IdentityUnavailable),
        };
        if !may_sync_into_organization(role, clerk.allowed_roles, held.as_deref()) {
            return Err(ProgramError::ClerkSyncRefused);
        }
    }
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let program = &o.program;
        if program.revision != change.expected_revision {
            return Err(ProgramError::StaleRevision);
        }
        let before = ProgramSettings::from(program);
        let after = ProgramSettings {
            signup_open: change.signup_open.unwrap_or(before.signup_open),
            access_enabled: change.access_enabled.unwrap_or(before.access_enabled),
            queue_cap: change.queue_cap.unwrap_or(before.queue_cap),
            hourly_cap: change.hourly_cap.unwrap_or(before.hourly_cap),
            seat_cap: change.seat_cap.unwrap_or(before.seat_cap),
            title: change.title.clone().unwrap_or_else(|| before.title.clone()),
            description: change.description.clone().unwrap_or_else(|| before.description.clone()),
            pow_level: change.proof_of_work.unwrap_or(before.pow_level),
            embed_origins: change.embed_origins.clone().unwrap_or_else(|| before.embed_origins.clone()),
            join_with: change.join_with.unwrap_or(before.join_with),
        };
        let clerk_before = clerk_sync::get(o.tx, program.id).await?;
        let clerk_after = change.clerk.clone().unwrap_or_else(|| clerk_before.clone());
        if after == before && clerk_after == clerk_before {
            return view(o).await;
        }
        if after.signup_open && !before.signup_open && program.current_notice_id.is_none() {
            return Err(ProgramError::NoticeRequired);
        }
        if after.access_enabled && !before.access_enabled && !programs::has_content(o.tx, program.id).await? {
            return Err(ProgramError::ContentRequired);
        }
        if after.seat_cap < before.seat_cap
            && !limits::seats_free(invitations::seats_in_use(o.tx, program.id, o.now).await?, 0, after.seat_cap)
        {
            return Err(ProgramError::SeatCapBelowUse);
        }
        let updated = programs::update(o.tx, program.id, &after).await?;
        let mut details = changes(&before, &after, updated.revision);
        if clerk_after != clerk_before {
            clerk_sync::set(o.tx, program.id, clerk_after.as_ref(), o.staff_id, o.now).await?;
            let metadata = clerk_after.as_ref().is_some_and(|c| c.public_metadata);
            let organization = clerk_after.as_ref().is_some_and(|c| c.organization.is_some());
            details.push(("clerkPublicMetadata", Detail::Flag(metadata)));
            details.push(("clerkOrganization", Detail::Flag(organization)));
        }
        audit::record(o.tx, program.id, None, o.actor(), EventType::ProgramChanged, o.now, &details).await?;
        view(o).await
    })
    .await
}

/// The event details of a change: each changed field's new value and the new revision.
fn changes(before: &ProgramSettings, after: &ProgramSettings, revision: i64) -> Vec<(&'static str, Detail)> {
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
    // The text itself stays out of the audit trail (events hold no free text).
    if before.title != after.title {
        details.push(("titleChanged", Detail::Flag(true)));
    }
    if before.description != after.description {
        details.push(("descriptionChanged", Detail::Flag(true)));
    }
    if before.pow_level != after.pow_level {
        details.push(("proofOfWork", Detail::Code(after.pow_level.as_str())));
    }
    if before.embed_origins != after.embed_origins {
        // How many, not which: the event stays free of text the owner typed.
        details.push(("embedOrigins", Detail::Number(after.embed_origins.len() as i64)));
    }
    if before.join_with != after.join_with {
        details.push(("joinWith", Detail::Code(after.join_with.as_str())));
    }
    details.push(("revision", Detail::Number(revision)));
    details
}

/// The dashboard's numbers: admissions per recent UTC hour and entries per state (every
/// state present). The owner check holds the workspace `FOR SHARE`; the counts are read
/// without the program lock, so counting a large queue never stalls admissions.
pub struct Stats {
    pub intake_hours: Hours,
    pub states: BTreeMap<EntryState, i64>,
    /// Per source (`None`: no ref), its hours; most entries first, at most
    /// [`INTAKE_SOURCES_MAX`].
    pub intake_sources: Vec<(Option<String>, Hours)>,
}

/// Counts per UTC hour, oldest first.
pub type Hours = Vec<(DateTime<Utc>, i64)>;

/// Most sources the dashboard's split shows.
pub const INTAKE_SOURCES_MAX: usize = 10;

pub async fn stats(pool: &Pool, user_id: &str, program_id: Uuid) -> Result<Stats, ProgramError> {
    let workspace_id = {
        let client = pool.get().await.map_err(DbError::from)?;
        programs::workspace_of(&client, program_id).await?.ok_or(ProgramError::NotFound)?
    };
    owner::on_workspace(pool, user_id, workspace_id, Strength::Share, async |w| {
        let intake_hours = programs::intake_hours(w.tx, program_id).await?;
        let mut intake_sources: Vec<(Option<String>, Hours)> = Vec::new();
        for (source, hour, count) in programs::intake_sources(w.tx, program_id).await? {
            match intake_sources.last_mut() {
                Some((last, hours)) if *last == source => hours.push((hour, count)),
                _ => intake_sources.push((source, vec![(hour, count)])),
            }
        }
        let total = |hours: &[(DateTime<Utc>, i64)]| hours.iter().map(|(_, c)| c).sum::<i64>();
        intake_sources.sort_by_key(|(_, hours)| std::cmp::Reverse(total(hours)));
        intake_sources.truncate(INTAKE_SOURCES_MAX);
        let mut states: BTreeMap<EntryState, i64> = EntryState::ALL.iter().map(|s| (*s, 0)).collect();
        states.extend(programs::state_counts(w.tx, program_id).await?);
        Ok(Stats { intake_hours, states, intake_sources })
    })
    .await
}

/// Publishes the next notice version; its purpose must be the program's own (a new
/// purpose needs a new program). Versions are sequential under the program lock.
pub async fn publish_notice(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    notice: &NewNotice,
) -> Result<NoticeRow, ProgramError> {
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        if notice.purpose != o.program.purpose {
            return Err(ProgramError::PurposeMismatch);
        }
        let row = programs::publish_notice(o.tx, &o.program, notice, o.now).await?;
        let details = [("noticeId", Detail::Id(row.id)), ("version", Detail::Number(i64::from(row.version)))];
        audit::record(o.tx, o.program.id, None, o.actor(), EventType::NoticePublished, o.now, &details).await?;
        Ok(row)
    })
    .await
}

/// The private content; absent until the first write.
pub async fn content(pool: &Pool, user_id: &str, program_id: Uuid) -> Result<ContentRow, ProgramError> {
    owner::read(pool, user_id, Scope::Program(program_id), async |o| {
        content::get(o.tx, o.program.id).await?.ok_or(ProgramError::NotFound)
    })
    .await
}

/// Replaces the content if `expected` is its current revision (0 for the first write);
/// the event records the new revision only, never the body.
pub async fn put_content(
    pool: &Pool,
    user_id: &str,
    program_id: Uuid,
    expected: i64,
    body: &str,
) -> Result<ContentRow, ProgramError> {
    owner::write(pool, user_id, Scope::Program(program_id), async |o| {
        let row = content::put(o.tx, o.program.id, expected, body, o.now).await?.ok_or(ProgramError::StaleRevision)?;
        let details = [("revision", Detail::Number(row.revision))];
        audit::record(o.tx, o.program.id, None, o.actor(), EventType::ContentUpdated, o.now, &details).await?;
        Ok(row)
    })
    .await
}

async fn view(o: &owner::Owned<'_, '_>) -> Result<ProgramView, ProgramError> {
    let mut rows = programs::with_summaries(o.tx, o.program.workspace_id, Some(o.program.id), o.now).await?;
    rows.pop().ok_or(ProgramError::NotFound)
}

async fn view_of(w: &OwnedWorkspace<'_, '_>, program_id: Uuid) -> Result<ProgramView, ProgramError> {
    let mut rows = programs::with_summaries(w.tx, w.workspace_id, Some(program_id), w.now).await?;
    rows.pop().ok_or(ProgramError::NotFound)
}

fn actor(w: &OwnedWorkspace<'_, '_>) -> crate::db::audit::Actor {
    crate::db::audit::Actor::Owner(w.staff_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_an_organizations_admin_may_sync_into_it_with_an_allowed_role() {
        let allowed = roles(&["org:member", "org:partner"]);
        assert!(may_sync_into_organization("org:member", &allowed, Some("org:admin")));
        assert!(may_sync_into_organization("org:partner", &allowed, Some("org:admin")));
        for held in [None, Some("org:member"), Some("org:owner"), Some("org:manager"), Some("org:administrator")] {
            assert!(!may_sync_into_organization("org:member", &allowed, held), "{held:?}");
        }
        for role in ["org:owner", "org:manager", "org:admin", "org:member "] {
            assert!(!may_sync_into_organization(role, &allowed, Some("org:admin")), "{role}");
        }
    }
}
