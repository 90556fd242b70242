//! A page that lives in another bundle. Release builds split the app in four (see
//! `web/Cargo.toml`): public pages, the owner's review (dashboard, queue, entry), a
//! program's settings, and the workspace's pages. A client-side navigation to a page of another bundle (the header's
//! "Owner console", sign-in's `next=/owner`, the program's "Queue" tab, "Sign out" from the
//! console) lands here, which loads the address for real: the server answers it with that
//! bundle's shell (`api/src/routes/spa.rs`). The heading of the page it opens gets the
//! focus, as after any navigation.
//!
//! A reload that came back here for the same address (a server without the other shell)
//! would loop; a note in `sessionStorage` stops that after one try and shows "not found".

use leptos::prelude::*;
use leptos_router::hooks::use_location;

use crate::routes::not_found::NotFound;

/// Session-storage keys: the address just reloaded for, and "focus the heading on start".
const RELOADED: &str = "vestibule-reloaded-for";
pub const FOCUS_HEADING: &str = "vestibule-focus-heading";

#[component]
pub fn Elsewhere() -> impl IntoView {
    let location = window().location();
    let here = format!("{}{}", location.pathname().unwrap_or_default(), location.search().unwrap_or_default());
    let storage = window().session_storage().ok().flatten();
    let looped = storage.as_ref().and_then(|s| s.get_item(RELOADED).ok().flatten()).is_some_and(|p| p == here);
    if let Some(s) = &storage {
        let _ = s.remove_item(RELOADED);
    }
    if looped {
        return view! { <NotFound/> }.into_any();
    }
    if let Some(s) = &storage {
        let _ = s.set_item(RELOADED, &here);
        let _ = s.set_item(FOCUS_HEADING, "1");
    }
    let _ = window().location().replace(&here);
    view! { <p class="muted" role="status">"Opening…"</p> }.into_any()
}

/// Forgets the loop guard once a page of this bundle has started for real.
pub fn arrived() {
    if let Some(s) = window().session_storage().ok().flatten() {
        let _ = s.remove_item(RELOADED);
    }
}

/// Whether the page before the reload asked for the heading to get the focus (once).
pub fn take_focus_request() -> bool {
    let Some(s) = window().session_storage().ok().flatten() else { return false };
    let asked = s.get_item(FOCUS_HEADING).ok().flatten().is_some();
    let _ = s.remove_item(FOCUS_HEADING);
    asked
}
