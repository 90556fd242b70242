//! Public routes: no session. The signup needs an allowed `Origin` (the scope's guard)
//! but no CSRF token; nothing here reveals whether an email is on a list.

mod challenge;
mod config;
mod draws;
mod programs;
mod signup;

use utoipa_actix_web::service_config::ServiceConfig;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(config::config)
        .service(crate::openapi::serve)
        .service(programs::read)
        .service(signup::signup)
        .service(challenge::challenge)
        .service(draws::list)
        .service(draws::get);
}
