//! The private read of SPEC §6.3: a program's content for the one user who holds an
//! active grant of *that* program. Policy: in one READ COMMITTED transaction the
//! workspace and the program are held `FOR SHARE` (so a revoking writer either finishes
//! first and this read is denied, or waits until the body has been read), and then one
//! scoped statement, on a fresh snapshot taken after both locks, joins content, entry
//! and grant of that program for this user, with the workspace active, access on, the
//! entry active, the grant active and the entry's email among the user's verified
//! emails right now. The program's title comes with the body from that same statement (it
//! changes no condition: the page's heading is read with what it heads).
//!
//! Round trips: the slug names the rows to lock (a slug is unique and never changes, nor
//! does a program's workspace), so the two lock statements and the read need no earlier
//! lookup and go out as one pipeline after BEGIN. Every statement is prepared first, so
//! tokio-postgres writes all of them on the first poll, in argument order; the server
//! runs them one after another, each on its own snapshot taken after the previous
//! statement's lock was granted, which is the lock-then-read-fresh order of SPEC §5.
//! The row locks give the transaction an id, so its COMMIT would wait for a WAL flush;
//! it wrote nothing worth keeping, so it commits without waiting (`synchronous_commit`
//! off for this transaction only): a crash can only forget that a read happened.

use super::Result;
use deadpool_postgres::Transaction;
use futures_util::{future::try_join_all, try_join};
use tokio_postgres::types::ToSql;

/// The workspace lock, reached through the program's (immutable) workspace id.
const LOCK_WORKSPACE: &str = "SELECT w.active FROM programs p JOIN workspaces w ON w.id = p.workspace_id \
     WHERE p.public_slug = $1 FOR SHARE OF w";
const LOCK_PROGRAM: &str = "SELECT id FROM programs WHERE public_slug = $1 FOR SHARE";
const CONTENT: &str = "SELECT c.revision, c.body, p.title FROM programs p \
     JOIN workspaces w ON w.id = p.workspace_id \
     JOIN entries e ON e.program_id = p.id \
     JOIN grants g ON g.program_id = p.id AND g.entry_id = e.id \
     JOIN early_access_content c ON c.program_id = p.id \
     WHERE p.public_slug = $1 AND w.active AND p.access_enabled \
       AND e.state = 'active' AND g.active AND g.clerk_user_id = $2 AND e.email_key = ANY($3)";

/// What the holder of the grant reads: the content and the program's title.
pub struct Content {
    pub revision: i64,
    pub body: String,
    pub title: Option<String>,
}

/// The content when every condition holds; `None` for any failure.
pub async fn read(tx: &Transaction<'_>, slug: &str, user_id: &str, emails: &[&str]) -> Result<Option<Content>> {
    let s = try_join_all([LOCK_WORKSPACE, LOCK_PROGRAM, CONTENT].map(|sql| tx.prepare_cached(sql))).await?;
    let by_slug: [&(dyn ToSql + Sync); 1] = [&slug];
    let for_user: [&(dyn ToSql + Sync); 3] = [&slug, &user_id, &emails];
    let (_, workspace, program, content) = try_join!(
        tx.batch_execute("SET LOCAL synchronous_commit TO off"),
        tx.query_opt(&s[0], &by_slug),
        tx.query_opt(&s[1], &by_slug),
        tx.query_opt(&s[2], &for_user),
    )?;
    Ok(match (workspace.map(|r| r.get::<_, bool>(0)), program, content) {
        (Some(true), Some(_), Some(row)) => Some(Content { revision: row.get(0), body: row.get(1), title: row.get(2) }),
        _ => None,
    })
}
