//! Structured logs. Policy: log lines carry route patterns, statuses, ids of our own
//! rows and error kinds — never emails, codes, tokens, identity-provider ids or bodies.
//! `RUST_LOG` filters; `LOG_FORMAT=json` switches to one JSON object per line.

use tracing_subscriber::EnvFilter;

pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // tokio-postgres logs every statement's parameters (emails, digests) at DEBUG: never
    // below INFO, whatever RUST_LOG asks for.
    let filter = filter.add_directive("tokio_postgres=info".parse().expect("a valid directive"));
    use std::io::IsTerminal as _;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let result = if std::env::var("LOG_FORMAT").as_deref() == Ok("json") {
        builder.json().flatten_event(true).try_init()
    } else {
        builder.try_init()
    };
    // A second init (tests start several servers in one process) keeps the first.
    drop(result);
}
