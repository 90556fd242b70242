//! `vestibule verify`'s audit chains (issue 16): every chain is recomputed from its rows
//! in id order with [`crate::chain`], independently of the database's trigger, and each
//! tampered event is reported by id. `--checkpoint FILE…` also proves that each saved
//! checkpoint is a prefix of today's chain: the chain recomputed from the rows alone
//! must reach the checkpoint's event after exactly its count, with exactly its hash.

use crate::chain::Walker;
use crate::db::audit_chain::{stored_event, EVENT_COLUMNS};
use futures_util::{pin_mut, TryStreamExt};
use shared::trust::{AuditCheckpoint, CHECKPOINT_FORMAT};
use std::collections::HashMap;
use tokio_postgres::types::ToSql;
use tokio_postgres::Client;
use uuid::Uuid;

/// A checkpoint file as given on the command line.
pub struct SavedCheckpoint {
    pub file: String,
    pub checkpoint: AuditCheckpoint,
}

/// Reads and parses a checkpoint file.
pub fn read_checkpoint(path: &std::path::Path) -> anyhow::Result<SavedCheckpoint> {
    use anyhow::Context as _;
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let checkpoint: AuditCheckpoint =
        serde_json::from_str(&text).with_context(|| format!("{} is not an audit checkpoint", path.display()))?;
    anyhow::ensure!(checkpoint.format == CHECKPOINT_FORMAT, "{}: unknown checkpoint format", path.display());
    Ok(SavedCheckpoint { file: path.display().to_string(), checkpoint })
}

/// Checkpoint event id → the chain recomputed there: (count, head).
type Points = HashMap<i64, (i64, [u8; 32])>;

/// One chain being walked, with the points its checkpoints ask about.
struct Chain {
    program: Option<Uuid>,
    walker: Walker,
    events: i64,
    reached: Points,
}

/// Verifies every chain and every checkpoint, printing one line per result; returns
/// how many checks failed.
pub async fn verify(client: &Client, checkpoints: &[SavedCheckpoint]) -> anyhow::Result<usize> {
    let wanted: HashMap<Option<Uuid>, Vec<i64>> = checkpoints.iter().fold(HashMap::new(), |mut m, c| {
        m.entry(Some(c.checkpoint.program_id)).or_default().push(c.checkpoint.last_event_id);
        m
    });
    let mut reached: HashMap<Option<Uuid>, Points> = HashMap::new();
    let mut failed = 0;
    let mut chains = 0;
    let events = format!("SELECT {EVENT_COLUMNS} FROM audit_events ORDER BY program_id NULLS FIRST, id");
    let rows = client.query_raw(events.as_str(), std::iter::empty::<&(dyn ToSql + Sync)>()).await?;
    pin_mut!(rows);
    let mut current: Option<Chain> = None;
    while let Some(row) = rows.try_next().await? {
        let event = stored_event(&row);
        if current.as_ref().is_none_or(|c| c.program != event.program_id) {
            if let Some(done) = current.take() {
                chains += 1;
                failed += report(&done.program, done.walker, done.events);
                reached.insert(done.program, done.reached);
            }
            current =
                Some(Chain { program: event.program_id, walker: Walker::new(), events: 0, reached: HashMap::new() });
        }
        let chain = current.as_mut().expect("set above");
        let point = chain.walker.push(&event);
        chain.events += 1;
        if wanted.get(&event.program_id).is_some_and(|ids| ids.contains(&event.id)) {
            chain.reached.insert(event.id, point);
        }
    }
    if let Some(done) = current.take() {
        chains += 1;
        failed += report(&done.program, done.walker, done.events);
        reached.insert(done.program, done.reached);
    }
    println!("{chains} audit chains checked");
    for saved in checkpoints {
        let cp = &saved.checkpoint;
        let at = reached.get(&Some(cp.program_id)).and_then(|m| m.get(&cp.last_event_id));
        let problem = match at {
            None => Some(format!("event {} is not in program {}'s chain any more", cp.last_event_id, cp.program_id)),
            Some((count, _)) if *count != cp.count => Some(format!(
                "{count} events lead to event {} today, the checkpoint saw {}",
                cp.last_event_id, cp.count
            )),
            Some((_, head)) if !hex::encode(head).eq_ignore_ascii_case(&cp.head_hash) => {
                Some(format!("the history up to event {} is not the one the checkpoint saw", cp.last_event_id))
            }
            Some(_) => None,
        };
        match problem {
            None => println!(
                "ok    checkpoint {}: program {} up to event {} ({} events) is a prefix of today's chain",
                saved.file, cp.program_id, cp.last_event_id, cp.count
            ),
            Some(why) => {
                failed += 1;
                println!("FAIL  checkpoint {}: {why}", saved.file);
            }
        }
    }
    Ok(failed)
}

/// Prints a chain's result; 1 when it failed.
fn report(program: &Option<Uuid>, walker: Walker, events: i64) -> usize {
    let name = program.map_or("of events without a program".to_owned(), |p| format!("of program {p}"));
    let findings = walker.finish();
    if findings.is_empty() {
        println!("ok    audit chain {name}: {events} events");
        return 0;
    }
    for finding in &findings {
        println!("FAIL  audit chain {name}: {finding}");
    }
    1
}
