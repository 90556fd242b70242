//! HTTP method semantics on the API scope (issue 30 item 1, RFC 9110): `HEAD` is answered
//! as the `GET` of the same path, without a body (§9.3.2), and a known path asked with a
//! method it does not serve is `405 Method Not Allowed` with `Allow` (§15.5.6) rather than
//! the uniform 404. The methods each path serves are read from the same registration the
//! OpenAPI document is collected from ([`learn`], called by `openapi::publish`), so a new
//! route is known here the moment it is registered.

use super::ApiError;
use actix_web::body::MessageBody;
use actix_web::dev::{ResourceDef, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{Error, HttpRequest, HttpResponse};
use std::sync::OnceLock;
use utoipa::openapi::OpenApi as Document;

/// Every documented path's pattern and the methods served there.
static ROUTES: OnceLock<Vec<(ResourceDef, Vec<Method>)>> = OnceLock::new();

/// Keeps the methods each path of the collected document serves (first call wins; every
/// worker collects the same document).
pub fn learn(doc: &Document) {
    ROUTES.get_or_init(|| {
        doc.paths
            .paths
            .iter()
            .map(|(path, item)| {
                let served = [
                    (Method::GET, item.get.is_some()),
                    (Method::POST, item.post.is_some()),
                    (Method::PUT, item.put.is_some()),
                    (Method::PATCH, item.patch.is_some()),
                    (Method::DELETE, item.delete.is_some()),
                ];
                (ResourceDef::new(path.as_str()), served.into_iter().filter(|(_, s)| *s).map(|(m, _)| m).collect())
            })
            .collect()
    });
}

/// The `Allow` value for `path`: every method some registered route serves there (a
/// `GET` brings `HEAD`), in a fixed order; `None` when no route has this path.
pub fn allow(path: &str) -> Option<String> {
    let routes = ROUTES.get()?;
    let mut methods: Vec<&Method> =
        routes.iter().filter(|(def, _)| def.is_match(path)).flat_map(|(_, methods)| methods).collect();
    if methods.is_empty() {
        return None;
    }
    let order = [Method::GET, Method::HEAD, Method::POST, Method::PUT, Method::PATCH, Method::DELETE];
    if methods.contains(&&Method::GET) {
        methods.push(&Method::HEAD);
    }
    let names: Vec<&str> = order.iter().filter(|m| methods.contains(m)).map(Method::as_str).collect();
    Some(names.join(", "))
}

/// `HEAD` is routed as `GET`: the handler runs as for a `GET` (which never mutates) and
/// the HTTP/1 encoder, which saw the request's own method, sends the head only, with the
/// `Content-Length` the body would have had.
pub async fn head_as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    if req.method() == Method::HEAD {
        req.head_mut().method = Method::GET;
    }
    next.call(req).await
}

/// What the API scope answers when no route took the request: 405 with `Allow` for a
/// known path, else the uniform JSON 404.
pub async fn unmatched(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    match allow(req.path()) {
        Some(allow) => Err(ApiError::MethodNotAllowed(allow)),
        None => Err(ApiError::NotFound),
    }
}
