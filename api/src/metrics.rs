//! Prometheus metrics in the text exposition format, kept in process: request counts and
//! latencies by route pattern and status, identity-provider failures, admission
//! outcomes. Labels are route patterns and fixed words only — never ids or input.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};

const BUCKETS_MS: [f64; 10] = [1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 1000.0, 5000.0];

#[derive(Default)]
struct Histogram {
    count: u64,
    sum_ms: f64,
    buckets: [u64; BUCKETS_MS.len()],
}

#[derive(Default)]
struct Registry {
    requests: BTreeMap<(String, String, u16), Histogram>,
    counters: BTreeMap<(&'static str, &'static str), u64>,
}

fn registry() -> &'static Mutex<Registry> {
    static REGISTRY: OnceLock<Mutex<Registry>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

pub fn observe(method: &actix_web::http::Method, route: &str, status: u16, elapsed_ms: f64) {
    let mut r = registry().lock().unwrap_or_else(|p| p.into_inner());
    let h = r.requests.entry((method.to_string(), route.to_owned(), status)).or_default();
    h.count += 1;
    h.sum_ms += elapsed_ms;
    for (i, bound) in BUCKETS_MS.iter().enumerate() {
        if elapsed_ms <= *bound {
            h.buckets[i] += 1;
        }
    }
}

/// Counts an event in a fixed family, e.g. `count("admission", "admitted")`.
pub fn count(family: &'static str, outcome: &'static str) {
    let mut r = registry().lock().unwrap_or_else(|p| p.into_inner());
    *r.counters.entry((family, outcome)).or_default() += 1;
}

/// The exposition text; `pool` is (size, available, max).
pub fn render(pool: (usize, usize, usize)) -> String {
    let r = registry().lock().unwrap_or_else(|p| p.into_inner());
    let mut out = String::new();
    out.push_str("# TYPE vestibule_http_request_duration_ms histogram\n");
    for ((method, route, status), h) in &r.requests {
        let labels = format!("method=\"{method}\",route=\"{route}\",status=\"{status}\"");
        for (i, bound) in BUCKETS_MS.iter().enumerate() {
            let _ =
                writeln!(out, "vestibule_http_request_duration_ms_bucket{{{labels},le=\"{bound}\"}} {}", h.buckets[i]);
        }
        let _ = writeln!(out, "vestibule_http_request_duration_ms_bucket{{{labels},le=\"+Inf\"}} {}", h.count);
        let _ = writeln!(out, "vestibule_http_request_duration_ms_sum{{{labels}}} {}", h.sum_ms);
        let _ = writeln!(out, "vestibule_http_request_duration_ms_count{{{labels}}} {}", h.count);
    }
    out.push_str("# TYPE vestibule_events_total counter\n");
    for ((family, outcome), n) in &r.counters {
        let _ = writeln!(out, "vestibule_events_total{{family=\"{family}\",outcome=\"{outcome}\"}} {n}");
    }
    let (size, available, max) = pool;
    out.push_str("# TYPE vestibule_db_pool_connections gauge\n");
    let _ = writeln!(out, "vestibule_db_pool_connections{{kind=\"open\"}} {size}");
    let _ = writeln!(out, "vestibule_db_pool_connections{{kind=\"available\"}} {available}");
    let _ = writeln!(out, "vestibule_db_pool_connections{{kind=\"max\"}} {max}");
    out
}
