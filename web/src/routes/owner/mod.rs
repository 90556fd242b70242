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

thread_local! {
    /// The queue page last shown: its program and its entries in order (the console is
    /// one app, so the entry page can offer the next and previous of them).
    static QUEUE_ORDER: std::cell::RefCell<(Uuid, Vec<Uuid>)> = const { std::cell::RefCell::new((Uuid::nil(), Vec::new())) };
}

/// Remembers the order of the queue page on screen.
pub fn remember_queue(program: Uuid, entries: Vec<Uuid>) {
    QUEUE_ORDER.set((program, entries));
}

/// The entries before and after `entry` on the queue page last shown, when it is on it.
pub fn queue_neighbours(program: Uuid, entry: Uuid) -> (Option<Uuid>, Option<Uuid>) {
    QUEUE_ORDER.with_borrow(|(p, order)| {
        let Some(at) = order.iter().position(|e| *e == entry).filter(|_| *p == program) else {
            return (None, None);
        };
        (at.checked_sub(1).map(|i| order[i]), order.get(at + 1).copied())
    })
}

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
