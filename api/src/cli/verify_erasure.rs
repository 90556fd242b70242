//! `vestibule verify`'s erasure checks (issue 16): every erasure receipt's entry is
//! redacted, and — with `SIGNUP_BINDING_KEY` in the environment, since suppressions are
//! keyed hashes — no live entry matches a suppression made after it, which is what a
//! restore from an older backup brings back (`vestibule redact --reapply` fixes it).

use crate::db::erasure;
use tokio_postgres::Client;

/// The server HMAC key from the environment, if set.
pub fn key_from_env() -> anyhow::Result<Option<Vec<u8>>> {
    match std::env::var("SIGNUP_BINDING_KEY") {
        Ok(v) => Ok(Some(crate::config::decode_key("SIGNUP_BINDING_KEY", &v).map_err(|e| anyhow::anyhow!("{e}"))?)),
        Err(_) => Ok(None),
    }
}

/// Runs the checks, printing one line each; returns how many failed.
pub async fn verify(client: &Client, database_url: &str) -> anyhow::Result<usize> {
    let mut failed = 0;
    let unredacted: i64 = client
        .query_one(
            "SELECT count(*) FROM erasures x JOIN entries e ON e.id = x.entry_id WHERE e.redacted_at IS NULL",
            &[],
        )
        .await?
        .get(0);
    if unredacted == 0 {
        println!("ok    every erased entry is redacted");
    } else {
        failed += 1;
        println!("FAIL  every erased entry is redacted ({unredacted} offending)");
    }
    let Some(key) = key_from_env()? else {
        println!("skip  erased entries brought back by a restore (set SIGNUP_BINDING_KEY to check)");
        return Ok(failed);
    };
    let pool = crate::db::pool(database_url, 1)?;
    let pooled = pool.get().await.map_err(|e| anyhow::anyhow!("connecting: {e}"))?;
    pooled.batch_execute("SET default_transaction_read_only = on").await?;
    let back = erasure::resurrected(&pooled, &key).await?;
    if back.is_empty() {
        println!("ok    no erased entry was brought back by a restore");
    } else {
        failed += 1;
        for r in &back {
            println!(
                "FAIL  erased entry brought back by a restore: entry {} of program {} (erasure {} at {}); run `vestibule redact --reapply`",
                r.entry_id,
                r.program_id,
                r.erasure_id,
                crate::time::rfc3339(r.erased_at)
            );
        }
    }
    Ok(failed)
}
