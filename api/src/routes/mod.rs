//! The routes: one module per audience (public, recipient `me`, owner), each handler
//! extracting its input, calling one use case and turning the result into the contract's
//! answer (`views` for bodies, `crate::http::ApiError` for failures). Handlers are
//! registered once, through `utoipa_actix_web`, which collects the OpenAPI document from
//! the same registration. Plus health, metrics and the SPA shell. One audience's routes
//! never call another's handlers.

mod form_page;
pub mod health;
mod hooks;
mod input;
pub mod me;
pub mod metrics;
pub mod owner;
pub mod public;
pub mod spa;
pub mod v1;
mod views;

use utoipa_actix_web::service_config::ServiceConfig;

/// Every `/api` route, in audience order.
pub fn api(cfg: &mut ServiceConfig) {
    public::configure(cfg);
    me::configure(cfg);
    owner::configure(cfg);
    v1::configure(cfg);
    hooks::configure(cfg);
}
