//! What one request of each scenario is, and the state each cell starts from. Signup
//! cells get fresh programs (an empty queue each time); replays repeat keys committed
//! during setup; reads come from grant holders made once per run (one per client);
//! redemptions use codes issued before the cell, one code per request.

use crate::client::Caller;
use crate::setup::{signup_body, Context, Program, EMAIL_DOMAIN};
use crate::Scenario;
use reqwest::Method;
use std::sync::atomic::{AtomicUsize, Ordering};
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
    },
    Replay {
        slug: String,
        committed: Vec<(Uuid, String)>,
        notice_version: i64,
    },
    Read {
        slug: String,
        holders: Vec<Caller>,
    },
    Redeem {
        codes: Vec<(Caller, String)>,
        next: AtomicUsize,
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
    scenario: Scenario,
    clients: usize,
    codes: usize,
    shared: Option<&Shared>,
) -> anyhow::Result<Workload> {
    let tag = format!("{}-c{clients}", ctx.run);
    Ok(match scenario {
        Scenario::Scale => anyhow::bail!("scale runs on its own (scale.rs)"),
        Scenario::SignupOne => Workload::Signup { programs: vec![ctx.program(&ctx.slug("one"), false).await?], tag },
        Scenario::Signup16 => {
            let mut programs = Vec::with_capacity(16);
            for i in 0..16 {
                programs.push(ctx.program(&ctx.slug(&format!("p{i}")), false).await?);
            }
            Workload::Signup { programs, tag }
        }
        Scenario::Replay => {
            let program = ctx.program(&ctx.slug("replay"), false).await?;
            let emails = (0..REPLAY_KEYS).map(|i| format!("k{i}-{}@{EMAIL_DOMAIN}", program.slug)).collect();
            let committed = ctx.signups(&program, emails).await?;
            Workload::Replay { slug: program.slug, committed, notice_version: program.notice_version }
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
            Workload::Redeem { codes, next: AtomicUsize::new(0) }
        }
    })
}

impl Workload {
    /// Sends request number `seq` of client `worker`; `None` when the workload is used up.
    pub fn request(&self, ctx: &crate::client::Api, worker: usize, seq: u64) -> Option<reqwest::RequestBuilder> {
        match self {
            Workload::Signup { programs, tag } => {
                let program = &programs[(worker + seq as usize) % programs.len()];
                let email = format!("s{seq}-w{worker}-{tag}@{EMAIL_DOMAIN}");
                let path = format!("/api/public/programs/{}/signups", program.slug);
                Some(ctx.request(Method::POST, &path, None).json(&signup_body(
                    Uuid::new_v4(),
                    &email,
                    program.notice_version,
                )))
            }
            Workload::Replay { slug, committed, notice_version } => {
                let (key, email) = &committed[(worker * 7919 + seq as usize) % committed.len()];
                let path = format!("/api/public/programs/{slug}/signups");
                Some(ctx.request(Method::POST, &path, None).json(&signup_body(*key, email, *notice_version)))
            }
            Workload::Read { slug, holders } => {
                let holder = &holders[worker % holders.len()];
                Some(ctx.request(Method::GET, &format!("/api/me/early-access/{slug}"), Some(holder)))
            }
            Workload::Redeem { codes, next } => {
                let (caller, code) = codes.get(next.fetch_add(1, Ordering::Relaxed))?;
                let body = serde_json::json!({ "code": code });
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
