//! `GET /api/me/early-access/{slug}`: a program's private content, for the one user who
//! holds an active grant of *that* program. Policy: the slug is resolved to a program
//! and workspace on the server; in one READ COMMITTED transaction the workspace and the
//! program are held `FOR SHARE` (so a revoking writer either finishes first and this
//! read is denied, or waits until the body has been read), the binding is checked again
//! after the wait, and one scoped statement joins content, entry and grant of that
//! program for this user, with access on, the entry active, the grant active and the
//! entry's email among the user's verified emails right now. Any failure is the same 404.

use crate::db;
use crate::db::locks::{self, Strength};
use crate::error::{ApiError, Result};
use crate::identity::VerifiedUser;
use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use shared::api::EarlyAccessContent;
use shared::Slug;
use uuid::Uuid;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/me/early-access/{slug}", web::get().to(early_access));
}

#[utoipa::path(
    get,
    path = "/api/me/early-access/{slug}",
    operation_id = "getEarlyAccessContent",
    tag = "recipient",
    params(("slug" = String, Path, description = "The program's public slug.", pattern = r"^[a-z0-9-]{3,60}$")),
    security(("bearer" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The program's private content.", body = EarlyAccessContent),
        (status = 404, description = "No active grant of this program bound to the caller, or access is off.", body = shared::ErrorBody),
    )
)]
async fn early_access(state: web::Data<AppState>, user: VerifiedUser, path: web::Path<String>) -> Result<HttpResponse> {
    let slug = Slug::parse(&path.into_inner()).map_err(|_| ApiError::NotFound)?;
    let emails = user.email_strings();
    let user_id = user.session.user_id;
    let (revision, body) = db::transaction(&state.pool, async |tx| {
        let stmt = tx.prepare_cached("SELECT id, workspace_id FROM programs WHERE public_slug = $1").await?;
        let row = tx.query_opt(&stmt, &[&slug.as_str()]).await?.ok_or(ApiError::NotFound)?;
        let (program_id, workspace_id): (Uuid, Uuid) = (row.get(0), row.get(1));
        if locks::workspace(tx, workspace_id, Strength::Share).await? != Some(true) {
            return Err(ApiError::NotFound);
        }
        let program = locks::program(tx, workspace_id, program_id, Strength::Share).await?.ok_or(ApiError::NotFound)?;
        if program.slug != slug.as_str() {
            return Err(ApiError::NotFound);
        }
        let stmt = tx
            .prepare_cached(
                "SELECT c.revision, c.body FROM programs p \
                 JOIN entries e ON e.program_id = p.id \
                 JOIN grants g ON g.program_id = p.id AND g.entry_id = e.id \
                 JOIN early_access_content c ON c.program_id = p.id \
                 WHERE p.id = $1 AND p.public_slug = $2 AND p.workspace_id = $3 AND p.access_enabled \
                   AND e.state = 'active' AND g.active AND g.clerk_user_id = $4 AND e.email_key = ANY($5)",
            )
            .await?;
        let row = tx
            .query_opt(&stmt, &[&program_id, &slug.as_str(), &workspace_id, &user_id, &emails])
            .await?
            .ok_or(ApiError::NotFound)?;
        Ok((row.get::<_, i64>(0), row.get::<_, String>(1)))
    })
    .await?;
    Ok(HttpResponse::Ok().json(EarlyAccessContent { slug: slug.as_str().to_owned(), revision, body }))
}
