//! The `scale` scenario (issue 18, item 4): what the owner's and the applicant's
//! requests cost when the database is large, measured the same way on an empty one.
//! With `--fill-entries N` it first fills the database ([`crate::fill`]): one program at
//! its 100 000 cap, the measured program `--cap-room` places below it, the rest in
//! programs of just under 100 000. With `--fill-entries 0` the measured program is made
//! the same way, empty. Then, each a row of its own:
//!
//! * `scale-signup`: new signups into the measured program at the first `--concurrency`
//!   (at most `--cap-room` of them, so the cap is never met);
//! * `scale-signup-full`: signups into the program at its cap (each a 429; only when
//!   there is one): the cap check costs the same at any queue length;
//! * `scale-queue-first`, `scale-queue-deep`: the first page of the measured program's
//!   queue (100 entries), and the page nine tenths of the way down (its cursor found by
//!   walking every page, which is `scale-queue-walk`);
//! * `scale-search-rare`, `scale-search-common`: a search for a fragment of one entry's
//!   email, and for a fragment every entry has;
//! * `scale-stats`: the dashboard's numbers;
//! * `scale-program`: the program read (settings with its counts);
//! * `scale-export`: the whole program as CSV (bytes, and with `--api-pid`, the API's
//!   peak RSS during the exports alone: VmHWM is reset through `/proc/PID/clear_refs`);
//! * `scale-bulk-select-500`, `scale-bulk-issue-500`: one owner request each, selecting
//!   the first 500 waiting entries and issuing codes to those 500.
//!
//! The owner's reads run one client, `--samples` requests each.

use crate::client::{Api, Caller};
use crate::driver::{self, Limits};
use crate::fill::{self, Filled, Plan};
use crate::scenarios::Workload;
use crate::setup::Context;
use crate::stats::{Report, Sample};
use anyhow::{bail, Context as _};
use reqwest::Method;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use uuid::Uuid;

pub struct Options {
    pub database_url: String,
    pub fill_entries: i64,
    pub cap_room: i64,
    pub api_pid: Option<u32>,
    pub samples: u64,
    pub clients: usize,
    pub seconds: f64,
}

pub async fn run(ctx: &Context, opts: &Options, emit: &mut dyn FnMut(Report)) -> anyhow::Result<()> {
    let db = fill::connect(&opts.database_url).await?;
    let workspace = Uuid::parse_str(&ctx.workspace).context("workspace id")?;
    let plan = Plan { total: opts.fill_entries, room: opts.cap_room };
    let made = fill::fill(&db, workspace, &ctx.run, &plan).await?;
    let mut row = Report::single("scale-fill", made.seconds);
    row.note("entries", json!(opts.fill_entries));
    let sizes: Vec<i64> = made.full.iter().chain(&made.others).chain([&made.near]).map(|p| p.entries).collect();
    row.note("program_sizes", json!(sizes));
    emit(row);
    let near = made.near;
    let owner = &ctx.owner;

    // Signups into the measured program, never more than it has room for.
    let workload = Workload::Signup {
        programs: vec![program_of(&near)],
        tag: format!("{}-scale-c{}", ctx.run, opts.clients),
        answers: false,
    };
    let limits = Limits { duration: Duration::from_secs_f64(opts.seconds), requests: Some(opts.cap_room as u64) };
    emit(driver::run(&ctx.api, workload, opts.clients, limits).await.named("scale-signup", opts.clients));
    if let Some(full) = &made.full {
        let workload =
            Workload::Signup { programs: vec![program_of(full)], tag: format!("{}-full", ctx.run), answers: false };
        let limits = Limits { duration: Duration::from_secs_f64(opts.seconds), requests: Some(opts.samples) };
        emit(driver::run(&ctx.api, workload, opts.clients, limits).await.named("scale-signup-full", opts.clients));
    }

    // The queue: the first page, every page in turn, then the page 9/10 of the way down.
    let list = |cursor: Option<&str>| {
        let mut path = format!("/api/owner/programs/{}/entries?limit=100", near.id);
        if let Some(c) = cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        path
    };
    emit(fixed(&ctx.api, owner, Method::GET, &list(None), None, opts.samples).await.named("scale-queue-first", 1));
    let (walk, cursors, emails) = walk(&ctx.api, owner, &near).await?;
    emit(walk);
    let deep = cursors.get(cursors.len() * 9 / 10).cloned().flatten();
    emit(
        fixed(&ctx.api, owner, Method::GET, &list(deep.as_deref()), None, opts.samples)
            .await
            .named("scale-queue-deep", 1),
    );

    // Searches: a fragment of one entry's email from the middle of the queue (its local
    // part's first six characters after the first), and one every entry has.
    let search = format!("/api/owner/programs/{}/entries/search", near.id);
    let middle = emails.get(emails.len() / 2).context("the queue has entries")?;
    let rare: String = middle.split('@').next().unwrap_or_default().chars().skip(1).take(6).collect();
    let body = json!({"q": rare, "limit": 100});
    emit(fixed(&ctx.api, owner, Method::POST, &search, Some(body), opts.samples).await.named("scale-search-rare", 1));
    let body = json!({"q": "loadgen.example", "limit": 100});
    emit(fixed(&ctx.api, owner, Method::POST, &search, Some(body), opts.samples).await.named("scale-search-common", 1));

    let stats = format!("/api/owner/programs/{}/stats", near.id);
    emit(fixed(&ctx.api, owner, Method::GET, &stats, None, opts.samples).await.named("scale-stats", 1));
    let program = format!("/api/owner/programs/{}", near.id);
    emit(fixed(&ctx.api, owner, Method::GET, &program, None, opts.samples).await.named("scale-program", 1));

    // The export, three times, with the API's peak RSS over those three alone.
    let whole_run_peak = opts.api_pid.and_then(|pid| rss_kib(pid, "VmHWM"));
    if let Some(pid) = opts.api_pid {
        reset_peak_rss(pid)?;
    }
    let before = opts.api_pid.and_then(|pid| rss_kib(pid, "VmRSS"));
    let csv = format!("/api/owner/programs/{}/entries.csv", near.id);
    let (mut row, bytes, lines) = export(&ctx.api, owner, &csv, 3).await?;
    row.note("bytes", json!(bytes));
    row.note("entries", json!(lines.saturating_sub(1)));
    if let Some(pid) = opts.api_pid {
        row.note("api_rss_before_kib", json!(before));
        row.note("api_peak_rss_kib", json!(rss_kib(pid, "VmHWM")));
        row.note("api_peak_rss_before_kib", json!(whole_run_peak));
    }
    emit(row);

    // Bulk select of 500, then bulk issue of codes to those 500.
    let select = format!("/api/owner/programs/{}/entries/select-bulk", near.id);
    let body = json!({"count": 500, "reasonCode": "meets_policy"});
    let (row, answer) = once(&ctx.api, owner, Method::POST, &select, body).await?;
    emit(row.named("scale-bulk-select-500", 1));
    let ids: Vec<Value> = answer["selected"].as_array().context("selected ids")?.clone();
    if ids.len() != 500 {
        bail!("bulk select selected {} entries, not 500", ids.len());
    }
    let issue = format!("/api/owner/programs/{}/invitations/bulk", near.id);
    let expires = (chrono::Utc::now() + chrono::Duration::days(7)).to_rfc3339();
    let body = json!({"requestKey": Uuid::new_v4(), "entryIds": ids, "expiresAt": expires});
    let (row, _) = once(&ctx.api, owner, Method::POST, &issue, body).await?;
    emit(row.named("scale-bulk-issue-500", 1));
    Ok(())
}

