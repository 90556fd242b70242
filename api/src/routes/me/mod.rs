//! Recipient routes (SPEC §6.3): a signed-in user acting on their own data. Every route
//! that touches an entry, a grant or private content asks the identity provider for the
//! user's verified emails first ([`crate::identity::VerifiedUser`]); none requires or
//! reads a staff row.

pub(crate) mod early_access;
pub(crate) mod entries;
pub(crate) mod redeem;
pub(crate) mod session;
pub(crate) mod waitlist;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    session::configure(cfg);
    entries::configure(cfg);
    waitlist::configure(cfg);
    redeem::configure(cfg);
    early_access::configure(cfg);
}
