//! Owner routes (SPEC §6.4): signed in, plus a current owner row in an active
//! workspace, read fresh after the workspace lock. A non-owner, a revoked owner and an
//! owner of another workspace all get the same 404 as an absent object.

pub(crate) mod content;
pub(crate) mod decisions;
pub(crate) mod entries;
pub(crate) mod events;
pub(crate) mod export;
pub(crate) mod grants;
pub mod guard;
pub(crate) mod invitations;
pub(crate) mod notices;
pub(crate) mod programs;
pub(crate) mod workspaces;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    workspaces::configure(cfg);
    programs::configure(cfg);
    notices::configure(cfg);
    entries::configure(cfg);
    decisions::configure(cfg);
    invitations::configure(cfg);
    grants::configure(cfg);
    content::configure(cfg);
    events::configure(cfg);
    export::configure(cfg);
}
