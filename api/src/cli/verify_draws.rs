//! `vestibule verify`'s lottery checks (issue 29): the triggers that freeze draws and
//! their tickets are in place, and every draw on public randomness recomputes from the
//! rows as they stand — its fixed fields against the hash chained in its `draw_opened`
//! event, its tickets and exclusions against its `draw_closed` event and the chained
//! events between, its beacon signature against its chain's key, its winners against
//! the randomness. An edit made with the triggers disabled (a superuser's) shows here.

use crate::draw;
use tokio_postgres::Client;

/// Each trigger by name, table and type (`tgtype` bits: 1 row, 2 before, 4 insert,
/// 8 delete, 16 update, 32 truncate), enabled as the migration leaves it, calling its
/// function.
const TRIGGERS: &str = "SELECT count(*) FROM (VALUES \
      ('draws_frozen', 'draws', 27, 'draws_frozen'), \
      ('draw_tickets_frozen', 'draw_tickets', 31, 'draw_tickets_frozen'), \
      ('draws_no_truncate', 'draws', 34, 'block_immutable_reference_edits'), \
      ('draw_tickets_no_truncate', 'draw_tickets', 34, 'block_immutable_reference_edits')) \
    AS want(name, tbl, kind, fn) WHERE NOT EXISTS (SELECT 1 FROM pg_trigger t \
      WHERE t.tgname = want.name AND t.tgrelid = to_regclass(want.tbl) AND NOT t.tgisinternal \
      AND t.tgtype = want.kind AND t.tgenabled = 'O' AND t.tgfoid = to_regproc(want.fn))";

/// Runs the checks, printing one line each; returns how many failed.
pub async fn verify(client: &Client, database_url: &str) -> anyhow::Result<usize> {
    let mut failed = 0;
    let missing: i64 = client.query_one(TRIGGERS, &[]).await?.get(0);
    if missing == 0 {
        println!("ok    the draw-freezing triggers are in place");
    } else {
        failed += 1;
        println!("FAIL  the draw-freezing triggers are in place ({missing} missing or altered)");
    }
    let pool = crate::db::pool(database_url, 1)?;
    let listed = {
        let pooled = pool.get().await.map_err(|e| anyhow::anyhow!("connecting: {e}"))?;
        crate::db::draws::all_beacon_draws(&pooled).await?
    };
    let mut bad = 0;
    for (program, id) in &listed {
        let Some(record) = crate::usecases::draws::stored_record(&pool, *program, *id).await? else { continue };
        let problems = draw::verify(&record);
        for p in &problems {
            println!("FAIL  draw {id}: {p}");
        }
        bad += usize::from(!problems.is_empty());
    }
    if bad == 0 {
        println!("ok    every draw on public randomness recomputes ({} draws)", listed.len());
    }
    Ok(failed + bad)
}
