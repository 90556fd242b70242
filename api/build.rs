//! Rebuilds the server when the built SPA changes. `rust-embed` reads `web/dist` at
//! compile time through `include_bytes!`, which tells Cargo about the files it found but
//! not about files that appear later (a fresh `scripts/build-web` writes new hashed
//! names, or `web/dist` did not exist yet). Watching the directory covers both.

fn main() {
    println!("cargo:rerun-if-changed=../web/dist");
    println!("cargo:rerun-if-changed=build.rs");
}
