//! The closed loop: `clients` tasks share one HTTP client, each sending its next request
//! as soon as the previous answer has been read in full, until the cell's time or
//! request budget is spent or the workload runs out. Latency is measured per request
//! from send to the last body byte.

use crate::client::Api;
use crate::scenarios::Workload;
use crate::stats::{Report, Sample};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub duration: Duration,
    pub requests: Option<u64>,
}

/// Runs one cell; pass an `Arc` to look at the workload afterwards (`Workload::annotate`).
pub async fn run(api: &Api, workload: impl Into<Arc<Workload>>, clients: usize, limits: Limits) -> Report {
    let workload: Arc<Workload> = workload.into();
    let issued = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let deadline = started + limits.duration;
    let tasks: Vec<_> = (0..clients)
        .map(|worker| {
            let (api, workload, issued) = (api.clone(), workload.clone(), issued.clone());
            tokio::spawn(async move {
                let mut sample = Sample::default();
                let mut seq = 0u64;
                while Instant::now() < deadline {
                    if limits.requests.is_some_and(|max| issued.fetch_add(1, Ordering::Relaxed) >= max) {
                        break;
                    }
                    let Some(request) = workload.request(&api, worker, seq) else { break };
                    seq += 1;
                    let t = Instant::now();
                    let status = match request.send().await {
                        Ok(r) => {
                            let status = r.status().as_u16();
                            match r.bytes().await {
                                Ok(_) => Some(status),
                                Err(_) => None,
                            }
                        }
                        Err(_) => None,
                    };
                    sample.record(status, t.elapsed());
                }
                sample
            })
        })
        .collect();
    let mut total = Sample::default();
    for t in tasks {
        match t.await {
            Ok(s) => total.merge(s),
            Err(e) => eprintln!("loadgen: a client task failed: {e}"),
        }
    }
    total.report(started.elapsed())
}
