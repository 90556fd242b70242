//! Rebuilds the server when what it embeds at compile time changes, since cargo does not
//! otherwise notice a new file in a folder:
//! * migrations: `refinery::embed_migrations!` reads `migrations/`;
//! * the built SPA: `rust-embed` reads `web/dist` through `include_bytes!`, which tells
//!   cargo about the files it found but not about files that appear later (a fresh
//!   `scripts/build-web` writes new hashed names, or `web/dist` did not exist yet).

fn main() {
    println!("cargo:rerun-if-changed=../migrations");
    println!("cargo:rerun-if-changed=../web/dist");
}
