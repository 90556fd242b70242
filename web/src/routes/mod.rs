//! One module per page, named after its path (SPEC §8). Each bundle routes only its own
//! audience's pages (`web/Cargo.toml`'s features, `app.rs`); `elsewhere` stands in for the
//! other's.

pub mod draws;
pub mod early_access;
pub mod elsewhere;
pub mod embed;
pub mod home;
pub mod me;
pub mod not_found;
pub mod owner;
pub mod redeem;
pub mod redeem_notice;
pub mod sign_in;
pub mod waitlist;
