//! Structured logs. Policy: log lines carry route patterns, statuses, ids of our own
//! rows and error kinds — never emails, codes, tokens, identity-provider ids or bodies.
//! `RUST_LOG` filters; `LOG_FORMAT=json` switches to one JSON object per line.

use tracing_subscriber::EnvFilter;

/// Libraries whose debug output carries data (statement parameters, URLs, headers):
/// capped at `info` whatever `RUST_LOG` asks for.
const DATA_BEARING: &[&str] = &[
    "tokio_postgres",
    "postgres_protocol",
    "deadpool_postgres",
    "reqwest",
    "hyper",
    "hyper_util",
    "h2",
    "rustls",
    "actix_http",
    "actix_web",
    "actix_server",
];

/// `RUST_LOG` (default `info`) with the data-bearing libraries capped.
pub fn filter_spec(requested: Option<&str>) -> String {
    let mut directives: Vec<String> = requested
        .unwrap_or("info")
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty() && !DATA_BEARING.iter().any(|lib| d.starts_with(lib)))
        .map(str::to_owned)
        .collect();
    directives.extend(DATA_BEARING.iter().map(|lib| format!("{lib}=info")));
    directives.join(",")
}

pub fn init() {
    let spec = filter_spec(std::env::var("RUST_LOG").ok().as_deref());
    let filter = EnvFilter::try_new(&spec).unwrap_or_else(|_| EnvFilter::new(filter_spec(None)));
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

#[cfg(test)]
mod tests {
    use super::filter_spec;

    #[test]
    fn data_bearing_libraries_stay_at_info() {
        let spec = filter_spec(Some("debug,tokio_postgres=trace"));
        assert!(spec.starts_with("debug,"));
        assert!(!spec.contains("tokio_postgres=trace"));
        assert!(spec.contains("tokio_postgres=info"));
    }
}
