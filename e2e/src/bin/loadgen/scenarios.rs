//! What one request of each scenario is, and the state each cell starts from. Signup
//! cells get fresh programs (an empty queue each time); replays repeat keys committed
//! during setup; reads come from grant holders made once per run (one per client);
//! redemptions use codes issued before the cell, one code per request; proof-of-work
//! signups use challenges fetched and solved before the cell, one solution per request.

use crate::client::Caller;
use crate::driver::{self, Limits};
use crate::setup::{signup_body, three_answers, three_questions, Context, Program, EMAIL_DOMAIN};
use crate::stats::Report;
use crate::{pow, Args, Scenario};
use anyhow::Context as _;
use futures::stream::{self, StreamExt, TryStreamExt};
use reqwest::Method;
use serde_json::{json, Value};
use shared::api::Challenge;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// Committed signups per replay cell (replays pick among them).
const REPLAY_KEYS: usize = 256;

/// State made once per run and reused by every cell.
pub enum Shared {
    /// A program with content and access on, and one grant holder per client.
    Read { slug: String, holders: Vec<Caller> },
}

pub enum Workload {
    Signup {
        programs: Vec<Program>,
        tag: String,
        /// Whether each request answers [`crate::setup::three_questions`].
        answers: bool,
    },
    /// Signups into one program with proof of work on, each carrying one of `solutions`
    /// (solved before the cell); the cell ends early if they run out.
    SignupPow {
        program: Program,
        tag: String,
        solutions: Vec<String>,
        next: AtomicUsize,
        /// How the pool was made (printed with the cell's report).
        prep: Vec<(&'static str, Value)>,
    },
    Replay {
        slug: String,
        committed: Vec<(Uuid, String)>,
        notice_version: i64,
    },
    Public {
        slugs: Vec<String>,
    },
    Read {
        slug: String,
        holders: Vec<Caller>,
    },
    Redeem {
        codes: Vec<(Caller, String)>,
        next: AtomicUsize,
        /// A cohort code's use accepts the program's notice of this version.
        accepts: Option<i64>,
    },
    /// The same request every time, by one signed-in caller (the owner's reads).
    Fixed {
        method: Method,
        path: String,
        body: Option<serde_json::Value>,
        caller: Caller,
    },
}

pub async fn prepare_shared(ctx: &Context, scenario: Scenario, max_clients: usize) -> anyhow::Result<Option<Shared>> {
    if scenario != Scenario::Read {
        return Ok(None);
    }
    eprintln!("loadgen: setting up {max_clients} grant holders");
    let program = ctx.program(&ctx.slug("read"), true).await?;
    let holders = ctx.recipients(&program, max_clients, true).await?;
    Ok(Some(Shared::Read { slug: program.slug, holders: holders.into_iter().map(|r| r.caller).collect() }))
}

pub async fn prepare_cell(
    ctx: &Context,
    args: &Args,
    clients: usize,
    shared: Option<&Shared>,
) -> anyhow::Result<Workload> {
    let (scenario, codes) = (args.scenario, args.codes);
    let tag = format!("{}-c{clients}", ctx.run);
    Ok(match scenario {
        Scenario::Scale => anyhow::bail!("scale runs on its own (scale.rs)"),
        Scenario::SignupOne => {
            Workload::Signup { programs: vec![ctx.program(&ctx.slug("one"), false).await?], tag, answers: false }
        }
        Scenario::SignupAnswers => {
            let program = ctx.program_asking(&ctx.slug("answers"), false, three_questions()).await?;
            Workload::Signup { programs: vec![program], tag, answers: true }
        }
        Scenario::Signup16 => {
            let mut programs = Vec::with_capacity(16);
            for i in 0..16 {
                programs.push(ctx.program(&ctx.slug(&format!("p{i}")), false).await?);
            }
            Workload::Signup { programs, tag, answers: false }
        }
        Scenario::SignupPow => signup_pow(ctx, args, clients, tag).await?,
        Scenario::Replay => {
            let program = ctx.program(&ctx.slug("replay"), false).await?;
            let emails = (0..REPLAY_KEYS).map(|i| format!("k{i}-{}@{EMAIL_DOMAIN}", program.slug)).collect();
            let committed = ctx.signups(&program, emails).await?;
            Workload::Replay { slug: program.slug, committed, notice_version: program.notice_version }
        }
        Scenario::Public => {
            let mut slugs = Vec::with_capacity(16);
            for i in 0..16 {
                slugs.push(ctx.program(&ctx.slug(&format!("q{i}")), false).await?.slug);
            }
            Workload::Public { slugs }
        }
        Scenario::Read => match shared {
            Some(Shared::Read { slug, holders }) => Workload::Read { slug: slug.clone(), holders: holders.clone() },
            None => anyhow::bail!("read needs its holders"),
        },
        Scenario::Redeem => {
            eprintln!("loadgen: issuing {codes} codes for the c={clients} cell");
            let program = ctx.program(&ctx.slug("redeem"), true).await?;
            let recipients = ctx.recipients(&program, codes, false).await?;
            let codes = recipients.into_iter().filter_map(|r| Some((r.caller, r.code?))).collect();
            Workload::Redeem { codes, next: AtomicUsize::new(0), accepts: None }
        }
        Scenario::RedeemCohort => {
            eprintln!("loadgen: one cohort code of {codes} uses, and {codes} users, for the c={clients} cell");
            let program = ctx.program(&ctx.slug("cohort"), true).await?;
            let code = ctx.cohort_code(&program, codes).await?;
            let callers = ctx.users(&program.slug, codes).await?;
            let codes = callers.into_iter().map(|c| (c, code.clone())).collect();
            Workload::Redeem { codes, next: AtomicUsize::new(0), accepts: Some(program.notice_version) }
        }
    })
}

impl Workload {
    /// Sends request number `seq` of client `worker`; `None` when the workload is used up.
    pub fn request(&self, ctx: &crate::client::Api, worker: usize, seq: u64) -> Option<reqwest::RequestBuilder> {
        match self {
            Workload::Signup { programs, tag, answers } => {
                let program = &programs[(worker + seq as usize) % programs.len()];
                let email = format!("s{seq}-w{worker}-{tag}@{EMAIL_DOMAIN}");
                let path = format!("/api/public/programs/{}/signups", program.slug);
                let mut body = signup_body(Uuid::new_v4(), &email, program.notice_version);
                if *answers {
                    body["answers"] = three_answers(seq);
                }
                Some(ctx.request(Method::POST, &path, None).json(&body))
            }
            Workload::SignupPow { program, tag, solutions, next, .. } => {
                let altcha = solutions.get(next.fetch_add(1, Ordering::Relaxed))?;
                let email = format!("s{seq}-w{worker}-{tag}@{EMAIL_DOMAIN}");
                let path = format!("/api/public/programs/{}/signups", program.slug);
                let mut body = signup_body(Uuid::new_v4(), &email, program.notice_version);
                body["altcha"] = json!(altcha);
                Some(ctx.request(Method::POST, &path, None).json(&body))
            }
            Workload::Replay { slug, committed, notice_version } => {
                let (key, email) = &committed[(worker * 7919 + seq as usize) % committed.len()];
                let path = format!("/api/public/programs/{slug}/signups");
                Some(ctx.request(Method::POST, &path, None).json(&signup_body(*key, email, *notice_version)))
            }
            Workload::Public { slugs } => {
                let slug = &slugs[(worker + seq as usize) % slugs.len()];
                Some(ctx.request(Method::GET, &format!("/api/public/programs/{slug}"), None))
            }
            Workload::Read { slug, holders } => {
                let holder = &holders[worker % holders.len()];
                Some(ctx.request(Method::GET, &format!("/api/me/early-access/{slug}"), Some(holder)))
            }
            Workload::Redeem { codes, next, accepts } => {
                let (caller, code) = codes.get(next.fetch_add(1, Ordering::Relaxed))?;
                let body = match accepts {
                    None => serde_json::json!({ "code": code }),
                    Some(v) => serde_json::json!({ "code": code, "noticeVersion": v, "permission": true }),
                };
                Some(ctx.request(Method::POST, "/api/me/invitations/redeem", Some(caller)).json(&body))
            }
            Workload::Fixed { method, path, body, caller } => {
                let rb = ctx.request(method.clone(), path, Some(caller));
                Some(match body {
                    Some(b) => rb.json(b),
                    None => rb,
                })
            }
        }
    }
}

impl Workload {
    /// Adds what the cell's preparation and use of its pool say to its report: for
    /// `signup-pow`, the pool's size, how much of it the cell used and whether it ran out.
    pub fn annotate(&self, report: &mut Report) {
        if let Workload::SignupPow { solutions, next, prep, .. } = self {
            for (k, v) in prep {
                report.note(k, v.clone());
            }
            let asked = next.load(Ordering::Relaxed);
            report.note("pow_used", json!(asked.min(solutions.len())));
            report.note("pow_pool_ran_out", json!(asked > solutions.len()));
        }
    }
}

/// Most solutions one cell pre-solves.
const POW_POOL_MAX: usize = 200_000;
/// Headroom over the calibrated rate (the machine is noisy; running out ends the cell).
const POW_POOL_MARGIN: f64 = 1.5;

/// A `signup-pow` cell: a fresh program with proof of work `normal`, and a pool of
/// solved challenges big enough for the cell, all fetched and solved *before* the timed
/// window so the clients' hashing does not compete with the server for the CPU while it
/// is measured. Without `--pow-pool`, the pool is sized from a one-second calibration:
/// `signup-one`-style signups (proof of work off, a program of their own) at the same
/// concurrency, times the cell's length, times 1.5.
async fn signup_pow(ctx: &Context, args: &Args, clients: usize, tag: String) -> anyhow::Result<Workload> {
    let mut prep = Vec::new();
    let wanted = match args.pow_pool {
        Some(n) => n,
        None => {
            let program = ctx.program(&ctx.slug("powcal"), false).await?;
            let calibration = Workload::Signup { programs: vec![program], tag: format!("{tag}-cal"), answers: false };
            let limits = Limits { duration: Duration::from_secs(1), requests: None };
            let rate = driver::run(&ctx.api, calibration, clients, limits).await.throughput;
            prep.push(("pow_calibration_rps", json!(rate)));
            (rate * args.seconds * POW_POOL_MARGIN).ceil() as usize + clients
        }
    };
    let size = wanted.min(args.requests.map_or(usize::MAX, |r| r as usize)).clamp(1, POW_POOL_MAX);
    let program = ctx.program(&ctx.slug("pow"), false).await?;
    ctx.set_proof_of_work(&program, "normal").await?;

    eprintln!("loadgen: fetching and solving {size} challenges for the c={clients} cell");
    let started = Instant::now();
    let path = &format!("/api/public/programs/{}/challenge", program.slug);
    let challenges: Vec<Challenge> = stream::iter(0..size)
        .map(|_| async move {
            let v = ctx.api.call(Method::GET, path, None, None, &[200]).await?;
            serde_json::from_value::<Challenge>(v).context("a challenge")
        })
        .buffer_unordered(crate::setup::SETUP_PARALLELISM)
        .try_collect()
        .await?;
    let fetched = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let solutions = tokio::task::spawn_blocking(move || solve_all(&challenges)).await??;
    let solved = started.elapsed().as_secs_f64();
    eprintln!("loadgen: {size} challenges fetched in {fetched:.1} s, solved in {solved:.1} s");
    prep.push(("pow_pool", json!(size)));
    prep.push(("pow_fetch_s", json!((fetched * 100.0).round() / 100.0)));
    prep.push(("pow_solve_s", json!((solved * 100.0).round() / 100.0)));
    Ok(Workload::SignupPow { program, tag, solutions, next: AtomicUsize::new(0), prep })
}

/// Solves every challenge, on as many threads as the machine has cores (nothing else of
/// loadgen's runs meanwhile).
fn solve_all(challenges: &[Challenge]) -> anyhow::Result<Vec<String>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = challenges.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = challenges
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(pow::solve).collect::<Option<Vec<_>>>()))
            .collect();
        let mut all = Vec::with_capacity(challenges.len());
        for h in handles {
            let part = h.join().map_err(|_| anyhow::anyhow!("a solver thread panicked"))?;
            all.extend(part.context("a challenge without a solution")?);
        }
        Ok(all)
    })
}
