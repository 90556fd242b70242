//! Vestibule's server library: the HTTP API, its use cases, its database layer, identity,
//! and the maintenance CLI. The `vestibule` binary only parses arguments and calls in here.
//!
//! The layers, and one request through them (`POST /api/owner/invitations/{id}/revoke`):
//!
//! ```text
//! http/      the edge: extractors (Session, VerifiedUser), guards, ApiError and the
//!            one From<…Error> per use-case error        → ApiError → status + JSON body
//! routes/    one file per resource: extract, call one use case, answer with views::*
//!            routes/owner/invitations.rs::revoke         → usecases::invitations::revoke
//! usecases/  one module per capability, typed errors, no HTTP: owner::write opens the
//!            transaction, locks workspace → program, checks the owner, reads the clock;
//!            the use case locks entry → invitation and moves both through the table
//!            (domain::EntryMove / InvitationMove)         → InvitationError::InvalidTransition …
//! db/        SQL and row structs only, DbError (retry / unique / unavailable / other)
//!            db::invitations::finish, db::entries::set_state, db::audit::record
//! domain.rs  the state machines of shared::states as proofs the db writers require
//! ```
//!
//! `shared` (the wire types, `ErrorCode`, the states and their transition table) is the
//! vocabulary of both the API and the SPA.

pub mod assets;
pub mod chain;
pub mod cli;
pub mod config;
pub mod crypto;
pub mod db;
pub mod domain;
pub mod drand;
pub mod draw;
pub mod gates;
pub mod group;
pub mod hits;
pub mod http;
pub mod identity;
pub mod lanes;
pub mod metrics;
pub mod openapi;
pub mod outbox;
pub mod pow;
pub mod routes;
pub mod screening;
pub mod secrets;
pub mod shutdown;
pub mod standard_webhooks;
pub mod startup;
pub mod state;
pub mod telemetry;
pub mod time;
pub mod usecases;
