//! Vestibule's single-page app: the public waitlist form, the recipient's pages and the
//! owner's console, rendered client-side with Leptos and built to WASM with Trunk.
//!
//! A release build is one of two bundles (`web/Cargo.toml`): the public one compiles the
//! console's pages but never routes to them, so the linker drops them. Dead-code warnings are therefore
//! off in those builds only; the default build (every feature, the one clippy checks) keeps
//! them.
#![cfg_attr(not(all(feature = "public", feature = "console")), allow(dead_code, unused_imports))]

mod api;
mod app;
mod auth;
mod components;
mod prefetch;
mod routes;

fn main() {
    leptos::mount::mount_to_body(app::App);
    // The server's first paint of a form page (api/src/routes/form_page.rs: the form and
    // the footer, disabled) gives way to the page rendered in its place once the page's last
    // step has rendered (`components::later`), in a later task: the same elements in the
    // same places, so nothing moves and no larger element is painted.
    leptos::prelude::set_timeout(components::later::settle, std::time::Duration::ZERO);
}
