//! The owner's console (SPEC §6.4): dashboard, program settings, notices, queue, entry
//! detail with invitations and grants, content, audit log and owners. Every `/api/owner`
//! 404 reads the same, whether the object is absent or not the caller's.

pub mod audit;
pub mod cohorts;
pub mod content;
pub mod dashboard;
pub mod draws;
pub mod entry;
pub mod entry_actions;
pub mod integrations;
pub mod new_program;
pub mod notice;
pub mod owners;
pub mod program;
pub mod queue;
pub mod queue_filters;

use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use shared::api::Program;
use shared::ErrorCode;
use uuid::Uuid;

use crate::api::{self, ApiError};

/// A path parameter that must be a UUID; anything else names nothing.
pub fn uuid_param(name: &'static str) -> Memo<Option<Uuid>> {
    let params = use_params_map();
    Memo::new(move |_| params.read().get(name).and_then(|v| Uuid::parse_str(&v).ok()))
}

pub async fn load_program(id: Option<Uuid>) -> Result<Program, ApiError> {
    let id = id.ok_or_else(ApiError::not_found)?;
    api::get::<Program>(&format!("/api/owner/programs/{id}")).await
}

/// Conflict text for owner writes, by the API's stable 409 code: a stale revision asks
/// for a reload; the others name the rule the change broke.
pub fn conflict_text(err: &ApiError) -> &'static str {
    match err.api_code() {
        Some(ErrorCode::StaleRevision) => {
            "Someone else changed this — reload to see the current version, then try again."
        }
        Some(ErrorCode::NoticeRequired) => "Sign-ups cannot open before a notice is published.",
        Some(ErrorCode::ContentRequired) => "Early access cannot be switched on before the content is written.",
        Some(ErrorCode::SeatCapBelowUse) => {
            "The seat cap cannot go below the seats in use (active grants plus unexpired invitations)."
        }
        _ => "This change is not possible in the program's current state.",
    }
}
