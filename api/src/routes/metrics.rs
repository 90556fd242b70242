//! `GET /metrics` in Prometheus text format, served only on the separate listener bound
//! to `METRICS_ADDR` (never on the public address).

use crate::state::AppState;
use actix_web::dev::Server;
use actix_web::{web, App, HttpResponse, HttpServer};
use std::net::TcpListener;

async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let status = state.pool.status();
    let body = crate::metrics::render((status.size, status.available, status.max_size));
    HttpResponse::Ok().content_type("text/plain; version=0.0.4").body(body)
}

pub fn serve(listener: TcpListener, state: web::Data<AppState>) -> std::io::Result<Server> {
    Ok(HttpServer::new(move || App::new().app_data(state.clone()).route("/metrics", web::get().to(metrics)))
        .workers(1)
        .listen(listener)?
        .run())
}
