//! Reusable pieces shared by several pages: state boxes, the notice, text helpers, the
//! early-access content's Markdown, charts, confirmation and reason forms, the copy field
//! and file downloads.

pub mod bulk;
pub mod chart;
pub mod clerk_sync;
pub mod confirm;
pub mod copy;
pub mod download;
pub mod edge;
pub mod events;
pub mod invitation;
pub mod markdown;
pub mod nav;
pub mod notice;
pub mod pager;
pub mod pow;
pub mod program_nav;
pub mod reason;
pub mod status;
pub mod text;

/// Sets the document title, so each page is named for screen readers and history.
pub fn set_title(page: &str) {
    leptos::prelude::document().set_title(&format!("{page} · Vestibule"));
}
