//! `GET /healthz` (the process answers) and `GET /readyz` (the database answers).

use crate::state::AppState;
use actix_web::{get, web, HttpResponse};
use serde::Serialize;
use std::time::Duration;

/// The body of both probes.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Status {
    /// `ok`, `ready` or `unavailable`.
    status: &'static str,
}

#[utoipa::path(operation_id = "healthz", responses(
    (status = 200, description = "The process answers.", body = Status),
))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().insert_header(("cache-control", "no-store")).json(Status { status: "ok" })
}

#[utoipa::path(operation_id = "readyz", responses(
    (status = 200, description = "The database answers.", body = Status),
    (status = 503, description = "The database does not answer within 2 s.", body = Status, headers(("Retry-After" = u32, description = "Seconds to wait before retrying."))),
))]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    let check = async {
        let client = state.pool.get().await.ok()?;
        client.query_one("SELECT 1", &[]).await.ok()
    };
    match tokio::time::timeout(Duration::from_secs(2), check).await {
        Ok(Some(_)) => HttpResponse::Ok().insert_header(("cache-control", "no-store")).json(Status { status: "ready" }),
        _ => HttpResponse::ServiceUnavailable()
            .insert_header(("cache-control", "no-store"))
            .insert_header(("retry-after", "5"))
            .json(Status { status: "unavailable" }),
    }
}
