//! The built SPA (`STATIC_DIR`). The shell (`index.html`, `no-cache`) is served only on
//! the SPA's own client routes; hashed assets are cached for a year; anything else is a
//! plain 404, never the shell. The shell holds no private data: private content only
//! ever arrives through the API.

use actix_files::{Files, NamedFile};
use actix_web::http::header::{HeaderValue, CACHE_CONTROL};
use actix_web::middleware::DefaultHeaders;
use actix_web::{web, HttpRequest, HttpResponse};
use std::path::PathBuf;

/// Client routes of the SPA (SPEC §8).
const SHELL_ROUTES: &[&str] =
    &["/", "/sign-in", "/me", "/redeem", "/waitlist/{slug}", "/early-access/{slug}", "/owner", "/owner/{tail:.*}"];

pub fn configure(cfg: &mut web::ServiceConfig, static_dir: &str) {
    let index = PathBuf::from(static_dir).join("index.html");
    for route in SHELL_ROUTES {
        let index = index.clone();
        cfg.route(route, web::get().to(move |req: HttpRequest| shell(req, index.clone())));
    }
    cfg.service(
        web::scope("")
            .wrap(DefaultHeaders::new().add((CACHE_CONTROL, "public, max-age=31536000, immutable")))
            .service(Files::new("/", static_dir).use_etag(true).default_handler(web::to(not_found))),
    );
}

async fn shell(req: HttpRequest, index: PathBuf) -> HttpResponse {
    match NamedFile::open_async(&index).await {
        Ok(file) => {
            let mut response = file.use_etag(true).into_response(&req);
            response.headers_mut().insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            response
        }
        Err(_) => HttpResponse::ServiceUnavailable()
            .insert_header((CACHE_CONTROL, "no-store"))
            .body("The web app has not been built (scripts/build-web)."),
    }
}

async fn not_found() -> HttpResponse {
    HttpResponse::NotFound().insert_header((CACHE_CONTROL, "no-store")).content_type("text/plain").body("Not found")
}
