//! `GET /api/public/programs/{slug}`: the signup form's notice. Policy: only a program
//! of an active workspace with a published notice exists publicly; anything else is the
//! same 404. The answer names the program and its current notice, nothing else.

use crate::db::programs;
use crate::error::{ApiError, Result};
use crate::routes::ts;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::{PublicNotice, PublicProgram};
use shared::Slug;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/public/programs/{slug}", web::get().to(read));
}

async fn read(state: web::Data<AppState>, path: web::Path<String>) -> Result<HttpResponse> {
    let slug = Slug::parse(&path.into_inner()).map_err(|_| ApiError::NotFound)?;
    let client = state.pool.get().await?;
    let (signup_open, n) = programs::public(&client, slug.as_str()).await?.ok_or(ApiError::NotFound)?;
    Ok(HttpResponse::Ok().json(PublicProgram {
        slug: slug.to_string(),
        signup_open,
        notice: PublicNotice {
            version: n.version,
            purpose: n.purpose,
            contact_text: n.contact_text,
            retention_text: n.retention_text,
            published_at: ts(n.published_at),
        },
    }))
}
