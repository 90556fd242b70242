//! CPU time of named processes over a cell's timed window, from `/proc/PID/stat`
//! (`utime + stime`, in clock ticks), reported as microseconds per request. A process
//! named with a trailing `+` (`pg=1234+`: a PostgreSQL postmaster) counts with its
//! children: the live ones' own time and the reaped ones' (`cutime + cstime`), so backends
//! that end during the window are counted too; `client=self` is loadgen itself. Linux
//! only; a process that cannot be read counts as zero.

use anyhow::{bail, Context};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The unit of `/proc/PID/stat`'s times: `USER_HZ`, which Linux fixes at 100 for user
/// space on every architecture this runs on (`getconf CLK_TCK`).
const USER_HZ: u64 = 100;

/// `name=pid`, `name=pid+` (with children) or `name=self` (this process).
#[derive(Debug, Clone)]
pub struct Watched {
    name: String,
    pid: u32,
    children: bool,
}

pub fn parse(spec: &str) -> anyhow::Result<Watched> {
    let Some((name, pid)) = spec.split_once('=') else {
        bail!("--cpu takes name=pid, name=pid+ or name=self, got {spec}")
    };
    if pid == "self" {
        return Ok(Watched { name: name.to_owned(), pid: std::process::id(), children: false });
    }
    let (pid, children) = match pid.strip_suffix('+') {
        Some(p) => (p, true),
        None => (pid, false),
    };
    Ok(Watched { name: name.to_owned(), pid: pid.parse().with_context(|| format!("--cpu {spec}"))?, children })
}

/// (utime + stime, cutime + cstime, parent) of one process, in ticks.
fn stat(pid: u32) -> Option<(u64, u64, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: fields start after ") ".
    let rest = &text[text.rfind(") ")? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let n = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    Some((n(11) + n(12), n(13) + n(14), u32::try_from(n(1)).unwrap_or(0)))
}

fn ticks(w: &Watched) -> u64 {
    let Some((own, reaped, _)) = stat(w.pid) else { return 0 };
    if !w.children {
        return own;
    }
    let mut total = own + reaped;
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for pid in dir.flatten().filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u32>().ok())) {
            if let Some((child, _, parent)) = stat(pid) {
                if parent == w.pid {
                    total += child;
                }
            }
        }
    }
    total
}

/// A snapshot of every watched process's ticks.
pub fn sample(watched: &[Watched]) -> Vec<u64> {
    watched.iter().map(ticks).collect()
}

/// `{name: µs per request, …, "total": …}` between two snapshots.
pub fn per_request(watched: &[Watched], before: &[u64], after: &[u64], requests: u64) -> Value {
    let hz = USER_HZ as f64;
    let mut out = BTreeMap::new();
    let mut total = 0.0;
    for (i, w) in watched.iter().enumerate() {
        let us = after[i].saturating_sub(before[i]) as f64 / hz * 1e6 / requests.max(1) as f64;
        total += us;
        out.insert(w.name.clone(), json!(us.round()));
    }
    out.insert("total".to_owned(), json!(total.round()));
    json!(out)
}
