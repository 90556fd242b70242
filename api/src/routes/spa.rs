//! The SPA over HTTP (SPEC §6.1, §8), from [`crate::assets`]. The shell (`index.html`)
//! is served only on the SPA's own client routes; a built file is served by its name;
//! anything else is a plain 404, never the shell. The shell holds no private data:
//! private content only ever arrives through the API.
//!
//! Caching: names carrying Trunk's content hash are `immutable` for a year; the shell and
//! any unhashed file are `no-cache` (revalidated by a strong `ETag`, answered 304). Every
//! file response picks the stored coding by `Accept-Encoding` — brotli, then gzip, then
//! none — and says `Vary: Accept-Encoding`. `HEAD` answers as `GET` without the body
//! (uptime monitors use it).

use crate::assets::{Assets, Coding};
use crate::http::security_headers::FrameAncestors;
use crate::routes::{form_page, views};
use crate::state::AppState;
use crate::usecases::public;
use actix_web::http::header::{self, HeaderMap, HeaderValue};
use actix_web::{guard, web, HttpRequest, HttpResponse, Route};
use shared::Slug;
use std::borrow::Cow;

/// Client routes of the SPA (SPEC §8) and the shell of the bundle that holds each page
/// (`web/Cargo.toml`: the public pages alone, and the console with every page), matched in
/// this order. The SPA's route table (`web/src/app.rs`) makes the same split; an owner page
/// reached from the public bundle reloads (`web/src/routes/elsewhere.rs`) and gets the
/// console's shell here. A build of the whole app in one bundle has only [`SHELL`], which
/// then answers every route.
const SHELL_ROUTES: &[(&str, &str)] = &[
    ("/", SHELL),
    ("/sign-in", SHELL),
    ("/me", SHELL),
    ("/redeem", SHELL),
    ("/waitlist/{slug}/draws", SHELL),
    // The content renderer (Markdown) would take the public bundle over its budget: a
    // recipient reading early access loads the whole app, an applicant never does.
    ("/early-access/{slug}", CONSOLE),
    ("/owner", CONSOLE),
    ("/owner/{tail:.*}", CONSOLE),
];

/// The signup form: the shell written for the program (`routes::form_page`).
const FORM_ROUTE: &str = "/waitlist/{slug}";

/// The embeddable signup form (issue 15): the same shell, framable by the program's
/// allowed origins ([`FrameAncestors`]).
const EMBED_ROUTE: &str = "/embed/waitlist/{slug}";

const SHELL: &str = "index.html";
/// The console's shell: every page, the owner's among them (`scripts/build-web`).
const CONSOLE: &str = "console.html";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
const REVALIDATE: &str = "no-cache";

pub fn configure(cfg: &mut web::ServiceConfig, static_dir: Option<&str>) {
    cfg.app_data(web::Data::new(Assets::new(static_dir)));
    for &(route, name) in SHELL_ROUTES {
        cfg.route(
            route,
            get_or_head().to(move |req: HttpRequest, assets: web::Data<Assets>| shell_of(req, assets, name)),
        );
    }
    cfg.route(FORM_ROUTE, get_or_head().to(form_shell));
    cfg.route(EMBED_ROUTE, get_or_head().to(embed_shell));
    cfg.route("/{file:.*}", get_or_head().to(file));
}

fn get_or_head() -> Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

/// The shell `name`, or the whole app's [`SHELL`] when this build has no such bundle.
async fn shell_of(req: HttpRequest, assets: web::Data<Assets>, name: &'static str) -> HttpResponse {
    match respond(&req, &assets, name).await {
        Some(response) => response,
        None => shell(req, assets).await,
    }
}

async fn shell(req: HttpRequest, assets: web::Data<Assets>) -> HttpResponse {
    match respond(&req, &assets, SHELL).await {
        Some(response) => response,
        None => not_built(),
    }
}

fn not_built() -> HttpResponse {
    HttpResponse::ServiceUnavailable()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .content_type("text/plain; charset=utf-8")
        .body("The web app was not built into this server (run scripts/build-web, then rebuild).")
}

/// The shell for `/waitlist/{slug}`, written for the program when it is public
/// (`routes::form_page`); the plain shell otherwise.
async fn form_shell(req: HttpRequest, assets: web::Data<Assets>, state: web::Data<AppState>) -> HttpResponse {
    let slug = req.match_info().get("slug").and_then(|s| Slug::parse(s).ok());
    match form_page(&req, &assets, &state, slug.as_ref(), form_page::Mode::Page).await {
        Some(response) => response,
        None => shell(req, assets).await,
    }
}

/// The shell for `/embed/waitlist/{slug}`, carrying the program's allowed framing
/// origins for the security headers. Anything that is not a public program with origins
/// (or a database failure) gets none (`usecases::public::embed_origins`): the page is
/// then not framable at all.
async fn embed_shell(req: HttpRequest, assets: web::Data<Assets>, state: web::Data<AppState>) -> HttpResponse {
    let slug = req.match_info().get("slug").and_then(|s| Slug::parse(s).ok());
    let origins = match &slug {
        Some(slug) => public::embed_origins(&state.pool, slug).await,
        None => Vec::new(),
    };
    let mode = form_page::Mode::embed_from_query(req.query_string());
    let mut response = match form_page(&req, &assets, &state, slug.as_ref(), mode).await {
        Some(response) => response,
        None => shell(req, assets).await,
    };
    if !origins.is_empty() {
        response.extensions_mut().insert(FrameAncestors(origins));
    }
    response
}

