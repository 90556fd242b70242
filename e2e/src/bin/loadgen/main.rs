//! `loadgen`: drives a *running* Vestibule stack over HTTP with many concurrent clients
//! and reports throughput, latency percentiles and status counts per cell (one scenario
//! at one concurrency). Policy: it only ever talks to loopback addresses, every cell is
//! bounded in time (`--seconds`) and optionally in requests (`--requests`), and it
//! arranges state the way a person would — the owner API, `clerk-dev`'s Backend API —
//! reaching for the `vestibule owner bootstrap` CLI only when no owner is given.
//!
//! Scenarios: `signup-one` (new signups into one program), `signup-16` (new signups
//! spread over 16 programs), `replay` (same-key replays of committed signups), `read`
//! (private content reads by signed-in grant holders), `redeem` (concurrent
//! redemptions of pre-issued codes) and `redeem-cohort` (one cohort code redeemed by
//! as many new users as it has uses, each accepting the notice). Every cell gets fresh
//! programs.
//!
//! `signup-pow` is `signup-one` into a program whose proof of work is `normal` (issue 15):
//! each signup carries a solved ALTCHA challenge, solved exactly as the SPA's Web Worker
//! solves and encodes it (`pow.rs`). What it measures is the *server's* cost of proof of
//! work (the challenge check and the spent-solution row), so the clients' hashing is kept
//! out of the timed window: before the cell, loadgen fetches and solves a pool of
//! challenges (`--pow-pool`, or sized from a one-second `signup-one`-style calibration at
//! the same concurrency × the cell's length × 1.5), then the cell only sends signups, one
//! solution each (each is single-use). On two shared cores, solving during the window
//! would take CPU from the API and PostgreSQL and measure the client instead. Challenges
//! expire after 10 minutes, so a `signup-pow` cell runs at most 300 s. Its report says
//! how big the pool was, how much the cell used and whether it ran out (the cell then
//! ends early, and its req/s covers only the time it ran).
//!
//! `scale` is different: it fills the database through SQL first (`--fill-entries`,
//! needs `--database-url`), then measures the owner's reads, the export and the bulk
//! actions on a large program, and signups into it (see `scale.rs`).

mod client;
mod cpu;
mod driver;
mod fill;
mod pow;
mod scale;
mod scenarios;
mod setup;
mod stats;

use anyhow::{bail, Context};
use clap::{Parser, ValueEnum};
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scenario {
    SignupOne,
    SignupPow,
    /// `signup-one` into a program whose notice asks three questions, every request
    /// answering all three (issue 31).
    SignupAnswers,
    #[value(name = "signup-16")]
    Signup16,
    Replay,
    /// The signup form's public read (`GET /api/public/programs/{slug}`), across the 16
    /// programs of `signup-16`: one statement and no write, the cheapest request that
    /// reaches PostgreSQL — what HTTP and a pooled round trip alone cost, beside the
    /// admission ceiling.
    Public,
    Read,
    Redeem,
    /// `redeem` of one cohort code by as many new users (each accepting the notice): a
    /// launch that hands one code to a crowd.
    RedeemCohort,
    Scale,
}

impl Scenario {
    pub fn name(self) -> &'static str {
        match self {
            Scenario::SignupOne => "signup-one",
            Scenario::SignupPow => "signup-pow",
            Scenario::SignupAnswers => "signup-answers",
            Scenario::Signup16 => "signup-16",
            Scenario::Replay => "replay",
            Scenario::Public => "public",
            Scenario::Read => "read",
            Scenario::Redeem => "redeem",
            Scenario::RedeemCohort => "redeem-cohort",
            Scenario::Scale => "scale",
        }
    }
}

