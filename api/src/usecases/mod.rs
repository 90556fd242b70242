//! The use cases: one module per capability, one function per operation, each returning
//! its capability's typed error. They speak the domain — entries, invitations, grants,
//! programs, owners — and never HTTP: no status code, no wire type, no request. They
//! take the locks through the data layer in the global order (owner operations through
//! [`owner`]), decide on fresh reads with the transaction's clock, and leave every
//! state change to the one writer behind `domain::EntryMove` / `InvitationMove`.
//!
//! One door: a route calls a use case and names only its types. A use case takes what
//! it uses — the pool, keys, limits, the identity client — never the whole `AppState`.
//! Its inputs and answers are declared in its module: its own types where it shapes them
//! (`programs::ProgramPatch`, `cohorts::CohortCodeSpec`, `admission::NewSignup`), and the
//! data layer's records re-exported under its path where the record is the value as the
//! database binds or reads it (`programs::NewProgram`, `queue::{Filter, EntryRow}`). A
//! table that changes shape is then mapped here, and no route changes. Decisions that
//! need no database (a code's usability, seats, an expiry window, a draw's selection)
//! are plain functions next to their use case, unit-tested there.
//!
//! Capabilities, public: [`public`] (the signup form, its proof-of-work challenge, the
//! embed page's framing origins), [`admission`] (signup). The recipient's:
//! [`recipient`] (own status, entries, withdrawal, private content), [`redemption`] (a
//! code becomes a grant; a cohort code through [`cohort_redemption`]), [`erasure`]
//! (erasing an entry, also on an owner's word), [`personal_data`] (the export of one's
//! own data and draw tickets). The owner's, all through [`owner`] (the one owner path:
//! transaction, locks, ownership, clock): [`programs`] (programs, notices, content,
//! dashboard), [`queue`] (the reads of entries and the export), [`history`] (the audit
//! history and who acted in it), [`decisions`] (select, decline, withdraw, revoke
//! access), [`invitations`] (issue, bulk issue, delivery records, revoke), [`cohorts`]
//! (cohort codes), [`draws`] (lottery draws), [`checkpoint`] (a program's audit chain
//! head), [`clerk_sync`] (the log and retry of "on grant, in Clerk"), [`webhooks`],
//! [`api_keys`] and [`admission_hook`] (a workspace's integrations) and [`membership`]
//! (workspaces and owners). The server API's: [`server_api`] (access check, entry
//! listing). Maintenance: [`sealed`] (`vestibule reseal`: stored secrets sealed again
//! under the current key). Shared: [`limits`] (seats and the expiry window as pure
//! decisions) and `withdrawal` (the one withdrawal transition, private).

pub mod admission;
pub mod admission_hook;
pub mod api_keys;
pub mod checkpoint;
pub mod clerk_sync;
pub mod cohort_redemption;
pub mod cohorts;
pub mod decisions;
pub mod draws;
pub mod erasure;
pub mod history;
pub mod invitations;
pub mod limits;
pub mod membership;
pub mod metering;
pub mod owner;
pub mod personal_data;
pub mod programs;
pub mod public;
pub mod queue;
pub mod recipient;
pub mod redemption;
pub mod sealed;
pub mod server_api;
pub mod webhooks;
mod withdrawal;

pub use owner::NotFound;

/// Declares a use-case error: the variants given, plus `NotFound` (absent, foreign or
/// not permitted: the uniform 404) and `Db(DbError)`; implements the data layer's
/// [`crate::db::TxError`] (a deadlock or serialization failure runs the transaction
/// again) and `From<NotFound>`. With `transitions`, also `InvalidTransition` and
/// `From<domain::InvalidTransition>`.
macro_rules! use_case_error {
    ($(#[$meta:meta])* pub enum $name:ident with transitions { $($body:tt)* }) => {
        use_case_error! {
            $(#[$meta])*
            pub enum $name {
                #[error("invalid transition")]
                InvalidTransition,
                $($body)*
            }
        }

        impl From<crate::domain::InvalidTransition> for $name {
            fn from(_: crate::domain::InvalidTransition) -> Self {
                Self::InvalidTransition
            }
        }
    };
    ($(#[$meta:meta])* pub enum $name:ident { $($body:tt)* }) => {
        $(#[$meta])*
        #[derive(Debug, thiserror::Error)]
        pub enum $name {
            #[error("not found")]
            NotFound,
            $($body)*
            #[error(transparent)]
            Db(#[from] crate::db::DbError),
        }

        impl crate::db::TxError for $name {
            fn retry(&self) -> bool {
                matches!(self, Self::Db(crate::db::DbError::Retry))
            }
        }

        impl From<crate::usecases::NotFound> for $name {
            fn from(_: crate::usecases::NotFound) -> Self {
                Self::NotFound
            }
        }
    };
}
pub(crate) use use_case_error;

use_case_error! {
    /// A read that can only be absent (the uniform 404) or fail in the database.
    pub enum ReadError {}
}
