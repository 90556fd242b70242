//! Public routes: no session. The signup needs an allowed `Origin` (the scope's guard)
//! but no CSRF token; nothing here reveals whether an email is on a list.

mod config;
mod programs;
mod signup;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    config::configure(cfg);
    programs::configure(cfg);
    signup::configure(cfg);
}
