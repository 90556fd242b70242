//! Types that the API and the SPA both speak: request and response bodies, the email and
//! slug grammar, the error body and its codes, and the state machines. Policy: serde and
//! thiserror only, so it builds for wasm32 and for the server from the same source.

pub mod api;
pub mod clerk_sync;
pub mod cohort;
pub mod draw_filter;
pub mod draws;
pub mod edge;
pub mod email;
pub mod error;
pub mod history;
pub mod integrations;
pub mod questions;
pub mod queue;
pub mod signup_form;
pub mod slug;
pub mod source_ref;
pub mod states;
pub mod text;
pub mod trust;

pub use email::{contains_address, EmailError, EmailKey};
pub use error::{ErrorBody, ErrorCode, ErrorDetail};
pub use slug::{Slug, SlugError};
pub use source_ref::SourceRef;
pub use states::{ActorKind, EntryActions, EntryState, EventType, InvitationState, OpenInvitation};
