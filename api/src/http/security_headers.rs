//! Browser security headers on every response (issue 12, item 8). Policy: the SPA runs
//! without inline script, so its pages get a Content-Security-Policy that allows scripts
//! from this origin only (plus `'wasm-unsafe-eval'` for the WebAssembly, and clerk-js from
//! the instance's Frontend API when real Clerk is configured); API answers are data and get
//! a policy that allows nothing. Every response says `X-Content-Type-Options: nosniff` and
//! `Referrer-Policy: same-origin`; production adds `Strict-Transport-Security`.
//!
//! Who may frame a page: nobody (`frame-ancestors 'none'` and `X-Frame-Options: DENY`),
//! except the embeddable waitlist form (`/embed/waitlist/{slug}`, issue 15), whose handler
//! attaches the program's allowed origins to its response as [`FrameAncestors`]; this
//! middleware then writes `frame-ancestors` with exactly them (and no `X-Frame-Options`,
//! which cannot name a list). An embed response without the extension — an unknown or
//! unpublished program, no origins, a database failure — keeps `'none'`. The origins
//! were parsed on the way in (`shared::edge::parse_embed_origin`): no character that
//! could end the directive or the header can be among them.
//!
//! The policies are built once from the settings; a request only picks one by its path.

use std::future::{ready, Ready};
use std::rc::Rc;

use actix_web::body::MessageBody;
use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::header::{
    HeaderValue, CONTENT_SECURITY_POLICY, REFERRER_POLICY, STRICT_TRANSPORT_SECURITY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use actix_web::Error;
use futures_util::future::LocalBoxFuture;

use crate::config::{AppEnv, Settings};

/// API answers are JSON or CSV: nothing in them may load, run or be framed.
const API_POLICY: &str = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// Clerk's bot protection, loaded by clerk-js's sign-in component (Clerk's CSP guide).
const CLERK_CHALLENGES: &str = "https://challenges.cloudflare.com";
/// Where Clerk serves avatars and logos.
const CLERK_IMAGES: &str = "https://img.clerk.com";

/// The origins a response may be framed by, set by the embed page's handler as a
/// response extension. Only paths under `/embed/` honour it.
#[derive(Debug, Clone)]
pub struct FrameAncestors(pub Vec<String>);

/// The `frame-ancestors` source list for a response at `path`.
fn frame_ancestors(path: &str, allowed: Option<&FrameAncestors>) -> String {
    match allowed {
        Some(FrameAncestors(origins)) if path.starts_with("/embed/") && !origins.is_empty() => origins.join(" "),
        _ => "'none'".to_owned(),
    }
}

/// The headers, built once per server from its settings.
pub struct SecurityHeaders(Rc<Policies>);

struct Policies {
    /// The pages' policy without `frame-ancestors` (added per path).
    page: String,
    api: HeaderValue,
    hsts: Option<HeaderValue>,
}

impl SecurityHeaders {
    pub fn new(settings: &Settings) -> Self {
        SecurityHeaders(Rc::new(Policies {
            page: page_policy(settings),
            api: HeaderValue::from_static(API_POLICY),
            // One year; subdomains are left to the operator, who may run plain-HTTP ones.
            hsts: (settings.app_env == AppEnv::Production).then(|| HeaderValue::from_static("max-age=31536000")),
        }))
    }
}

/// The SPA's policy: its own scripts, styles, images and API, the identity service it
/// signs in with, and nothing inline.
fn page_policy(settings: &Settings) -> String {
    let mut script = vec!["'self'", "'wasm-unsafe-eval'"];
    let mut style = vec!["'self'"];
    let mut img = vec!["'self'", "data:"];
    let mut connect = vec!["'self'".to_owned()];
    let mut extra = String::new();
    // Development sign-in: the SPA calls the stand-in's `/dev/*` endpoints itself.
    if let Some(origin) = settings.identity_dev_url.as_deref().and_then(origin_of) {
        connect.push(origin);
    }
    let fapi = settings.clerk_publishable_key.as_deref().and_then(frontend_api_host);
    if let Some(host) = &fapi {
        // clerk-js comes from the Frontend API and styles its components at run time.
        script.push(CLERK_CHALLENGES);
        style.push("'unsafe-inline'");
        img.push(CLERK_IMAGES);
        connect.push(format!("https://{host}"));
        extra = format!("; frame-src {CLERK_CHALLENGES}; worker-src 'self' blob:");
    }
    let fapi_source = fapi.map(|host| format!(" https://{host}")).unwrap_or_default();
    format!(
        "default-src 'self'; script-src {}{fapi_source}; style-src {}; img-src {}; connect-src {}; \
         font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'{extra}",
        script.join(" "),
        style.join(" "),
        img.join(" "),
        connect.join(" "),
    )
}

/// `http://127.0.0.1:4000/x` → `http://127.0.0.1:4000`.
fn origin_of(url: &str) -> Option<String> {
    let parsed = reqwest::Url::parse(url).ok()?;
    let origin = parsed.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

/// The Frontend API host in a publishable key (`pk_test_`/`pk_live_` + base64 of `host$`),
/// the same reading the SPA makes to load clerk-js.
fn frontend_api_host(key: &str) -> Option<String> {
    use base64::Engine as _;
    let encoded = key.strip_prefix("pk_test_").or_else(|| key.strip_prefix("pk_live_"))?;
    let decoded = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(encoded.trim_end_matches('='))
        .ok()
        .and_then(|b| String::from_utf8(b).ok())?;
    let host = decoded.strip_suffix('$')?;
    let plausible = !host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    plausible.then(|| host.to_owned())
}

impl Policies {
    fn apply(&self, path: &str, allowed: Option<&FrameAncestors>, headers: &mut actix_web::http::header::HeaderMap) {
        let api = path == "/api" || path.starts_with("/api/");
        let ancestors = if api { "'none'".to_owned() } else { frame_ancestors(path, allowed) };
        let csp = if api {
            self.api.clone()
        } else {
            HeaderValue::from_str(&format!("{}; frame-ancestors {ancestors}", self.page))
                .unwrap_or_else(|_| HeaderValue::from_static(API_POLICY))
        };
        headers.insert(CONTENT_SECURITY_POLICY, csp);
        if ancestors == "'none'" {
            headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        }
        headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        headers.insert(REFERRER_POLICY, HeaderValue::from_static("same-origin"));
        if let Some(hsts) = &self.hsts {
            headers.insert(STRICT_TRANSPORT_SECURITY, hsts.clone());
        }
    }
}

impl<S, B> Transform<S, ServiceRequest> for SecurityHeaders
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Transform = SecurityHeadersService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(SecurityHeadersService { service: Rc::new(service), policies: self.0.clone() }))
    }
}

