//! Lottery draws. Issue 29: draws on public randomness — fixed at the opening to a
//! future drand round, closed by a chained event, run on the round's verified
//! signature, published before and after, and recomputed by `vestibule verify-draw` and
//! `tools/verify_draw.py` alike ([`fairness`], [`lifecycle`], [`filters`], [`frozen`]).
//! Issue 16's seeded draws keep verifying and running ([`seeded`]). Tests sign rounds
//! with a local chain (`common::drand`); the whole draw of [`fairness`] runs on a real
//! published quicknet round.

mod fairness;
mod filters;
mod frozen;
mod lifecycle;
mod seeded;

use crate::support::{Caps, Owner, TestApp};
use ring::digest;
use shared::trust::DrawFilter;
use uuid::Uuid;

fn ticket(program: Uuid, entry: Uuid) -> String {
    let mut ctx = digest::Context::new(&digest::SHA256);
    ctx.update(program.as_bytes());
    ctx.update(entry.as_bytes());
    hex::encode(ctx.finish())
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(digest::digest(&digest::SHA256, bytes))
}

fn sorted_tickets(program: Uuid, entries: &[Uuid]) -> Vec<String> {
    let mut tickets: Vec<String> = entries.iter().map(|e| ticket(program, *e)).collect();
    tickets.sort();
    tickets
}

/// A format 3 tickets hash by the README's rule: SHA-256 of
/// `vestibule-draw/3\ndraw=<id>\nsource=<s>\nflag=<f>\n` and then, for each ticket in
/// ascending order, its bytes and one byte 1 (excluded) or 0.
fn tickets_hash(draw: Uuid, filter: &DrawFilter, sorted: &[String], excluded: &[String]) -> String {
    let source = filter.source.as_ref().map_or("", |s| s.as_str());
    let flag = filter.flag.map_or("", |f| f.as_str());
    let mut bytes = format!("vestibule-draw/3\ndraw={draw}\nsource={source}\nflag={flag}\n").into_bytes();
    for t in sorted {
        bytes.extend(hex::decode(t).unwrap());
        bytes.push(u8::from(excluded.contains(t)));
    }
    sha256_hex(&bytes)
}

/// An open program `slug` with `n` waiting signups `d{i}@example.com`.
async fn waiting(app: &TestApp, owner: &Owner, ws: Uuid, slug: &str, seats: i32, n: usize) -> (Uuid, Vec<Uuid>) {
    let program = owner.program_with(ws, slug, Caps { seats, ..Caps::default() }).await;
    let mut entries = Vec::new();
    for i in 0..n {
        let email = format!("d{i}@example.com");
        app.signup(slug, &email).await;
        entries.push(app.entry_id(program, &email).await);
    }
    (program, entries)
}
