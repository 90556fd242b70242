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

/// The gate of a new signup, the public form's and the account join's alike: the same
/// address counter, read from the client's address behind the trusted proxies, and the
/// request's meter, which `http::rate_limit` turns into the RateLimit fields.
pub(crate) fn signup_gate<'a>(
    state: &'a crate::state::AppState,
    req: &actix_web::HttpRequest,
    meter: &'a crate::usecases::metering::Meter,
) -> crate::usecases::admission::Gate<'a> {
    use actix_web::HttpMessage;
    req.extensions_mut().insert(meter.clone());
    crate::usecases::admission::Gate {
        key: &state.settings.hmac_key,
        per_minute: state.settings.signup_rate_per_minute,
        client: crate::http::client_addr::client_addr(req, &state.settings.trusted_proxies),
        meter,
        hits: &state.hits,
    }
}
