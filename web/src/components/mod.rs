//! Reusable pieces shared by several pages: state boxes, the notice, text helpers, the
//! early-access content's Markdown, charts, confirmation and reason forms, the copy field,
//! file downloads, a scrolling table and a delivery log's retry.

pub mod bulk;
pub mod chart;
pub mod clerk_sync;
pub mod confirm;
pub mod copy;
pub mod download;
pub mod edge;
pub mod events;
pub mod invitation;
pub mod later;
pub mod markdown;
pub mod nav;
pub mod notice;
pub mod pager;
pub mod pow;
pub mod program_nav;
pub mod questions;
pub mod reason;
pub mod status;
pub mod table;
pub mod text;

use leptos::prelude::{Callback, LocalResource};

/// Sets the document title, so each page is named for screen readers and history.
pub fn set_title(page: &str) {
    leptos::prelude::document().set_title(&format!("{page} · Vestibule"));
}

/// Resolves in a later task of the browser's (a zero-delay timer). Requests the page makes
/// as it starts (the session's config, the form's draws) await it first, so that building
/// them is not part of the app's one start-up task, the longest on a phone (Lighthouse's
/// TBT, issue 27 item 2).
pub async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = leptos::prelude::window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// A delivery log's "Retry" (a webhook's deliveries, the calls to Clerk): POST
/// `{deliveries}/{id}/retry`, then read the log again whatever the answer, since the log
/// is what shows what became of the delivery.
pub fn retry_then_refetch<T: 'static>(deliveries: String, log: LocalResource<T>) -> Callback<i64> {
    Callback::new(move |id: i64| {
        let path = format!("{deliveries}/{id}/retry");
        leptos::task::spawn_local(async move {
            let _ = crate::api::post::<_, serde_json::Value>(path, &serde_json::json!({})).await;
            log.refetch();
        });
    })
}
