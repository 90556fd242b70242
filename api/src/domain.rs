//! The state machines (SPEC §4) live in `shared::states`, one table for the server and
//! the SPA; this module re-exports them for the server's code.

pub use shared::states::{ActorKind, EntryState, EventType, InvitationState};
