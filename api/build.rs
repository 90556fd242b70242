//! Rebuild when a migration is added or changed: `refinery::embed_migrations!` reads the
//! folder at compile time, and cargo does not otherwise notice a new file in it.

fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
