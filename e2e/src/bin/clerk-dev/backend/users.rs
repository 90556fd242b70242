//! Users: create, get (503 while the `users` fault is on), delete (with its email
//! addresses, sessions and memberships), merge metadata (503 while the `writes` fault is
//! on), and the user's organization memberships, each with its role, as Clerk's paginated
//! list (a users read: 503 while the `users` fault is on).

use actix_web::web::{self, Data, Json, Path, Query};
use actix_web::HttpResponse;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{checked_address, checked_metadata, ListQuery, Paginated};
use crate::error::ClerkError;
use crate::state::AppState;
use crate::store::MetadataPatch;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/users", web::post().to(create_user))
        .route("/users/{id}", web::get().to(get_user))
        .route("/users/{id}", web::delete().to(delete_user))
        .route("/users/{id}/metadata", web::patch().to(update_metadata))
        .route("/users/{id}/organization_memberships", web::get().to(memberships));
}

/// The three metadata parameters, shared by user creation and the metadata merge.
#[derive(Deserialize, Default)]
struct MetadataBody {
    public_metadata: Option<Value>,
    private_metadata: Option<Value>,
    unsafe_metadata: Option<Value>,
}

impl MetadataBody {
    fn patch(self) -> Result<MetadataPatch, ClerkError> {
        Ok(MetadataPatch {
            public: checked_metadata("public_metadata", self.public_metadata)?,
            private: checked_metadata("private_metadata", self.private_metadata)?,
            unsafe_: checked_metadata("unsafe_metadata", self.unsafe_metadata)?,
        })
    }
}

/// `POST /v1/users`: addresses, a name and metadata; other User parameters Clerk
/// accepts are ignored.
#[derive(Deserialize)]
struct CreateUser {
    #[serde(default)]
    email_address: Vec<String>,
    first_name: Option<String>,
    last_name: Option<String>,
    #[serde(flatten)]
    metadata: MetadataBody,
}

async fn create_user(state: Data<AppState>, body: Json<CreateUser>) -> Result<HttpResponse, ClerkError> {
    let CreateUser { email_address, first_name, last_name, metadata } = body.into_inner();
    let addresses = email_address.iter().map(|a| checked_address(a)).collect::<Result<Vec<_>, _>>()?;
    let name = [checked_name("first_name", first_name)?, checked_name("last_name", last_name)?];
    let user = state.store().create_user(&addresses, name, metadata.patch()?);
    Ok(HttpResponse::Ok().json(user))
}

/// Clerk keeps a name part of up to 256 characters; an empty one is no name.
fn checked_name(param: &str, name: Option<String>) -> Result<Option<String>, ClerkError> {
    match name {
        Some(n) if n.chars().count() > 256 => Err(ClerkError::invalid_param(param)),
        Some(n) if n.is_empty() => Ok(None),
        other => Ok(other),
    }
}

async fn get_user(state: Data<AppState>, id: Path<String>) -> Result<HttpResponse, ClerkError> {
    let user = {
        let store = state.store();
        if store.faults.users_unavailable {
            return Err(ClerkError::users_unavailable());
        }
        store.user(&id)?
    };
    Ok(HttpResponse::Ok().json(user))
}

async fn delete_user(state: Data<AppState>, id: Path<String>) -> Result<HttpResponse, ClerkError> {
    state.store().delete_user(&id)?;
    Ok(HttpResponse::Ok().json(json!({ "object": "user", "id": *id, "deleted": true })))
}

/// `PATCH /v1/users/{id}/metadata`: only the three metadata objects (unknown fields are
/// refused, as Clerk's schema allows no others).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateMetadata {
    public_metadata: Option<Value>,
    private_metadata: Option<Value>,
    unsafe_metadata: Option<Value>,
}

async fn update_metadata(
    state: Data<AppState>,
    id: Path<String>,
    body: Json<UpdateMetadata>,
) -> Result<HttpResponse, ClerkError> {
    let UpdateMetadata { public_metadata, private_metadata, unsafe_metadata } = body.into_inner();
    let patch = MetadataBody { public_metadata, private_metadata, unsafe_metadata }.patch()?;
    state.slow_write().await;
    let user = {
        let mut store = state.store();
        if store.faults.writes_unavailable {
            return Err(ClerkError::writes_unavailable());
        }
        store.update_metadata(&id, patch)?
    };
    Ok(HttpResponse::Ok().json(user))
}

async fn memberships(
    state: Data<AppState>,
    id: Path<String>,
    query: Query<ListQuery>,
) -> Result<HttpResponse, ClerkError> {
    let page = query.page()?;
    state.slow_write().await;
    let (data, total_count) = {
        let store = state.store();
        if store.faults.users_unavailable {
            return Err(ClerkError::users_unavailable());
        }
        store.user_memberships(&id, page)?
    };
    Ok(HttpResponse::Ok().json(Paginated { data, total_count }))
}