fn program_of(p: &Filled) -> crate::setup::Program {
    crate::setup::Program { id: p.id.to_string(), slug: p.slug.clone(), notice_version: 1 }
}

/// `n` sequential requests of one kind by the owner.
async fn fixed(api: &Api, owner: &Caller, method: Method, path: &str, body: Option<Value>, n: u64) -> Report {
    let workload = Workload::Fixed { method, path: path.to_owned(), body, caller: owner.clone() };
    driver::run(api, workload, 1, Limits { duration: Duration::from_secs(600), requests: Some(n) }).await
}

/// One request, timed; insists on a 2xx and returns the JSON body (or null).
async fn once(api: &Api, owner: &Caller, method: Method, path: &str, body: Value) -> anyhow::Result<(Report, Value)> {
    let started = Instant::now();
    let r = api.request(method, path, Some(owner)).json(&body).send().await?;
    let status = r.status();
    let text = r.text().await?;
    let took = started.elapsed();
    if !status.is_success() {
        bail!("{path} answered {status}");
    }
    let mut sample = Sample::default();
    sample.record(Some(status.as_u16()), took);
    Ok((sample.report(took), serde_json::from_str(&text).unwrap_or(Value::Null)))
}

/// Every page of the program's queue in order: their latencies, the cursor that starts
/// each page (`None` for the first), and every email seen.
async fn walk(
    api: &Api,
    owner: &Caller,
    program: &Filled,
) -> anyhow::Result<(Report, Vec<Option<String>>, Vec<String>)> {
    let mut sample = Sample::default();
    let mut cursors = vec![None];
    let mut emails = Vec::new();
    let started = Instant::now();
    loop {
        let cursor: Option<String> = cursors.last().cloned().flatten();
        let mut path = format!("/api/owner/programs/{}/entries?limit=100", program.id);
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let t = Instant::now();
        let r = api.request(Method::GET, &path, Some(owner)).send().await?;
        let status = r.status().as_u16();
        let page: Value = r.json().await?;
        sample.record(Some(status), t.elapsed());
        if status != 200 {
            bail!("a queue page answered {status}");
        }
        for e in page["entries"].as_array().context("entries")? {
            emails.push(e["email"].as_str().context("email")?.to_owned());
        }
        match page["nextCursor"].as_str() {
            Some(c) if !c.is_empty() => cursors.push(Some(c.to_owned())),
            _ => break,
        }
    }
    Ok((sample.report(started.elapsed()).named("scale-queue-walk", 1), cursors, emails))
}

/// `n` full downloads of the export; the report, and the size and lines of one.
async fn export(api: &Api, owner: &Caller, path: &str, n: usize) -> anyhow::Result<(Report, usize, usize)> {
    let mut sample = Sample::default();
    let (mut bytes, mut lines) = (0, 0);
    let started = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        let r = api.request(Method::GET, path, Some(owner)).send().await?;
        let status = r.status().as_u16();
        let body = r.bytes().await?;
        sample.record(Some(status), t.elapsed());
        if status != 200 {
            bail!("the export answered {status}");
        }
        bytes = body.len();
        lines = body.iter().filter(|b| **b == b'\n').count();
    }
    Ok((sample.report(started.elapsed()).named("scale-export", 1), bytes, lines))
}

/// A `Vm…:` line of /proc/PID/status, in KiB.
fn rss_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(&format!("{field}:")))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the process's peak RSS (VmHWM) to its current RSS (Linux ≥ 4.0).
fn reset_peak_rss(pid: u32) -> anyhow::Result<()> {
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").with_context(|| format!("resetting the peak RSS of {pid}"))
}
