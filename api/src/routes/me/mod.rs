//! Recipient routes (SPEC §6.3): a signed-in user acting on their own data. Every route
//! that touches an entry, a grant or private content asks the identity provider for the
//! user's verified emails first ([`crate::identity::VerifiedUser`]); none requires or
//! reads a staff row.

mod early_access;
mod entries;
mod redeem;
mod session;
mod waitlist;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    session::configure(cfg);
    entries::configure(cfg);
    waitlist::configure(cfg);
    redeem::configure(cfg);
    early_access::configure(cfg);
}
