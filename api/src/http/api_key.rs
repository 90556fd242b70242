//! The server API's caller: [`ApiCaller`], a workspace API key from
//! `Authorization: Bearer vst_…` — never a cookie, so no CSRF token is involved. An
//! unknown or revoked key (or a key of an inactive workspace) is 401; a key past its
//! per-minute rate is 429; every counted call carries the key's `RateLimit` fields. The key itself is never logged or echoed.

use super::error::ApiError;
use crate::state::AppState;
use crate::usecases::api_keys;
use crate::usecases::api_keys::Caller;
use crate::usecases::metering::{Meter, Usage};
use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use futures_util::future::LocalBoxFuture;

/// A request authenticated by a workspace API key.
#[derive(Debug, Clone)]
pub struct ApiCaller(pub Caller);

impl FromRequest for ApiCaller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let state = req.app_data::<web::Data<AppState>>().expect("AppState is registered").clone();
        let presented = req
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(|k| k.trim().to_owned());
        let meter = Meter::default();
        req.extensions_mut().insert(meter.clone());
        Box::pin(async move {
            let presented = presented.ok_or(ApiError::Unauthorized)?;
            let caller = api_keys::authenticate(&state.pool, &presented).await?.ok_or(ApiError::Unauthorized)?;
            // The key's window is the current UTC minute: say when it frees (issue 12, item 12).
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            let reset_secs = 60 - (now.as_secs() % 60) as u32;
            let quota = state.settings.integrations.api_key_rate_per_minute;
            let hits = u32::try_from(caller.hits).unwrap_or(u32::MAX);
            meter.record(&[Usage {
                policy: "api-key",
                quota,
                window_secs: 60,
                remaining: quota.saturating_sub(hits),
                reset_secs,
            }]);
            if hits > quota {
                return Err(ApiError::TooManyRequests(Some(reset_secs)));
            }
            Ok(ApiCaller(caller))
        })
    }
}
