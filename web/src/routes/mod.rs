//! One module per page, named after its path (SPEC §8).

pub mod early_access;
pub mod embed;
pub mod home;
pub mod me;
pub mod not_found;
pub mod owner;
pub mod redeem;
pub mod redeem_notice;
pub mod sign_in;
pub mod waitlist;