/// The form's page for a public program, written by the server (`routes::form_page`);
/// `None` (the plain shell then) for anything else, a database failure included. Not
/// cached: it changes with the program (`no-cache`, no validator).
async fn form_page(
    req: &HttpRequest,
    assets: &Assets,
    state: &AppState,
    slug: Option<&Slug>,
    mode: form_page::Mode,
) -> Option<HttpResponse> {
    let slug = slug?;
    let program = public::program(&state.pool, slug).await.ok()?;
    let program = views::public_program(slug, program);
    let shell = assets.get(SHELL, Coding::Identity).await?;
    let shell = std::str::from_utf8(&shell.bytes).ok()?;
    let page = form_page::write(shell, &program, mode);
    let mut response = HttpResponse::Ok();
    response
        .insert_header((header::CACHE_CONTROL, REVALIDATE))
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"));
    Some(if req.method() == actix_web::http::Method::HEAD { response.finish() } else { response.body(page) })
}

async fn file(req: HttpRequest, assets: web::Data<Assets>) -> HttpResponse {
    // The raw path: a percent-encoded name is not a plain asset name and stays a 404.
    let name = req.path().trim_start_matches('/').to_owned();
    match respond(&req, &assets, &name).await {
        Some(response) => response,
        None => not_found(),
    }
}

/// The file `name` in the best stored coding the client accepts; `None` if it is absent.
async fn respond(req: &HttpRequest, assets: &Assets, name: &str) -> Option<HttpResponse> {
    let accept = req.headers().get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("");
    let mut found = None;
    for coding in Coding::PREFERENCE {
        if accepts(accept, coding) {
            if let Some(file) = assets.get(name, coding).await {
                found = Some((coding, file));
                break;
            }
        }
    }
    let (coding, file) = found?;
    let etag = format!("\"{}\"", file.etag);
    let cache = if crate::assets::is_content_hashed(name) { IMMUTABLE } else { REVALIDATE };
    let not_modified = if_none_match(req.headers(), &etag);
    let mut response = if not_modified { HttpResponse::NotModified() } else { HttpResponse::Ok() };
    response
        .insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, cache))
        .insert_header((header::VARY, "Accept-Encoding"));
    if not_modified {
        return Some(response.finish());
    }
    response.insert_header((header::CONTENT_TYPE, content_type(name)));
    if coding != Coding::Identity {
        response.insert_header((header::CONTENT_ENCODING, coding.token()));
    }
    let body = match file.bytes {
        Cow::Borrowed(bytes) => web::Bytes::from_static(bytes),
        Cow::Owned(bytes) => web::Bytes::from(bytes),
    };
    Some(response.body(body))
}

fn content_type(name: &str) -> HeaderValue {
    let mime = mime_guess::from_path(name).first_or_octet_stream();
    let textual = mime.type_() == mime_guess::mime::TEXT || mime.subtype() == mime_guess::mime::JAVASCRIPT;
    let value = if textual { format!("{}; charset=utf-8", mime.essence_str()) } else { mime.essence_str().to_owned() };
    HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static("application/octet-stream"))
}

/// Whether an `Accept-Encoding` value allows `coding`: its own entry decides, else `*`;
/// a `q` of 0 refuses. Identity is always acceptable (RFC 9110 §12.5.3: a server may
/// send it when nothing else is).
fn accepts(accept_encoding: &str, coding: Coding) -> bool {
    if coding == Coding::Identity {
        return true;
    }
    let mut wildcard = None;
    for part in accept_encoding.split(',') {
        let mut pieces = part.split(';');
        let token = pieces.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = pieces
            .filter_map(|p| p.trim().strip_prefix("q=").or_else(|| p.trim().strip_prefix("Q=")))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if token == coding.token() || (coding == Coding::Gzip && token == "x-gzip") {
            return q > 0.0;
        }
        if token == "*" {
            wildcard = Some(q > 0.0);
        }
    }
    wildcard.unwrap_or(false)
}

/// Whether `If-None-Match` names this representation (weak comparison, RFC 9110 §13.1.2).
fn if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    headers.get_all(header::IF_NONE_MATCH).filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(|tag| {
        let tag = tag.trim();
        tag == "*" || tag.trim_start_matches("W/") == etag
    })
}

fn not_found() -> HttpResponse {
    HttpResponse::NotFound()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .content_type("text/plain; charset=utf-8")
        .body("Not found")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_encoding_is_read_with_its_weights() {
        use Coding::*;
        assert!(accepts("gzip, deflate, br, zstd", Brotli));
        assert!(accepts("gzip, deflate, br", Gzip));
        assert!(!accepts("gzip", Brotli));
        assert!(!accepts("br;q=0, gzip", Brotli));
        assert!(accepts("br;q=0, gzip", Gzip));
        assert!(accepts("*", Brotli));
        assert!(!accepts("*;q=0", Gzip));
        assert!(!accepts("br;q=0, *", Brotli));
        assert!(accepts("x-gzip", Gzip));
        assert!(!accepts("", Gzip));
        assert!(accepts("", Identity));
        assert!(accepts("BR ; q=0.5", Brotli));
    }

    #[test]
    fn text_types_say_utf_8() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("web-1.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("web_bg.wasm"), "application/wasm");
    }
}
