//! The application shell: session context, skip link, header and the route table (SPEC §8).
//! Every path here must also be one the API serves the shell for. Policy for the keyboard:
//! the first Tab reaches "Skip to content", and after each client-side navigation the
//! focus moves to the new page's heading, so a screen reader announces where it landed
//! (also when the navigation crossed into another bundle and reloaded, see
//! `routes/elsewhere.rs`).
//!
//! The route table is one list for all bundles: `page!` names a page in its own bundle
//! and `Elsewhere` in the others, so they never disagree on a path;
//! the server's shell for each path (`api/src/routes/spa.rs`) follows the same split.

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::hooks::use_location;
use leptos_router::path;
use wasm_bindgen::JsCast;

use crate::auth;
use crate::components::later::Later;
use crate::components::nav::Header;
use crate::routes::{draws, early_access, elsewhere, embed, home, me, not_found, owner, redeem, sign_in, waitlist};

/// `page!("console", owner::queue::Queue)`: the page in the bundle with that feature,
/// [`elsewhere::Elsewhere`] in the others.
macro_rules! page {
    ($feature:tt, $page:path) => {{
        #[cfg(feature = $feature)]
        let page = $page;
        #[cfg(not(feature = $feature))]
        let page = elsewhere::Elsewhere;
        page
    }};
}

#[component]
pub fn App() -> impl IntoView {
    // A signup form the server wrote the program into (`api/src/routes/form_page.rs`):
    // the form alone, without the router, which such a page never uses (its links are
    // plain ones to other pages), so the app's first task stays short (issue 27, TBT).
    #[cfg(feature = "public")]
    if let Some(view) = form_app() {
        return view;
    }
    // The embedded form (issue 15) is the signup form alone, without the site's chrome or
    // a session: it lives in a frame on the owner's page.
    #[cfg(feature = "public")]
    if window().location().pathname().is_ok_and(|p| p.starts_with("/embed/")) {
        set_embed_class();
        return view! {
            <Router>
                <main id="main" class="embed">
                    <Routes fallback=not_found::NotFound>
                        <Route path=path!("/embed/waitlist/:slug") view=page!("public", embed::Embed)/>
                    </Routes>
                </main>
            </Router>
        }
        .into_any();
    }
    start_session();
    view! {
        <Router>
            <SkipLink/>
            <Header/>
            {focus_on_navigation()}
            <main id="main" class="wrap" tabindex="-1">
                <Routes fallback=not_found::NotFound>
                    <Route path=path!("/") view=page!("public", home::Home)/>
                    <Route path=path!("/waitlist/:slug") view=page!("public", waitlist::Waitlist)/>
                    <Route path=path!("/waitlist/:slug/draws") view=page!("public", draws::Draws)/>
                    <Route path=path!("/sign-in") view=page!("public", sign_in::SignIn)/>
                    <Route path=path!("/me") view=page!("public", me::Me)/>
                    <Route path=path!("/redeem") view=page!("public", redeem::Redeem)/>
                    <Route path=path!("/early-access/:slug") view=page!("console", early_access::EarlyAccess)/>
                    <Route path=path!("/owner") view=page!("console", owner::dashboard::Dashboard)/>
                    <Route path=path!("/owner/programs/:id") view=page!("console", owner::program::ProgramPage)/>
                    <Route path=path!("/owner/programs/:id/queue") view=page!("console", owner::queue::Queue)/>
                    <Route path=path!("/owner/programs/:id/notice") view=page!("console", owner::notice::NoticePage)/>
                    <Route path=path!("/owner/programs/:id/content") view=page!("console", owner::content::ContentPage)/>
                    <Route path=path!("/owner/programs/:id/audit") view=page!("console", owner::audit::Audit)/>
                    <Route path=path!("/owner/programs/:id/cohorts") view=page!("console", owner::cohorts::CohortsPage)/>
                    <Route path=path!("/owner/programs/:id/draws") view=page!("console", owner::draws::DrawsPage)/>
                    <Route path=path!("/owner/programs/:id/entries/:entry") view=page!("console", owner::entry::EntryPage)/>
                    <Route path=path!("/owner/workspaces/:id/owners") view=page!("console", owner::owners::Owners)/>
                    <Route path=path!("/owner/workspaces/:id/integrations") view=page!("console", owner::integrations::Integrations)/>
                </Routes>
            </main>
            <SiteFooter/>
        </Router>
    }
    .into_any()
}

