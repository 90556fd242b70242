//! `vestibule reseal` (issue 26 item 5): every stored secret sealed again under the key
//! that seals now (the first of `SECRETS_KEYS`), so an older key can then be removed and
//! `SIGNUP_BINDING_KEY` rotated without breaking a webhook or the admission hook. A value
//! already under the first key is left as it is; previous webhook secrets whose overlap
//! has ended are dropped (they never sign again). Safe beside running servers: each
//! value is replaced only if its row still holds it.

use crate::db::sealed::{self, SealedKind};
use crate::db::DbError;
use crate::secrets::Keyring;
use deadpool_postgres::Pool;
use uuid::Uuid;

/// What became of one kind of secret.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Sealed again under the first key.
    pub resealed: u64,
    /// Already under the first key.
    pub current: u64,
    /// Opened by no key of the keyring (nor the binding key): left as it is.
    pub unreadable: u64,
    /// Changed by a writer while being resealed (a rotation): run `reseal` again.
    pub changed: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub kinds: Vec<(SealedKind, Counts)>,
    /// Previous webhook secrets past their overlap, dropped.
    pub expired_dropped: u64,
}

impl Report {
    pub fn unreadable(&self) -> u64 {
        self.kinds.iter().map(|(_, c)| c.unreadable).sum()
    }
}

/// The associated data a secret of `kind` owned by `owner` is sealed for.
pub fn context(kind: SealedKind, owner: Uuid) -> Vec<u8> {
    match kind {
        SealedKind::Webhook | SealedKind::WebhookPrevious => owner.as_bytes().to_vec(),
        SealedKind::Hook => super::admission_hook::context(owner),
    }
}

pub async fn reseal(pool: &Pool, keyring: &Keyring) -> Result<Report, DbError> {
    let client = pool.get().await?;
    let mut report = Report { expired_dropped: sealed::drop_expired_previous(&client).await?, ..Report::default() };
    for kind in SealedKind::ALL {
        let mut counts = Counts::default();
        for s in sealed::list(&client, kind).await? {
            let context = context(kind, s.owner);
            if keyring.is_current(&context, &s.value) {
                counts.current += 1;
                continue;
            }
            let Some(plain) = keyring.open(&context, &s.value) else {
                counts.unreadable += 1;
                continue;
            };
            let fresh = keyring.seal(&context, &plain);
            if sealed::replace(&client, kind, s.owner, &s.value, &fresh).await? {
                counts.resealed += 1;
            } else {
                counts.changed += 1;
            }
        }
        report.kinds.push((kind, counts));
    }
    Ok(report)
}
