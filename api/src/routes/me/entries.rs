//! `GET /api/me/entries`: the signed-in applicant's own entries across programs, found
//! only through emails the identity provider reports as verified right now. Policy: one
//! read-only statement; the position is among the program's waiting entries, while waiting.

use crate::db::signups;
use crate::error::Result;
use crate::identity::VerifiedUser;
use crate::routes::ts;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::OwnEntry;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/me/entries", web::get().to(list));
}

async fn list(state: web::Data<AppState>, user: VerifiedUser) -> Result<HttpResponse> {
    let client = state.pool.get().await?;
    let own = signups::own_entries(&client, &user.email_strings(), None).await?;
    let body: Vec<OwnEntry> = own
        .into_iter()
        .map(|e| OwnEntry { program_slug: e.slug, state: e.state, joined_at: ts(e.joined_at), position: e.position })
        .collect();
    Ok(HttpResponse::Ok().json(body))
}
