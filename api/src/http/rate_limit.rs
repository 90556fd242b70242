//! The IETF rate-limit fields (draft-ietf-httpapi-ratelimit-headers, its structured-field
//! syntax) on every answer whose request an attempt limiter counted: public signups (new
//! keys), challenges, redemptions and server API calls. The use case records where each
//! counter stands in the request's `usecases::metering::Meter`; this middleware writes
//! `RateLimit-Policy: "signup";q=30;w=60` (each policy: quota per window of seconds) and
//! `RateLimit: "signup";r=29;t=42` (what remains and the seconds until the window
//! resets) — the windows the counters really use. A 429 carries them beside `Retry-After`.

use crate::usecases::metering::{Meter, Usage};
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage};

/// `RateLimit-Policy`'s value for `usage`.
pub fn policy_field(usage: &[Usage]) -> String {
    let items: Vec<String> =
        usage.iter().map(|u| format!("\"{}\";q={};w={}", u.policy, u.quota, u.window_secs)).collect();
    items.join(", ")
}

/// `RateLimit`'s value for `usage`.
pub fn limit_field(usage: &[Usage]) -> String {
    let items: Vec<String> =
        usage.iter().map(|u| format!("\"{}\";r={};t={}", u.policy, u.remaining, u.reset_secs)).collect();
    items.join(", ")
}

pub async fn fields(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let mut res = next.call(req).await?;
    let usage = res.request().extensions().get::<Meter>().map(Meter::usage).unwrap_or_default();
    if !usage.is_empty() {
        for (name, value) in [("ratelimit-policy", policy_field(&usage)), ("ratelimit", limit_field(&usage))] {
            if let Ok(value) = HeaderValue::from_str(&value) {
                res.headers_mut().insert(HeaderName::from_static(name), value);
            }
        }
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_use_the_structured_field_syntax() {
        let usage = [
            Usage { policy: "redeem-account", quota: 10, window_secs: 900, remaining: 9, reset_secs: 812 },
            Usage { policy: "redeem-address", quota: 50, window_secs: 900, remaining: 49, reset_secs: 812 },
        ];
        assert_eq!(policy_field(&usage), r#""redeem-account";q=10;w=900, "redeem-address";q=50;w=900"#);
        assert_eq!(limit_field(&usage), r#""redeem-account";r=9;t=812, "redeem-address";r=49;t=812"#);
    }
}
