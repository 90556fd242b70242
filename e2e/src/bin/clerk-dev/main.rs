//! `clerk-dev`: a Clerk-compatible identity stand-in for local development and the
//! black-box tests (SPEC §3.3). It keeps users, email addresses and sessions in memory,
//! signs RS256 session tokens with an RSA-2048 key generated at start, and serves:
//!
//! * `/v1/*` — a Backend API subset, behind `Authorization: Bearer <--secret-key>`: JWKS;
//!   users (create, with a name if given; get, delete, metadata merge, their organization
//!   memberships); email addresses; sessions, session tokens and revocation;
//!   organizations (create, get) and their memberships (add, remove, list);
//! * `/dev/*` — no secret, CORS for `--allowed-origin`: `POST /dev/sign-in {email}`,
//!   `POST /dev/sessions/{id}/tokens` and
//!   `POST /dev/faults {"users"?: "unavailable"|"ok", "writes"?: "unavailable"|"ok",
//!   "writeDelayMs"?: N}`.
//!
//! Clerk's official Backend SDK (`@clerk/backend`) works against it: `e2e/sdk/` drives
//! every endpoint through the SDK.
//!
//! Extensions beyond Clerk, for tests only:
//! * `POST /v1/sessions/{id}/tokens` accepts `issued_offset_seconds` (an integer, may be
//!   negative, at most ten years either way) that shifts `iat`, `nbf` and `exp` by that
//!   many seconds, to mint an already-expired or a not-yet-valid token. `nbf` always
//!   equals `iat`.
//! * `POST /dev/faults` injects Backend API outages and slow writes.
//!
//! After binding it prints exactly one line, `clerk-dev listening on http://IP:PORT`, to
//! stdout, then serves. It logs nothing else: paths and bodies carry user ids and emails.

mod backend;
mod dev;
mod error;
mod keys;
mod model;
mod state;
mod store;

use std::io::Write;
use std::net::TcpListener;

use actix_web::http::header::HeaderValue;
use actix_web::middleware::from_fn;
use actix_web::web::{self, Data, JsonConfig, PayloadConfig, QueryConfig};
use actix_web::{App, HttpServer, ResponseError};
use anyhow::{bail, Context};
use clap::Parser;

use crate::error::{json_error, query_error, ClerkError};
use crate::keys::SigningKey;
use crate::state::AppState;

/// Upper bound on request bodies.
const BODY_LIMIT: usize = 32 * 1024;

/// Clerk-compatible identity stand-in (Backend API subset plus dev sign-in).
#[derive(Debug, Parser)]
#[command(name = "clerk-dev", version)]
struct Args {
    /// Address to listen on; port 0 picks a free port (see the printed line).
    #[arg(long, default_value = "127.0.0.1:0")]
    bind: String,
    /// The Backend API secret key expected as `Authorization: Bearer <KEY>` on /v1/*.
    #[arg(long)]
    secret_key: String,
    /// Default session-token lifetime in seconds.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(i64).range(1..=86_400))]
    token_ttl: i64,
    /// Browser origin allowed to call /dev/* (repeatable and/or comma-separated),
    /// e.g. http://127.0.0.1:8080.
    #[arg(long = "allowed-origin", value_delimiter = ',')]
    allowed_origins: Vec<String>,
}

/// An origin is `http(s)://host[:port]`: no path, no trailing slash, no wildcard.
fn check_origin(origin: &str) -> anyhow::Result<()> {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .with_context(|| format!("--allowed-origin {origin:?} must start with http:// or https://"))?;
    if rest.is_empty() || rest.contains(['/', '*', '?', '#']) || HeaderValue::from_str(origin).is_err() {
        bail!("--allowed-origin {origin:?} must be scheme://host[:port]");
    }
    Ok(())
}

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.secret_key.is_empty() {
        bail!("--secret-key must not be empty");
    }
    let origins: Vec<String> =
        args.allowed_origins.into_iter().map(|o| o.trim().to_owned()).filter(|o| !o.is_empty()).collect();
    for origin in &origins {
        check_origin(origin)?;
    }

    let listener = TcpListener::bind(&args.bind).with_context(|| format!("binding {}", args.bind))?;
    let url = format!("http://{}", listener.local_addr().context("reading the bound address")?);
    let key = SigningKey::generate(url.clone())?;
    let state = Data::new(AppState::new(key, args.secret_key, args.token_ttl));

    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(JsonConfig::default().limit(BODY_LIMIT).error_handler(json_error))
            .app_data(PayloadConfig::new(BODY_LIMIT))
            .app_data(QueryConfig::default().error_handler(query_error))
            .service(web::scope("/v1").wrap(from_fn(backend::require_secret)).configure(backend::routes))
            .service(web::scope("/dev").wrap(dev::cors(&origins)).configure(dev::routes))
            .default_service(web::to(|| async { ClerkError::not_found("resource").error_response() }))
    })
    .workers(2)
    .listen(listener)
    .context("listening")?
    .run();

    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "clerk-dev listening on {url}")?;
    stdout.flush()?;
    drop(stdout);

    server.await.context("serving")
}
