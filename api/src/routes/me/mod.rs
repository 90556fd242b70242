//! Recipient routes (SPEC §6.3): a signed-in user acting on their own data. Every route
//! that touches an entry, a grant or private content asks the identity provider for the
//! user's verified emails first (the [`crate::identity::VerifiedUser`] extractor); none
//! requires or reads a staff row.

mod early_access;
mod entries;
mod erasure;
mod redeem;
mod session;
mod waitlist;

use utoipa_actix_web::service_config::ServiceConfig;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(session::me)
        .service(session::emails)
        .service(entries::list)
        .service(waitlist::status)
        .service(waitlist::withdraw)
        .service(waitlist::join)
        .service(erasure::erase)
        .service(erasure::export)
        .service(erasure::draws)
        .service(redeem::redeem)
        .service(early_access::early_access);
}
