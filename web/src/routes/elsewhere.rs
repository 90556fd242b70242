//! A page that lives in another bundle. Release builds split the app in five (see
//! `web/Cargo.toml`): public pages, the owner's review (dashboard, queue, entry), a
//! program's settings, the workspace's pages and the content editor. A client-side navigation to a page of
//! another bundle (the header's "Owner console", sign-in's `next=/owner`, the program's
//! "Queue" tab, "Sign out" from the console) lands here, which loads the address for real:
//! the server answers it with that bundle's shell (`api/src/routes/spa.rs`). The heading of
//! the page it opens gets the focus, as after any navigation.
//!
//! The address is read once the router has finished navigating (a task later): while this
//! view is being built, both the router's and the browser's address may still be the page
//! being left. A reload that came back here for the same address (a server without the
//! other shell) would loop; a note in `sessionStorage` stops that after one try and shows
//! "not found".

use leptos::prelude::*;

use crate::routes::not_found::NotFound;

/// Session-storage keys: the address just reloaded for, and "focus the heading on start".
const RELOADED: &str = "vestibule-reloaded-for";
const FOCUS_HEADING: &str = "vestibule-focus-heading";

#[component]
pub fn Elsewhere() -> impl IntoView {
    let looped = RwSignal::new(false);
    set_timeout(
        move || {
            let location = window().location();
            let here = format!("{}{}", location.pathname().unwrap_or_default(), location.search().unwrap_or_default());
            let storage = window().session_storage().ok().flatten();
            let Some(storage) = storage else {
                let _ = location.replace(&here);
                return;
            };
            if storage.get_item(RELOADED).ok().flatten().is_some_and(|p| p == here) {
                let _ = storage.remove_item(RELOADED);
                looped.set(true);
                return;
            }
            let _ = storage.set_item(RELOADED, &here);
            let _ = storage.set_item(FOCUS_HEADING, "1");
            let _ = location.replace(&here);
        },
        std::time::Duration::ZERO,
    );
    move || match looped.get() {
        true => view! { <NotFound/> }.into_any(),
        false => view! { <p class="muted" role="status">"Opening…"</p> }.into_any(),
    }
}

/// Forgets the loop guard once this bundle has been running a while (not at once, so that
/// an `Elsewhere` on the first load still sees it).
pub fn arrived() {
    set_timeout(
        || {
            if let Some(s) = window().session_storage().ok().flatten() {
                let _ = s.remove_item(RELOADED);
            }
        },
        std::time::Duration::from_secs(2),
    );
}

/// Whether the page before the reload asked for the heading to get the focus (once).
pub fn take_focus_request() -> bool {
    let Some(s) = window().session_storage().ok().flatten() else { return false };
    let asked = s.get_item(FOCUS_HEADING).ok().flatten().is_some();
    let _ = s.remove_item(FOCUS_HEADING);
    asked
}
