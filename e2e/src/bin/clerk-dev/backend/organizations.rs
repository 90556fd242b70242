//! Organizations: create (the creator becomes an `org:admin` member), get by id or slug,
//! and memberships: add (`already_a_member_in_organization` when it exists), remove
//! (answers the removed membership), list as Clerk's paginated list. Adding and removing
//! answer 503 while the `writes` fault is on; reads never do.
//!
//! Where Clerk's documentation was not checkable: a taken slug answers 422
//! `form_identifier_exists`; a role must be `org:<key>` (Clerk accepts the roles its
//! instance defines; clerk-dev accepts any key), otherwise 422 `form_param_value_invalid`.

use actix_web::web::{self, Data, Json, Path, Query};
use actix_web::HttpResponse;
use serde::Deserialize;
use serde_json::Value;

use super::{checked_metadata, ListQuery, Paginated};
use crate::error::ClerkError;
use crate::state::AppState;
use crate::store::NewOrganization;

const MAX_NAME_CHARS: usize = 256;
const MAX_KEY_LEN: usize = 64;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/organizations", web::post().to(create_organization))
        .route("/organizations/{id}", web::get().to(get_organization))
        .route("/organizations/{id}/memberships", web::post().to(add_member))
        .route("/organizations/{id}/memberships", web::get().to(memberships))
        .route("/organizations/{id}/memberships/{user_id}", web::delete().to(remove_member));
}

/// `[a-z0-9-]+` (slugs) or `[a-z0-9_-]+` (role keys), of bounded length.
fn is_key(value: &str, underscore: bool) -> bool {
    !value.is_empty()
        && value.len() <= MAX_KEY_LEN
        && value.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || (underscore && b == b'_'))
}

#[derive(Deserialize)]
struct CreateOrganization {
    name: String,
    slug: Option<String>,
    created_by: Option<String>,
    max_allowed_memberships: Option<i64>,
    public_metadata: Option<Value>,
    private_metadata: Option<Value>,
}

impl TryFrom<CreateOrganization> for NewOrganization {
    type Error = ClerkError;

    fn try_from(body: CreateOrganization) -> Result<Self, ClerkError> {
        let name = body.name.trim().to_owned();
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(ClerkError::invalid_param("name"));
        }
        if body.slug.as_deref().is_some_and(|slug| !is_key(slug, false)) {
            return Err(ClerkError::invalid_param("slug"));
        }
        let max = body.max_allowed_memberships.unwrap_or(0);
        let max_allowed_memberships =
            u32::try_from(max).map_err(|_| ClerkError::param_out_of_range("max_allowed_memberships"))?;
        Ok(NewOrganization {
            name,
            slug: body.slug,
            created_by: body.created_by,
            max_allowed_memberships,
            public_metadata: checked_metadata("public_metadata", body.public_metadata)?.unwrap_or_default(),
            private_metadata: checked_metadata("private_metadata", body.private_metadata)?.unwrap_or_default(),
        })
    }
}

async fn create_organization(
    state: Data<AppState>,
    body: Json<CreateOrganization>,
) -> Result<HttpResponse, ClerkError> {
    let new = NewOrganization::try_from(body.into_inner())?;
    let organization = state.store().create_organization(new)?;
    Ok(HttpResponse::Ok().json(organization))
}

#[derive(Deserialize)]
struct GetQuery {
    #[serde(default)]
    include_members_count: bool,
}

async fn get_organization(
    state: Data<AppState>,
    id: Path<String>,
    query: Query<GetQuery>,
) -> Result<HttpResponse, ClerkError> {
    let organization = state.store().organization(&id, query.include_members_count)?;
    Ok(HttpResponse::Ok().json(organization))
}

#[derive(Deserialize)]
struct AddMember {
    user_id: String,
    role: String,
}

async fn add_member(
    state: Data<AppState>,
    id: Path<String>,
    body: Json<AddMember>,
) -> Result<HttpResponse, ClerkError> {
    let AddMember { user_id, role } = body.into_inner();
    if !role.strip_prefix("org:").is_some_and(|key| is_key(key, true)) {
        return Err(ClerkError::invalid_value("role", "org:admin, org:member or another org:<key> role"));
    }
    state.slow_write().await;
    let membership = {
        let mut store = state.store();
        if store.faults.writes_unavailable {
            return Err(ClerkError::writes_unavailable());
        }
        store.add_member(&id, &user_id, role)?
    };
    Ok(HttpResponse::Ok().json(membership))
}

async fn remove_member(state: Data<AppState>, path: Path<(String, String)>) -> Result<HttpResponse, ClerkError> {
    let (org_id, user_id) = path.into_inner();
    state.slow_write().await;
    let membership = {
        let mut store = state.store();
        if store.faults.writes_unavailable {
            return Err(ClerkError::writes_unavailable());
        }
        store.remove_member(&org_id, &user_id)?
    };
    Ok(HttpResponse::Ok().json(membership))
}

async fn memberships(
    state: Data<AppState>,
    id: Path<String>,
    query: Query<ListQuery>,
) -> Result<HttpResponse, ClerkError> {
    let page = query.page()?;
    let (data, total_count) = state.store().organization_memberships(&id, page)?;
    Ok(HttpResponse::Ok().json(Paginated { data, total_count }))
}
