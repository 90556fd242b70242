//! Latencies and status counts of one cell. Every latency is kept (microseconds, a few
//! hundred thousand at most per cell) and sorted once, so percentiles are exact.

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

/// What one client task saw.
#[derive(Debug, Default)]
pub struct Sample {
    micros: Vec<u32>,
    statuses: BTreeMap<String, u64>,
}

impl Sample {
    /// One request: its status (`None` for a transport error) and its latency.
    pub fn record(&mut self, status: Option<u16>, took: Duration) {
        self.micros.push(u32::try_from(took.as_micros()).unwrap_or(u32::MAX));
        let key = status.map_or_else(|| "transport_error".to_owned(), |s| s.to_string());
        *self.statuses.entry(key).or_default() += 1;
    }

    pub fn merge(&mut self, other: Sample) {
        self.micros.extend(other.micros);
        for (k, v) in other.statuses {
            *self.statuses.entry(k).or_default() += v;
        }
    }

    pub fn report(mut self, elapsed: Duration) -> Report {
        self.micros.sort_unstable();
        let pct = |p: f64| -> f64 {
            if self.micros.is_empty() {
                return 0.0;
            }
            let rank = ((p / 100.0) * self.micros.len() as f64).ceil() as usize;
            f64::from(self.micros[rank.clamp(1, self.micros.len()) - 1]) / 1000.0
        };
        let requests = self.micros.len() as u64;
        let seconds = elapsed.as_secs_f64();
        Report {
            scenario: String::new(),
            concurrency: 0,
            seconds: round(seconds, 2),
            requests,
            throughput: round(requests as f64 / seconds.max(1e-9), 1),
            p50_ms: round(pct(50.0), 2),
            p95_ms: round(pct(95.0), 2),
            p99_ms: round(pct(99.0), 2),
            max_ms: round(pct(100.0), 2),
            statuses: self.statuses,
            notes: BTreeMap::new(),
        }
    }
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// One cell's result, as printed (`--json` prints exactly these fields).
#[derive(Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub concurrency: usize,
    pub seconds: f64,
    pub requests: u64,
    /// Answered requests per second (any status).
    pub throughput: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Status code (or `transport_error`) → count.
    pub statuses: BTreeMap<String, u64>,
    /// Anything else a row reports (sizes, memory), printed as further JSON fields.
    #[serde(flatten)]
    pub notes: BTreeMap<String, Value>,
}

impl Report {
    pub fn named(mut self, scenario: &str, concurrency: usize) -> Report {
        self.scenario = scenario.to_owned();
        self.concurrency = concurrency;
        self
    }

    /// A row that is not a request measurement: only how long something took.
    pub fn single(scenario: &str, seconds: f64) -> Report {
        let mut r = Sample::default().report(Duration::from_secs_f64(seconds));
        r.scenario = scenario.to_owned();
        r.seconds = round(seconds, 2);
        r
    }

    pub fn note(&mut self, key: &str, value: Value) {
        self.notes.insert(key.to_owned(), value);
    }

    pub fn header() -> String {
        format!(
            "{:<11} {:>4} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8}  statuses",
            "scenario", "c", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms"
        )
    }

    pub fn row(&self) -> String {
        let mut statuses: Vec<String> = self.statuses.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        statuses.extend(self.notes.iter().map(|(k, v)| format!("{k}={v}")));
        format!(
            "{:<11} {:>4} {:>8} {:>9.1} {:>8.2} {:>8.2} {:>8.2} {:>8.2}  {}",
            self.scenario,
            self.concurrency,
            self.requests,
            self.throughput,
            self.p50_ms,
            self.p95_ms,
            self.p99_ms,
            self.max_ms,
            statuses.join(" ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_ranks_of_the_sorted_latencies() {
        let mut s = Sample::default();
        for ms in (1..=100).rev() {
            s.record(Some(202), Duration::from_millis(ms));
        }
        s.record(None, Duration::from_millis(1000));
        let r = s.report(Duration::from_secs(1));
        assert_eq!(r.requests, 101);
        assert_eq!(r.p50_ms, 51.0);
        assert_eq!(r.p99_ms, 100.0);
        assert_eq!(r.max_ms, 1000.0);
        assert_eq!(r.statuses["202"], 100);
        assert_eq!(r.statuses["transport_error"], 1);
    }
}
