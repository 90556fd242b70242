//! Public routes: no session. The signup needs an allowed `Origin` (the scope's guard)
//! but no CSRF token; nothing here reveals whether an email is on a list.

pub(crate) mod config;
pub(crate) mod programs;
pub(crate) mod signup;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    config::configure(cfg);
    cfg.route("/openapi.json", web::get().to(crate::openapi::serve));
    programs::configure(cfg);
    signup::configure(cfg);
}
