//! `GET /healthz` (the process answers) and `GET /readyz` (the database answers).

use crate::startup::AppState;
use actix_web::{web, HttpResponse};
use std::time::Duration;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/healthz", web::get().to(healthz)).route("/readyz", web::get().to(readyz));
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok().insert_header(("cache-control", "no-store")).json(serde_json::json!({"status": "ok"}))
}

async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    let check = async {
        let client = state.pool.get().await.ok()?;
        client.query_one("SELECT 1", &[]).await.ok()
    };
    match tokio::time::timeout(Duration::from_secs(2), check).await {
        Ok(Some(_)) => {
            HttpResponse::Ok().insert_header(("cache-control", "no-store")).json(serde_json::json!({"status": "ready"}))
        }
        _ => HttpResponse::ServiceUnavailable()
            .insert_header(("cache-control", "no-store"))
            .insert_header(("retry-after", "5"))
            .json(serde_json::json!({"status": "unavailable"})),
    }
}
