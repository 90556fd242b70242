//! Owner routes (SPEC §6.4): signed in, plus a current owner row in an active workspace,
//! checked by `usecases::owner` inside each operation's transaction. A non-owner, a
//! revoked owner and an owner of another workspace all get the same 404 as an absent
//! object (declared once for every owner operation in the OpenAPI document).

mod admission_hook;
mod api_keys;
mod audit;
mod clerk_sync;
mod cohort_codes;
mod content;
mod decisions;
mod draws;
mod entries;
mod erasure;
mod events;
mod export;
mod grants;
mod invitations;
mod notices;
mod programs;
mod webhooks;
mod workspaces;

use utoipa_actix_web::service_config::ServiceConfig;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(workspaces::list)
        .service(workspaces::owners)
        .service(programs::create)
        .service(programs::list)
        .service(programs::read)
        .service(programs::patch)
        .service(programs::stats)
        .service(notices::publish)
        .service(entries::list)
        .service(entries::search)
        .service(export::export)
        .service(decisions::select_bulk)
        .service(decisions::decline_flagged)
        .service(entries::detail)
        .service(erasure::erase)
        .service(decisions::select)
        .service(decisions::decline)
        .service(decisions::withdraw)
        .service(invitations::issue)
        .service(invitations::issue_bulk)
        .service(invitations::delivery_record)
        .service(invitations::delivery_records)
        .service(invitations::revoke)
        .service(grants::revoke)
        .service(content::get)
        .service(content::put)
        .service(events::list)
        .service(audit::checkpoint)
        .service(draws::open)
        .service(draws::list)
        .service(draws::get)
        .service(draws::run)
        .service(draws::cancel)
        .service(cohort_codes::create)
        .service(cohort_codes::list)
        .service(cohort_codes::read)
        .service(cohort_codes::revoke);
    clerk_sync::configure(cfg);
    webhooks::configure(cfg);
    api_keys::configure(cfg);
    admission_hook::configure(cfg);
}