/// The signup form's page (`/waitlist/{slug}`, `/embed/waitlist/{slug}`) when the server
/// wrote its program into the page: the same elements as the routed page, without the
/// router. The form renders in steps (`components::later`).
#[cfg(feature = "public")]
fn form_app() -> Option<AnyView> {
    let (program, in_frame) = waitlist::page_program()?;
    if in_frame {
        set_embed_class();
        let form = move || embed::framed(program.clone());
        return Some(view! { <main id="main" class="embed"><Later>{form.clone()}</Later></main> }.into_any());
    }
    // The session starts a task later, before the form (timers keep their order), inside
    // the app's owner so that the form finds it.
    let owner = Owner::current();
    set_timeout(
        move || match owner {
            Some(owner) => owner.with(start_session),
            None => start_session(),
        },
        std::time::Duration::ZERO,
    );
    let form = move || waitlist::form_page(program.clone());
    Some(
        view! {
            <SkipLink/>
            <main id="main" class="wrap" tabindex="-1"><Later>{form.clone()}</Later></main>
            <SiteFooter/>
        }
        .into_any(),
    )
}

/// The link past the header to the page's `<main>`, first in every page but the embed.
#[component]
fn SkipLink() -> impl IntoView {
    view! { <a class="skip-link" href="#main" on:click=|ev| { ev.prevent_default(); focus_main(); }>"Skip to content"</a> }
}

/// The footer every page but the embed ends with: the words the server's form page
/// prints too (`shared::signup_form::FOOTER`).
#[component]
fn SiteFooter() -> impl IntoView {
    view! {
        <footer class="site-footer wrap">
            <p>{shared::signup_form::FOOTER}</p>
        </footer>
    }
}

#[cfg(feature = "public")]
fn set_embed_class() {
    if let Some(body) = document().body() {
        body.set_class_name("embed");
    }
}

/// The session, the keyboard's use and a focus request left by the page before.
fn start_session() {
    auth::start();
    elsewhere::arrived();
    track_input_modality();
    if let Some(keyboard) = elsewhere::take_focus_request() {
        set_keyboard_in_use(keyboard);
        focus_heading_soon(0);
    }
}

/// Moves the focus to the page's `<h1>` after a navigation (not on the first load, where
/// the focus belongs at the top of the document). The heading may arrive with the page's
/// data, so this waits for it (up to 5 s) and falls back to `<main>`. A plain function
/// called inside the router (not a component rendering nothing: such a component's
/// effect never ran again after the first navigation).
fn focus_on_navigation() {
    let location = use_location();
    Effect::watch(move || location.pathname.get(), |_, _, _| focus_heading_soon(0), false);
}

fn focus_heading_soon(attempt: u32) {
    set_timeout(
        move || {
            if let Some(h1) = document().query_selector("main h1").ok().flatten() {
                let _ = h1.set_attribute("tabindex", "-1");
                if let Ok(h1) = h1.dyn_into::<web_sys::HtmlElement>() {
                    let _ = h1.focus();
                }
            } else if attempt < 100 {
                focus_heading_soon(attempt + 1);
            } else {
                focus_main();
            }
        },
        std::time::Duration::from_millis(50),
    );
}

/// The class on `<html>` while the keyboard is in use (style.css shows the ring of a
/// heading that took the focus after a navigation only then: a click that moved to a new
/// page should not leave a ring on its heading, which reads like an error).
pub const KEYBOARD: &str = "keyboard";

/// A key press (other than a modifier or a letter typed into a field) marks the keyboard in
/// use; a pointer press unmarks it.
fn track_input_modality() {
    let keydown =
        wasm_bindgen::closure::Closure::<dyn Fn(web_sys::KeyboardEvent)>::new(|ev: web_sys::KeyboardEvent| {
            if matches!(
                ev.key().as_str(),
                "Tab"
                    | "Enter"
                    | " "
                    | "ArrowUp"
                    | "ArrowDown"
                    | "ArrowLeft"
                    | "ArrowRight"
                    | "Escape"
                    | "Home"
                    | "End"
            ) {
                set_keyboard_in_use(true);
            }
        });
    let pointerdown = wasm_bindgen::closure::Closure::<dyn Fn()>::new(|| set_keyboard_in_use(false));
    let doc = document();
    let _ = doc.add_event_listener_with_callback_and_bool("keydown", keydown.as_ref().unchecked_ref(), true);
    let _ = doc.add_event_listener_with_callback_and_bool("pointerdown", pointerdown.as_ref().unchecked_ref(), true);
    keydown.forget();
    pointerdown.forget();
}

fn set_keyboard_in_use(on: bool) {
    if let Some(html) = document().document_element() {
        let _ = html.class_list().toggle_with_force(KEYBOARD, on);
    }
}

fn focus_main() {
    if let Some(main) = document().get_element_by_id("main").and_then(|m| m.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = main.focus();
    }
}
