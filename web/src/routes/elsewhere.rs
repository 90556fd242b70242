//! A page that lives in the other bundle. Release builds split the app in two (see
//! `web/Cargo.toml`): the public pages, and the console (the owner's pages and early
//! access). A client-side navigation to a page of the other bundle (the header's "Owner
//! console", sign-in's `next=/owner`, "Sign out" or "Public form" in the console) lands
//! here, which loads the address for real: the server answers it with that bundle's shell
//! (`api/src/routes/spa.rs`); the console's files a signed-in owner's public page has
//! usually fetched already (`prefetch.rs`). The heading of the page it opens gets the
//! focus, as after any navigation. Between owner pages nothing lands here: they are all in
//! the console.
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
            // Whether the page being left was used with the keyboard (`app.rs` marks `<html>`).
            let keyboard =
                document().document_element().is_some_and(|html| html.class_list().contains(crate::app::KEYBOARD));
            let _ = storage.set_item(FOCUS_HEADING, if keyboard { "keyboard" } else { "pointer" });
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

/// Whether the page before the reload asked for the heading to get the focus (once), and
/// whether it was being used with the keyboard then (so the heading's ring shows).
pub fn take_focus_request() -> Option<bool> {
    let s = window().session_storage().ok().flatten()?;
    let asked = s.get_item(FOCUS_HEADING).ok().flatten();
    let _ = s.remove_item(FOCUS_HEADING);
    asked.map(|how| how == "keyboard")
}
