//! Vestibule's single-page app: the public waitlist form, the recipient's pages and the
//! owner's console, rendered client-side with Leptos and built to WASM with Trunk.

mod api;
mod app;
mod auth;
mod components;
mod routes;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
