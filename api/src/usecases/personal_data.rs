//! The signed-in person's own data (issue 16, `GET /api/me/export`): found only through
//! the emails the identity provider reports as verified right now, like every recipient
//! read; read in one transaction, nothing written.

use super::ReadError;
use crate::db::{self, draws, personal_data, DbError};
use crate::identity::VerifiedUser;
use chrono::{DateTime, Utc};
use deadpool_postgres::Pool;

pub use crate::db::draws::OwnTicket;
pub use crate::db::personal_data::{ExportEntry, ExportGrant, ExportInvitation};

/// The person's entries with their invitations and grants, and the time of the read.
pub struct Export {
    pub at: DateTime<Utc>,
    pub entries: Vec<ExportEntry>,
    pub invitations: Vec<ExportInvitation>,
    pub grants: Vec<ExportGrant>,
    pub tickets: Vec<OwnTicket>,
}

pub async fn export(pool: &Pool, user: &VerifiedUser) -> Result<Export, ReadError> {
    let emails = user.email_keys();
    db::transaction(pool, async |tx| {
        let at = db::locks::now(tx).await?;
        let entries = personal_data::entries(tx, &emails).await?;
        let ids: Vec<_> = entries.iter().map(|e| e.id).collect();
        let invitations = personal_data::invitations(tx, &ids).await?;
        let grants = personal_data::grants(tx, &ids).await?;
        let tickets = draws::own_tickets(tx, &ids).await?;
        Ok::<_, ReadError>(Export { at, entries, invitations, grants, tickets })
    })
    .await
}

/// The caller's tickets in the program `slug`'s draws (through their entry there).
pub async fn own_draws(pool: &Pool, user: &VerifiedUser, slug: &str) -> Result<Vec<OwnTicket>, ReadError> {
    let client = pool.get().await.map_err(DbError::from)?;
    let emails = user.email_keys();
    let entries = personal_data::entries(&client, &emails).await?;
    let ids: Vec<_> = entries.iter().filter(|e| e.program_slug == slug).map(|e| e.id).collect();
    if ids.is_empty() {
        return Err(ReadError::NotFound);
    }
    Ok(draws::own_tickets(&client, &ids).await?)
}
