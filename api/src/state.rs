//! What every request and background task can reach: the settings, the database pool
//! and the identity provider's clients. Built once by `startup`, shared by reference.

use crate::config::Settings;
use crate::identity::Identity;
use deadpool_postgres::Pool;

pub struct AppState {
    pub settings: Settings,
    pub pool: Pool,
    pub identity: Identity,
}
