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
//! What the database does on its own here: the locks and the read are the PL/pgSQL
//! function `early_access_read` (V102), each of its statements on a fresh snapshot
//! after the previous one's lock, which also turns `synchronous_commit` off for its own
//! transaction (the row locks give the read a transaction id, so its commit would wait
//! for a WAL flush though it wrote nothing worth keeping; a crash can only forget that
//! a read happened).
//!
//! Round trips: one. The call is a single statement sent outside any explicit
//! transaction block, so it is its own transaction: one Bind/Execute/Sync, where BEGIN,
//! SET LOCAL, three statements and COMMIT took three round trips and six commands
//! (issue 28: CPU per private read). The slug names the rows to lock (a slug is unique
//! and never changes, nor does a program's workspace), so no earlier lookup is needed.

use super::Result;
use deadpool_postgres::GenericClient;

const READ: &str = "SELECT revision, body, title FROM early_access_read($1, $2, $3)";

/// What the holder of the grant reads: the content and the program's title.
pub struct Content {
    pub revision: i64,
    pub body: String,
    pub title: Option<String>,
}

/// The content when every condition holds; `None` for any failure. `client` must not be
/// inside a transaction block: the call is its own transaction (see the module doc).
pub async fn read(client: &impl GenericClient, slug: &str, user_id: &str, emails: &[&str]) -> Result<Option<Content>> {
    let stmt = client.prepare_cached(READ).await?;
    let row = client.query_opt(&stmt, &[&slug, &user_id, &emails]).await?;
    Ok(row.map(|row| Content { revision: row.get(0), body: row.get(1), title: row.get(2) }))
}