pub struct SecurityHeadersService<S> {
    service: Rc<S>,
    policies: Rc<Policies>,
}

impl<S, B> Service<ServiceRequest> for SecurityHeadersService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<B>;
    type Error = Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

    forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let (service, policies) = (self.service.clone(), self.policies.clone());
        Box::pin(async move {
            let path = req.path().to_owned();
            let mut res = service.call(req).await?;
            let allowed = res.response().extensions().get::<FrameAncestors>().cloned();
            policies.apply(&path, allowed.as_ref(), res.headers_mut());
            Ok(res)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_publishable_key_names_its_frontend_api() {
        use base64::Engine as _;
        let key = format!("pk_test_{}", base64::engine::general_purpose::STANDARD.encode("clerk.example.com$"));
        assert_eq!(frontend_api_host(&key).as_deref(), Some("clerk.example.com"));
        assert_eq!(frontend_api_host("pk_test_bm90IGEgaG9zdA"), None, "no trailing $");
        assert_eq!(frontend_api_host("sk_test_abc"), None);
    }

    #[test]
    fn only_the_embed_page_may_name_ancestors() {
        let allowed = FrameAncestors(vec!["https://a.example".into(), "https://b.example:8443".into()]);
        assert_eq!(frame_ancestors("/embed/waitlist/beta", Some(&allowed)), "https://a.example https://b.example:8443");
        assert_eq!(frame_ancestors("/embed/waitlist/beta", None), "'none'");
        assert_eq!(frame_ancestors("/embed/waitlist/beta", Some(&FrameAncestors(vec![]))), "'none'");
        assert_eq!(frame_ancestors("/waitlist/beta", Some(&allowed)), "'none'");
    }

    #[test]
    fn an_origin_drops_the_path() {
        assert_eq!(origin_of("http://127.0.0.1:4000/v1").as_deref(), Some("http://127.0.0.1:4000"));
        assert_eq!(origin_of("not a url"), None);
    }
}
