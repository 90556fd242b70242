//! The use cases: one module per capability, one function per operation, each returning
//! its capability's typed error. They speak the domain — entries, invitations, grants,
//! programs, owners — and never HTTP: no status code, no wire type, no request. They
//! take the locks through the data layer in the global order (owner operations through
//! [`owner`]), decide on fresh reads with the transaction's clock, and leave every
//! state change to the one writer behind `domain::EntryMove` / `InvitationMove`.
//!
//! Capabilities: [`admission`] (public signup), [`redemption`] (a code becomes a grant),
//! [`recipient`] (own status, entries, withdrawal, private content), [`programs`]
//! (programs, notices, content, dashboard), [`decisions`] (select, decline, withdraw,
//! revoke access), [`invitations`] (issue, bulk issue, delivery records, revoke),
//! [`queue`] (the owner's reads of entries and history) and [`membership`] (workspaces
//! and owners).

pub mod admission;
pub mod decisions;
pub mod invitations;
pub mod membership;
pub mod owner;
pub mod programs;
pub mod queue;
pub mod recipient;
pub mod redemption;
mod withdrawal;

pub use owner::NotFound;

/// Implements the data layer's [`crate::db::TxError`] for a use-case error with a
/// `Db(DbError)` variant (deadlocks and serialization failures run the transaction
/// again), and `From<NotFound>` into its `NotFound` variant.
macro_rules! use_case_error {
    ($error:ty) => {
        impl crate::db::TxError for $error {
            fn retry(&self) -> bool {
                matches!(self, Self::Db(crate::db::DbError::Retry))
            }
        }

        impl From<crate::usecases::NotFound> for $error {
            fn from(_: crate::usecases::NotFound) -> Self {
                Self::NotFound
            }
        }
    };
}
pub(crate) use use_case_error;

/// A read that can only be absent (the uniform 404) or fail in the database.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("not found")]
    NotFound,
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
}

use_case_error!(ReadError);