/// Load generator for a running Vestibule stack (loopback only).
#[derive(Debug, Parser)]
#[command(name = "loadgen")]
pub struct Args {
    /// The API's base URL, e.g. http://127.0.0.1:18080.
    #[arg(long)]
    api: String,
    /// clerk-dev's base URL (start it with --token-ttl 3600).
    #[arg(long)]
    identity: String,
    /// clerk-dev's Backend API secret key.
    #[arg(long)]
    secret_key: String,
    /// An origin in the API's APP_ORIGINS, sent on every mutating request.
    #[arg(long)]
    origin: String,
    /// The owner (a clerk-dev user id) and their workspace; without them, loadgen makes
    /// a user and runs `vestibule owner bootstrap` against --database-url.
    #[arg(long, requires = "workspace")]
    owner_user: Option<String>,
    #[arg(long)]
    workspace: Option<String>,
    /// The API's database: for the bootstrap (with the `vestibule` binary) and for
    /// `scale`'s fill.
    #[arg(long)]
    database_url: Option<String>,
    #[arg(long, default_value = "target/release/vestibule")]
    vestibule: String,
    #[arg(long, value_enum)]
    scenario: Scenario,
    /// Concurrent clients; a comma-separated list runs one cell per value.
    #[arg(long, value_delimiter = ',', default_value = "1,8,64")]
    concurrency: Vec<usize>,
    /// Length of each cell.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Stop a cell after this many requests (whichever of time and count comes first).
    #[arg(long)]
    requests: Option<u64>,
    /// `redeem`: codes issued before each cell (the cell ends early when they run out);
    /// `redeem-cohort`: the uses of its one code, and as many users.
    #[arg(long, default_value_t = 1500)]
    codes: usize,
    /// `signup-pow`: challenges solved before each cell (one per request; the cell ends
    /// early when they run out). Without it, sized from a one-second calibration.
    #[arg(long)]
    pow_pool: Option<usize>,
    /// Print one JSON object per cell instead of a table.
    #[arg(long)]
    json: bool,
    /// `scale`: entries to put in the database before measuring (0 = an empty database).
    #[arg(long, default_value_t = 0)]
    fill_entries: i64,
    /// `scale`: free places left in the measured program (and the most signups sent to it).
    #[arg(long, default_value_t = 5_000)]
    cap_room: i64,
    /// `scale`: requests per owner-read row.
    #[arg(long, default_value_t = 200)]
    samples: u64,
    /// `scale`: the API's process id, to report its peak RSS during the export.
    #[arg(long)]
    api_pid: Option<u32>,
    /// A process whose CPU time over each cell's timed window is reported per request
    /// (`cpu_us`): `name=pid`, `name=pid+` to count its children too (a PostgreSQL
    /// postmaster), or `name=self` for loadgen itself. Repeatable.
    #[arg(long = "cpu", value_parser = cpu::parse)]
    cpu: Vec<cpu::Watched>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    for url in [&args.api, &args.identity] {
        if !client::is_loopback(url) {
            bail!("{url} is not a loopback address: loadgen only drives a local stack");
        }
    }
    if args.concurrency.iter().any(|&c| c == 0 || c > 1024) {
        bail!("--concurrency values must be 1..=1024");
    }
    if !(args.seconds > 0.0 && args.seconds <= 600.0) {
        bail!("--seconds must be in (0, 600]");
    }
    if args.scenario == Scenario::SignupPow && args.seconds > 300.0 {
        bail!("signup-pow: --seconds must be at most 300 (its pre-solved challenges expire after 10 minutes)");
    }
    let ctx = setup::Context::connect(&args).await.context("arranging the owner")?;
    if !args.json {
        println!("{}", stats::Report::header());
    }
    let json = args.json;
    let mut emit = move |report: stats::Report| {
        if json {
            println!("{}", serde_json::to_string(&report).expect("a report serializes"));
        } else {
            println!("{}", report.row());
        }
    };
    if args.scenario == Scenario::Scale {
        if !(0..=2_000_000).contains(&args.fill_entries) || !(1..=50_000).contains(&args.cap_room) {
            bail!("--fill-entries must be 0..=2000000 and --cap-room 1..=50000");
        }
        let opts = scale::Options {
            database_url: args.database_url.clone().context("scale needs --database-url")?,
            fill_entries: args.fill_entries,
            cap_room: args.cap_room,
            api_pid: args.api_pid,
            samples: args.samples.max(1),
            clients: args.concurrency[0],
            seconds: args.seconds,
        };
        return scale::run(&ctx, &opts, &mut emit).await;
    }
    let max_clients = *args.concurrency.iter().max().expect("at least one concurrency");
    let shared = scenarios::prepare_shared(&ctx, args.scenario, max_clients).await?;
    for &clients in &args.concurrency {
        let workload = Arc::new(scenarios::prepare_cell(&ctx, &args, clients, shared.as_ref()).await?);
        let limits = driver::Limits { duration: Duration::from_secs_f64(args.seconds), requests: args.requests };
        let before = cpu::sample(&args.cpu);
        let mut report = driver::run(&ctx.api, workload.clone(), clients, limits).await;
        if !args.cpu.is_empty() {
            let after = cpu::sample(&args.cpu);
            report.note("cpu_us", cpu::per_request(&args.cpu, &before, &after, report.requests));
        }
        workload.annotate(&mut report);
        emit(report.named(args.scenario.name(), clients));
    }
    Ok(())
}
