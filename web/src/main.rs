//! Vestibule's single-page app: the public waitlist form, the recipient's pages and the
//! owner's console, rendered client-side with Leptos and built to WASM with Trunk.
//!
//! A release build is one of five bundles (`web/Cargo.toml`): the pages of the others are
//! compiled but never routed to, so the linker drops them. Dead-code warnings are therefore
//! off in those builds only; the default build (every feature, the one clippy checks) keeps
//! them.
#![cfg_attr(
    not(all(feature = "public", feature = "review", feature = "program", feature = "workspace", feature = "content")),
    allow(dead_code, unused_imports)
)]

mod api;
mod app;
mod auth;
mod components;
mod routes;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
